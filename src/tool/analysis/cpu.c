/* SPDX-License-Identifier: MIT */
/*
 * cpu.c - `lowtrace analyze cpu`: where the CPU time went.  Every CPU
 * slice the model closes (its on_slice callback, then lt_model_finish()
 * for the open ones) is counted to its thread, in total and per CPU, and
 * to its CPU as busy (a thread) or idle (tid 0); the model's irq and
 * softirq windows (its on_irq callback) are added up per CPU.
 *
 * Prints the top threads by CPU time (with their share of the trace's
 * span and their time on each CPU), then per CPU its busy, idle and
 * unaccounted time (before its first switch), irq and softirq time and
 * its busiest threads.  A thread's time includes the irq and softirq
 * time of the interrupts that came while it ran; slices the model
 * inferred (model.h) may include some idle time.
 */
#include "analysis/analysis.h"
#include "analysis/dstat.h"
#include "analysis/json_out.h"
#include "analysis/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CPU_TOP_THREADS 3 /* busiest threads shown per CPU */

struct tstat {
	int64_t total;
	uint64_t nslices;
	int64_t *per_cpu; /* ncpu entries */
	unsigned ncpu;
};

struct cstat {
	int64_t busy, idle, irq, soft;
	uint64_t nslices;
};

struct cpu_run {
	struct lt_model m;
	struct lt_itab threads; /* tid -> struct tstat */
	struct cstat *cpus;
	unsigned ncpus;
	int err;
};

static struct cstat *cpu_stat(struct cpu_run *r, unsigned cpu)
{
	if (cpu >= r->ncpus) {
		struct cstat *n = realloc(r->cpus, (cpu + 1) * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + r->ncpus, 0, (cpu + 1 - r->ncpus) * sizeof(*n));
		r->cpus = n;
		r->ncpus = cpu + 1;
	}
	return &r->cpus[cpu];
}

static void on_slice(void *arg, unsigned cpu, const struct lt_cslice *s)
{
	struct cpu_run *r = arg;
	struct cstat *c = cpu_stat(r, cpu);
	int64_t d = s->end - s->begin;
	if (!c) {
		r->err = -ENOMEM;
		return;
	}
	if (d < 0)
		d = 0;
	c->nslices++;
	if (s->tid == 0) {
		c->idle += d;
		return;
	}
	c->busy += d;
	struct tstat *t = lt_itab_get(&r->threads, s->tid);
	if (!t) {
		r->err = -ENOMEM;
		return;
	}
	if (cpu >= t->ncpu) {
		int64_t *n = realloc(t->per_cpu, (cpu + 1) * sizeof(*n));
		if (!n) {
			r->err = -ENOMEM;
			return;
		}
		memset(n + t->ncpu, 0, (cpu + 1 - t->ncpu) * sizeof(*n));
		t->per_cpu = n;
		t->ncpu = cpu + 1;
	}
	t->total += d;
	t->nslices++;
	t->per_cpu[cpu] += d;
}

static void on_irq(void *arg, unsigned cpu, const struct lt_irqspan *s)
{
	struct cpu_run *r = arg;
	struct cstat *c = cpu_stat(r, cpu);
	if (!c) {
		r->err = -ENOMEM;
		return;
	}
	int64_t d = s->end > s->begin ? s->end - s->begin : 0;
	if (s->soft)
		c->soft += d;
	else
		c->irq += d;
}

