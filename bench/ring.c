/* SPDX-License-Identifier: MIT */
/*
 * bench/ring.c - cost of one event in the ring buffer, beside a floor loop.
 *
 * For a 16-byte payload: ns per reserve + write + commit with 1 and 2
 * threads, in discard mode (a consumer thread drains the buffers as
 * lowtrace's would) and overwrite mode, beside a floor loop run in the same
 * process (a cycle-counter read and a 24-byte store into a per-thread
 * array), once with plain rdtsc and once with the ordered read (rdtscp)
 * that the ring's reserve uses to keep timestamps in offset order; the
 * rseq rings beside the floor of an rseq record; and what a write costs
 * when the buffer is full (discard mode, no consumer): the drop path.
 * Each figure is the median of RUNS runs; "ratio" is to the floor
 * with the same number of threads, "scaling" the 2-thread throughput over
 * the 1-thread one.  Usage: bench/ring [events-per-thread] [runs]
 */
#define _GNU_SOURCE
#include "ring/ring_consume.h"
#include "ring/ring_write.h"
#include "ring/rseq.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long n_events = 2000000;
static int runs = 5;

enum kind {
	FLOOR,
	FLOOR_ORDERED,
	FLOOR_RSEQ,
	DISCARD,
	OVERWRITE,
	RSEQ_DISCARD,
	RSEQ_OVERWRITE,
	FULL_CAS,
	FULL_RSEQ,
	NKINDS
};
static const char *kind_name[] = {
	"floor: rdtsc + 24-byte store",
	"floor: ordered read (rdtscp) + store",
	"floor: rdtsc + rseq publish",
	"ring (CAS), discard mode",
	"ring (CAS), overwrite mode",
	"ring (rseq), discard mode",
	"ring (rseq), overwrite mode",
	"ring (CAS), discard, full: a drop",
	"ring (rseq), discard, full: a drop",
};

static int is_ring(enum kind k)
{
	return k >= DISCARD;
}

static int is_rseq_ring(enum kind k)
{
	return k == RSEQ_DISCARD || k == RSEQ_OVERWRITE || k == FULL_RSEQ;
}

/* Discard mode with no consumer, each writer's buffer filled first: every
 * timed write is a drop. */
static int is_full(enum kind k)
{
	return k == FULL_CAS || k == FULL_RSEQ;
}

static int is_discard(enum kind k)
{
	return k == DISCARD || k == RSEQ_DISCARD || is_full(k);
}

static struct lt_ring *ring;
static atomic_int consumer_stop;
static pthread_barrier_t start_line;
static uint64_t drops;

struct job {
	enum kind kind;
	int cpu;
	double ns; /* per event, this thread */
};

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu % (int)sysconf(_SC_NPROCESSORS_ONLN), &s);
	pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

struct rec24 {
	uint64_t ts, a, b;
};

static inline uint64_t plain_counter(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#else
	return lt_clock_read();
#endif
}

static __attribute__((noinline)) void floor_loop(long n, int ordered)
{
	static __thread struct rec24 arr[4096];
	for (long i = 0; i < n; i++) {
		struct rec24 *r = &arr[i & 4095];
		r->ts = ordered ? lt_clock_read() : plain_counter();
		r->a = (uint64_t)i;
		r->b = (uint64_t)i ^ 0x55;
		__asm__ __volatile__("" ::"r"(r) : "memory");
	}
}

#ifdef LT_HAVE_RSEQ
/*
 * The least an rseq record can cost: per CPU a 16-byte (offset, last
 * timestamp) pair and 64 KiB of data, fixed at compile time; the clock
 * read, the clamp to the last timestamp, then lt_rseq_write8() of a
 * 4-byte header and 16 bytes of payload.  What the ring adds to this is
 * its geometry (a sub-buffer's room, the buffer's size) and its checks.
 */
