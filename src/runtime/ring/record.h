/* SPDX-License-Identifier: MIT */
/*
 * record.h - where a record goes in a per-CPU buffer: the one decision
 * every writer of the ring takes (the inline fast paths and the general
 * writers of ring/ring_write.h and ring.c).  The bytes at the places it finds
 * are the format's: the packet header that opens a sub-buffer
 * (format/packet_header.h) and the event header of a record
 * (format/event_header.h).  The call
 * sites' sequence and probe_x86_64.S, written in assembly, follow the
 * same rules with the constants of lowtrace/ring_offsets.h, generated
 * from these.
 *
 * A buffer's state is its free-running write offset and the last
 * record's timestamp (struct lt_ring_ctl); S is the sub-buffer size, a
 * power of two.  A record is an event header, 4-byte aligned, then its
 * payload; it never straddles sub-buffers, and the first record of a
 * sub-buffer follows its packet header.
 */
#ifndef LT_RING_RECORD_H
#define LT_RING_RECORD_H

#include <stdint.h>

#include "format/event_header.h"
#include "format/packet_header.h"

/*
 * Every writer's common case, tried first: a record of len payload bytes
 * at time ts (no earlier than last), with a compact header, in the
 * sub-buffer open at old, with room to spare after it (neither a switch
 * nor a close; a record that would end in the last LT_EV_ALIGN - 1 bytes
 * takes the general path).  One comparison decides both "a sub-buffer is
 * open" (off - 1 wraps at its start) and "the record fits"; another that
 * the timestamp's gap fits the compact header.  The caller checks that
 * the id is a compact one, and that len <= S - LT_EV_SLACK - 1 (or knows
 * it: a payload of a few words).
 * Returns 0 with the header's offset in *rec and the record's end in *end;
 * 1: the general path (lt_ring_place()).
 */
static inline __attribute__((always_inline)) int
lt_ring_try_compact(uint64_t S, uint64_t old, uint64_t last, uint64_t ts,
		    uint32_t len, uint64_t *rec, uint64_t *end)
{
	uint64_t off = old & (S - 1);
	*rec = (old + LT_EV_ALIGN - 1) & ~(uint64_t)(LT_EV_ALIGN - 1);
	*end = *rec + LT_EV_HDR_COMPACT + len;
	return __builtin_expect(off - 1 >= S - (LT_EV_SLACK + 1) - len ||
					ts - last >= (1ull << LT_EV_TS_BITS),
				0);
}

/* Where lt_ring_place() puts a record. */
struct lt_ring_place {
	uint64_t begin; /* what the writer takes from: old, or the next
			 * sub-buffer's start on a switch */
	uint64_t rec, end; /* the event header's offset, the record's end */
	uint32_t hsz; /* the event header's size */
	int enter; /* the record opens a sub-buffer at begin */
	int sw; /* ... after closing the one open at old (padding) */
	int fill; /* it ends at its sub-buffer's end: it closes it */
};

/*
 * Every case: a record of event id and len payload bytes at time ts (no
 * earlier than last) in a buffer at offset old.  It goes in the open
 * sub-buffer if it fits there, else it switches to the next one; the
 * first record of a sub-buffer has a compact header whatever the gap (its
 * delta to timestamp_begin is 0).  Whether the sub-buffer it enters is
 * free (else the record is dropped) is the caller's to ask
 * (lt_ring_subbuf_free()).
 */
static inline __attribute__((always_inline)) void
lt_ring_place(uint64_t S, uint64_t old, uint64_t last, uint64_t ts, uint32_t id,
	      uint32_t len, struct lt_ring_place *pl)
{
	uint64_t obase = old & ~(S - 1);
	int compact = id < LT_EV_ID_EXTENDED;

	pl->enter = (old & (S - 1)) == 0;
	pl->sw = 0;
	if (!pl->enter) {
		/* the exact previous timestamp: the gap decides */
		pl->hsz = compact && ts - last < (1ull << LT_EV_TS_BITS) ?
				  LT_EV_HDR_COMPACT :
				  LT_EV_HDR_EXTENDED;
		pl->begin = old;
		pl->rec =
			(old + LT_EV_ALIGN - 1) & ~(uint64_t)(LT_EV_ALIGN - 1);
		pl->end = pl->rec + pl->hsz + len;
		if (pl->end - obase > S)
			pl->sw = pl->enter = 1;
	}
	if (pl->enter) {
		pl->begin = pl->sw ? obase + S : old;
		pl->hsz = compact ? LT_EV_HDR_COMPACT : LT_EV_HDR_EXTENDED;
		pl->rec = pl->begin + LT_PACKET_HDR_SIZE;
		pl->end = pl->rec + pl->hsz + len;
	}
	/* a record that ends exactly at the boundary closes its own
	 * sub-buffer: nobody else will find it open */
	pl->fill = (pl->end & (S - 1)) == 0;
}

#endif