/* the threads' rows: the most CPU time first */
static int rank_thread(struct lt_itab_row *row)
{
	const struct tstat *s = row->val;
	row->total = s->total;
	return 1;
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The CPUs a thread ran on, most time first (the lowest first on a
 * tie), at most max of them into order; how many. */
static unsigned cpu_order(const struct tstat *s, int *order, unsigned max)
{
	unsigned shown = 0;
	int64_t last = INT64_MAX;
	int last_cpu = -1;
	while (shown < max) {
		int best = -1;
		for (unsigned c = 0; c < s->ncpu; c++) {
			int64_t v = s->per_cpu[c];
			if (v <= 0 || v > last ||
			    (v == last && (int)c <= last_cpu))
				continue;
			if (best < 0 || v > s->per_cpu[best])
				best = (int)c;
		}
		if (best < 0)
			break;
		order[shown++] = best;
		last = s->per_cpu[best];
		last_cpu = best;
	}
	return shown;
}

#define BY_CPU_SHOWN 4 /* CPUs named per thread in the text */

/* "cpu1 500.1, cpu0 2.0": the CPUs a thread ran on, most time first. */
static void print_by_cpu(const struct tstat *s, FILE *out)
{
	int order[BY_CPU_SHOWN];
	unsigned shown = cpu_order(s, order, BY_CPU_SHOWN);
	for (unsigned i = 0; i < shown; i++)
		fprintf(out, "%scpu%d %.1f", i ? ", " : "", order[i],
			(double)s->per_cpu[order[i]] / 1e6);
	unsigned on = 0;
	for (unsigned c = 0; c < s->ncpu; c++)
		on += s->per_cpu[c] > 0;
	if (on > shown)
		fprintf(out, ", ... (%u CPUs)", on);
}

/* The busiest threads of cpu (at most CPU_TOP_THREADS, the first of
 * rows on a tie) into tids and their time there into ns; how many. */
static unsigned cpu_busiest(const struct lt_itab_row *rows, unsigned n,
			    unsigned cpu, int32_t *tids, int64_t *ns)
{
	unsigned k = 0;
	for (; k < CPU_TOP_THREADS; k++) {
		const struct tstat *best = NULL;
		for (unsigned i = 0; i < n; i++) {
			const struct tstat *s = rows[i].val;
			if (cpu >= s->ncpu || s->per_cpu[cpu] <= 0)
				continue;
			int dup = 0;
			for (unsigned j = 0; j < k; j++)
				dup |= tids[j] == rows[i].key;
			if (dup)
				continue;
			if (!best || s->per_cpu[cpu] > best->per_cpu[cpu]) {
				best = s;
				tids[k] = (int32_t)rows[i].key;
			}
		}
		if (!best)
			break;
		ns[k] = best->per_cpu[cpu];
	}
	return k;
}

static void print_cpu_top(const struct cpu_run *r,
			  const struct lt_itab_row *rows, unsigned n,
			  unsigned cpu, FILE *out)
{
	int32_t tids[CPU_TOP_THREADS];
	int64_t ns[CPU_TOP_THREADS];
	unsigned k = cpu_busiest(rows, n, cpu, tids, ns);
	for (unsigned i = 0; i < k; i++)
		fprintf(out, "%s%d %s %.1f", i ? ", " : "  ", tids[i],
			lt_model_comm(&r->m, tids[i]), (double)ns[i] / 1e6);
}

/* A CPU's time before its first switch: the span less busy and idle. */
static int64_t unknown_ns(const struct cstat *s, int64_t span)
{
	int64_t unknown = span - s->busy - s->idle;
	return unknown < 0 ? 0 : unknown;
}

static void print_text(const struct cpu_run *r, const struct lt_itab_row *rows,
		       unsigned n, unsigned shown, FILE *out)
{
	const struct lt_model *m = &r->m;
	int64_t span = m->last_ns - m->first_ns;
	fprintf(out,
		"CPU time over %.6f s (first to last event), %u CPUs, %u "
		"threads ran; the %u busiest:\n"
		"%8s %-16s %8s %11s %6s %8s  %s\n",
		(double)span / 1e9, r->ncpus, n, shown, "tid", "comm", "pid",
		"cpu_ms", "%span", "slices", "by CPU (ms)");
	for (unsigned i = 0; i < shown; i++) {
		const struct tstat *s = rows[i].val;
		int32_t tid = (int32_t)rows[i].key;
		fprintf(out, "%8d %-16s %8d %11.3f %6.1f %8llu  ", tid,
			lt_model_comm(m, tid), lt_model_tgid(m, tid),
			(double)s->total / 1e6, pct(s->total, span),
			(unsigned long long)s->nslices);
		print_by_cpu(s, out);
		fputc('\n', out);
	}
	fprintf(out,
		"\nper CPU (unknown: before its first switch in the trace; irq "
		"and softirq time is within busy and idle):\n"
		"%4s %11s %6s %11s %6s %11s %9s %10s %8s  %s\n",
		"cpu", "busy_ms", "busy%", "idle_ms", "idle%", "unknown_ms",
		"irq_ms", "softirq_ms", "slices",
		"busiest threads (tid comm ms)");
	for (unsigned c = 0; c < r->ncpus; c++) {
		const struct cstat *s = &r->cpus[c];
		fprintf(out,
			"%4u %11.3f %6.1f %11.3f %6.1f %11.3f %9.3f %10.3f "
			"%8llu",
			c, (double)s->busy / 1e6, pct(s->busy, span),
			(double)s->idle / 1e6, pct(s->idle, span),
			(double)unknown_ns(s, span) / 1e6, (double)s->irq / 1e6,
			(double)s->soft / 1e6, (unsigned long long)s->nslices);
		print_cpu_top(r, rows, n, c, out);
		fputc('\n', out);
	}
}

static void print_json(const struct cpu_run *r, const struct lt_itab_row *rows,
		       unsigned n, unsigned shown, lt_reader_t *t, FILE *out)
{
	const struct lt_model *m = &r->m;
	int64_t span = m->last_ns - m->first_ns;
	struct lt_json j;
	lt_json_doc_begin(&j, out, "cpu", t);
	lt_json_int(&j, "origin_ns", m->first_ns);
	lt_json_int(&j, "span_ns", span);
	lt_json_uint(&j, "cpus_seen", r->ncpus);
	lt_json_uint(&j, "threads_ran", n);
	lt_json_arr(&j, "threads");
	for (unsigned i = 0; i < shown; i++) {
		const struct tstat *s = rows[i].val;
		int32_t tid = (int32_t)rows[i].key;
		lt_json_obj(&j, NULL);
		lt_json_int(&j, "tid", tid);
		lt_json_str(&j, "comm", lt_model_comm(m, tid));
		lt_json_int(&j, "pid", lt_model_tgid(m, tid));
		lt_json_int(&j, "cpu_ns", s->total);
		lt_json_num(&j, "span_pct", pct(s->total, span));
		lt_json_uint(&j, "slices", s->nslices);
		lt_json_arr(&j, "by_cpu");
		int *order = malloc((s->ncpu ? s->ncpu : 1) * sizeof(*order));
		unsigned on = order ? cpu_order(s, order, s->ncpu) : 0;
		for (unsigned k = 0; k < on; k++) {
			lt_json_obj(&j, NULL);
			lt_json_int(&j, "cpu", order[k]);
			lt_json_int(&j, "ns", s->per_cpu[order[k]]);
			lt_json_end(&j);
		}
		free(order);
		lt_json_end(&j);
		lt_json_end(&j);
	}
	lt_json_end(&j);
	lt_json_arr(&j, "cpus");
	for (unsigned c = 0; c < r->ncpus; c++) {
		const struct cstat *s = &r->cpus[c];
		lt_json_obj(&j, NULL);
		lt_json_int(&j, "cpu", c);
		lt_json_int(&j, "busy_ns", s->busy);
		lt_json_num(&j, "busy_pct", pct(s->busy, span));
		lt_json_int(&j, "idle_ns", s->idle);
		lt_json_num(&j, "idle_pct", pct(s->idle, span));
		lt_json_int(&j, "unknown_ns", unknown_ns(s, span));
		lt_json_int(&j, "irq_ns", s->irq);
		lt_json_int(&j, "softirq_ns", s->soft);
		lt_json_uint(&j, "slices", s->nslices);
		int32_t tids[CPU_TOP_THREADS];
		int64_t ns[CPU_TOP_THREADS];
		unsigned k = cpu_busiest(rows, n, c, tids, ns);
		lt_json_arr(&j, "busiest");
		for (unsigned i = 0; i < k; i++) {
			lt_json_obj(&j, NULL);
			lt_json_int(&j, "tid", tids[i]);
			lt_json_str(&j, "comm", lt_model_comm(m, tids[i]));
			lt_json_int(&j, "ns", ns[i]);
			lt_json_end(&j);
		}
		lt_json_end(&j);
		lt_json_end(&j);
	}
	lt_json_doc_end(&j);
}

static void report(const struct cpu_run *r, unsigned top, lt_reader_t *t,
		   enum lt_afmt fmt, FILE *out)
{
	unsigned n;
	struct lt_itab_row *rows = lt_itab_sorted(&r->threads, rank_thread, &n);
	if (!rows) {
		fputs("(out of memory)\n", out);
		return;
	}
	unsigned shown = top && top < n ? top : n;
	if (fmt == LT_AFMT_JSON)
		print_json(r, rows, n, shown, t, out);
	else
		print_text(r, rows, n, shown, out);
	free(rows);
}

int lt_analyze_cpu(lt_reader_t *t, unsigned top, enum lt_afmt fmt, FILE *out)
{
	struct cpu_run r = { 0 };
	const struct lt_event *ev;
	if (!lt_reader_has_event(t, "sched:sched_switch"))
		return -ENODATA;
	int ret = lt_model_init(&r.m, t);
	if (ret)
		return ret;
	ret = lt_itab_init(&r.threads, sizeof(struct tstat));
	if (ret) {
		lt_model_free(&r.m);
		return ret;
	}
	r.m.on_slice = on_slice;
	r.m.on_irq = on_irq;
	r.m.arg = &r;
	while (r.err == 0 && (ret = lt_reader_next(t, &ev)) > 0)
		lt_model_feed(&r.m, ev);
	if (ret == 0)
		lt_model_finish(&r.m);
	if (ret == 0 && r.err)
		ret = r.err;
	/* every CPU the model knows, even one that never switched */
	if (ret == 0 && r.m.ncpus && !cpu_stat(&r, r.m.ncpus - 1))
		ret = -ENOMEM;
	if (ret == 0)
		report(&r, top, t, fmt, out);
	for (unsigned i = 0; i < r.threads.cap; i++) {
		int64_t tid;
		struct tstat *s = lt_itab_slot(&r.threads, i, &tid);
		if (s)
			free(s->per_cpu);
	}
	lt_itab_free(&r.threads);
	free(r.cpus);
	lt_model_free(&r.m);
	return ret;
}
