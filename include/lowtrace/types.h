/* SPDX-License-Identifier: MIT */
/*
 * lowtrace/types.h - the types and declarations of lowtrace's public API
 * that an event's definition and the library share: log levels, field and
 * event descriptions, and the library functions a call site reaches.
 *
 * It carries no code (no constructor, no inline function), so that the
 * library's own headers include it for a type without making every object
 * that includes them register events; tracepoint.h adds the registration.
 */
#ifndef LOWTRACE_TYPES_H
#define LOWTRACE_TYPES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * liblowtrace is built with hidden visibility: what the headers of
 * include/lowtrace/ declare between these pragmas is what it exports.
 */
#pragma GCC visibility push(default)

/* Log levels, most severe first (the numbering LTTng uses). */
enum {
	LT_EMERG = 0,
	LT_ALERT = 1,
	LT_CRIT = 2,
	LT_ERR = 3,
	LT_WARNING = 4,
	LT_NOTICE = 5,
	LT_INFO = 6,
	LT_DEBUG_SYSTEM = 7,
	LT_DEBUG_PROGRAM = 8,
	LT_DEBUG_PROCESS = 9,
	LT_DEBUG_MODULE = 10,
	LT_DEBUG_UNIT = 11,
	LT_DEBUG_FUNCTION = 12,
	LT_DEBUG_LINE = 13,
	LT_DEBUG = 14,
};

enum lt_field_type {
	LT_FT_INT = 0,
	LT_FT_ENUM,
	LT_FT_FLOAT,
	LT_FT_STRING,
	LT_FT_ARRAY,
	LT_FT_SEQUENCE,
	LT_FT_CHARS,
	/* the only entry of the list an lt_tracef call site's fields()
	 * returns: its descriptor is a struct lt_marker_desc */
	LT_FT_MARKER = 0x7f,
};

struct lt_enum_entry {
	const char *label;
	int64_t lo, hi;
};

struct lt_enum_desc {
	const char *name;
	const struct lt_enum_entry *entries;
	uint32_t n;
};

struct lt_field_desc {
	const char *name; /* NULL ends a field list */
	uint8_t type; /* enum lt_field_type */
	uint8_t size; /* bytes of the value, or of one element */
	uint8_t is_signed;
	uint8_t base; /* 10 or 16 */
	uint32_t length; /* elements of an ARRAY or CHARS */
	const struct lt_enum_desc *enumd;
};

/* One event's definition, one copy per translation unit that uses it. */
struct lt_event_desc {
	uint8_t enabled; /* read at every call site */
	/* LT_SEQ_LAYOUT if the call sites run the inline sequence of
	 * tp_seq.h, else 0 (and seq below is not the registry's to write) */
	uint8_t layout;
	int loglevel;
	const char *provider, *name, *full;
	const struct lt_field_desc *(*fields)(void);
	/* the registry's: */
	uint32_t id;
	void *targets; /* where the event goes; published with RCU */
	void *seq; /* the ring the inline sequence writes, or NULL */
};

/*
 * An lt_tracef call site (a marker): an event of provider "lt_tracef"
 * named "FILE:LINE", whose fields are its arguments (arg0, arg1, ...)
 * and whose format goes into the trace's metadata.  Its event's fields()
 * returns the list that says so (LT_FT_MARKER); format and fields follow
 * the event, which struct lt_event_desc itself leaves unchanged.
 * With format NULL it is an event defined at run time (a language
 * binding's, whose field list is data, not a function): its fields
 * follow the event in the same way, and it is no marker.
 */
struct lt_marker_desc {
	struct lt_event_desc ev;
	const char *format;
	const struct lt_field_desc *fields;
};

#define LT_EVENT_MAX 4096 /* payload bytes of one event */
#define LT_STRING_MAX 1024 /* bytes kept of one string field, NUL included */

/* In liblowtrace: writes the payload into every channel that wants it. */
void lt_probe_emit(struct lt_event_desc *d, const void *payload, uint32_t len,
		   int overflow);
/* lt_probe_emit() of a payload of 8 to 16 bytes, passed in two words as
 * memcpy() loads them: lo holds the first 8 and hi the last 8 (they
 * overlap below 16). */
void lt_probe_emit_words8(struct lt_event_desc *d, uint64_t lo, uint64_t hi,
			  uint32_t len);
/* The same for 4 to 7 bytes: the first 4 and the last 4. */
void lt_probe_emit_words4(struct lt_event_desc *d, uint64_t lo, uint64_t hi,
			  uint32_t len);
/* Either, in the cases the call site's sequence declines (tp_seq.h): the
 * general path, which reads the target list under RCU. */
void lt_probe_emit_words_slow(struct lt_event_desc *d, uint64_t lo, uint64_t hi,
			      uint32_t len);
/* In liblowtrace: (un)registers the events of one loaded object. */
void lt_probe_register_range(struct lt_event_desc *const *start,
			     struct lt_event_desc *const *stop);
void lt_probe_unregister_range(struct lt_event_desc *const *start,
			       struct lt_event_desc *const *stop);

/* In liblowtrace: starts the session LOWTRACE_TRACE asks for, once. */
void lt_session_autostart(void);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
