/* SPDX-License-Identifier: MIT */
/*
 * report.c - the data of the HTML report (report.h), as one JS object D:
 *
 *   threads  [tid, tgid, comm] for every thread seen
 *   sl       per-CPU slices, flat: cpu, begin, end, tid
 *   irq      irq/softirq windows, flat: cpu, begin, end, vec, soft
 *   sp       per-thread state spans, flat: tid, begin, end, state
 *   an       anchors, flat: time, tid, lateness (late_us), cpu
 *   spn      spans (span.h: start/end markers paired per thread), flat:
 *            tid, begin, end, kind (an index into spk, their names)
 *   ex       the text of `analyze latency` for the worst anchors
 *
 * Times are microseconds from the first event.  Each array is streamed
 * to its own temporary file during the one pass (slices from on_slice,
 * irq windows from on_irq, thread spans as they enter the model's rings),
 * then
 * copied into the page; memory stays bounded as in the model.  Spans
 * that fell out of a thread's ring before they were copied are counted
 * (D.lost), which the page shows.
 */
#include "analysis/report.h"
#include "analysis/model.h"
#include "analysis/span.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SCAN_EVERY 16 /* events between two scans of the threads' rings */

enum { F_SL, F_IRQ, F_SP, F_AN, F_SPN, F_N };

struct rep {
	struct lt_model *m;
	FILE *f[F_N];
	int first[F_N];
	int64_t t0;
	uint64_t lost, nanchors;
};

static void sep(struct rep *r, int k)
{
	if (!r->first[k])
		fputc(',', r->f[k]);
	r->first[k] = 0;
}

static double us(const struct rep *r, int64_t ns)
{
	return (double)(ns - r->t0) / 1e3;
}

/* A JSON string that is also safe inside <script>: no '<' as is. */
static void js_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f || c == '<' || c == '>' ||
			 c == '&')
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void on_slice(void *arg, unsigned cpu, const struct lt_cslice *s)
{
	struct rep *r = arg;
	if (s->end <= s->begin)
		return;
	sep(r, F_SL);
	fprintf(r->f[F_SL], "%u,%.3f,%.3f,%d", cpu, us(r, s->begin),
		us(r, s->end), s->tid);
}

static void on_irq(void *arg, unsigned cpu, const struct lt_irqspan *s)
{
	struct rep *r = arg;
	sep(r, F_IRQ);
	fprintf(r->f[F_IRQ], "%u,%.3f,%.3f,%d,%u", cpu, us(r, s->begin),
		us(r, s->end), s->vec, s->soft);
}

static void span_out(struct rep *r, int32_t tid, const struct lt_tspan *s)
{
	if (s->end <= s->begin || s->state == LT_TS_UNKNOWN)
		return;
	sep(r, F_SP);
	fprintf(r->f[F_SP], "%d,%.3f,%.3f,%u", tid, us(r, s->begin),
		us(r, s->end), s->state);
}

/* Copies the spans that entered each thread's ring (mark: copied). */
static void scan_threads(struct rep *r)
{
	const struct lt_model *m = r->m;
	for (unsigned i = 0; i < m->tab_cap; i++) {
		struct lt_thread *th = m->tab[i];
		if (!th)
			continue;
		uint64_t done = (uint64_t)th->mark;
		if (th->nhist - done > LT_THREAD_HIST) {
			r->lost += th->nhist - LT_THREAD_HIST - done;
			done = th->nhist - LT_THREAD_HIST;
		}
		for (; done < th->nhist; done++)
			span_out(r, th->tid, &th->hist[done % LT_THREAD_HIST]);
		th->mark = (int64_t)done;
	}
}

static void on_span(void *arg, const struct lt_span *sp)
{
	struct rep *r = arg;
	sep(r, F_SPN);
	fprintf(r->f[F_SPN], "%d,%.3f,%.3f,%u", sp->tid, us(r, sp->begin),
		us(r, sp->end), sp->key);
}

static void anchor(struct rep *r, const struct lt_event *ev)
{
	int64_t tid = lt_event_tid(ev), late = 0;
	lt_event_int(ev, "late_us", &late);
	sep(r, F_AN);
	fprintf(r->f[F_AN], "%.3f,%d,%lld,%u", us(r, ev->ns), (int32_t)tid,
		(long long)late, (unsigned)ev->cpu);
	r->nanchors++;
}

static void threads_out(const struct rep *r, FILE *out)
{
	const struct lt_model *m = r->m;
	int first = 1;
	fputs("threads:[", out);
	for (unsigned i = 0; i < m->tab_cap; i++) {
		const struct lt_thread *th = m->tab[i];
		if (!th)
			continue;
		fprintf(out, "%s[%d,%d,", first ? "" : ",", th->tid, th->tgid);
		js_str(out, th->tid == 0 ? "idle" :
			    th->comm[0]	 ? th->comm :
					   "?");
		fputc(']', out);
		first = 0;
	}
	fputs("],\n", out);
}