#define FL_DATA (1u << 16)
struct fl_cpu {
	_Alignas(64) uint64_t pair[2];
	char data[FL_DATA + 64];
};
static struct fl_cpu *fl_cpus;
static uint32_t fl_ncpus;

static __attribute__((noinline)) void floor_rseq_loop(long n)
{
	struct rseq *rs = lt_rseq_area();
	for (long i = 0; i < n; i++) {
		uint32_t cpu =
			__atomic_load_n(&rs->cpu_id_start, __ATOMIC_RELAXED);
		if (cpu >= fl_ncpus)
			continue;
		struct fl_cpu *c = &fl_cpus[cpu];
		uint64_t old = __atomic_load_n(&c->pair[0], __ATOMIC_RELAXED);
		uint64_t last = __atomic_load_n(&c->pair[1], __ATOMIC_RELAXED);
		uint64_t ts = plain_counter();
		if (ts < last)
			ts = last;
		char *p = c->data + (old & (FL_DATA - 1));
		uint32_t h = lt_ev_compact(1, ts);
		(void)lt_rseq_write8(
			rs, cpu, c->pair, old,
			_mm_set_epi64x((long long)ts, (long long)(old + 20)), p,
			h, (uint64_t)i, (uint64_t)i ^ 0x55, 16);
	}
}
#else
static void floor_rseq_loop(long n)
{
	(void)n;
}
#endif

static __attribute__((noinline)) void ring_loop_rseq(long n)
{
	for (long i = 0; i < n; i++) {
		uint64_t v[2] = { (uint64_t)i, (uint64_t)i ^ 0x55 };
		lt_ring_write(ring, 1, v, 16);
	}
}

static __attribute__((noinline)) void ring_loop(long n)
{
	for (long i = 0; i < n; i++) {
		struct lt_ring_ctx c;
		if (lt_ring_reserve(ring, &c, 1, 16) != 0)
			continue;
		uint64_t v[2] = { (uint64_t)i, (uint64_t)i ^ 0x55 };
		memcpy(c.payload, v, 16);
		lt_ring_commit(ring, &c);
	}
}

static void *worker(void *arg)
{
	struct job *j = arg;
	pin(j->cpu);
	if (is_full(j->kind)) {
		uint64_t v[2] = { 0, 0 };
		uint32_t cpu = (uint32_t)j->cpu % ring->n_cpus;
		while (lt_ring_lost(ring, cpu) == 0)
			lt_ring_write(ring, 1, v, 16);
	}
	pthread_barrier_wait(&start_line);
	double t0 = now_ns();
	if (j->kind == FLOOR || j->kind == FLOOR_ORDERED)
		floor_loop(n_events, j->kind == FLOOR_ORDERED);
	else if (j->kind == FLOOR_RSEQ)
		floor_rseq_loop(n_events);
	else if (is_rseq_ring(j->kind))
		ring_loop_rseq(n_events);
	else
		ring_loop(n_events);
	j->ns = (now_ns() - t0) / (double)n_events;
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	while (!atomic_load(&consumer_stop)) {
		for (uint32_t cpu = 0; cpu < ring->n_cpus; cpu++) {
			struct lt_ring_subbuf sb;
			while (lt_ring_get_subbuf(ring, cpu, &sb) == 0)
				lt_ring_put_subbuf(ring, cpu);
		}
		struct timespec d = { 0, 200000 };
		nanosleep(&d, NULL);
	}
	return NULL;
}

