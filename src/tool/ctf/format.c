/* SPDX-License-Identifier: MIT */
/*
 * format.c - values as text (format.h): integer and float formatting
 * faster than printf with the same output, and the payload of an event as
 * babeltrace2 prints it.
 */
#include "ctf/format.h"
#include "ctf/compound.h"
#include "ctf/load.h"
#include "format/marker.h"
#include "ctf/value.h"

#include <math.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <string.h>

/* x < 10^4 as four digits in a word, as lt_digits8() makes eight. */
static inline uint32_t digits4(uint32_t x)
{
	uint32_t h = (x * 10486) >> 20;
	uint32_t v = h | (x - h * 100) << 16;
	h = ((v * 103) >> 10) & 0x000F000Fu;
	return h | (v - h * 10) << 8;
}

/*
 * x < 10^8 with no leading zeros; writes 8 bytes at p.  The number of
 * digits from the zero digits' bytes, not a branch per digit count (it
 * changes from one field to the next); the common numbers of up to four
 * digits (ids, priorities, sizes) on half the work.
 */
static inline char *fmt_small(char *p, uint32_t x)
{
	if (x < 10000) {
		uint32_t d = digits4(x);
		/* the leading zeros are the low zero bytes (one digit for 0) */
		unsigned lz = (unsigned)__builtin_ctz(d | 1u << 24) / 8;
		uint32_t a = (d + 0x30303030u) >> (8 * lz);
		memcpy(p, &a, 4);
		return p + 4 - lz;
	}
	uint64_t d = lt_digits8(x);
	unsigned lz = (unsigned)__builtin_ctzll(d) / 8;
	uint64_t a = (d + LT_ASCII_ZEROS) >> (8 * lz);
	memcpy(p, &a, 8);
	return p + 8 - lz;
}

char *lt_fmt_u64_any(char *p, uint64_t v)
{
	if (v < 100000000)
		return fmt_small(p, (uint32_t)v);
	if (v < 10000000000000000ull) {
		p = fmt_small(p, (uint32_t)(v / 100000000));
		lt_fmt_8digits(p, (uint32_t)(v % 100000000));
		return p + 8;
	}
	uint64_t rest = v % 10000000000000000ull;
	p = fmt_small(p, (uint32_t)(v / 10000000000000000ull));
	lt_fmt_8digits(p, (uint32_t)(rest / 100000000));
	lt_fmt_8digits(p + 8, (uint32_t)(rest % 100000000));
	return p + 16;
}

static const uint64_t pow10_64[20] = {
	1ull,
	10ull,
	100ull,
	1000ull,
	10000ull,
	100000ull,
	1000000ull,
	10000000ull,
	100000000ull,
	1000000000ull,
	10000000000ull,
	100000000000ull,
	1000000000000ull,
	10000000000000ull,
	100000000000000ull,
	1000000000000000ull,
	10000000000000000ull,
	100000000000000000ull,
	1000000000000000000ull,
	10000000000000000000ull,
};

/*
 * floor(a * 10^s) for a = m * 2^k, exactly, and how the rest compares to
 * one half (-1, 0, 1); 0 when the numbers do not fit in 128 bits.
 */
static int scale10(uint64_t m, int k, int s, uint64_t *q, int *half)
{
	typedef unsigned __int128 u128;
	int as = s < 0 ? -s : s;
	if (as > 38 || (s >= 0 && as > 22))
		return 0;
	u128 p10 = as < 20 ? (u128)pow10_64[as] :
			     (u128)pow10_64[19] * pow10_64[as - 19];
	u128 num = m, den = 1;
	int shift = 0; /* den is den * 2^shift */
	if (s >= 0)
		num *= p10; /* < 2^53 * 2^74 */
	else
		den = p10;
	if (k >= 0) {
		if (k > 126 || (num >> (126 - k)))
			return 0;
		num <<= k;
	} else {
		if (-k > 126 || (den >> (126 + k)))
			return 0;
		shift = -k;
	}
	u128 qq, rem, d;
	if (den == 1) {
		/* a power of two: shifts */
		qq = num >> shift;
		rem = num & (((u128)1 << shift) - 1);
		d = (u128)1 << shift;
	} else {
		d = den << shift;
		if (!(num >> 64) && !(d >> 64)) {
			qq = (uint64_t)num / (uint64_t)d;
			rem = (uint64_t)num % (uint64_t)d;
		} else {
			qq = num / d;
			rem = num % d;
		}
	}
	if (qq >> 64)
		return 0;
	*q = (uint64_t)qq;
	/* rem < d <= 2^126: 2 * rem does not overflow */
	*half = rem * 2 < d ? -1 : rem * 2 > d;
	return 1;
}

