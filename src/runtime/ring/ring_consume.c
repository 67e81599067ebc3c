/* SPDX-License-Identifier: MIT */
/*
 * ring_consume.c - the consumer's reads of a channel (ring_consume.h):
 * complete sub-buffers lent and given back, the open sub-buffer copied,
 * snapshots of overwrite channels, and what a dead writer left.  The
 * flushes, which close a sub-buffer as a writer would, are ring.c's.
 */
#define _GNU_SOURCE
#include "ring/ring.h"
#include "ring/ring_consume.h"
#include "ring/ring_write.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * The fence that orders a snapshot's racy copy (see lt_ring_snapshot()).
 * ThreadSanitizer does not model fences and gcc refuses C11 ones under
 * it; the copy is not instrumented, so there __sync_synchronize() stands
 * in: no edge for the tool, and a full barrier on the hardware of every
 * architecture (TSan's runtime executes one).
 */
#if defined(__SANITIZE_THREAD__)
#define lt_ring_fence(mo) ((void)(mo), __sync_synchronize())
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define lt_ring_fence(mo) ((void)(mo), __sync_synchronize())
#endif
#endif
#ifndef lt_ring_fence
#define lt_ring_fence(mo) atomic_thread_fence(mo)
#endif

static int subbuf_complete(const struct lt_ring *r, struct lt_ring_ctl *ctl,
			   uint64_t base)
{
	if (lt_ring_sync_of(r) == LT_RING_SYNC_RSEQ)
		/* acquire: pairs with the commit store of the sequence that
		 * moved the offset past it, after every byte below (rseq is
		 * x86-64 only, where every store is a release: rseq.h) */
		return atomic_load_explicit(&ctl->offset,
					    memory_order_acquire) >=
		       base + r->subbuf_size;
	uint64_t gen = base / r->buf_size;
	/* acquire: pairs with the release adds in lt_ring_commit() and
	 * lt_ring_close_subbuf(): every committed byte is visible.  Model:
	 * models/ring.pml, BUG_RELAXED_GET and BUG_RELAXED_READY */
	return atomic_load_explicit(&ctl->commit[lt_ring_slot(r, base)],
				    memory_order_acquire) ==
	       (gen + 1) * r->subbuf_size;
}

int lt_ring_get_subbuf(struct lt_ring *r, uint32_t cpu,
		       struct lt_ring_subbuf *sb)
{
	struct lt_ring_ctl *ctl = lt_ring_ctl(r, cpu);
	uint64_t base =
		atomic_load_explicit(&ctl->consumed, memory_order_relaxed);

	if (!subbuf_complete(r, ctl, base))
		return -EAGAIN;
	const struct lt_packet_header *h = lt_ring_packet_at(r, cpu, base);
	uint64_t len = h->content_size / 8;
	if (len < LT_PACKET_HDR_SIZE || len > r->subbuf_size)
		return -EIO; /* a writer in another process broke the header */
	sb->hdr = h;
	sb->data = h;
	sb->len = len;
	sb->seq = base >> r->subbuf_shift;
	return 0;
}

void lt_ring_put_subbuf(struct lt_ring *r, uint32_t cpu)
{
	struct lt_ring_ctl *ctl = lt_ring_ctl(r, cpu);
	uint64_t base =
		atomic_load_explicit(&ctl->consumed, memory_order_relaxed);
	/* release: our reads of the sub-buffer are done before writers may
	 * reuse it; pairs with the acquire load in lt_ring_subbuf_free().
	 * Model: models/ring.pml, BUG_RELAXED_PUT */
	atomic_store_explicit(&ctl->consumed, base + r->subbuf_size,
			      memory_order_release);
}

int lt_ring_copy_open(struct lt_ring *r, uint32_t cpu, lt_ring_packet_fn fn,
		      void *arg)
{
	struct lt_ring_ctl *ctl = lt_ring_ctl(r, cpu);
	const uint64_t S = r->subbuf_size;
	/* acquire: pairs with the commit store of the sequence that
	 * published the bytes below it (see subbuf_complete()) */
	uint64_t off = atomic_load_explicit(&ctl->offset, memory_order_acquire);
	if ((off & (S - 1)) == 0 || lt_ring_sync_of(r) != LT_RING_SYNC_RSEQ)
		return 0;
	uint64_t base = off & ~(S - 1), used = off - base;
	if (used < LT_PACKET_HDR_SIZE)
		return 0;
	char *copy = malloc(used);
	if (!copy)
		return -ENOMEM;
	/* published records stay as they are until the consumer moves on */
	memcpy(copy, lt_ring_packet_at(r, cpu, base), used);
	struct lt_packet_header *h = (void *)copy;
	uint64_t last =
		atomic_load_explicit(&ctl->last_tsc, memory_order_relaxed);
	uint64_t now = lt_clock_read_fast();
	lt_packet_end(h, now > last ? now : last, used, lt_ring_lost(r, cpu));
	int rc = fn(arg, h, copy, used);
	free(copy);
	return rc < 0 ? rc : 1;
}

void lt_ring_add_lost(struct lt_ring *r, uint32_t cpu, uint64_t n)
{
	atomic_fetch_add_explicit(&lt_ring_ctl(r, cpu)->lost_full, n,
				  memory_order_relaxed);
}

uint64_t lt_ring_read_pos(const struct lt_ring *r, uint32_t cpu)
{
	return atomic_load(&lt_ring_ctl(r, cpu)->consumed);
}

uint64_t lt_ring_write_end(const struct lt_ring *r, uint32_t cpu)
{
	uint64_t end = atomic_load(&lt_ring_ctl(r, cpu)->offset);
	return (end + r->subbuf_size - 1) & ~(r->subbuf_size - 1);
}

int lt_ring_recover_subbuf(struct lt_ring *r, uint32_t cpu, uint64_t base,
			   void *copy, uint64_t *committed, uint64_t *content)
{
	struct lt_ring_ctl *ctl = lt_ring_ctl(r, cpu);
	const uint64_t S = r->subbuf_size;
	uint64_t gen = base / r->buf_size;
	/* an rseq writer publishes whole records: the offset bounds them */
	int rseq = lt_ring_sync_of(r) == LT_RING_SYNC_RSEQ;
	uint64_t c = rseq ? atomic_load(&ctl->offset) - base :
			    atomic_load(&ctl->commit[lt_ring_slot(r, base)]) -
				     gen * S;

	memcpy(copy, lt_ring_packet_at(r, cpu, base), S);
	const struct lt_packet_header *h = copy;
	if (c > S || h->magic != LT_PACKET_MAGIC ||
	    h->packet_seq_num != base >> r->subbuf_shift)
		return -EIO;
	uint64_t n = h->content_size / 8;
	if (n < LT_PACKET_HDR_SIZE || n > S)
		/* never closed: an rseq buffer's records end at the offset;
		 * an atomic one's closer may have died too */
		n = rseq && c < S ? c : S;
	*committed = c;
	*content = n;
	return 0;
}

/*
 * Copies a sub-buffer that writers may be reusing at the same time; the
 * caller validates the copy afterwards, as a seqlock reader does, so the
 * race is intended and hidden from ThreadSanitizer.
 */
__attribute__((no_sanitize("thread"))) static void
racy_copy(void *dst, const void *src, size_t n)
{
	volatile const unsigned char *s = src;
	unsigned char *d = dst;
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
}

int lt_ring_snapshot(struct lt_ring *r, uint32_t cpu, lt_ring_packet_fn fn,
		     void *arg)
{
	struct lt_ring_ctl *ctl = lt_ring_ctl(r, cpu);
	const uint64_t S = r->subbuf_size;
	char *copy = malloc(r->buf_size);
	size_t lens[r->n_subbufs];
	int n = 0, rc = 0, delivered = 0;

	if (!copy)
		return -ENOMEM;
	memset(lens, 0, sizeof(lens));
	lt_ring_flush(r, cpu);
	uint64_t ahead = lt_ring_sync_of(r) == LT_RING_SYNC_RSEQ ? S : 0;
	uint64_t end = atomic_load_explicit(&ctl->offset, memory_order_acquire);
	uint64_t cur = end & ~(S - 1);
	/* newest first, stopping at the first that is missing or reused */
	for (uint32_t k = 1; k <= r->n_subbufs && (uint64_t)k * S <= cur; k++) {
		uint64_t base = cur - (uint64_t)k * S;
		/* the newest may still have a writer between reserve and
		 * commit, perhaps preempted there: give it up to 50 ms, then
		 * start from the one before (a writer that died never ends) */
		uint64_t give_up = lt_clock_read_monotonic() + 50000000;
		for (int spin = 0; k == 1 && !subbuf_complete(r, ctl, base);
		     spin++) {
			if (lt_clock_read_monotonic() > give_up)
				break;
			if (spin < 100) {
				sched_yield();
			} else {
				struct timespec d = { 0, 100000 };
				nanosleep(&d, NULL);
			}
		}
		if (!subbuf_complete(r, ctl, base)) {
			if (k == 1 && n == 0)
				continue;
			break;
		}
		char *dst = copy + (size_t)(k - 1) * S;
		racy_copy(dst, lt_ring_packet_at(r, cpu, base), S);
		/* acquire fence: the copy's loads come before the re-check;
		 * pairs with the full barrier of a writer's CAS
		 * (lt_ring_cas_pair(), atomic channels), which orders the
		 * offset that claims a byte before the byte, or with the
		 * order x86 keeps among a sequence's stores (rseq, x86-64
		 * only): a byte copied from a writer comes with its claim.
		 * Model: models/ring.pml, BUG_NOFENCE and BUG_RELAXED_CAS */
		lt_ring_fence(memory_order_acquire);
		uint64_t now = atomic_load_explicit(&ctl->offset,
						    memory_order_relaxed);
		/* a writer entered this slot again; or, rseq, may have
		 * written into it ahead of its commit: a sequence writes up
		 * to the end of the sub-buffer after the open one (a switch),
		 * and one that was restarted leaves its bytes there.  Found
		 * by models/ring_rseq.pml. */
		if (now + ahead > base + r->buf_size)
			break;
		uint64_t len = lt_packet_content((const void *)dst,
						 base >> r->subbuf_shift, S);
		if (!len)
			break;
		lens[k - 1] = (size_t)len;
		n = (int)k;
	}
	for (int k = n; k >= 1 && rc == 0; k--) {
		if (!lens[k - 1])
			continue; /* the newest, skipped above */
		const char *pkt = copy + (size_t)(k - 1) * S;
		rc = fn(arg, (const void *)pkt, pkt, lens[k - 1]);
		delivered++;
	}
	free(copy);
	return rc < 0 ? rc : delivered;
}
