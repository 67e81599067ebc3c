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
 *   WEAK                weak memory (ARMv8, POWER): each process's loads and
 *                       stores may be performed out of program order unless
 *                       a barrier of the C code forbids it (see below)
 *   With WEAK, each removes one barrier that aarch64 needs:
 *   BUG_RELAXED_COMMIT  the commit adds of lt_ring_commit and
 *                       lt_ring_close_subbuf without release: the record's
 *                       (or padding's) stores may land after the count
 *   BUG_RELAXED_GET     lt_ring_get_subbuf's load of commit[] without
 *                       acquire: the consumer's reads may come before it
 *   BUG_RELAXED_PUT     lt_ring_put_subbuf's store of consumed without
 *                       release: the consumer's reads may come after it
 *   BUG_RELAXED_READY   lt_ring_snapshot's load of commit[] without
 *                       acquire: the copy's loads may come before it
 *   BUG_NOFENCE         lt_ring_snapshot without its acquire fence between
 *                       the copy and the re-load of offset
 *   BUG_RELAXED_CAS     the writers' CAS of offset without its full
 *                       barrier: a record's stores may be seen before the
 *                       offset that claimed them
 *
 * Weak memory (WEAK).  A writer's accesses are: the load of offset, the
 * free check's load (consumed or commit[]), the CAS (a full barrier,
 * __sync), the padding's and record's stores, the release commit add.
 * Loads before the CAS may be performed in any order and may read stale
 * values; the counters only grow, so a stale free check can only fail:
 * the model lets any free check fail (a drop the SC model would not
 * make).  Stores after the CAS come after it (full barrier), and before
 * the release add.  The consumer's reads of a sub-buffer's units are
 * performed in any order, after the acquire load of commit[] and before
 * the release store of consumed.  The snapshot's copy loads, in any
 * order, come after its acquire load of commit[] and before its acquire
 * fence; its re-load of offset then reads any value of offset not older
 * than the newest it must see: the one it loaded first (e), and, since
 * the writers' CAS is a full barrier and the fence orders the copy first,
 * every offset whose claim wrote a unit it copied (vofs[], ghost).  A
 * bug above lifts exactly the order its barrier gives.  Each record's
 * stores are one step (they are all ordered the same way against every
 * barrier).  The progress checks (-DNP) stay sequentially consistent.
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
#define ALLS	((1 << S) - 1)	/* every unit of a sub-buffer */
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
#if defined(WEAK) && defined(MODE_OVERWRITE)
byte vofs[NS];		/* ghost: the offset of the claim that wrote the unit */
#define SETV(u, v)	vofs[UNIT(u)] = (v)
#else
#define SETV(u, v)	skip
#endif
byte cell[NS] = 254;	/* data: GEN * 2 + 1 on a record's first unit;
			 * 254 (generation 127): never written */
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

/* The stores alone: write the tag of units [from, to), claimed by the
 * CAS that moved offset to v. */
inline tag(from, to, first, v)
{
	u = from;
	do
	:: u < to ->
		cell[UNIT(u)] = GEN(u) * 2 + (u == first);
		SETV(u, v);
		u++
	:: else -> break
	od;
	u = 0
}

