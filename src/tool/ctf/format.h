/* SPDX-License-Identifier: MIT */
/*
 * format.h - values as text, in babeltrace2's notation: numbers, floats as
 * printf's %g, escaped strings, a whole event's payload, a marker's text.
 */
#ifndef LT_CTF_FORMAT_H
#define LT_CTF_FORMAT_H

#include "ctf/types.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Writes "{ a = 1, b = "x" }" (babeltrace2's notation) at p and returns the
 * end; p must have room for lt_event_format_bound(ev) bytes (in line: the
 * viewer asks it for every line).
 */
static inline size_t lt_event_format_bound(const struct lt_event *ev)
{
	const struct lt_event_class *ec = ev->cls;
	size_t b = ec->fmt_bound;
	for (uint32_t k = 0; k < ec->nfmt_var; k++)
		b += (size_t)ec->fmt_var[k].per *
		     (size_t)ev->count[ec->fmt_var[k].field];
	return b;
}

char *lt_event_format(const struct lt_event *ev, char *p);

/*
 * A marker's text (cls->format set): its format with its fields, as
 * printf would have written it, at p, at most room - 1 bytes and a NUL;
 * returns the end (the NUL).
 */
#define LT_MARKER_TEXT_MAX 8192
char *lt_event_format_marker(const struct lt_event *ev, char *p, size_t room);

/* Number formatting used by the formatter; p must have 21 bytes.  One
 * digit, the most common number of a line, in line. */
char *lt_fmt_u64_any(char *p, uint64_t v);

static inline char *lt_fmt_u64(char *p, uint64_t v)
{
	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	return lt_fmt_u64_any(p, v);
}

static inline char *lt_fmt_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return lt_fmt_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return lt_fmt_u64(p, (uint64_t)v);
}
/* "0x" and v's digits in upper case, as babeltrace2 prints a base-16
 * integer; p must have 18 bytes. */
char *lt_fmt_hex(char *p, uint64_t v);
/* printf's "%g"; p must have 32 bytes. */
char *lt_fmt_g(char *p, double d);

/*
 * x < 10^8 as eight digits 0-9 in a word, the first (most significant)
 * in its lowest byte, the first in memory on this little-endian host:
 * each step splits every lane in two, quotient and remainder, by a
 * multiplication (x/100 as x*10486>>20 below 10^4, x/10 as x*103>>10
 * below 100).  No branch and no table: the formatters' base.
 */
static inline uint64_t lt_digits8(uint32_t x)
{
	uint64_t v = (x / 10000) | (uint64_t)(x % 10000) << 32;
	uint64_t h = ((v * 10486) >> 20) & 0x0000007F0000007Full;
	v = h | (v - h * 100) << 16;
	h = ((v * 103) >> 10) & 0x000F000F000F000Full;
	return h | (v - h * 10) << 8;
}

#define LT_ASCII_ZEROS 0x3030303030303030ull

/* x < 10^8 as exactly eight digits at p (no NUL). */
static inline void lt_fmt_8digits(char *p, uint32_t x)
{
	uint64_t a = lt_digits8(x) + LT_ASCII_ZEROS;
	memcpy(p, &a, 8);
}

/* The formatted size bound of fields, strings and sequences aside (the
 * metadata compiler stores it per event class). */
size_t lt_format_bound_fixed(const struct lt_field_class *fcs, unsigned n);
/* The fields of fcs whose bound is their lt_event.count times a constant,
 * at out (room for n); returns how many. */
unsigned lt_format_bound_vars(const struct lt_field_class *fcs, unsigned n,
			      struct lt_bound_var *out);

#endif
