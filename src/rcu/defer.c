/*
 * defer.c - lt_defer_rcu: a per-thread batch of fn(p) calls run after a
 * grace period.  Nothing is allocated per call; when the batch is full
 * the caller synchronizes and runs it.  The batch is also run at thread
 * exit (pthread key destructor), at process exit for the exiting thread,
 * and by lt_defer_barrier.
 */
#define _GNU_SOURCE
#include "lowtrace/rcu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define LT_DEFER_BATCH 256

struct defer_entry {
	void (*fn)(void *);
	void *p;
};

struct defer_queue {
	size_t n;
	struct defer_entry e[LT_DEFER_BATCH];
};

static __thread struct defer_queue *defer_q
	__attribute__((tls_model("initial-exec")));
static pthread_key_t defer_key;
static pthread_once_t defer_once = PTHREAD_ONCE_INIT;

/*
 * The entries are copied out first: a callback may itself call
 * lt_defer_rcu and refill the queue.
 */
static void flush(struct defer_queue *q)
{
	struct defer_entry run[LT_DEFER_BATCH];
	size_t n = q->n;

	if (!n)
		return;
	memcpy(run, q->e, n * sizeof(run[0]));
	q->n = 0;
	lt_rcu_synchronize();
	for (size_t i = 0; i < n; i++)
		run[i].fn(run[i].p);
}

static void defer_thread_exit(void *arg)
{
	struct defer_queue *q = arg;

	while (q->n)
		flush(q);
	if (defer_q == q)
		defer_q = NULL;
	free(q);
}

static void defer_init(void)
{
	pthread_key_create(&defer_key, defer_thread_exit);
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
	if (q->n == LT_DEFER_BATCH)
		flush(q);
	q->e[q->n].fn = fn;
	q->e[q->n].p = p;
	q->n++;
}

void lt_defer_barrier(void)
{
	struct defer_queue *q = defer_q;

	while (q && q->n)
		flush(q);
}

__attribute__((destructor)) static void defer_dtor(void)
{
	struct defer_queue *q = defer_q;

	if (!q)
		return;
	pthread_setspecific(defer_key, NULL);
	defer_thread_exit(q);
}
