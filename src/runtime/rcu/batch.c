/* SPDX-License-Identifier: MIT */
/*
 * batch.c - futex helpers and the batching of synchronize calls.
 *
 * The first caller to find the queue empty leads; the others sleep until
 * it has run a grace period that began after they queued (it takes the
 * queue under the grace-period lock, then starts).  A waiter spins a
 * little first, then sleeps on a futex; it leaves only once the leader
 * has stopped touching its record (the TEARDOWN bit), since the record
 * is on the waiter's stack.
 */
#define _GNU_SOURCE
#include "rcu/batch.h"
#include "rcu/wait.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LT_RCU_WAITER_WAKEUP 1
#define LT_RCU_WAITER_TEARDOWN 2

void lt_rcu_futex_wait(atomic_int *addr, int val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

void lt_rcu_futex_wake(atomic_int *addr, int n)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

int lt_rcu_batch_join(struct lt_rcu_batch *b, struct lt_rcu_waiter *w)
{
	struct lt_rcu_waiter *head =
		atomic_load_explicit(&b->head, memory_order_relaxed);

	atomic_store_explicit(&w->state, 0, memory_order_relaxed);
	do {
		w->next = head;
		/*
		 * Release: the leader that takes w sees w->next; seq_cst
		 * also orders the caller's unpublish (before the call)
		 * before the leader's grace period, which starts after it
		 * has taken w.
		 */
	} while (!atomic_compare_exchange_weak_explicit(&b->head, &head, w,
							memory_order_seq_cst,
							memory_order_relaxed));
	if (!head)
		return 1;
	for (unsigned attempt = 0;
	     !(atomic_load_explicit(&w->state, memory_order_acquire) &
	       LT_RCU_WAITER_WAKEUP);
	     attempt++) {
		if (attempt < LT_RCU_SPIN_ATTEMPTS)
			lt_rcu_cpu_relax();
		else
			lt_rcu_futex_wait(&w->state, 0);
	}
	/* The leader sets TEARDOWN right after its wake-up call. */
	while (!(atomic_load_explicit(&w->state, memory_order_acquire) &
		 LT_RCU_WAITER_TEARDOWN))
		lt_rcu_cpu_relax();
	return 0;
}

struct lt_rcu_waiter *lt_rcu_batch_take(struct lt_rcu_batch *b)
{
	/* acquire: pairs with the release of each push */
	return atomic_exchange_explicit(&b->head, NULL, memory_order_acq_rel);
}

void lt_rcu_batch_wake(struct lt_rcu_waiter *batch, struct lt_rcu_waiter *self)
{
	while (batch) {
		struct lt_rcu_waiter *next = batch->next;

		if (batch != self) {
			/*
			 * release: pairs with the waiter's acquire load; the
			 * grace period is over before it returns.
			 */
			atomic_store_explicit(&batch->state,
					      LT_RCU_WAITER_WAKEUP,
					      memory_order_release);
			lt_rcu_futex_wake(&batch->state, 1);
			atomic_store_explicit(&batch->state,
					      LT_RCU_WAITER_WAKEUP |
						      LT_RCU_WAITER_TEARDOWN,
					      memory_order_release);
		}
		batch = next;
	}
}
