/* SPDX-License-Identifier: MIT */
/*
 * wait.h - how RCU updaters wait for readers before they sleep: spin a
 * little (a reader section is usually short), then sleep on a futex that
 * the readers wake (src/runtime/rcu/batch.c).  Shared by src/runtime/rcu/memb.c,
 * src/lib-rcu/qsbr.c and src/runtime/rcu/batch.c.
 */
#ifndef LT_RCU_WAIT_H
#define LT_RCU_WAIT_H

#include <stdatomic.h>

/* Scans of the readers (or checks of a flag) before sleeping. */
#define LT_RCU_SPIN_ATTEMPTS 100

static inline void lt_rcu_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	/* compiler barrier, pairs with nothing: the caller reloads */
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

#endif
