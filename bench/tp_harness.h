/* SPDX-License-Identifier: MIT */
/*
 * bench/tp_harness.h - the timed loops shared by bench/tp_lowtrace.c and
 * bench/lttng/tp_lttng.c, so that both tracers run the same code around
 * their tracepoint.
 *
 * The including file defines, before including this header,
 *
 *	TP_HIT(i)	one tracepoint call with the two 32-bit fields of
 *			iteration i
 *
 * and gets bench_run() (n iterations of TP_HIT on each of 1 or 2 pinned
 * threads, wall time per event over all threads), bench_disabled() (the
 * same loop with the tracepoint disabled beside an empty loop of the same
 * shape, then both around a little work) and bench_floor() (a plain
 * cycle-counter read per iteration).
 * One invocation is one run; bench/compare-lttng.sh takes the medians.
 */
#ifndef BENCH_TP_HARNESS_H
#define BENCH_TP_HARNESS_H

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#ifndef TP_HIT
#error "define TP_HIT(i) before including tp_harness.h"
#endif

/*
 * The loop around the tracepoint and the empty loop have the same shape:
 * a compiler barrier per iteration keeps either from being folded away
 * or vectorised.
 */
static __attribute__((noinline)) void bench_traced_loop(long n)
{
	for (long i = 0; i < n; i++) {
		TP_HIT(i);
		__asm__ __volatile__("" ::: "memory");
	}
}

static __attribute__((noinline)) void bench_empty_loop(long n)
{
	for (long i = 0; i < n; i++)
		__asm__ __volatile__("" ::: "memory");
}

/*
 * The same two loops around some work: a xorshift step per iteration, a
 * chain of six dependent operations, about as much as a few lines of real
 * code.  The disabled call site's load and branch run beside it.
 */
static uint64_t bench_sink;

#define BENCH_XORSHIFT(x)                                     \
	do {                                                  \
		(x) ^= (x) << 13;                             \
		(x) ^= (x) >> 7;                              \
		(x) ^= (x) << 17;                             \
		__asm__ __volatile__("" : "+r"(x)::"memory"); \
	} while (0)

static __attribute__((noinline)) void bench_traced_work_loop(long n)
{
	uint64_t x = 88172645463325252ull;
	for (long i = 0; i < n; i++) {
		TP_HIT(i);
		BENCH_XORSHIFT(x);
	}
	bench_sink = x;
}

static __attribute__((noinline)) void bench_work_loop(long n)
{
	uint64_t x = 88172645463325252ull;
	for (long i = 0; i < n; i++)
		BENCH_XORSHIFT(x);
	bench_sink = x;
}

/* the floor: the cycle counter's unordered read (the row keeps its x86
 * name); elsewhere the nearest equivalent */
static inline uint64_t bench_rdtsc(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static __attribute__((noinline)) void bench_rdtsc_loop(long n)
{
	for (long i = 0; i < n; i++) {
		uint64_t t = bench_rdtsc();
		__asm__ __volatile__("" ::"r"(t) : "memory");
	}
}

struct bench_job {
	int cpu;
	long n;
	pthread_barrier_t *start_line;
};

static void *bench_worker(void *arg)
{
	struct bench_job *j = (struct bench_job *)arg;
	bench_pin(j->cpu);
	pthread_barrier_wait(j->start_line);
	bench_traced_loop(j->n);
	return NULL;
}

/*
 * n events on each of nthreads threads pinned to CPUs 0, 1; returns the
 * wall time from the start line to the last thread's end over all the
 * events (the aggregate cost of one event).
 */
static inline double bench_run(int nthreads, long n)
{
	pthread_barrier_t start_line;
	struct bench_job jobs[2];
	pthread_t th[2];

	/* the start line counts this thread too, which takes the time */
	pthread_barrier_init(&start_line, NULL, (unsigned)nthreads + 1);
	for (int i = 0; i < nthreads; i++) {
		jobs[i] = (struct bench_job){ i, n, &start_line };
		if (pthread_create(&th[i], NULL, bench_worker, &jobs[i])) {
			perror("pthread_create");
			exit(1);
		}
	}
	pthread_barrier_wait(&start_line);
	double t0 = bench_now_ns();
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	double t = bench_now_ns() - t0;
	pthread_barrier_destroy(&start_line);
	return t / ((double)n * nthreads);
}

static inline double bench_time(void (*loop)(long), long n)
{
	double t0 = bench_now_ns();
	loop(n);
	return (bench_now_ns() - t0) / (double)n;
}

/* Prints "disabled=NS empty=NS dwork=NS work=NS", ns per iteration of
 * each loop: the disabled tracepoint's and the empty one, then the same
 * two with work. */
static inline void bench_disabled(long n)
{
	bench_pin(0);
	bench_empty_loop(n / 10); /* warm up */
	double d = bench_time(bench_traced_loop, n);
	double e = bench_time(bench_empty_loop, n);
	double dw = bench_time(bench_traced_work_loop, n);
	double w = bench_time(bench_work_loop, n);
	printf("disabled=%.3f empty=%.3f dwork=%.3f work=%.3f\n", d, e, dw, w);
}

/* Prints "rdtsc=NS". */
static inline void bench_floor(long n)
{
	bench_pin(0);
	printf("rdtsc=%.3f\n", bench_time(bench_rdtsc_loop, n));
}

/* Parses "MODE [threads] [iterations]" into its parts, or exits. */
static inline void bench_args(int argc, char **argv, const char **mode,
			      int *nthreads, long *n)
{
	*mode = argc > 1 ? argv[1] : "";
	*nthreads = argc > 2 ? atoi(argv[2]) : 1;
	*n = argc > 3 ? atol(argv[3]) : 4000000;
	if ((strcmp(*mode, "enabled") && strcmp(*mode, "disabled") &&
	     strcmp(*mode, "floor")) ||
	    *nthreads < 1 || *nthreads > 2 || *n < 1000) {
		fprintf(stderr,
			"usage: %s enabled|disabled|floor [threads 1-2] "
			"[iterations per thread >= 1000]\n",
			argv[0]);
		exit(2);
	}
}

#endif
