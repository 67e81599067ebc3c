/* SPDX-License-Identifier: MIT */
/*
 * rcu_call.h - work run after a grace period: lt_call_rcu (callbacks run
 * by a worker thread, either flavour), lt_defer_rcu (batches run by the
 * caller, membarrier flavour), their barriers, and the fork handlers
 * that keep the workers right across fork().  The code:
 * src/lib-rcu/call.c, src/lib-rcu/defer.c; docs/rcu.md.
 */
#ifndef LOWTRACE_RCU_CALL_H
#define LOWTRACE_RCU_CALL_H

#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

struct lt_rcu_head {
	struct lt_rcu_head *next;
	void (*func)(struct lt_rcu_head *head);
};

enum lt_rcu_flavour { LT_RCU_MEMB, LT_RCU_QSBR };

/*
 * Run fn(head) on a call_rcu worker after a grace period: the calling
 * thread's worker for the flavour if it was given one, else the flavour's
 * default worker.  Callbacks of one worker run in batches, one grace
 * period per batch, in the order they were queued.
 */
void lt_call_rcu(struct lt_rcu_head *head, void (*fn)(struct lt_rcu_head *));
void lt_rcu_qsbr_call_rcu(struct lt_rcu_head *head,
			  void (*fn)(struct lt_rcu_head *));
/*
 * Wait until every callback of the flavour queued before the call, on
 * any worker, has run.  Not from a callback; a callback does not create
 * or free workers.  lt_rcu_qsbr_barrier goes offline while it waits.
 */
void lt_rcu_barrier(void);
void lt_rcu_qsbr_barrier(void);

/* A call_rcu worker: a queue and the thread that runs it. */
struct lt_call_rcu_data;
/* A new worker for flavour f; its thread starts with its first callback. */
struct lt_call_rcu_data *lt_call_rcu_data_create(enum lt_rcu_flavour f);
/* Run the worker's callbacks, end its thread, free it (not a default). */
void lt_call_rcu_data_free(struct lt_call_rcu_data *d);
struct lt_call_rcu_data *lt_call_rcu_data_default(enum lt_rcu_flavour f);
/* The worker the calling thread's call_rcu of flavour f uses; NULL: the
 * default one. */
void lt_set_thread_call_rcu_data(enum lt_rcu_flavour f,
				 struct lt_call_rcu_data *d);
/* The worker set for the calling thread, or NULL. */
struct lt_call_rcu_data *lt_get_thread_call_rcu_data(enum lt_rcu_flavour f);
/* The worker the calling thread's call_rcu uses. */
struct lt_call_rcu_data *lt_get_call_rcu_data(enum lt_rcu_flavour f);
/* The worker's thread (started if it was not). */
pthread_t lt_call_rcu_data_thread(struct lt_call_rcu_data *d);

/*
 * Fork handlers, also registered with pthread_atfork (calling them too,
 * as liburcu's users do, is harmless: only the outermost pair acts).
 * lt_rcu_before_fork parks every call_rcu worker between batches (unless
 * the caller is inside a membarrier-flavour section, which a worker's
 * grace period would wait for) and takes a QSBR caller offline;
 * lt_rcu_after_fork_parent sets them going again; lt_rcu_after_fork_child
 * also starts new workers for the callbacks queued.
 */
void lt_rcu_before_fork(void);
void lt_rcu_after_fork_parent(void);
/*
 * In a forked child, before it starts threads: forget the other threads'
 * reader records (both flavours), reset the locks, start new call_rcu
 * workers for the callbacks queued.  Also run automatically by
 * pthread_atfork handlers; calling it again is harmless.
 */
void lt_rcu_after_fork_child(void);

/*
 * Queue fn(p) in a per-thread batch run after a grace period; when the
 * batch is full, synchronizes and runs it in the caller.  Never call
 * inside a read-side section.
 */
void lt_defer_rcu(void (*fn)(void *), void *p);
/*
 * Synchronize once and run every thread's deferred batch (the callbacks
 * run in the caller).
 */
void lt_defer_barrier(void);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
