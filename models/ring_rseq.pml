/* SPDX-License-Identifier: MIT */
/*
 * ring_rseq.pml: model of one lowtrace per-CPU ring buffer on an rseq
 * channel (src/runtime/ring/ring.c, src/runtime/ring/ring.h, src/runtime/ring/rseq.h): a record
 * is copied and published by one restartable sequence on the CPU that
 * owns the buffer, with no locked instruction and no commit counters.
 *
 * Proctypes and the C functions they mirror:
 *   writer(nev, 0)  a thread on the buffer's CPU tracing nev events with
 *                   lt_ring_write_rseq: the inline fast path is the case
 *                   of an append that neither enters, switches nor fills;
 *                   every other case is lt_ring_write_rseq_slow; both end
 *                   in one sequence (lt_rseq_write4/8, lt_rseq_write_copy,
 *                   lt_rseq_publish)
 *   writer(1, 1)    the same for a signal handler nested on top of writer
 *                   1 (VICTIM), one event
 *   consumer        discard mode: lt_ring_get_subbuf + lt_ring_put_subbuf
 *                   from another CPU; one lt_ring_flush at any moment
 *                   while the writers run; once they are done, a final
 *                   lt_ring_flush and the drain
 *   snapshot        overwrite mode: lt_ring_snapshot from another CPU
 *   inline flush()  lt_ring_flush -> flush_rseq -> close_rseq: the
 *                   consumer's thread pins itself to the buffer's CPU and
 *                   closes the open sub-buffer with a sequence of its own
 *
 * The CPU.  Everything that writes the buffer runs on its CPU: writers 1
 * and 2, the handler, and the consumer's close.  They interleave by
 * preemption.  A sequence is: outside it, read offset (old) and decide;
 * inside it, check offset == old, copy region by region, and commit
 * offset = end with one store.  The kernel restarts a sequence that is
 * preempted, migrated or signalled.  epoch names the sequence in flight
 * on the CPU: the _pid of the process that started it, 0 when none.
 * Starting a sequence sets epoch = _pid.  This is "epoch++; mine = epoch"
 * with each epoch named by its owner: no other process can give epoch
 * back the value _pid, so epoch == _pid holds exactly as long as no other
 * sequence has started since ours, and the variable never wraps.  Every
 * step inside a sequence first tests epoch != _pid (restarted: read
 * offset again) and may also abort on its own (migrated).  The
 * consumer's get/put and the snapshot's copy run on another CPU: never
 * guarded.  (The model keeps one buffer: a thread that migrates restarts
 * on it; its record going to another CPU's buffer is not modelled.)
 *
 * Shared state as in the C code: offset (the free-running write position;
 * last_tsc, stored with it, is left out), consumed (discard mode), lost.
 * Data: cell[] holds each unit's data (generation * 2, + 1 on a record's
 * first unit); csize[] is the content_size of each slot's packet header
 * (written by the close fields, 0 in a header just opened).  Ghost: own[u]
 * is 1 while unit u was last written by a sequence that has not committed:
 * the stray bytes of an aborted sequence keep it until a committed
 * sequence writes the unit again.
 *
 * Switches (spin -D...):
 *   MODE_OVERWRITE   overwrite mode with snapshot; default discard mode
 *   NEV1, NEV2       events of writers 1 and 2 (default 2 and 1)
 *   WEAK             x86-TSO, the only target with rseq sequences: every
 *                    process keeps its loads in order, its stores in order
 *                    and its loads before its stores; a store may wait in
 *                    a store buffer past later loads.  The writers share
 *                    their CPU (one store buffer, read in order), so the
 *                    one store that another CPU may see late is the
 *                    consumer's put: a writer's drop check may read a
 *                    stale consumed, and drop.  No barrier is needed;
 *                    models/ring.pml checks the barriers a weakly-ordered
 *                    target needs (an aarch64 sequence would need a
 *                    release commit, as lt_ring_commit has)
 *   BUDGET=n         preemption budget, for the progress check (f): a
 *                    sequence start while another is in flight (which
 *                    aborts it), a migration abort, and a signal that
 *                    aborts writer 1's sequence cost one each; at 0 none
 *                    may happen (the scheduler lets a sequence of a few
 *                    instructions finish).  Without BUDGET: unbounded.
 *   BUG_NORESTART    no epoch guard: a preempted sequence goes on writing
 *                    and commits
 *   BUG_NOCMP        a sequence does not check offset == old
 *   BUG_NORECHECK    the snapshot keeps a copy without loading offset again
 *   BUG_CASRECHECK   the snapshot throws a copy away only if
 *                    offset > b + N*S, the test that is right for the
 *                    compare-and-swap ring (ring.pml), which
 *                    lt_ring_snapshot applied to rseq channels until
 *                    this model caught it
 *
 * Properties, each assert tagged with its letter in a comment on its line
 * (models/verify.sh reads the tag of the line a trail fails on):
 *   (a) every copy step and the commit of a sequence run while offset is
 *       still the old value it was checked against: nothing was published
 *       since, so the copy lands at or above the published offset (or in
 *       the close fields of the sub-buffer still open) and the commit
 *       moves offset on from old;
 *   (b) lt_ring_get_subbuf hands out a valid header and, up to its
 *       content size, only units last written by committed sequences in
 *       the sub-buffer's own generation;
 *   (c) a snapshot keeps no copy that holds, within its content size, a
 *       unit of another generation or of a sequence not committed;
 *   (d) discard mode, after the final flush and drain:
 *       lost + delivered == written;
 *   (e) no invalid end state (spin's default check);
 *   (f) progress label on every completed event, published or dropped: no
 *       non-progress cycle under a preemption budget (-DNP, ./pan -l).
 */

