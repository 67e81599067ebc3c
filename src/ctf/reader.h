/*
 * reader.h - the fast CTF trace reader.
 *
 * Reads the traces that lowtrace writes (docs/ctf-layout.md): the TSDL
 * metadata is parsed once (tsdl.c) into event classes whose fields are a
 * flat list of decode steps; the stream files are mapped, their packet
 * headers checked and indexed at open; events are then decoded in place,
 * one at a time, with no allocation per event.  An event handed out stays
 * valid until the next call on the same iterator.
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

#include <stddef.h>
#include <stdint.h>

typedef struct lt_reader lt_reader_t;
typedef struct lt_stream lt_stream_t;

/* Kinds of event fields. */
enum lt_field_kind {
	LT_KIND_INT = 0, /* integer, signed or not */
	LT_KIND_ENUM = 1, /* integer with labels */
	LT_KIND_FLOAT = 2, /* IEEE 754, 32 or 64 bits */
	LT_KIND_STRING = 3, /* NUL-terminated */
	LT_KIND_ARRAY = 4, /* fixed length, of scalars */
	LT_KIND_SEQUENCE = 5, /* length from an earlier field, of scalars */
};

/* One label of an enumeration: values lo..hi (inclusive). */
struct lt_enum_range {
	const char *label;
	int64_t lo, hi; /* compare as uint64_t when the enum is unsigned */
};

/*
 * A field of an event class.  For arrays and sequences, elem_kind, size,
 * is_signed, base and the enum ranges describe the element.
 */
struct lt_field_class {
	const char *name; /* without the leading '_' TSDL allows */
	uint32_t name_len;
	/* for the formatter: ", NAME = ", with 16 readable bytes past it */
	uint32_t prefix_len;
	const char *prefix;
	uint8_t kind; /* enum lt_field_kind */
	uint8_t elem_kind; /* INT, ENUM or FLOAT for arrays and sequences */
	uint8_t size; /* bytes of the scalar or of one element */
	uint8_t align; /* bytes, counted from the packet's start */
	uint8_t is_signed;
	uint8_t base; /* 2, 8, 10 or 16 */
	uint8_t text; /* array or sequence of 8-bit chars: a string */
	uint32_t length; /* fixed array's element count */
	int32_t length_field; /* sequence: index of its length field */
	const struct lt_enum_range *ranges;
	uint32_t nranges;
};

struct lt_event_class {
	const char *name;
	uint32_t name_len;
	uint64_t id;
	uint32_t stream_id;
	int loglevel; /* -1 when the metadata gives none */
	/* an lt_tracef marker's format (ctf/marker.h), else NULL */
	const char *format;
	uint32_t index; /* in lt_reader_class() order */
	uint32_t nfields;
	const struct lt_field_class *fields;
	/* decode plan: when every field has a fixed size and byte alignment,
	 * the payload's size and the fields' offsets are constants */
	int32_t fixed_size; /* -1 when not fixed */
	const uint32_t *fixed_off;
	/* formatted size bound of the fields, strings and sequences aside */
	uint32_t fmt_bound;
};

struct lt_clock {
	const char *name;
	uint64_t freq; /* counts per second */
	int64_t offset_s; /* origin: offset_s + offset / freq seconds ... */
	uint64_t offset; /* ... since the Unix epoch; offset < freq here */
	int64_t base_ns; /* offset_s * 1e9 + floor(offset * 1e9 / freq) */
};

/* A decoded event, valid until the next call on its iterator. */
struct lt_event {
	const struct lt_event_class *cls;
	uint64_t ts; /* clock counts */
	int64_t ns; /* ns since the epoch */
	uint32_t cpu, pid;
	uint32_t stream_index;
	const char *stream; /* stream file name */
	uint64_t packet_seq;
	uint64_t discarded; /* the packet's events_discarded: a running count */
	/* where the fields are: offsets from base; for strings their length
	 * without the NUL, for arrays and sequences their element count */
	const unsigned char *base;
	const uint32_t *off;
	const uint32_t *count;
};

/* A field's value.  Integers: i (signed) or u; floats: f. */
struct lt_value {
	const struct lt_field_class *fc;
	uint8_t kind; /* enum lt_field_kind of the value itself */
	union {
		int64_t i;
		uint64_t u;
		double f;
	};
	const char *str; /* string (not NUL-terminated for text arrays) */
	size_t len; /* string bytes, or array/sequence element count */
	const unsigned char *data; /* array/sequence elements */
};

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
/* Events the tracer dropped in this stream (its last packet's count). */
uint64_t lt_stream_discarded(const lt_stream_t *s);
/* Per-stream iteration, same return values as lt_reader_next(). */
int lt_stream_next(lt_stream_t *s, const struct lt_event **ev);

unsigned lt_reader_nclasses(const lt_reader_t *t);
const struct lt_event_class *lt_reader_class(const lt_reader_t *t, unsigned i);
const struct lt_clock *lt_reader_clock(const lt_reader_t *t);
/* A value of the env block, as text, or NULL. */
const char *lt_reader_env(const lt_reader_t *t, const char *key);

/* The earliest packet's timestamp_begin in ns since the epoch (0: none). */
int64_t lt_reader_begin_ns(const lt_reader_t *t);
/* Clock counts to ns since the epoch, exactly (see struct lt_clock). */
/* counts * 1e9 / freq as babeltrace2 computes it (in double). */
uint64_t lt_clock_counts_to_ns(uint64_t freq, uint64_t counts);
int64_t lt_clock_ns(const struct lt_clock *c, uint64_t counts);

/* Field i of ev (0 <= i < ev->cls->nfields); returns 0 or -EINVAL. */
int lt_event_field(const struct lt_event *ev, unsigned i, struct lt_value *v);
/* The field called name; returns 0 or -ENOENT. */
int lt_event_field_by_name(const struct lt_event *ev, const char *name,
			   struct lt_value *v);
/* Element i of an array or sequence value. */
int lt_value_elem(const struct lt_value *arr, size_t i, struct lt_value *out);
/* The label of an enum value, or NULL. */
const char *lt_enum_label(const struct lt_field_class *fc, uint64_t raw);

/*
 * Writes "{ a = 1, b = "x" }" (babeltrace2's notation) at p and returns the
 * end; p must have room for lt_event_format_bound(ev) bytes.
 */
size_t lt_event_format_bound(const struct lt_event *ev);
char *lt_event_format(const struct lt_event *ev, char *p);

/*
 * A marker's text (cls->format set): its format with its fields, as
 * printf would have written it, at p, at most room - 1 bytes and a NUL;
 * returns the end (the NUL).
 */
#define LT_MARKER_TEXT_MAX 8192
char *lt_event_format_marker(const struct lt_event *ev, char *p, size_t room);

/* Number formatting used by the formatter; p must have 21 bytes. */
char *lt_fmt_u64(char *p, uint64_t v);
char *lt_fmt_i64(char *p, int64_t v);
/* printf's "%g"; p must have 32 bytes. */
char *lt_fmt_g(char *p, double d);

/* x < 10^8 as exactly eight digits at p (no NUL): the formatters' base. */
void lt_fmt_8digits(char *p, uint32_t x);

#endif
