/* SPDX-License-Identifier: MIT */
/*
 * defer.c - lt_defer_rcu: a per-thread batch of fn(p) calls run after a
 * grace period.  Nothing is allocated per call; when the batch is full
 * the caller synchronizes and runs it.  The batch is also run at thread
 * exit (pthread key destructor), at process exit for the exiting thread,
 * and by lt_defer_barrier, which runs every thread's batch behind one
 * grace period.
 *
 * Each queue has a lock, taken by its owner for each call (uncontended)
 * and by a barrier in another thread; the queues are on a list under
 * defer_lock.
 */
#define _GNU_SOURCE
#include "lowtrace/rcu.h"
#include "lowtrace/rcu_call.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define LT_DEFER_BATCH 256

struct defer_entry {
	void (*fn)(void *);
	void *p;
};

struct defer_queue {
	pthread_mutex_t lock;
	struct defer_queue *prev, *next;
	size_t n;
	struct defer_entry e[LT_DEFER_BATCH];
};

static __thread struct defer_queue *defer_q
	__attribute__((tls_model("initial-exec")));
static pthread_key_t defer_key;
static pthread_once_t defer_once = PTHREAD_ONCE_INIT;
/* Every thread's queue; guarded by defer_lock. */
static pthread_mutex_t defer_lock = PTHREAD_MUTEX_INITIALIZER;
static struct defer_queue *queues;

/* With q->lock held: move q's entries to run[], return their number. */
static size_t take(struct defer_queue *q, struct defer_entry *run)
{
	size_t n = q->n;

	memcpy(run, q->e, n * sizeof(run[0]));
	q->n = 0;
	return n;
}

static void run_entries(const struct defer_entry *run, size_t n)
{
	for (size_t i = 0; i < n; i++)
		run[i].fn(run[i].p);
}

/*
 * The entries are copied out first: a callback may itself call
 * lt_defer_rcu and refill the queue.
 */
static void flush(struct defer_queue *q)
{
	struct defer_entry run[LT_DEFER_BATCH];
	size_t n;

	pthread_mutex_lock(&q->lock);
	n = take(q, run);
	pthread_mutex_unlock(&q->lock);
	if (!n)
		return;
	lt_rcu_synchronize();
	run_entries(run, n);
}

static void defer_thread_exit(void *arg)
{
	struct defer_queue *q = arg;

	pthread_mutex_lock(&defer_lock);
	if (q->prev)
		q->prev->next = q->next;
	else
		queues = q->next;
	if (q->next)
		q->next->prev = q->prev;
	pthread_mutex_unlock(&defer_lock);
	while (q->n)
		flush(q);
	if (defer_q == q)
		defer_q = NULL;
	pthread_mutex_destroy(&q->lock);
	free(q);
}

/* In a forked child: the locks may have been held by threads now gone. */
static void defer_reset_child(void)
{
	pthread_mutex_init(&defer_lock, NULL);
	for (struct defer_queue *q = queues; q; q = q->next)
		pthread_mutex_init(&q->lock, NULL);
}

static void defer_init(void)
{
	pthread_key_create(&defer_key, defer_thread_exit);
	pthread_atfork(NULL, NULL, defer_reset_child);
}

static struct defer_queue *queue(void)
{
	struct defer_queue *q = defer_q;

	if (q)
		return q;
	pthread_once(&defer_once, defer_init);
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	pthread_mutex_init(&q->lock, NULL);
	pthread_mutex_lock(&defer_lock);
	q->next = queues;
	if (queues)
		queues->prev = q;
	queues = q;
	pthread_mutex_unlock(&defer_lock);
	defer_q = q;
	pthread_setspecific(defer_key, q);
	return q;
}

void lt_defer_rcu(void (*fn)(void *), void *p)
{
	struct defer_queue *q = queue();

	if (!q) {
		/* Out of memory: fall back to waiting right here. */
		lt_rcu_synchronize();
		fn(p);
		return;
	}
	pthread_mutex_lock(&q->lock);
	while (q->n == LT_DEFER_BATCH) {
		pthread_mutex_unlock(&q->lock);
		flush(q);
		pthread_mutex_lock(&q->lock);
	}
	q->e[q->n].fn = fn;
	q->e[q->n].p = p;
	q->n++;
	pthread_mutex_unlock(&q->lock);
}

/*
 * Every queue's entries, taken under defer_lock, then one grace period
 * for all of them; repeated while callbacks queue more.
 */
void lt_defer_barrier(void)
{
	for (;;) {
		struct defer_entry *run = NULL;
		size_t n = 0, cap = 0;

		pthread_mutex_lock(&defer_lock);
		for (struct defer_queue *q = queues; q; q = q->next)
			cap += LT_DEFER_BATCH;
		if (cap && !(run = malloc(cap * sizeof(*run)))) {
			pthread_mutex_unlock(&defer_lock);
			/* Out of memory: this thread's queue at least. */
			if (defer_q)
				flush(defer_q);
			return;
		}
		for (struct defer_queue *q = queues; q; q = q->next) {
			pthread_mutex_lock(&q->lock);
			n += take(q, run + n);
			pthread_mutex_unlock(&q->lock);
		}
		pthread_mutex_unlock(&defer_lock);
		if (n) {
			lt_rcu_synchronize();
			run_entries(run, n);
		}
		free(run);
		if (!n)
			return;
	}
}

__attribute__((destructor)) static void defer_dtor(void)
{
	struct defer_queue *q = defer_q;

	if (!q)
		return;
	pthread_setspecific(defer_key, NULL);
	defer_thread_exit(q);
}
