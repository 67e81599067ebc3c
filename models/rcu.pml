/* SPDX-License-Identifier: MIT */
/*
 * rcu.pml: model of lowtrace's membarrier RCU (src/runtime/rcu/, include/lowtrace/rcu.h).
 *
 * Proctypes and the C functions they mirror:
 *   reader_nest  lt_rcu_read_lock, lt_rcu_read_lock (nested), a pointer
 *                load and a dereference, lt_rcu_read_unlock twice
 *   reader       lt_rcu_read_lock, load, dereference, lt_rcu_read_unlock
 *   updater      publish a new version, lt_rcu_synchronize, reclaim the old
 *   watchdog     (not a C function) once nothing else can move, asserts
 *                that the updater is not asleep: a lost wake-up
 *
 * gp_ctr holds the nest count in its low bits (COUNT == 1) and PHASE.
 * A reader's outer lock copies gp_ctr into its ctr, a nested lock adds
 * COUNT, an unlock subtracts COUNT; between them only compiler barriers.
 *
 * The updater waits for a reader by checking its ctr; when it finds the
 * reader in an old-phase section it sets waiting, runs membarrier(),
 * checks again and then sleeps (a futex) until waiting is 0 again.  The
 * reader's outermost unlock loads waiting after its ctr store and, if it
 * read 1 and its section's phase is not gp_ctr's, clears it and wakes
 * the updater (lt_rcu_wake_updater).
 *
 * Weak memory on the read side: a reader's memory accesses are numbered in
 * program order and each is one bit of cpl[r] (set when the access is
 * performed: a load reads memory, a store becomes visible).  An access may
 * be performed before earlier ones except where the hardware orders it
 * anyway: a store of a value loaded earlier (data dependency), a load
 * through a pointer loaded earlier (address dependency), stores to the same
 * location (coherence).  membarrier() runs a full barrier on every reader:
 * it can only take place when each reader has performed exactly a prefix of
 * its accesses in program order.  The updater runs with full barriers and
 * is sequentially consistent.
 *
 * Switches (spin -D...):
 *   BUG_NOMB1        lt_rcu_synchronize without its first membarrier
 *   BUG_NOMB2        lt_rcu_synchronize without its second membarrier
 *   BUG_ONEFLIP      one phase flip and one wait instead of two
 *   BUG_NOPHASE      wait for any section to end, not only old-phase ones
 *   BUG_NOWAITMB     the updater sleeps without the membarrier() between
 *                    setting waiting and checking again (lost wake-up)
 *   BUG_WAKEPHASE    the reader wakes the updater only when its section's
 *                    phase is gp_ctr's (the test inverted: lost wake-up)
 *   LIVE             reader runs sections forever (for the liveness check)
 *
 * Properties: (s) RCU safety, asserted at each dereference; (w) an
 * updater that sleeps is woken: once the readers have finished, it is
 * not asleep; the end-state check (synchronize returns once readers
 * finish); and with LIVE, ltl sync_done: under weak fairness the updater
 * finishes while a reader keeps entering new read-side sections.
 */

#define COUNT	1
#define NEST	127		/* nest count bits */
#define PHASE	128
#define NR	2
#define NUPD	2		/* updates, each with one grace period */

#define VALID	1
#define POISON	2

byte gp_ctr = COUNT;
byte ctr[NR];
byte cpl[NR];			/* accesses performed, one bit each */
byte ptr = 1;
byte data[NUPD + 2];
bit upd_done;
bit mb_req;		/* LIVE: membarrier() requested, not yet done */
bit waiting;		/* lt_rcu_gp.waiting: the updater sleeps or will */
bit asleep;		/* the updater is in futex_wait */

/* accesses [0, k) performed and none after: a barrier may sit here */
#define PREFIX(x)	(((x) & ((x) + 1)) == 0)
#define HAS(r, i)	((cpl[r] & (1 << (i))) != 0)
#define DO(r, i)	cpl[r] = cpl[r] | (1 << (i))
#ifdef LIVE
/* while a membarrier is pending, a reader performs its accesses in order */
#define CAN(r, i)	(!HAS(r, i) && \
			 (!mb_req || ((~cpl[r]) & (cpl[r] + 1)) == (1 << (i))))
#else
#define CAN(r, i)	!HAS(r, i)
#endif

/* the reader's unlock wakes the updater: it read waiting == 1 (w) and its
 * section (phase in tmp) is of an old phase */
#ifdef BUG_WAKEPHASE
#define WAKES(w, tmp)	((w) && ((tmp ^ gp_ctr) & PHASE) == 0)
#else
#define WAKES(w, tmp)	((w) && ((tmp ^ gp_ctr) & PHASE) != 0)
#endif

/* Every step below is one d_step or one expression, never a multi-step
 * atomic: intermediate states of an atomic would let weak fairness (-f)
 * count a waiting process as blocked there. */

/*
 * Accesses of reader_nest, in program order:
 *   0 load gp_ctr      lt_rcu_read_lock (outer)
 *   1 store ctr        lt_rcu_read_lock (outer), depends on 0
 *   2 store ctr        lt_rcu_read_lock (nested), coherence after 1
 *   3 load ptr         rcu dereference
 *   4 load *ptr        depends on 3; (s) asserts it was not reclaimed
 *   5 store ctr        lt_rcu_read_unlock (nested), coherence after 2
 *   6 store ctr        lt_rcu_read_unlock (outer), coherence after 5
 *   7 load waiting     lt_rcu_read_unlock (outer); if 1, then clear it
 *                      and wake the updater (a locked exchange)
 * The nested unlock's load of waiting never wakes anyone: not modelled.
 */
#define NEST_ALL	255