/* One run: mean ns per event over the threads (aggregate cost = that / n). */
static double run_once(enum kind kind, int nthreads)
{
	struct job jobs[2];
	pthread_t th[2], ct;

	if (is_ring(kind)) {
		struct lt_ring_config cfg = {
			.mode = is_discard(kind) ? LT_RING_DISCARD :
						   LT_RING_OVERWRITE,
			.n_subbufs = 4,
			.subbuf_size = 1 << 20,
			.sync = is_rseq_ring(kind) ? LT_RING_SYNC_RSEQ :
						     LT_RING_SYNC_ATOMIC,
		};
		if (lt_ring_create(&cfg, &ring) != 0) {
			perror("lt_ring_create");
			exit(1);
		}
		atomic_store(&consumer_stop, 0);
		if (is_discard(kind) && !is_full(kind))
			pthread_create(&ct, NULL, consumer, NULL);
	}
	pthread_barrier_init(&start_line, NULL, (unsigned)nthreads);
	for (int i = 0; i < nthreads; i++) {
		jobs[i] = (struct job){ .kind = kind, .cpu = i };
		pthread_create(&th[i], NULL, worker, &jobs[i]);
	}
	double sum = 0;
	for (int i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		sum += jobs[i].ns;
	}
	pthread_barrier_destroy(&start_line);
	if (is_ring(kind)) {
		atomic_store(&consumer_stop, 1);
		if (is_discard(kind) && !is_full(kind))
			pthread_join(ct, NULL);
		for (uint32_t cpu = 0; cpu < ring->n_cpus; cpu++)
			drops += is_discard(kind) && !is_full(kind) ?
					 lt_ring_lost(ring, cpu) :
					 0;
		lt_ring_destroy(ring);
	}
	return sum / nthreads;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n_events = atol(argv[1]);
	if (argc > 2)
		runs = atoi(argv[2]);
	if (n_events < 1000 || runs < 1 || runs > 99) {
		fprintf(stderr, "usage: bench/ring [events-per-thread>=1000] "
				"[runs 1-99]\n");
		return 2;
	}
	lt_clock_init();
	printf("lowtrace ring buffer: 16-byte payload, %ld events per thread, "
	       "median of %d runs; clock %s\n",
	       n_events, runs, lt_clock_source_name());
	printf("%-38s %7s %10s %10s %8s\n", "", "threads", "ns/event",
	       "Mevents/s", "ratio");
	int have_rseq = lt_ring_rseq_usable(); /* 0 without LT_HAVE_RSEQ */
#ifdef LT_HAVE_RSEQ
	fl_ncpus = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	fl_cpus = aligned_alloc(64, fl_ncpus * sizeof(*fl_cpus));
	if (!fl_cpus) {
		perror("aligned_alloc");
		return 1;
	}
	memset(fl_cpus, 0, fl_ncpus * sizeof(*fl_cpus));
#endif
	if (!have_rseq)
		printf("(no rseq here: its rows are left out)\n");
	double med[NKINDS][3];
	for (int t = 1; t <= 2; t++) {
		for (int k = FLOOR; k < NKINDS; k++) {
			double v[99];
			if (!have_rseq &&
			    (k == FLOOR_RSEQ || is_rseq_ring((enum kind)k)))
				continue;
			/* interleave kinds so that noise hits them alike */
			for (int r = 0; r < runs; r++)
				v[r] = run_once((enum kind)k, t);
			qsort(v, (size_t)runs, sizeof(v[0]), cmp_d);
			med[k][t] = v[runs / 2];
		}
		for (int k = FLOOR; k < NKINDS; k++) {
			if (!have_rseq &&
			    (k == FLOOR_RSEQ || is_rseq_ring((enum kind)k)))
				continue;
			printf("%-38s %7d %10.2f %10.1f %8.2f\n", kind_name[k],
			       t, med[k][t], 1e3 * t / med[k][t],
			       med[k][t] / med[FLOOR][t]);
		}
	}
	for (int k = DISCARD; k < FULL_CAS; k++) {
		if (!have_rseq && is_rseq_ring((enum kind)k))
			continue;
		printf("scaling, %s: 2 threads give %.2fx the throughput of 1\n",
		       kind_name[k], 2 * med[k][1] / med[k][2]);
	}
	printf("events dropped in discard mode over all runs: %llu\n",
	       (unsigned long long)drops);
	return 0;
}
