/* SPDX-License-Identifier: MIT */
/*
 * ring.pml: model of one lowtrace per-CPU ring buffer (src/runtime/ring/ring.c, ring_consume.c).
 *
 * Proctypes and the C functions they mirror:
 *   writer    lt_ring_reserve + lt_ring_commit, called by a thread
 *   handler   lt_ring_reserve + lt_ring_commit, called by a signal handler
 *             nested on top of writer 1
 *   (lt_ring_write is the same steps: its inline short path is the
 *   no-switch, no-close branch of event() with the CAS succeeding at once,
 *   and anything else runs lt_ring_reserve + lt_ring_commit)
 *   consumer  discard mode: lt_ring_get_subbuf, lt_ring_put_subbuf, and a
 *             final lt_ring_flush once the writers are done
 *   snapshot  overwrite mode: lt_ring_snapshot, which calls lt_ring_flush
 *
 * Shared state as in the C code: offset (free-running write position),
 * consumed (discard mode read position), commit[N] (free-running committed
 * byte count per slot), lost.  Ghost state for the properties: own[] holds
 * the id of the writer that reserved a unit and has not yet committed it,
 * cell[] is the data of each unit (generation tag * 2 + record start bit).
 *
 * Switches (spin -D...):
 *   MODE_OVERWRITE      overwrite mode with snapshot; default discard mode
 *   BUG_NOCAS           plain load + store of offset instead of the CAS
 *   BUG_NOCOMMITCHECK   lt_ring_get_subbuf trusts offset instead of commit[]
 *   BUG_NORECHECK       snapshot keeps a copy without re-loading offset
 *   BUG_WAIT            discard-mode reserve waits for space, not drops
 *
 * Properties, each assert tagged with its letter in a comment on its line
 * (models/verify.sh reads the tag of the line a trail fails on):
 *   (a) a unit is free when a reservation claims it;
 *   (b) lt_ring_get_subbuf hands out no reserved-but-uncommitted unit,
 *       and only data of the sub-buffer's own generation;
 *   (c) a snapshot keeps no copy that a writer touched while it was read;
 *   (d) discard mode, after the final flush and drain:
 *       lost + delivered == written;
 *   (e) no invalid end state (spin's default check);
 *   (f) progress label on every completed lt_ring_reserve, success or
 *       drop: no non-progress cycle (-DNP, ./pan -l).
 */

#define N	2		/* sub-buffers */
#define S	4		/* units per sub-buffer */
#define HDR	1		/* sub-buffer header, units */
#define NS	(N * S)
#define NW	3		/* writer processes, handler included */
#define VICTIM	1		/* _pid of the writer the handler interrupts */
#ifndef NEV1
#define NEV1	2		/* events of writer 1 */
#endif
#ifndef NEV2
#define NEV2	2		/* events of writer 2 */
#endif

#define SLOT(x)		(((x) / S) % N)
#define GEN(x)		((x) / NS)
#define UNIT(x)		((x) % NS)
#define READY(b)	(commit[SLOT(b)] == (GEN(b) + 1) * S)

byte offset;
byte consumed;
byte commit[N];
byte lost;

byte own[NS];		/* ghost: owner of a reserved, uncommitted unit */
byte cell[NS];		/* data: GEN * 2 + 1 on a record's first unit */
bit in_handler;		/* the handler runs on top of VICTIM */
#ifndef MODE_OVERWRITE
byte written;		/* ghost: events attempted */
byte delivered;		/* ghost: records read by the consumer */
#define COUNT_WRITTEN	written++
#else
#define COUNT_WRITTEN	skip
#endif
byte nfin;		/* writers finished */
bit vdone;		/* VICTIM finished */

/*
 * One atomic step of a writer.  The interrupted writer cannot take a step
 * while the handler runs; everyone else can.
 */
#define STEP(x)	atomic { (!in_handler || _pid != VICTIM) -> x }

