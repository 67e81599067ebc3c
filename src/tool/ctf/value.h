/* SPDX-License-Identifier: MIT */
/*
 * value.h - a decoded event's field values (struct lt_value): scalars,
 * strings, array elements, enum labels.
 */
#ifndef LT_CTF_VALUE_H
#define LT_CTF_VALUE_H

#include "ctf/header.h"
#include "ctf/load.h"
#include "ctf/types.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * How lt_event_field() reads a field (lt_event_class.vop): in line, an
 * integer of 1, 2, 4 or 8 bytes (its bytes, or-ed with LT_VOP_SIGNED when
 * signed, LT_VOP_BE when big-endian), a little-endian float (its bytes
 * or-ed with LT_VOP_FLOAT), a string, an array or sequence of numbers
 * (LT_VOP_TEXT: of text, its length up to its NUL), an integer or
 * enum bit-field, an enum of 1, 2, 4 or 8 bytes (its label looked up out of
 * line), a variant's option (LT_VOP_OPTION: absent, or read by the op of
 * its kind, lt_value_kind_op()); anything else (compound fields) out of
 * line.
 */
enum {
	LT_VOP_ANY = 0,
	LT_VOP_SIGNED = 0x10,
	LT_VOP_BE = 0x20,
	LT_VOP_FLOAT = 0x40,
	LT_VOP_STRING = 0x80,
	LT_VOP_ARRAY = 0x81,
	LT_VOP_SEQUENCE = 0x82,
	LT_VOP_BITS = 0x83, /* an integer or enum bit-field, either order */
	LT_VOP_ENUM = 0x84, /* not a bit-field */
	LT_VOP_TEXT = 0x85,
	LT_VOP_OPTION = 0x86,
	/* a little-endian integer or enum bit-field of 57 bits at most: within
	 * the 8 bytes that end on its last byte, wherever it starts */
	LT_VOP_BITS_LE = 0x87,
};

/* The LT_VOP_* of a field class, as the metadata compiled it. */
uint8_t lt_value_op(const struct lt_field_class *fc);
/* The same of a variant's option fc read as a field of its kind. */
uint8_t lt_value_kind_op(const struct lt_field_class *fc);

/* Whether the enum fc's range r holds the value v (its bits): v in lo..hi
 * (as signed values when fc is), or, for a bit map, one of the bits lo..hi
 * of v set. */
static inline int lt_enum_range_has(const struct lt_field_class *fc,
				    const struct lt_enum_range *r, uint64_t v)
{
	if (fc->bitmap) {
		for (int64_t b = r->lo; b <= r->hi && b < 64; b++)
			if ((v >> b) & 1)
				return 1;
		return 0;
	}
	return fc->is_signed ? (int64_t)v >= r->lo && (int64_t)v <= r->hi :
			       v >= (uint64_t)r->lo && v <= (uint64_t)r->hi;
}

/* The label of an enum value, or NULL, by a search of its ranges. */
const char *lt_enum_scan(const struct lt_field_class *fc, uint64_t raw);

/* The same, the common values by the enum's table (label_at). */
static inline const char *lt_enum_label(const struct lt_field_class *fc,
					uint64_t raw)
{
	if (__builtin_expect(raw < fc->nlabel_at, 1))
		return fc->label_at[raw];
	return lt_enum_scan(fc, raw);
}

/* v's float from its bits (4 or 8 bytes). */
static inline void lt_value_set_float(struct lt_value *v, uint64_t bits,
				      unsigned size)
{
	if (size == 4) {
		float f;
		uint32_t b32 = (uint32_t)bits;
		memcpy(&f, &b32, 4);
		v->f = f;
	} else {
		memcpy(&v->f, &bits, 8);
	}
}

/* A scalar of fc, of kind (an integer, enum or float) at p. */
static inline void lt_value_scalar(const struct lt_field_class *fc,
				   uint8_t kind, const unsigned char *p,
				   struct lt_value *v)
{
	uint64_t raw = ld_uint_bo(p, fc->size, fc->be);
	v->fc = fc;
	v->kind = kind;
	v->str = NULL;
	v->len = 0;
	v->data = p;
	if (kind == LT_KIND_FLOAT) {
		lt_value_set_float(v, raw, fc->size);
		return;
	}
	if (fc->is_signed)
		v->i = sext(raw, fc->size);
	else
		v->u = raw;
	if (kind == LT_KIND_ENUM)
		v->str = lt_enum_label(fc, v->u);
}

