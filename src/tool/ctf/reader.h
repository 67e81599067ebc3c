/* SPDX-License-Identifier: MIT */
/*
 * reader.h - the fast CTF 1.8 trace reader.
 *
 * Reads lowtrace's traces (docs/ctf-layout.md, with fast paths for their
 * layout) and other tracers' (LTTng's kernel and user-space traces, a
 * directory tree of traces): the TSDL metadata is parsed once (tsdl.c)
 * into event classes whose fields are a flat list of decode steps (the
 * contexts', then the payload's; nested structs and variants flattened,
 * arrays of compound elements and variants in variants as trees);
 * the stream files are mapped, their packet headers checked and indexed at
 * open; events are then decoded in place, one at a time, with no
 * allocation per event.  An event handed out stays valid until the next
 * call on the same iterator.
 *
 * Two ways to walk a trace: per stream (lt_stream_next(), one stream file
 * in file order) or merged (lt_reader_next(), every stream in time order by
 * a heap over the streams).  Do not mix them between two rewinds.
 *
 * Errors: every function that can fail returns a negative errno value and
 * leaves a message "FILE: offset N: what" (or "FILE:LINE: what" for the
 * metadata) that lt_reader_error() returns.  With LT_READER_SKIP_BAD a packet
 * whose header is sane but whose content is not is skipped with a warning
 * (the events before the fault in it have already been handed out).
 */
#ifndef LT_CTF_READER_H
#define LT_CTF_READER_H

#include "ctf/clock_ns.h"
#include "ctf/format.h"
#include "ctf/types.h"
#include "ctf/value.h"

#include <stddef.h>
#include <stdint.h>

typedef struct lt_reader lt_reader_t;
typedef struct lt_stream lt_stream_t;

#define LT_READER_SKIP_BAD 1u /* skip bad packets, warn, carry on */

struct lt_reader_opts {
	unsigned flags;
	/* called for each warning (skipped packets); NULL: kept silent */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
};

/* A stream file held in memory (lt_reader_open_mem()). */
struct lt_mem_stream {
	const char *name;
	const void *data;
	size_t len;
	/* for messages: the file (NULL: name) and data's offset in it */
	const char *path;
	uint64_t file_off;
};

/*
 * Opens the trace in dir (its metadata and every other regular file, not
 * starting with '.', as a stream).  On failure returns a negative errno and
 * writes a message into err.  opts may be NULL.
 */
int lt_reader_open(const char *dir, const struct lt_reader_opts *opts,
		   lt_reader_t **out, char *err, size_t errlen);
/* The same from memory; the buffers must outlive the trace. */
int lt_reader_open_mem(const char *metadata, size_t metadata_len,
		       const struct lt_mem_stream *streams, unsigned nstreams,
		       const struct lt_reader_opts *opts, lt_reader_t **out,
		       char *err, size_t errlen);
void lt_reader_close(lt_reader_t *t);

/*
 * The size in bytes of the packet at data (len bytes of a stream file from
 * a packet's start), read from its header with t's metadata (its first
 * trace's): 1 and *size when the len bytes hold the whole packet, 0 when
 * they do not yet (a file still being written), -ENOENT when its stream_id
 * is not in the metadata (not yet, in a recording), or -EBADMSG (a header
 * that is not sane, or one without packet_size), with a message.  A reader
 * of the metadata alone (lt_reader_open_mem() with no stream) can cut a
 * growing stream file into whole packets this way.
 */
int lt_reader_packet_size(lt_reader_t *t, const void *data, size_t len,
			  uint64_t *size);

/* The message of the last error (empty when none). */
const char *lt_reader_error(const lt_reader_t *t);
/* Packets skipped under LT_READER_SKIP_BAD. */
uint64_t lt_reader_skipped_packets(const lt_reader_t *t);

/* Merged iteration: 1 and *ev set, 0 at the end, or a negative errno. */
int lt_reader_next(lt_reader_t *t, const struct lt_event **ev);
/* Starts every iteration over. */
void lt_reader_rewind(lt_reader_t *t);

unsigned lt_reader_nstreams(const lt_reader_t *t);
lt_stream_t *lt_reader_stream(lt_reader_t *t, unsigned i);
const char *lt_stream_name(const lt_stream_t *s);
uint64_t lt_stream_npackets(const lt_stream_t *s);
/* Its last packet's timestamp_end, ns since the epoch (INT64_MAX: open,
 * INT64_MIN: no packet): its events to come are not earlier. */
int64_t lt_stream_end_ns(const lt_stream_t *s);
/* Events the tracer dropped in this stream (its last packet's count). */
uint64_t lt_stream_discarded(const lt_stream_t *s);
/* 0 when the stream's trace has no clock and no timestamps: its events
 * have no time (ns 0), and come in stream order. */
int lt_stream_has_clock(const lt_stream_t *s);
/* 1 when a stream of t has times (lt_stream_has_clock()), or t has no
 * stream and its first trace has a clock. */
int lt_reader_has_clock(const lt_reader_t *t);
/* Per-stream iteration, same return values as lt_reader_next(). */
int lt_stream_next(lt_stream_t *s, const struct lt_event **ev);

unsigned lt_reader_nclasses(const lt_reader_t *t);
const struct lt_event_class *lt_reader_class(const lt_reader_t *t, unsigned i);
const struct lt_clock *lt_reader_clock(const lt_reader_t *t);
/* A value of the env block, as text, or NULL (of the first trace that has
 * it, in a tree of traces). */
const char *lt_reader_env(const lt_reader_t *t, const char *key);
/* A value of the env block of the trace stream s belongs to, or NULL. */
const char *lt_stream_env(const lt_stream_t *s, const char *key);
/* Entry i of that env block as text, *key its key; NULL past the last
 * (a key given twice is there twice, lt_stream_env() takes the last). */
const char *lt_stream_env_at(const lt_stream_t *s, unsigned i,
			     const char **key);
/* The clock of stream s's events, and its file's path. */
const struct lt_clock *lt_stream_clock(const lt_stream_t *s);
const char *lt_stream_path(const lt_stream_t *s);

/* The earliest packet's timestamp_begin in ns since the epoch (0: none). */
int64_t lt_reader_begin_ns(const lt_reader_t *t);
#endif