#define N	2		/* sub-buffers */
#define S	4		/* units per sub-buffer */
#define HDR	1		/* packet header, units */
#define NS	(N * S)
#define NW	3		/* writer processes, handler included */
#define VICTIM	1		/* _pid of the writer the handler interrupts */
#ifndef NEV1
#define NEV1	2		/* events of writer 1 */
#endif
#ifndef NEV2
#define NEV2	1		/* events of writer 2 */
#endif

#define SLOT(x)		(((x) / S) % N)
#define GEN(x)		((x) / NS)
#define UNIT(x)		((x) % NS)
#define BASE(x)		((x) - (x) % S)

byte offset;
byte lost;
byte epoch;		/* _pid of the sequence in flight on the CPU, or 0 */
byte cell[NS];		/* data: GEN * 2 + 1 on a record's first unit */
byte csize[N];		/* content_size of each slot's header, units */
bit own[NS];		/* ghost: last written by an uncommitted sequence */
bit in_handler;		/* the handler runs on top of VICTIM */
byte nfin;		/* writers finished */
bit vdone;		/* VICTIM finished */
#ifndef MODE_OVERWRITE
byte consumed;
byte written;		/* ghost: events attempted */
byte delivered;		/* ghost: records read by the consumer */
#define COUNT_WRITTEN	written++
#else
#define COUNT_WRITTEN	skip
#endif

#ifdef BUDGET
byte budget = BUDGET;
/* a start while a sequence is in flight aborts it: that costs one */
#define MAY_START	(epoch == 0 || budget > 0)
#define CHARGE_START	if :: epoch != 0 -> budget-- :: else fi
#define MAY_MIGRATE	(budget > 0)
#define CHARGE		budget--
#else
#define MAY_START	true
#define CHARGE_START	skip
#define MAY_MIGRATE	true
#define CHARGE		skip
#endif

/*
 * One atomic step of a process on the buffer's CPU, enabled when g holds.
 * The interrupted writer takes no step while the handler runs.
 */
#define CPU_STEP(g, x)	atomic { (!in_handler || _pid != VICTIM) && (g) -> x }

/* The guard of a step of a sequence: it may start, or it is in flight. */
#define SEQ_READY	(ok || offset != old || MAY_START)

