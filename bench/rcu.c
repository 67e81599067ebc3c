/*
 * bench/rcu.c - RCU read-side cost and grace-period rate, lowtrace beside
 * liburcu 0.13 in the same run.
 *
 * For each flavour (membarrier, QSBR), 1 and 2 reader threads, with and
 * without an updater calling synchronize in a loop: ns per read
 * lock+unlock pair (per reader thread) and synchronize calls per second.
 * Each cell is the median of 5 runs; ours and liburcu's runs alternate so
 * that the noise of this machine falls on both.  QSBR readers announce a
 * quiescent state every 1024 sections, in both implementations.  liburcu's
 * read side is inlined (_LGPL_SOURCE), and mk/rcu.mk compiles this file
 * with -ftls-model=initial-exec so that liburcu's thread-local reader
 * record is reached the way ours is (the -fPIC default would send its
 * accesses through __tls_get_addr).  Each loop iteration holds a
 * compiler barrier so that an empty read side is not optimised away.
 *
 * Usage: build/bench/rcu [ms-per-run]   (default 200)
 */
#define _GNU_SOURCE
#define _LGPL_SOURCE
#include <urcu/urcu-memb.h>
#include <urcu/urcu-qsbr.h>

#include "lowtrace/rcu.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 5
#define INNER 1024
#define MAX_READERS 2

enum impl { OURS_MEMB, OURS_QSBR, URCU_MEMB, URCU_QSBR };

struct run {
	enum impl impl;
	int readers;
	int updater;
	long ms;
	atomic_int stop;
	pthread_barrier_t start;
	double ns_per_pair[MAX_READERS];
	double updates_per_s;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * One reader loop per implementation, so that each read side is inlined
 * into its own loop.  qs is run every INNER sections.
 */
#define READER_LOOP(name, reg, unreg, lock, unlock, qs)               \
	static double name(struct run *r)                             \
	{                                                             \
		unsigned long n = 0;                                  \
		double t0, t1;                                        \
                                                                      \
		reg;                                                  \
		pthread_barrier_wait(&r->start);                      \
		t0 = now_ns();                                        \
		while (!atomic_load_explicit(&r->stop,                \
					     memory_order_relaxed)) { \
			for (int i = 0; i < INNER; i++) {             \
				lock;                                 \
				unlock;                               \
				__asm__ volatile("" ::: "memory");    \
			}                                             \
			qs;                                           \
			n += INNER;                                   \
		}                                                     \
		t1 = now_ns();                                        \
		unreg;                                                \
		return (t1 - t0) / (double)n;                         \
	}

READER_LOOP(read_ours_memb, lt_rcu_register_thread(),
	    lt_rcu_unregister_thread(), lt_rcu_read_lock(),
	    lt_rcu_read_unlock(), (void)0)
READER_LOOP(read_ours_qsbr, lt_rcu_qsbr_register_thread(),
	    lt_rcu_qsbr_unregister_thread(), lt_rcu_qsbr_read_lock(),
	    lt_rcu_qsbr_read_unlock(), lt_rcu_qsbr_quiescent_state())
READER_LOOP(read_urcu_memb, urcu_memb_register_thread(),
	    urcu_memb_unregister_thread(), urcu_memb_read_lock(),
	    urcu_memb_read_unlock(), (void)0)
READER_LOOP(read_urcu_qsbr, urcu_qsbr_register_thread(),
	    urcu_qsbr_unregister_thread(), urcu_qsbr_read_lock(),
	    urcu_qsbr_read_unlock(), urcu_qsbr_quiescent_state())

struct reader_arg {
	struct run *r;
	int idx;
};

static void *reader(void *p)
{
	struct reader_arg *a = p;
	struct run *r = a->r;
	double ns = 0;

	switch (r->impl) {
	case OURS_MEMB:
		ns = read_ours_memb(r);
		break;
	case OURS_QSBR:
		ns = read_ours_qsbr(r);
		break;
	case URCU_MEMB:
		ns = read_urcu_memb(r);
		break;
	default:
		ns = read_urcu_qsbr(r);
		break;
	}
	r->ns_per_pair[a->idx] = ns;
	return NULL;
}

static void synchronize(enum impl impl)
{
	switch (impl) {
	case OURS_MEMB:
		lt_rcu_synchronize();
		break;
	case OURS_QSBR:
		lt_rcu_qsbr_synchronize();
		break;
	case URCU_MEMB:
		urcu_memb_synchronize_rcu();
		break;
	default:
		urcu_qsbr_synchronize_rcu();
		break;
	}
}

static void *updater(void *p)
{
	struct run *r = p;
	unsigned long n = 0;
	double t0, t1;

	pthread_barrier_wait(&r->start);
	t0 = now_ns();
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		synchronize(r->impl);
		n++;
	}
	t1 = now_ns();
	r->updates_per_s = n / ((t1 - t0) / 1e9);
	return NULL;
}

