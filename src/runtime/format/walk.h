/* SPDX-License-Identifier: MIT */
/*
 * walk.h - walking the records of one packet that lowtrace wrote, given
 * its events' field lists: for counting events, and for recovering the
 * whole records of a buffer whose writer died mid-record.
 */
#ifndef LT_FORMAT_WALK_H
#define LT_FORMAT_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "format/metadata.h"

/* Bytes of one payload at p per its fields; -1 if it runs past avail. */
long lt_ctf_payload_size(const struct lt_field_desc *f, uint32_t n,
			 const uint8_t *p, size_t avail);

struct lt_ctf_record {
	size_t start, end; /* bytes within the packet */
	uint32_t id;
	uint64_t ts;
};

typedef const struct lt_ctf_event *(*lt_ctf_lookup_fn)(void *arg, uint32_t id);
typedef void (*lt_ctf_record_fn)(void *arg, const struct lt_ctf_record *r);

/*
 * Walks the records of the packet pkt (its header included) up to len
 * bytes, calling fn for each whole one; stops at the first that does not
 * parse (unknown id, past the end, timestamp going backwards).  ctx:
 * bytes of event context before each payload (LT_CTF_PID_CONTEXT in a
 * shared channel's stream, else 0).  Returns the offset just after the
 * last good record.
 */
size_t lt_ctf_walk_records(const void *pkt, size_t len, size_t ctx,
			   lt_ctf_lookup_fn lookup, void *larg,
			   lt_ctf_record_fn fn, void *arg);

#endif