/* A bit-field's value: bit is its offset in bits from base.  one_load:
 * it is little-endian, within the 8 bytes that end on its last byte, and
 * the 7 bytes before its first byte are readable (lt_event.room): then it
 * is read by the one load that ends on its last byte. */
static inline void lt_value_bits(const struct lt_field_class *fc,
				 const unsigned char *base, uint32_t bit,
				 int one_load, struct lt_value *v)
{
	const uint64_t top = (uint64_t)bit + fc->bitsize - 1; /* its last bit */
	const unsigned sh = 64 - fc->bitsize;
	uint64_t x; /* its bits at the top, bit 63 its last */
	if (one_load)
		x = ld64(base + top / 8 - 7) << (7 - top % 8);
	else
		x = lt_hdr_bits(base, bit, fc->bitsize, fc->be) << sh;
	v->fc = fc;
	v->kind = fc->kind;
	v->str = NULL;
	v->len = 0;
	v->data = base + bit / 8;
	v->u = fc->is_signed ? (uint64_t)((int64_t)x >> sh) : x >> sh;
	if (fc->kind == LT_KIND_ENUM)
		v->str = lt_enum_label(fc, v->u);
}

/* The same of any bit-field.  room: the event's lt_event.room. */
static inline void lt_value_bitfield_room(const struct lt_field_class *fc,
					  const unsigned char *base,
					  uint32_t bit, int room,
					  struct lt_value *v)
{
	const uint64_t top = (uint64_t)bit + fc->bitsize - 1;
	lt_value_bits(fc, base, bit, room && !fc->be && top / 8 - bit / 8 < 8,
		      v);
}

/* The same without room (any bit-field of any event). */
static inline void lt_value_bitfield(const struct lt_field_class *fc,
				     const unsigned char *base, uint32_t bit,
				     struct lt_value *v)
{
	lt_value_bitfield_room(fc, base, bit, 0, v);
}

/* The value of a variant's option fc that the event does not hold:
 * -ENOENT.  Each member stored alone: the caller's load of a member right
 * after waited on a memset()'s wide stores (its bytes not forwarded from
 * them), 4% of `view --stats` on a trace of variants. */
static inline int lt_value_absent(const struct lt_field_class *fc,
				  struct lt_value *v)
{
	v->fc = fc;
	v->kind = fc->kind;
	v->u = 0;
	v->str = NULL;
	v->len = 0;
	v->data = NULL;
	return -ENOENT;
}

/* lt_event_field() for any field. */
int lt_event_field_any(const struct lt_event *ev, unsigned i,
		       struct lt_value *v);

/*
 * Field i of an event whose fields are at base + off[i] (counts cnt), read
 * as lt_event_field() says, its class fc (the event class's fields + i)
 * and op (its vop[i]) given: a loop over an event's fields keeps these in
 * registers and passes them along.  room: the event's lt_event.room, when
 * an integer or float is read by one 8-byte load that ends on its last
 * byte, shifts by its size and sign in place of branches on them.
 * Always in line: a loop made once for each value of room (a constant in
 * each) would otherwise get calls to one copy that tests it per field.
 */
