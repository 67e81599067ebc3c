/* SPDX-License-Identifier: MIT */
/*
 * latency_print.c - an explanation of `lowtrace analyze latency` (struct
 * expl, latency_explain.c) as the text says it and as its JSON member
 * (docs/analysis-json.md): the same figures, the verdict's sentence in
 * both.
 */
#include "analysis/latency_int.h"

#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[] = {
	[V_UNKNOWN] = "unknown",   [V_NO_CAUSE] = "no_cause",
	[V_RUNNABLE] = "runnable", [V_BLOCKED] = "blocked",
	[V_IRQ] = "irq",	   [V_TIMER] = "timer",
	[V_RUNNING] = "running",
};

/* "tid N COMM (pid P)" */
static void who(FILE *f, const struct who *w)
{
	if (w->tid == 0) {
		fputs("idle (tid 0)", f);
		return;
	}
	if (w->tid == LT_WAKER_UNSEEN) {
		fputs("a wake-up not in the trace (from idle)", f);
		return;
	}
	if (w->tid < 0) {
		fputs("nobody", f);
		return;
	}
	fprintf(f, "tid %d %s", w->tid, w->comm);
	if (w->pid > 0)
		fprintf(f, " (pid %d)", w->pid);
}

/* The same as a JSON member: an object with its kind, null for nobody. */
static void who_json(struct lt_json *j, const char *key, const struct who *w)
{
	if (w->tid < 0 && w->tid != LT_WAKER_UNSEEN) {
		lt_json_null(j, key);
		return;
	}
	lt_json_obj(j, key);
	if (w->tid == LT_WAKER_UNSEEN) {
		lt_json_str(j, "kind", "unseen");
	} else {
		lt_json_str(j, "kind", w->tid == 0 ? "idle" : "thread");
		lt_json_int(j, "tid", w->tid);
		lt_json_str(j, "comm", w->comm);
		if (w->pid > 0)
			lt_json_int(j, "pid", w->pid);
		else
			lt_json_null(j, "pid");
	}
	lt_json_end(j);
}

/* The verdict's sentence, as the text says it after "verdict: ". */
static void verdict_text(FILE *f, const struct expl *e)
{
	switch (e->verdict) {
	case V_UNKNOWN:
		fputs("unknown", f);
		break;
	case V_NO_CAUSE:
		fprintf(f, "late %.3f ms with no scheduling cause in the trace",
			ms(e->v_ns));
		break;
	case V_RUNNABLE:
		fprintf(f, "waited %.1f ms runnable on CPU %d behind ",
			ms(e->v_ns), e->cpu);
		who(f, &e->v_who);
		break;
	case V_BLOCKED:
		if (e->is_span) {
			fprintf(f, "blocked %.1f ms", ms(e->v_ns));
			if (e->v_inside)
				fprintf(f, " in %s", e->v_inside);
			fputs(", until ", f);
		} else {
			fprintf(f, "blocked %.1f ms after waking, until ",
				ms(e->v_ns));
		}
		who(f, &e->v_who);
		fputs(" woke it (a lock or resource it held)", f);
		if (e->mark) {
			fprintf(f, ", %.3f ms after its %s", ms(e->mark_ago),
				e->mark);
			for (size_t i = 0; i < e->nthen; i++)
				fprintf(f, "%s%s x%zu", i ? ", " : " (then ",
					e->then[i].name, e->then[i].n);
			if (e->nthen)
				fputc(')', f);
		}
		break;
	case V_IRQ:
		fprintf(f, "%.1f ms in irq/softirq on CPU %d", ms(e->v_ns),
			e->cpu);
		break;
	case V_RUNNING:
		fprintf(f, "running %.1f ms: its own work, not a wait",
			ms(e->v_ns));
		break;
	case V_TIMER:
		fprintf(f, "the timer fired %.1f ms late (woken by ",
			ms(e->v_ns));
		who(f, &e->v_who);
		fputc(')', f);
		break;
	}
}

static double share_pct(const struct expl *e, unsigned i)
{
	return e->others ? 100.0 * (double)e->shares[i].ns / (double)e->others :
			   0.0;
}