/*
 * The first part of every step of a sequence (ok = 1: in flight).  Not in
 * flight: the start (label 1 of rseq.h) and its check offset == old (jnz
 * 4f when offset moved since it was read).  In flight: restarted (another
 * sequence began on this CPU since ours: the kernel sent us to the abort
 * handler), migrated (an abort of its own), or on.  On an abort the C code
 * goes round its loop and reads offset again: again.  The start and the
 * check are one step with the first copy: a preemption between them
 * aborts with nothing written, as a preemption before the start does.
 */
#ifdef BUG_NOCMP
#define SEQ_CHECK	true
#else
#define SEQ_CHECK	offset == old
#endif
#ifdef BUG_NORESTART
#define SEQ_ENTER(again)						\
	if								\
	:: !ok && !(SEQ_CHECK) -> again					\
	:: !ok && (SEQ_CHECK) -> CHARGE_START; epoch = _pid; ok = 1	\
	:: ok -> skip							\
	fi
#else
#define SEQ_ENTER(again)						\
	if								\
	:: !ok && !(SEQ_CHECK) -> again					\
	:: !ok && (SEQ_CHECK) -> CHARGE_START; epoch = _pid; ok = 1	\
	:: ok && epoch != _pid -> ok = 0; again				\
	:: ok && epoch == _pid && MAY_MIGRATE ->			\
		CHARGE; epoch = 0; ok = 0; again			\
	:: ok && epoch == _pid -> skip					\
	fi
#endif

/* A copy step of a sequence: unit x gets value v, and if it is a header,
 * content size c (255: not a header). */
inline put(x, v, c)
{
	/* nothing published since the check: x is at or above the
	 * published offset, or the close fields of the open sub-buffer */
	assert(offset == old);		/* (a) */
	cell[UNIT(x)] = v;
	own[UNIT(x)] = 1;
	if
	:: c != 255 -> csize[SLOT(x)] = c
	:: else
	fi
}

/* The commit: one 16-byte store of (offset, last_tsc), the last
 * instruction of the sequence. */
inline commit(to)
{
	assert(offset == old);		/* (a) */
	offset = to;
	epoch = 0
}

/*
 * Read offset and decide where a record of sz units goes, as
 * lt_ring_write_rseq_slow does with lt_ring_place() (the inline fast path
 * of lt_ring_write_rseq, lt_ring_try_compact(), is the case !enter &&
 * !fill): enter a sub-buffer at
 * its start, or switch to the next one when the record does not fit
 * (close this one: the rest is padding), or append; fill: the record ends
 * exactly at the boundary and closes its own sub-buffer.  Then the first
 * copy region: ph 0 the close fields of the old sub-buffer (switch), ph 1
 * the new packet header (enter), ph 2 the record (event header and
 * payload), ph 3 its own close fields (fill), ph 4 the commit.
 */
inline decide()
{
	old = offset;
	enter = (old % S == 0);
	sw = 0;
	if
	:: !enter && old % S + sz > S ->
		sw = 1; enter = 1; begin = BASE(old) + S
	:: else -> begin = old
	fi;
	end = begin + enter * HDR + sz;
	fill = (end % S == 0);
	ok = 0;
#ifndef MODE_OVERWRITE
	chk = enter;	/* the drop check comes first */
#endif
	if
	:: sw -> ph = 0
	:: !sw && enter -> ph = 1
	:: else -> ph = 2
	fi
}

/* The copy step of region ph, then on to the next region. */
inline copy_step()
{
	if
	:: ph == 0 -> put(BASE(old), GEN(old) * 2, old % S); ph = 1
	:: ph == 1 -> put(begin, GEN(begin) * 2, 0); ph = 2
	:: ph == 2 ->
		/* the record's units in one step */
		put(end - sz, GEN(end - sz) * 2 + 1, 255);
		if
		:: sz == 2 -> put(end - 1, GEN(end - 1) * 2, 255)
		:: else
		fi;
		ph = 3
	:: ph == 3 -> put(end - S, GEN(end - S) * 2, S); ph = 4
	fi;
	if
	:: ph == 3 && !fill -> ph = 4
	:: else
	fi
}

