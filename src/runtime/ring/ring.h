/* SPDX-License-Identifier: MIT */
/*
 * ring.h - lock-free per-CPU ring buffers.
 *
 * A channel (struct lt_ring) has one buffer per CPU; each buffer has N
 * sub-buffers of S bytes, both powers of two.  All of it lives in one memfd
 * so that a consumer in another process can map the same pages; nothing in
 * the shared pages is a pointer.
 *
 * Two ways of synchronising writers, chosen per channel when it is made
 * (enum lt_ring_sync):
 *
 * - rseq: a writer copies its record and publishes it by moving the
 *   buffer's free-running write offset, all inside one restartable
 *   sequence on the CPU whose buffer it writes (ring/rseq.h).  No locked
 *   instruction: the kernel restarts the sequence if the thread is
 *   preempted, migrated or signalled in it, so what lies below the offset
 *   is always whole.  A signal handler that traces simply publishes
 *   first.  Anything else that moves the offset (the consumer's flush)
 *   runs as the same kind of sequence on that CPU.
 * - atomic: writers reserve space with a compare-and-swap on the offset,
 *   write, then commit by adding the reserved length to the sub-buffer's
 *   commit count; a sub-buffer whose commit count reaches the end of its
 *   current generation ((gen + 1) * S) is complete.  A thread that migrates
 *   keeps using the buffer it chose, which the CAS keeps correct.  For
 *   machines or threads without rseq, and for a single writer that writes
 *   on other CPUs' behalf (the kernel events).
 *
 * Either way a record never straddles sub-buffers: the writer that does
 * not fit closes the sub-buffer (the rest is padding) and opens the next.
 *
 * Each sub-buffer is a CTF packet as it stands: it starts with struct
 * lt_packet_header, and every record starts with an LTTng-style compact
 * event header.  src/tool/ctf/ describes these layouts in the trace metadata.
 *
 * Modes: discard (the writer drops and counts an event when the next
 * sub-buffer is still unread) and overwrite (flight recorder: the writer
 * reuses the oldest sub-buffer; a snapshot copies the newest complete ones
 * and checks afterwards that none was reused while it was copied).
 *
 * Model: models/ring.pml mirrors lt_ring_reserve, lt_ring_commit,
 * lt_ring_flush, lt_ring_get_subbuf, lt_ring_put_subbuf and
 * lt_ring_snapshot.
 */
#ifndef LT_RING_H
#define LT_RING_H

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "clock/clock.h"
#include "ring/cpu.h"
#include "ring/record.h"
#include "ring/rseq.h"

#define LT_PACKET_MAGIC 0xC1FC1FC1u

/*
 * The fences that order a snapshot's racy copy (see lt_ring_snapshot()).
 * ThreadSanitizer does not model fences and gcc refuses them under it; the
 * copy is not instrumented, so a compiler barrier keeps those builds honest
 * (on x86 these fences are compiler barriers in any case).
 */
#if defined(__SANITIZE_THREAD__)
#define lt_ring_fence(mo) atomic_signal_fence(mo)
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define lt_ring_fence(mo) atomic_signal_fence(mo)
#endif
#endif
#ifndef lt_ring_fence
#define lt_ring_fence(mo) atomic_thread_fence(mo)
#endif

/* Packet header and context, in this order at the start of a sub-buffer. */
struct lt_packet_header {
	uint32_t magic;
	uint8_t uuid[16];
	uint32_t stream_id;
	uint64_t stream_instance_id; /* pid << 32 | cpu */
	uint64_t timestamp_begin;
	uint64_t timestamp_end;
	uint64_t content_size; /* bits, headers included */
	uint64_t packet_size; /* bits; what the stream file holds */
	uint64_t packet_seq_num;
	uint64_t events_discarded; /* free-running count at close */
	uint32_t cpu_id;
	uint32_t pid;
};
_Static_assert(sizeof(struct lt_packet_header) == LT_PACKET_HDR_SIZE,
	       "packet header layout");

enum lt_ring_mode {
	LT_RING_DISCARD = 0,
	LT_RING_OVERWRITE = 1,
};

enum lt_ring_sync {
	LT_RING_SYNC_ATOMIC = 0,
	LT_RING_SYNC_RSEQ = 1,
	/* not chosen yet: the process that maps it for writing chooses,
	 * with lt_ring_choose_sync(), before its first record */
	LT_RING_SYNC_WRITER = 2,
};

