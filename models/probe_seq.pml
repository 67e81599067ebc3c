/* SPDX-License-Identifier: MIT */
/*
 * probe_seq.pml: model of the one-sequence path of lt_probe_emit_words8/4
 * (src/runtime/probe/probe_x86_64.S) and of the reclamation of what it reads,
 * lt_probe_sync()'s membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ)
 * (src/runtime/probe/probe.c, the registry's free_retired() and a session's ring
 * destruction after it).
 *
 * The call site's inline sequence (include/lowtrace/tp_seq.h) is the same
 * path from the descriptor's seq field (the ring alone), which the
 * registry publishes and clears with the list: list below stands for
 * either pointer, and obj for what it names.
 *
 * The path starts its restartable sequence before it reads anything: the
 * event's target list (here: obj, the list and its ring as one object),
 * then the CPU's write offset, then it writes the record and commits the
 * new offset.  It has no RCU read-side section and no offset comparison:
 * both rest on the kernel restarting the sequence.
 *
 * Proctypes and what they mirror:
 *   writer       a thread tracing one event with the sequence: _pid 0 and
 *                1 on CPU 0 (they interleave by preemption), 2 on CPU 1.
 *                A restarted sequence goes to the general path
 *                (lt_probe__words_slow, under RCU: not modelled), which
 *                ends the event here.
 *   updater      the registry replacing the event's list (a session that
 *                stops or changes its rules): publish the new one, then
 *                lt_probe_sync(), then free the old one (its ring unmapped).
 *
 * The kernel: a sequence is restarted when another sequence starts on its
 * CPU (the preemption that let it run), and when membarrier's IPI reaches
 * its CPU.  Each step of a sequence first tests whether it was restarted:
 * the kernel sends a thread to the abort handler before it executes any
 * further instruction of the sequence.  membarrier visits each thread in
 * turn; the visit is one atomic step (the IPI has completed before the
 * system call returns), and marks a thread inside a sequence restarted.
 * A thread preempted inside a sequence was restarted by its preemption.
 *
 * Switches (spin -D...):
 *   DISABLE            the updater publishes no list (the event disabled)
 *                      instead of a new one
 *   BUG_NOMEMBARRIER   lt_probe_sync() without the membarrier call
 *   BUG_MB_FIRST       the membarrier before the new list is published
 *   BUG_READ_OUTSIDE   the list read before the sequence starts
 *   BUG_OFFSET_OUTSIDE the offset read before the sequence starts, with no
 *                      comparison inside it (the C sequences compare)
 *   WEAK               weak memory (ARMv8, POWER): the updater's stores may
 *                      be performed out of order unless a barrier orders
 *                      them: the list's contents, the release store of its
 *                      address, membarrier (a full barrier), the free.  A
 *                      writer's accesses keep their order without one:
 *                      each loads through the address it loaded before
 *                      (address dependencies), its stores depend on its
 *                      loads, and its rseq_cs store is seen by the kernel
 *                      on its own CPU
 *   BUG_RELAXED_PUBLISH (with WEAK) the list's address stored without
 *                      release (publish_desc): the list's contents may
 *                      land after it
 *
 * Properties, each assert tagged with its letter in a comment on its line
 * (models/verify.sh reads the tag of the line a trail fails on):
 *   (u) no step of a sequence reads or writes a freed list or ring;
 *   (a) a record is written and committed at the offset its sequence read,
 *       nothing having been published on that CPU since;
 *   (i) a list a sequence reads is initialised;
 *   (e) no invalid end state (spin's default check).
 */

#define NW	3	/* writers, _pid 0 and 1 on CPU 0, 2 on CPU 1 */
#define NOBJ	3	/* 0: no list; 1: the first; 2: its replacement */

byte list = 1;		/* the event descriptor's targets pointer */
bit live[NOBJ] = 1;	/* 1 while the object is allocated and mapped */
bit init2;		/* 1 once the replacement's contents are written (the
			 * first list's were, before the writers ran) */
byte off[2];		/* each CPU's write offset */
byte epoch[2];		/* _pid + 1 of the sequence in flight on a CPU, or 0 */
bit in_seq[NW];		/* by _pid: inside a sequence */
bit restarted[NW];	/* by _pid: sent to its abort handler */

/* Restarted: by membarrier, or by another sequence started on its CPU. */
#define GONE	(restarted[_pid] || epoch[cpu] != _pid + 1)

/* The abort, as the first choice of each step of the sequence. */
#define ABORT	GONE -> in_seq[_pid] = 0; goto general

active [NW] proctype writer()
{
	byte cpu = (_pid < 2 -> 0 : 1);
	byte p, o;
#ifdef BUG_READ_OUTSIDE
	p = list;
#endif
#ifdef BUG_OFFSET_OUTSIDE
	o = off[cpu];
#endif
	/* the store to rseq_cs: the sequence starts, and restarts any other
	 * in flight on this CPU (it was preempted for this one to run) */
	atomic {
		epoch[cpu] = _pid + 1;
		in_seq[_pid] = 1;
		restarted[_pid] = 0
	};
#ifndef BUG_READ_OUTSIDE
	atomic { if :: ABORT :: else -> p = list fi };
#endif
	if
	:: p == 0 ->
		/* disabled since the call site looked */
		atomic { in_seq[_pid] = 0; epoch[cpu] = 0 };
		goto finish
	:: else
	fi;
	/* the list's ring, its CPU table and control block, the offset */
	atomic {
		if
		:: ABORT
		:: else ->
			assert(live[p]);	/* (u) */
			assert(p != 2 || init2);	/* (i) */
#ifndef BUG_OFFSET_OUTSIDE
			o = off[cpu]
#else
			skip
#endif
		fi
	};
	/* the record's stores */
	atomic {
		if
		:: ABORT
		:: else ->
			assert(live[p]);	/* (u) */
			assert(off[cpu] == o)	/* (a) */
		fi
	};
	/* the commit: one 16-byte store of (offset, timestamp) */
	atomic {
		if
		:: ABORT
		:: else ->
			assert(live[p]);	/* (u) */
			assert(off[cpu] == o);	/* (a) */
			off[cpu] = o + 1;
			in_seq[_pid] = 0;
			epoch[cpu] = 0
		fi
	};
	goto finish;
general:
	/* lt_probe__words_slow(): RCU, not modelled */
	skip;
finish:
	atomic { p = 0; o = 0 }
}

/* The IPI of membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ). */
inline membarrier()
{
	i = 0;
	do
	:: i < NW ->
		atomic {
			if
			:: in_seq[i] -> restarted[i] = 1
			:: else
			fi;
			i++
		}
	:: else -> break
	od;
	i = 0
}

#ifdef DISABLE
#define NEWLIST	0
#else
#define NEWLIST	2
#endif

active proctype updater()
{
	byte i;
#ifdef BUG_MB_FIRST
	membarrier();
	init2 = 1;
	list = NEWLIST;
#else
	/* the new list's contents (build_targets), then the release store
	 * of its address (publish_desc) */
#if defined(WEAK) && defined(BUG_RELAXED_PUBLISH)
	if
	:: init2 = 1; list = NEWLIST
	:: list = NEWLIST; init2 = 1
	fi;
#else
	init2 = 1;
	list = NEWLIST;
#endif
#ifndef BUG_NOMEMBARRIER
	membarrier();
#endif
#endif
	/* free_retired(): the old list and, once the session is gone, its
	 * ring */
	live[1] = 0
}

