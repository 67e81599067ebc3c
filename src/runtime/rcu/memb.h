/* SPDX-License-Identifier: MIT */
/*
 * memb.h - internals of the membarrier flavour: what tests look at, and
 * its reset in a forked child (run by the probes' and by
 * src/lib-rcu/call.c's child handlers too).
 */
#ifndef LT_RCU_MEMB_H
#define LT_RCU_MEMB_H

/* Number of records on the reader list (takes the registry lock). */
unsigned lt_rcu_registered_readers(void);

/* Times an updater slept until a reader woke it. */
unsigned long lt_rcu_memb_sleeps(void);

/* In a forked child: keep only the caller's reader record, reset the
 * locks.  Also registered with pthread_atfork by lt_rcu_init(). */
void lt_rcu_memb_reset_child(void);

#endif
