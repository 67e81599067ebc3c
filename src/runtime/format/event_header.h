/* SPDX-License-Identifier: MIT */
/*
 * event_header.h - the event header of lowtrace's layout: its one encoder
 * and its one decoder, side by side (docs/ctf-layout.md; metadata.c
 * describes it to readers).  It is LTTng's compact header, so the reader
 * decodes LTTng's with the same functions.
 *
 * 4-byte aligned: compact is one little-endian 32-bit word, id in bits
 * 0-4 and the low 27 bits of the timestamp above; id 31 says extended: a
 * byte 31, then a 32-bit id and a 64-bit timestamp (13 bytes).  A reader
 * rebuilds a compact timestamp from the previous one in the stream (the
 * packet's timestamp_begin for the first), taking the 27 bits to have
 * wrapped at most once; writers use the extended form when the gap may be
 * longer.
 */
#ifndef LT_FORMAT_EVENT_HEADER_H
#define LT_FORMAT_EVENT_HEADER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define LT_EV_ID_EXTENDED 31u
#define LT_EV_ID_BITS 5
#define LT_EV_TS_BITS 27
#define LT_EV_TS_MASK ((1ull << LT_EV_TS_BITS) - 1)
#define LT_EV_HDR_COMPACT 4u
#define LT_EV_HDR_EXTENDED 13u
#define LT_EV_ALIGN 4u
/* a record's worst case beyond the offset before it, besides its
 * payload: the alignment and a compact header */
#define LT_EV_SLACK (LT_EV_ALIGN - 1 + LT_EV_HDR_COMPACT)

/* The compact header of event id (< LT_EV_ID_EXTENDED) at time ts. */
static inline uint32_t lt_ev_compact(uint32_t id, uint64_t ts)
{
	return id | (uint32_t)(ts << LT_EV_ID_BITS);
}

/* Writes the event header of hsz bytes (LT_EV_HDR_COMPACT or
 * LT_EV_HDR_EXTENDED) at p. */
static inline __attribute__((always_inline)) void
lt_ev_header_put(void *p, uint32_t hsz, uint32_t id, uint64_t ts)
{
	unsigned char *b = p;
	if (hsz == LT_EV_HDR_COMPACT) {
		uint32_t w = lt_ev_compact(id, ts);
		memcpy(b, &w, 4);
	} else {
		b[0] = (unsigned char)LT_EV_ID_EXTENDED;
		memcpy(b + 1, &id, 4);
		memcpy(b + 5, &ts, 8);
	}
}

/*
 * A compact header's word, in the stream's byte order: its id and its
 * timestamp's low bits.  be: the bit layout of a big-endian writer (LTTng
 * on such a machine), id in the top 5 bits.
 */
static inline __attribute__((always_inline)) void
lt_ev_compact_split(uint32_t w, int be, uint64_t *id, uint64_t *low)
{
	if (be) {
		*id = w >> LT_EV_TS_BITS;
		*low = w & LT_EV_TS_MASK;
	} else {
		*id = w & LT_EV_ID_EXTENDED;
		*low = w >> LT_EV_ID_BITS;
	}
}

/*
 * The timestamp whose low bits (mask = 2^bits - 1) are low, the first
 * after prev: the low bits wrapped at most once.  A 64-bit field (mask
 * all ones) gives low itself, which may then be before prev: the caller
 * checks.
 */
static inline __attribute__((always_inline)) uint64_t
lt_ev_ts_rebuild(uint64_t prev, uint64_t low, uint64_t mask)
{
	uint64_t ts = (prev & ~mask) | low;
	if (low < (prev & mask))
		ts += mask + 1;
	return ts;
}

/* What lt_ev_header_get() finds besides a header. */
enum {
	LT_EV_GET_SHORT = 0, /* no room for a compact header */
	LT_EV_GET_SHORT_EXT = -1, /* an extended one runs past the end */
	LT_EV_GET_BAD = -2, /* id 31 in a word whose first byte is not 31 */
};

/*
 * Decodes the event header at p (aligned), with n bytes after it, the
 * stream's previous timestamp prev: its size with *id and *ts set, else
 * LT_EV_GET_*.  A timestamp before prev is the caller's to judge (an
 * extended header's is taken as written).
 */
static inline __attribute__((always_inline)) int
lt_ev_header_get(const unsigned char *p, size_t n, uint64_t prev, uint32_t *id,
		 uint64_t *ts)
{
	uint32_t w;
	if (n < LT_EV_HDR_COMPACT)
		return LT_EV_GET_SHORT;
	memcpy(&w, p, 4);
	if ((w & LT_EV_ID_EXTENDED) != LT_EV_ID_EXTENDED) {
		*id = w & LT_EV_ID_EXTENDED;
		*ts = lt_ev_ts_rebuild(prev, w >> LT_EV_ID_BITS, LT_EV_TS_MASK);
		return LT_EV_HDR_COMPACT;
	}
	if (n < LT_EV_HDR_EXTENDED)
		return LT_EV_GET_SHORT_EXT;
	if (p[0] != LT_EV_ID_EXTENDED)
		return LT_EV_GET_BAD;
	memcpy(id, p + 1, 4);
	memcpy(ts, p + 5, 8);
	return LT_EV_HDR_EXTENDED;
}

#endif
