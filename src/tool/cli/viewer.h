/* SPDX-License-Identifier: MIT */
/*
 * viewer.h - the printing half of `lowtrace view`, shared by the verb
 * (view.c) and the follower of a recording (follow.c): the options, the
 * selection of events (-e, --begin, --end), one line per event, the
 * warnings about events the tracer discarded.
 */
#ifndef LT_CLI_VIEWER_H
#define LT_CLI_VIEWER_H

#include "analysis/analysis.h"
#include "ctf/reader.h"

#include <stddef.h>
#include <stdint.h>

#define LT_VIEW "view"
#define LT_VIEW_MAX_PATTERNS 64

struct lt_view_opts {
	const char *dir;
	char *patterns; /* -e, split in place */
	const char *begin, *end;
	int no_delta, fields, stats, skip_bad, follow;
};

/* The "[HH:MM:SS." of a second, in local time, cached per second. */
struct lt_view_tod {
	int64_t sec;
	int valid;
	char text[16];
};

/*
 * Texts of a line made once and copied whole, LT_VIEW_TEXT bytes at a
 * time (a copy of a fixed size is a few moves; one of a varying size, a
 * call and its branches): per stream, babeltrace2's text of its trace's
 * env and " cpu N " for the stream's last CPU; per event class "NAME: ".
 */
#define LT_VIEW_TEXT 64
struct lt_view_stream {
	char *host; /* " host:procname:(vpid)", those the env has; "" */
	size_t host_len;
	uint32_t cpu; /* text holds host and " cpu CPU " ... */
	uint32_t len; /* ... of len bytes (0: none yet; > LT_VIEW_TEXT: not
		       * held, written each time) */
	char text[LT_VIEW_TEXT];
	/* the stream's trace has no clock: its lines have no time, and
	 * start with the host (as babeltrace2 prints them) */
	int timeless;
};

struct lt_view {
	const struct lt_view_opts *opts;
	/* the output buffer, written with write(2) */
	char *buf;
	size_t len, cap;
	int failed; /* an errno of the output */
	/* -e: each a name glob, with an optional condition */
	struct lt_anchor pats[LT_VIEW_MAX_PATTERNS];
	unsigned npats;
	int64_t lo, hi; /* --begin, --end */
	/* the line before */
	struct lt_view_tod tod;
	int64_t prev;
	int have_prev;
	/* of the reader walked (lt_view_bind()) */
	struct lt_view_stream *streams;
	unsigned nstreams;
	char (*names)[LT_VIEW_TEXT]; /* per class: "NAME: " if it fits */
	unsigned nnames;
};

/* Splits the patterns, allocates the buffer; 0, or 1 (an exit status)
 * after a message. */
int lt_view_init(struct lt_view *v, const struct lt_view_opts *o);
void lt_view_fini(struct lt_view *v);
/* Parses --begin and --end, a time of day on first_ns's day; 0 or 1. */
int lt_view_times(struct lt_view *v, int64_t first_ns);
/* One byte per event class of t: 0 none of its events is printed, 1
 * all, 2 those a condition of -e takes; NULL when out of memory. */
unsigned char *lt_view_select(const struct lt_view *v, const lt_reader_t *t);
/* 1 if sel (lt_view_select()), the conditions and the times take ev. */
int lt_view_takes(const struct lt_view *v, const unsigned char *sel,
		  const struct lt_event *ev);
/* The texts of t's lines: each stream's host (the env's hostname,
 * procname and (vpid), those it has, joined by ':' as babeltrace2 prints
 * them), each class's name; 0 or -ENOMEM.  Again for each reader walked. */
int lt_view_bind(struct lt_view *v, const lt_reader_t *t);
/* Prints ev's line if lt_view_takes() it; 0 or -ENOMEM. */
int lt_view_event(struct lt_view *v, const unsigned char *sel,
		  const struct lt_event *ev);
/* Prints every event of t that sel takes, with the warnings about events
 * the tracer discarded, and flushes; 0, or 1 (an exit status) after a
 * message. */
int lt_view_print(struct lt_view *v, lt_reader_t *t, const unsigned char *sel);
/* Writes out what the buffer holds. */
void lt_view_flush(struct lt_view *v);

/* The reader's warnings (skipped packets), in order with the output;
 * arg is the struct lt_view. */
void lt_view_on_warning(void *arg, const char *msg);
/* ev's stream count of discarded events is not *seen: say so, *seen
 * becomes it. */
void lt_view_warn_lost(struct lt_view *v, const struct lt_event *ev,
		       uint64_t *seen);
/* A stream whose count grew after its last event (now: its last
 * packet's). */
void lt_view_warn_lost_at_end(struct lt_view *v, const char *stream,
			      uint64_t now, uint64_t seen);
/* The exit status after lt_reader_next() failed with r, after a message. */
int lt_view_iter_error(lt_reader_t *t, int r);

#endif
