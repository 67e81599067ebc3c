/* SPDX-License-Identifier: MIT */
/*
 * periodic.c - a periodic 10 ms timer that traces how late each wake-up
 * is: demo:tick for every expiry, and the anchor demo:late when the
 * lateness exceeds --threshold-ms.  The timer is clock_nanosleep() on
 * CLOCK_MONOTONIC with TIMER_ABSTIME, so lateness does not accumulate.
 *
 *	lowtrace record -k sched,irq --all -- build/examples/periodic
 *
 * --lock-holder starts a thread (named "lock-holder") that takes a mutex
 * every 200 ms and holds it for 30 ms; the timer thread takes the same
 * mutex after each wake-up, so some wake-ups wait for it.  With
 * --holder-waits the lock-holder, holding the mutex, waits for a reply
 * from a thread named "io-worker" (over a pipe), which takes the 30 ms:
 * a chain of two waits behind the late wake-up.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "periodic_tp.h"

#define NS_PER_MS 1000000ll

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int done;
static long hold_ms = 30, hold_every_ms = 200;
static int holder_waits; /* the holder waits for io-worker, not a timer */
static int to_worker[2], from_worker[2]; /* pipes, with holder_waits */

static const char usage[] =
	"usage: periodic [--period-ms N] [--threshold-ms N] [--duration-s S]\n"
	"                [--cpu N] [--lock-holder] [--hold-ms N] "
	"[--holder-waits]\n"
	"  --period-ms N     timer period (default 10)\n"
	"  --threshold-ms N  trace demo:late above this lateness (default 5)\n"
	"  --duration-s S    run for S seconds (default 2; fractions allowed)\n"
	"  --cpu N           pin the timer thread to CPU N\n"
	"  --lock-holder     a thread that holds the timer's lock for "
	"--hold-ms\n"
	"                    (default 30) every 200 ms\n"
	"  --holder-waits    the lock-holder spends that time waiting for "
	"a thread\n"
	"                    named io-worker, which does the sleeping\n";

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static struct timespec to_ts(int64_t ns)
{
	struct timespec ts = { ns / 1000000000ll, ns % 1000000000ll };
	return ts;
}

static int gettid_(void)
{
	return (int)syscall(SYS_gettid);
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		perror("periodic: sched_setaffinity");
}

/* Takes the lock every hold_every_ms and sleeps hold_ms while holding it. */
static void *lock_holder(void *arg)
{
	int tid = gettid_();
	int64_t next = now_ns() + hold_every_ms * NS_PER_MS / 2;
	(void)arg;
	printf("periodic: lock-holder tid %d\n", tid);
	fflush(stdout);
	while (!atomic_load(&done)) {
		struct timespec t = to_ts(next);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
		if (atomic_load(&done))
			break;
		pthread_mutex_lock(&shared_lock);
		lt_trace(demo, hold, hold_ms * 1000, tid);
		if (holder_waits) {
			char b = 'r';
			if (write(to_worker[1], &b, 1) != 1 ||
			    read(from_worker[0], &b, 1) != 1)
				perror("periodic: lock-holder: pipe");
		} else {
			struct timespec h = to_ts(hold_ms * NS_PER_MS);
			nanosleep(&h, NULL);
		}
		pthread_mutex_unlock(&shared_lock);
		next += hold_every_ms * NS_PER_MS;
	}
	return NULL;
}

/* With holder_waits: answers each request after hold_ms; ends at EOF. */
static void *io_worker(void *arg)
{
	char b;
	(void)arg;
	printf("periodic: io-worker tid %d\n", gettid_());
	fflush(stdout);
	while (read(to_worker[0], &b, 1) == 1) {
		struct timespec h = to_ts(hold_ms * NS_PER_MS);
		nanosleep(&h, NULL);
		if (write(from_worker[1], &b, 1) != 1)
			perror("periodic: io-worker: pipe");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "period-ms", required_argument, NULL, 'p' },
		{ "threshold-ms", required_argument, NULL, 't' },
		{ "duration-s", required_argument, NULL, 'd' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "lock-holder", no_argument, NULL, 'l' },
		{ "hold-ms", required_argument, NULL, 'H' },
		{ "holder-waits", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long period_ms = 10, threshold_ms = 5;
	double duration_s = 2;
	int cpu = -1, with_holder = 0, c;
	pthread_t holder, worker;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			period_ms = atol(optarg);
			break;
		case 't':
			threshold_ms = atol(optarg);
			break;
		case 'd':
			duration_s = atof(optarg);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'l':
			with_holder = 1;
			break;
		case 'H':
			hold_ms = atol(optarg);
			break;
		case 'w':
			holder_waits = with_holder = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (period_ms <= 0 || duration_s <= 0) {
		fprintf(stderr, "periodic: period and duration must be > 0\n");
		return 2;
	}
	if (cpu >= 0)
		pin(cpu);
	if (holder_waits) {
		if (pipe(to_worker) != 0 || pipe(from_worker) != 0 ||
		    pthread_create(&worker, NULL, io_worker, NULL) != 0) {
			fprintf(stderr, "periodic: cannot start io-worker\n");
			return 1;
		}
		pthread_setname_np(worker, "io-worker");
	}
	if (with_holder) {
		if (pthread_create(&holder, NULL, lock_holder, NULL) != 0) {
			fprintf(stderr, "periodic: cannot start lock-holder\n");
			return 1;
		}
		pthread_setname_np(holder, "lock-holder");
	}

	int tid = gettid_();
	int64_t period = period_ms * NS_PER_MS;
	int64_t start = now_ns();
	int64_t end = start + (int64_t)(duration_s * 1e9);
	int64_t next = start + period, worst = 0;
	uint32_t seq = 0, nlate = 0;
	printf("periodic: timer tid %d\n", tid);
	fflush(stdout);
	while (next <= end) {
		struct timespec t = to_ts(next);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
		pthread_mutex_lock(&shared_lock);
		pthread_mutex_unlock(&shared_lock);
		int64_t late_us = (now_ns() - next) / 1000;
		lt_trace(demo, tick, seq, late_us, tid);
		if (late_us > threshold_ms * 1000) {
			lt_trace(demo, late, seq, late_us, tid);
			nlate++;
		}
		if (late_us > worst)
			worst = late_us;
		seq++;
		next += period;
		/* after a long delay, skip the expiries already missed */
		while (next < now_ns())
			next += period;
	}
	atomic_store(&done, 1);
	if (with_holder)
		pthread_join(holder, NULL);
	if (holder_waits) {
		close(to_worker[1]); /* the worker's EOF */
		pthread_join(worker, NULL);
	}
	printf("periodic: %u ticks, %u late (> %ld ms), worst %lld us\n", seq,
	       nlate, threshold_ms, (long long)worst);
	return 0;
}
