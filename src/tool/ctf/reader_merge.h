/* SPDX-License-Identifier: MIT */
/*
 * reader_merge.h - the merge of a trace's streams in time order: a
 * min-heap of streams keyed by (ns, order), private to reader_decode.c,
 * whose lt_reader_next() restores it in line after each event.
 */
#ifndef LT_CTF_READER_MERGE_H
#define LT_CTF_READER_MERGE_H

#include "ctf/reader_stream.h"

#include <stdint.h>

static inline int heap_less(const struct lt_stream *a,
			    const struct lt_stream *b)
{
	/* by time since the epoch, as babeltrace2 merges (two clock counts
	 * may make one ns: then the streams' order decides, not the
	 * counts) */
	return a->ev.ns < b->ev.ns ||
	       (a->ev.ns == b->ev.ns && a->order < b->order);
}
static __attribute__((noinline, unused)) void sift_down(struct lt_reader *t,
							unsigned i)
{
	struct lt_stream **h = t->heap;
	unsigned n = t->nheap;
	struct lt_stream *x = h[i];
	for (;;) {
		unsigned c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && heap_less(h[c + 1], h[c]))
			c++;
		if (!heap_less(h[c], x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/* sift_down() of the top for a heap of four to seven streams (a few
 * CPUs' streams and one more): two levels below the top, the earlier kid
 * of each by a select, without sift_down()'s loop.  Out of line: in
 * line, the merge of two or three streams took a few percent longer. */
static __attribute__((noinline, unused)) void sift_small(struct lt_reader *t)
{
	struct lt_stream **h = t->heap;
	const unsigned n = t->nheap;
	struct lt_stream *x = h[0];
	unsigned c = 1 + heap_less(h[2], h[1]);
	if (!heap_less(h[c], x))
		return;
	h[0] = h[c];
	unsigned k = 2 * c + 1;
	if (k < n) {
		k += k + 1 < n && heap_less(h[k + 1], h[k]);
		if (heap_less(h[k], x)) {
			h[c] = h[k];
			c = k;
		}
	}
	h[c] = x;
}

/* The top stream's event changed: restores the heap (the common case,
 * the top still the earliest or two streams, without a call). */
static inline __attribute__((always_inline)) void
heap_fix_top(struct lt_reader *t)
{
	struct lt_stream **h = t->heap;
	if (t->nheap == 2) {
		/* without a branch: which stream is next is a coin toss */
		struct lt_stream *a = h[0], *b = h[1];
		uintptr_t sw = -(uintptr_t)heap_less(b, a);
		uintptr_t x = ((uintptr_t)a ^ (uintptr_t)b) & sw;
		h[0] = (struct lt_stream *)((uintptr_t)a ^ x);
		h[1] = (struct lt_stream *)((uintptr_t)b ^ x);
		return;
	}
	if (t->nheap == 3) {
		/* a CPU's stream against the two others, in line */
		unsigned c = heap_less(h[2], h[1]) ? 2 : 1;
		if (heap_less(h[c], h[0])) {
			struct lt_stream *x = h[0];
			h[0] = h[c];
			h[c] = x;
		}
		return;
	}
	if (t->nheap > 7)
		sift_down(t, 0);
	else if (t->nheap > 3)
		sift_small(t);
}

#endif