static void do_run(struct run *r)
{
	pthread_t rt[MAX_READERS], ut;
	struct reader_arg args[MAX_READERS];
	struct timespec ts = { r->ms / 1000, (r->ms % 1000) * 1000000L };

	atomic_store(&r->stop, 0);
	r->updates_per_s = 0;
	pthread_barrier_init(&r->start, NULL, r->readers + r->updater + 1);
	for (int i = 0; i < r->readers; i++) {
		args[i].r = r;
		args[i].idx = i;
		pthread_create(&rt[i], NULL, reader, &args[i]);
	}
	if (r->updater)
		pthread_create(&ut, NULL, updater, r);
	pthread_barrier_wait(&r->start);
	nanosleep(&ts, NULL);
	atomic_store(&r->stop, 1);
	for (int i = 0; i < r->readers; i++)
		pthread_join(rt[i], NULL);
	if (r->updater)
		pthread_join(ut, NULL);
	pthread_barrier_destroy(&r->start);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

struct cell {
	double ns, ns_min, ups;
};

/* RUNS runs of each implementation, alternating, for one row. */
static void measure_row(enum impl ours, enum impl theirs, int readers, int upd,
			long ms, struct cell out[2])
{
	double ns[2][RUNS], ups[2][RUNS];
	enum impl which[2] = { ours, theirs };

	for (int k = 0; k < RUNS; k++) {
		for (int w = 0; w < 2; w++) {
			struct run r;
			double sum = 0;

			memset(&r, 0, sizeof(r));
			r.impl = which[(w + k) % 2];
			r.readers = readers;
			r.updater = upd;
			r.ms = ms;
			do_run(&r);
			for (int i = 0; i < readers; i++)
				sum += r.ns_per_pair[i];
			int slot = r.impl == ours ? 0 : 1;
			ns[slot][k] = sum / readers;
			ups[slot][k] = r.updates_per_s;
		}
	}
	for (int s = 0; s < 2; s++) {
		double mn = ns[s][0];

		for (int k = 1; k < RUNS; k++)
			if (ns[s][k] < mn)
				mn = ns[s][k];
		out[s].ns_min = mn;
		out[s].ns = median(ns[s], RUNS);
		out[s].ups = median(ups[s], RUNS);
	}
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 200;

	if (ms <= 0)
		ms = 200;
	printf("RCU read lock+unlock, ns per pair per reader thread, and "
	       "synchronize calls/s;\nmedian of %d runs of %ld ms (minimum in "
	       "brackets); lowtrace: %s\n\n",
	       RUNS, ms,
	       lt_rcu_uses_membarrier() ? "membarrier" : "fence fallback");
	printf("%-6s %-7s %-7s | %-16s %-16s %-6s | %-10s %-10s %-6s\n",
	       "flavor", "readers", "updater", "lowtrace ns", "liburcu ns",
	       "ratio", "lowtrace/s", "liburcu/s", "ratio");
	for (int f = 0; f < 2; f++) {
		enum impl ours = f ? OURS_QSBR : OURS_MEMB;
		enum impl theirs = f ? URCU_QSBR : URCU_MEMB;

		for (int upd = 0; upd < 2; upd++) {
			for (int readers = 1; readers <= 2; readers++) {
				struct cell c[2];
				char a[32], b[32];

				measure_row(ours, theirs, readers, upd, ms, c);
				snprintf(a, sizeof(a), "%.2f (%.2f)", c[0].ns,
					 c[0].ns_min);
				snprintf(b, sizeof(b), "%.2f (%.2f)", c[1].ns,
					 c[1].ns_min);
				printf("%-6s %-7d %-7s | %-16s %-16s %-6.2f |",
				       f ? "qsbr" : "memb", readers,
				       upd ? "yes" : "no", a, b,
				       c[0].ns / c[1].ns);
				if (upd)
					printf(" %-10.0f %-10.0f %-6.2f\n",
					       c[0].ups, c[1].ups,
					       c[0].ups / c[1].ups);
				else
					printf(" %-10s %-10s %-6s\n", "-", "-",
					       "-");
				fflush(stdout);
			}
		}
	}
	return 0;
}
