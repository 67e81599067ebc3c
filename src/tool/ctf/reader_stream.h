/* SPDX-License-Identifier: MIT */
/*
 * reader_stream.h - the reader's state, private to src/tool/ctf/: a trace's
 * streams with their packet index and their place in the decoding, the
 * parts of a tree of traces, and the merge's heap.  reader_index.c fills a
 * stream's packets at open and walks the window through them; reader_decode.c
 * decodes events and merges the streams; reader.c opens and closes.
 */
#ifndef LT_CTF_READER_STREAM_H
#define LT_CTF_READER_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "ctf/reader.h"
#include "ctf/metadata.h"
#include "ctf/tsdl.h"
#include "format/event_header.h"

/* bytes of a stream's mapping walked through at a time (window_at()) */
#define LT_WINDOW (4u << 20)

/* bytes ahead of an event that its decoding asks the cache for */
#define LT_PREFETCH 2048

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

struct lt_packet {
	uint64_t off; /* in the file, bytes */
	uint64_t size, content; /* bytes */
	uint64_t ts_begin, ts_end;
	uint64_t seq, discarded;
	uint32_t cpu, pid;
	uint32_t hdr_len; /* bytes of packet header and context */
	int open_end; /* timestamp_end 0 on the last packet: no upper bound */
	int damaged; /* its decoding failed: said and counted once, not
		      * again on a later pass */
};

struct lt_stream {
	struct lt_reader *t;
	const struct lt_tsdl *m; /* its trace's metadata */
	unsigned index;
	/* its place among streams whose events have one time, as
	 * babeltrace2 orders them (set_tie_order()) */
	unsigned order;
	uint64_t instance; /* stream_instance_id, if has_instance */
	int has_instance;
	char *name, *path;
	const unsigned char *data;
	size_t len;
	uint64_t file_off; /* data's offset in the file, for messages */
	size_t map_len; /* nonzero when data is our mapping */
	size_t released; /* the mapping's pages before this are let go */
	size_t populated; /* and those from there to this mapped ahead */
	const struct lt_stream_class *sc;
	const struct lt_clock *clock; /* sc's */
	/* counts up to ns_lim are base_ns + counts ns (clock_ns.h's
	 * conversion: a clock of 1 GHz, before it saturates) */
	uint64_t ns_lim;
	int64_t base_ns;
	struct lt_packet *pk;
	size_t npk, pkcap;
	/* the index so far: the packets before ix_off, and what its next
	 * packet is checked against (reader_index.c); ix_done once it
	 * holds the stream's every packet */
	uint64_t ix_off, ix_prev_end, ix_prev_size;
	int ix_done;
	/* iteration */
	size_t cur; /* packet being read, npk when done */
	const unsigned char *pbase;
	size_t pos, end;
	uint64_t prev_ts, ts_end;
	int open_end;
	int err; /* sticky error */
	unsigned quirks; /* the quirks said of it (LT_QUIRK_*) */
	struct lt_event ev;
	uint32_t *off, *cnt;
	/* the fast path's event header (LT_FAST_*) and classes: ids below
	 * the compact header's escape whose fields have a fixed size or a
	 * step list (NULL: decode() decides) */
	uint8_t fast;
	const struct lt_event_class *fast_cls[LT_EV_ID_EXTENDED];
	/* the last id past the table that the fast path took, and its
	 * class (ext_cls NULL: none yet) */
	uint64_t ext_id;
	const struct lt_event_class *ext_cls;
};

/* Event headers that decode_fast() reads: none; lowtrace's compact one;
 * LTTng's compact one in either order; LTTng's large one in either order
 * (LTTng's with their extended forms). */
enum {
	LT_FAST_NONE,
	LT_FAST_OWN, /* lowtrace's: its extended header is decode()'s */
	LT_FAST_COMPACT,
	LT_FAST_COMPACT_BE,
	LT_FAST_LARGE,
	LT_FAST_LARGE_BE,
};

/* One trace of the tree lt_reader_open() was given: its metadata. */
struct lt_part {
	struct lt_tsdl m;
	char *meta; /* metadata text we read */
};

struct lt_reader {
	struct lt_part *parts;
	unsigned nparts;
	struct lt_stream *streams;
	unsigned nstreams;
	unsigned flags;
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
	uint64_t skipped;
	char err[1024];
	size_t page; /* the system's page size, for madvise() */
	/* merged iteration */
	struct lt_stream **heap;
	unsigned nheap;
	int merging;
	/* merging, streams in the heap and no error: lt_reader_next()'s
	 * path without the checks */
	int fast_merge;
	struct lt_stream *last;
	int merge_err;
};

/* Hands the reader's message to its warning callback. */
static inline void lt_reader_warn(struct lt_reader *t)
{
	if (t->warn)
		t->warn(t->warn_arg, t->err);
}

#endif
