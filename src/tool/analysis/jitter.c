/* SPDX-License-Identifier: MIT */
/*
 * jitter.c - `lowtrace analyze jitter`: anchors found by the analysis.
 * For a periodic event (demo:tick), the interval between consecutive
 * events of one thread (its "tid" field, else the process) less the
 * period is the lateness of an expiry; the worst are ranked.  Needs no
 * kernel events.
 */
#include "analysis/analysis.h"
#include "analysis/json_out.h"
#include "analysis/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 256

struct expiry {
	int64_t late_ns, ns, interval;
	int64_t tid, seq;
};

/* What the pass found: the figures both forms print. */
struct jitter {
	const struct lt_jitter_opts *o;
	uint64_t nev, nint;
	int64_t first, sum_late, max_late;
	struct expiry *res; /* the worst, worst first */
	unsigned nres;
};

static double mean_late_ns(const struct jitter *r)
{
	return r->nint ? (double)r->sum_late / (double)r->nint : 0.0;
}

static void print_text(const struct jitter *r, FILE *out)
{
	fprintf(out,
		"%llu %s events, %llu intervals, period %.3f ms: "
		"worst %.3f ms late, mean lateness %.3f ms\n",
		(unsigned long long)r->nev, r->o->event,
		(unsigned long long)r->nint, (double)r->o->period_ns / 1e6,
		(double)r->max_late / 1e6,
		r->nint ? (double)r->sum_late / 1e6 / (double)r->nint : 0.0);
	for (unsigned k = 0; k < r->nres; k++) {
		const struct expiry *e = &r->res[k];
		fprintf(out,
			"#%u at +%.6f s tid %lld seq %lld: %.3f ms "
			"after the previous one, %.3f ms late\n",
			k + 1, (double)(e->ns - r->first) / 1e9,
			(long long)e->tid, (long long)e->seq,
			(double)e->interval / 1e6, (double)e->late_ns / 1e6);
	}
}

static void print_json(const struct jitter *r, lt_reader_t *t, FILE *out)
{
	struct lt_json j;
	lt_json_doc_begin(&j, out, "jitter", t);
	lt_json_int(&j, "origin_ns", r->first);
	lt_json_str(&j, "event", r->o->event);
	lt_json_int(&j, "period_ns", r->o->period_ns);
	lt_json_uint(&j, "events", r->nev);
	lt_json_uint(&j, "intervals", r->nint);
	lt_json_int(&j, "worst_late_ns", r->max_late);
	lt_json_num(&j, "mean_late_ns", mean_late_ns(r));
	lt_json_arr(&j, "expiries");
	for (unsigned k = 0; k < r->nres; k++) {
		const struct expiry *e = &r->res[k];
		lt_json_obj(&j, NULL);
		lt_json_int(&j, "at_ns", e->ns - r->first);
		lt_json_int(&j, "tid", e->tid);
		lt_json_int(&j, "seq", e->seq);
		lt_json_int(&j, "interval_ns", e->interval);
		lt_json_int(&j, "late_ns", e->late_ns);
		lt_json_end(&j);
	}
	lt_json_doc_end(&j);
}

int lt_analyze_jitter(lt_reader_t *t, const struct lt_jitter_opts *o, FILE *out)
{
	struct {
		int64_t tid, prev;
	} th[MAX_THREADS];
	unsigned nth = 0, top = o->top ? o->top : 10, nres = 0;
	struct expiry *res = calloc(top, sizeof(*res));
	int64_t first = 0, sum_late = 0, max_late = 0;
	uint64_t nev = 0, nint = 0;
	const struct lt_event *ev;
	int ret;

	if (!res)
		return -ENOMEM;
	while ((ret = lt_reader_next(t, &ev)) > 0) {
		if (!first)
			first = ev->ns;
		if (!lt_pattern_match(o->event, ev->cls->name))
			continue;
		nev++;
		int64_t tid = lt_event_tid(ev), seq = -1;
		lt_event_int(ev, "seq", &seq);
		unsigned i = 0;
		while (i < nth && th[i].tid != tid)
			i++;
		if (i == nth) {
			if (nth == MAX_THREADS)
				continue;
			th[nth].tid = tid;
			th[nth++].prev = ev->ns;
			continue;
		}
		int64_t iv = lt_sat_sub(ev->ns, th[i].prev);
		th[i].prev = ev->ns;
		int64_t late = lt_sat_sub(iv, o->period_ns);
		nint++;
		sum_late = lt_sat_add(sum_late, late > 0 ? late : 0);
		if (late > max_late)
			max_late = late;
		unsigned slot = nres;
		if (nres == top) {
			slot = 0;
			for (unsigned k = 1; k < nres; k++)
				if (res[k].late_ns < res[slot].late_ns)
					slot = k;
			if (res[slot].late_ns >= late)
				continue;
		} else {
			nres++;
		}
		res[slot] = (struct expiry){ late, ev->ns, iv, tid, seq };
	}
	if (ret == 0) {
		/* worst first */
		for (unsigned a = 0; a < nres; a++)
			for (unsigned b = a + 1; b < nres; b++)
				if (res[b].late_ns > res[a].late_ns) {
					struct expiry x = res[a];
					res[a] = res[b];
					res[b] = x;
				}
		struct jitter r = { o,	      nev,	nint, first,
				    sum_late, max_late, res,  nres };
		if (o->fmt == LT_AFMT_JSON)
			print_json(&r, t, out);
		else
			print_text(&r, out);
	}
	free(res);
	return ret;
}
