/* SPDX-License-Identifier: MIT */
/*
 * idtab.pml: model of the id table that the processes sharing buffers
 * agree on event ids through (src/runtime/session/idtab.c, src/runtime/session/idtab.h).
 *
 * The table is an array of CAP 64-bit keys in shared memory, 0 marking an
 * empty slot; an event's id is the index of its key.  A lookup scans from
 * slot 0: a slot holding the key gives its index; at the first empty slot
 * it claims the slot with one compare-and-swap 0 -> key; if that fails it
 * takes the value another process put there and returns the index if it
 * is the key, else goes on.  A full table gives LT_IDTAB_NONE.
 *
 * Proctypes and what they mirror:
 *   claimer   a process looking up two keys with lt_idtab_id(), one after
 *             the other (the registry's shared_id() in src/runtime/session/agent.c
 *             as its events get targets); it may be killed (SIGKILL)
 *             before any of its steps, and then takes no further step
 *   checker   (not a C function) once every claimer has returned or died,
 *             checks the table and the ids returned, as the recorder's
 *             lt_shared_refresh() and every process would find them
 *
 * Claimer 0 looks up keys 1 then 2, claimer 1 keys 2 then 1, claimer 2
 * keys 3 then 1: key 1 is wanted by all three, key 2 by two, and claimers
 * 0 and 1 want keys 1 and 2 in opposite orders.  Each step on the table
 * is one atomic step: the acquire load of a slot, the compare-and-swap (on
 * failure: the value it read), and under the BUG_ switches below the plain
 * stores.  The choices a process makes on what it read are part of that
 * step.
 *
 * Switches (spin -D...):
 *   CAP=n              slots (default 3: room for the 3 keys); CAP=2 makes
 *                      a lookup of the third key find the table full
 *   BUG_NO_RECHECK     after a failed compare-and-swap the lookup goes on
 *                      to the next slot without looking at what is there
 *   BUG_RETURN_LOSER   after a failed compare-and-swap the lookup returns
 *                      the slot without looking at what is there
 *   BUG_PLAIN_STORE    a load that saw the slot empty, then a plain store
 *                      of the key, instead of the compare-and-swap
 *   BUG_SPLIT_STORE    the key written in two halves: a compare-and-swap
 *                      of its first half, then a store of the whole key
 *                      (a 64-bit key on a target without 64-bit atomics)
 *   BUG_HASHED         the scan starts at slot key % CAP and wraps round,
 *                      as in an open-addressing hash table
 *   WEAK               weak memory (ARMv8, POWER): a slot's value is 0 and
 *                      then one key, so a load may read the slot empty after
 *                      another process claimed it (a stale value; any
 *                      non-empty value read is the key it keeps, by
 *                      coherence), and the compare-and-swap, a
 *                      read-modify-write, reads the latest value.  The
 *                      lookups' own accesses need no other order: each
 *                      step depends on the value read before it
 *
 * Properties, each assert tagged with its letter in a comment on its line
 * (models/verify.sh reads the tag of the line a trail fails on):
 *   (a) one key is never in two slots: when a slot gets a key, no other
 *       slot holds it; and at the end, every lookup of one key that
 *       returned an id returned the same one;
 *   (b) ids are dense: the slots holding keys are a prefix 0..n-1 at every
 *       moment.  Only a claim changes the table and none empties a slot,
 *       so it is checked at each claim: every slot below it holds a key;
 *   (c) a claim is whole or absent, whenever its process dies: at the end
 *       every slot is empty or holds a whole key;
 *   (d) every lookup that returned gave an id whose slot holds its key, or
 *       LT_IDTAB_NONE when every slot holds another key (never, with room
 *       for every key, given (a));
 *   (e) no invalid end state (spin's default check): every lookup ends.
 */

#ifndef CAP
#define CAP	3		/* slots */
#endif
#define NP	3		/* claimer processes */
#define NL	(NP * 2)	/* lookups: claimer p's are 2p and 2p + 1 */
#define NK	3		/* keys: 1..NK */
#define UNSET	255		/* ghost: a lookup that has not returned */
#define NONE	254		/* LT_IDTAB_NONE */
#define HALF(k)	((k) + 8)	/* a key's first half alone in a slot */

/* The steps of a lookup. */
#define LOAD	0		/* the acquire load of slot I */
#define CAS	1		/* the claim of slot I, seen empty */
#define STORE	2		/* BUG_SPLIT_STORE: the second half */
#define DONE	3		/* both lookups returned */