proctype reader_nest(byte r)
{
	byte tmp, p;
	bit w;

	do
	:: d_step { CAN(r, 0) -> tmp = gp_ctr; DO(r, 0) }
	:: d_step { CAN(r, 1) && HAS(r, 0) -> ctr[r] = tmp; DO(r, 1) }
	:: d_step { CAN(r, 2) && HAS(r, 1) -> ctr[r] = tmp + COUNT; DO(r, 2) }
	:: d_step { CAN(r, 3) -> p = ptr; DO(r, 3) }
	:: d_step { CAN(r, 4) && HAS(r, 3) -> assert(data[p] == VALID); DO(r, 4) }	/* (s) */
	:: d_step { CAN(r, 5) && HAS(r, 2) -> ctr[r] = tmp; DO(r, 5) }
	:: d_step { CAN(r, 6) && HAS(r, 5) -> ctr[r] = tmp - COUNT; DO(r, 6) }
	:: d_step { CAN(r, 7) -> w = waiting; DO(r, 7) }
	:: d_step { w && HAS(r, 7) -> if :: WAKES(w, tmp) -> waiting = 0 :: else fi; w = 0 }
	:: cpl[r] == NEST_ALL && !w -> break
	od
}

/*
 * Accesses of reader, in program order:
 *   0 load gp_ctr      lt_rcu_read_lock
 *   1 store ctr        depends on 0
 *   2 load ptr
 *   3 load *ptr        depends on 2
 *   4 store ctr        lt_rcu_read_unlock, coherence after 1
 *   5 load waiting     lt_rcu_read_unlock; if 1, clear it and wake
 */
#define ONE_ALL		63

proctype reader(byte r)
{
	byte tmp, p;
	bit w;

	do
	:: d_step { CAN(r, 0) -> tmp = gp_ctr; DO(r, 0) }
	:: d_step { CAN(r, 1) && HAS(r, 0) -> ctr[r] = tmp; DO(r, 1) }
	:: d_step { CAN(r, 2) -> p = ptr; DO(r, 2) }
	:: d_step { CAN(r, 3) && HAS(r, 2) -> assert(data[p] == VALID); DO(r, 3) }	/* (s) */
	:: d_step { CAN(r, 4) && HAS(r, 1) -> ctr[r] = tmp - COUNT; DO(r, 4) }
	:: d_step { CAN(r, 5) -> w = waiting; DO(r, 5) }
	:: d_step { w && HAS(r, 5) -> if :: WAKES(w, tmp) -> waiting = 0 :: else fi; w = 0 }
#ifdef LIVE
	/* start the next section; sections do not overlap in the window */
	:: d_step { cpl[r] == ONE_ALL && !w -> cpl[r] = 0; tmp = 0; p = 0 }
#else
	:: cpl[r] == ONE_ALL && !w -> break
#endif
	od
}

/* membarrier(): a full barrier on every reader thread at this moment.
 * LIVE: the request keeps readers in order until the barrier happens, so
 * that a reader cannot dodge it forever (the IPI always lands). */
#ifdef LIVE
#define MEMBARRIER	mb_req = 1; PREFIX(cpl[0]) && PREFIX(cpl[1]); mb_req = 0
#else
#define MEMBARRIER	(PREFIX(cpl[0]) && PREFIX(cpl[1]))
#endif

/* wait while reader r is inside a section begun before the last flip
 * (BUG_NOPHASE: while reader r is inside any section) */
#ifdef BUG_NOPHASE
#define READER_DONE(r)	((ctr[r] & NEST) == 0)
#else
#define READER_DONE(r)	\
	(!((ctr[r] & NEST) != 0 && ((ctr[r] ^ gp_ctr) & PHASE) != 0))
#endif

/* wait_for_readers for reader r: the spinning is the blocking guard, the
 * sleep its other branch, taken at any time the reader is still there */
inline wait_reader(r)
{
	do
	:: READER_DONE(r) -> break
	:: !READER_DONE(r) ->
		waiting = 1;
#ifndef BUG_NOWAITMB
		MEMBARRIER;	/* pairs with the reader's ctr store, load */
#endif
		if
		:: READER_DONE(r) -> break
		:: else ->
			asleep = 1;
			waiting == 0;	/* futex_wait until a reader wakes it */
			asleep = 0
		fi
	od;
	waiting = 0
}

inline flip_and_wait()
{
	gp_ctr = gp_ctr ^ PHASE;
	wait_reader(0);
	wait_reader(1)
}

/* lt_rcu_synchronize */
inline synchronize()
{
#ifndef BUG_NOMB1
	MEMBARRIER;	/* pairs with the readers' barrier() in lock */
#endif
	flip_and_wait();
#ifndef BUG_ONEFLIP
	flip_and_wait();
#endif
#ifndef BUG_NOMB2
	MEMBARRIER	/* pairs with the readers' barrier() in unlock */
#endif
}

/* NUPD updates: publish a new version, lt_rcu_synchronize, reclaim the old. */
proctype updater()
{
	byte old;

	do
	:: ptr <= NUPD ->
		old = ptr;
		data[old + 1] = VALID;
		ptr = old + 1;		/* lt_rcu_assign_pointer */
		synchronize();
		data[old] = POISON	/* reclaim */
	:: else -> break
	od;
	upd_done = 1
}

#ifdef LIVE
ltl sync_done { <> upd_done }
#else
/* Nothing else can move: the readers are done; the updater must not be
 * asleep waiting for a wake-up that will never come. */
active proctype watchdog()
{
	timeout -> assert(!asleep)	/* (w) */
}
#endif

init
{
	atomic {
		data[1] = VALID;
		run reader_nest(0);
		run reader(1);
		run updater()
	}
}
