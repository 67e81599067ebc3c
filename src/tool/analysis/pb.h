/* SPDX-License-Identifier: MIT */
/*
 * pb.h - a protocol buffers encoder into a growing buffer: varints, the
 * fixed 64-bit and length-delimited fields, and nested messages whose
 * length is written when they end (one byte reserved, the body moved in
 * the rare case it needs more).  Enough for Perfetto's trace format
 * (perfetto.c); nothing is decoded here.
 *
 * Errors are sticky: an allocation that fails sets err and later writes
 * do nothing, so a caller checks once, at the end of a packet.
 */
#ifndef LT_ANALYSIS_PB_H
#define LT_ANALYSIS_PB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct lt_pb {
	uint8_t *p;
	size_t len, cap;
	int err; /* -ENOMEM once an allocation failed */
};

enum { LT_PB_VARINT = 0, LT_PB_I64 = 1, LT_PB_LEN = 2 };

/* Makes room for n more bytes; 0, or -1 (and err set). */
int lt_pb_grow(struct lt_pb *b, size_t n);
void lt_pb_free(struct lt_pb *b);

static inline int lt_pb_room(struct lt_pb *b, size_t n)
{
	if (__builtin_expect(b->cap - b->len >= n, 1))
		return 0;
	return lt_pb_grow(b, n);
}

static inline unsigned lt_pb_varint_size(uint64_t v)
{
	unsigned n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Writes v at p (room for 10 bytes); returns the end. */
static inline uint8_t *lt_pb_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Field field = v, a varint, at p (room for 20 bytes); returns the end.
 * A small message whose room is made once is written so, at a cursor. */
static inline uint8_t *lt_pb_put_uint(uint8_t *p, unsigned field, uint64_t v)
{
	return lt_pb_put_varint(lt_pb_put_varint(p, (uint64_t)field << 3), v);
}

static inline void lt_pb_varint(struct lt_pb *b, uint64_t v)
{
	if (lt_pb_room(b, 10))
		return;
	b->len = (size_t)(lt_pb_put_varint(b->p + b->len, v) - b->p);
}

static inline void lt_pb_tag(struct lt_pb *b, unsigned field, unsigned wire)
{
	lt_pb_varint(b, (uint64_t)field << 3 | wire);
}

/* uint32/64, int32/64 (negative as ten bytes, as protobuf does), bool,
 * enum. */
static inline void lt_pb_uint(struct lt_pb *b, unsigned field, uint64_t v)
{
	if (lt_pb_room(b, 20))
		return;
	b->len = (size_t)(lt_pb_put_uint(b->p + b->len, field, v) - b->p);
}

static inline void lt_pb_int(struct lt_pb *b, unsigned field, int64_t v)
{
	lt_pb_uint(b, field, (uint64_t)v);
}

static inline void lt_pb_double(struct lt_pb *b, unsigned field, double d)
{
	lt_pb_tag(b, field, LT_PB_I64);
	if (lt_pb_room(b, 8))
		return;
	memcpy(b->p + b->len, &d, 8); /* little-endian hosts only */
	b->len += 8;
}

static inline void lt_pb_bytes(struct lt_pb *b, unsigned field, const void *s,
			       size_t n)
{
	lt_pb_tag(b, field, LT_PB_LEN);
	lt_pb_varint(b, n);
	if (lt_pb_room(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static inline void lt_pb_str(struct lt_pb *b, unsigned field, const char *s)
{
	lt_pb_bytes(b, field, s, strlen(s));
}

/* Opens a nested message (or packed array) of field; returns the mark
 * lt_pb_end() takes. */
static inline size_t lt_pb_begin(struct lt_pb *b, unsigned field)
{
	lt_pb_tag(b, field, LT_PB_LEN);
	if (lt_pb_room(b, 1))
		return 0;
	b->p[b->len] = 0;
	return b->len++;
}

/* Closes the message opened at mark: writes its length. */
void lt_pb_end_long(struct lt_pb *b, size_t mark, size_t n);
static inline void lt_pb_end(struct lt_pb *b, size_t mark)
{
	if (b->err)
		return;
	size_t n = b->len - mark - 1;
	if (__builtin_expect(n < 0x80, 1))
		b->p[mark] = (uint8_t)n;
	else
		lt_pb_end_long(b, mark, n);
}

#endif