/* The explanation as text. */
void lt_lat_expl_text(FILE *f, const struct expl *e)
{
	fprintf(f, "%s at +%.6f s, ", e->name, (double)e->at_rel / 1e9);
	who(f, &e->thread);
	if (e->is_span)
		fprintf(f, ": %.3f ms\n", ms(e->total));
	else if (e->by)
		fprintf(f, ": %s = %lld\n", e->by, (long long)e->byval);
	else
		fputc('\n', f);
	if (e->fields)
		fprintf(f, "   %s\n", e->fields);
	if (!e->sched) {
		fprintf(f,
			"   no scheduling events for tid %d (record with "
			"-k sched%s)\n   verdict: unknown\n",
			e->thread.tid, e->is_span ? "" : " --all");
		return;
	}
	for (size_t i = 0; i < e->ninside; i++) {
		fprintf(f, "%s%s %.3f ms",
			i ? ", " : "   inside: ", e->inside[i].name,
			ms(e->inside[i].ns));
		if (e->inside[i].n > 1)
			fprintf(f, " (%u)", e->inside[i].n);
	}
	if (e->ninside)
		fputc('\n', f);
	if (e->truncated)
		fputs("   (history of the window partly dropped)\n", f);
	if (!e->is_span) {
		fprintf(f, "   due at +%.6f s; ", (double)e->due_rel / 1e9);
		if (e->woken) {
			fprintf(f, "woken %+.3f ms after it by ",
				ms(e->wake_rel - e->due_rel));
			who(f, &e->waker);
			fprintf(f, ", for CPU %d\n", e->wake_cpu);
		} else {
			fputs("no wake-up found after it (already awake, or "
			      "not in the trace)\n",
			      f);
		}
	}
	fprintf(f, "   runnable %.3f ms", ms(e->runnable));
	if (e->runnable && e->cpu >= 0) {
		fprintf(f, " on CPU %d; ran there meanwhile:", e->cpu);
		for (unsigned i = 0; i < e->nshares && i < SHARES_SAID; i++) {
			fputs(i ? ", " : " ", f);
			who(f, &e->share_who[i]);
			fprintf(f, " %.3f ms (%.0f%%)", ms(e->shares[i].ns),
				share_pct(e, i));
		}
	}
	fprintf(f, "\n   blocked %.3f ms", ms(e->blocked));
	if (e->blocked) {
		fputs(", the longest ended by ", f);
		who(f, &e->longest_by);
	}
	fprintf(f, "; running %.3f ms\n", ms(e->running));
	fprintf(f, "   irq %.3f ms, softirq %.3f ms on CPU %d\n", ms(e->irq),
		ms(e->soft), e->cpu);
	if (e->timer_blocked)
		fprintf(f,
			"   (%.3f ms from the due time to that wake-up: "
			"counted as blocked)\n",
			ms(e->timer_blocked));
	fputs("   verdict: ", f);
	verdict_text(f, e);
	fputc('\n', f);
	if (e->cmdline)
		fprintf(f, "   the waker's command line: %s\n", e->cmdline);
	for (unsigned i = 0; i < e->nchain; i++) {
		const struct link *l = &e->chain[i];
		fputs("   meanwhile ", f);
		who(f, &l->who);
		fprintf(f, " was running %.3f ms, runnable %.3f ms", ms(l->run),
			ms(l->wait));
		if (l->behind_known) {
			fprintf(f, " (on CPU %d behind ", l->wait_cpu);
			who(f, &l->behind);
			fputc(')', f);
		}
		fprintf(f, ", blocked %.3f ms%s\n", ms(l->block),
			l->truncated ? " (its history partly dropped)" : "");
		if (l->has_next) {
			fprintf(f, "   its longest block, %.3f ms, ended when ",
				ms(l->worst));
			who(f, &l->next);
			fputs(" woke it\n", f);
		}
	}
}

/* The verdict as a JSON member. */
static void verdict_json(struct lt_json *j, const struct expl *e)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (f) {
		verdict_text(f, e);
		fclose(f);
	}
	lt_json_obj(j, "verdict");
	lt_json_str(j, "kind", verdict_names[e->verdict]);
	lt_json_str(j, "text", f ? text : NULL);
	free(text);
	if (e->verdict == V_UNKNOWN)
		lt_json_null(j, "ns");
	else
		lt_json_int(j, "ns", e->v_ns);
	if (e->verdict == V_RUNNABLE || e->verdict == V_IRQ)
		lt_json_int(j, "cpu", e->cpu);
	else
		lt_json_null(j, "cpu");
	/* behind whom it waited, who ended the block, who woke it late */
	who_json(j, "thread", &e->v_who);
	if (e->verdict == V_BLOCKED) {
		lt_json_obj(j, "block");
		lt_json_int(j, "begin_ns", e->block_a_rel);
		lt_json_int(j, "end_ns", e->block_b_rel);
		lt_json_str(j, "inside", e->v_inside);
		lt_json_end(j);
	} else {
		lt_json_null(j, "block");
	}
	if (e->mark) {
		lt_json_obj(j, "waker_marker");
		lt_json_str(j, "name", e->mark);
		lt_json_int(j, "before_ns", e->mark_ago);
		lt_json_arr(j, "then");
		for (size_t i = 0; i < e->nthen; i++) {
			lt_json_obj(j, NULL);
			lt_json_str(j, "name", e->then[i].name);
			lt_json_uint(j, "count", e->then[i].n);
			lt_json_end(j);
		}
		lt_json_end(j);
		lt_json_end(j);
	} else {
		lt_json_null(j, "waker_marker");
	}
	lt_json_str(j, "waker_cmdline", e->cmdline);
	lt_json_end(j);
}

