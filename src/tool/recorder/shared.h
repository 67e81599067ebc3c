/* SPDX-License-Identifier: MIT */
/*
 * shared.h - the recorder's per-user buffers (`--buffers per-user`): one
 * ring per channel for all the processes of one user, instead of one per
 * process and channel, so that the memory of a recording does not grow
 * with the processes it attaches.
 *
 * The processes agree on event ids through the user's id table (idtab.h)
 * and lead each record with their pid (the stream's `vpid` event
 * context).  Each describes its events (EVENT) before it claims an id for
 * one, so the recorder has the description of every id it finds claimed,
 * once it has read what the process sent.  The rings are rseq channels
 * alone: a sequence that a preemption, a signal or the death of its
 * process interrupts publishes nothing, so a process killed mid-record
 * leaves the others' records whole; an atomic channel's reservation by a
 * process that died would hold its sub-buffer incomplete for good.
 */
#ifndef LT_SESSION_SHARED_H
#define LT_SESSION_SHARED_H

#include <stddef.h>
#include <stdint.h>

#include "session/consumer.h"
#include "session/idtab.h"
#include "session/proto.h"

struct lt_shared_desc; /* a description received, by key */

struct lt_shared {
	int uid;
	/* the channels' buffers, set up by the recorder (the consumer's
	 * once added) */
	struct lt_consumer_buf buf[LT_PROTO_MAX_CHANNELS];
	struct lt_idtab *ids;
	/* by shared id; entries borrow their names and fields from descs */
	struct lt_event_table events;
	struct lt_shared_desc *descs;
	uint32_t ndescs, cap;
	uint32_t known; /* ids 0 .. known-1 are in events */
};

/* Slots of a user's id table: events, across all its programs. */
#define LT_SHARED_IDS 4096

/* A user's set, with its id table; 0 or -errno. */
int lt_shared_init(struct lt_shared *u, int uid);
/* Frees what u holds but its buffers (the consumer's). */
void lt_shared_free(struct lt_shared *u);
/* An EVENT message from one of the user's processes; 0 or -EPROTO. */
int lt_shared_describe(struct lt_shared *u, const void *msg, size_t len);
/* Takes into events the ids claimed since the last call whose
 * descriptions have come; 1 if events grew, and *waiting is set when a
 * claimed id still has none (its description is yet to be read). */
int lt_shared_refresh(struct lt_shared *u, int *waiting);

#endif
