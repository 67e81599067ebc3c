/* SPDX-License-Identifier: MIT */
/*
 * clock_ns.h - clock counts to nanoseconds since the epoch, exactly as
 * babeltrace2 converts them (struct lt_clock).  Inline for the decoder's
 * loop; the same functions out of line for the others.
 */
#ifndef LT_CTF_CLOCK_NS_H
#define LT_CTF_CLOCK_NS_H

#include "ctf/types.h"

#include <stdint.h>

static inline uint64_t ctf_counts_to_ns(uint64_t freq, uint64_t counts)
{
	if (freq == 1000000000u)
		return counts;
	/* babeltrace2's conversion, to the same double rounding, so that both
	 * readers print the same nanosecond (exact integer arithmetic differs
	 * from it by one now and then) */
	double ns = 1e9 * (double)counts / (double)freq;
	return ns >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)ns;
}

static inline int64_t ctf_clock_ns(const struct lt_clock *c, uint64_t counts)
{
	uint64_t v = ctf_counts_to_ns(c->freq, counts);
	/* saturates past the year 2262 rather than overflow */
	if (v > (uint64_t)INT64_MAX ||
	    (c->base_ns > 0 && (int64_t)v > INT64_MAX - c->base_ns))
		return INT64_MAX;
	return c->base_ns + (int64_t)v;
}

/* Clock counts to ns since the epoch, exactly (see struct lt_clock). */
/* counts * 1e9 / freq as babeltrace2 computes it (in double). */
uint64_t lt_clock_counts_to_ns(uint64_t freq, uint64_t counts);
int64_t lt_clock_ns(const struct lt_clock *c, uint64_t counts);

#endif