/*
 * printf's %g (6 significant digits, round half to even on the exact
 * binary value, trailing zeros dropped), without printf in the common
 * range; at most 32 bytes.
 */
char *lt_fmt_g(char *p, double d)
{
	uint64_t bits;
	memcpy(&bits, &d, 8);
	int bexp = (int)((bits >> 52) & 0x7ff);
	/* normal numbers of magnitude 1e-30 .. 1e30 take the fast path */
	if (bexp < 1023 - 99 || bexp > 1023 + 99)
		goto slow;
	uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
	int k = bexp - 1075; /* |d| = m * 2^k */
	int E = bexp - 1023; /* 2^E <= |d| < 2^(E+1) */
	/* floor(E * log10(2)), which is log10(|d|) or one less */
	int e = E >= 0 ? (E * 78913) >> 18 : -((-E * 78913 + 262143) >> 18);
	/* which of the two, by an exact compare where 10^(e+1) is a double
	 * (the scaling below is then done once, not twice) */
	static const double p10[23] = { 1e0,  1e1,  1e2,  1e3,	1e4,  1e5,
					1e6,  1e7,  1e8,  1e9,	1e10, 1e11,
					1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
					1e18, 1e19, 1e20, 1e21, 1e22 };
	if (e >= -1 && e < 22 && fabs(d) >= p10[e + 1])
		e++;
	uint64_t q = 0;
	int half = 0;
	for (int tries = 0;; tries++) {
		if (tries > 3 || !scale10(m, k, 5 - e, &q, &half))
			goto slow;
		if (q < 100000)
			e--;
		else if (q >= 1000000)
			e++;
		else
			break;
	}
	if (half > 0 || (half == 0 && (q & 1)))
		q++;
	if (q == 1000000) {
		q = 100000;
		e++;
	}
	/* the six digits: the last six of eight made at once */
	char dig8[8];
	uint64_t w = lt_digits8((uint32_t)q) + LT_ASCII_ZEROS;
	memcpy(dig8, &w, 8);
	const char *dig = dig8 + 2;
	if (bits >> 63)
		*p++ = '-';
	if (e < -4 || e >= 6) {
		int nd = 6;
		while (nd > 1 && dig[nd - 1] == '0')
			nd--;
		*p++ = dig[0];
		if (nd > 1) {
			*p++ = '.';
			memcpy(p, dig + 1, (size_t)nd - 1);
			p += nd - 1;
		}
		*p++ = 'e';
		*p++ = e < 0 ? '-' : '+';
		int ae = e < 0 ? -e : e;
		*p++ = (char)('0' + ae / 10);
		*p++ = (char)('0' + ae % 10);
		return p;
	}
	/* fixed: the point after digit e (e in -4..5) */
	int point = e + 1, last = 5;
	while (last >= point && last > 0 && dig[last] == '0')
		last--;
	if (point <= 0) {
		*p++ = '0';
		*p++ = '.';
		for (int i = 0; i < -point; i++)
			*p++ = '0';
		memcpy(p, dig, (size_t)last + 1);
		return p + last + 1;
	}
	memcpy(p, dig, (size_t)point);
	p += point;
	if (last >= point) {
		*p++ = '.';
		memcpy(p, dig + point, (size_t)(last - point + 1));
		p += last - point + 1;
	}
	return p;
slow:;
	int n = snprintf(p, 32, "%g", d);
	return p + (n > 0 ? (n < 32 ? n : 31) : 0);
}

