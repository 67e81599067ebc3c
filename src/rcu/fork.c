/*
 * fork.c - lt_rcu_after_fork_child(): every part of src/rcu reset in a
 * forked child.  Each flavour (memb.c, qsbr.c) and call.c registers its
 * own reset with pthread_atfork; this runs them all, for a caller whose
 * own child handler needs RCU before those have run.  It sits above the
 * flavours so that none of them calls into another.
 */
#include "lowtrace/rcu.h"
#include "rcu/call.h"
#include "rcu/memb.h"
#include "rcu/qsbr.h"

void lt_rcu_after_fork_child(void)
{
	lt_rcu_memb_reset_child();
	lt_rcu_qsbr_reset_child();
	lt_rcu_call_reset_child();
}