static inline __attribute__((always_inline)) int
lt_field_read(const struct lt_event *ev, unsigned i,
	      const struct lt_field_class *fc, unsigned op,
	      const unsigned char *base, const uint32_t *off,
	      const uint32_t *cnt, int room, struct lt_value *v)
{
again:
	if (__builtin_expect(room && op - 1 < LT_VOP_STRING - 1, 1)) {
		/* 64 - 8 * the size of 1, 2, 4 or 8 bytes */
		static const uint8_t shift[16] = {
			[1] = 56, [2] = 48, [4] = 32, [8] = 0
		};
		const unsigned char *p = base + off[i];
		const size_t size = op & 15;
		const unsigned sh = shift[size];
		uint64_t x = ld64(p + size - 8);
		v->fc = fc;
		v->data = p;
		v->str = NULL;
		v->len = 0;
		if (__builtin_expect(op & (LT_VOP_BE | LT_VOP_FLOAT), 0)) {
			if (op & LT_VOP_FLOAT) {
				v->kind = LT_KIND_FLOAT;
				lt_value_set_float(v, x >> sh, size);
				return 0;
			}
			/* its bytes swapped to the low end, then up again */
			x = __builtin_bswap64(x) << sh;
		}
		v->kind = LT_KIND_INT;
		v->u = op & LT_VOP_SIGNED ? (uint64_t)((int64_t)x >> sh) :
					    x >> sh;
		return 0;
	}
	const unsigned char *p;
	if (op < LT_VOP_STRING) {
		if (op == LT_VOP_ANY) {
			/* through a copy: v's address kept from the call,
			 * a loop that reads a member or two of v keeps the
			 * others in registers or drops them */
			struct lt_value w;
			int r = lt_event_field_any(ev, i, &w);
			*v = w;
			return r;
		}
		p = base + off[i];
		v->fc = fc;
		v->data = p;
		/* a scalar: little-endian integers signed by a mask (no branch on
		 * the sign); big-endian ones and floats aside */
		const unsigned size = op & 15;
		uint64_t u = ld_uint_sel(p, size);
		v->str = NULL;
		v->len = 0;
		if (__builtin_expect(op & (LT_VOP_FLOAT | LT_VOP_BE), 0)) {
			if (op & LT_VOP_FLOAT) {
				v->kind = LT_KIND_FLOAT;
				lt_value_set_float(v, u, size);
				return 0;
			}
			u = __builtin_bswap64(u) >> (64 - 8 * size);
		}
		const uint64_t sign = (uint64_t)(op & LT_VOP_SIGNED)
				      << (8 * size - 5);
		v->kind = LT_KIND_INT;
		v->u = (u ^ sign) - sign;
		return 0;
	}
	/* the other kinds by one jump: no op is past LT_VOP_BITS_LE */
	switch (op) {
	case LT_VOP_OPTION:
		/* a variant's option the event does not hold, as most are,
		 * or one it holds, as a field of its kind */
		if (off[i] == LT_OFF_ABSENT)
			return lt_value_absent(fc, v);
		op = ev->cls->kop[i];
		goto again;
	case LT_VOP_BITS_LE:
		/* its offset is in bits */
		lt_value_bits(fc, base, off[i], room, v);
		return 0;
	case LT_VOP_BITS:
		lt_value_bitfield_room(fc, base, off[i], room, v);
		return 0;
	case LT_VOP_STRING:
		p = base + off[i];
		v->fc = fc;
		v->data = p;
		v->kind = LT_KIND_STRING;
		v->str = (const char *)p;
		v->len = cnt[i];
		return 0;
	case LT_VOP_ENUM:
		lt_value_scalar(fc, LT_KIND_ENUM, base + off[i], v);
		return 0;
	case LT_VOP_TEXT: {
		p = base + off[i];
		v->fc = fc;
		v->data = p;
		v->kind = fc->kind;
		v->len = fc->kind == LT_KIND_ARRAY ? fc->length : cnt[i];
		v->str = (const char *)p;
		/* text length: as strnlen(), mostly in line */
		const unsigned char *z = room ? ld_find_nul_room(p, v->len) :
						ld_find_nul(p, v->len);
		v->u = z ? (uint64_t)(z - p) : v->len;
		return 0;
	}
	case LT_VOP_ARRAY:
	case LT_VOP_SEQUENCE:
		p = base + off[i];
		v->fc = fc;
		v->data = p;
		v->kind = op == LT_VOP_ARRAY ? LT_KIND_ARRAY : LT_KIND_SEQUENCE;
		v->len = op == LT_VOP_ARRAY ? fc->length : cnt[i];
		v->str = NULL;
		return 0;
	default:
		__builtin_unreachable();
	}
}

/* Field i of ev (0 <= i < ev->cls->nfields); returns 0, -EINVAL, or
 * -ENOENT for a variant's option the event does not hold.  In line for
 * the common fields: the analyses and `view --stats` read every one. */
static inline int lt_event_field(const struct lt_event *ev, unsigned i,
				 struct lt_value *v)
{
	const struct lt_event_class *ec = ev->cls;
	if (__builtin_expect(i >= ec->nfields, 0))
		return lt_event_field_any(ev, i, v);
	return lt_field_read(ev, i, &ec->fields[i], ec->vop[i], ev->base,
			     ev->off, ev->count, ev->room, v);
}

/* The field called name; returns 0 or -ENOENT. */
int lt_event_field_by_name(const struct lt_event *ev, const char *name,
			   struct lt_value *v);
/* Element i of an array or sequence value. */
int lt_value_elem(const struct lt_value *arr, size_t i, struct lt_value *out);

#endif
