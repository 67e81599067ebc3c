/*
 * call.c - lt_call_rcu: callbacks queued by any thread, run in batches by
 * one worker thread, one grace period (lt_rcu_synchronize) per batch.
 * lt_rcu_barrier waits until every callback queued before it has run.
 *
 * The worker starts with the first callback.  At exit a destructor stops
 * it after it has drained the queue, so a program that used call_rcu
 * leaves neither memory nor a thread behind.
 */
#define _GNU_SOURCE
#include "lowtrace/rcu.h"
#include "rcu/call.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

static pthread_mutex_t cr_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cr_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t cr_done = PTHREAD_COND_INITIALIZER;
static struct lt_rcu_head *cr_head;
static struct lt_rcu_head **cr_tail = &cr_head;
/* Callbacks queued and callbacks run since start; guarded by cr_lock. */
static unsigned long cr_queued, cr_completed;
static int cr_running, cr_stopping;
static pthread_t cr_thread;

static void run_batch(struct lt_rcu_head *h)
{
	while (h) {
		struct lt_rcu_head *next = h->next;

		h->func(h);
		h = next;
	}
}

static void *cr_worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&cr_lock);
	for (;;) {
		struct lt_rcu_head *batch;
		unsigned long taken;

		while (!cr_head && !cr_stopping)
			pthread_cond_wait(&cr_wake, &cr_lock);
		if (!cr_head)
			break;
		batch = cr_head;
		cr_head = NULL;
		cr_tail = &cr_head;
		taken = cr_queued;
		pthread_mutex_unlock(&cr_lock);

		lt_rcu_synchronize();
		run_batch(batch);

		pthread_mutex_lock(&cr_lock);
		cr_completed = taken;
		pthread_cond_broadcast(&cr_done);
	}
	pthread_mutex_unlock(&cr_lock);
	return NULL;
}

/* With cr_lock held.  The worker takes no signals: they are the caller's. */
static void start_worker(void)
{
	sigset_t all, old;

	if (cr_running)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (pthread_create(&cr_thread, NULL, cr_worker, NULL) != 0)
		abort();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	cr_running = 1;
}

void lt_call_rcu(struct lt_rcu_head *head, void (*fn)(struct lt_rcu_head *))
{
	head->func = fn;
	head->next = NULL;
	pthread_mutex_lock(&cr_lock);
	start_worker();
	*cr_tail = head;
	cr_tail = &head->next;
	cr_queued++;
	pthread_cond_signal(&cr_wake);
	pthread_mutex_unlock(&cr_lock);
}

void lt_rcu_barrier(void)
{
	unsigned long target;

	pthread_mutex_lock(&cr_lock);
	if (cr_running && pthread_equal(cr_thread, pthread_self()))
		abort(); /* from a callback: would wait for itself */
	target = cr_queued;
	if (cr_completed < target)
		start_worker();
	while (cr_completed < target)
		pthread_cond_wait(&cr_done, &cr_lock);
	pthread_mutex_unlock(&cr_lock);
}

/*
 * The parent's worker does not exist in the child: a batch it had taken is
 * lost there (counted as done so that lt_rcu_barrier does not wait for
 * it); callbacks still queued run on a new worker, started on demand.
 */
void lt_rcu_call_reset_child(void)
{
	unsigned long waiting = 0;

	pthread_mutex_init(&cr_lock, NULL);
	pthread_cond_init(&cr_wake, NULL);
	pthread_cond_init(&cr_done, NULL);
	for (struct lt_rcu_head *h = cr_head; h; h = h->next)
		waiting++;
	cr_completed = cr_queued - waiting;
	cr_running = 0;
	cr_stopping = 0;
}

__attribute__((constructor)) static void cr_ctor(void)
{
	pthread_atfork(NULL, NULL, lt_rcu_call_reset_child);
}

__attribute__((destructor)) static void cr_dtor(void)
{
	pthread_mutex_lock(&cr_lock);
	if (!cr_running || pthread_equal(cr_thread, pthread_self())) {
		pthread_mutex_unlock(&cr_lock);
		return;
	}
	cr_stopping = 1;
	pthread_cond_signal(&cr_wake);
	pthread_mutex_unlock(&cr_lock);
	pthread_join(cr_thread, NULL);
	pthread_mutex_lock(&cr_lock);
	cr_running = 0;
	cr_stopping = 0;
	pthread_mutex_unlock(&cr_lock);
}
