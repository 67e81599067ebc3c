/* SPDX-License-Identifier: MIT */
/*
 * tracefs.h - the kernel's tracepoint catalogue, as tracefs shows it.
 *
 * Finds tracefs (mounting it when it is missing), lists the events under
 * events/GROUP/NAME/, expands the patterns and presets a user writes
 * (sched:sched_wakeup*, irq:*, the `sched` preset) into event names, and
 * parses an event's `format` file into the fields of its raw record, which
 * is what perf's PERF_SAMPLE_RAW delivers.
 */
#ifndef LT_KERNEL_TRACEFS_H
#define LT_KERNEL_TRACEFS_H

#include <stddef.h>
#include <stdint.h>

#define LT_KNAME_GROUP 64
#define LT_KNAME_EVENT 96
#define LT_KFIELD_NAME 64

/* An event's name: its group (directory) and its name in the group. */
struct lt_kname {
	char group[LT_KNAME_GROUP];
	char name[LT_KNAME_EVENT];
};

/* How a field of the raw record is laid out, and how we re-encode it. */
enum lt_kfield_kind {
	LT_KF_INT = 0, /* integer of 1, 2, 4 or 8 bytes */
	LT_KF_CHARS, /* char x[N]: text up to the first NUL */
	LT_KF_ARRAY, /* T x[N] of 1-8 byte integers, or raw bytes */
	LT_KF_STRING, /* __data_loc char[] x: a string elsewhere in the record */
	LT_KF_DYNARRAY, /* __data_loc T[] x: integers elsewhere in the record */
};

struct lt_kfield {
	char name[LT_KFIELD_NAME];
	uint8_t kind; /* enum lt_kfield_kind */
	uint8_t is_signed;
	uint8_t elem_size; /* bytes of one element (of the value for INT) */
	uint8_t rel_loc; /* __rel_loc: offset counts from the field's end */
	uint8_t hex; /* pointers: shown in hexadecimal */
	uint16_t offset, size; /* in the raw record */
	uint32_t count; /* elements of a CHARS or ARRAY */
};

/*
 * A parsed format file.  The common_ fields (type, flags, preempt count,
 * pid) are left out: the re-encoded event carries the thread and process
 * ids of the perf sample instead (common_pid is the thread id).
 */
struct lt_kformat {
	struct lt_kname name;
	uint32_t id;
	uint32_t nfields;
	struct lt_kfield *fields; /* malloc'd */
};

/*
 * The events directory of tracefs ("/sys/kernel/tracing/events"), mounting
 * tracefs on /sys/kernel/tracing when no mount is found (and saying so on
 * stderr, once per process).  Returns 0 and the directory, or a negative
 * errno with a message in err.
 */
int lt_tracefs_events_dir(const char **dir, char *err, size_t errlen);

/* Every event tracefs lists, sorted by group then name (malloc'd). */
int lt_tracefs_list(struct lt_kname **out, size_t *n, char *err, size_t errlen);

/*
 * Expands patterns into event names, each once, in the order the patterns
 * give them, against the catalogue all[0..nall).  A pattern is GROUP:NAME
 * with `*` and `?` wildcards in either part, or a preset: sched, irq,
 * syscalls, timer (events of a preset the kernel lacks are left out).  A
 * pattern that matches nothing is an error (-ENOENT) whose message
 * suggests a close name.
 */
int lt_tracefs_expand_in(const struct lt_kname *all, size_t nall,
			 const char *const *patterns, size_t n,
			 struct lt_kname **out, size_t *nout, char *err,
			 size_t errlen);

/* The same against the running kernel's catalogue. */
int lt_tracefs_expand(const char *const *patterns, size_t n,
		      struct lt_kname **out, size_t *nout, char *err,
		      size_t errlen);

/* The preset's members ("sched:sched_switch", ...), NULL-terminated, or
 * NULL if name is no preset. */
const char *const *lt_tracefs_preset(const char *name);

/*
 * Parses the text of a format file.  Returns 0, or -EINVAL with a message
 * in err for a file it cannot use (no ID, a field it cannot lay out).
 * Free with lt_kformat_free().
 */
int lt_kformat_parse(const char *text, struct lt_kformat *f, char *err,
		     size_t errlen);

/* Reads and parses events/GROUP/NAME/format of the running kernel. */
int lt_kformat_load(const struct lt_kname *name, struct lt_kformat *f,
		    char *err, size_t errlen);

void lt_kformat_free(struct lt_kformat *f);

/* Levenshtein distance between a and b (for suggestions). */
size_t lt_tracefs_distance(const char *a, const char *b);

/* Writes a message into err (errlen bytes), if err is given. */
__attribute__((format(printf, 3, 4))) void
lt_kernel_set_err(char *err, size_t errlen, const char *fmt, ...);

#endif