/*
 * "0x" and v's hex digits without a loop or a branch on their number (a
 * loop of a digit at a time cost more than the rest of a line): the
 * sixteen digits made at once, the leading zeros shifted out.
 */
char *lt_fmt_hex(char *p, uint64_t v)
{
	unsigned n = (67u - (unsigned)__builtin_clzll(v | 1)) / 4;
	memcpy(p, "0x", 2);
	p += 2;
#ifdef __SSE2__
	typedef unsigned __int128 u128;
	__m128i b = _mm_cvtsi64_si128((long long)__builtin_bswap64(v));
	const __m128i low = _mm_set1_epi8(0x0f);
	/* each byte's high nibble, then its low one: most significant first */
	__m128i d = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(b, 4), low),
				      _mm_and_si128(b, low));
	/* '0' + d, and 'A' - '9' - 1 more past 9 */
	d = _mm_add_epi8(_mm_add_epi8(d, _mm_set1_epi8('0')),
			 _mm_and_si128(_mm_cmpgt_epi8(d, _mm_set1_epi8(9)),
				       _mm_set1_epi8(7)));
	u128 t = (u128)(uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(d, d))
			 << 64 |
		 (uint64_t)_mm_cvtsi128_si64(d);
	t >>= 8 * (16 - n);
	memcpy(p, &t, 16);
#else
	static const char hex[] = "0123456789ABCDEF";
	for (unsigned i = 0; i < n; i++)
		p[i] = hex[(v >> (4 * (n - 1 - i))) & 15];
#endif
	return p + n;
}

/* v in base 16 or 8, or in base 2 with all its bits (babeltrace2 prints
 * a binary integer with as many digits as its size), or a boolean */
static char *fmt_radix(char *p, uint64_t v, unsigned base, unsigned bits)
{
	static const char oct[] = "01234567";
	char tmp[64];
	int n = 0;
	if (base == 16)
		return lt_fmt_hex(p, v);
	if (base == LT_BASE_BOOL) {
		memcpy(p, v ? "true" : "false", 5);
		return p + (v ? 4 : 5);
	}
	*p++ = '0';
	if (base != 8) {
		*p++ = 'b';
		while (bits--)
			*p++ = (char)('0' + ((v >> bits) & 1));
		return p;
	}
	do {
		tmp[n++] = oct[v & 7];
		v >>= 3;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* The bytes a string's text escapes: controls, '"', '\\' and DEL. */
static const unsigned char
	escaped[256] = { [0 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x7f] = 1 };

static char *fmt_escaped(char *p, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0;
	*p++ = '"';
#ifdef __SSE2__
	/* 16 bytes at a time while none is escaped */
	const __m128i ctl = _mm_set1_epi8(0x1f), quote = _mm_set1_epi8('"'),
		      bsl = _mm_set1_epi8('\\'), del = _mm_set1_epi8(0x7f);
	for (; i + 16 <= n; i += 16, p += 16) {
		__m128i x =
			_mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i bad = _mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(x, ctl), x),
				     _mm_cmpeq_epi8(x, quote)),
			_mm_or_si128(_mm_cmpeq_epi8(x, bsl),
				     _mm_cmpeq_epi8(x, del)));
		if (_mm_movemask_epi8(bad))
			break;
		_mm_storeu_si128((__m128i *)(void *)p, x);
	}
#endif
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!escaped[c]) {
			*p++ = (char)c;
			continue;
		}
		*p++ = '\\';
		switch (c) {
		case '"':
		case '\\':
			*p++ = (char)c;
			break;
		case '\a':
			*p++ = 'a';
			break;
		case '\b':
			*p++ = 'b';
			break;
		case '\f':
			*p++ = 'f';
			break;
		case '\n':
			*p++ = 'n';
			break;
		case '\r':
			*p++ = 'r';
			break;
		case '\t':
			*p++ = 't';
			break;
		case '\v':
			*p++ = 'v';
			break;
		default:
			*p++ = 'x';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
			break;
		}
	}
	*p++ = '"';
	return p;
}

