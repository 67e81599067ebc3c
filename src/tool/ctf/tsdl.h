/* SPDX-License-Identifier: MIT */
/*
 * tsdl.h - the trace metadata (TSDL) as the reader needs it.
 *
 * lt_tsdl_parse() reads plain or packetized metadata, tokenizes and
 * parses the TSDL (type names, named structs, variants and enums, byte
 * orders), compiles the packet header, packet contexts and event headers
 * for header.c (noting which stream classes have lowtrace's own layout),
 * and compiles every event's fields into an array of struct
 * lt_field_class that the decoder walks in order.  Everything it builds
 * lives in one arena, freed by lt_tsdl_free().
 */
#ifndef LT_CTF_TSDL_H
#define LT_CTF_TSDL_H

#include "ctf/header.h"
#include "ctf/types.h"

#include <stddef.h>
#include <stdint.h>

struct lt_arena_chunk;

struct lt_arena {
	struct lt_arena_chunk *head;
};

void *lt_arena_alloc(struct lt_arena *a, size_t n);
void lt_arena_free(struct lt_arena *a);

struct lt_stream_class {
	uint32_t id;
	/* the packet context and event header as compiled (header.h) */
	const struct lt_hnode *pkt_context, *ev_header;
	/* the packet context's flat form, placed after a flat packet
	 * header (lt_tsdl.pkt_header_flat) */
	struct lt_hflat pkt_context_flat;
	/* packet header, context and event header have lowtrace's layout
	 * (docs/ctf-layout.md): the reader's fast paths apply */
	int own_layout;
	/* the event header is LTTng's compact or large one (LT_EVH_*): the
	 * decoder reads it without walking ev_header */
	uint8_t evh_kind, evh_be;
	/* the clock its timestamps map to (one of lt_tsdl.clocks) */
	const struct lt_clock *clock;
	/* event classes by id: a table when ids are small, else sorted */
	const struct lt_event_class **table;
	uint64_t table_len;
	const struct lt_event_class **sorted;
	uint32_t nsorted;
};

enum { LT_EVH_ANY = 0, LT_EVH_COMPACT = 1, LT_EVH_LARGE = 2 };

struct lt_env_entry {
	const char *key, *value;
};

struct lt_tsdl {
	struct lt_arena arena;
	uint8_t uuid[16];
	int has_uuid;
	const struct lt_clock *clocks; /* the clock blocks, in order */
	uint32_t nclocks;
	/* no clock block and no timestamp: events have no time (their ns
	 * all 0, in stream order) */
	int clockless;
	const struct lt_hnode *pkt_header; /* the trace's packet.header */
	struct lt_hflat pkt_header_flat; /* its flat form, at bit 0 */
	struct lt_stream_class *streams;
	uint32_t nstreams;
	struct lt_event_class *classes;
	uint32_t nclasses;
	uint32_t max_fields; /* the most fields of any event class */
	struct lt_env_entry *env;
	uint32_t nenv;
};

/*
 * Parses text (len bytes; NULs in it are an error).  path names the file
 * in messages ("PATH:LINE: what").  Returns 0 or -EINVAL.
 */
int lt_tsdl_parse(const char *text, size_t len, const char *path,
		  struct lt_tsdl *m, char *err, size_t errlen);
void lt_tsdl_free(struct lt_tsdl *m);

/* Whether len bytes at b begin a packetized metadata stream (either byte
 * order), and its text: the packets' contents, each packet of version
 * major.minor, in m's arena (*len set); NULL with err set. */
int lt_tsdl_packetized(const unsigned char *b, size_t len);
const char *lt_tsdl_unpacketize(const unsigned char *b, size_t *len,
				unsigned major, unsigned minor,
				const char *path, struct lt_tsdl *m, char *err,
				size_t errlen);

const struct lt_stream_class *lt_tsdl_stream(const struct lt_tsdl *m,
					     uint32_t id);
const struct lt_event_class *lt_tsdl_event(const struct lt_stream_class *sc,
					   uint64_t id);

#endif