/* The explanation as a JSON object. */
void lt_lat_expl_json(struct lt_json *j, const struct expl *e, unsigned rank)
{
	lt_json_obj(j, NULL);
	lt_json_uint(j, "rank", rank);
	lt_json_str(j, "kind", e->is_span ? "span" : "anchor");
	lt_json_str(j, "event", e->name);
	lt_json_int(j, "at_ns", e->at_rel);
	who_json(j, "thread", &e->thread);
	if (e->is_span) {
		lt_json_int(j, "duration_ns", e->total);
		lt_json_str(j, "fields", e->fields);
		lt_json_arr(j, "inside");
		for (size_t i = 0; i < e->ninside; i++) {
			lt_json_obj(j, NULL);
			lt_json_str(j, "span", e->inside[i].name);
			lt_json_int(j, "ns", e->inside[i].ns);
			lt_json_uint(j, "count", e->inside[i].n);
			lt_json_end(j);
		}
		lt_json_end(j);
	} else {
		lt_json_str(j, "by", e->by);
		if (e->by)
			lt_json_int(j, "by_value", e->byval);
		else
			lt_json_null(j, "by_value");
		lt_json_int(j, "late_ns", e->total);
	}
	lt_json_bool(j, "sched_events", e->sched);
	lt_json_bool(j, "history_truncated", e->truncated);
	if (e->sched && !e->is_span) {
		lt_json_int(j, "due_at_ns", e->due_rel);
		if (e->woken) {
			lt_json_obj(j, "wakeup");
			lt_json_int(j, "at_ns", e->wake_rel);
			lt_json_int(j, "after_due_ns",
				    e->wake_rel - e->due_rel);
			who_json(j, "waker", &e->waker);
			lt_json_int(j, "cpu", e->wake_cpu);
			lt_json_end(j);
		} else {
			lt_json_null(j, "wakeup");
		}
	}
	if (e->sched) {
		lt_json_int(j, "cpu", e->cpu);
		lt_json_obj(j, "parts");
		lt_json_int(j, "runnable_ns", e->runnable);
		lt_json_int(j, "blocked_ns", e->blocked);
		lt_json_int(j, "running_ns", e->running);
		lt_json_int(j, "irq_ns", e->irq);
		lt_json_int(j, "softirq_ns", e->soft);
		lt_json_int(j, "timer_blocked_ns", e->timer_blocked);
		lt_json_end(j);
		lt_json_arr(j, "ran_meanwhile");
		for (unsigned i = 0; i < e->nshares; i++) {
			lt_json_obj(j, NULL);
			who_json(j, "thread", &e->share_who[i]);
			lt_json_int(j, "ns", e->shares[i].ns);
			lt_json_num(j, "pct", share_pct(e, i));
			lt_json_end(j);
		}
		lt_json_end(j);
		if (e->blocked)
			who_json(j, "longest_block_ended_by", &e->longest_by);
		else
			lt_json_null(j, "longest_block_ended_by");
	}
	verdict_json(j, e);
	lt_json_arr(j, "chain");
	for (unsigned i = 0; i < e->nchain; i++) {
		const struct link *l = &e->chain[i];
		lt_json_obj(j, NULL);
		who_json(j, "thread", &l->who);
		lt_json_int(j, "begin_ns", l->a);
		lt_json_int(j, "end_ns", l->b);
		lt_json_int(j, "running_ns", l->run);
		lt_json_int(j, "runnable_ns", l->wait);
		if (l->behind_known) {
			lt_json_int(j, "runnable_cpu", l->wait_cpu);
			who_json(j, "behind", &l->behind);
		} else {
			lt_json_null(j, "runnable_cpu");
			lt_json_null(j, "behind");
		}
		lt_json_int(j, "blocked_ns", l->block);
		lt_json_bool(j, "history_truncated", l->truncated);
		if (l->has_next) {
			lt_json_obj(j, "longest_block");
			lt_json_int(j, "ns", l->worst);
			who_json(j, "ended_by", &l->next);
			lt_json_end(j);
		} else {
			lt_json_null(j, "longest_block");
		}
		lt_json_end(j);
	}
	lt_json_end(j);
	lt_json_end(j);
}