#define LT_RING_NO_PID UINT32_MAX

struct lt_ring_config {
	enum lt_ring_mode mode;
	uint32_t n_cpus; /* 0: every CPU the system can have */
	uint32_t n_subbufs; /* power of two, >= 2 */
	uint64_t subbuf_size; /* power of two, >= 1024 */
	uint8_t uuid[16]; /* the trace's, copied into each packet */
	uint32_t stream_id; /* the channel's stream class */
	uint32_t pid; /* 0: getpid(); LT_RING_NO_PID: 0 (several writers) */
	uint32_t sync; /* enum lt_ring_sync */
};

/*
 * Per-CPU control block in shared memory.  The write offset and the last
 * record's timestamp change together, in one 16-byte compare-and-swap: a
 * writer takes a timestamp no earlier than the one before it in the
 * buffer, so timestamps follow offset order by construction, with a plain
 * (unordered, cheaper) counter read.
 */
struct lt_ring_ctl {
	union {
		struct {
			_Atomic uint64_t offset; /* write position, bytes */
			_Atomic uint64_t last_tsc; /* the last record's time */
		};
		unsigned __int128 pair;
	} __attribute__((aligned(64)));
	_Atomic uint64_t lost_full; /* dropped: next sub-buffer not free */
	_Atomic uint64_t lost_big; /* dropped: larger than a sub-buffer */
	/* dropped, next sub-buffer not free, counted by this CPU's
	 * restartable sequences alone (rseq channels) */
	_Atomic uint64_t lost_seq;
	_Alignas(64) _Atomic uint64_t consumed; /* discard: next to read */
	_Alignas(64) _Atomic uint64_t commit[]; /* bytes, per sub-buffer */
};

/* The start of the shared memory: geometry, so another process can map it. */
struct lt_ring_shm {
	uint64_t magic;
	uint32_t version;
	uint32_t mode;
	uint32_t n_cpus;
	uint32_t n_subbufs;
	uint64_t subbuf_size;
	uint64_t ctl_offset, ctl_stride;
	uint64_t data_offset, data_stride;
	uint64_t total_size;
	struct lt_packet_header tmpl; /* magic, uuid, stream_id, pid */
	_Atomic uint32_t sync; /* enum lt_ring_sync */
	uint32_t reserved;
};
#define LT_RING_SHM_MAGIC 0x6c74726e67627566ull /* "ltrngbuf" */
#define LT_RING_SHM_VERSION 3

/* A process's handle on a mapped channel. */
struct lt_ring {
	struct lt_ring_shm *shm;
	char *map;
	size_t map_len;
	int fd;
	uint32_t mode, n_cpus, n_subbufs;
	uint32_t subbuf_shift;
	uint32_t sync; /* a writer's copy of shm->sync, once chosen */
	uint64_t subbuf_size, buf_size; /* S and N * S */
	char *ctl_base; /* cpu[0].ctl, and ctl_stride apart (cpu_of) */
	uint64_t ctl_stride;
	uint64_t subbuf_mask, buf_mask; /* S - 1 and N * S - 1 */
	/* each CPU's control block and data, the writer's two lookups */
	struct lt_ring_cpu {
		struct lt_ring_ctl *ctl;
		char *data;
	} cpu[];
};

/* A reservation, from lt_ring_reserve() to lt_ring_commit(). */
struct lt_ring_ctx {
	struct lt_ring_ctl *ctl;
	uint64_t begin, end; /* bytes [begin, end) are this record's */
	uint64_t ts;
	char *payload;
};

/* A complete sub-buffer lent to the consumer. */
struct lt_ring_subbuf {
	const struct lt_packet_header *hdr;
	const void *data; /* the packet, hdr included */
	size_t len; /* content bytes */
	uint64_t seq;
};

int lt_ring_create(const struct lt_ring_config *cfg, struct lt_ring **out);
/* Maps a channel created elsewhere (fd from lt_ring_fd(), passed on). */
int lt_ring_map(int fd, struct lt_ring **out);
void lt_ring_destroy(struct lt_ring *r);
int lt_ring_fd(const struct lt_ring *r);