/* Claim units [from, to) for id: ghost part of a successful CAS. */
inline claim(from, to, id)
{
	u = from;
	do
	:: u < to -> assert(own[UNIT(u)] == 0);	/* (a) */
		own[UNIT(u)] = id; u++
	:: else -> break
	od;
	u = 0
}

/* Write the tag of units [from, to) and give them up. */
inline fill(from, to, first)
{
	u = from;
	do
	:: u < to ->
		cell[UNIT(u)] = GEN(u) * 2 + (u == first);
		own[UNIT(u)] = 0;
		u++
	:: else -> break
	od;
	u = 0
}

/* Where a record of sz units goes when offset is old: lt_ring_place()
 * (src/runtime/ring/record.h). */
inline place(old, sz)
{
	if
	:: old % S == 0 ->
		begin = old; rlen = HDR + sz; enter = 1
	:: old % S != 0 && old % S + sz > S ->
		begin = old - old % S + S; rlen = HDR + sz; enter = 1
	:: else ->
		begin = old; rlen = sz; enter = 0
	fi;
	pad = begin - old
}

/* Forget the locals of a finished event: fewer distinct states. */
#define RESET	old = 0; begin = 0; rlen = 0; pad = 0; u = 0; sz = 0; \
		enter = 0; free = 0; ok = 0

/* lt_ring_reserve, then lt_ring_commit: one event of sz units. */
inline event(id, sz)
{
	STEP(COUNT_WRITTEN; old = offset; place(old, sz));
	do
	::
		if
		:: enter ->
#ifdef MODE_OVERWRITE
			STEP(free = (commit[SLOT(begin)] == GEN(begin) * S))
#else
			STEP(free = (begin + S - consumed <= NS))
#ifdef BUG_WAIT
			if
			:: !free -> goto retry
			:: else
			fi
#endif
#endif
			if
			:: !free -> STEP(lost++); ok = 0; break
			:: else
			fi
		:: else
		fi;
#ifdef BUG_NOCAS
		STEP(offset = begin + rlen; claim(old, begin + rlen, id));
		ok = 1;
		break;
#else
		STEP(
			if
			:: offset == old ->
				offset = begin + rlen;
				claim(old, begin + rlen, id);
				ok = 1
			:: else ->
				/* fails only if another reservation or a flush
				 * moved offset since our load: lock-free */
				old = offset; place(old, sz);
				ok = 0
			fi);
		if
		:: ok -> break
		:: else
		fi
#endif
#ifdef BUG_WAIT
retry:
		STEP(old = offset; place(old, sz))
#endif
	od;
progress_reserved:
	if
	:: ok ->
		if
		:: pad > 0 ->
			/* close the old sub-buffer: commit its padding */
			STEP(fill(old, begin, 255); commit[SLOT(old)] = commit[SLOT(old)] + pad)
		:: else
		fi;
		/* write the record, then commit it with release order */
		STEP(u = begin;
		     do
		     :: u < begin + rlen ->
			cell[UNIT(u)] = GEN(u) * 2 + (u == begin + rlen - sz); u++
		     :: else -> break
		     od;
		     u = 0);
		STEP(fill(begin, begin + rlen, begin + rlen - sz);
		     commit[SLOT(begin)] = commit[SLOT(begin)] + rlen;
		     RESET)
	:: else -> RESET
	fi
}

/* lt_ring_flush: close the open sub-buffer, if any. */
inline flush()
{
	do
	:: atomic {
		old = offset;
		if
		:: old % S == 0 -> ok = 0; break
		:: else -> begin = old - old % S + S
		fi }
		atomic {
		if
		:: offset == old ->
			offset = begin; claim(old, begin, 255); ok = 1; break
		:: else
		fi }
	od;
	if
	:: ok -> atomic { fill(old, begin, 255);
			  commit[SLOT(old)] = commit[SLOT(old)] + begin - old }
	:: else
	fi;
	old = 0; begin = 0; ok = 0
}

