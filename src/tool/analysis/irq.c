/* SPDX-License-Identifier: MIT */
/*
 * irq.c - `lowtrace analyze irq`: how long interrupt handlers ran, from
 * irq:irq_handler_entry/exit and irq:softirq_entry/exit (`lowtrace
 * record -k irq`).  The model pairs each entry with the next exit on the
 * same CPU into an irq or softirq window (model.h); each window it
 * closes (its on_irq callback) is counted here to its line: the irq
 * number (named by the handler's name field, e.g. "virtio1-req.0") or
 * the softirq vector (HI, TIMER, NET_TX, ...).
 *
 * Per line: count, total, mean and worst duration, share of the trace's
 * span and a histogram by decade, the lines with the most time first;
 * then the longest single windows with their CPU and the thread they
 * interrupted.  An exit without its entry (the handler began before the
 * trace) is skipped and counted.
 */
#include "analysis/analysis.h"
#include "analysis/dstat.h"
#include "analysis/json_out.h"
#include "analysis/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SOFT_KEY (1ll << 32) /* key: vector | SOFT_KEY for softirqs */

static const char *const softirq_names[] = {
	"HI",	    "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
	"IRQ_POLL", "TASKLET", "SCHED",	 "HRTIMER", "RCU",
};

const char *lt_softirq_name(int64_t vec)
{
	return vec >= 0 && vec < (int64_t)(sizeof(softirq_names) /
					   sizeof(softirq_names[0])) ?
		       softirq_names[vec] :
		       "?";
}

struct line {
	struct lt_dstat d;
	char name[40]; /* the handler's name; "+" when several share it */
};

struct irq_run {
	struct lt_model m;
	struct lt_itab lines; /* key -> struct line */
	struct lt_topn longest;
	char (*entry_name)[32]; /* per CPU: the latest handler's name */
	unsigned ncpus;
	uint64_t nirq, nsoft, unmatched;
	int closed; /* the event fed closed a window */
	int err;
};

static int grow_cpus(struct irq_run *r, unsigned cpu)
{
	if (cpu < r->ncpus)
		return 0;
	unsigned n = cpu + 1;
	char(*e)[32] = realloc(r->entry_name, n * sizeof(*e));
	if (!e)
		return -ENOMEM;
	r->entry_name = e;
	memset(e + r->ncpus, 0, (n - r->ncpus) * sizeof(*e));
	r->ncpus = n;
	return 0;
}

static void copy_name(const struct lt_event *ev, char out[32])
{
	struct lt_value v;
	out[0] = 0;
	if (lt_event_field_by_name(ev, "name", &v) != 0 || !v.str)
		return;
	if (v.kind != LT_KIND_STRING && !v.fc->text)
		return;
	size_t n = strnlen(v.str, v.len < 31 ? v.len : 31);
	memcpy(out, v.str, n);
	out[n] = 0;
}

static void set_line_name(struct line *l, const char *name)
{
	size_t n = strlen(l->name);
	if (!name[0] || strcmp(l->name, name) == 0)
		return;
	if (!n) {
		snprintf(l->name, sizeof(l->name), "%s", name);
		return;
	}
	if (l->name[n - 1] != '+' && n + 1 < sizeof(l->name)) {
		l->name[n] = '+'; /* a shared line: several handlers */
		l->name[n + 1] = 0;
	}
}

/* A window the model closed (its on_irq callback), counted to its line. */
static void on_irq(void *arg, unsigned cpu, const struct lt_irqspan *s)
{
	struct irq_run *r = arg;
	int64_t key = (int64_t)(uint32_t)s->vec;
	if (s->soft)
		key |= SOFT_KEY;
	r->closed = 1;
	struct line *l = lt_itab_get(&r->lines, key);
	if (!l) {
		r->err = -ENOMEM;
		return;
	}
	/* an irq window closes at its exit: the name is its entry's */
	if (!s->soft && cpu < r->ncpus)
		set_line_name(l, r->entry_name[cpu]);
	lt_dstat_add(&l->d, s->end - s->begin, s->begin);
	struct lt_topn_item it = { .dur = s->end - s->begin,
				   .begin = s->begin,
				   .key = key,
				   .tid = r->m.cpus[cpu].cur,
				   .cpu = (int32_t)cpu };
	lt_topn_add(&r->longest, &it);
	if (s->soft)
		r->nsoft++;
	else
		r->nirq++;
}

