/* SPDX-License-Identifier: MIT */
/*
 * header.h - packet headers, packet contexts and event headers of any
 * layout: the metadata compiler (tsdl_header.c) turns each of these
 * structs into a tree of struct lt_hnode, and lt_hdr_read() walks it over
 * a packet's bytes and gathers the values the reader needs by their role
 * (the field's name: magic, stream_id, timestamp_begin, ..., the event's
 * id and timestamp).
 * Integers may have any size of 1 to 64 bits, any bit alignment and either
 * byte order; variants are chosen by an enum tag read before them.
 */
#ifndef LT_CTF_HEADER_H
#define LT_CTF_HEADER_H

#include "ctf/load.h"

#include <stddef.h>
#include <stdint.h>

enum lt_hdr_role {
	LT_ROLE_NONE = 0,
	LT_ROLE_MAGIC,
	LT_ROLE_UUID, /* an array of 16 bytes: its offset is kept */
	LT_ROLE_STREAM_ID,
	LT_ROLE_STREAM_INSTANCE_ID,
	LT_ROLE_TS_BEGIN,
	LT_ROLE_TS_END,
	LT_ROLE_CONTENT_SIZE,
	LT_ROLE_PACKET_SIZE,
	LT_ROLE_SEQ,
	LT_ROLE_DISCARDED,
	LT_ROLE_CPU,
	LT_ROLE_PID,
	LT_ROLE_ID, /* the event header's: the last one read wins */
	LT_ROLE_TS,
	LT_ROLE_N
};

enum lt_hnode_kind {
	LT_HN_INT,
	LT_HN_BYTES, /* an array of 8-bit integers, not read */
	LT_HN_STRUCT,
	LT_HN_VARIANT
};

#define LT_HDR_REGS 32 /* integers of one header a variant may name */

/* A variant's option for the tag values lo..hi. */
struct lt_hsel {
	uint64_t lo, hi;
	uint32_t kid;
};

struct lt_hnode {
	uint8_t kind; /* enum lt_hnode_kind */
	uint8_t role; /* enum lt_hdr_role */
	uint8_t size; /* INT: bits */
	uint8_t be; /* INT: big-endian */
	uint8_t reg; /* INT: register its value goes to; VARIANT: the tag's */
	uint8_t tag_signed; /* INT: signed; VARIANT: its tag is */
	uint32_t align; /* bits */
	uint32_t length; /* BYTES: count */
	uint32_t nkids;
	const struct lt_hnode *kids;
	const struct lt_hsel *sel; /* VARIANT */
	uint32_t nsel;
};

/* What a header held: values by role, and where each was (bits). */
struct lt_hvals {
	uint64_t v[LT_ROLE_N];
	uint64_t at[LT_ROLE_N]; /* bit offset of the value read last */
	uint32_t set; /* bit r: role r was read */
	uint8_t ts_bits; /* size of the LT_ROLE_TS read last */
	uint64_t regs[LT_HDR_REGS];
};

/*
 * A header without a variant, as its packets' indexing reads it: each
 * field with a role at a fixed bit offset from the packet's start, read
 * in a loop over them, not a walk of the tree.  flat: the header has that
 * form (placed where it is read: the packet header at bit 0, a context
 * right after a flat packet header).
 */
struct lt_hflat_item {
	uint32_t at; /* bits from the packet's start */
	uint8_t size; /* bits; 0: a byte array (only its offset is kept) */
	uint8_t be, role;
};

struct lt_hflat {
	const struct lt_hflat_item *items;
	uint32_t n;
	uint8_t flat;
	uint64_t start, end; /* bits: where it is placed, where it ends */
};

/*
 * Reads a header as lt_hdr_read() reads its tree n from *bit, by its flat
 * form f when f applies there and the header is within end bytes (else by
 * the tree).
 */
int lt_hdr_read_placed(const struct lt_hflat *f, const struct lt_hnode *n,
		       const unsigned char *b, size_t end, uint64_t *bit,
		       struct lt_hvals *out);

/*
 * Reads node n from bit *bit of b (end: the bytes there are), updating
 * *bit and out.  Returns 0, -1 when a field goes past end (*bit then is
 * where it starts), or -2 when a variant's tag selects no option.
 */
int lt_hdr_read(const struct lt_hnode *n, const unsigned char *b, size_t end,
		uint64_t *bit, struct lt_hvals *out);

/* An integer of size bits at bit offset bit of b (little- or big-endian,
 * as CTF numbers the bits of each); the bytes must be there. */
uint64_t lt_hdr_bits_any(const unsigned char *b, uint64_t bit, unsigned size,
			 int be);

/* lt_hdr_bits_any(), with the common little-endian bit-field in line: the
 * word that ends on its last byte (never before b), one load, no loop. */
static inline uint64_t lt_hdr_bits(const unsigned char *b, uint64_t bit,
				   unsigned size, int be)
{
	uint64_t first = bit / 8, last = (bit + size - 1) / 8;
	if (__builtin_expect(!be && last - first < 8 && last >= 7, 1)) {
		uint64_t w = ld64(b + last - 7) >>
			     (8 * (first + 7 - last) + bit % 8);
		return size == 64 ? w : w & ((1ull << size) - 1);
	}
	return lt_hdr_bits_any(b, bit, size, be);
}

#endif
