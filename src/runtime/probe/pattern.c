/* SPDX-License-Identifier: MIT */
/*
 * pattern.c - matching names against event patterns (pattern.h).
 *
 * Every element other than '*' matches exactly one character, so one
 * saved position suffices: on a mismatch after a '*', that '*' takes one
 * more character and matching resumes after it.  A later '*' replaces
 * the saved one (what the earlier one matched can stay: the later one
 * absorbs any extra), so time is bounded by the product of the lengths.
 */
#include "probe/pattern.h"

#include <stddef.h>

/* A character of a set at p, '\\' escaping the next; past it. */
static const char *set_char(const char *p, unsigned char *c)
{
	if (*p == '\\' && p[1])
		p++;
	*c = (unsigned char)*p;
	return p + 1;
}

/*
 * The set at p (just past its '['), tested on c.  Returns the position
 * past its ']' and *hit; NULL if it has no ']' (then '[' is itself).
 */
static const char *match_set(const char *p, unsigned char c, int *hit)
{
	int neg = *p == '!' || *p == '^', in = 0;
	if (neg)
		p++;
	const char *first = p;
	while (*p && (*p != ']' || p == first)) {
		unsigned char lo, hi;
		p = set_char(p, &lo);
		hi = lo;
		if (*p == '-' && p[1] && p[1] != ']')
			p = set_char(p + 1, &hi);
		in |= c >= lo && c <= hi;
	}
	if (*p != ']')
		return NULL;
	*hit = in != neg;
	return p + 1;
}

/* One element at *pp against c (not '*'); advances *pp past it. */
static int match_one(const char **pp, unsigned char c)
{
	const char *p = *pp;
	int hit;
	switch (*p) {
	case '?':
		*pp = p + 1;
		return 1;
	case '[': {
		const char *end = match_set(p + 1, c, &hit);
		if (end) {
			*pp = end;
			return hit;
		}
		break;
	}
	case '\\':
		if (p[1])
			p++;
		break;
	}
	*pp = p + 1;
	return (unsigned char)*p == c;
}

int lt_pattern_match(const char *p, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		const char *q = p;
		if (*p == '*') {
			star = ++p;
			resume = s;
		} else if (*p && match_one(&q, (unsigned char)*s)) {
			p = q;
			s++;
		} else if (star) {
			p = star;
			s = ++resume;
		} else {
			return 0;
		}
	}
	while (*p == '*')
		p++;
	return *p == 0;
}

int lt_pattern_is_literal(const char *p)
{
	for (; *p; p++)
		if (*p == '*' || *p == '?' || *p == '[' || *p == '\\')
			return 0;
	return 1;
}