/* Ghost, with the commit: what this sequence wrote is published. */
inline published()
{
	if
	:: sw -> own[UNIT(BASE(old))] = 0
	:: else
	fi;
	u = begin;
	do
	:: u < end -> own[UNIT(u)] = 0; u++
	:: else -> break
	od;
	if
	:: fill -> own[UNIT(end - S)] = 0
	:: else
	fi
}

/* Forget the locals of a finished event: fewer distinct states. */
#define RESET	old = 0; begin = 0; end = 0; u = 0; ph = 0; \
		enter = 0; sw = 0; fill = 0; ok = 0; chk = 0

/*
 * One event of sz units, lt_ring_write_rseq / lt_ring_write_rseq_slow,
 * after its first decide(): the discard-mode drop, the sequence, and a
 * restart whenever it aborts.  Ends with the event published or dropped.
 */
inline event()
{
	do
#ifndef MODE_OVERWRITE
	:: CPU_STEP(chk,
		/* the drop, counted lost, when the next sub-buffer is not
		 * consumed yet (acquire load of consumed) */
		if
		:: begin + S - consumed > NS -> lost++; RESET; break
#ifdef WEAK
		/* a stale consumed: the consumer's put still in its store
		 * buffer (the only reordering x86-TSO makes here) */
		:: begin + S - consumed <= NS && consumed >= S ->
			lost++; RESET; break
#endif
		:: else -> chk = 0
		fi)
#endif
	:: CPU_STEP(!chk && SEQ_READY,
		SEQ_ENTER(ph = 5);
		if
		:: ph == 5 -> decide()
		:: ph == 4 -> commit(end); published(); RESET; break
		:: else -> copy_step()
		fi)
	od
}

/*
 * lt_ring_flush on an rseq channel (flush_rseq, close_rseq), after its
 * first load of offset into old: on the buffer's CPU, close the open
 * sub-buffer, if any, with a sequence that writes the close fields of its
 * header and commits offset = the next sub-buffer's start.
 */
inline flush()
{
	do
	:: atomic { old % S == 0 -> old = 0; break }	/* none open */
	:: CPU_STEP(old % S != 0 && SEQ_READY,
		SEQ_ENTER(ph = 5);
		if
		:: ph == 5 -> old = offset; ph = 0
		:: ph == 0 -> put(BASE(old), GEN(old) * 2, old % S); ph = 4
		:: ph == 4 ->
			commit(BASE(old) + S);
			own[UNIT(BASE(old))] = 0;
			old = 0; ok = 0; ph = 0;
			break
		fi)
	od
}

/*
 * A thread on the buffer's CPU tracing nev events, or (sig) the signal
 * handler nested on top of writer VICTIM, tracing one: it fires at most
 * once, between any two of VICTIM's steps, and runs to completion before
 * VICTIM resumes; its delivery restarts VICTIM's sequence if one is in
 * flight.
 */
proctype writer(byte nev; bit sig)
{
	byte old, begin, end, u, ph, sz;
	bit enter, sw, fill, ok, chk;

	do
	:: CPU_STEP(nev > 0 &&
		    (!sig || !vdone && (epoch != VICTIM || MAY_MIGRATE)),
		if
		:: sig ->
			if
			:: epoch == VICTIM -> CHARGE; epoch = 0
			:: else
			fi;
			in_handler = 1
		:: else
		fi;
		if
		:: sz = 1
		:: sz = 2
		fi;
		COUNT_WRITTEN;
		decide());
		event();
progress_event:
		CPU_STEP(true, nev--; sz = 0)
	:: CPU_STEP(nev == 0 || sig && vdone,	/* a handler may never fire */
		if
		:: sig -> in_handler = 0
		:: else
		fi;
		nfin++;
		vdone = vdone | (_pid == VICTIM);
		break)
	od
}

#ifndef MODE_OVERWRITE

/*
 * lt_ring_get_subbuf (subbuf_complete: offset past the sub-buffer's end,
 * acquire; then the header's content_size), the read of the packet up to
 * its content size, and lt_ring_put_subbuf (release), as one step from
 * another CPU.  No writer may write the slot before the put (the drop
 * check reads consumed), so splitting the step would only delay writers.
 */
