/* SPDX-License-Identifier: MIT */
/*
 * clock_ns.c - the out-of-line clock conversions (clock_ns.h).
 */
#include "ctf/clock_ns.h"

uint64_t lt_clock_counts_to_ns(uint64_t freq, uint64_t counts)
{
	return ctf_counts_to_ns(freq, counts);
}

int64_t lt_clock_ns(const struct lt_clock *c, uint64_t counts)
{
	return ctf_clock_ns(c, counts);
}
