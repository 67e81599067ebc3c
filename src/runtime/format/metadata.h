/* SPDX-License-Identifier: MIT */
/*
 * metadata.h - the CTF 1.8 metadata (TSDL text) of a lowtrace trace.
 * docs/ctf-layout.md shows what it looks like; the packet and event header
 * layouts it declares are those of packet_header.h and event_header.h.
 */
#ifndef LT_FORMAT_METADATA_H
#define LT_FORMAT_METADATA_H

#include <lowtrace/types.h>
#include <stddef.h>
#include <stdint.h>

#include "clock/clock.h"

/*
 * An event's description: the registry's (probe.h), the protocol's
 * (proto.h) and the metadata's.  A table of them by id may have holes:
 * an entry without a name stands for no event.
 */
struct lt_ctf_event {
	uint32_t id;
	const char *name;
	int loglevel;
	const struct lt_field_desc *fields;
	uint32_t nfields;
	const char *format; /* an lt_tracef marker's (marker.h), else NULL */
};

/* A stream class: one channel of one process (or the kernel), and the
 * events it can carry, with ids of its own.  A channel's buffers shared
 * by several processes (per-user buffers) lead each record with its
 * writer's pid: the stream's event context, `vpid`, an int32 of
 * LT_CTF_PID_CONTEXT bytes. */
#define LT_CTF_PID_CONTEXT 4
struct lt_ctf_stream {
	uint32_t id;
	const char *channel;
	const struct lt_ctf_event *events;
	uint32_t nevents;
	int pid_context;
	/* its times are CLOCK_MONOTONIC ns (the clock lowtrace_mono), not
	 * trace clock counts */
	int mono_clock;
};

struct lt_ctf_trace {
	uint8_t uuid[16];
	const char *hostname, *procname;
	int pid;
	struct lt_clock_calib clock;
	const char *clock_source; /* "tsc", "monotonic", ... */
	const struct lt_ctf_stream *streams;
	uint32_t nstreams;
	/* more env entries, "name" = "value" (names must be identifiers) */
	const char *const *env_extra;
	uint32_t nenv_extra;
};

/*
 * 1 if an enum label's range lo..hi fits an integer of size bytes and that
 * signedness (TSDL refuses a mapping outside its container).  The writer
 * leaves out the labels that do not: no value of the field can have them.
 */
int lt_ctf_enum_range_ok(unsigned size, int is_signed, int64_t lo, int64_t hi);

/*
 * 1 if no two of the n fields have the same name.  (A sequence's length
 * field, "NAME_length", takes a suffix where a field has that name.)
 */
int lt_ctf_field_names_ok(const struct lt_field_desc *f, uint32_t n);

/* The metadata text (malloc'd, NUL-terminated) or NULL when out of memory. */
char *lt_ctf_metadata_text(const struct lt_ctf_trace *t, size_t *len);

/* Replaces DIR/metadata atomically; 0 or -errno. */
int lt_ctf_metadata_write(const char *dir, const struct lt_ctf_trace *t);

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" into out[37]. */
void lt_ctf_uuid_str(const uint8_t uuid[16], char out[37]);
/* A random version 4 uuid. */
void lt_ctf_uuid_make(uint8_t uuid[16]);

/* The clock block's offset: epoch = offset_s * 1e9 + offset * 1e9 / freq. */
void lt_ctf_clock_offset(const struct lt_clock_calib *c, int64_t *offset_s,
			 int64_t *offset);

#endif