inline get_read_put()
{
	atomic {
		offset >= consumed + S ->
		clen = csize[SLOT(consumed)];
		assert(clen > HDR && clen <= S);	/* (b) */
		u = consumed;
		do
		:: u < consumed + clen ->
			assert(own[UNIT(u)] == 0 && cell[UNIT(u)] / 2 == GEN(u)); /* (b) */
			delivered = delivered + (cell[UNIT(u)] & 1);
			u++
		:: else -> break
		od;
		consumed = consumed + S;
		u = 0; clen = 0
	}
}

/*
 * Discard-mode consumer, a thread on another CPU that moves to the
 * buffer's CPU for its flushes: lt_ring_get_subbuf + lt_ring_put_subbuf
 * while the writers run, one lt_ring_flush at any moment among them (a
 * periodic flush), and once the writers are done, a final lt_ring_flush
 * and the drain.
 */
proctype consumer()
{
	byte old, u, ph, clen;
	bit ok, flushed, final;

	do
	:: get_read_put()
	:: atomic { !final && (nfin == NW || !flushed) ->
		final = (nfin == NW);
		flushed = 1;
		old = offset };
		flush()
	:: atomic { final && consumed >= offset -> break }
	od;
	/* every event is either delivered or counted as lost */
	assert(lost + delivered == written)	/* (d) */
}

#else

/*
 * The re-check of a copy of sub-buffer b.  A sequence writes before it
 * moves offset, and no further than the end of the sub-buffer after the
 * one offset is in (a switch writes the next packet header and its
 * record there).  So slot b's next generation may hold a writer's bytes,
 * committed, in flight or stray, once offset is past b + (N-1)*S.
 * lt_ring_snapshot tests offset > b + N*S (BUG_CASRECHECK), which is
 * right only when writers move offset first, as on a CAS channel.
 */
#ifdef BUG_CASRECHECK
#define STALE(b)	(offset > (b) + NS)
#else
#define STALE(b)	(offset > (b) + NS - S)
#endif

/*
 * Overwrite-mode consumer: one lt_ring_snapshot, at any moment relative
 * to the writers.  Its flush runs on the buffer's CPU, the rest on
 * another CPU.
 */
proctype snapshot()
{
	byte old, u, ph, cur, b, k, clen, bad;
	bit ok, dirty, hok;

	old = offset;
	flush();
	atomic { cur = BASE(offset); k = 1 }
	do
	:: atomic { k <= N && cur >= k * S ->
		b = cur - k * S;
		/* complete: offset >= cur >= b + S.  racy_copy, one unit per
		 * step, the header first */
		hok = (cell[UNIT(b)] / 2 == GEN(b));
		clen = csize[SLOT(b)];
		dirty = own[UNIT(b)];
		u = b + 1 }
		do
		:: atomic { u < b + clen ->
			dirty = dirty | own[UNIT(u)];
			bad = bad + (cell[UNIT(u)] / 2 != GEN(b));
			u++ }
		:: atomic { u >= b + clen -> break }
		od;
		atomic {
#ifndef BUG_NORECHECK
			/* load offset again (after the acquire fence) */
			if
			:: STALE(b) -> break
			:: else
			fi;
#endif
			/* the copy's header: magic, content_size,
			 * packet_seq_num */
			if
			:: !hok || clen < HDR || clen > S -> break
			:: else
			fi;
			/* a kept copy: committed data of its own generation */
			assert(!dirty && bad == 0);	/* (c) */
			u = 0; b = 0; clen = 0; dirty = 0; bad = 0; hok = 0;
			k++ }
	:: atomic { !(k <= N && cur >= k * S) -> break }
	od
}

#endif

init
{
	atomic {
		run writer(NEV1, 0);	/* _pid 1 == VICTIM */
		run writer(NEV2, 0);
		run writer(1, 1);	/* the handler */
#ifdef MODE_OVERWRITE
		run snapshot()
#else
		run consumer()
#endif
	}
}