static int feed(struct irq_run *r, const struct lt_event *ev)
{
	r->closed = 0;
	int k = lt_model_feed(&r->m, ev);
	if (r->err)
		return r->err;
	if (k < LT_KEV_IRQ_ENTRY || k > LT_KEV_SOFTIRQ_EXIT)
		return 0;
	if (grow_cpus(r, ev->cpu) != 0 || ev->cpu >= r->m.ncpus)
		return -ENOMEM;
	if (k == LT_KEV_IRQ_ENTRY)
		copy_name(ev, r->entry_name[ev->cpu]);
	else if ((k == LT_KEV_IRQ_EXIT || k == LT_KEV_SOFTIRQ_EXIT) &&
		 !r->closed)
		r->unmatched++;
	return 0;
}

/* "softirq  1 TIMER" or "irq     36 virtio1-req.0" */
static const char *line_name(int64_t key, const struct line *l, int *soft,
			     int32_t *vec)
{
	*soft = (key & SOFT_KEY) != 0;
	*vec = (int32_t)(uint32_t)(key & 0xffffffffll);
	if (*soft)
		return lt_softirq_name(*vec);
	return l && l->name[0] ? l->name : "?";
}

/* the lines' rows: the most handler time first */
static int rank_line(struct lt_itab_row *row)
{
	const struct line *l = row->val;
	row->total = l->d.sum;
	return 1;
}

static double span_pct(const struct line *l, int64_t span)
{
	return span > 0 ? 100.0 * (double)l->d.sum / (double)span : 0.0;
}

static void print_text(const struct irq_run *r, const struct lt_itab_row *rows,
		       unsigned n, unsigned shown, FILE *out)
{
	int64_t span = r->m.last_ns - r->m.first_ns;
	int soft;
	int32_t vec;
	fprintf(out,
		"interrupts over %.6f s on %u CPUs: %llu irq and %llu "
		"softirq handler runs, on %u lines; by total time:\n"
		"%-7s %4s %-22s %8s %10s %9s %9s %6s%s\n",
		(double)span / 1e9, r->m.ncpus, (unsigned long long)r->nirq,
		(unsigned long long)r->nsoft, n, "kind", "vec", "name", "count",
		"total_ms", "mean_us", "max_us", "%span", lt_dstat_hist_title);
	for (unsigned i = 0; i < shown; i++) {
		const struct line *l = rows[i].val;
		const char *name = line_name(rows[i].key, l, &soft, &vec);
		fprintf(out, "%-7s %4d %-22s %8llu %10.3f %9.1f %9.1f %6.2f",
			soft ? "softirq" : "irq", vec, name,
			(unsigned long long)l->d.n, (double)l->d.sum / 1e6,
			(double)l->d.sum / (double)l->d.n / 1e3,
			(double)l->d.max / 1e3, span_pct(l, span));
		lt_dstat_print_hist(&l->d, out);
		fputc('\n', out);
	}
	fprintf(out,
		"\nthe %u longest:\n%3s %12s %-7s %4s %-22s %4s %12s  %s\n",
		r->longest.n, "#", "duration_us", "kind", "vec", "name", "cpu",
		"at_s", "interrupted (tid comm)");
	for (unsigned i = 0; i < r->longest.n; i++) {
		const struct lt_topn_item *it = &r->longest.v[i];
		const char *name = line_name(
			it->key, lt_itab_find(&r->lines, it->key), &soft, &vec);
		fprintf(out, "%3u %12.1f %-7s %4d %-22s %4d %12.6f  %d %s\n",
			i + 1, (double)it->dur / 1e3, soft ? "softirq" : "irq",
			vec, name, it->cpu,
			(double)(it->begin - r->m.first_ns) / 1e9, it->tid,
			lt_model_comm(&r->m, it->tid));
	}
	fprintf(out,
		"skipped: %llu exits without an entry (handlers begun before "
		"the trace)\n",
		(unsigned long long)r->unmatched);
}

