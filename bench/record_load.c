/* SPDX-License-Identifier: MIT */
/*
 * bench/record_load.c - a traced program for bench/record.sh: threads that
 * emit an event with two 32-bit integer fields at a target rate, or flat
 * out, with an optional fixed amount of arithmetic work before each event.
 *
 *	record_load [-t THREADS] [-r RATE] [-d SECONDS | -n EVENTS]
 *		    [-w WORK] [-b BATCH]
 *	record_load -c NS
 *
 *   -t THREADS  producing threads, 1 to 64 (default 1), not pinned
 *   -r RATE     target events/s over all threads; 0 is flat out (default)
 *   -d SECONDS  how long each thread runs (default 0.5)
 *   -n EVENTS   events per thread instead of a duration
 *   -w WORK     units of dependent integer arithmetic before each event
 *   -b BATCH    events per pacing step (default: 100 us of events at the
 *               thread's rate, 1000 flat out)
 *   -c NS       prints "work=W": the units that take NS ns of CPU time
 *
 * Pacing: each thread emits BATCH events, then sleeps (absolute
 * CLOCK_MONOTONIC deadline) until the time its count is due at its share
 * of RATE; a thread that is behind carries on without sleeping.  Prints
 *
 *	threads=T target=R events=N wall_s=S cpu_s=C rate=A work=W
 *
 * with N the events emitted over all threads, S the wall time from the
 * start line to the last thread's end, C the CPU time of the producing
 * threads together and A = N / S.
 */
#include <lowtrace/tracepoint.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

LT_EVENT(record_load, ev, LT_INFO, LT_ARGS(int32_t, seq, int32_t, thread),
	 LT_FIELDS(LT_FIELD_INT(seq, seq) LT_FIELD_INT(thread, thread)))

#define MAX_THREADS 64

struct job {
	int id;
	double rate; /* events/s of this thread; 0 flat out */
	double seconds; /* or: */
	long count; /* events, when > 0 */
	long batch;
	long work;
	long emitted;
	uint64_t cpu_ns; /* CPU time of the thread */
	uint64_t sink;
};

static pthread_barrier_t start_line;
static uint64_t start_ns;

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void sleep_until(uint64_t ns)
{
	struct timespec t = { (time_t)(ns / 1000000000u),
			      (long)(ns % 1000000000u) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL))
		;
}

/* n units of a dependent multiply-add chain (an LCG step each) */
static inline uint64_t work(uint64_t x, long n)
{
	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ __volatile__("" : "+r"(x));
	}
	return x;
}

static void *producer(void *arg)
{
	struct job *j = arg;
	uint64_t x = (uint64_t)j->id + 1, deadline;
	long k = 0;

	pthread_barrier_wait(&start_line);
	uint64_t t0 = start_ns;
	deadline = t0 + (uint64_t)(j->seconds * 1e9);
	for (;;) {
		long b = j->batch;
		if (j->count > 0 && j->count - k < b)
			b = j->count - k;
		for (long i = 0; i < b; i++) {
			x = work(x, j->work);
			lt_trace(record_load, ev, (int32_t)(k + i),
				 (int32_t)j->id);
		}
		k += b;
		if (j->count > 0 ? k >= j->count : now_ns() >= deadline)
			break;
		if (j->rate > 0) {
			uint64_t due =
				t0 + (uint64_t)((double)k / j->rate * 1e9);
			if (due > now_ns())
				sleep_until(due);
		}
	}
	j->cpu_ns = thread_cpu_ns();
	j->emitted = k;
	j->sink = x;
	return NULL;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * Prints the work units per event that take ns nanoseconds of this
 * thread's CPU time (median of 7 runs): CPU time, not wall time, so that
 * other processes running on the machine do not shorten the work.
 */
static int calibrate(double ns)
{
	const long n = 20000000;
	double per[7];
	work(1, n / 4); /* warm up: frequency, caches */
	for (int i = 0; i < 7; i++) {
		uint64_t t = thread_cpu_ns();
		uint64_t x = work((uint64_t)i, n);
		per[i] = (double)(thread_cpu_ns() - t) / (double)n;
		__asm__ __volatile__("" ::"r"(x));
	}
	qsort(per, 7, sizeof(per[0]), cmp_d);
	printf("work=%ld ns_per_unit=%.3f\n", (long)(ns / per[3] + 0.5),
	       per[3]);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: record_load [-t THREADS] [-r RATE] [-d SECONDS | -n "
		"EVENTS] [-w WORK] [-b BATCH]\n"
		"       record_load -c NS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct job jobs[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	int nthreads = 1, opt;
	double rate = 0, seconds = 0.5;
	long count = 0, wk = 0, batch = 0;

	while ((opt = getopt(argc, argv, "t:r:d:n:w:b:c:")) != -1) {
		switch (opt) {
		case 't':
			nthreads = atoi(optarg);
			break;
		case 'r':
			rate = atof(optarg);
			break;
		case 'd':
			seconds = atof(optarg);
			break;
		case 'n':
			count = atol(optarg);
			break;
		case 'w':
			wk = atol(optarg);
			break;
		case 'b':
			batch = atol(optarg);
			break;
		case 'c':
			return calibrate(atof(optarg));
		default:
			usage();
		}
	}
	if (optind != argc || nthreads < 1 || nthreads > MAX_THREADS ||
	    rate < 0 || seconds <= 0 || count < 0 || wk < 0 || batch < 0)
		usage();
	double per_thread = rate / nthreads;
	if (!batch)
		batch = per_thread > 0 ? (long)(per_thread * 100e-6) : 1000;
	if (batch < 1)
		batch = 1;

	pthread_barrier_init(&start_line, NULL, (unsigned)nthreads + 1);
	for (int i = 0; i < nthreads; i++) {
		jobs[i] = (struct job){ .id = i,
					.rate = per_thread,
					.seconds = seconds,
					.count = count,
					.batch = batch,
					.work = wk };
		if (pthread_create(&th[i], NULL, producer, &jobs[i])) {
			perror("record_load: pthread_create");
			return 1;
		}
	}
	start_ns = now_ns();
	/* the barrier orders start_ns before the threads read it */
	pthread_barrier_wait(&start_line);
	long total = 0;
	uint64_t cpu_ns = 0;
	for (int i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		total += jobs[i].emitted;
		cpu_ns += jobs[i].cpu_ns;
	}
	double wall = (double)(now_ns() - start_ns) / 1e9;
	printf("threads=%d target=%.0f events=%ld wall_s=%.6f cpu_s=%.6f "
	       "rate=%.0f work=%ld\n",
	       nthreads, rate, total, wall, (double)cpu_ns / 1e9,
	       (double)total / wall, wk);
	return 0;
}
