/*
 * fork.h - per-file resets that lt_rcu_after_fork_child (memb.c) runs in
 * a forked child; each file also registers its own with pthread_atfork.
 */
#ifndef LT_RCU_FORK_H
#define LT_RCU_FORK_H

void lt_rcu_qsbr_reset_child(void);
void lt_rcu_call_reset_child(void);

#endif