static void print_json(const struct irq_run *r, const struct lt_itab_row *rows,
		       unsigned n, unsigned shown, lt_reader_t *t, FILE *out)
{
	int64_t span = r->m.last_ns - r->m.first_ns;
	int soft;
	int32_t vec;
	struct lt_json j;
	lt_json_doc_begin(&j, out, "irq", t);
	lt_json_int(&j, "origin_ns", r->m.first_ns);
	lt_json_int(&j, "span_ns", span);
	lt_json_uint(&j, "cpus_seen", r->m.ncpus);
	lt_json_uint(&j, "irq_runs", r->nirq);
	lt_json_uint(&j, "softirq_runs", r->nsoft);
	lt_json_uint(&j, "lines_seen", n);
	lt_json_uint(&j, "exits_without_entry", r->unmatched);
	lt_dstat_json_bounds(&j);
	lt_json_arr(&j, "lines");
	for (unsigned i = 0; i < shown; i++) {
		const struct line *l = rows[i].val;
		const char *name = line_name(rows[i].key, l, &soft, &vec);
		lt_json_obj(&j, NULL);
		lt_json_str(&j, "kind", soft ? "softirq" : "irq");
		lt_json_int(&j, "vec", vec);
		lt_json_str(&j, "name", name);
		lt_dstat_json(&l->d, &j, r->m.first_ns);
		lt_json_num(&j, "span_pct", span_pct(l, span));
		lt_json_end(&j);
	}
	lt_json_end(&j);
	lt_json_arr(&j, "longest");
	for (unsigned i = 0; i < r->longest.n; i++) {
		const struct lt_topn_item *it = &r->longest.v[i];
		const char *name = line_name(
			it->key, lt_itab_find(&r->lines, it->key), &soft, &vec);
		lt_json_obj(&j, NULL);
		lt_json_int(&j, "duration_ns", it->dur);
		lt_json_str(&j, "kind", soft ? "softirq" : "irq");
		lt_json_int(&j, "vec", vec);
		lt_json_str(&j, "name", name);
		lt_json_int(&j, "cpu", it->cpu);
		lt_json_int(&j, "at_ns", it->begin - r->m.first_ns);
		lt_json_int(&j, "tid", it->tid);
		lt_json_str(&j, "comm", lt_model_comm(&r->m, it->tid));
		lt_json_end(&j);
	}
	lt_json_doc_end(&j);
}

static int report(struct irq_run *r, unsigned top, lt_reader_t *t,
		  enum lt_afmt fmt, FILE *out)
{
	unsigned n;
	struct lt_itab_row *rows = lt_itab_sorted(&r->lines, rank_line, &n);
	if (!rows) {
		if (fmt == LT_AFMT_JSON)
			return -ENOMEM;
		fputs("(out of memory)\n", out);
		return 0;
	}
	lt_topn_sort(&r->longest);
	if (fmt == LT_AFMT_JSON)
		print_json(r, rows, n, top && top < n ? top : n, t, out);
	else
		print_text(r, rows, n, top && top < n ? top : n, out);
	free(rows);
	return 0;
}

int lt_analyze_irq(lt_reader_t *t, unsigned top, enum lt_afmt fmt, FILE *out)
{
	struct irq_run r = { 0 };
	const struct lt_event *ev;
	if (!lt_reader_has_event(t, "irq:irq_handler_entry") &&
	    !lt_reader_has_event(t, "irq:softirq_entry"))
		return -ENODATA;
	int ret = lt_model_init(&r.m, t);
	if (ret)
		return ret;
	ret = lt_itab_init(&r.lines, sizeof(struct line));
	if (!ret)
		ret = lt_topn_init(&r.longest, top);
	if (ret)
		goto out;
	r.m.on_irq = on_irq;
	r.m.arg = &r;
	while ((ret = lt_reader_next(t, &ev)) > 0)
		if ((ret = feed(&r, ev)) < 0)
			break;
	if (ret == 0)
		ret = report(&r, top, t, fmt, out);
out:
	lt_topn_free(&r.longest);
	lt_itab_free(&r.lines);
	free(r.entry_name);
	lt_model_free(&r.m);
	return ret;
}
