/* SPDX-License-Identifier: MIT */
/*
 * bench/rcu.c - RCU read-side cost and update rates, lowtrace beside
 * liburcu 0.13 in the same run.
 *
 * Three flavours: membarrier (ours against urcu-memb), QSBR (against
 * urcu-qsbr) and the fence fallback (ours with LOWTRACE_RCU_NO_MEMBARRIER=1
 * against urcu-mb; the variable is read once at start-up, so the program
 * runs those rows in a child started with it set).  For each: 1, 2 and 4
 * reader threads alone, then with 1 and 2 updater threads calling
 * synchronize in a loop, or call_rcu (one malloc'd object freed by each
 * callback; the updater's time includes the barrier that waits for its
 * callbacks to have run).  Printed: ns per read lock+unlock pair (mean of
 * the reader threads) and updates per second (sum of the updaters).
 *
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
#include <urcu/urcu-mb.h>
#include <urcu/urcu-memb.h>
#include <urcu/urcu-qsbr.h>
#include <urcu/call-rcu.h>

#include "bench_util.h"
#include "lowtrace/rcu.h"
#include "lowtrace/rcu_call.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* call-rcu.h names one flavour's functions; the others' are these. */
void urcu_memb_call_rcu(struct rcu_head *, void (*)(struct rcu_head *));
void urcu_qsbr_call_rcu(struct rcu_head *, void (*)(struct rcu_head *));
void urcu_mb_call_rcu(struct rcu_head *, void (*)(struct rcu_head *));
void urcu_memb_barrier(void);
void urcu_qsbr_barrier(void);
void urcu_mb_barrier(void);

#define RUNS 5
#define INNER 1024
#define MAX_READERS 4
#define MAX_UPDATERS 2

enum impl { OURS_MEMB, OURS_QSBR, URCU_MEMB, URCU_QSBR, URCU_MB };
enum update { UPD_SYNC, UPD_CALL };

struct run {
	enum impl impl;
	enum update kind;
	int readers;
	int updaters;
	long ms;
	atomic_int stop;
	pthread_barrier_t start;
	double ns_per_pair[MAX_READERS];
	double updates_per_s[MAX_UPDATERS];
};

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
		t0 = bench_now_ns();                                  \
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
		t1 = bench_now_ns();                                  \
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
READER_LOOP(read_urcu_mb, urcu_mb_register_thread(),
	    urcu_mb_unregister_thread(), urcu_mb_read_lock(),
	    urcu_mb_read_unlock(), (void)0)

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
	case URCU_QSBR:
		ns = read_urcu_qsbr(r);
		break;
	case URCU_MB:
		ns = read_urcu_mb(r);
		break;
	}
	r->ns_per_pair[a->idx] = ns;
	return NULL;
}

/* What one call_rcu queues: each implementation's head, then nothing. */
union obj {
	struct lt_rcu_head lt;
	struct rcu_head urcu;
};

static void free_lt(struct lt_rcu_head *h)
{
	free(h);
}

static void free_urcu(struct rcu_head *h)
{
	free(h);
}

/* One update; 0 when the implementation lacks it. */
static int update(enum impl impl, enum update kind)
{
	union obj *o = NULL;

	if (kind == UPD_CALL && !(o = malloc(sizeof(*o))))
		abort();
	switch (impl) {
	case OURS_MEMB:
		if (kind == UPD_SYNC)
			lt_rcu_synchronize();
		else
			lt_call_rcu(&o->lt, free_lt);
		return 1;
	case OURS_QSBR:
		if (kind == UPD_SYNC)
			lt_rcu_qsbr_synchronize();
		else
			lt_rcu_qsbr_call_rcu(&o->lt, free_lt);
		return 1;
	case URCU_MEMB:
		if (kind == UPD_SYNC)
			urcu_memb_synchronize_rcu();
		else
			urcu_memb_call_rcu(&o->urcu, free_urcu);
		return 1;
	case URCU_QSBR:
		if (kind == UPD_SYNC)
			urcu_qsbr_synchronize_rcu();
		else
			urcu_qsbr_call_rcu(&o->urcu, free_urcu);
		return 1;
	case URCU_MB:
		if (kind == UPD_SYNC)
			urcu_mb_synchronize_rcu();
		else
			urcu_mb_call_rcu(&o->urcu, free_urcu);
		return 1;
	}
	return 0;
}

/* Wait until the callbacks this thread queued have run. */
static void barrier(enum impl impl)
{
	switch (impl) {
	case OURS_MEMB:
		lt_rcu_barrier();
		break;
	case OURS_QSBR:
		lt_rcu_qsbr_barrier();
		break;
	case URCU_MEMB:
		urcu_memb_barrier();
		break;
	case URCU_QSBR:
		urcu_qsbr_barrier();
		break;
	case URCU_MB:
		urcu_mb_barrier();
		break;
	}
}

struct updater_arg {
	struct run *r;
	int idx;
};

static void *updater(void *p)
{
	struct updater_arg *a = p;
	struct run *r = a->r;
	unsigned long n = 0;
	double t0, t1;

	pthread_barrier_wait(&r->start);
	t0 = bench_now_ns();
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		if (!update(r->impl, r->kind))
			return NULL;
		n++;
	}
	if (r->kind == UPD_CALL)
		barrier(r->impl);
	t1 = bench_now_ns();
	r->updates_per_s[a->idx] = n / ((t1 - t0) / 1e9);
	return NULL;
}