static char *fmt_int(char *p, const struct lt_value *v)
{
	const struct lt_field_class *fc = v->fc;
	if (fc->base != 10) {
		uint64_t u = v->u;
		unsigned bits = fc->bitfield ? fc->bitsize : 8u * fc->size;
		if (fc->is_signed && bits < 64)
			u &= (1ull << bits) - 1;
		return fmt_radix(p, u, fc->base, bits);
	}
	return fc->is_signed ? lt_fmt_i64(p, v->i) : lt_fmt_u64(p, v->u);
}

static char *fmt_scalar(char *p, const struct lt_value *v)
{
	switch (v->kind) {
	case LT_KIND_INT:
		return fmt_int(p, v);
	case LT_KIND_ENUM: {
		/* babeltrace2's: ( "A", "B" : container = 5 ) */
		const struct lt_field_class *fc = v->fc;
		unsigned nl = 0;
		const char *last = NULL;
		memcpy(p, "( ", 2);
		p += 2;
		/* the ranges come grouped by label (tsdl_types.c): a label once */
		for (uint32_t i = 0; i < fc->nranges; i++) {
			const struct lt_enum_range *r = &fc->ranges[i];
			if (!lt_enum_range_has(fc, r, v->u) ||
			    (last && !strcmp(last, r->label)))
				continue;
			last = r->label;
			if (nl++) {
				memcpy(p, ", ", 2);
				p += 2;
			}
			p = fmt_escaped(p, r->label, strlen(r->label));
		}
		if (nl == 0) {
			memcpy(p, "<unknown>", 9);
			p += 9;
		}
		memcpy(p, " : container = ", 15);
		p += 15;
		p = fmt_int(p, v);
		memcpy(p, " )", 2);
		return p + 2;
	}
	case LT_KIND_FLOAT:
		return lt_fmt_g(p, v->f);
	}
	return p;
}

static size_t scalar_bound(const struct lt_field_class *fc, uint8_t kind)
{
	size_t b = kind == LT_KIND_FLOAT ? 32 : 68; /* 0b + 64 digits */
	if (kind == LT_KIND_ENUM) {
		b += 32;
		for (uint32_t i = 0; i < fc->nranges; i++)
			b += 4 * strlen(fc->ranges[i].label) + 4;
	}
	return b;
}

size_t lt_format_bound_fixed(const struct lt_field_class *fcs, unsigned n)
{
	/* copy16() may write 15 bytes ahead; " }, {" per section */
	size_t b = 4 + 16 + 8 * LT_NSECTIONS;
	for (unsigned i = 0; i < n; i++) {
		const struct lt_field_class *fc = &fcs[i];
		b += fc->name_len + 5 + fc->open_len + 2u * fc->closes;
		switch (fc->kind) {
		case LT_KIND_STRING:
			b += 2;
			break;
		case LT_KIND_ARRAY:
			if (fc->text)
				b += 4 * (size_t)fc->length + 2;
			else
				b += 4 +
				     (size_t)fc->length *
					     (16 +
					      scalar_bound(fc, fc->elem_kind));
			break;
		case LT_KIND_SEQUENCE:
			b += 6;
			break;
		case LT_KIND_COMPOUND:
			break; /* the decoder's bound, in lt_event.count */
		default:
			b += scalar_bound(fc, fc->kind);
			break;
		}
	}
	return b;
}

unsigned lt_format_bound_vars(const struct lt_field_class *fcs, unsigned n,
			      struct lt_bound_var *out)
{
	unsigned k = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct lt_field_class *fc = &fcs[i];
		size_t per;
		if (fc->kind == LT_KIND_STRING)
			per = 4;
		else if (fc->kind == LT_KIND_COMPOUND)
			per = 1;
		else if (fc->kind == LT_KIND_SEQUENCE)
			per = fc->text ? 4 :
					 16 + scalar_bound(fc, fc->elem_kind);
		else
			continue;
		out[k].field = i;
		out[k].per = (uint32_t)per;
		k++;
	}
	return k;
}

