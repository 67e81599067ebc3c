/* SPDX-License-Identifier: MIT */
/*
 * export.c - Chrome trace-event JSON (the "JSON Array Format" inside an
 * object, as chrome://tracing and ui.perfetto.dev read it):
 *
 *   - a track per thread (pid = its process, tid = it), named from the
 *     trace, with a complete ("X") slice for each time it ran;
 *   - a process "CPUs" (pid LT_CPU_PID) with a track per CPU and a slice,
 *     named after the thread, for each scheduling slice;
 *   - each anchor as an instant ("i") event on its thread's track.
 *
 * Times are microseconds from the first event.  Slices are written when
 * they end; an anchor splits the running slice of its thread, so that
 * every track's events are in time order in the file.
 */
#include "analysis/analysis.h"
#include "analysis/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LT_CPU_PID 4194305 /* above any Linux pid */

struct exp {
	FILE *out;
	struct lt_model *m;
	int64_t t0;
	int first;
	/* per CPU: where its running thread's next thread slice starts */
	int64_t *split;
	unsigned nsplit;
};

static void sep(struct exp *x)
{
	fputs(x->first ? "\n" : ",\n", x->out);
	x->first = 0;
}

static double us(const struct exp *x, int64_t ns)
{
	return (double)(ns - x->t0) / 1e3;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static int64_t *split_of(struct exp *x, unsigned cpu)
{
	if (cpu >= x->nsplit) {
		unsigned n = cpu + 8;
		int64_t *ns = realloc(x->split, n * sizeof(*ns));
		if (!ns)
			return NULL;
		memset(ns + x->nsplit, 0, (n - x->nsplit) * sizeof(*ns));
		x->split = ns;
		x->nsplit = n;
	}
	return &x->split[cpu];
}

static void thread_slice(struct exp *x, int32_t tid, unsigned cpu, int64_t b,
			 int64_t e)
{
	/* a thread runs on one CPU at a time: no overlap on its track */
	struct lt_thread *th = lt_model_thread(x->m, tid);
	if (th && b < th->mark)
		b = th->mark;
	if (e <= b)
		return;
	if (th)
		th->mark = e;
	int32_t pid = lt_model_tgid(x->m, tid);
	sep(x);
	fprintf(x->out,
		"{\"ph\":\"X\",\"name\":\"running\",\"cat\":\"sched\","
		"\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
		"\"args\":{\"cpu\":%u}}",
		pid > 0 ? pid : tid, tid, us(x, b), (double)(e - b) / 1e3, cpu);
}

static void on_slice(void *arg, unsigned cpu, const struct lt_cslice *s)
{
	struct exp *x = arg;
	int64_t *sp = split_of(x, cpu);
	sep(x);
	fputs("{\"ph\":\"X\",\"name\":", x->out);
	json_str(x->out, lt_model_comm(x->m, s->tid));
	fprintf(x->out,
		",\"cat\":\"cpu\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,"
		"\"dur\":%.3f,\"args\":{\"tid\":%d}}",
		LT_CPU_PID, cpu, us(x, s->begin),
		(double)(s->end - s->begin) / 1e3, s->tid);
	if (s->tid > 0) {
		int64_t b = sp && *sp > s->begin ? *sp : s->begin;
		thread_slice(x, s->tid, cpu, b, s->end);
	}
}

static void anchor(struct exp *x, const struct lt_event *ev)
{
	int64_t tid = lt_event_tid(ev);
	/* end the running slice here, so the track stays in time order */
	const struct lt_model *m = x->m;
	if (ev->cpu < m->ncpus && m->cpus[ev->cpu].cur == tid) {
		int64_t *sp = split_of(x, ev->cpu);
		const struct lt_cpu *c = &m->cpus[ev->cpu];
		int64_t b = sp && *sp > c->since ? *sp : c->since;
		thread_slice(x, (int32_t)tid, ev->cpu, b, ev->ns);
		if (sp)
			*sp = ev->ns;
	}
	/* a slice of it that closes later starts after the instant */
	struct lt_thread *th = lt_model_thread(m, (int32_t)tid);
	if (th && th->mark < ev->ns)
		th->mark = ev->ns;
	int32_t pid = lt_model_tgid(m, (int32_t)tid);
	sep(x);
	fputs("{\"ph\":\"i\",\"s\":\"t\",\"name\":", x->out);
	json_str(x->out, ev->cls->name);
	fprintf(x->out, ",\"cat\":\"anchor\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f",
		pid > 0 ? pid : lt_event_pid(ev), (int32_t)tid, us(x, ev->ns));
	fputs(",\"args\":{", x->out);
	for (unsigned i = 0; i < ev->cls->nfields; i++) {
		struct lt_value v;
		if (lt_event_field(ev, i, &v) != 0 ||
		    (v.kind != LT_KIND_INT && v.kind != LT_KIND_ENUM))
			continue;
		fprintf(x->out, "%s", i ? "," : "");
		json_str(x->out, ev->cls->fields[i].name);
		if (v.fc->is_signed)
			fprintf(x->out, ":%lld", (long long)v.i);
		else
			fprintf(x->out, ":%llu", (unsigned long long)v.u);
	}
	fputs("}}", x->out);
}

static void names(struct exp *x)
{
	const struct lt_model *m = x->m;
	sep(x);
	fprintf(x->out,
		"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,"
		"\"tid\":0,\"args\":{\"name\":\"CPUs\"}}",
		LT_CPU_PID);
	for (unsigned c = 0; c < m->ncpus; c++) {
		sep(x);
		fprintf(x->out,
			"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,"
			"\"tid\":%u,\"args\":{\"name\":\"CPU %u\"}}",
			LT_CPU_PID, c, c);
	}
	for (unsigned i = 0; i < m->tab_cap; i++) {
		const struct lt_thread *th = m->tab[i];
		if (!th)
			continue;
		int32_t pid = th->tgid > 0 ? th->tgid : th->tid;
		sep(x);
		fprintf(x->out,
			"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,"
			"\"tid\":%d,\"args\":{\"name\":",
			pid, th->tid);
		json_str(x->out, th->comm[0] ? th->comm : "?");
		fputs("}}", x->out);
		if (pid == th->tid) {
			sep(x);
			fprintf(x->out,
				"{\"ph\":\"M\",\"name\":\"process_name\","
				"\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
				pid, th->tid);
			json_str(x->out, th->comm[0] ? th->comm : "?");
			fputs("}}", x->out);
		}
	}
}

int lt_export_chrome(lt_reader_t *t, const struct lt_anchor *anc, FILE *out)
{
	struct lt_model m;
	struct exp x = { .out = out, .m = &m, .first = 1 };
	const struct lt_event *ev;
	int ret = lt_model_init(&m, t);
	if (ret)
		return ret;
	m.on_slice = on_slice;
	m.arg = &x;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
	while ((ret = lt_reader_next(t, &ev)) > 0) {
		if (!m.nevents)
			x.t0 = ev->ns;
		if (lt_model_feed(&m, ev) == LT_KEV_SWITCH) {
			int64_t *sp = split_of(&x, ev->cpu);
			if (sp)
				*sp = 0;
		} else if (anc && lt_anchor_match(anc, ev)) {
			anchor(&x, ev);
		}
	}
	if (ret == 0) {
		lt_model_finish(&m);
		names(&x);
		fputs("\n]}\n", out);
	}
	free(x.split);
	lt_model_free(&m);
	return ret;
}