#ifdef BUG_HASHED
#define START	(k % CAP)
#else
#define START	0
#endif
#define I	((START + n) % CAP)	/* the slot the scan is at */

byte slot[CAP];		/* the keys; 0: empty */
byte want[NL] = { 1, 2, 2, 1, 3, 1 };	/* the key each lookup wants */
byte got[NL] = UNSET;	/* ghost: the id each lookup returned, or NONE */
byte nfin;		/* claimers returned or dead */

/*
 * Slot x has just gone from empty to key k (or its first half): checks
 * (a) and (b) at the only steps that change the table.
 */
inline claimed(x)
{
	q = 0;
	do
	:: q < CAP ->
		assert(q == x || slot[q] != k);	/* (a) */
		assert(q >= x || slot[q] != 0);	/* (b) */
		q++
	:: else -> q = 0; break
	od
}

/* The lookup returns r (an id or NONE): on to the next one, or done. */
inline ret(r)
{
	got[j] = r;
	j++;
	n = 0;
	if
	:: j % 2 == 0 -> k = 0; ph = DONE
	:: else -> k = want[j]; ph = LOAD
	fi
}

/* The slot holds another key: on to the next one, or the table is full. */
inline next()
{
	n++;
	if
	:: n == CAP -> ret(NONE)
	:: else -> ph = LOAD
	fi
}

/*
 * lt_idtab_id() for want[2p] then want[2p + 1].  Locals: j the lookup,
 * k its key, n the slots scanned before the one it is at, ph its next
 * step, q the checks' index.
 */
proctype claimer(byte p)
{
	byte j = p * 2, k = want[p * 2], n, ph, q;

	do
	:: ph != DONE -> goto dead	/* killed before its next step */
	:: atomic { ph == LOAD ->
		if
		:: slot[I] == k -> ret(I)
		:: slot[I] == 0 -> ph = CAS
#ifdef WEAK
		/* a stale empty: the claim is not visible here yet */
		:: slot[I] != 0 -> ph = CAS
#endif
		:: else -> next()
		fi }
#ifdef BUG_PLAIN_STORE
	:: atomic { ph == CAS ->
		slot[I] = k;
		claimed(I);
		ret(I) }
#else
	:: atomic { ph == CAS ->
		if
		:: slot[I] == 0 ->
#ifdef BUG_SPLIT_STORE
			slot[I] = HALF(k);
			claimed(I);
			ph = STORE
#else
			slot[I] = k;
			claimed(I);
			ret(I)
#endif
#if defined(BUG_NO_RECHECK)
		:: else -> next()
#elif defined(BUG_RETURN_LOSER)
		:: else -> ret(I)
#else
		/* another process's claim: its key may be ours */
		:: slot[I] == k -> ret(I)
		:: slot[I] != 0 && slot[I] != k -> next()
#endif
		fi }
#endif
#ifdef BUG_SPLIT_STORE
	:: atomic { ph == STORE ->
		slot[I] = k;
		claimed(I);
		ret(I) }
#endif
	:: atomic { ph == DONE -> break }
	od;
dead:
	atomic { j = 0; k = 0; n = 0; ph = 0; nfin++ }
}

/*
 * Once every claimer has returned or died: the table and the ids, as any
 * process or the recorder would read them from then on.
 */
proctype checker()
{
	byte x, y, z;
	bit same, crowded, holds;

	nfin == NP;
	atomic {
		x = 0;
		do
		:: x < CAP ->
			/* a key whole, or nothing */
			assert(slot[x] <= NK);	/* (c) */
			x++
		:: else -> break
		od;
		x = 0;
		do
		:: x < NL ->
			y = 0;
			do
			:: y < NL ->
				/* one key, one id, for every process */
				same = got[x] >= NONE || got[y] >= NONE ||
				       want[x] != want[y] || got[x] == got[y];
				assert(same);	/* (a) */
				y++
			:: else -> break
			od;
			/* NONE: every slot holds another key */
			crowded = 1;
			z = 0;
			do
			:: z < CAP ->
				crowded = crowded && slot[z] != 0 && slot[z] != want[x];
				z++
			:: else -> break
			od;
			holds = got[x] == UNSET || got[x] == NONE && crowded ||
				got[x] < CAP && slot[got[x]] == want[x];
			assert(holds);	/* (d) */
			x++
		:: else -> break
		od
	}
}

init
{
	atomic {
		run claimer(0);
		run claimer(1);
		run claimer(2);
		run checker()
	}
}
