/* SPDX-License-Identifier: MIT */
/*
 * span.h - spans: a start event and its end on one thread
 * (postgresql:query__start .. postgresql:query__done,
 * python:function__entry .. function__return), paired per thread with
 * nesting respected: an end closes the latest open start of its pair on
 * that thread, and starts opened above it that never closed are dropped.
 *
 * The pairs are given (`A..B`, `*` wildcards in either name) or found by
 * name: X__start/X__done, X__entry/X__return, X/X__return (a function
 * and its return probe), X_start/X_done, X_entry/X_exit, X_begin/X_end.
 * The tracker also keeps, per thread, the last spans closed and the last
 * marker events seen (events other than the kernel's scheduling, irq,
 * timer and system call tracepoints), for the explanations: what ran
 * inside a span, what the thread that ended a wait had just done.
 */
#ifndef LT_ANALYSIS_SPAN_H
#define LT_ANALYSIS_SPAN_H

#include <stddef.h>
#include <stdint.h>

#include "ctf/reader.h"

struct lt_span_pair {
	char start[128], end[128]; /* globs */
};

/* Parses "A..B"; 0 or -EINVAL with a message in err. */
int lt_span_parse(const char *spec, struct lt_span_pair *p, char *err,
		  size_t errlen);

struct lt_span {
	const char *name; /* "START..END" (the events' names) */
	int32_t tid;
	int64_t begin, end; /* ns */
	const char *fields; /* the start event's fields, "{ ... }" */
	unsigned key; /* the pair's index (lt_spans_key) */
	unsigned depth; /* spans open under it on the thread */
	int given; /* of the pair given, not one found by name */
};

struct lt_span_tracker;

/* pair NULL: the pairs found by name only; otherwise both, the given one
 * flagged. */
struct lt_span_tracker *lt_spans_new(const lt_reader_t *t,
				     const struct lt_span_pair *pair);
void lt_spans_free(struct lt_span_tracker *s);

typedef void (*lt_span_fn)(void *arg, const struct lt_span *sp);
/* Takes one event (in time order); calls fn for a span it closes. */
int lt_spans_feed(struct lt_span_tracker *s, const struct lt_event *ev,
		  lt_span_fn fn, void *arg);

/* 1 if events of class c start or end spans (the only ones whose
 * lt_spans_feed() can close a span), else 0. */
int lt_spans_pairs_class(const struct lt_span_tracker *s,
			 const struct lt_event_class *c);

/* The spans of tid closed within [begin, end] (most recent kept only),
 * other than one of exactly those bounds; how many written to out. */
size_t lt_spans_inside(const struct lt_span_tracker *s, int32_t tid,
		       int64_t begin, int64_t end, struct lt_span *out,
		       size_t max);

/* The marker events of tid at or before ns, most recent first: names
 * and times, up to max; how many. */
size_t lt_spans_marks_before(const struct lt_span_tracker *s, int32_t tid,
			     int64_t ns, const char **names, int64_t *at,
			     size_t max);

/* The pairs: how many, and the name of pair i ("START..END"). */
unsigned lt_spans_nkeys(const struct lt_span_tracker *s);
const char *lt_spans_key(const struct lt_span_tracker *s, unsigned i);

#endif
