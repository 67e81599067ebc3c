/*
 * wait.h - how RCU updaters wait for readers: spin a little (a reader
 * section is usually short), then yield, then sleep with a growing delay.
 * Shared by src/rcu/memb.c and src/rcu/qsbr.c.
 */
#ifndef LT_RCU_WAIT_H
#define LT_RCU_WAIT_H

#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#define LT_RCU_SPIN_ATTEMPTS 100
#define LT_RCU_YIELD_ATTEMPTS 120

static inline void lt_rcu_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	/* compiler barrier, pairs with nothing: the caller reloads */
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* One step of backoff; attempt counts from 0 for each wait. */
static inline void lt_rcu_wait_backoff(unsigned attempt)
{
	if (attempt < LT_RCU_SPIN_ATTEMPTS) {
		lt_rcu_cpu_relax();
	} else if (attempt < LT_RCU_YIELD_ATTEMPTS) {
		sched_yield();
	} else {
		unsigned shift = attempt - LT_RCU_YIELD_ATTEMPTS;
		long ns = 10000L << (shift < 7 ? shift : 7);
		struct timespec ts = { 0, ns };

		nanosleep(&ts, NULL);
	}
}

#endif
