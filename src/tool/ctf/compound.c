/* SPDX-License-Identifier: MIT */
/*
 * compound.c - walking a compound value (compound.h): its end for the
 * decoder, its text in babeltrace2's notation for the formatter.
 */
#include "ctf/compound.h"
#include "ctf/header.h"
#include "ctf/load.h"
#include "ctf/value.h"

#include <stdlib.h>
#include <string.h>

int64_t lt_field_int(const unsigned char *b, uint32_t off,
		     const struct lt_field_class *fc)
{
	unsigned bits = fc->bitfield ? fc->bitsize : 8u * fc->size;
	uint64_t raw = fc->bitfield ? lt_hdr_bits(b, off, fc->bitsize, fc->be) :
				      ld_uint_bo(b + off, fc->size, fc->be);
	if (fc->is_signed && bits < 64)
		return (int64_t)(raw << (64 - bits)) >> (64 - bits);
	return (int64_t)raw;
}

/* The value of a variant's tag or a sequence's length (n's reference). */
static int ref_value(const struct lt_cnode *n, struct lt_cwalk *w, int64_t *v)
{
	if (n->ref_reg >= 0) {
		*v = (int64_t)w->regs[n->ref_reg];
		return 0;
	}
	uint32_t off = w->off[n->ref_field];
	if (off == LT_OFF_ABSENT) {
		w->why = "its tag or length is in a variant's option the event "
			 "does not hold";
		return -1;
	}
	const struct lt_field_class *fc = &w->fields[n->ref_field];
	if (fc->kind == LT_KIND_COMPOUND) {
		/* a LEB128 integer (its offset in bits), read before */
		size_t at = off / 8;
		uint64_t u;
		w->why = lt_leb128(w->b, w->end, &at, fc->tree->sc->is_signed,
				   &u);
		*v = (int64_t)u;
		return w->why ? -1 : 0;
	}
	*v = lt_field_int(w->b, off, fc);
	return 0;
}

static void put(struct lt_cwalk *w, const char *s, size_t n)
{
	if (w->p) {
		memcpy(w->p, s, n);
		w->p += n;
	}
}

/* A scalar at bit of w->b (its bytes are there). */
static void scalar(const struct lt_cnode *n, struct lt_cwalk *w, uint64_t bit)
{
	const struct lt_field_class *fc = n->sc;
	struct lt_value v = { .fc = fc, .kind = fc->kind };
	if (fc->kind == LT_KIND_FLOAT) {
		uint64_t raw = lt_hdr_bits(w->b, bit, 8u * fc->size, fc->be);
		if (fc->size == 4) {
			float f;
			uint32_t r32 = (uint32_t)raw;
			memcpy(&f, &r32, 4);
			v.f = f;
		} else {
			memcpy(&v.f, &raw, 8);
		}
	} else {
		uint64_t raw = lt_hdr_bits(w->b, bit, fc->bitsize, fc->be);
		if (fc->is_signed && fc->bitsize < 64)
			raw = (uint64_t)((int64_t)(raw << (64 - fc->bitsize)) >>
					 (64 - fc->bitsize));
		v.u = raw;
		if (n->reg >= 0)
			w->regs[n->reg] = raw;
		if (fc->kind == LT_KIND_ENUM)
			v.str = lt_enum_label(fc, raw);
	}
	if (w->p)
		w->p = w->scalar(w->p, &v);
}

