/* SPDX-License-Identifier: MIT */
/*
 * filter_prog.h - a compiled condition (filter.h) as its parser
 * (filter.c) writes it and its two evaluators (filter_eval.c) read it:
 * the postfix program, the fields' layout, and the comparisons both
 * evaluators share, inline so that the payload's path pays no call.
 */
#ifndef LT_PROBE_FILTER_PROG_H
#define LT_PROBE_FILTER_PROG_H

#include <lowtrace/types.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define LT_FILTER_MAX_INSNS 128
#define LT_FILTER_MAX_DEPTH 32 /* of the value stack, and of nesting */
#define LT_FILTER_MAX_FIELDS 256
/* LT_FILTER_MAX_TEXT, which filter.c checks: this header leaves
 * filter.h to its readers, so that the two do not include each other */
#define LT_FILTER_POOL_MAX 512

enum { OP_CMP, OP_AND, OP_OR, OP_NOT };
enum { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE };
/*
 * What a comparison compares.  Parsed, before any field is known, the
 * constant's own kind (K_INT, K_FLOAT or K_STR); once fitted to a field
 * (lt_filter_fit()), the comparison's.
 */
enum {
	K_INT, /* integer or enum field, integer constant */
	K_FLOAT, /* float field, or integer field with a float constant */
	K_RANGE, /* enum field, label: [lo, hi] */
	K_STR, /* string or char-array field, string constant */
};
/* Why a constant does not fit a field (lt_filter_fit(), negative). */
enum {
	FIT_NOT_STR = -1, /* a number field, a string constant */
	FIT_WANT_STR = -2, /* a string field, a number constant */
	FIT_PREFIX_OP = -3, /* "prefix*" with an order */
	FIT_LABEL_PREFIX = -4, /* an enum's label with a '*' */
	FIT_NEVER = -5, /* an array or a sequence */
};

struct insn {
	uint8_t op, cmp, kind, ftype; /* ftype: enum lt_field_type */
	uint8_t fsize, fsigned, prefix, ubig; /* ubig: constant > INT64_MAX */
	/* field index; or, parsed with names kept, the offset of its
	 * NUL-terminated name in the pool */
	uint16_t field;
	uint16_t slen; /* string constant's length */
	uint32_t soff; /* string constant's offset in the pool */
	union {
		int64_t i;
		double d;
	} a;
	int64_t hi; /* K_RANGE */
};

struct layout {
	uint8_t type, size;
	uint32_t length;
	uint32_t off; /* for fields before the first variable-length one */
};

/* The compiled filter, in one allocation. */
struct lt_filter {
	uint32_t ninsn, depth, pool_len, nfixed, nlayout;
	uint32_t named; /* lt_filter_parse()'s: fields by name */
	const struct insn *insn;
	const struct layout *layout;
	const char *pool;
};

/* The kind of comparison of in's constant (its kind as parsed) with a
 * field of type t, or a FIT_* reason it cannot be compared. */
static inline int lt_filter_fit(const struct insn *in, uint8_t t)
{
	int str = in->kind == K_STR;
	switch (t) {
	case LT_FT_INT:
		return str ? FIT_NOT_STR : in->kind;
	case LT_FT_ENUM:
		if (!str)
			return in->kind;
		return in->prefix ? FIT_LABEL_PREFIX : K_RANGE;
	case LT_FT_FLOAT:
		return str ? FIT_NOT_STR : K_FLOAT;
	case LT_FT_STRING:
	case LT_FT_CHARS:
		if (!str)
			return FIT_WANT_STR;
		if (in->prefix && in->cmp != C_EQ && in->cmp != C_NE)
			return FIT_PREFIX_OP;
		return K_STR;
	}
	return FIT_NEVER;
}

/* An integer constant as a double. */
static inline double lt_filter_const_double(const struct insn *in)
{
	return in->ubig ? (double)(uint64_t)in->a.i : (double)in->a.i;
}

static inline int lt_filter_order(int c, uint8_t cmp)
{
	switch (cmp) {
	case C_EQ:
		return c == 0;
	case C_NE:
		return c != 0;
	case C_LT:
		return c < 0;
	case C_LE:
		return c <= 0;
	case C_GT:
		return c > 0;
	default:
		return c >= 0;
	}
}

static inline int lt_filter_cmp_int(__int128 v, const struct insn *in)
{
	__int128 c = in->ubig ? (__int128)(uint64_t)in->a.i : (__int128)in->a.i;
	return lt_filter_order(v < c ? -1 : v > c, in->cmp);
}

static inline int lt_filter_cmp_double(double a, double b, uint8_t cmp)
{
	if (isnan(a) || isnan(b))
		return cmp == C_NE;
	return lt_filter_order(a < b ? -1 : a > b, cmp);
}

static inline int lt_filter_cmp_range(__int128 v, __int128 lo, __int128 hi,
				      uint8_t cmp)
{
	return lt_filter_order(v < lo ? -1 : v > hi ? 1 : 0, cmp);
}

/* The string s of n bytes against in's constant k. */
static inline int lt_filter_cmp_str(const char *s, size_t n, const char *k,
				    const struct insn *in)
{
	if (in->prefix) {
		int m = n >= in->slen && memcmp(s, k, in->slen) == 0;
		return in->cmp == C_EQ ? m : !m;
	}
	size_t l = n < in->slen ? n : in->slen;
	int c = memcmp(s, k, l);
	if (!c)
		c = n < in->slen ? -1 : n > in->slen;
	return lt_filter_order(c, in->cmp);
}

#endif
