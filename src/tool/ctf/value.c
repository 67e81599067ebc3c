/* SPDX-License-Identifier: MIT */
/*
 * value.c - reading a decoded event's field values where the decoder
 * noted them (value.h).
 */
#include "ctf/value.h"
#include "ctf/header.h"
#include "ctf/load.h"

#include <errno.h>
#include <string.h>

const char *lt_enum_scan(const struct lt_field_class *fc, uint64_t raw)
{
	for (uint32_t i = 0; i < fc->nranges; i++) {
		if (lt_enum_range_has(fc, &fc->ranges[i], raw))
			return fc->ranges[i].label;
	}
	return NULL;
}

uint8_t lt_value_op(const struct lt_field_class *fc)
{
	return fc->var_tag >= 0 ? LT_VOP_OPTION : lt_value_kind_op(fc);
}

uint8_t lt_value_kind_op(const struct lt_field_class *fc)
{
	if (fc->bitfield) {
		if (fc->kind != LT_KIND_INT && fc->kind != LT_KIND_ENUM)
			return LT_VOP_ANY;
		return !fc->be && fc->bitsize <= 57 ? LT_VOP_BITS_LE :
						      LT_VOP_BITS;
	}
	switch (fc->kind) {
	case LT_KIND_STRING:
		return LT_VOP_STRING;
	case LT_KIND_ARRAY:
	case LT_KIND_SEQUENCE:
		if (fc->text)
			return LT_VOP_TEXT;
		return fc->kind == LT_KIND_ARRAY ? LT_VOP_ARRAY :
						   LT_VOP_SEQUENCE;
	case LT_KIND_FLOAT:
		if (fc->be || (fc->size != 4 && fc->size != 8))
			return LT_VOP_ANY;
		return (uint8_t)(fc->size | LT_VOP_FLOAT);
	case LT_KIND_INT:
		if (!ld_sel_size(fc->size))
			return LT_VOP_ANY;
		return (uint8_t)(fc->size |
				 (fc->is_signed ? LT_VOP_SIGNED : 0) |
				 (fc->be ? LT_VOP_BE : 0));
	case LT_KIND_ENUM:
		return ld_sel_size(fc->size) ? LT_VOP_ENUM : LT_VOP_ANY;
	default:
		return LT_VOP_ANY;
	}
}

/* A value of nothing (see lt_value_absent()). */
static void value_clear(struct lt_value *v)
{
	v->u = 0;
	v->str = NULL;
	v->len = 0;
	v->data = NULL;
}

int lt_event_field_any(const struct lt_event *ev, unsigned i,
		       struct lt_value *v)
{
	if (i >= ev->cls->nfields)
		return -EINVAL;
	const struct lt_field_class *fc = &ev->cls->fields[i];
	if (__builtin_expect(fc->var_tag >= 0, 0) &&
	    ev->off[i] == LT_OFF_ABSENT)
		return lt_value_absent(fc, v);
	if (__builtin_expect(fc->kind == LT_KIND_COMPOUND, 0)) {
		/* its text is the formatter's; u: its offset in bits */
		value_clear(v);
		v->fc = fc;
		v->kind = LT_KIND_COMPOUND;
		v->u = ev->off[i];
		v->data = ev->base + ev->off[i] / 8;
		return 0;
	}
	const unsigned char *p = ev->base + ev->off[i];
	switch (fc->kind) {
	case LT_KIND_STRING:
		v->fc = fc;
		v->kind = LT_KIND_STRING;
		v->str = (const char *)p;
		v->len = ev->count[i];
		v->data = p;
		return 0;
	case LT_KIND_ARRAY:
	case LT_KIND_SEQUENCE:
		v->fc = fc;
		v->kind = fc->kind;
		v->data = p;
		v->len = fc->kind == LT_KIND_ARRAY ? fc->length : ev->count[i];
		v->str = NULL;
		if (fc->text) {
			v->str = (const char *)p;
			v->u = strnlen(v->str, v->len); /* text length */
		}
		return 0;
	default:
		if (__builtin_expect(fc->bitfield, 0))
			lt_value_bitfield(fc, ev->base, ev->off[i], v);
		else
			lt_value_scalar(fc, fc->kind, p, v);
		return 0;
	}
}

int lt_event_field_by_name(const struct lt_event *ev, const char *name,
			   struct lt_value *v)
{
	for (unsigned i = 0; i < ev->cls->nfields; i++)
		if (!strcmp(ev->cls->fields[i].name, name))
			return lt_event_field(ev, i, v);
	return -ENOENT;
}

int lt_value_elem(const struct lt_value *arr, size_t i, struct lt_value *out)
{
	if ((arr->kind != LT_KIND_ARRAY && arr->kind != LT_KIND_SEQUENCE) ||
	    i >= arr->len)
		return -EINVAL;
	lt_value_scalar(arr->fc, arr->fc->elem_kind,
			arr->data + i * arr->fc->size, out);
	return 0;
}
