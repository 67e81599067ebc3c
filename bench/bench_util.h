/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_util.h - small helpers the benchmarks share: a monotonic
 * clock in ns, a comparison for qsort() of doubles (medians, minima), and
 * pinning the calling thread to a CPU.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

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

/* Pins the calling thread to cpu (modulo the CPUs online). */
static inline void bench_pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu % (int)sysconf(_SC_NPROCESSORS_ONLN), &s);
	pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

#endif