/* A thread tracing nev events: lt_ring_reserve + lt_ring_commit each. */
proctype writer(byte id; byte nev)
{
	byte old, begin, rlen, pad, u, sz;
	bit enter, free, ok;

	do
	:: nev > 0 ->
		if
		:: sz = 1
		:: sz = 2
		fi;
		event(id, sz);
		nev--
	:: else -> break
	od;
	STEP(nfin++; vdone = vdone | (_pid == VICTIM))
}

/* Signal handler on top of writer VICTIM, tracing one event with
 * lt_ring_reserve + lt_ring_commit: fires at most once, between any two of
 * VICTIM's steps, and runs to completion before VICTIM resumes. */
proctype handler(byte id)
{
	byte old, begin, rlen, pad, u, sz;
	bit enter, free, ok;

	if
	:: atomic { !vdone -> in_handler = 1 };
		if
		:: sz = 1
		:: sz = 2
		fi;
		event(id, sz);
		in_handler = 0
	:: skip
	fi;
	nfin++
}

#ifndef MODE_OVERWRITE

/* Read sub-buffer at consumed, count its records, hand it back. */
inline read_subbuf()
{
	u = consumed;
	do
	:: u < consumed + S ->
		atomic {
			assert(own[UNIT(u)] == 0);		/* (b) */
			assert(cell[UNIT(u)] / 2 == GEN(u));	/* (b) */
			delivered = delivered + (cell[UNIT(u)] & 1)
		}
		u++
	:: else -> break
	od;
	consumed = consumed + S;	/* lt_ring_put_subbuf: release */
	u = 0
}

#ifdef BUG_NOCOMMITCHECK
#define GET_OK	(offset >= consumed + S)
#else
#define GET_OK	READY(consumed)
#endif

/* Discard-mode consumer: lt_ring_get_subbuf + lt_ring_put_subbuf while
 * the writers run; lt_ring_flush and a drain once they are done. */
proctype consumer()
{
	byte old, begin, u;
	bit ok;

	do
	:: atomic { GET_OK -> skip }	/* lt_ring_get_subbuf: acquire */
		read_subbuf()
	:: atomic { nfin == NW -> break }
	od;
	flush();
	do
	:: consumed < offset ->
		assert(READY(consumed));	/* (d) */
		read_subbuf()
	:: else -> break
	od;
	/* (d): every event is either delivered or counted as lost */
	assert(lost + delivered == written)	/* (d) */
}

#else

/* Overwrite-mode consumer: one lt_ring_snapshot (with its lt_ring_flush),
 * at any moment relative to the writers. */
proctype snapshot()
{
	byte old, begin, u, e, cur, b, k, bad;
	bit ok, dirty;

	flush();
	e = offset;
	cur = e - e % S;
	k = 1;
	do
	:: k <= N && cur >= k * S ->
		b = cur - k * S;
		if
		:: atomic { !READY(b) -> break }	/* acquire */
		:: else
		fi;
		/* copy, racing with writers */
		dirty = 0;
		bad = 0;
		u = b;
		do
		:: u < b + S ->
			atomic {
				dirty = dirty | (own[UNIT(u)] != 0);
				bad = bad + (cell[UNIT(u)] / 2 != GEN(b))
			}
			u++
		:: else -> break
		od;
#ifndef BUG_NORECHECK
		if
		:: atomic { offset > b + NS -> break }	/* overwritten */
		:: else
		fi;
#endif
		/* a kept copy: committed data of its own generation only */
		assert(!dirty && bad == 0);	/* (c) */
		u = 0; b = 0; dirty = 0; bad = 0;
		k++
	:: else -> break
	od
}

#endif

init
{
	atomic {
		run writer(1, NEV1);	/* _pid 1 == VICTIM */
		run writer(2, NEV2);
		run handler(3);
#ifdef MODE_OVERWRITE
		run snapshot()
#else
		run consumer()
#endif
	}
}
