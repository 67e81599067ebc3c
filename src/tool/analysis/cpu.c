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

/* "cpu1 500.1, cpu0 2.0": the CPUs a thread ran on, most time first. */
static void print_by_cpu(const struct tstat *s, FILE *out)
{
	unsigned shown = 0;
	int64_t last = INT64_MAX;
	int last_cpu = -1;
	while (shown < 4) {
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
		fprintf(out, "%scpu%d %.1f", shown ? ", " : "", best,
			(double)s->per_cpu[best] / 1e6);
		last = s->per_cpu[best];
		last_cpu = best;
		shown++;
	}
	unsigned on = 0;
	for (unsigned c = 0; c < s->ncpu; c++)
		on += s->per_cpu[c] > 0;
	if (on > shown)
		fprintf(out, ", ... (%u CPUs)", on);
}

static void print_cpu_top(const struct cpu_run *r,
			  const struct lt_itab_row *rows, unsigned n,
			  unsigned cpu, FILE *out)
{
	int32_t shown[CPU_TOP_THREADS];
	unsigned k = 0;
	for (; k < CPU_TOP_THREADS; k++) {
		const struct tstat *best = NULL;
		for (unsigned i = 0; i < n; i++) {
			const struct tstat *s = rows[i].val;
			if (cpu >= s->ncpu || s->per_cpu[cpu] <= 0)
				continue;
			int dup = 0;
			for (unsigned j = 0; j < k; j++)
				dup |= shown[j] == rows[i].key;
			if (dup)
				continue;
			if (!best || s->per_cpu[cpu] > best->per_cpu[cpu]) {
				best = s;
				shown[k] = (int32_t)rows[i].key;
			}
		}
		if (!best)
			break;
		fprintf(out, "%s%d %s %.1f", k ? ", " : "  ", shown[k],
			lt_model_comm(&r->m, shown[k]),
			(double)best->per_cpu[cpu] / 1e6);
	}
}

static void report(const struct cpu_run *r, unsigned top, FILE *out)
{
	const struct lt_model *m = &r->m;
	int64_t span = m->last_ns - m->first_ns;
	unsigned n;
	struct lt_itab_row *rows = lt_itab_sorted(&r->threads, rank_thread, &n);
	if (!rows) {
		fputs("(out of memory)\n", out);
		return;
	}
	unsigned shown = top && top < n ? top : n;
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
		int64_t unknown = span - s->busy - s->idle;
		if (unknown < 0)
			unknown = 0;
		fprintf(out,
			"%4u %11.3f %6.1f %11.3f %6.1f %11.3f %9.3f %10.3f "
			"%8llu",
			c, (double)s->busy / 1e6, pct(s->busy, span),
			(double)s->idle / 1e6, pct(s->idle, span),
			(double)unknown / 1e6, (double)s->irq / 1e6,
			(double)s->soft / 1e6, (unsigned long long)s->nslices);
		print_cpu_top(r, rows, n, c, out);
		fputc('\n', out);
	}
	free(rows);
}

int lt_analyze_cpu(lt_reader_t *t, unsigned top, FILE *out)
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
		report(&r, top, out);
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
