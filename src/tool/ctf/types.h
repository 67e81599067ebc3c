/* SPDX-License-Identifier: MIT */
/*
 * types.h - the reader's type model: field kinds, field and event classes,
 * the clock, a decoded event and a field's value.  The metadata parser
 * (tsdl*.c) builds these; the decoder (reader.c), the values (value.c) and
 * the formatter (format.c) read them.
 */
#ifndef LT_CTF_TYPES_H
#define LT_CTF_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Kinds of event fields. */
enum lt_field_kind {
	LT_KIND_INT = 0, /* integer, signed or not */
	LT_KIND_ENUM = 1, /* integer with labels */
	LT_KIND_FLOAT = 2, /* IEEE 754, 32 or 64 bits */
	LT_KIND_STRING = 3, /* NUL-terminated */
	LT_KIND_ARRAY = 4, /* fixed length, of scalars */
	LT_KIND_SEQUENCE = 5, /* length from an earlier field, of scalars */
	/* an array or sequence of structs, variants, arrays or strings, or
	 * a variant in a variant: a tree of struct lt_cnode (ctf/compound.h) */
	LT_KIND_COMPOUND = 6,
};

struct lt_cnode;

/* One label of an enumeration: values lo..hi (inclusive). */
struct lt_enum_range {
	const char *label;
	int64_t lo, hi; /* compare as uint64_t when the enum is unsigned */
};

/* The tag values lo..hi select a variant's option opt. */
struct lt_var_sel {
	int64_t lo, hi; /* compare as uint64_t when the tag is unsigned */
	uint32_t opt;
};

/* lt_field_class.opt_at of a tag value that selects no option */
#define LT_OPT_NONE 255

/* lt_field_class.base of CTF 2's booleans: printed true or false */
#define LT_BASE_BOOL 1

/* lt_event.off of a variant's option that the event does not hold */
#define LT_OFF_ABSENT UINT32_MAX

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
	uint8_t base; /* 2, 8, 10 or 16; LT_BASE_BOOL: a boolean */
	uint8_t text; /* array or sequence of 8-bit chars: a string */
	uint8_t be; /* big-endian (scalars, elements) */
	uint8_t sec_first; /* the first field of its section (LT_SEC_*) */
	/* an integer or enum of bitsize bits aligned on bitalign bits, not
	 * whole bytes: its offset in lt_event.off is in bits, from base
	 * (size is then its bytes rounded up, align 1) */
	uint8_t bitfield, bitsize;
	uint16_t bitalign;
	/* a field of a nested struct: ", NAME = {" of the structs it opens
	 * (16 readable bytes past it), and how many it closes */
	const char *open;
	uint32_t open_len;
	uint8_t closes;
	uint8_t sec; /* its section, LT_SEC_* */
	/* an option of a variant: the index of the variant's tag field (-1:
	 * not in a variant), the option it belongs to; the variant's first
	 * field holds its options' tag values */
	int32_t var_tag;
	uint16_t var_opt;
	uint8_t var_first;
	const struct lt_var_sel *var_sel;
	uint32_t nvar_sel;
	uint32_t length; /* fixed array's element count */
	int32_t length_field; /* sequence: index of its length field */
	const struct lt_enum_range *ranges;
	uint32_t nranges;
	/* an enum whose ranges are indexes of bits, a label set when one of
	 * its bits is: CTF 2's bit map */
	uint8_t bitmap;
	/* an enum's labels of the values 0..nlabel_at - 1 as lt_enum_label()
	 * finds them, looked up by the value: no search for the common ones;
	 * a variant's first field: the option of each tag value 0..nopt_at -
	 * 1 (LT_OPT_NONE: none) as lt_var_option() selects it, where its tag
	 * is an integer of whole bytes (64 values at most each) */
	uint8_t nlabel_at, nopt_at;
	const char *const *label_at;
	const uint8_t *opt_at;
	const struct lt_cnode *tree; /* LT_KIND_COMPOUND: its type */
};

/*
 * The layout of an event class of fixed size for one phase: the fields'
 * offsets and the event's end, in bytes from an origin aligned as the
 * widest field (the phase is the first field's start from that origin).
 * A context less aligned than the payload after it (LTTng's) moves the
 * payload's padding with the phase, so each phase has its own offsets.
 */
/* The decoder places a run's fields (LT_STEP_RUN) this many at a time:
 * a plan's off has a whole number of them, a stream's offsets as many
 * more past its widest class. */