const char *lt_leb128(const unsigned char *b, size_t end, size_t *at,
		      int is_signed, uint64_t *v)
{
	unsigned shift = 0;
	uint8_t c;
	*v = 0;
	do {
		if (*at >= end)
			return "a LEB128 integer past the content's end";
		c = b[(*at)++];
		/* the 10th byte holds bit 63 alone (and, signed, its sign
		 * extension) and ends the integer */
		if (shift == 63 &&
		    ((c & 0x80) ||
		     (is_signed ? (c & 0x7f) != 0 && (c & 0x7f) != 0x7f :
				  (c & 0x7e) != 0)))
			return "a LEB128 integer of more than 64 bits";
		*v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	if (is_signed && shift < 64 && (c & 0x40))
		*v |= ~0ull << shift;
	return NULL;
}

/* A LEB128 integer at *bit of w->b (a byte: CTF 2 aligns them). */
static int vlint(const struct lt_cnode *n, struct lt_cwalk *w, uint64_t *bit)
{
	const struct lt_field_class *fc = n->sc;
	struct lt_value v = { .fc = fc, .kind = fc->kind };
	size_t at = *bit / 8;
	w->why = lt_leb128(w->b, w->end, &at, fc->is_signed, &v.u);
	if (w->why)
		return -1;
	*bit = 8 * (uint64_t)at;
	if (n->reg >= 0)
		w->regs[n->reg] = v.u;
	if (fc->kind == LT_KIND_ENUM)
		v.str = lt_enum_label(fc, v.u);
	if (w->p)
		w->p = w->scalar(w->p, &v);
	return 0;
}

/* A BLOB of count bytes: "{ length = N, data = 0102AB }". */
static int blob(struct lt_cwalk *w, uint64_t *bit, uint64_t count)
{
	static const char hex[] = "0123456789ABCDEF";
	if (*bit % 8 || count > w->end - *bit / 8) {
		w->why = "a BLOB past the content's end";
		return -1;
	}
	const unsigned char *s = w->b + *bit / 8;
	w->bound += 2 * (size_t)count + 48;
	if (w->p) {
		put(w, "{ length = ", 11);
		w->p = w->number(w->p, count);
		put(w, ", data = ", 9);
		for (uint64_t i = 0; i < count; i++) {
			*w->p++ = hex[s[i] >> 4];
			*w->p++ = hex[s[i] & 15];
		}
		put(w, " }", 2);
	}
	*bit += 8 * count;
	return 0;
}

/* The code point c as UTF-8 at u; its bytes. */
static size_t utf8_put(char *u, uint32_t c)
{
	if (c < 0x80) {
		u[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		u[0] = (char)(0xc0 | c >> 6);
		u[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		u[0] = (char)(0xe0 | c >> 12);
		u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	u[0] = (char)(0xf0 | c >> 18);
	u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	u[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* The bytes before the first code unit of 0 in n bytes of UTF-16 or
 * UTF-32 (n's enc) at s, or all of them when none is. */
size_t lt_cnode_utf_len(const struct lt_cnode *n, const unsigned char *s,
			size_t len)
{
	size_t i = 0;
	while (i + n->enc <= len &&
	       (s[i] | s[i + 1] | (n->enc == 4 ? s[i + 2] | s[i + 3] : 0)))
		i += n->enc;
	return i;
}

/* len bytes of UTF-16 or UTF-32 (n's enc) at s written as a string
 * (UTF-8; U+FFFD for what is not a code point), as babeltrace2 converts
 * them.  A UTF-8 byte or a surrogate pair's four for each two bytes: its
 * text is 6 bytes a byte at most. */
static void utf_string(const struct lt_cnode *n, struct lt_cwalk *w,
		       const unsigned char *s, size_t len)
{
	w->bound += 6 * len + 2;
	if (!w->p)
		return;
	char *u = malloc(2 * len + 1);
	size_t k = 0;
	if (!u) {
		w->why = "out of memory";
		w->p = w->string(w->p, "", 0);
		return;
	}
	for (size_t i = 0; i + n->enc <= len; i += n->enc) {
		uint32_t c = (uint32_t)ld_uint_bo(s + i, n->enc, n->enc_be);
		if (n->enc == 2 && c >= 0xd800 && c < 0xdc00 && i + 4 <= len) {
			uint32_t d =
				(uint32_t)ld_uint_bo(s + i + 2, 2, n->enc_be);
			if (d >= 0xdc00 && d < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) +
				    (d - 0xdc00);
				i += 2;
			}
		}
		if ((c >= 0xd800 && c < 0xe000) || c > 0x10ffff)
			c = 0xfffd;
		k += utf8_put(u + k, c);
	}
	w->p = w->string(w->p, u, k);
	free(u);
}

int64_t lt_var_option(const struct lt_field_class *fc, int64_t tag,
		      int is_signed)
{
	for (uint32_t k = 0; k < fc->nvar_sel; k++) {
		const struct lt_var_sel *v = &fc->var_sel[k];
		int in = is_signed ? tag >= v->lo && tag <= v->hi :
				     (uint64_t)tag >= (uint64_t)v->lo &&
					     (uint64_t)tag <= (uint64_t)v->hi;
		if (in)
			return v->opt;
	}
	return -1;
}

int lt_cnode_selects(const struct lt_cnode *n, const struct lt_var_sel *s,
		     int64_t v)
{
	return n->ref_signed ? v >= s->lo && v <= s->hi :
			       (uint64_t)v >= (uint64_t)s->lo &&
				       (uint64_t)v <= (uint64_t)s->hi;
}

/* The elements of an array or sequence: "[ [0] = V, [1] = V ]". */
static int elements(const struct lt_cnode *n, struct lt_cwalk *w, uint64_t *bit,
		    uint64_t count)
{
	const struct lt_cnode *e = &n->kids[0];
	if (n->blob)
		return blob(w, bit, count);
	if (n->text) {
		/* chars: a string up to the first NUL */
		if (*bit % 8 || count > w->end - *bit / 8) {
			w->why = "text past the content's end";
			return -1;
		}
		const char *s = (const char *)w->b + *bit / 8;
		if (n->enc)
			utf_string(n, w, (const unsigned char *)s,
				   lt_cnode_utf_len(n, (const unsigned char *)s,
						    (size_t)count));
		else if (w->p)
			w->p = w->string(w->p, s, strnlen(s, (size_t)count));
		w->bound += 4 * (size_t)count + 2;
		*bit += 8 * count;
		return 0;
	}
	/* every element has a bit at least: a count past the bits left is
	 * wrong (and would not end) */
	if (count > 8 * (uint64_t)w->end - *bit) {
		w->why = "more elements than bytes left";
		return -1;
	}
	w->bound += 4;
	if (!count) {
		put(w, "[ ]", 3);
		return 0;
	}
	put(w, "[", 1);
	for (uint64_t i = 0; i < count; i++) {
		if (w->p) {
			memcpy(w->p, i ? ", [" : " [", 3);
			w->p += i ? 3 : 2;
			w->p = w->number(w->p, i);
			memcpy(w->p, "] = ", 4);
			w->p += 4;
		}
		w->bound += 28;
		if (lt_cnode_walk(e, w, bit))
			return -1;
	}
	put(w, " ]", 2);
	return 0;
}

int lt_cnode_walk(const struct lt_cnode *n, struct lt_cwalk *w, uint64_t *bit)
{
	/* alignments are powers of two (the parser checks) */
	uint64_t at = (*bit + n->align - 1) & ~(uint64_t)(n->align - 1);
	uint64_t bits_left = 8 * (uint64_t)w->end;
	*bit = at;
	if (at > bits_left) {
		w->why = "past the content's end";
		return -1;
	}
	w->bound += n->bound;
	switch (n->kind) {
	case LT_CN_SCALAR: {
		unsigned size = n->sc->kind == LT_KIND_FLOAT ?
					8u * n->sc->size :
					n->sc->bitsize;
		if (size > bits_left - at) {
			w->why = "past the content's end";
			return -1;
		}
		scalar(n, w, at);
		*bit = at + size;
		return 0;
	}
	case LT_CN_STRING: {
		const unsigned char *s = w->b + at / 8;
		if (n->enc) {
			/* up to a code unit of 0, which it holds */
			size_t len = lt_cnode_utf_len(n, s, w->end - at / 8);
			if (len + n->enc > w->end - at / 8) {
				w->why = "a string has no end before the "
					 "content's end";
				return -1;
			}
			utf_string(n, w, s, len);
			*bit = at + 8 * (uint64_t)(len + n->enc);
			return 0;
		}
		const unsigned char *z = memchr(s, 0, w->end - at / 8);
		if (!z) {
			w->why = "a string has no end before the content's end";
			return -1;
		}
		if (w->p)
			w->p = w->string(w->p, (const char *)s,
					 (size_t)(z - s));
		w->bound += 4 * (size_t)(z - s) + 2;
		*bit = 8 * (uint64_t)(z + 1 - w->b);
		return 0;
	}
	case LT_CN_STRUCT:
		put(w, "{", 1);
		for (uint32_t i = 0; i < n->nkids; i++) {
			const struct lt_cnode *k = &n->kids[i];
			if (w->p) {
				memcpy(w->p, i ? ", " : " ", 2);
				w->p += i ? 2 : 1;
				memcpy(w->p, k->name, k->name_len);
				w->p += k->name_len;
				memcpy(w->p, " = ", 3);
				w->p += 3;
			}
			if (lt_cnode_walk(k, w, bit))
				return -1;
		}
		put(w, " }", 2);
		return 0;
	case LT_CN_VARIANT: {
		int64_t tag;
		if (ref_value(n, w, &tag))
			return -1;
		for (uint32_t i = 0; i < n->nsel; i++) {
			const struct lt_var_sel *s = &n->sel[i];
			if (!lt_cnode_selects(n, s, tag))
				continue;
			put(w, "{ ", 2);
			if (lt_cnode_walk(&n->kids[s->opt], w, bit))
				return -1;
			put(w, " }", 2);
			return 0;
		}
		w->why = "a variant's tag selects no option";
		return -1;
	}
	case LT_CN_ARRAY:
		return elements(n, w, bit, n->length);
	case LT_CN_VLINT:
		return vlint(n, w, bit);
	case LT_CN_OPTIONAL: {
		int64_t sel;
		int in = 0;
		if (ref_value(n, w, &sel))
			return -1;
		for (uint32_t i = 0; i < n->nsel && !in; i++)
			in = lt_cnode_selects(n, &n->sel[i], sel);
		if (!n->nsel)
			in = sel != 0;
		if (!in) {
			/* babeltrace2's text of an absent optional */
			put(w, "<none>", 6);
			return 0;
		}
		put(w, "{ ", 2);
		if (lt_cnode_walk(&n->kids[0], w, bit))
			return -1;
		put(w, " }", 2);
		return 0;
	}
	default: {
		int64_t len;
		if (ref_value(n, w, &len))
			return -1;
		return elements(n, w, bit, (uint64_t)len);
	}
	}
}
