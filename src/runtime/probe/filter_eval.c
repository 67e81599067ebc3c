/* SPDX-License-Identifier: MIT */
/*
 * filter_eval.c - running a compiled condition (filter.h): over an
 * event's serialised payload on the tracing path (lt_filter_match()), and
 * over a decoded event's fields by name when a trace is read
 * (lt_filter_eval()).  Both end in the comparisons of filter_prog.h.
 *
 * On the payload, fields before the first variable-length one (string,
 * sequence) have offsets known at compile time; later ones are found by
 * walking the payload from there.  No allocation, no lock, no call per
 * field: time bounded by the program's length and the payload's size.
 */
#include "probe/filter.h"
#include "probe/filter_prog.h"

#include <string.h>

/* An operator of the program on the stack st of sp values: the new sp. */
static inline int logic(uint8_t *st, int sp, uint8_t op)
{
	if (op == OP_NOT) {
		st[sp - 1] ^= 1;
		return sp;
	}
	sp--;
	if (op == OP_AND)
		st[sp - 1] &= st[sp];
	else
		st[sp - 1] |= st[sp];
	return sp;
}

/* Bytes the field at off takes, or -1 if the payload ends first. */
static long field_len(const struct layout *l, const uint8_t *p, uint32_t off,
		      uint32_t len)
{
	switch (l->type) {
	case LT_FT_STRING: {
		const uint8_t *z = memchr(p + off, 0, len - off);
		return z ? (long)(z - (p + off)) + 1 : -1;
	}
	case LT_FT_SEQUENCE: {
		uint32_t k;
		if (len - off < 4)
			return -1;
		memcpy(&k, p + off, 4);
		if (k > LT_EVENT_MAX)
			return -1;
		return 4 + (long)k * l->size;
	}
	case LT_FT_ARRAY:
		return (long)l->size * l->length;
	case LT_FT_CHARS:
		return l->length;
	default:
		return l->size;
	}
}

static __int128 load_int(const uint8_t *p, uint8_t size, uint8_t sgn)
{
	switch (size) {
	case 1: {
		uint8_t v = p[0];
		return sgn ? (__int128)(int8_t)v : (__int128)v;
	}
	case 2: {
		uint16_t v;
		memcpy(&v, p, 2);
		return sgn ? (__int128)(int16_t)v : (__int128)v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, p, 4);
		return sgn ? (__int128)(int32_t)v : (__int128)v;
	}
	default: {
		uint64_t v;
		memcpy(&v, p, 8);
		return sgn ? (__int128)(int64_t)v : (__int128)v;
	}
	}
}

static double load_double(const struct insn *in, const uint8_t *p)
{
	if (in->ftype == LT_FT_FLOAT) {
		if (in->fsize == 4) {
			float v;
			memcpy(&v, p, 4);
			return v;
		}
		double v;
		memcpy(&v, p, 8);
		return v;
	}
	return (double)load_int(p, in->fsize, in->fsigned);
}

static int eval_cmp(const struct lt_filter *f, const struct insn *in,
		    const uint8_t *p, uint32_t off, uint32_t len)
{
	switch (in->kind) {
	case K_INT:
		return lt_filter_cmp_int(
			load_int(p + off, in->fsize, in->fsigned), in);
	case K_FLOAT:
		return lt_filter_cmp_double(load_double(in, p + off), in->a.d,
					    in->cmp);
	case K_RANGE:
		return lt_filter_cmp_range(
			load_int(p + off, in->fsize, in->fsigned), in->a.i,
			in->hi, in->cmp);
	default: {
		const char *s = (const char *)p + off;
		size_t max = in->ftype == LT_FT_CHARS ?
				     f->layout[in->field].length :
				     len - off;
		const char *z = memchr(s, 0, max);
		size_t n = z ? (size_t)(z - s) : max;
		return lt_filter_cmp_str(s, n, f->pool + in->soff, in);
	}
	}
}

int lt_filter_match(const struct lt_filter *f, const void *payload,
		    uint32_t len)
{
	const uint8_t *p = payload;
	uint32_t offs[LT_FILTER_MAX_FIELDS];
	uint8_t st[LT_FILTER_MAX_DEPTH];
	int sp = 0;

	if (!p && len)
		return 0;
	/* offsets of the fields after the first variable-length one */
	if (f->nfixed) {
		offs[f->nfixed - 1] = f->layout[f->nfixed - 1].off;
		for (uint32_t i = f->nfixed; i < f->nlayout; i++) {
			uint32_t o = offs[i - 1];
			if (o > len)
				return 0;
			long n = field_len(&f->layout[i - 1], p, o, len);
			if (n < 0 || (uint64_t)n > len - o)
				return 0;
			offs[i] = o + (uint32_t)n;
		}
	}
	for (uint32_t i = 0; i < f->ninsn; i++) {
		const struct insn *in = &f->insn[i];
		switch (in->op) {
		case OP_CMP: {
			const struct layout *l = &f->layout[in->field];
			uint32_t o = in->field < f->nfixed ? l->off :
							     offs[in->field];
			if (o > len)
				return 0;
			long n = field_len(l, p, o, len);
			if (n < 0 || (uint64_t)n > len - o)
				return 0;
			st[sp++] = (uint8_t)eval_cmp(f, in, p, o, len);
			break;
		}
		default:
			sp = logic(st, sp, in->op);
		}
	}
	return sp == 1 && st[0];
}

/* One comparison on a field's value: 1 or 0, or -1 if they do not fit. */
static int eval_value(const struct lt_filter *f, const struct insn *in,
		      const struct lt_filter_value *v)
{
	const char *k = f->pool + in->soff;
	__int128 x = v->is_signed ? (__int128)v->i : (__int128)v->u;
	int64_t lo, hi;

	switch (lt_filter_fit(in, v->type)) {
	case K_INT:
		return lt_filter_cmp_int(x, in);
	case K_FLOAT: {
		double a = v->type == LT_FT_FLOAT ? v->d :
			   v->is_signed		  ? (double)v->i :
						    (double)v->u;
		double b = in->kind == K_FLOAT ? in->a.d :
						 lt_filter_const_double(in);
		return lt_filter_cmp_double(a, b, in->cmp);
	}
	case K_RANGE:
		if (!v->label || v->label(v->ctx, k, in->slen, &lo, &hi))
			return -1;
		if (v->is_signed)
			return lt_filter_cmp_range(x, lo, hi, in->cmp);
		return lt_filter_cmp_range(x, (uint64_t)lo, (uint64_t)hi,
					   in->cmp);
	case K_STR:
		return lt_filter_cmp_str(v->str, v->len, k, in);
	}
	return -1;
}

int lt_filter_eval(const struct lt_filter *f, lt_filter_get_fn get, void *arg)
{
	uint8_t st[LT_FILTER_MAX_DEPTH];
	int sp = 0;

	if (!f->named)
		return 0;
	for (uint32_t i = 0; i < f->ninsn; i++) {
		const struct insn *in = &f->insn[i];
		switch (in->op) {
		case OP_CMP: {
			struct lt_filter_value v;
			memset(&v, 0, sizeof(v));
			if (get(arg, f->pool + in->field, &v))
				return 0;
			int r = eval_value(f, in, &v);
			if (r < 0)
				return 0; /* the condition does not fit */
			st[sp++] = (uint8_t)r;
			break;
		}
		default:
			sp = logic(st, sp, in->op);
		}
	}
	return sp == 1 && st[0];
}
