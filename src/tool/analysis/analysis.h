/* SPDX-License-Identifier: MIT */
/*
 * analysis.h - the analyses over a trace (docs/analysis.md): anchors
 * (anchor.c), the latency walk-back from anchors (latency.c), timer
 * jitter (jitter.c), wake-up latency (sched.c), CPU time (cpu.c),
 * system call times (syscalls.c), interrupt handler times (irq.c) and
 * the Chrome trace-event export (export.c).  Each reads the trace once,
 * in time order, through the model (model.h).
 */
#ifndef LT_ANALYSIS_H
#define LT_ANALYSIS_H

#include "ctf/reader.h"
#include "probe/pattern.h"

#include <stdint.h>
#include <stdio.h>

/* An anchor: events whose name matches a pattern (probe/pattern.h),
 * optionally with a condition on their fields (probe/filter.h). */
struct lt_filter;
struct lt_anchor {
	char spec[256]; /* as given */
	char name[128]; /* a pattern on the event's name, or on its format */
	int by_format; /* "format:PATTERN": markers (lt_tracef) by format */
	/* parsed with its field names; NULL: no condition.  Shared by the
	 * anchors of one text, kept until exit. */
	const struct lt_filter *cond;
};

/* Parses "NAME" or "NAME if CONDITION"; 0 or -EINVAL with err.
 * NAME is a pattern on event names (markers by location:
 * "lt_tracef:src/net.c:*"), or "format:PATTERN", a pattern on the formats
 * of markers ("format:frame * late*").  CONDITION is record's filter
 * language (`lowtrace help conditions`): an event whose fields it does
 * not fit does not match. */
int lt_anchor_parse(const char *spec, struct lt_anchor *a, char *err,
		    size_t errlen);
int lt_anchor_match(const struct lt_anchor *a, const struct lt_event *ev);
/* The same with the name test cached per event class in memo (one byte
 * per class of the trace, zeroed at first). */
int lt_anchor_match_memo(const struct lt_anchor *a, const struct lt_event *ev,
			 uint8_t *memo);
/* The thread an event is of: its "tid" field (or vtid context), else the
 * kernel's "common_tid", else its process (lt_event_pid()). */
int32_t lt_event_tid(const struct lt_event *ev);
/* The process an event is of: its vpid context (a record of buffers
 * shared per user, or LTTng-UST's), else its stream's pid. */
int32_t lt_event_pid(const struct lt_event *ev);

/* The events the tracer discarded in t, over all its streams. */
uint64_t lt_trace_discarded(lt_reader_t *t);

/* How an analysis prints its results: as text, or as one JSON document
 * (docs/analysis-json.md).  Both are written from the same results. */
enum lt_afmt { LT_AFMT_TEXT, LT_AFMT_JSON };

struct lt_latency_opts {
	struct lt_anchor anchor;
	const char *by; /* field giving the lateness, default "late_us" */
	unsigned top; /* worst anchors explained */
	/* instead of anchors, spans "START..END" (span.h) of min_ns or
	 * more, the slowest explained from start to end */
	const char *span;
	int64_t min_ns;
	/* only the last anchor, not the worst: the one a trigger fired on,
	 * in a snapshot that ends with it */
	int last;
	enum lt_afmt fmt;
};
/* Prints the explanations of the top worst anchors; 0 or -errno. */
int lt_analyze_latency(lt_reader_t *t, const struct lt_latency_opts *o,
		       FILE *out);

/*
 * Spans (span.h) ranked by duration: per pair, count, total, mean,
 * worst and a histogram by decade; then the top slowest spans with their
 * start's fields.  span: one pair "START..END", or NULL for the pairs
 * found by name.  -ENODATA when the trace has no span.
 */
int lt_analyze_spans(lt_reader_t *t, const char *span, unsigned top, FILE *out);

struct lt_jitter_opts {
	const char *event;
	int64_t period_ns;
	unsigned top;
	enum lt_afmt fmt;
};
int lt_analyze_jitter(lt_reader_t *t, const struct lt_jitter_opts *o,
		      FILE *out);

/* Wake-up to run latency per thread: the top threads by worst wait.
 * -ENODATA if the trace has no sched:sched_switch events. */
int lt_analyze_sched(lt_reader_t *t, unsigned top, enum lt_afmt fmt, FILE *out);

/*
 * CPU time per thread (the top by time, with their time per CPU) and per
 * CPU (busy, idle, irq and softirq time, busiest threads).  -ENODATA if
 * the trace has no sched:sched_switch events.
 */
int lt_analyze_cpu(lt_reader_t *t, unsigned top, enum lt_afmt fmt, FILE *out);

/*
 * Time in system calls from raw_syscalls:sys_enter/exit: per syscall
 * (top by total time), the slowest calls, the threads with the most
 * time, the calls left open.  -ENODATA without those events.
 */
int lt_analyze_syscalls(lt_reader_t *t, unsigned top, enum lt_afmt fmt,
			FILE *out);
/* The x86_64 name of system call nr, or "syscall_NR" written to buf. */
const char *lt_syscall_name(int64_t nr, char *buf, size_t len);

/*
 * Interrupt and softirq handler durations per line (top by total time)
 * and the longest single windows.  -ENODATA without irq events.
 */
int lt_analyze_irq(lt_reader_t *t, unsigned top, enum lt_afmt fmt, FILE *out);

/* The kernel's name of softirq vector vec (HI, TIMER, NET_TX, ...), "?"
 * for a number it has none for. */
const char *lt_softirq_name(int64_t vec);

/* Chrome trace-event JSON; anchor may be NULL (no instant events). */
int lt_export_chrome(lt_reader_t *t, const struct lt_anchor *anchor, FILE *out);

/* a * b, a - b and a + b, held at INT64_MIN/MAX where they overflow:
 * field values and times in a damaged trace can be anything. */
static inline int64_t lt_sat_mul(int64_t a, int64_t b)
{
	int64_t r;
	if (!__builtin_mul_overflow(a, b, &r))
		return r;
	return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

static inline int64_t lt_sat_sub(int64_t a, int64_t b)
{
	int64_t r;
	if (!__builtin_sub_overflow(a, b, &r))
		return r;
	return b < 0 ? INT64_MAX : INT64_MIN;
}

static inline int64_t lt_sat_add(int64_t a, int64_t b)
{
	int64_t r;
	if (!__builtin_add_overflow(a, b, &r))
		return r;
	return a < 0 ? INT64_MIN : INT64_MAX;
}

/* Parses "10ms", "500us", "2s", "100ns" (a bare number is ms); -1 if bad. */
int64_t lt_parse_duration(const char *s);

#endif
