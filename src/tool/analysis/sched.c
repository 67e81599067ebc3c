/* SPDX-License-Identifier: MIT */
/*
 * sched.c - `lowtrace analyze sched`: for each thread, how long it waited
 * for a CPU after each wake-up seen in the trace (the runnable span that
 * a sched_waking/sched_wakeup opened, up to the switch to it): count,
 * mean, worst and a histogram by decade; the threads with the worst wait
 * first.  Waits after preemption and after wake-ups the trace does not
 * hold (inferred ones, see model.h) are left out.
 */
#include "analysis/analysis.h"
#include "analysis/json_out.h"
#include "analysis/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NBUCKETS 5 /* < 10 us, < 100 us, < 1 ms, < 10 ms, more */

struct wstat {
	uint64_t n, hist[NBUCKETS];
	int64_t sum, max, max_at;
};

struct row {
	int32_t tid;
	struct wstat *w;
};

static int by_max_desc(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	return x->w->max < y->w->max ? 1 : x->w->max > y->w->max ? -1 : 0;
}

static void account(struct lt_model *m, const struct lt_event *ev)
{
	int64_t next;
	if ((lt_event_int(ev, "next_pid", &next) != 0 &&
	     lt_event_int(ev, "next_tid", &next) != 0) ||
	    next <= 0)
		return;
	struct lt_thread *th = lt_model_thread(m, (int32_t)next);
	if (!th || th->nhist == 0 || th->cur.state != LT_TS_RUNNING)
		return;
	const struct lt_tspan *s = &th->hist[(th->nhist - 1) % LT_THREAD_HIST];
	if (s->state != LT_TS_RUNNABLE || s->waker < 0 || s->end != ev->ns)
		return;
	struct wstat *w = th->user;
	if (!w) {
		w = calloc(1, sizeof(*w));
		if (!w)
			return;
		th->user = w;
	}
	int64_t d = s->end - s->begin;
	int b = d < 10000    ? 0 :
		d < 100000   ? 1 :
		d < 1000000  ? 2 :
		d < 10000000 ? 3 :
			       4;
	w->n++;
	w->hist[b]++;
	w->sum += d;
	if (d > w->max) {
		w->max = d;
		w->max_at = s->begin;
	}
}

/* The threads' waits, ranked: what both forms print. */
struct waits {
	const struct lt_model *m;
	const struct row *rows;
	unsigned n, shown;
};

static void print_text(const struct waits *w, FILE *out)
{
	const struct lt_model *m = w->m;
	fprintf(out,
		"wake-up to run latency, %u threads woken; the %u worst "
		"by their longest wait:\n"
		"%8s %-16s %8s %10s %10s %12s  "
		"<10us <100us <1ms <10ms more\n",
		w->n, w->shown, "tid", "comm", "wakeups", "mean_us", "max_us",
		"max_at_s");
	for (unsigned i = 0; i < w->shown; i++) {
		const struct wstat *s = w->rows[i].w;
		fprintf(out, "%8d %-16s %8llu %10.1f %10.1f %12.6f ",
			w->rows[i].tid, lt_model_comm(m, w->rows[i].tid),
			(unsigned long long)s->n,
			(double)s->sum / (double)s->n / 1e3,
			(double)s->max / 1e3,
			(double)(s->max_at - m->first_ns) / 1e9);
		for (int b = 0; b < NBUCKETS; b++)
			fprintf(out, " %llu", (unsigned long long)s->hist[b]);
		fputc('\n', out);
	}
	if (m->nsched == 0)
		fputs("(no kernel scheduling events in the trace: "
		      "record with -k sched --all)\n",
		      out);
}

static void print_json(const struct waits *w, lt_reader_t *t, FILE *out)
{
	const struct lt_model *m = w->m;
	struct lt_json j;
	lt_json_doc_begin(&j, out, "sched", t);
	lt_json_int(&j, "origin_ns", m->first_ns);
	lt_json_bool(&j, "sched_events", m->nsched != 0);
	lt_json_uint(&j, "threads_woken", w->n);
	lt_json_arr(&j, "hist_bounds_ns");
	for (int64_t b = 10000; b <= 10000000; b *= 10)
		lt_json_int(&j, NULL, b);
	lt_json_end(&j);
	lt_json_arr(&j, "threads");
	for (unsigned i = 0; i < w->shown; i++) {
		const struct wstat *s = w->rows[i].w;
		lt_json_obj(&j, NULL);
		lt_json_int(&j, "tid", w->rows[i].tid);
		lt_json_str(&j, "comm", lt_model_comm(m, w->rows[i].tid));
		lt_json_uint(&j, "wakeups", s->n);
		lt_json_int(&j, "total_ns", s->sum);
		lt_json_num(&j, "mean_ns", (double)s->sum / (double)s->n);
		lt_json_int(&j, "max_ns", s->max);
		lt_json_int(&j, "max_at_ns", s->max_at - m->first_ns);
		lt_json_arr(&j, "hist");
		for (int b = 0; b < NBUCKETS; b++)
			lt_json_uint(&j, NULL, s->hist[b]);
		lt_json_end(&j);
		lt_json_end(&j);
	}
	lt_json_doc_end(&j);
}

int lt_analyze_sched(lt_reader_t *t, unsigned top, enum lt_afmt fmt, FILE *out)
{
	struct lt_model m;
	const struct lt_event *ev;
	if (!lt_reader_has_event(t, "sched:sched_switch"))
		return -ENODATA;
	int ret = lt_model_init(&m, t);
	if (ret)
		return ret;
	while ((ret = lt_reader_next(t, &ev)) > 0)
		if (lt_model_feed(&m, ev) == LT_KEV_SWITCH)
			account(&m, ev);
	struct row *rows = calloc(m.nthreads ? m.nthreads : 1, sizeof(*rows));
	unsigned n = 0;
	for (unsigned i = 0; rows && i < m.tab_cap; i++)
		if (m.tab[i] && m.tab[i]->user)
			rows[n++] =
				(struct row){ m.tab[i]->tid, m.tab[i]->user };
	if (ret == 0 && !rows)
		ret = -ENOMEM;
	if (ret == 0) {
		qsort(rows, n, sizeof(*rows), by_max_desc);
		struct waits w = { &m, rows, n, top && top < n ? top : n };
		if (fmt == LT_AFMT_JSON)
			print_json(&w, t, out);
		else
			print_text(&w, out);
	}
	for (unsigned i = 0; i < m.tab_cap; i++)
		if (m.tab[i])
			free(m.tab[i]->user);
	free(rows);
	lt_model_free(&m);
	return ret;
}
