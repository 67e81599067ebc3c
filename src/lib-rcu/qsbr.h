/* SPDX-License-Identifier: MIT */
/*
 * qsbr.h - internals of the QSBR flavour: its reset in a forked child,
 * which lt_rcu_after_fork_child() (call.c) runs too.
 */
#ifndef LT_RCU_QSBR_H
#define LT_RCU_QSBR_H

/* Times an updater slept until a reader woke it. */
unsigned long lt_rcu_qsbr_sleeps(void);

/* In a forked child: keep only the caller's reader record, reset the lock
 * and the waiting flag.  Also registered with pthread_atfork. */
void lt_rcu_qsbr_reset_child(void);

#endif
