/* SPDX-License-Identifier: MIT */
/*
 * call.c - lt_call_rcu and lt_rcu_qsbr_call_rcu: callbacks queued by any
 * thread, run in batches by a worker thread, one grace period of the
 * worker's flavour per batch.  Each flavour has a default worker; a thread
 * may be given one of its own (lt_call_rcu_data_create,
 * lt_set_thread_call_rcu_data).  lt_rcu_barrier and lt_rcu_qsbr_barrier
 * wait until every callback of the flavour queued before them has run.
 *
 * A worker starts with its first callback and sleeps on a condition
 * variable while its queue is empty; a callback queued wakes it.
 *
 * Also here, above both flavours and the workers: the fork handlers.
 * Around fork() the workers are parked between batches
 * (lt_rcu_before_fork) and set going again in the parent and, as new
 * threads, in the child, after the flavours' resets.  The handlers are
 * registered with pthread_atfork and callable by a program (liburcu's
 * users call theirs around fork): a per-thread depth makes only the
 * outermost pair act.  At exit a destructor stops them after they have drained their
 * queues, so a program that used call_rcu leaves neither memory nor a
 * thread behind.
 */
#define _GNU_SOURCE
#include "lowtrace/rcu.h"
#include "lowtrace/rcu_call.h"
#include "rcu/memb.h"
#include "lib-rcu/qsbr.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

struct lt_call_rcu_data {
	pthread_mutex_t lock;
	pthread_cond_t wake, done;
	struct lt_rcu_head *head;
	struct lt_rcu_head **tail;
	/* Callbacks queued and callbacks run since start; guarded by lock. */
	unsigned long queued, completed;
	int running, stopping;
	/* Asked to park between batches (fork), and parked. */
	int pause, paused;
	pthread_t thread;
	enum lt_rcu_flavour flavour;
	/* On the list of every worker (data_lock). */
	struct lt_call_rcu_data *next;
};

#define CALL_DATA_INIT(name, f, nxt)                                    \
	{                                                               \
		.lock = PTHREAD_MUTEX_INITIALIZER,                      \
		.wake = PTHREAD_COND_INITIALIZER,                       \
		.done = PTHREAD_COND_INITIALIZER, .tail = &(name).head, \
		.flavour = (f), .next = (nxt)                           \
	}

static struct lt_call_rcu_data default_qsbr =
	CALL_DATA_INIT(default_qsbr, LT_RCU_QSBR, NULL);
static struct lt_call_rcu_data default_memb =
	CALL_DATA_INIT(default_memb, LT_RCU_MEMB, &default_qsbr);
/* Every worker's data, defaults included; guarded by data_lock. */
static pthread_mutex_t data_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lt_call_rcu_data *all_data = &default_memb;
static __thread struct lt_call_rcu_data *thread_data[2];

static void run_batch(struct lt_rcu_head *h)
{
	while (h) {
		struct lt_rcu_head *next = h->next;

		h->func(h);
		h = next;
	}
}

static void *worker(void *arg)
{
	struct lt_call_rcu_data *d = arg;

	if (d->flavour == LT_RCU_QSBR)
		lt_rcu_qsbr_register_thread();
	pthread_mutex_lock(&d->lock);
	for (;;) {
		struct lt_rcu_head *batch;
		unsigned long taken;

		while ((!d->head || d->pause) && !d->stopping) {
			if (d->pause && !d->paused) {
				d->paused = 1;
				pthread_cond_broadcast(&d->done);
			}
			if (d->flavour == LT_RCU_QSBR)
				lt_rcu_qsbr_thread_offline();
			pthread_cond_wait(&d->wake, &d->lock);
			if (d->flavour == LT_RCU_QSBR)
				lt_rcu_qsbr_thread_online();
		}
		d->paused = 0;
		if (!d->head)
			break;
		batch = d->head;
		d->head = NULL;
		d->tail = &d->head;
		taken = d->queued;
		pthread_mutex_unlock(&d->lock);

		if (d->flavour == LT_RCU_QSBR)
			lt_rcu_qsbr_synchronize();
		else
			lt_rcu_synchronize();
		run_batch(batch);

		pthread_mutex_lock(&d->lock);
		d->completed = taken;
		pthread_cond_broadcast(&d->done);
	}
	pthread_mutex_unlock(&d->lock);
	if (d->flavour == LT_RCU_QSBR)
		lt_rcu_qsbr_unregister_thread();
	return NULL;
}

