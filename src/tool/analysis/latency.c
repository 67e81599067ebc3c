/* SPDX-License-Identifier: MIT */
/*
 * latency.c - `lowtrace analyze latency`: for each anchor (a late timer
 * expiry, demo:late), walks back through the model to the moment the
 * thread should have run (the anchor's time less its lateness) and says
 * where the time went:
 *
 *   - when it was woken after that moment, and by whom;
 *   - how long it then waited runnable, on which CPU, and which threads
 *     ran on that CPU meanwhile, with their shares;
 *   - how long it was blocked again after waking, and who woke it at the
 *     end (the thread that released what it waited for: a lock holder);
 *   - irq and softirq time on its CPU in the window;
 *
 * then a one-line verdict naming the largest part; when that is a block,
 * one step further back: what the thread that ended it did meanwhile
 * (running, waiting for a CPU and behind whom, blocked itself).
 * Explanations are made when the anchor goes by, from the model's rings,
 * into a structure (struct expl, latency_explain.c) that names the
 * threads as they were then; this file keeps the worst --top and prints
 * them at the end, worst first, as text or as JSON (docs/analysis-json.md)
 * from that same structure (latency_print.c).
 */
#include "analysis/analysis.h"
#include "analysis/latency_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The lateness unit from the field's suffix: _ns, _us (default), _ms. */
static int64_t unit_ns(const char *by)
{
	size_t n = strlen(by);
	if (n > 3 && strcmp(by + n - 3, "_ns") == 0)
		return 1;
	if (n > 3 && strcmp(by + n - 3, "_ms") == 0)
		return 1000000;
	return 1000;
}

struct result {
	int64_t key;
	struct expl *e;
};

static int by_key_desc(const void *a, const void *b)
{
	const struct result *x = a, *y = b;
	return x->key < y->key ? 1 : x->key > y->key ? -1 : 0;
}

/* What a run found, the explanations worst first: what both forms
 * print. */
struct latency {
	const struct lt_latency_opts *o;
	const struct lt_model *m;
	const char *by;
	uint64_t nmatched; /* anchors, or spans of min_ns or more */
	struct result *res;
	unsigned nres;
};

static void latency_text(const struct latency *l, FILE *out)
{
	const struct lt_latency_opts *o = l->o;
	if (o->span) {
		fprintf(out, "%llu spans %s", (unsigned long long)l->nmatched,
			o->span);
		if (o->min_ns)
			fprintf(out, " of %.3f ms or more", ms(o->min_ns));
		fprintf(out, "; the %u slowest, with where the time went:\n",
			l->nres);
	} else if (o->last) {
		fprintf(out,
			"the last of %llu anchors %s, with where the "
			"time went:\n",
			(unsigned long long)l->nmatched, o->anchor.spec);
	} else {
		fprintf(out,
			"%llu anchors %s; the %u worst by %s, with "
			"where the time went:\n",
			(unsigned long long)l->nmatched, o->anchor.spec,
			l->nres, l->by);
	}
	for (unsigned i = 0; i < l->nres; i++) {
		fprintf(out, "#%u ", i + 1);
		lt_lat_expl_text(out, l->res[i].e);
	}
	if (l->m->nsched == 0)
		fprintf(out,
			"(no kernel scheduling events in the trace: "
			"record with -k sched%s)\n",
			o->span ? "" : ",irq --all");
}

static void latency_json(const struct latency *l, FILE *out)
{
	const struct lt_latency_opts *o = l->o;
	struct lt_json j;
	lt_json_doc_begin(&j, out, "latency", l->m->trace);
	lt_json_int(&j, "origin_ns", l->m->first_ns);
	lt_json_str(&j, "mode",
		    o->span ? "spans" :
		    o->last ? "last" :
			      "anchors");
	if (o->span) {
		lt_json_str(&j, "span", o->span);
		lt_json_int(&j, "min_ns", o->min_ns);
		lt_json_null(&j, "anchor");
		lt_json_null(&j, "by");
	} else {
		lt_json_null(&j, "span");
		lt_json_null(&j, "min_ns");
		lt_json_str(&j, "anchor", o->anchor.spec);
		lt_json_str(&j, "by", l->by);
	}
	lt_json_uint(&j, "matched", l->nmatched);
	lt_json_bool(&j, "sched_events", l->m->nsched != 0);
	lt_json_arr(&j, "explanations");
	for (unsigned i = 0; i < l->nres; i++)
		lt_lat_expl_json(&j, l->res[i].e, i + 1);
	lt_json_doc_end(&j);
}

/* Prints the kept explanations, worst first, and frees them. */
static void latency_print(struct latency *l, int print, FILE *out)
{
	if (print) {
		qsort(l->res, l->nres, sizeof(*l->res), by_key_desc);
		if (l->o->fmt == LT_AFMT_JSON)
			latency_json(l, out);
		else
			latency_text(l, out);
	}
	for (unsigned i = 0; l->res && i < l->nres; i++)
		lt_lat_expl_free(l->res[i].e);
	free(l->res);
}

