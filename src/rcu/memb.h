/*
 * memb.h - internals of the membarrier flavour that tests look at.
 */
#ifndef LT_RCU_MEMB_H
#define LT_RCU_MEMB_H

/* Number of records on the reader list (takes the registry lock). */
unsigned lt_rcu_registered_readers(void);

#endif