static int copy_file(FILE *from, FILE *to)
{
	char buf[65536];
	size_t n;
	rewind(from);
	while ((n = fread(buf, 1, sizeof(buf), from)) > 0)
		if (fwrite(buf, 1, n, to) != n)
			return -EIO;
	return ferror(from) ? -EIO : 0;
}

/* The explanations of `analyze latency` for the worst anchors. */
static int explanations(lt_reader_t *t, const struct lt_anchor *a,
			uint64_t nanchors, FILE *out)
{
	struct lt_latency_opts o = { .anchor = *a, .by = "late_us" };
	char *text = NULL;
	size_t len = 0;
	o.top = nanchors < LT_REPORT_EXPLAIN_MAX ? (unsigned)nanchors :
						   LT_REPORT_EXPLAIN_MAX;
	if (o.top == 0)
		o.top = 1;
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		return -ENOMEM;
	lt_reader_rewind(t);
	int ret = lt_analyze_latency(t, &o, mem);
	fclose(mem);
	fputs("ex:", out);
	js_str(out, ret == 0 && text ? text : "");
	fputs(",\n", out);
	free(text);
	return ret;
}

int lt_report_html(lt_reader_t *t, const struct lt_anchor *anc, FILE *out)
{
	static const char *const names[F_N] = { "sl", "irq", "sp", "an",
						"spn" };
	struct lt_model m;
	struct rep r = { .m = &m };
	const struct lt_event *ev;
	int ret = lt_model_init(&m, t);
	if (ret)
		return ret;
	struct lt_span_tracker *spans = lt_spans_new(t, NULL);
	if (!spans)
		ret = -ENOMEM;
	for (int k = 0; k < F_N; k++) {
		r.first[k] = 1;
		if (!(r.f[k] = tmpfile()))
			ret = -errno;
	}
	if (ret)
		goto out;
	m.on_slice = on_slice;
	m.on_irq = on_irq;
	m.arg = &r;
	while ((ret = lt_reader_next(t, &ev)) > 0) {
		if (!m.nevents)
			r.t0 = ev->ns;
		lt_model_feed(&m, ev);
		if (m.nevents % SCAN_EVERY == 0)
			scan_threads(&r);
		if (anc && lt_anchor_match(anc, ev))
			anchor(&r, ev);
		if (lt_spans_feed(spans, ev, on_span, &r) < 0)
			ret = -ENOMEM;
	}
	if (ret < 0)
		goto out;
	lt_model_finish(&m);
	scan_threads(&r);
	for (unsigned i = 0; i < m.tab_cap; i++) {
		struct lt_thread *th = m.tab[i];
		if (th) {
			struct lt_tspan s = th->cur;
			s.end = m.last_ns;
			span_out(&r, th->tid, &s);
		}
	}

	fputs(lt_report_page_head, out);
	fputs("const D={\n", out);
	fputs("spec:", out);
	js_str(out, anc ? anc->spec : "");
	fprintf(out,
		",\nncpus:%u,nevents:%llu,nsched:%llu,dur:%.3f,lost:%llu,"
		"nanchors:%llu,\n",
		m.ncpus, (unsigned long long)m.nevents,
		(unsigned long long)m.nsched,
		m.nevents ? us(&r, m.last_ns) : 0.0, (unsigned long long)r.lost,
		(unsigned long long)r.nanchors);
	threads_out(&r, out);
	fputs("spk:[", out);
	for (unsigned i = 0; i < lt_spans_nkeys(spans); i++) {
		fputs(i ? "," : "", out);
		js_str(out, lt_spans_key(spans, i));
	}
	fputs("],\n", out);
	for (int k = 0; k < F_N; k++) {
		fprintf(out, "%s:[", names[k]);
		fflush(r.f[k]);
		if ((ret = copy_file(r.f[k], out)) != 0)
			goto out;
		fputs("],\n", out);
	}
	if (anc)
		ret = explanations(t, anc, r.nanchors, out);
	else
		fputs("ex:\"\",\n", out);
	if (ret)
		goto out;
	fputs("};\n", out);
	fputs(lt_report_page_tail, out);
	ret = ferror(out) ? -EIO : 0;
out:
	for (int k = 0; k < F_N; k++)
		if (r.f[k])
			fclose(r.f[k]);
	lt_spans_free(spans);
	lt_model_free(&m);
	return ret;
}
