/* SPDX-License-Identifier: MIT */
/*
 * span.c - pairing start and end events per thread into spans, the
 * recent history the explanations read (span.h), and `lowtrace analyze
 * spans`, their ranking by duration.
 */
#include "analysis/span.h"
#include "analysis/analysis.h"
#include "analysis/dstat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HIST 64 /* closed spans kept per thread */
#define MARKS 512 /* marker events kept per thread */
#define FIELDS_MAX 240 /* of a start's fields, kept for printing */

/* What an event class is to the tracker. */
struct role {
	int key; /* the pair's index in keys, -1: none */
	int is_end, is_marker;
};

struct open_span {
	int key;
	int64_t begin;
	char *fields;
};

struct closed {
	int key;
	int64_t begin, end;
};

struct mark {
	const char *name;
	int64_t ns;
};

struct tstate {
	int32_t tid;
	struct open_span *stack;
	unsigned depth, cap;
	struct closed hist[HIST];
	uint64_t nhist;
	struct mark marks[MARKS];
	uint64_t nmarks;
};

struct lt_span_tracker {
	struct role *roles; /* per class */
	unsigned ncls;
	char **keys; /* "START..END" per pair; [0] the given one if any */
	unsigned nkeys;
	int has_given;
	struct tstate **tab; /* open addressing by tid */
	unsigned cap, n;
};

int lt_span_parse(const char *spec, struct lt_span_pair *p, char *err,
		  size_t errlen)
{
	const char *dots = strstr(spec, "..");
	memset(p, 0, sizeof(*p));
	if (!dots || dots == spec || !dots[2] ||
	    (size_t)(dots - spec) >= sizeof(p->start) ||
	    strlen(dots + 2) >= sizeof(p->end)) {
		snprintf(err, errlen,
			 "bad span '%s' (START..END, e.g. "
			 "postgresql:query__start..postgresql:query__done)",
			 spec);
		return -EINVAL;
	}
	memcpy(p->start, spec, (size_t)(dots - spec));
	snprintf(p->end, sizeof(p->end), "%s", dots + 2);
	return 0;
}

static int add_key(struct lt_span_tracker *s, const char *a, const char *b)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%s..%s", a, b);
	for (unsigned i = 0; i < s->nkeys; i++)
		if (strcmp(s->keys[i], buf) == 0)
			return (int)i;
	char **k = realloc(s->keys, (s->nkeys + 1) * sizeof(*k));
	if (!k)
		return -1;
	s->keys = k;
	if (!(k[s->nkeys] = strdup(buf)))
		return -1;
	return (int)s->nkeys++;
}

static int has_suffix(const char *s, const char *suf, size_t *base)
{
	size_t n = strlen(s), m = strlen(suf);
	if (n <= m || strcmp(s + n - m, suf) != 0)
		return 0;
	*base = n - m;
	return 1;
}

static const struct {
	const char *start, *end;
} suffixes[] = {
	{ "__start", "__done" }, { "__entry", "__return" },
	{ "_start", "_done" },	 { "_entry", "_exit" },
	{ "_begin", "_end" },
};

/* The class of this name, if the trace has it. */
static int class_named(const lt_reader_t *t, const char *name)
{
	for (unsigned i = 0; i < lt_reader_nclasses(t); i++)
		if (strcmp(lt_reader_class(t, i)->name, name) == 0)
			return 1;
	return 0;
}

/* A class's role among the pairs found by name. */
static void auto_role(struct lt_span_tracker *s, const lt_reader_t *t,
		      const char *name, struct role *r)
{
	char a[512], b[512];
	size_t base;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		int end = has_suffix(name, suffixes[i].end, &base);
		if (!end && !has_suffix(name, suffixes[i].start, &base))
			continue;
		snprintf(a, sizeof(a), "%.*s%s", (int)base, name,
			 suffixes[i].start);
		snprintf(b, sizeof(b), "%.*s%s", (int)base, name,
			 suffixes[i].end);
		if (!class_named(t, end ? a : b) && !end)
			continue; /* a start with no end in the trace */
		if (end && !class_named(t, a)) {
			/* a function's return probe: its entry is X */
			if (strcmp(suffixes[i].end, "__return") != 0)
				continue;
			snprintf(a, sizeof(a), "%.*s", (int)base, name);
			if (!class_named(t, a))
				continue;
		}
		r->key = add_key(s, a, b);
		r->is_end = end;
		return;
	}
	/* X whose X__return exists: the entry of a function probe */
	snprintf(b, sizeof(b), "%s__return", name);
	if (!strstr(name, "__") && class_named(t, b))
		r->key = add_key(s, name, b), r->is_end = 0;
}