/*
 * Whether this thread can write rseq buffers: x86_64, rseq registered
 * (glibc 2.35+), and LOWTRACE_RING_SYNC is not "atomic".
 */
int lt_ring_rseq_usable(void);
/*
 * For a channel made with LT_RING_SYNC_WRITER: chooses rseq if
 * lt_ring_rseq_usable(), else atomic, before the first record.  Returns
 * the choice; a channel already chosen keeps its choice.
 */
uint32_t lt_ring_choose_sync(struct lt_ring *r);

/*
 * The channel's synchronisation as its consumer sees it.  A channel whose
 * writer has not chosen yet has no record; offset is read first so that a
 * record seen implies the choice seen (pairs with the release store in
 * lt_ring_choose_sync(), before the writer's first record).
 */
static inline uint32_t lt_ring_sync_of(const struct lt_ring *r)
{
	return atomic_load_explicit(&r->shm->sync, memory_order_acquire);
}

static inline struct lt_ring_ctl *lt_ring_ctl(const struct lt_ring *r,
					      uint32_t cpu)
{
	return r->cpu[cpu].ctl;
}

static inline char *lt_ring_data(const struct lt_ring *r, uint32_t cpu)
{
	return r->cpu[cpu].data;
}

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
 */
static inline int lt_ring_cas_pair(struct lt_ring_ctl *ctl, uint64_t *off,
				   uint64_t *ts, uint64_t noff, uint64_t nts)
{
	unsigned __int128 o = (unsigned __int128)*ts << 64 | *off;
	unsigned __int128 n = (unsigned __int128)nts << 64 | noff;
	unsigned __int128 v = __sync_val_compare_and_swap(&ctl->pair, o, n);
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
		 * consumer is done reading what we are about to overwrite */
		uint64_t consumed = atomic_load_explicit(&ctl->consumed,
							 memory_order_acquire);
		return begin + r->subbuf_size - consumed <= r->buf_size;
	}
	/* overwrite: the slot's previous generation must be fully committed,
	 * or a late writer would still be writing into what we reuse */
	uint64_t idx = (begin >> r->subbuf_shift) & (r->n_subbufs - 1);
	uint64_t gen = begin / r->buf_size;
	/* acquire: pairs with the release adds of that generation's writers,
	 * whose stores then come before ours */
	return atomic_load_explicit(&ctl->commit[idx], memory_order_acquire) ==
	       gen * r->subbuf_size;
}

