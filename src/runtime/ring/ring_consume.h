/* SPDX-License-Identifier: MIT */
/*
 * ring_consume.h - the consumer's side of a channel (ring.h), one consumer per
 * channel: complete sub-buffers lent and given back, flushes, snapshots
 * of overwrite channels, and the recovery of a dead writer's buffers.
 * Nothing outside the ring reads or writes a buffer's control block.
 */
#ifndef LT_RING_RING_CONSUME_H
#define LT_RING_RING_CONSUME_H

#include <stddef.h>
#include <stdint.h>

#include "ring/ring.h"

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

/* Events dropped in this CPU's buffer so far. */
uint64_t lt_ring_lost(const struct lt_ring *r, uint32_t cpu);

#endif