/* The integer (or integer element) of fc at fp. */
static inline char *fmt_raw_int(char *p, const struct lt_field_class *fc,
				const unsigned char *fp)
{
	unsigned size = fc->size;
	/* the size and the sign change from one field to the next: a
	 * branch on them would mispredict, so nearly every integer (1, 2, 4
	 * or 8 bytes, little-endian) is read and signed without one */
	uint64_t raw = __builtin_expect(!fc->be && ld_sel_size(size), 1) ?
			       ld_uint_sel(fp, size) :
			       ld_uint_bo(fp, size, fc->be);
	if (fc->base != 10)
		return fmt_radix(p, raw, fc->base, 8u * size);
	int64_t s = sext(raw, size);
	unsigned neg = fc->is_signed & (s < 0);
	*p = '-';
	p += neg;
	return lt_fmt_u64(p, neg ? (uint64_t)0 - (uint64_t)s : raw);
}

/* Copies n bytes in 16-byte blocks: writes up to 15 bytes past p + n. */
static inline char *copy16(char *p, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i += 16)
		memcpy(p + i, s + i, 16);
	return p + n;
}

/* Field i of ev's value, not an integer in place (the callers' fast
 * case), at p. */
static char *fmt_field(const struct lt_event *ev, uint32_t i, char *p)
{
	const struct lt_field_class *fc = &ev->cls->fields[i];
	struct lt_value v, e;
	lt_event_field(ev, i, &v);
	switch (fc->kind) {
	case LT_KIND_STRING:
		p = fmt_escaped(p, v.str, v.len);
		break;
	case LT_KIND_COMPOUND: {
		/* decode() walked it without a fault */
		struct lt_cwalk w = { .b = ev->base,
				      .end = SIZE_MAX / 16,
				      .fields = ev->cls->fields,
				      .off = ev->off,
				      .p = p,
				      .scalar = fmt_scalar,
				      .string = fmt_escaped,
				      .number = lt_fmt_u64 };
		uint64_t bit = ev->off[i];
		lt_cnode_walk(fc->tree, &w, &bit);
		p = w.p;
		break;
	}
	case LT_KIND_ARRAY:
	case LT_KIND_SEQUENCE:
		if (fc->text) {
			p = fmt_escaped(p, v.str, (size_t)v.u);
			break;
		}
		*p++ = '[';
		for (size_t j = 0; j < v.len; j++) {
			memcpy(p, j ? ", [" : " [", 3);
			p += j ? 3 : 2;
			p = lt_fmt_u64(p, j);
			memcpy(p, "] = ", 4);
			p += 4;
			if (fc->elem_kind == LT_KIND_INT) {
				p = fmt_raw_int(p, fc, v.data + j * fc->size);
				continue;
			}
			lt_value_elem(&v, j, &e);
			p = fmt_scalar(p, &e);
		}
		memcpy(p, " ]", 2);
		p += 2;
		break;
	default:
		p = fmt_scalar(p, &v);
		break;
	}
	return p;
}

/* A text array of n bytes (a thread's name): up to its first NUL. */
static inline char *fmt_text(char *p, const unsigned char *s, size_t n)
{
	const unsigned char *z = ld_find_nul(s, n);
	return fmt_escaped(p, (const char *)s, z ? (size_t)(z - s) : n);
}

/* The payload of a class of plain fields (lt_event_class.fmt_plain). */
static char *format_plain(const struct lt_event *ev, char *p)
{
	const struct lt_event_class *ec = ev->cls;
	*p++ = '{';
	for (uint32_t i = 0; i < ec->nfields; i++) {
		const struct lt_field_class *fc = &ec->fields[i];
		/* ", NAME = " (the first field's without the comma) */
		if (i)
			p = copy16(p, fc->prefix, fc->prefix_len);
		else
			p = copy16(p, fc->prefix + 1, fc->prefix_len - 1u);
		if (fc->kind == LT_KIND_INT)
			p = fmt_raw_int(p, fc, ev->base + ev->off[i]);
		else if (fc->kind == LT_KIND_STRING)
			p = fmt_escaped(p, (const char *)ev->base + ev->off[i],
					ev->count[i]);
		else if (fc->kind == LT_KIND_ARRAY && fc->text)
			p = fmt_text(p, ev->base + ev->off[i], fc->length);
		else
			p = fmt_field(ev, i, p);
	}
	memcpy(p, " }", 2);
	return p + 2;
}