/* With d->lock held.  The worker takes no signals: they are the caller's. */
static void start_worker(struct lt_call_rcu_data *d)
{
	sigset_t all, old;

	if (d->running)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (pthread_create(&d->thread, NULL, worker, d) != 0)
		abort();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	d->running = 1;
}

/* With d->lock held: drain the queue, then end the worker. */
static void stop_worker(struct lt_call_rcu_data *d)
{
	if (d->head)
		start_worker(d);
	if (!d->running || pthread_equal(d->thread, pthread_self()))
		return;
	d->stopping = 1;
	pthread_cond_signal(&d->wake);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	pthread_mutex_lock(&d->lock);
	d->running = 0;
	d->stopping = 0;
}

struct lt_call_rcu_data *lt_call_rcu_data_create(enum lt_rcu_flavour f)
{
	struct lt_call_rcu_data *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->wake, NULL);
	pthread_cond_init(&d->done, NULL);
	d->tail = &d->head;
	d->flavour = f == LT_RCU_QSBR ? LT_RCU_QSBR : LT_RCU_MEMB;
	pthread_mutex_lock(&data_lock);
	d->next = all_data;
	all_data = d;
	pthread_mutex_unlock(&data_lock);
	return d;
}

void lt_call_rcu_data_free(struct lt_call_rcu_data *d)
{
	struct lt_call_rcu_data **p;

	if (!d || d == &default_memb || d == &default_qsbr)
		return;
	pthread_mutex_lock(&data_lock);
	for (p = &all_data; *p; p = &(*p)->next)
		if (*p == d) {
			*p = d->next;
			break;
		}
	pthread_mutex_unlock(&data_lock);
	pthread_mutex_lock(&d->lock);
	stop_worker(d);
	pthread_mutex_unlock(&d->lock);
	if (thread_data[d->flavour] == d)
		thread_data[d->flavour] = NULL;
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->wake);
	pthread_cond_destroy(&d->done);
	free(d);
}

struct lt_call_rcu_data *lt_call_rcu_data_default(enum lt_rcu_flavour f)
{
	return f == LT_RCU_QSBR ? &default_qsbr : &default_memb;
}

void lt_set_thread_call_rcu_data(enum lt_rcu_flavour f,
				 struct lt_call_rcu_data *d)
{
	thread_data[f == LT_RCU_QSBR] = d;
}

struct lt_call_rcu_data *lt_get_thread_call_rcu_data(enum lt_rcu_flavour f)
{
	return thread_data[f == LT_RCU_QSBR];
}

struct lt_call_rcu_data *lt_get_call_rcu_data(enum lt_rcu_flavour f)
{
	struct lt_call_rcu_data *d = thread_data[f == LT_RCU_QSBR];

	return d ? d : lt_call_rcu_data_default(f);
}

pthread_t lt_call_rcu_data_thread(struct lt_call_rcu_data *d)
{
	pthread_t t;

	pthread_mutex_lock(&d->lock);
	start_worker(d);
	t = d->thread;
	pthread_mutex_unlock(&d->lock);
	return t;
}

static void enqueue(struct lt_call_rcu_data *d, struct lt_rcu_head *head,
		    void (*fn)(struct lt_rcu_head *))
{
	head->func = fn;
	head->next = NULL;
	pthread_mutex_lock(&d->lock);
	start_worker(d);
	*d->tail = head;
	d->tail = &head->next;
	d->queued++;
	pthread_cond_signal(&d->wake);
	pthread_mutex_unlock(&d->lock);
}

void lt_call_rcu(struct lt_rcu_head *head, void (*fn)(struct lt_rcu_head *))
{
	struct lt_call_rcu_data *d = thread_data[LT_RCU_MEMB];

	enqueue(d ? d : &default_memb, head, fn);
}

void lt_rcu_qsbr_call_rcu(struct lt_rcu_head *head,
			  void (*fn)(struct lt_rcu_head *))
{
	struct lt_call_rcu_data *d = thread_data[LT_RCU_QSBR];

	enqueue(d ? d : &default_qsbr, head, fn);
}

/* Until every callback queued on d before the call has run. */
static void barrier_one(struct lt_call_rcu_data *d)
{
	unsigned long target;

	pthread_mutex_lock(&d->lock);
	if (d->running && pthread_equal(d->thread, pthread_self()))
		abort(); /* from a callback: would wait for itself */
	target = d->queued;
	if (d->completed < target)
		start_worker(d);
	while (d->completed < target)
		pthread_cond_wait(&d->done, &d->lock);
	pthread_mutex_unlock(&d->lock);
}