/*
 * Reserves room for an event of id and len payload bytes in cpu's buffer
 * (where lt_ring_place() puts it), writes its event header, and points
 * ctx->payload at the payload.
 * Returns 0, or -ENOBUFS / -E2BIG when the event is dropped (and counted).
 * mode is a constant at every call site so that the compiler folds it.
 * Model: models/ring.pml, inline event() (proctypes writer and handler).
 */
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
		if (pl.enter && !lt_ring_subbuf_free(r, ctl, pl.begin, mode)) {
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
 * earlier than the previous one written to that buffer.
 */
static inline int lt_ring_reserve_at(struct lt_ring *r, struct lt_ring_ctx *ctx,
				     uint32_t cpu, uint64_t ts, uint32_t id,
				     uint32_t len)
{
	if (cpu >= r->n_cpus || r->sync != LT_RING_SYNC_ATOMIC)
		return -EINVAL;
	if (r->mode == LT_RING_OVERWRITE)
		return lt_ring_reserve_on(r, ctx, cpu, &ts, id, len,
					  LT_RING_OVERWRITE);
	return lt_ring_reserve_on(r, ctx, cpu, &ts, id, len, LT_RING_DISCARD);
}

/* Makes the record visible to the consumer.  Model: models/ring.pml,
 * the commit step of inline event(). */
static inline void lt_ring_commit(struct lt_ring *r,
				  const struct lt_ring_ctx *ctx)
{
	uint64_t idx = (ctx->begin >> r->subbuf_shift) & (r->n_subbufs - 1);
	/* release: the record's bytes before the count; pairs with the
	 * acquire load in lt_ring_get_subbuf() and lt_ring_snapshot() */
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

/* Consumer side (one consumer per channel). */

/* Discard mode: the oldest unread complete sub-buffer, or -EAGAIN.
 * Model: models/ring.pml, inline read_subbuf() in proctype consumer. */
int lt_ring_get_subbuf(struct lt_ring *r, uint32_t cpu,
		       struct lt_ring_subbuf *sb);
/* Gives the sub-buffer from lt_ring_get_subbuf() back to the writers.
 * Model: models/ring.pml, proctype consumer. */
void lt_ring_put_subbuf(struct lt_ring *r, uint32_t cpu);
/*
 * Closes the current partial sub-buffer; 1 if one was closed, else 0.  On
 * an rseq channel the calling thread moves to cpu for the moment of the
 * close (its affinity is put back), so that the close is a restartable
 * sequence on that CPU like a writer's; 0 if it cannot go there (a CPU
 * outside its cpuset, or no rseq in this thread): the sub-buffer is left
 * for its writers to fill.  Model: models/ring.pml, inline flush();
 * models/ring_rseq.pml, proctype flusher.
 */
int lt_ring_flush(struct lt_ring *r, uint32_t cpu);
/*
 * lt_ring_flush() for a channel no writer can touch any more (its process
 * has exited): closes in place, from any CPU.
 */
int lt_ring_flush_quiescent(struct lt_ring *r, uint32_t cpu);

/*
 * Overwrite mode: flushes, then copies the newest complete sub-buffers that
 * stay intact while copied, and calls fn for each, oldest first.  Returns
 * how many were delivered, or a negative errno (from fn or allocation).
 * Model: models/ring.pml, proctype snapshot.
 */
typedef int (*lt_ring_packet_fn)(void *arg, const struct lt_packet_header *hdr,
				 const void *data, size_t len);
int lt_ring_snapshot(struct lt_ring *r, uint32_t cpu, lt_ring_packet_fn fn,
		     void *arg);

/*
 * For a consumer that reads cpu's buffer for the last time: hands fn a copy
 * of the open sub-buffer of an rseq channel, as a packet of the records
 * published in it so far, without changing the buffer (the close
 * lt_ring_flush() could not make).  Returns 1 if it delivered one, 0 if
 * none was open (or the channel is atomic), or fn's negative result.
 */
int lt_ring_copy_open(struct lt_ring *r, uint32_t cpu, lt_ring_packet_fn fn,
		      void *arg);

/*
 * lt_ring_flush() with a given timestamp_end, for an atomic channel's
 * only writer (lt_ring_reserve_at()'s): a record it writes later may carry
 * an earlier time than the clock's reading now, but never one earlier
 * than the last written.  Returns 1 if a sub-buffer was closed, else 0.
 */
int lt_ring_flush_at(struct lt_ring *r, uint32_t cpu, uint64_t ts);

/* Counts n events lost at their source (before the ring) in cpu's
 * buffer: the packets' events_discarded include them. */
void lt_ring_add_lost(struct lt_ring *r, uint32_t cpu, uint64_t n);

/*
 * For a consumer that drains a buffer whose writers are gone: the start
 * of the oldest unread sub-buffer, and the end of the one the write
 * offset is in (the offset itself at a boundary).  Sub-buffers from the
 * first to the second are either complete (lt_ring_get_subbuf()) or torn
 * (lt_ring_recover_subbuf()).
 */
uint64_t lt_ring_read_pos(const struct lt_ring *r, uint32_t cpu);
uint64_t lt_ring_write_end(const struct lt_ring *r, uint32_t cpu);

/*
 * A sub-buffer at base that never completed: a writer reserved space and
 * died before its commit.  Copies the sub-buffer (subbuf_size bytes) into
 * copy and says what of it is whole: *committed, the bytes committed from
 * base (a writer's records commit in offset order, so they are a prefix of
 * the records, plus the padding if it was closed); *content, the bytes
 * that hold records (content_size if the sub-buffer was closed, else the
 * committed prefix of an rseq channel or the whole of an atomic one).
 * Returns 0, or -EIO if not even the packet header was written.
 */
int lt_ring_recover_subbuf(struct lt_ring *r, uint32_t cpu, uint64_t base,
			   void *copy, uint64_t *committed, uint64_t *content);

/* Counts an event too large to record, in the current CPU's buffer. */
void lt_ring_count_too_big(struct lt_ring *r);

/* Events dropped in this CPU's buffer so far. */
uint64_t lt_ring_lost(const struct lt_ring *r, uint32_t cpu);

#endif
