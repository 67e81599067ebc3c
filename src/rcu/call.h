/*
 * call.h - internals of lt_call_rcu: its reset in a forked child, which
 * fork.c runs from lt_rcu_after_fork_child().
 */
#ifndef LT_RCU_CALL_H
#define LT_RCU_CALL_H

/* In a forked child: forget the parent's worker and the batch it had
 * taken, reset the lock.  Also registered with pthread_atfork. */
void lt_rcu_call_reset_child(void);

#endif