/* " }" n times: nested structs' ends. */
static char *close_structs(char *p, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		memcpy(p, " }", 2);
		p += 2;
	}
	return p;
}

/* " }, {" for each empty context of ec after section from and before to:
 * the braces of those babeltrace2 prints "{ }". */
static char *empty_sections(const struct lt_event_class *ec, char *p,
			    unsigned from, unsigned to)
{
	for (unsigned s = from + 1; s < to; s++)
		if (ec->empty_secs & 1u << s) {
			memcpy(p, " }, {", 5);
			p += 5;
		}
	return p;
}

char *lt_event_format(const struct lt_event *ev, char *p)
{
	const struct lt_event_class *ec = ev->cls;

	if (!ec->nfields) {
		/* "{ }" for each context and payload declared */
		if (!ec->empty_secs && ec->no_payload)
			return p;
		char *s = p;
		for (unsigned k = 0; k < LT_NSECTIONS; k++)
			if (k == LT_SEC_PAYLOAD ? !ec->no_payload :
						  ec->empty_secs & 1u << k) {
				if (p != s) {
					memcpy(p, ", ", 2);
					p += 2;
				}
				memcpy(p, "{ }", 3);
				p += 3;
			}
		return p;
	}
	if (__builtin_expect(ec->fmt_plain, 1))
		return format_plain(ev, p);
	/* pend: the structs the last field printed closes; first: no field
	 * printed yet in the section cur */
	unsigned pend = 0, first = 1, cur = ec->fields[0].sec;
	*p++ = '{';
	if (__builtin_expect(ec->empty_secs, 0))
		p = empty_sections(ec, p, (unsigned)-1, cur);
	for (uint32_t i = 0; i < ec->nfields; i++) {
		const struct lt_field_class *fc = &ec->fields[i];
		if (__builtin_expect(fc->var_tag >= 0, 0) &&
		    ev->off[i] == LT_OFF_ABSENT)
			continue; /* a variant's option not held */
		const unsigned char *fp = ev->base + ev->off[i];
		if (__builtin_expect(pend, 0)) {
			p = close_structs(p, pend);
			pend = 0;
		}
		/* ", NAME = " (the first field's without the comma); the
		 * contexts and the payload each in braces */
		if (__builtin_expect(fc->sec != cur, 0)) {
			memcpy(p, " }, {", 5);
			p += 5;
			p = empty_sections(ec, p, cur, fc->sec);
			first = 1;
			cur = fc->sec;
		}
		if (__builtin_expect(fc->open_len, 0)) {
			/* the first field of nested structs: their names */
			p = copy16(p, fc->open + first, fc->open_len - first);
			p = copy16(p, fc->prefix + 1, fc->prefix_len - 1u);
		} else if (!first) {
			p = copy16(p, fc->prefix, fc->prefix_len);
		} else {
			p = copy16(p, fc->prefix + 1, fc->prefix_len - 1u);
		}
		first = 0;
		pend = fc->closes;
		if (fc->kind == LT_KIND_INT && !fc->bitfield) {
			p = fmt_raw_int(p, fc, fp);
			continue;
		}
		if (fc->kind == LT_KIND_STRING) {
			/* where the decoder found it, its length noted */
			p = fmt_escaped(p, (const char *)fp, ev->count[i]);
			continue;
		}
		if (fc->kind == LT_KIND_ARRAY && fc->text) {
			p = fmt_text(p, fp, fc->length);
			continue;
		}
		if (fc->kind == LT_KIND_INT) {
			/* a bit-field: its offset is in bits */
			struct lt_value v;
			lt_value_bitfield(fc, ev->base, ev->off[i], &v);
			p = fmt_int(p, &v);
			continue;
		}
		p = fmt_field(ev, i, p);
	}
	if (__builtin_expect(pend, 0))
		p = close_structs(p, pend);
	if (__builtin_expect(cur != LT_SEC_PAYLOAD, 0)) {
		/* contexts and an empty payload */
		p = empty_sections(ec, p, cur, LT_SEC_PAYLOAD);
		if (!ec->no_payload) {
			memcpy(p, " }, { }", 7);
			return p + 7;
		}
	}
	memcpy(p, " }", 2);
	return p + 2;
}

