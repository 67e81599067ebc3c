/* SPDX-License-Identifier: MIT */
/*
 * probe.c - the tracing path of an enabled event: read the event's target
 * list inside an RCU read-side section, and copy the serialised payload
 * into each target ring whose filter (if any) the payload matches.  No
 * lock, no system call, no allocation.  A trigger target calls its
 * function (see lt_probe_enable_trigger()).  On x86_64 the common case of
 * a fixed-size payload is probe_x86_64.S, one restartable sequence with no
 * RCU section; lt_probe_sync() waits for both kinds of reader.
 */
#include "probe/probe.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/membarrier.h>

#include "clock/clock.h"
#include "format/metadata.h"
#include "probe/filter.h"
#include "probe/targets.h"
#include "rcu/memb.h"

#include <lowtrace/rcu.h>

/* A record of a shared ring: the writer's pid, then the payload. */
static __attribute__((noinline)) void write_led(struct lt_ring *r,
						const struct lt_target *g,
						const void *payload,
						uint32_t len)
{
	char b[LT_CTF_PID_CONTEXT + LT_EVENT_MAX];
	if (len > LT_EVENT_MAX) {
		lt_ring_count_too_big(r);
		return;
	}
	memcpy(b, &g->pid, LT_CTF_PID_CONTEXT);
	memcpy(b + LT_CTF_PID_CONTEXT, payload, len);
	lt_ring_write(r, g->id, b, LT_CTF_PID_CONTEXT + len);
}

/* Every target of t, each through its filter; the general case. */
static __attribute__((noinline)) void emit_all(const struct lt_targets *t,
					       const void *payload,
					       uint32_t len, int overflow)
{
	for (uint32_t i = 0; i < t->n; i++) {
		const struct lt_target *g = &t->t[i];
		struct lt_ring *r = g->ring;
		if (__builtin_expect(overflow, 0)) {
			if (r)
				lt_ring_count_too_big(r);
			continue;
		}
		if (g->filter && !lt_filter_match(g->filter, payload, len))
			continue;
		if (!r)
			g->fire(g->arg);
		else if (!g->pid)
			lt_ring_write(r, g->id, payload, len);
		else
			write_led(r, g, payload, len);
	}
}

#ifdef LT_HAVE_RSEQ
/* What the common case needs of the thread, found by the general path. */
struct probe_thread {
	struct rseq *rs; /* its rseq area */
	int ok; /* registered RCU reader without fences, rseq registered */
};
static __thread struct probe_thread probe_thread
	__attribute__((tls_model("initial-exec")));
#endif

/*
 * lt_probe_emit() in every case, out of line.  declined: a call-free path
 * has just declined this record (a sub-buffer to switch, a full buffer):
 * the ring's own inline attempt would too, so an rseq ring goes straight
 * to its general writer, with one clock read.
 */
static __attribute__((noinline)) void emit_slow(struct lt_event_desc *d,
						const void *payload,
						uint32_t len, int overflow,
						int declined)
{
	lt_rcu_read_lock();
#ifdef LT_HAVE_RSEQ
	if (!probe_thread.ok) {
		probe_thread.rs = lt_rseq_area();
		probe_thread.ok = lt_rcu_registered() && lt_rcu_fenceless() &&
				  probe_thread.rs != NULL;
	}
#endif
	/* acquire: pairs with the release store in the registry's
	 * update_entry(), so the list's contents are complete */
	struct lt_targets *t = __atomic_load_n(
		(struct lt_targets **)&d->targets, __ATOMIC_ACQUIRE);
	if (t != NULL) {
		struct lt_ring *r = t->solo;
		if (r && !overflow && declined && r->sync == LT_RING_SYNC_RSEQ)
			lt_ring_write_rseq_slow(r, t->id, payload, len);
		else if (r && !overflow)
			lt_ring_write(r, t->id, payload, len);
		else if (t->led && !overflow)
			write_led(t->led->ring, t->led, payload, len);
		else
			emit_all(t, payload, len, overflow);
	}
	lt_rcu_read_unlock();
}

#ifdef LT_HAVE_RSEQ
/* emit_fast()'s case of a shared ring: the pid, then the payload (in
 * memory or in lo and hi, as lt_ring__try_rseq() says), copied by the
 * sequence; 0 if published. */
