/* SPDX-License-Identifier: MIT */
/*
 * batch.h - what RCU updaters share to wait: a futex wait and wake, and
 * the batching of concurrent synchronize calls (one grace period serves
 * every caller that queued before it started).  Used by src/runtime/rcu/memb.c
 * and src/lib-rcu/qsbr.c.
 */
#ifndef LT_RCU_BATCH_H
#define LT_RCU_BATCH_H

#include <stdatomic.h>

/* Sleep while *addr == val (a spurious return is possible). */
void lt_rcu_futex_wait(atomic_int *addr, int val);
/* Wake up to n threads sleeping on addr. */
void lt_rcu_futex_wake(atomic_int *addr, int n);

/* One synchronize call waiting in a batch; lives on its caller's stack. */
struct lt_rcu_waiter {
	struct lt_rcu_waiter *next;
	/* LT_RCU_WAITER_* bits, set by the leader that serves it. */
	atomic_int state;
};

/* Callers queued for the next grace period; a lock-free stack. */
struct lt_rcu_batch {
	struct lt_rcu_waiter *_Atomic head;
};

/*
 * Queue w.  Returns 1 when the caller leads: it must take the batch with
 * lt_rcu_batch_take() under the flavour's grace-period lock, run a grace
 * period, and pass the batch to lt_rcu_batch_wake().  Returns 0 once a
 * leader has run a grace period that began after w was queued.
 */
int lt_rcu_batch_join(struct lt_rcu_batch *b, struct lt_rcu_waiter *w);
/* Every caller queued so far; later ones form the next batch. */
struct lt_rcu_waiter *lt_rcu_batch_take(struct lt_rcu_batch *b);
/* Release every waiter of batch but self. */
void lt_rcu_batch_wake(struct lt_rcu_waiter *batch, struct lt_rcu_waiter *self);

#endif
