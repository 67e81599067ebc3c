/* SPDX-License-Identifier: MIT */
/*
 * reader_index.h - a stream's packets: indexed and checked at open, and
 * entered one after the other through a window of the mapping
 * (reader_index.c).
 */
#ifndef LT_CTF_READER_INDEX_H
#define LT_CTF_READER_INDEX_H

#include <stddef.h>

#include "ctf/reader_stream.h"

/* Reads and checks the packet headers of s into s->pk, all of them or
 * (lazily) the first few: 0, or -EBADMSG with t's message (a bad packet
 * is skipped with LT_READER_SKIP_BAD), or -ENOMEM. */
int lt_stream_index(struct lt_reader *t, struct lt_stream *s);
/* The index of s made whole (for its packet count, its last packet):
 * 0, or an error as above. */
int lt_stream_index_whole(struct lt_stream *s);
/* Maps need bytes of s from off ahead of reading them, and lets go of
 * the pages behind off. */
void lt_stream_window(struct lt_stream *s, size_t off, size_t need);
/* Back to the first packet of s. */
void lt_stream_rewind(struct lt_stream *s);
/* Enters the next packet of s, indexing the next ones first when the
 * index ends there: 1, or 0 after the last (s->err set when the index
 * could not grow). */
int lt_stream_next_packet(struct lt_stream *s);

#endif
