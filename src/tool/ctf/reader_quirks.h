/* SPDX-License-Identifier: MIT */
/*
 * reader_quirks.h - the tracers' quirks the reader lets pass with a
 * warning, once per stream and kind, and the damaged packets it steps
 * over (reader_quirks.c).
 */
#ifndef LT_CTF_READER_QUIRKS_H
#define LT_CTF_READER_QUIRKS_H

#include <stddef.h>
#include <stdint.h>

#include "ctf/reader_stream.h"

/* Kinds of quirk (lt_stream.quirks: the ones already said). */
enum {
	LT_QUIRK_AFTER_END = 1, /* an event after its packet's end */
	LT_QUIRK_BEFORE_BEGIN = 2, /* a first event before its packet */
	LT_QUIRK_OVERLAP = 4, /* a packet begins before the last ended */
	LT_QUIRK_ZERO_END = 8, /* timestamp_end 0 (lttng-crash) */
	LT_QUIRK_DISCARDED_BACK = 16, /* events_discarded went back */
};

/* Warns of a quirk of kind at byte off of s's data ("FILE: offset N:
 * what"), the first time s shows it. */
void lt_quirk(struct lt_stream *s, unsigned kind, uint64_t off, const char *fmt,
	      ...) __attribute__((format(printf, 4, 5)));
/* The packet being read has an event at ts after its timestamp_end (at
 * byte tspos of the packet): said once. */
void lt_quirk_after_end(struct lt_stream *s, uint64_t ts, size_t tspos);
/* An event at ts before the one before it: 1 (said once) when it is the
 * packet's first event before the packet's timestamp_begin, else 0. */
int lt_quirk_before_begin(struct lt_stream *s, uint64_t ts, size_t tspos);
/* A packet skipped: t's message gets "(what)", goes to the warning
 * callback, and is counted. */
void lt_reader_skip(struct lt_reader *t, const char *what);

#endif