static int is_marker(const char *name)
{
	static const char *const kernel[] = { "sched:",	   "irq:",
					      "timer:",	   "raw_syscalls:",
					      "syscalls:", "lowtrace:" };
	for (size_t i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++)
		if (strncmp(name, kernel[i], strlen(kernel[i])) == 0)
			return 0;
	return 1;
}

struct lt_span_tracker *lt_spans_new(const lt_reader_t *t,
				     const struct lt_span_pair *pair)
{
	struct lt_span_tracker *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->ncls = lt_reader_nclasses(t);
	s->roles = calloc(s->ncls + 1, sizeof(*s->roles));
	s->cap = 256;
	s->tab = calloc(s->cap, sizeof(*s->tab));
	if (!s->roles || !s->tab) {
		lt_spans_free(s);
		return NULL;
	}
	if (pair) {
		add_key(s, pair->start, pair->end);
		s->has_given = 1;
	}
	for (unsigned i = 0; i < s->ncls; i++) {
		const char *name = lt_reader_class(t, i)->name;
		struct role *r = &s->roles[i];
		r->key = -1;
		r->is_marker = is_marker(name);
		if (pair && lt_pattern_match(pair->end, name)) {
			r->key = 0, r->is_end = 1;
			continue;
		}
		if (pair && lt_pattern_match(pair->start, name)) {
			r->key = 0, r->is_end = 0;
			continue;
		}
		auto_role(s, t, name, r);
	}
	return s;
}

void lt_spans_free(struct lt_span_tracker *s)
{
	if (!s)
		return;
	for (unsigned i = 0; s->tab && i < s->cap; i++) {
		struct tstate *ts = s->tab[i];
		if (!ts)
			continue;
		for (unsigned k = 0; k < ts->depth; k++)
			free(ts->stack[k].fields);
		free(ts->stack);
		free(ts);
	}
	for (unsigned i = 0; i < s->nkeys; i++)
		free(s->keys[i]);
	free(s->keys);
	free(s->tab);
	free(s->roles);
	free(s);
}

