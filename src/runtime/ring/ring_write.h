/* SPDX-License-Identifier: MIT */
/*
 * ring_write.h - the ring's writers (ring.h): reserve and commit, the inline
 * fast paths of lt_ring_write() on atomic and rseq channels, and their
 * general paths out of line in ring.c.  Every path places its record with
 * ring/record.h.
 */
#ifndef LT_RING_RING_WRITE_H
#define LT_RING_RING_WRITE_H

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "arch/arch.h"
#include "clock/clock.h"
#include "ring/cpu.h"
#include "ring/record.h"
#include "ring/ring.h"
#include "ring/rseq.h"

/* Rare paths of lt_ring_reserve(), out of line. */
void lt_ring_close_subbuf(struct lt_ring *r, struct lt_ring_ctl *ctl,
			  uint64_t base, uint64_t used, uint64_t ts,
			  uint64_t lost);
void lt_ring_open_subbuf(struct lt_ring *r, struct lt_ring_ctl *ctl,
			 uint64_t begin, uint64_t ts);
void lt_ring_drop(struct lt_ring_ctl *ctl, int err);

static inline uint32_t lt_ring_cpu_of(const struct lt_ring *r,
				      const struct lt_ring_ctl *ctl)
{
	return (uint32_t)(((const char *)ctl - r->ctl_base) / r->ctl_stride);
}

/*
 * Replaces (offset, last_tsc) if it still is (*off, *ts); else loads the
 * current pair into them.  A full barrier (__sync): the CAS of the next
 * writer, and the offset re-check of lt_ring_snapshot(), pair with it.
 * Without a 16-byte CAS instruction, libatomic's sequentially consistent
 * one, a lock of this process (arch/arch.h).
 */