/*
 * Every worker of flavour f, holding data_lock so that none is freed
 * meanwhile (hence: callbacks do not create or free workers).
 */
static void barrier_all(enum lt_rcu_flavour f)
{
	pthread_mutex_lock(&data_lock);
	for (struct lt_call_rcu_data *d = all_data; d; d = d->next)
		if (d->flavour == f)
			barrier_one(d);
	pthread_mutex_unlock(&data_lock);
}

void lt_rcu_barrier(void)
{
	barrier_all(LT_RCU_MEMB);
}

void lt_rcu_qsbr_barrier(void)
{
	int was_online = lt_rcu_qsbr_read_ongoing();

	/* The worker's grace period would wait for this thread. */
	if (was_online)
		lt_rcu_qsbr_thread_offline();
	barrier_all(LT_RCU_QSBR);
	if (was_online)
		lt_rcu_qsbr_thread_online();
}

static __thread unsigned fork_depth;
/* The caller was online in the QSBR flavour and went offline for fork. */
static __thread int fork_qsbr_online;

void lt_rcu_before_fork(void)
{
	/* A worker's memb grace period would wait for the caller's section. */
	int wait = !lt_rcu_read_ongoing();

	if (fork_depth++)
		return;
	fork_qsbr_online = lt_rcu_qsbr_read_ongoing();
	if (fork_qsbr_online)
		lt_rcu_qsbr_thread_offline();
	pthread_mutex_lock(&data_lock);
	for (struct lt_call_rcu_data *d = all_data; d; d = d->next) {
		pthread_mutex_lock(&d->lock);
		if (d->running && !pthread_equal(d->thread, pthread_self())) {
			d->pause = 1;
			pthread_cond_signal(&d->wake);
			while (wait && !d->paused)
				pthread_cond_wait(&d->done, &d->lock);
		}
		pthread_mutex_unlock(&d->lock);
	}
}

void lt_rcu_after_fork_parent(void)
{
	if (!fork_depth || --fork_depth)
		return;
	for (struct lt_call_rcu_data *d = all_data; d; d = d->next) {
		pthread_mutex_lock(&d->lock);
		d->pause = 0;
		pthread_cond_signal(&d->wake);
		pthread_mutex_unlock(&d->lock);
	}
	pthread_mutex_unlock(&data_lock);
	if (fork_qsbr_online)
		lt_rcu_qsbr_thread_online();
}

/*
 * The parent's workers do not exist in the child.  A batch one had taken
 * (a fork that could not wait for it to park) is lost there, counted as
 * done so that a barrier does not wait for it; callbacks still queued run
 * on a new worker, started now.
 */
void lt_rcu_after_fork_child(void)
{
	static pid_t done_in;
	pid_t pid = getpid();

	if (fork_depth && --fork_depth)
		return;
	/* The pthread_atfork handler has run it; a program's call too. */
	if (done_in == pid)
		return;
	done_in = pid;
	lt_rcu_memb_reset_child();
	lt_rcu_qsbr_reset_child();
	pthread_mutex_init(&data_lock, NULL);
	for (struct lt_call_rcu_data *d = all_data; d; d = d->next) {
		unsigned long waiting = 0;

		pthread_mutex_init(&d->lock, NULL);
		pthread_cond_init(&d->wake, NULL);
		pthread_cond_init(&d->done, NULL);
		for (struct lt_rcu_head *h = d->head; h; h = h->next)
			waiting++;
		d->completed = d->queued - waiting;
		d->running = 0;
		d->stopping = 0;
		d->pause = 0;
		d->paused = 0;
	}
	if (fork_qsbr_online) {
		fork_qsbr_online = 0;
		lt_rcu_qsbr_thread_online();
	}
	for (struct lt_call_rcu_data *d = all_data; d; d = d->next)
		if (d->head)
			start_worker(d);
}

__attribute__((constructor)) static void call_ctor(void)
{
	pthread_atfork(lt_rcu_before_fork, lt_rcu_after_fork_parent,
		       lt_rcu_after_fork_child);
}

__attribute__((destructor)) static void call_dtor(void)
{
	pthread_mutex_lock(&data_lock);
	for (struct lt_call_rcu_data *d = all_data; d; d = d->next) {
		pthread_mutex_lock(&d->lock);
		stop_worker(d);
		pthread_mutex_unlock(&d->lock);
	}
	pthread_mutex_unlock(&data_lock);
}
