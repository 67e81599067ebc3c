/* SPDX-License-Identifier: MIT */
/*
 * encode.c - a raw tracepoint record (the layout tracefs's format file
 * gives) re-encoded as the payload of a CTF event: common_tid, common_tgid,
 * then the format's fields, each in the CTF type lt_kencode_fields()
 * describes (see encode.h).
 */
#include "kernel/encode.h"

#include <stdlib.h>
#include <string.h>

struct lt_field_desc *lt_kencode_fields(const struct lt_kformat *f,
					uint32_t *nfields)
{
	struct lt_field_desc *d = calloc(f->nfields + 3, sizeof(*d));
	if (!d)
		return NULL;
	d[0] = (struct lt_field_desc){ "common_tid", LT_FT_INT, 4,   1,
				       10,	     0,		NULL };
	d[1] = (struct lt_field_desc){ "common_tgid", LT_FT_INT, 4, 1, 10, 0,
				       NULL };
	for (uint32_t i = 0; i < f->nfields; i++) {
		const struct lt_kfield *k = &f->fields[i];
		struct lt_field_desc *o = &d[i + 2];
		o->name = k->name;
		o->size = k->elem_size;
		o->is_signed = k->is_signed;
		o->base = k->hex ? 16 : 10;
		switch (k->kind) {
		case LT_KF_INT:
			o->type = LT_FT_INT;
			break;
		case LT_KF_CHARS:
			o->type = LT_FT_CHARS;
			o->length = k->count;
			o->is_signed = 1;
			break;
		case LT_KF_ARRAY:
			o->type = LT_FT_ARRAY;
			o->length = k->count;
			break;
		case LT_KF_STRING:
			o->type = LT_FT_STRING;
			break;
		case LT_KF_DYNARRAY:
			o->type = LT_FT_SEQUENCE;
			break;
		}
	}
	*nfields = f->nfields + 2;
	return d;
}

/*
 * A string a probe could not fetch (a uprobe's `+0(%di):ustring` at a
 * bad address): the kernel writes a __data_loc of length 0, where a
 * string it has always holds its NUL.  The event keeps this marker, as
 * the kernel's own text output does, rather than an empty string.
 */
#define FAULT "(fault)"

static int fetch_failed(const struct lt_kfield *k, const unsigned char *raw,
			uint32_t raw_size)
{
	uint32_t v = 0;
	if ((uint32_t)k->offset + 4 > raw_size)
		return 0;
	memcpy(&v, raw + k->offset, 4);
	return (v >> 16) == 0;
}

/* Where a __data_loc field's data lies in the record: offset and length,
 * cut to the record. */
static void dyn_loc(const struct lt_kfield *k, const unsigned char *raw,
		    uint32_t raw_size, uint32_t *off, uint32_t *len)
{
	uint32_t v = 0;
	*off = *len = 0;
	if ((uint32_t)k->offset + 4 > raw_size)
		return;
	memcpy(&v, raw + k->offset, 4);
	uint32_t o = v & 0xffff, l = v >> 16;
	if (k->rel_loc)
		o += k->offset + 4u;
	if (o >= raw_size)
		return;
	if (l > raw_size - o)
		l = raw_size - o;
	*off = o;
	*len = l;
}

static uint32_t str_len(const unsigned char *p, uint32_t max)
{
	const unsigned char *z = memchr(p, 0, max);
	return z ? (uint32_t)(z - p) : max;
}

uint32_t lt_kencode_size(const struct lt_kformat *f, const unsigned char *raw,
			 uint32_t raw_size)
{
	uint32_t n = 8, off, len;
	for (uint32_t i = 0; i < f->nfields; i++) {
		const struct lt_kfield *k = &f->fields[i];
		switch (k->kind) {
		case LT_KF_INT:
			n += k->elem_size;
			break;
		case LT_KF_CHARS:
		case LT_KF_ARRAY:
			n += k->count * k->elem_size;
			break;
		case LT_KF_STRING:
			if (fetch_failed(k, raw, raw_size)) {
				n += sizeof(FAULT);
				break;
			}
			dyn_loc(k, raw, raw_size, &off, &len);
			n += str_len(raw + off, len) + 1;
			break;
		case LT_KF_DYNARRAY:
			dyn_loc(k, raw, raw_size, &off, &len);
			n += 4 + len / k->elem_size * k->elem_size;
			break;
		}
	}
	return n;
}

/* n bytes of the record at off, zeros for what lies outside it. */
static char *put_bytes(char *out, const unsigned char *raw, uint32_t raw_size,
		       uint32_t off, uint32_t n)
{
	uint32_t have = off < raw_size ? raw_size - off : 0;
	if (have > n)
		have = n;
	if (have)
		memcpy(out, raw + off, have);
	memset(out + have, 0, n - have);
	return out + n;
}

void lt_kencode(const struct lt_kformat *f, uint32_t tid, uint32_t tgid,
		const unsigned char *raw, uint32_t raw_size, char *out)
{
	uint32_t off, len;

	memcpy(out, &tid, 4);
	memcpy(out + 4, &tgid, 4);
	out += 8;
	for (uint32_t i = 0; i < f->nfields; i++) {
		const struct lt_kfield *k = &f->fields[i];
		switch (k->kind) {
		case LT_KF_INT:
			out = put_bytes(out, raw, raw_size, k->offset,
					k->elem_size);
			break;
		case LT_KF_CHARS:
		case LT_KF_ARRAY:
			out = put_bytes(out, raw, raw_size, k->offset,
					k->count * k->elem_size);
			break;
		case LT_KF_STRING:
			if (fetch_failed(k, raw, raw_size)) {
				memcpy(out, FAULT, sizeof(FAULT));
				out += sizeof(FAULT);
				break;
			}
			dyn_loc(k, raw, raw_size, &off, &len);
			len = str_len(raw + off, len);
			memcpy(out, raw + off, len);
			out[len] = 0;
			out += len + 1;
			break;
		case LT_KF_DYNARRAY: {
			dyn_loc(k, raw, raw_size, &off, &len);
			uint32_t cnt = len / k->elem_size;
			memcpy(out, &cnt, 4);
			memcpy(out + 4, raw + off, cnt * k->elem_size);
			out += 4 + cnt * k->elem_size;
			break;
		}
		}
	}
}
