/*
 * bench/bench_util.h - small helpers the benchmarks share: a monotonic
 * clock in ns and a comparison for qsort() of doubles (medians, minima).
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <time.h>

static inline double bench_now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static inline int bench_by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

#endif