static inline int lt_ring_cas_pair(struct lt_ring_ctl *ctl, uint64_t *off,
				   uint64_t *ts, uint64_t noff, uint64_t nts)
{
	unsigned __int128 o = (unsigned __int128)*ts << 64 | *off;
	unsigned __int128 n = (unsigned __int128)nts << 64 | noff;
#ifndef LT_ARCH_CAS16_LOCKED
	unsigned __int128 v = __sync_val_compare_and_swap(&ctl->pair, o, n);
#else
	unsigned __int128 v = o;
	__atomic_compare_exchange_n(&ctl->pair, &v, n, 0, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
#endif
	if (v == o)
		return 1;
	*off = (uint64_t)v;
	*ts = (uint64_t)(v >> 64);
	return 0;
}

/* May a writer open the sub-buffer that starts at begin? */
static inline int lt_ring_subbuf_free(const struct lt_ring *r,
				      struct lt_ring_ctl *ctl, uint64_t begin,
				      const int mode)
{
	if (mode == LT_RING_DISCARD) {
		/* pairs with the release store in lt_ring_put_subbuf(): the
		 * consumer is done reading what we are about to overwrite
		 * (the full barrier of the CAS after it orders it on the
		 * hardware too: models/ring.pml's WEAK mode) */
		uint64_t consumed = atomic_load_explicit(&ctl->consumed,
							 memory_order_acquire);
		return begin + r->subbuf_size - consumed <= r->buf_size;
	}
	/* overwrite: the slot's previous generation must be fully committed,
	 * or a late writer would still be writing into what we reuse */
	uint64_t idx = (begin >> r->subbuf_shift) & (r->n_subbufs - 1);
	uint64_t gen = begin / r->buf_size;
	/* acquire: pairs with the release adds of that generation's writers,
	 * whose stores then come before ours (and the CAS's full barrier
	 * after this load orders it before them on the hardware too) */
	return atomic_load_explicit(&ctl->commit[idx], memory_order_acquire) ==
	       gen * r->subbuf_size;
}

/*
 * Reserves room for an event of id and len payload bytes in cpu's buffer
 * (where lt_ring_place() puts it), writes its event header, and points
 * ctx->payload at the payload.
 * Returns 0, or -ENOBUFS / -E2BIG when the event is dropped (and counted,
 * unless mode has LT_RING_UNCOUNTED: a writer that makes room and tries
 * again counts only the try that fails for good).
 * mode is a constant at every call site so that the compiler folds it.
 * Model: models/ring.pml, inline event() (proctypes writer and handler).
 */
#define LT_RING_UNCOUNTED 0x100 /* or-ed into lt_ring_reserve_on()'s mode */

static inline __attribute__((always_inline)) int
lt_ring_reserve_on(struct lt_ring *r, struct lt_ring_ctx *ctx, uint32_t cpu,
		   const uint64_t *fixed_ts, uint32_t id, uint32_t len,
		   const int mode)
{
	struct lt_ring_ctl *ctl = lt_ring_ctl(r, cpu);
	const uint64_t S = r->subbuf_size;
	uint64_t old, ts, lost = 0;
	struct lt_ring_place pl;

	if (__builtin_expect(LT_PACKET_HDR_SIZE + LT_EV_HDR_EXTENDED + len > S,
			     0)) {
		lt_ring_drop(ctl, -E2BIG);
		return -E2BIG;
	}
	/* a torn pair only fails the first CAS, which then loads it whole */
	old = atomic_load_explicit(&ctl->offset, memory_order_relaxed);
	uint64_t last =
		atomic_load_explicit(&ctl->last_tsc, memory_order_relaxed);
	for (;;) {
		ts = fixed_ts ? *fixed_ts : lt_clock_read_fast();
		if (__builtin_expect(ts < last, 0))
			ts = last; /* a read taken early, or on another CPU */
		lt_ring_place(S, old, last, ts, id, len, &pl);
		if (pl.enter &&
		    !lt_ring_subbuf_free(r, ctl, pl.begin,
					 mode & ~LT_RING_UNCOUNTED)) {
			if (!(mode & LT_RING_UNCOUNTED))
				lt_ring_drop(ctl, -ENOBUFS);
			return -ENOBUFS;
		}
		if (__builtin_expect(pl.sw | pl.fill, 0))
			/* read after the pair's load: a later close sees no
			 * smaller count, so the packets' counts never shrink */
			lost = atomic_load_explicit(&ctl->lost_full,
						    memory_order_relaxed) +
			       atomic_load_explicit(&ctl->lost_big,
						    memory_order_relaxed);
		if (lt_ring_cas_pair(ctl, &old, &last, pl.end, ts))
			break;
	}
	if (__builtin_expect(pl.sw, 0))
		lt_ring_close_subbuf(r, ctl, old & ~(S - 1), old & (S - 1), ts,
				     lost);
	if (__builtin_expect(pl.enter, 0))
		lt_ring_open_subbuf(r, ctl, pl.begin, ts);
	if (__builtin_expect(pl.fill, 0))
		lt_ring_close_subbuf(r, ctl, pl.end - S, S, ts, lost);

	char *p = lt_ring_data(r, cpu) + (pl.rec & r->buf_mask);
	lt_ev_header_put(p, pl.hsz, id, ts);
	ctx->ctl = ctl;
	ctx->begin = pl.begin;
	ctx->end = pl.end;
	ctx->ts = ts;
	ctx->payload = p + pl.hsz;
	return 0;
}

/*
 * Reserve and commit, the two-step API, are for atomic channels only (an
 * rseq writer copies and publishes in one sequence): -EINVAL on others.
 */
static inline int lt_ring_reserve(struct lt_ring *r, struct lt_ring_ctx *ctx,
				  uint32_t id, uint32_t len)
{
	if (__builtin_expect(r->sync != LT_RING_SYNC_ATOMIC, 0))
		return -EINVAL;
	uint32_t cpu = (uint32_t)lt_cpu_current();
	if (__builtin_expect(cpu >= r->n_cpus, 0))
		cpu %= r->n_cpus;
	if (r->mode == LT_RING_OVERWRITE)
		return lt_ring_reserve_on(r, ctx, cpu, NULL, id, len,
					  LT_RING_OVERWRITE);
	return lt_ring_reserve_on(r, ctx, cpu, NULL, id, len, LT_RING_DISCARD);
}

/*
 * For a single writer that re-encodes events of another source (the
 * kernel's): a given CPU's buffer and a given timestamp, which must not be
 * earlier than the previous one written to that buffer.  flags: 0, or
 * LT_RING_UNCOUNTED (a constant).
 */
static inline __attribute__((always_inline)) int
lt_ring__reserve_at(struct lt_ring *r, struct lt_ring_ctx *ctx, uint32_t cpu,
		    uint64_t ts, uint32_t id, uint32_t len, const int flags)
{
	if (cpu >= r->n_cpus || r->sync != LT_RING_SYNC_ATOMIC)
		return -EINVAL;
	if (r->mode == LT_RING_OVERWRITE)
		return lt_ring_reserve_on(r, ctx, cpu, &ts, id, len,
					  LT_RING_OVERWRITE | flags);
	return lt_ring_reserve_on(r, ctx, cpu, &ts, id, len,
				  LT_RING_DISCARD | flags);
}

static inline int lt_ring_reserve_at(struct lt_ring *r, struct lt_ring_ctx *ctx,
				     uint32_t cpu, uint64_t ts, uint32_t id,
				     uint32_t len)
{
	return lt_ring__reserve_at(r, ctx, cpu, ts, id, len, 0);
}

/* lt_ring_reserve_at() whose -ENOBUFS is not counted as a loss: the
 * writer makes room (its consumer takes the full sub-buffers) and calls
 * lt_ring_reserve_at(), which counts it if it fails again. */
static inline int lt_ring_reserve_at_try(struct lt_ring *r,
					 struct lt_ring_ctx *ctx, uint32_t cpu,
					 uint64_t ts, uint32_t id, uint32_t len)
{
	return lt_ring__reserve_at(r, ctx, cpu, ts, id, len, LT_RING_UNCOUNTED);
}

/* Makes the record visible to the consumer.  Model: models/ring.pml,
 * the commit step of inline event(). */
static inline void lt_ring_commit(struct lt_ring *r,
				  const struct lt_ring_ctx *ctx)
{
	uint64_t idx = (ctx->begin >> r->subbuf_shift) & (r->n_subbufs - 1);
	/* release: the record's bytes before the count; pairs with the
	 * acquire load in lt_ring_get_subbuf() and lt_ring_snapshot().
	 * Model: models/ring.pml, BUG_RELAXED_COMMIT */
	atomic_fetch_add_explicit(&ctx->ctl->commit[idx], ctx->end - ctx->begin,
				  memory_order_release);
}

/* Copies a payload of a few words without a call into the C library. */
static inline __attribute__((always_inline)) void
lt_ring_copy(char *d, const char *s, uint32_t n)
{
	uint64_t a, b;
	uint32_t x, y;
	if (n > 16) {
		memcpy(d, s, n);
	} else if (n >= 8) {
		/* two words that overlap when n < 16 */
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		memcpy(&x, s, 4);
		memcpy(&y, s + n - 4, 4);
		memcpy(d, &x, 4);
		memcpy(d + n - 4, &y, 4);
	} else {
		for (uint32_t i = 0; i < n; i++)
			d[i] = s[i];
	}
}

/* Counts an event too large to record, in the current CPU's buffer. */
void lt_ring_count_too_big(struct lt_ring *r);

/* lt_ring_write() in every case, out of line (ring.c), with the timestamp
 * it read (raised to the buffer's latest if that is later). */
int lt_ring_write_slow(struct lt_ring *r, uint32_t cpu, uint64_t ts,
		       uint32_t id, const void *payload, uint32_t len);

/* lt_ring_write() on an rseq channel in every case, out of line (ring.c).
 * Model: models/ring_rseq.pml, proctype writer. */
int lt_ring_write_rseq_slow(struct lt_ring *r, uint32_t id, const void *payload,
			    uint32_t len);

/*
 * The common case of lt_ring_write() on an rseq channel, inline: a compact
 * header, a payload of 4 to 16 bytes (or in memory, up to
 * LT_RSEQ_COPY_MAX, copied by a loop), well inside the open sub-buffer of
 * the CPU the thread runs on, and no other writer of that CPU in between;
 * the record is copied and published by one restartable sequence
 * (ring/rseq.h).  The timestamp is read before the sequence: the sequence
 * checks that the offset it was read against has not moved, so no record
 * of this buffer was published since, and the reading is no earlier than
 * the last one published (clamped to it for a clock read elsewhere).
 *
 * The payload is at payload (words 0), or in lo and hi as memcpy() would
 * load them: words 8, a payload of 8 to 16 bytes, its first 8 and its
 * last 8 (which overlap below 16); words 4, of 4 to 7 bytes, its first 4
 * and last 4 in their low halves.
 * rs: the thread's rseq area.  fast: the caller found the clock to be the
 * TSC, and no path makes a call.  words: the caller checked the length.
 * Returns 0 if the record is published, 1 if nothing was (the caller takes
 * the general path).
 */
static inline __attribute__((always_inline)) int
lt_ring__try_rseq(struct lt_ring *r, struct rseq *rs, uint32_t id,
		  const void *payload, uint64_t lo, uint64_t hi, int words,
		  uint32_t len, int fast)
{
#ifdef LT_HAVE_RSEQ
	/* the sequence compares it with cpu_id, which is negative in a
	 * thread without rseq: such a thread always takes the slow path */
	uint32_t cpu = __atomic_load_n(&rs->cpu_id_start, __ATOMIC_RELAXED);
	const uint64_t S = r->subbuf_size;
	/* fast: the caller's id is a compact one (lt_targets.fast) */
	if (__builtin_expect(
		    cpu >= r->n_cpus ||
			    (!words && len - 4 > LT_RSEQ_COPY_MAX - 4) ||
			    (!fast && id >= LT_EV_ID_EXTENDED),
		    0))
		return 1;
	struct lt_ring_ctl *ctl = lt_ring_ctl(r, cpu);
	uint64_t old = atomic_load_explicit(&ctl->offset, memory_order_relaxed);
	uint64_t last =
		atomic_load_explicit(&ctl->last_tsc, memory_order_relaxed);
	uint64_t ts = fast ? lt_clock_read_tsc() : lt_clock_read_fast();
	if (__builtin_expect(ts < last, 0))
		ts = last;
	uint64_t rec, end;
	if (lt_ring_try_compact(S, old, last, ts, len, &rec, &end))
		return 1;
	char *p = lt_ring_data(r, cpu) + (rec & r->buf_mask);
	uint32_t h = lt_ev_compact(id, ts);
	/* the 16-byte commit: (offset, last timestamp) */
	__m128i commit = _mm_set_epi64x((long long)ts, (long long)end);
	const char *s = payload;
	if (!words && len > 16)
		return lt_rseq_write_copy(rs, cpu, &ctl->pair, old, commit, p,
					  h, s, len);
	if (words ? words == 8 : len >= 8) {
		uint64_t x, y;
		if (words) {
			x = lo;
			y = hi;
		} else {
			memcpy(&x, s, 8);
			memcpy(&y, s + len - 8, 8);
		}
		return lt_rseq_write8(rs, cpu, &ctl->pair, old, commit, p, h, x,
				      y, len);
	}
	uint32_t x, y;
	if (words) {
		x = (uint32_t)lo;
		y = (uint32_t)hi;
	} else {
		memcpy(&x, s, 4);
		memcpy(&y, s + len - 4, 4);
	}
	return lt_rseq_write4(rs, cpu, &ctl->pair, old, commit, p, h, x, y,
			      len);
#else
	(void)r;
	(void)rs;
	(void)id;
	(void)payload;
	(void)lo;
	(void)hi;
	(void)words;
	(void)len;
	(void)fast;
	return 1;
#endif
}

/* lt_ring__try_rseq() of a payload in memory. */
static inline __attribute__((always_inline)) int
lt_ring_try_rseq(struct lt_ring *r, uint32_t id, const void *payload,
		 uint32_t len)
{
#ifdef LT_HAVE_RSEQ
	struct rseq *rs =
		(struct rseq *)((char *)lt_thread_pointer() + __rseq_offset);
#else
	struct rseq *rs = NULL;
#endif
	return lt_ring__try_rseq(r, rs, id, payload, 0, 0, 0, len, 0);
}

/* lt_ring_write() on an rseq channel. */
static inline __attribute__((always_inline)) int
lt_ring_write_rseq(struct lt_ring *r, uint32_t id, const void *payload,
		   uint32_t len)
{
	if (__builtin_expect(!lt_ring_try_rseq(r, id, payload, len), 1))
		return 0;
	return lt_ring_write_rseq_slow(r, id, payload, len);
}

/*
 * Records an event in the current CPU's buffer.  On an rseq channel see
 * lt_ring_write_rseq().  On an atomic one: lt_ring_reserve(), a copy of
 * len payload bytes, lt_ring_commit(); the common case
 * (lt_ring_try_compact(), the first compare-and-swap succeeding) inline,
 * every other case in lt_ring_write_slow().  Returns 0, or -ENOBUFS /
 * -E2BIG (dropped).
 */
static inline __attribute__((always_inline)) int
lt_ring_write(struct lt_ring *r, uint32_t id, const void *payload, uint32_t len)
{
	if (__builtin_expect(r->sync == LT_RING_SYNC_RSEQ, 1))
		return lt_ring_write_rseq(r, id, payload, len);
	uint32_t cpu = (uint32_t)lt_cpu_current();
	if (__builtin_expect(cpu >= r->n_cpus, 0))
		cpu %= r->n_cpus;
	struct lt_ring_ctl *ctl = lt_ring_ctl(r, cpu);
	const uint64_t S = r->subbuf_size;
	uint64_t old = atomic_load_explicit(&ctl->offset, memory_order_relaxed);
	uint64_t last =
		atomic_load_explicit(&ctl->last_tsc, memory_order_relaxed);
	uint64_t ts = lt_clock_read_fast();
	if (__builtin_expect(ts < last, 0))
		ts = last;
	uint64_t rec, end;
	if (__builtin_expect(id < LT_EV_ID_EXTENDED && len < S - LT_EV_SLACK &&
				     !lt_ring_try_compact(S, old, last, ts, len,
							  &rec, &end),
			     1) &&
	    __builtin_expect(lt_ring_cas_pair(ctl, &old, &last, end, ts), 1)) {
		char *p = lt_ring_data(r, cpu) + (rec & r->buf_mask);
		uint32_t w = lt_ev_compact(id, ts);
		memcpy(p, &w, 4);
		lt_ring_copy(p + LT_EV_HDR_COMPACT, payload, len);
		uint64_t idx = (old >> r->subbuf_shift) & (r->n_subbufs - 1);
		/* release: as in lt_ring_commit() */
		atomic_fetch_add_explicit(&ctl->commit[idx], end - old,
					  memory_order_release);
		return 0;
	}
	return lt_ring_write_slow(r, cpu, ts, id, payload, len);
}

#endif
