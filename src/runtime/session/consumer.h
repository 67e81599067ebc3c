/* SPDX-License-Identifier: MIT */
/*
 * consumer.h - the consumer side of a trace: moving ring buffers into a
 * trace directory.  Shared by the in-process session (session.c) and the
 * recorder (src/tool/recorder/), which keep only how their buffers come to be.
 *
 * A consumer holds buffers: one ring each, written to the stream files
 * CHANNEL_PID_CPU (CHANNEL_PID.GEN_CPU for the GEN-th program a pid
 * exec()s; CHANNEL_uUID_CPU for buffers shared by a user's processes;
 * CHANNEL_CPU for a local buffer, which this process fills itself: the
 * recorder's kernel channel).  A pass writes the complete sub-buffers of
 * the discard ones;
 * the switch timer closes their partial sub-buffers now and then; a
 * snapshot copies the overwrite ones into a directory of its own; a
 * buffer whose process is gone is collected, keeping the whole records of
 * a sub-buffer its writer left incomplete; the end writes what is left.
 * The metadata has a stream class for each buffer.
 *
 * While it writes a directory, a consumer holds a shared flock() on it,
 * released with the stream files after the last metadata (or by the
 * kernel when the process dies): `lowtrace view --follow` knows a
 * recording has ended when it can take the lock exclusively, and nothing
 * is left behind to say otherwise.
 */
#ifndef LT_SESSION_CONSUMER_H
#define LT_SESSION_CONSUMER_H

#include <pthread.h>
#include <stdint.h>

#include "format/metadata.h"
#include "ring/ring_consume.h"
#include "session/streams.h"

/* What a consumer did with a group of buffers (a channel). */
struct lt_consumer_stats {
	uint64_t events; /* written, if the consumer counts them */
	uint64_t packets, bytes;
	uint64_t lost_full; /* dropped by full buffers (known at the end) */
	uint64_t lost_crash; /* reserved, never committed: the writer died */
	uint64_t lost_disk; /* packets not written */
};

/* The events a buffer's records can carry, by id (ctf/metadata.h). */
struct lt_event_table {
	struct lt_ctf_event *ev;
	uint32_t n;
};

struct lt_consumer_buf {
	/* set by the owner before lt_consumer_add() */
	struct lt_ring *ring; /* the consumer's from then on */
	const char *channel; /* outlives the consumer */
	uint32_t stream_id;
	int pid, gen;
	/* shared by the processes of user uid (per-user buffers): streams
	 * CHANNEL_uUID_CPU, records led by their writer's pid */
	int shared, uid;
	int overwrite;
	/*
	 * Filled by this process, one buffer for the trace (the recorder's
	 * kernel channel): streams CHANNEL_CPU; its writer closes the
	 * partial sub-buffers (at times only it knows) and keeps its ring;
	 * its records are not counted, its stream class is the caller's to
	 * give (lt_consumer_meta.more), its losses are not the processes'.
	 */
	int local;
	const struct lt_event_table *events; /* NULL if local */
	struct lt_consumer_stats *st; /* may be shared by several buffers */
	/* the consumer's */
	int live; /* its writers may write: a pass drains it */
	struct lt_stream_out *out; /* per CPU */
};

struct lt_consumer {
	const char *dir;
	uint8_t uuid[16];
	unsigned switch_ms;
	int count_events; /* walk each packet (needs the event tables) */
	const char *who; /* in messages: "" or "record: " */
	pthread_mutex_t lock; /* the stats, which other threads read */
	uint64_t last_switch_ms;
	struct lt_consumer_buf **bufs;
	uint32_t nbufs, cap;
	char *scratch; /* one sub-buffer, for recovery */
	uint64_t scratch_size;
	struct lt_recovery *recovery;
	/* the directory, flock()ed shared: its fd + 1 (0: none), and its
	 * slot + 1 in the process's list of locks (0: none) */
	int lock_fd, lock_slot;
};

void lt_consumer_init(struct lt_consumer *c, const char *dir,
		      const uint8_t uuid[16], unsigned switch_ms);
/* Closes the stream files, destroys the rings, frees what the consumer
 * holds (not c itself). */
void lt_consumer_destroy(struct lt_consumer *c);

/* Takes b (which must stay where it is) and its ring (not a local
 * one's); 0, or -ENOMEM and the ring is still the caller's. */
int lt_consumer_add(struct lt_consumer *c, struct lt_consumer_buf *b);

/* One pass: writes the complete sub-buffers of the live discard buffers;
 * returns how many. */
int lt_consumer_drain(struct lt_consumer *c);
/* Writes the complete sub-buffers of b now (a local buffer its writer
 * found full); returns how many. */
int lt_consumer_drain_buf(struct lt_consumer *c, struct lt_consumer_buf *b);
/* The switch timer: when switch_ms have passed since the last switch
 * (or the first call), closes the partial sub-buffers of the live discard
 * buffers but the local ones, for the next pass to write. */
void lt_consumer_switch_timer(struct lt_consumer *c);
/* A buffer whose process closed its connection: everything it committed
 * goes to the stream files (gone: no thread of it is left to write). */
void lt_consumer_collect(struct lt_consumer *c, struct lt_consumer_buf *b,
			 int gone);
/* The end: the rest of the live discard buffers, the newest sub-buffers
 * of the overwrite ones, and every buffer's losses into its stats. */
void lt_consumer_finish(struct lt_consumer *c);
/* The newest sub-buffers of every overwrite buffer, as stream files of
 * dir (a trace of its own with the metadata of only_overwrite); returns
 * how many packets. */
int lt_consumer_snapshot(struct lt_consumer *c, const char *dir);

/* Events dropped by full buffers so far, in all buffers but the local
 * ones. */
uint64_t lt_consumer_lost(const struct lt_consumer *c);
/* A copy of st, made under the lock. */
void lt_consumer_read_stats(struct lt_consumer *c,
			    const struct lt_consumer_stats *st,
			    struct lt_consumer_stats *out);

/* What the metadata says besides the buffers' stream classes. */
struct lt_consumer_meta {
	const char *hostname, *procname;
	int pid;
	const struct lt_ctf_stream *more; /* other streams (the kernel's) */
	uint32_t nmore;
	const char *const *env_extra; /* as in struct lt_ctf_trace */
	uint32_t nenv_extra;
};
/* Replaces dir/metadata: a stream class for each buffer but the local
 * ones (only the overwrite ones if only_overwrite), then m's; 0 or
 * -errno, after a message. */
int lt_consumer_write_metadata(struct lt_consumer *c, const char *dir,
			       int only_overwrite,
			       const struct lt_consumer_meta *m);

/* Closes the stream files and lets the directory's lock go (the end of
 * the recording, for a follower); the first -errno a close reported, or
 * 0. */
int lt_consumer_close(struct lt_consumer *c);

#endif