static __attribute__((noinline)) int emit_led_fast(const struct lt_target *g,
						   const void *payload,
						   uint64_t lo, uint64_t hi,
						   int words, uint32_t len)
{
	char b[LT_RSEQ_COPY_MAX];
	if (len > LT_RSEQ_COPY_MAX - LT_CTF_PID_CONTEXT)
		return 1;
	char *p = b + LT_CTF_PID_CONTEXT;
	memcpy(b, &g->pid, LT_CTF_PID_CONTEXT);
	if (words == 8) {
		memcpy(p, &lo, 8);
		memcpy(p + len - 8, &hi, 8);
	} else if (words == 4) {
		uint32_t x = (uint32_t)lo, y = (uint32_t)hi;
		memcpy(p, &x, 4);
		memcpy(p + len - 4, &y, 4);
	} else {
		memcpy(p, payload, len);
	}
	return lt_ring__try_rseq(g->ring, probe_thread.rs, g->id, b, 0, 0, 0,
				 len + LT_CTF_PID_CONTEXT, 1);
}
#endif

/*
 * The common case, one rseq ring, no filter and the TSC for a clock, in a
 * thread the general path has seen (probe_thread.ok), outside any other
 * read-side section, makes no call: the registers it needs are the ones
 * a call clobbers anyway, so it saves none.  Anything else (a sub-buffer
 * to switch, a restarted sequence, more targets) starts again in
 * emit_slow(), which is correct since the fast path published nothing.
 * A payload is at payload, or in lo and hi as lt_ring__try_rseq() says
 * (words: 4 or 8, their size).
 */
static inline __attribute__((always_inline)) int
emit_fast(struct lt_event_desc *d, const void *payload, uint64_t lo,
	  uint64_t hi, int words, uint32_t len)
{
	int done = 0;
#ifdef LT_HAVE_RSEQ
	if (__builtin_expect(!probe_thread.ok, 0))
		return 0;
	if (__builtin_expect(!lt_rcu_read_lock_outer(), 0))
		return 0;
	/* acquire: as in emit_slow() */
	struct lt_targets *t = __atomic_load_n(
		(struct lt_targets **)&d->targets, __ATOMIC_ACQUIRE);
	if (__builtin_expect(t != NULL, 1)) {
		struct lt_ring *r = t->fast;
		/* the clock's source read after the list: a calibration
		 * handed over (an attaching session's) before the list was
		 * published is seen */
		if (__builtin_expect(r != NULL, 1))
			done = lt_clock_calib.source == LT_CLOCK_TSC &&
			       !lt_ring__try_rseq(r, probe_thread.rs, t->id,
						  payload, lo, hi, words, len,
						  1);
		else if (t->led)
			done = lt_clock_calib.source == LT_CLOCK_TSC &&
			       !emit_led_fast(t->led, payload, lo, hi, words,
					      len);
	} else {
		done = 1; /* disabled since the call site looked */
	}
	lt_rcu_read_unlock_outer();
#else
	(void)d;
	(void)payload;
	(void)lo;
	(void)hi;
	(void)words;
	(void)len;
#endif
	return done;
}

void lt_probe_emit(struct lt_event_desc *d, const void *payload, uint32_t len,
		   int overflow)
{
	if (__builtin_expect(overflow || !emit_fast(d, payload, 0, 0, 0, len),
			     0))
		emit_slow(d, payload, len, overflow, 0);
}

/* lt_probe_emit_words8/4()'s general path: the payload back in memory.
 * probe_x86_64.S calls it as lt_probe__words_slow(). */
__attribute__((visibility("hidden"))) void
lt_probe__words_slow(struct lt_event_desc *d, uint64_t lo, uint64_t hi,
		     uint32_t len);
__attribute__((noinline)) void lt_probe__words_slow(struct lt_event_desc *d,
						    uint64_t lo, uint64_t hi,
						    uint32_t len)
{
	char b[16];
	if (len < 4 || len > 16) {
		len = 0; /* not a call lt_trace() makes */
	} else if (len >= 8) {
		memcpy(b, &lo, 8);
		memcpy(b + len - 8, &hi, 8);
	} else {
		uint32_t x = (uint32_t)lo, y = (uint32_t)hi;
		memcpy(b, &x, 4);
		memcpy(b + len - 4, &y, 4);
	}
	emit_slow(d, b, len, 0, 1);
}

/* the same for the call sites' inline sequence (tp_seq.h) */
void lt_probe_emit_words_slow(struct lt_event_desc *d, uint64_t lo, uint64_t hi,
			      uint32_t len)
	__attribute__((alias("lt_probe__words_slow")));

/*
 * Two entry points, so that each knows its word size.  On x86_64 with
 * rseq, probe_x86_64.S defines them (their common case) and these are
 * their general paths.
 */
#ifdef LT_HAVE_RSEQ
#define LT_WORDS8 lt_probe__words8_general
#define LT_WORDS4 lt_probe__words4_general
__attribute__((visibility("hidden"))) void
lt_probe__words8_general(struct lt_event_desc *d, uint64_t lo, uint64_t hi,
			 uint32_t len);
