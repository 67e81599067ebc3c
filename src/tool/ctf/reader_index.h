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

/* Reads and checks every packet header of s into s->pk: 0, or -EBADMSG
 * with t's message (a bad packet is skipped with LT_READER_SKIP_BAD). */
int lt_stream_index(struct lt_reader *t, struct lt_stream *s);
/* Maps need bytes of s from off ahead of reading them, and lets go of
 * the pages behind off. */
void lt_stream_window(struct lt_stream *s, size_t off, size_t need);
/* Back to the first packet of s. */
void lt_stream_rewind(struct lt_stream *s);
/* Enters the next packet of s: 1, or 0 after the last. */
int lt_stream_next_packet(struct lt_stream *s);

#endif