/* The commit alone: give units [from, to) up (ghost). */
inline unown(from, to)
{
	u = from;
	do
	:: u < to -> own[UNIT(u)] = 0; u++
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
#endif
#ifdef WEAK
			/* a stale value of the counter: the check fails */
			if
			:: free -> free = 0
			:: skip
			fi
#endif
#ifndef MODE_OVERWRITE
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
#if defined(WEAK) && defined(BUG_RELAXED_COMMIT)
			if
			:: STEP(tag(old, begin, 255, begin + rlen); unown(old, begin);
				commit[SLOT(old)] = commit[SLOT(old)] + pad)
			:: STEP(unown(old, begin); commit[SLOT(old)] = commit[SLOT(old)] + pad);
				STEP(tag(old, begin, 255, begin + rlen))
			fi
#else
			STEP(tag(old, begin, 255, begin + rlen); unown(old, begin);
			     commit[SLOT(old)] = commit[SLOT(old)] + pad)
#endif
		:: else
		fi;
		/* write the record, then commit it with release order */
#if defined(WEAK) && defined(BUG_RELAXED_COMMIT)
		if
		:: skip
		:: /* the count lands before the record's stores */
			STEP(unown(begin, begin + rlen);
			     commit[SLOT(begin)] = commit[SLOT(begin)] + rlen);
			ok = 0
		fi;
#endif
		STEP(tag(begin, begin + rlen, begin + rlen - sz, begin + rlen));
#if defined(WEAK) && defined(BUG_RELAXED_COMMIT)
		if
		:: !ok -> STEP(RESET)
		:: else ->
#endif
		STEP(fill(begin, begin + rlen, begin + rlen - sz);
		     commit[SLOT(begin)] = commit[SLOT(begin)] + rlen;
		     RESET)
#if defined(WEAK) && defined(BUG_RELAXED_COMMIT)
		fi
#endif
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
	:: ok -> atomic { tag(old, begin, 255, begin); unown(old, begin);
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

/*
 * The consumer's reads of units base+j (bits of rb), each checking (b)
 * into rbad and counting record starts into rdel.  SC: in order; WEAK:
 * in any order.
 */
#ifdef WEAK
#define CANR(j)	((rb & (1 << (j))) == 0)
#else
#define CANR(j)	(rb == (1 << (j)) - 1)
#endif
#define READU(j) atomic { \
		rbad = rbad | (own[UNIT(base + j)] != 0) | \
		       (cell[UNIT(base + j)] / 2 != GEN(base + j)); \
		rdel = rdel + (cell[UNIT(base + j)] & 1); \
		rb = rb | (1 << (j)) }

/* the release store of lt_ring_put_subbuf: after every read (WEAK and
 * BUG_RELAXED_PUT: at any time after get) */
#if defined(WEAK) && defined(BUG_RELAXED_PUT)
#define PUTOK	1
#else
#define PUTOK	(rb == ALLS)
#endif

/* Read the sub-buffer at consumed (some units may have been read early,
 * BUG_RELAXED_GET), count its records, hand it back. */
inline read_subbuf()
{
	do
	:: CANR(0) -> READU(0)
	:: CANR(1) -> READU(1)
	:: CANR(2) -> READU(2)
	:: CANR(3) -> READU(3)
	:: !put && PUTOK ->
		consumed = consumed + S;	/* lt_ring_put_subbuf: release */
		put = 1
	:: put && rb == ALLS -> break
	od;
	assert(!rbad);		/* (b) */
	delivered = delivered + rdel;
	rb = 0; rbad = 0; rdel = 0; put = 0;
	base = consumed
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
	byte old, begin, u, base, rb, rdel;
	bit ok, rbad, put;

	do
	:: atomic { GET_OK -> skip }	/* lt_ring_get_subbuf: acquire */
		read_subbuf()
#if defined(WEAK) && defined(BUG_RELAXED_GET)
	/* the sub-buffer's loads performed before get's load of commit[] */
	:: CANR(0) -> READU(0)
	:: CANR(1) -> READU(1)
	:: CANR(2) -> READU(2)
	:: CANR(3) -> READU(3)
#endif
	:: atomic { nfin == NW -> rb = 0; rbad = 0; rdel = 0; break }
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

/* The snapshot's copy of unit b+j (bit j of cb): is it of another
 * generation (bad); and the newest claim it must then see (need). */
#define CANC(j)	((cb & (1 << (j))) == 0 && (rdy || EARLY))
#ifdef BUG_RELAXED_READY
#define EARLY	1
#else
#define EARLY	0
#endif
#if !defined(BUG_NOFENCE) && !defined(BUG_RELAXED_CAS)
#define NEED(j)	need = (vofs[UNIT(b + j)] > need -> vofs[UNIT(b + j)] : need)
#else
#define NEED(j)	skip
#endif
/* The re-check may not see a claim whose stores the copy did not see,
 * and that copy holds the old data, which is right: (c) is on the data
 * alone here (the SC snapshot below also checks that no unit it copied
 * was claimed: the re-check would then see the claim's offset). */
#define COPYU(j) atomic { \
		bad = bad | (cell[UNIT(b + j)] / 2 != GEN(b)); \
		NEED(j); \
		cb = cb | (1 << (j)) }

#ifdef WEAK

/* Overwrite-mode consumer: one lt_ring_snapshot (with its lt_ring_flush),
 * at any moment relative to the writers; WEAK: its loads as above. */
proctype snapshot()
{
	byte old, begin, u, e, cur, b, k, bad, cb, need, now;
	bit ok, dirty, rdy, stop;

	flush();
	e = offset;
	cur = e - e % S;
	k = 1;
	do
	:: k <= N && cur >= k * S ->
		b = cur - k * S;
		/* the acquire load of commit[] (READY), and the copy, racing
		 * with writers (WEAK: in any order, after the load unless
		 * BUG_RELAXED_READY) */
		dirty = 0;
		bad = 0;
		need = e;
		do
		:: !rdy -> atomic { if :: READY(b) -> rdy = 1 :: else -> stop = 1 fi }
		:: CANC(0) -> COPYU(0)
		:: CANC(1) -> COPYU(1)
		:: CANC(2) -> COPYU(2)
		:: CANC(3) -> COPYU(3)
		:: rdy && cb == ALLS -> break
		:: stop -> break
		od;
		if
		:: stop -> break
		:: else
		fi;
#ifndef BUG_NORECHECK
		/* the re-load of offset after the acquire fence: WEAK, any
		 * value from need on (the fence and the writers' barrier
		 * make the claims of what was copied visible) */
		atomic {
			if
			:: now = offset
			:: now = need
			fi
		};
		if
		:: now > b + NS -> break	/* overwritten */
		:: else
		fi;
		now = 0;
#endif
		/* a kept copy: committed data of its own generation only */
		assert(!dirty && bad == 0);	/* (c) */
		u = 0; b = 0; dirty = 0; bad = 0; cb = 0; rdy = 0; need = 0;
		k++
	:: else -> break
	od
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
