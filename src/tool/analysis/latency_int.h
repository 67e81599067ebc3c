/* SPDX-License-Identifier: MIT */
/*
 * latency_int.h - what `lowtrace analyze latency`'s three files share:
 * the explanation of an anchor or a span (struct expl), made by the walk
 * back through the model (latency_explain.c) and printed as text or JSON
 * (latency_print.c) by the analysis's run (latency.c).  Only
 * src/tool/analysis/latency*.c include it.
 */
#ifndef LT_ANALYSIS_LATENCY_INT_H
#define LT_ANALYSIS_LATENCY_INT_H

#include "analysis/json_out.h"
#include "analysis/model.h"
#include "analysis/span.h"

#include <stdint.h>
#include <stdio.h>

#define MAX_SHARES 32
#define SHARES_SAID 5 /* of those who ran where it waited, in the text */
#define CHAIN_MAX 4 /* threads followed back from the anchor's */
#define MARKS_SEEN 64 /* of the waker's markers, looked at */
#define INSIDE_MAX 64 /* spans inside a span, looked at */

struct share {
	int32_t tid;
	int64_t ns;
};

static inline double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

/* A thread as an explanation names it, as the model knew it then. */
struct who {
	int32_t tid, pid;
	char comm[24];
};

/* A thread further back in the chain of wakers (chain()). */
struct link {
	struct who who;
	int64_t run, wait, block;
	int32_t wait_cpu;
	int behind_known; /* behind: who ran on wait_cpu the most */
	struct who behind;
	int truncated; /* its history over the window partly dropped */
	int64_t a, b; /* the window: the block before it in the chain */
	/* the longest of its blocks, ended by next: the next link */
	int has_next;
	int64_t worst;
	struct who next;
};

/* The spans of a kind inside a span: count and time. */
struct inner {
	const char *name;
	unsigned key, n;
	int64_t ns, until;
};

enum verdict {
	V_UNKNOWN, /* no scheduling events for the thread */
	V_NO_CAUSE,
	V_RUNNABLE,
	V_BLOCKED,
	V_IRQ,
	V_TIMER,
	V_RUNNING,
};

/*
 * The explanation of an anchor or a span: what both forms print.  Times
 * named *_rel are from the trace's first event; the names it points to
 * (event classes, span pairs, the environment) live as long as the
 * reader and the span tracker.
 */
struct expl {
	const struct lt_span *span; /* during the making only */
	int is_span;
	const char *name; /* the anchor's event, or the span's pair */
	int64_t at_rel;
	struct who thread;
	const char *by; /* an anchor's field, NULL where it has none */
	int64_t byval;
	int64_t total; /* the lateness, or the span's duration */
	char *fields; /* a span's start fields, or NULL */
	struct inner inside[INSIDE_MAX]; /* most time first */
	size_t ninside;
	int sched; /* the thread has scheduling events */
	int truncated;
	/* an anchor's due time and the wake-up after it */
	int64_t due_rel;
	int woken;
	int64_t wake_rel;
	struct who waker;
	int32_t wake_cpu;
	/* where the time went */
	int32_t cpu; /* where it waited the most */
	int64_t runnable, blocked, running, irq, soft;
	struct share shares[MAX_SHARES]; /* who ran there, most first */
	struct who share_who[MAX_SHARES];
	unsigned nshares;
	int64_t others; /* their time together */
	struct who longest_by; /* who ended its longest block */
	int64_t timer_blocked; /* due time to a late wake-up, as blocked */
	/* the verdict and what it rests on */
	enum verdict verdict;
	int64_t v_ns;
	struct who v_who;
	int64_t block_a_rel, block_b_rel; /* V_BLOCKED: the block */
	const char *v_inside; /* a span's inner span of that block */
	/* V_BLOCKED of a span: the waker's markers before it woke it */
	const char *mark; /* NULL: none */
	int64_t mark_ago;
	struct {
		const char *name;
		size_t n;
	} then[MARKS_SEEN];
	size_t nthen;
	const char *cmdline; /* the waker's */
	struct link chain[CHAIN_MAX];
	unsigned nchain;
};

/* Explains one anchor at ev into e: tid's lateness late_ns, by the field
 * by (NULL: none) of value byval. */
void lt_lat_explain(struct expl *e, const struct lt_model *m,
		    const struct lt_event *ev, int32_t tid, int64_t late_ns,
		    const char *by, int64_t byval);

/* Explains one span into e; -ENOMEM. */
int lt_lat_explain_span(struct expl *e, const struct lt_model *m,
			const struct lt_span_tracker *spans,
			const struct lt_span *sp);

void lt_lat_expl_free(struct expl *e);

/* e as the text prints it, and as the JSON's explanation of rank. */
void lt_lat_expl_text(FILE *f, const struct expl *e);
void lt_lat_expl_json(struct lt_json *j, const struct expl *e, unsigned rank);

#endif