/* One conversion of a marker with its field's value, as printf would. */
static int format_conv(char *p, size_t room, const char *spec,
		       const struct lt_marker_piece *c,
		       const struct lt_value *v)
{
	int is_signed = v->fc && v->fc->is_signed;
	int64_t i = is_signed ? v->i : (int64_t)v->u;
	uint64_t u = v->u;
	switch (c->conv) {
	case 'd':
	case 'i':
		switch (c->length) {
		case LT_LEN_L:
			return snprintf(p, room, spec, (long)i);
		case LT_LEN_LL:
			return snprintf(p, room, spec, (long long)i);
		case LT_LEN_J:
			return snprintf(p, room, spec, (intmax_t)i);
		case LT_LEN_Z:
			return snprintf(p, room, spec, (ssize_t)i);
		case LT_LEN_T:
			return snprintf(p, room, spec, (ptrdiff_t)i);
		default: /* hh, h: printf narrows the int itself */
			return snprintf(p, room, spec, (int)i);
		}
	case 'c':
		return snprintf(p, room, spec, (int)i);
	case 'p':
		return snprintf(p, room, spec, (void *)(uintptr_t)u);
	case 's': {
		char s[LT_STRING_MAX];
		size_t n = v->len < sizeof(s) - 1 ? v->len : sizeof(s) - 1;
		memcpy(s, v->str, n);
		s[n] = 0;
		return snprintf(p, room, spec, s);
	}
	case 'f':
	case 'F':
	case 'e':
	case 'E':
	case 'g':
	case 'G':
		return snprintf(p, room, spec, v->f);
	default: /* u o x X */
		switch (c->length) {
		case LT_LEN_L:
			return snprintf(p, room, spec, (unsigned long)u);
		case LT_LEN_LL:
			return snprintf(p, room, spec, (unsigned long long)u);
		case LT_LEN_J:
			return snprintf(p, room, spec, (uintmax_t)u);
		case LT_LEN_Z:
		case LT_LEN_T:
			return snprintf(p, room, spec, (size_t)u);
		default:
			return snprintf(p, room, spec, (unsigned)u);
		}
	}
}

char *lt_event_format_marker(const struct lt_event *ev, char *p, size_t room)
{
	const char *fmt = ev->cls->format;
	struct lt_marker_piece c;
	size_t pos = 0;
	unsigned k = 0;
	char *end = p + room - 1;
	while (p < end && lt_marker_next(fmt, &pos, &c) > 0) {
		size_t left = (size_t)(end - p);
		if (!c.conv) {
			size_t n = c.len < left ? c.len : left;
			memcpy(p, fmt + c.start, n);
			p += n;
			continue;
		}
		struct lt_value v;
		char spec[64];
		if (c.len >= sizeof(spec) || lt_event_field(ev, k++, &v) != 0)
			break;
		/* the trace's metadata, not the registry, said the format
		 * fits the fields: a conversion whose field is of another
		 * kind is shown as "?" */
		int want = strchr("fFeEgG", c.conv) ? LT_KIND_FLOAT :
			   c.conv == 's'	    ? LT_KIND_STRING :
						      LT_KIND_INT;
		int kind = v.kind == LT_KIND_ENUM ? LT_KIND_INT : v.kind;
		if (kind != want || (kind == LT_KIND_STRING && !v.str)) {
			*p++ = '?';
			continue;
		}
		memcpy(spec, fmt + c.start, c.len);
		spec[c.len] = 0;
		int n = format_conv(p, left + 1, spec, &c, &v);
		if (n < 0)
			break;
		p += (size_t)n < left ? (size_t)n : left;
	}
	*p = 0;
	return p;
}