static void do_run(struct run *r)
{
	pthread_t rt[MAX_READERS], ut[MAX_UPDATERS];
	struct reader_arg ra[MAX_READERS];
	struct updater_arg ua[MAX_UPDATERS];
	struct timespec ts = { r->ms / 1000, (r->ms % 1000) * 1000000L };

	atomic_store(&r->stop, 0);
	pthread_barrier_init(&r->start, NULL, r->readers + r->updaters + 1);
	for (int i = 0; i < r->readers; i++) {
		ra[i].r = r;
		ra[i].idx = i;
		pthread_create(&rt[i], NULL, reader, &ra[i]);
	}
	for (int i = 0; i < r->updaters; i++) {
		ua[i].r = r;
		ua[i].idx = i;
		pthread_create(&ut[i], NULL, updater, &ua[i]);
	}
	pthread_barrier_wait(&r->start);
	nanosleep(&ts, NULL);
	atomic_store(&r->stop, 1);
	for (int i = 0; i < r->readers; i++)
		pthread_join(rt[i], NULL);
	for (int i = 0; i < r->updaters; i++)
		pthread_join(ut[i], NULL);
	pthread_barrier_destroy(&r->start);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), bench_by_value);
	return v[n / 2];
}

struct cell {
	double ns, ups;
};

/* RUNS runs of each implementation, alternating, for one row. */
static void measure_row(const enum impl which[2], enum update kind, int readers,
			int updaters, long ms, struct cell out[2])
{
	double ns[2][RUNS], ups[2][RUNS];

	for (int k = 0; k < RUNS; k++) {
		for (int w = 0; w < 2; w++) {
			int slot = (w + k) % 2;
			struct run r;
			double sum = 0;

			memset(&r, 0, sizeof(r));
			r.impl = which[slot];
			r.kind = kind;
			r.readers = readers;
			r.updaters = updaters;
			r.ms = ms;
			do_run(&r);
			for (int i = 0; i < readers; i++)
				sum += r.ns_per_pair[i];
			ns[slot][k] = sum / readers;
			ups[slot][k] = 0;
			for (int i = 0; i < updaters; i++)
				ups[slot][k] += r.updates_per_s[i];
		}
	}
	for (int s = 0; s < 2; s++) {
		out[s].ns = median(ns[s], RUNS);
		out[s].ups = median(ups[s], RUNS);
	}
}

static void print_rate(double v)
{
	if (v >= 1e6)
		printf(" %8.2fM", v / 1e6);
	else
		printf(" %9.0f", v);
}

static void table(const char *flavour, const enum impl which[2], long ms)
{
	static const char *const kinds[] = { "-", "sync", "call_rcu" };

	for (int upd = 0; upd <= MAX_UPDATERS; upd++) {
		for (int kind = UPD_SYNC; kind <= UPD_CALL; kind++) {
			if (!upd && kind != UPD_SYNC)
				continue;
			for (int readers = 1; readers <= MAX_READERS;
			     readers *= 2) {
				struct cell c[2];

				measure_row(which, kind, readers, upd, ms, c);
				printf("%-6s %7d %8d %-8s | %6.2f %6.2f %5.2f |",
				       flavour, readers, upd,
				       kinds[upd ? kind + 1 : 0], c[0].ns,
				       c[1].ns, c[0].ns / c[1].ns);
				if (upd && c[0].ups > 0) {
					print_rate(c[0].ups);
					print_rate(c[1].ups);
					printf(" %6.2f\n", c[0].ups / c[1].ups);
				} else if (upd) {
					printf(" %9s", "n/a");
					print_rate(c[1].ups);
					printf(" %6s\n", "-");
				} else {
					printf(" %9s %9s %6s\n", "-", "-", "-");
				}
				fflush(stdout);
			}
		}
	}
}

int main(int argc, char **argv)
{
	static const enum impl memb[2] = { OURS_MEMB, URCU_MEMB };
	static const enum impl qsbr[2] = { OURS_QSBR, URCU_QSBR };
	static const enum impl fence[2] = { OURS_MEMB, URCU_MB };
	long ms = argc > 1 ? atol(argv[1]) : 200;
	pid_t child;

	if (ms <= 0)
		ms = 200;
	if (argc > 2 && strcmp(argv[2], "fence") == 0) {
		if (lt_rcu_uses_membarrier())
			return 1;
		table("fence", fence, ms);
		return 0;
	}
	printf("RCU read lock+unlock, ns per pair per reader thread, and "
	       "updates/s (all updaters);\nmedian of %d runs of %ld ms; "
	       "memb: lowtrace %s against urcu-memb; fence: lowtrace\n"
	       "with LOWTRACE_RCU_NO_MEMBARRIER=1 against urcu-mb\n\n",
	       RUNS, ms,
	       lt_rcu_uses_membarrier() ? "membarrier" : "fence fallback");
	printf("%-6s %7s %8s %-8s | %6s %6s %5s | %9s %9s %6s\n", "flavor",
	       "readers", "updaters", "update", "lt ns", "urcu", "ratio",
	       "lt/s", "urcu/s", "ratio");
	table("memb", memb, ms);
	table("qsbr", qsbr, ms);
	fflush(stdout);
	child = fork();
	if (child == 0) {
		char arg[32];

		snprintf(arg, sizeof(arg), "%ld", ms);
		setenv("LOWTRACE_RCU_NO_MEMBARRIER", "1", 1);
		execl("/proc/self/exe", argv[0], arg, "fence", (char *)NULL);
		_exit(127);
	}
	if (child > 0)
		waitpid(child, NULL, 0);
	return 0;
}