__attribute__((visibility("hidden"))) void
lt_probe__words4_general(struct lt_event_desc *d, uint64_t lo, uint64_t hi,
			 uint32_t len);
/* the descriptors probe_x86_64.S's sequences name */
extern struct rseq_cs *lt_probe__seq_cs8 __attribute__((visibility("hidden")));
extern struct rseq_cs *lt_probe__seq_cs4 __attribute__((visibility("hidden")));

/*
 * Points each sequence at a copy of its descriptor that is never freed:
 * a thread's rseq area keeps the address after the sequence, and the
 * kernel reads it at the next preemption, even once the object holding
 * this code is unloaded.  Before any constructor of default priority (the
 * autostart session's); until it runs, the sequences name the originals.
 */
__attribute__((constructor(101))) static void lt_probe_seq_init(void)
{
	struct rseq_cs **cs[] = { &lt_probe__seq_cs8, &lt_probe__seq_cs4 };
	for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		struct rseq_cs *copy = aligned_alloc(32, sizeof(*copy));
		if (!copy)
			continue;
		*copy = **cs[i];
		/* relaxed: a constructor, before any thread of this process
		 * runs a sequence (x86-64 only, LT_HAVE_RSEQ) */
		__atomic_store_n(cs[i], copy, __ATOMIC_RELAXED);
	}
}

#else
#define LT_WORDS8 lt_probe_emit_words8
#define LT_WORDS4 lt_probe_emit_words4
#endif

void LT_WORDS8(struct lt_event_desc *d, uint64_t lo, uint64_t hi, uint32_t len)
{
	if (__builtin_expect(len - 8 > 8 || !emit_fast(d, NULL, lo, hi, 8, len),
			     0))
		lt_probe__words_slow(d, lo, hi, len);
}

void LT_WORDS4(struct lt_event_desc *d, uint64_t lo, uint64_t hi, uint32_t len)
{
	if (__builtin_expect(len - 4 > 3 || !emit_fast(d, NULL, lo, hi, 4, len),
			     0))
		lt_probe__words_slow(d, lo, hi, len);
}

/*
 * 1: registered for membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ);
 * -1: not usable; 0: not asked yet.  The registry's lock guards its
 * changes; probe_x86_64.S tests it for 1 at its entry.
 */
__attribute__((visibility("hidden"))) signed char lt_probe__seq_state;

void lt_probe_prepare(void)
{
	lt_rcu_init();
#ifdef LT_HAVE_RSEQ
	/* whether the sequences are used is decided later (the
	 * environment may still change); registered now, the later
	 * registration returns at once */
	long mask = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	if (mask > 0 && (mask & MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ))
		syscall(__NR_membarrier,
			MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0, 0);
#endif
}

int lt_probe_seq_usable(void)
{
#ifdef LT_HAVE_RSEQ
	int st = __atomic_load_n(&lt_probe__seq_state, __ATOMIC_RELAXED);
	if (st == 0) {
		const char *env = getenv("LOWTRACE_PROBE_SEQ");
		long mask =
			syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
		st = -1;
		/* rseq registered by glibc (not turned off by its tunable),
		 * its area up to rseq_cs */
		if (__rseq_size >= 16 && (!env || strcmp(env, "0") != 0) &&
		    mask > 0 &&
		    (mask & MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ) &&
		    syscall(__NR_membarrier,
			    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0,
			    0) == 0)
			st = 1;
		__atomic_store_n(&lt_probe__seq_state, (signed char)st,
				 __ATOMIC_RELAXED);
	}
	return st == 1;
#else
	return 0;
#endif
}

void lt_targets_free(struct lt_targets *t)
{
	for (uint32_t i = 0; t && i < t->n; i++)
		lt_filter_free(t->t[i].filter);
	free(t);
}

void lt_probe_readers_after_fork(void)
{
	lt_rcu_memb_reset_child();
	/* asked again: the child is another process */
	__atomic_store_n(&lt_probe__seq_state, 0, __ATOMIC_RELAXED);
}

void lt_probe_sync(void)
{
	lt_rcu_synchronize();
	/* the sequences of probe_x86_64.S in flight: each restarts, and
	 * reads the lists as they are now */
	while (__atomic_load_n(&lt_probe__seq_state, __ATOMIC_RELAXED) == 1 &&
	       syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
		       0, 0) != 0) {
		if (errno == EINTR || errno == EAGAIN)
			continue;
		/* registered, so not expected: a list could still be in
		 * use; say so and wait for the sequences to end anyway */
		fprintf(stderr,
			"lowtrace: membarrier(PRIVATE_EXPEDITED_RSEQ): %s; "
			"waiting 10 ms before freeing event lists\n",
			strerror(errno));
		usleep(10000);
		break;
	}
}