static unsigned hash(int32_t tid, unsigned cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

static struct tstate *find(const struct lt_span_tracker *s, int32_t tid)
{
	for (unsigned h = hash(tid, s->cap);; h = (h + 1) & (s->cap - 1))
		if (!s->tab[h] || s->tab[h]->tid == tid)
			return s->tab[h];
}

static struct tstate *get(struct lt_span_tracker *s, int32_t tid)
{
	struct tstate *ts = find(s, tid);
	if (ts)
		return ts;
	if (2 * (s->n + 1) > s->cap) {
		struct tstate **old = s->tab;
		unsigned oc = s->cap;
		s->tab = calloc(2 * oc, sizeof(*s->tab));
		if (!s->tab) {
			s->tab = old;
			return NULL;
		}
		s->cap = 2 * oc;
		for (unsigned i = 0; i < oc; i++)
			if (old[i]) {
				unsigned h = hash(old[i]->tid, s->cap);
				while (s->tab[h])
					h = (h + 1) & (s->cap - 1);
				s->tab[h] = old[i];
			}
		free(old);
	}
	ts = calloc(1, sizeof(*ts));
	if (!ts)
		return NULL;
	ts->tid = tid;
	unsigned h = hash(tid, s->cap);
	while (s->tab[h])
		h = (h + 1) & (s->cap - 1);
	s->tab[h] = ts;
	s->n++;
	return ts;
}

/* The start event's fields, cut to FIELDS_MAX (malloc'd). */
static char *fields_of(const struct lt_event *ev)
{
	char *buf = malloc(lt_event_format_bound(ev) + 1);
	if (!buf)
		return NULL;
	*lt_event_format(ev, buf) = 0;
	/* the thread is said already; the probe's address says little */
	char *p = buf + (strncmp(buf, "{ ", 2) == 0 ? 2 : strlen(buf));
	while (strncmp(p, "common_", 7) == 0 ||
	       strncmp(p, "__probe_", 8) == 0) {
		char *next = strstr(p, ", ");
		if (!next)
			break;
		memmove(p, next + 2, strlen(next + 2) + 1);
	}
	if (strlen(buf) > FIELDS_MAX)
		strcpy(buf + FIELDS_MAX - 5, " ...}");
	return buf;
}

int lt_spans_feed(struct lt_span_tracker *s, const struct lt_event *ev,
		  lt_span_fn fn, void *arg)
{
	unsigned ci = ev->cls->index;
	const struct role *r = ci < s->ncls ? &s->roles[ci] : NULL;
	if (!r || (r->key < 0 && !r->is_marker))
		return 0;
	struct tstate *ts = get(s, lt_event_tid(ev));
	if (!ts)
		return -ENOMEM;
	if (r->is_marker) {
		ts->marks[ts->nmarks++ % MARKS] =
			(struct mark){ ev->cls->name, ev->ns };
	}
	if (r->key < 0)
		return 0;
	if (!r->is_end) {
		if (ts->depth == ts->cap) {
			unsigned cap = ts->cap ? 2 * ts->cap : 8;
			struct open_span *v =
				realloc(ts->stack, cap * sizeof(*v));
			if (!v)
				return -ENOMEM;
			ts->stack = v;
			ts->cap = cap;
		}
		ts->stack[ts->depth++] =
			(struct open_span){ r->key, ev->ns, fields_of(ev) };
		return 0;
	}
	unsigned i = ts->depth;
	while (i > 0 && ts->stack[i - 1].key != r->key)
		i--;
	if (!i)
		return 0; /* an end whose start is not in the trace */
	struct open_span *o = &ts->stack[i - 1];
	struct lt_span sp = {
		.name = s->keys[o->key],
		.tid = ts->tid,
		.begin = o->begin,
		.end = ev->ns,
		.fields = o->fields ? o->fields : "",
		.key = (unsigned)o->key,
		.depth = i - 1,
		.given = s->has_given && o->key == 0,
	};
	ts->hist[ts->nhist++ % HIST] =
		(struct closed){ o->key, o->begin, ev->ns };
	if (fn)
		fn(arg, &sp);
	/* this start and those opened above it that never closed */
	for (unsigned k = i - 1; k < ts->depth; k++)
		free(ts->stack[k].fields);
	ts->depth = i - 1;
	return 0;
}

size_t lt_spans_inside(const struct lt_span_tracker *s, int32_t tid,
		       int64_t begin, int64_t end, struct lt_span *out,
		       size_t max)
{
	const struct tstate *ts = find(s, tid);
	size_t n = 0;
	if (!ts)
		return 0;
	uint64_t first = ts->nhist > HIST ? ts->nhist - HIST : 0;
	for (uint64_t i = first; i < ts->nhist && n < max; i++) {
		const struct closed *c = &ts->hist[i % HIST];
		if (c->begin < begin || c->end > end ||
		    (c->begin == begin && c->end == end))
			continue;
		out[n++] = (struct lt_span){ .name = s->keys[c->key],
					     .tid = tid,
					     .begin = c->begin,
					     .end = c->end,
					     .key = (unsigned)c->key,
					     .fields = "" };
	}
	return n;
}

size_t lt_spans_marks_before(const struct lt_span_tracker *s, int32_t tid,
			     int64_t ns, const char **names, int64_t *at,
			     size_t max)
{
	const struct tstate *ts = find(s, tid);
	size_t n = 0;
	if (!ts)
		return 0;
	uint64_t first = ts->nmarks > MARKS ? ts->nmarks - MARKS : 0;
	for (uint64_t i = ts->nmarks; i-- > first && n < max;) {
		const struct mark *m = &ts->marks[i % MARKS];
		if (m->ns > ns)
			continue;
		names[n] = m->name;
		at[n++] = m->ns;
	}
	return n;
}

int lt_spans_pairs_class(const struct lt_span_tracker *s,
			 const struct lt_event_class *c)
{
	return c->index < s->ncls && s->roles[c->index].key >= 0;
}

unsigned lt_spans_nkeys(const struct lt_span_tracker *s)
{
	return s->nkeys;
}

const char *lt_spans_key(const struct lt_span_tracker *s, unsigned i)
{
	return i < s->nkeys ? s->keys[i] : "";
}

struct rank {
	struct lt_dstat *per; /* per pair */
	unsigned nper;
	struct lt_topn top;
	char **fields; /* of the top, by topn key (an index into kept) */
	size_t nkept;
	int err;
};

static void rank_span(void *arg, const struct lt_span *sp)
{
	struct rank *r = arg;
	if (sp->key >= r->nper) {
		struct lt_dstat *v =
			realloc(r->per, (sp->key + 1) * sizeof(*v));
		if (!v) {
			r->err = -ENOMEM;
			return;
		}
		memset(v + r->nper, 0, (sp->key + 1 - r->nper) * sizeof(*v));
		r->per = v;
		r->nper = sp->key + 1;
	}
	int64_t d = sp->end - sp->begin;
	lt_dstat_add(&r->per[sp->key], d, sp->begin);
	/* the fields of a span that may enter the top: kept by index */
	if (r->top.cap == 0 || (r->top.n == r->top.cap && r->top.v[0].dur >= d))
		return;
	char **v = realloc(r->fields, (r->nkept + 1) * sizeof(*v));
	if (!v) {
		r->err = -ENOMEM;
		return;
	}
	r->fields = v;
	v[r->nkept] = strdup(sp->fields);
	struct lt_topn_item it = { .dur = d,
				   .begin = sp->begin,
				   .key = (int64_t)r->nkept++ << 16 | sp->key,
				   .tid = sp->tid,
				   .cpu = -1 };
	lt_topn_add(&r->top, &it);
}

int lt_analyze_spans(lt_reader_t *t, const char *span, unsigned top, FILE *out)
{
	struct lt_span_pair pair;
	char err[256];
	if (span && lt_span_parse(span, &pair, err, sizeof(err)))
		return -EINVAL;
	struct lt_span_tracker *s = lt_spans_new(t, span ? &pair : NULL);
	struct rank r = { 0 };
	int ret = s ? lt_topn_init(&r.top, top) : -ENOMEM;
	const struct lt_event *ev;
	int64_t first = 0;
	while (!ret && !r.err && (ret = lt_reader_next(t, &ev)) > 0) {
		if (!first)
			first = ev->ns;
		ret = lt_spans_feed(s, ev, rank_span, &r);
	}
	if (!ret && r.err)
		ret = r.err;
	uint64_t total = 0;
	for (unsigned i = 0; i < r.nper; i++)
		total += r.per[i].n;
	if (!ret && !total)
		ret = -ENODATA;
	if (!ret) {
		fprintf(out,
			"%llu spans of %u kinds; per kind, longest total "
			"first:\n",
			(unsigned long long)total, r.nper);
		fprintf(out, "%-60s %8s %11s %10s %10s  %s\n", "span", "count",
			"total_ms", "mean_us", "max_us", lt_dstat_hist_title);
		for (;;) {
			int best = -1;
			for (unsigned i = 0; i < r.nper; i++)
				if (r.per[i].n &&
				    (best < 0 ||
				     r.per[i].sum > r.per[best].sum))
					best = (int)i;
			if (best < 0)
				break;
			struct lt_dstat *d = &r.per[best];
			fprintf(out, "%-60s %8llu %11.3f %10.1f %10.1f  ",
				lt_spans_key(s, (unsigned)best),
				(unsigned long long)d->n, (double)d->sum / 1e6,
				(double)d->sum / 1e3 / (double)d->n,
				(double)d->max / 1e3);
			lt_dstat_print_hist(d, out);
			d->n = 0;
		}
		lt_topn_sort(&r.top);
		fprintf(out, "\nthe %u longest:\n", r.top.n);
		for (unsigned i = 0; i < r.top.n; i++) {
			const struct lt_topn_item *it = &r.top.v[i];
			fprintf(out, "#%u %.3f ms %s at +%.6f s, tid %d %s\n",
				i + 1, (double)it->dur / 1e6,
				lt_spans_key(s, (unsigned)(it->key & 0xffff)),
				(double)(it->begin - first) / 1e9, it->tid,
				r.fields[it->key >> 16] ?
					r.fields[it->key >> 16] :
					"");
		}
	}
	for (size_t i = 0; i < r.nkept; i++)
		free(r.fields[i]);
	free(r.fields);
	free(r.per);
	lt_topn_free(&r.top);
	lt_spans_free(s);
	return ret;
}