#define LT_RUN_LANES 4u

struct lt_fixed_plan {
	const uint32_t *off;
	uint32_t end;
};

/*
 * One step of a class's step list (lt_event_class.steps), the decoder's
 * walk of a class without compound fields: align, note the offset, then
 * skip a fixed size, a string, length elements of size bytes or a
 * bit-field's bits; or place a run of fields of fixed size by the plan of
 * its phase, as a class of fixed size is placed.  An option of a variant
 * is first checked against its tag (the field class says how).
 */
enum {
	LT_STEP_FIXED,
	LT_STEP_STRING,
	LT_STEP_SEQUENCE,
	LT_STEP_BITS,
	LT_STEP_RUN,
};
struct lt_step {
	uint8_t op; /* LT_STEP_* */
	uint8_t align; /* bytes (a run's: its first field's) */
	uint8_t lsize, lbe; /* the sequence's length field: bytes, order */
	/* bytes: the field's, or one element's; a bit-field's bits; a
	 * run's fields */
	uint32_t size;
	uint32_t lfield; /* the sequence's length field */
	uint32_t field; /* the (first) field it places */
	uint16_t bitalign; /* a bit-field's alignment in bits */
	uint8_t variant; /* an option of a variant */
	/* a run: its widest alignment, log2 of its first field's, its
	 * plans by phase >> run_shift */
	uint8_t run_align, run_shift;
	const struct lt_fixed_plan *plan;
};

/* The sections of an event's fields, in order: the stream's event
 * context, the event's context, the payload. */
enum { LT_SEC_STREAM_CTX, LT_SEC_EVENT_CTX, LT_SEC_PAYLOAD, LT_NSECTIONS };

/* A field of an event class whose formatted size bound varies. */
struct lt_bound_var {
	uint32_t field, per;
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
	/* how lt_event_field() reads each field in line (LT_VOP_*,
	 * ctf/value.h): bytes apart, not in the field classes' lines */
	const uint8_t *vop;
	/* the same of each field read as its kind (lt_value_kind_op()): a
	 * variant's option that the event holds */
	const uint8_t *kop;
	/* fields of each section (LT_SEC_*), in fields in that order */
	uint32_t nsec[LT_NSECTIONS];
	/* decode plan: when every field has a fixed size and byte alignment,
	 * the fields' offsets are constants for each place the first field
	 * may start at modulo the widest alignment (its phase) */
	int32_t fixed_size; /* -1 when not fixed; else bytes at phase 0 */
	/* the widest field's alignment, the first field's (the phases are
	 * its multiples) and its log2 (bytes; 1 in lowtrace's byte-packed
	 * payloads) */
	uint8_t fixed_align, fixed_first, fixed_shift;
	/* payload only, of fields not nested, not in variants, not
	 * bit-fields: the formatter's plain loop */
	uint8_t fmt_plain;
	/* the event has no fields block (not even an empty struct): the
	 * formatter prints no payload braces, as babeltrace2 */
	uint8_t no_payload;
	/* contexts declared as empty structs (bit LT_SEC_*): printed
	 * "{ }", as babeltrace2 */
	uint8_t empty_secs;
	/* fixed_align / fixed_first plans, by phase >> fixed_shift */
	const struct lt_fixed_plan *plan;
	/* a class not of fixed size without compound fields: its step
	 * list, one per field; else NULL */
	const struct lt_step *steps;
	uint32_t nsteps;
	uint8_t steps_plain; /* no bit-fields, no variants' options */
	/* formatted size bound of the fields, strings and sequences aside */
	uint32_t fmt_bound;
	/* the fields whose bound is their count times per (strings,
	 * sequences, compound fields): lt_event_format_bound() reads only
	 * these */
	const struct lt_bound_var *fmt_var;
	uint32_t nfmt_var;
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
	uint64_t packet_off; /* the packet's offset in its stream, bytes */
	uint64_t discarded; /* the packet's events_discarded: a running count */
	/* where the fields are: offsets from base (bits for bit-fields and
	 * compound fields); for strings their length without the NUL, for
	 * arrays and sequences their element count, for compound fields
	 * their formatted size bound */
	const unsigned char *base;
	const uint32_t *off;
	const uint32_t *count;
	/* 1 when the 7 bytes before each field are readable too (the
	 * packet's header lies there): a field of 1 to 8 bytes can be read
	 * by one 8-byte load that ends with it */
	uint8_t room;
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

#endif