/*
 * The slot of res (of top) for an explanation ranked key, freeing the
 * one it replaces; -1 if key does not rank.  *nres grows while there
 * is room.
 */
static int slot_for(struct result *res, unsigned *nres, unsigned top,
		    int64_t key)
{
	unsigned slot = *nres;
	if (*nres == top) {
		slot = 0;
		for (unsigned i = 1; i < *nres; i++)
			if (res[i].key < res[slot].key)
				slot = i;
		if (res[slot].key >= key)
			return -1;
		lt_lat_expl_free(res[slot].e);
		res[slot].e = NULL;
	} else {
		(*nres)++;
	}
	return (int)slot;
}

struct span_run {
	const struct lt_model *m;
	const struct lt_span_tracker *spans;
	const struct lt_latency_opts *o;
	struct result *res;
	unsigned nres, top;
	uint64_t nspans;
	int err;
};

/* Keeps the explanation of a span among the top slowest. */
static void on_span(void *arg, const struct lt_span *sp)
{
	struct span_run *r = arg;
	int64_t dur = sp->end - sp->begin;
	if (!sp->given || dur < r->o->min_ns)
		return;
	r->nspans++;
	int slot = slot_for(r->res, &r->nres, r->top, dur);
	if (slot < 0)
		return;
	struct expl *e = calloc(1, sizeof(*e));
	r->res[slot] = (struct result){ dur, e };
	if (!e || lt_lat_explain_span(e, r->m, r->spans, sp) != 0)
		r->err = -ENOMEM;
}

static int latency_spans(lt_reader_t *t, const struct lt_latency_opts *o,
			 FILE *out)
{
	struct lt_span_pair pair;
	char err[256];
	int ret = lt_span_parse(o->span, &pair, err, sizeof(err));
	if (ret)
		return ret;
	struct lt_model m;
	ret = lt_model_init(&m, t);
	if (ret)
		return ret;
	struct span_run r = { .m = &m, .o = o, .top = o->top ? o->top : 5 };
	struct lt_span_tracker *spans = lt_spans_new(t, &pair);
	r.spans = spans;
	r.res = calloc(r.top, sizeof(*r.res));
	if (!spans || !r.res)
		ret = -ENOMEM;
	const struct lt_event *ev;
	while (!ret && !r.err && (ret = lt_reader_next(t, &ev)) > 0) {
		lt_model_feed(&m, ev);
		ret = lt_spans_feed(spans, ev, on_span, &r);
	}
	if (!ret && r.err)
		ret = r.err;
	struct latency l = { o, &m, NULL, r.nspans, r.res, r.nres };
	latency_print(&l, ret == 0, out);
	lt_spans_free(spans);
	lt_model_free(&m);
	return ret;
}

int lt_analyze_latency(lt_reader_t *t, const struct lt_latency_opts *o,
		       FILE *out)
{
	if (o->span)
		return latency_spans(t, o, out);
	struct lt_model m;
	const char *by = o->by ? o->by : "late_us";
	unsigned top = o->top ? o->top : 5, nres = 0;
	uint64_t nanchors = 0;
	int ret = lt_model_init(&m, t);
	if (ret)
		return ret;
	struct result *res = calloc(top, sizeof(*res));
	uint8_t *memo = calloc(lt_reader_nclasses(t) + 1, 1);
	if (!res || !memo) {
		free(res);
		free(memo);
		lt_model_free(&m);
		return -ENOMEM;
	}
	const struct lt_event *ev;
	while ((ret = lt_reader_next(t, &ev)) > 0) {
		lt_model_feed(&m, ev);
		if (!lt_anchor_match_memo(&o->anchor, ev, memo))
			continue;
		nanchors++;
		int64_t byval = 0, tid = lt_event_tid(ev);
		/* an anchor without the field is explained as on time */
		int has_by = lt_event_int(ev, by, &byval) == 0;
		int slot;
		if (o->last) {
			/* explained as it passes (the model holds only the
			 * window before it): each replaces the one before */
			if (nres)
				lt_lat_expl_free(res[0].e);
			slot = 0;
			nres = 1;
		} else if ((slot = slot_for(res, &nres, top, byval)) < 0) {
			continue;
		}
		struct expl *e = calloc(1, sizeof(*e));
		res[slot] = (struct result){ byval, e };
		if (!e) {
			ret = -ENOMEM;
			break;
		}
		lt_lat_explain(e, &m, ev, (int32_t)tid,
			       lt_sat_mul(byval, unit_ns(by)),
			       has_by ? by : NULL, byval);
	}
	struct latency l = { o, &m, by, nanchors, res, nres };
	latency_print(&l, ret == 0, out);
	free(memo);
	lt_model_free(&m);
	return ret;
}
