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
 * Explanations are
 * written when the anchor goes by, from the model's rings; the worst
 * --top are kept and printed at the end, worst first.
 */
#include "analysis/analysis.h"
#include "analysis/model.h"
#include "analysis/span.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHARES 32
#define WAKE_SLACK_NS 1000000 /* a wake-up this early still counts */

struct share {
	int32_t tid;
	int64_t ns;
};

struct shares {
	struct share s[MAX_SHARES];
	unsigned n;
	int32_t self;
};

static void add_share(void *arg, int32_t tid, int64_t ns)
{
	struct shares *sh = arg;
	if (tid == sh->self)
		return;
	for (unsigned i = 0; i < sh->n; i++)
		if (sh->s[i].tid == tid) {
			sh->s[i].ns += ns;
			return;
		}
	if (sh->n < MAX_SHARES)
		sh->s[sh->n++] = (struct share){ tid, ns };
}

static int by_ns_desc(const void *a, const void *b)
{
	const struct share *x = a, *y = b;
	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

static double rel_s(const struct lt_model *m, int64_t ns)
{
	return (double)(ns - m->first_ns) / 1e9;
}

/* "tid N COMM (pid P)" */
static void who(FILE *f, const struct lt_model *m, int32_t tid)
{
	if (tid == 0) {
		fputs("idle (tid 0)", f);
		return;
	}
	if (tid == LT_WAKER_UNSEEN) {
		fputs("a wake-up not in the trace (from idle)", f);
		return;
	}
	if (tid < 0) {
		fputs("nobody", f);
		return;
	}
	fprintf(f, "tid %d %s", tid, lt_model_comm(m, tid));
	int32_t pid = lt_model_tgid(m, tid);
	if (pid > 0)
		fprintf(f, " (pid %d)", pid);
}

static int64_t clip(int64_t b, int64_t e, int64_t lo, int64_t hi)
{
	int64_t x = b > lo ? b : lo, y = e < hi ? e : hi;
	return y > x ? y - x : 0;
}

/* A thread's states over a window [a, b]. */
struct states {
	int64_t run, wait, block;
	int64_t worst, wa, wb; /* the longest block, clipped to the window */
	int32_t next; /* the waker that ended it, or -1 */
	int32_t wait_cpu; /* the CPU of its last wait for one */
	int64_t wait_on[64]; /* runnable time per CPU */
	struct shares sh; /* who ran where it waited */
};

static void walk_states(const struct lt_model *m, const struct lt_thread *th,
			int32_t tid, int64_t a, int64_t b, struct states *st)
{
	memset(st, 0, sizeof(*st));
	st->next = -1;
	st->wait_cpu = -1;
	st->sh.self = tid;
	unsigned n = lt_thread_nspans(th);
	for (unsigned i = 0; i < n; i++) {
		struct lt_tspan s;
		lt_thread_span(th, m, i, &s);
		int64_t d = clip(s.begin, s.end, a, b);
		if (!d)
			continue;
		int64_t sa = s.begin > a ? s.begin : a;
		int64_t sb = s.end < b ? s.end : b;
		if (s.state == LT_TS_RUNNING) {
			st->run += d;
		} else if (s.state == LT_TS_BLOCKED) {
			st->block += d;
			if (d > st->worst) {
				st->worst = d;
				st->wa = sa;
				st->wb = sb;
				st->next = -1;
				if (i + 1 < n) {
					struct lt_tspan nx;
					lt_thread_span(th, m, i + 1, &nx);
					if (nx.state == LT_TS_RUNNABLE)
						st->next = nx.waker;
				}
			}
		} else if (s.state == LT_TS_RUNNABLE) {
			st->wait += d;
			if (s.cpu >= 0 && s.cpu < 64)
				st->wait_on[s.cpu] += d;
			if (s.cpu >= 0) {
				st->wait_cpu = s.cpu;
				lt_cpu_slices_in(m, (unsigned)s.cpu, sa, sb,
						 add_share, &st->sh);
			}
		}
	}
}

#define CHAIN_MAX 4 /* threads followed back from the anchor's */

/*
 * Further back: what the thread that ended the anchor's wait (tid) did
 * over that wait, [a, b]: running, waiting for a CPU (and who ran there),
 * blocked.  A waker that was itself kept from running is the cause behind
 * the cause.  When blocked is the largest part and another thread ended
 * the longest of those blocks, the same for that thread over that block,
 * and so on: up to CHAIN_MAX threads, none twice (seen[0 .. depth - 1]
 * holds the anchor's thread and those before; seen[depth] gets tid).
 */
static void chain(FILE *f, const struct lt_model *m, int32_t tid, int64_t a,
		  int64_t b, int32_t *seen, int depth)
{
	const struct lt_thread *th = tid > 0 ? lt_model_thread(m, tid) : NULL;
	if (!th || b <= a)
		return;
	struct states st;
	walk_states(m, th, tid, a, b, &st);
	struct shares sh = st.sh;
	int64_t run = st.run, wait = st.wait, block = st.block;
	fputs("   meanwhile ", f);
	who(f, m, tid);
	fprintf(f, " was running %.3f ms, runnable %.3f ms", ms(run), ms(wait));
	if (wait && sh.n) {
		qsort(sh.s, sh.n, sizeof(sh.s[0]), by_ns_desc);
		fprintf(f, " (on CPU %d behind ", st.wait_cpu);
		who(f, m, sh.s[0].tid);
		fputc(')', f);
	}
	fprintf(f, ", blocked %.3f ms%s\n", ms(block),
		lt_thread_truncated(th, a) ? " (its history partly dropped)" :
					     "");
	seen[depth] = tid;
	if (depth >= CHAIN_MAX || block <= run || block <= wait || st.next <= 0)
		return;
	for (int i = 0; i <= depth; i++)
		if (seen[i] == st.next)
			return; /* a cycle: said already */
	fprintf(f, "   its longest block, %.3f ms, ended when ", ms(st.worst));
	who(f, m, st.next);
	fputs(" woke it\n", f);
	chain(f, m, st.next, st.wa, st.wb, seen, depth + 1);
}

/* A window of a thread's time to explain (where_went). */
struct window {
	int32_t tid;
	const struct lt_thread *th;
	int64_t a, b; /* the window */
	int32_t cpu; /* where it was woken for, -1: unknown */
	int64_t timer; /* an anchor's: from the due time to the wake-up */
	int32_t waker; /* of that wake-up */
	int64_t due; /* an anchor's due time */
	int64_t total; /* the lateness, or the span's duration */
	const struct lt_span *span; /* NULL for an anchor */
	const struct lt_span_tracker *spans;
};

static void where_went(FILE *f, const struct lt_model *m,
		       const struct window *w);

/* "ENV cmdline_PID", the command line the recorder saw, or NULL. */
static const char *cmdline(const struct lt_model *m, int32_t pid)
{
	char key[32];
	snprintf(key, sizeof(key), "cmdline_%d", pid);
	return pid > 0 ? lt_reader_env(m->trace, key) : NULL;
}

/* The span inside w's span that overlaps [a, b] most, or NULL. */
static const char *inside_block(const struct window *w, int64_t a, int64_t b)
{
	struct lt_span in[64];
	size_t n = lt_spans_inside(w->spans, w->tid, w->span->begin,
				   w->span->end, in, 64);
	const char *best = NULL;
	int64_t most = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t d = clip(in[i].begin, in[i].end, a, b);
		if (d > most)
			most = d, best = in[i].name;
	}
	return best;
}

#define MARKS_SEEN 64 /* of the waker's markers, looked at */

/*
 * What the thread that ended a wait had just done, from its markers:
 * the latest one of a kind seen once among its last ones (a commit,
 * among the lock acquisitions and releases that come by the dozen),
 * else its latest; and how many others came after it, by name.
 */
static void waker_marks(FILE *f, const struct lt_span_tracker *spans,
			int32_t tid, int64_t ns)
{
	const char *names[MARKS_SEEN];
	int64_t at[MARKS_SEEN];
	size_t n = lt_spans_marks_before(spans, tid, ns, names, at, MARKS_SEEN);
	size_t pick = 0;
	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		size_t same = 0;
		for (size_t k = 0; k < n; k++)
			same += strcmp(names[k], names[i]) == 0;
		if (same == 1) {
			pick = i;
			break;
		}
	}
	fprintf(f, ", %.3f ms after its %s", ms(ns - at[pick]), names[pick]);
	/* those after it, by name, in the order they first came */
	int said = 0;
	for (size_t i = pick; i-- > 0;) {
		size_t k = pick, cnt = 0;
		while (--k > i && strcmp(names[k], names[i]) != 0)
			;
		if (k > i)
			continue; /* counted at its first */
		for (k = 0; k < pick; k++)
			cnt += strcmp(names[k], names[i]) == 0;
		fprintf(f, "%s%s x%zu", said++ ? ", " : " (then ", names[i],
			cnt);
	}
	if (said)
		fputc(')', f);
}

/* A span's verdict when blocked: in which inner span, who woke it, what
 * that thread had just done, its command line. */
static void span_blocked(FILE *f, const struct lt_model *m,
			 const struct window *w, int64_t blocked,
			 int64_t block_a, int64_t block_b, int32_t unblocker)
{
	const char *in = inside_block(w, block_a, block_b);
	fprintf(f, "%.1f ms", ms(blocked));
	if (in)
		fprintf(f, " in %s", in);
	fputs(", until ", f);
	who(f, m, unblocker);
	fputs(" woke it (a lock or resource it held)", f);
	if (unblocker > 0)
		waker_marks(f, w->spans, unblocker, block_b);
	fputc('\n', f);
	const char *cmd = cmdline(m, lt_model_tgid(m, unblocker));
	if (cmd)
		fprintf(f, "   the waker's command line: %s\n", cmd);
}

/* Writes the explanation of one anchor at ev into f. */
static void explain(FILE *f, const struct lt_model *m,
		    const struct lt_event *ev, int32_t tid, int64_t late_ns,
		    const char *by, int64_t byval)
{
	int64_t t_end = ev->ns, due = ev->ns - late_ns;
	struct lt_thread *th = lt_model_thread(m, tid);

	fprintf(f, "%s at +%.6f s, ", ev->cls->name, rel_s(m, ev->ns));
	who(f, m, tid);
	if (by)
		fprintf(f, ": %s = %lld", by, (long long)byval);
	fputc('\n', f);
	if (!th) {
		fprintf(f,
			"   no scheduling events for tid %d (record with "
			"-k sched --all)\n   verdict: unknown\n",
			tid);
		return;
	}
	if (lt_thread_truncated(th, due))
		fputs("   (history of the window partly dropped)\n", f);

	/* the wake-up after the due time */
	unsigned n = lt_thread_nspans(th);
	int64_t wake = due;
	int32_t waker = -1, wake_cpu = -1;
	int found = 0;
	for (unsigned i = 0; i < n; i++) {
		struct lt_tspan s;
		lt_thread_span(th, m, i, &s);
		int unseen = s.waker == LT_WAKER_UNSEEN;
		if (s.state == LT_TS_RUNNABLE && (s.waker >= 0 || unseen) &&
		    (s.begin >= due - WAKE_SLACK_NS ||
		     (unseen && s.end > due)) &&
		    s.begin <= t_end) {
			wake = unseen && s.begin < due ? due : s.begin;
			waker = s.waker;
			wake_cpu = s.cpu;
			found = 1;
			break;
		}
	}
	fprintf(f, "   due at +%.6f s; ", rel_s(m, due));
	if (found) {
		fprintf(f, "woken %+.3f ms after it by ", ms(wake - due));
		who(f, m, waker);
		fprintf(f, ", for CPU %d\n", wake_cpu);
	} else {
		fputs("no wake-up found after it (already awake, or not in "
		      "the trace)\n",
		      f);
	}
	struct window w = {
		.tid = tid,
		.th = th,
		.a = wake,
		.b = t_end,
		.cpu = wake_cpu,
		.timer = found ? wake - due : 0,
		.waker = waker,
		.due = due,
		.total = late_ns,
	};
	where_went(f, m, &w);
}

/*
 * Where a thread's time went over a window: runnable (and behind whom),
 * blocked (and who ended the longest block), running, irq and softirq,
 * then the verdict naming the largest part, and for a block the chain of
 * wakers behind it.  For an anchor the window runs from its wake-up to
 * the anchor (timer: how late that wake-up was); for a span, from its
 * start to its end (w->span).
 */
static void where_went(FILE *f, const struct lt_model *m,
		       const struct window *w)
{
	int32_t tid = w->tid, waker = w->waker, wake_cpu = w->cpu;
	const struct lt_thread *th = w->th;
	int64_t wake = w->a, t_end = w->b, due = w->due, late_ns = w->total;
	struct states st;
	walk_states(m, th, tid, wake, t_end, &st);
	struct shares sh = st.sh;
	int64_t runnable = st.wait, blocked = st.block, running = st.run;
	int64_t worst_block = st.worst;
	int64_t block_a = st.wa, block_b = st.wb; /* the longest block */
	int32_t unblocker = st.next;
	const int64_t *run_on = st.wait_on;
	int main_cpu = wake_cpu;
	for (int c = 0; c < 64; c++)
		if (run_on[c] && (main_cpu < 0 || main_cpu >= 64 ||
				  run_on[c] > run_on[main_cpu]))
			main_cpu = c;
	qsort(sh.s, sh.n, sizeof(sh.s[0]), by_ns_desc);
	int64_t others = 0;
	for (unsigned i = 0; i < sh.n; i++)
		others += sh.s[i].ns;
	fprintf(f, "   runnable %.3f ms", ms(runnable));
	if (runnable && main_cpu >= 0) {
		fprintf(f, " on CPU %d; ran there meanwhile:", main_cpu);
		for (unsigned i = 0; i < sh.n && i < 5; i++) {
			fputs(i ? ", " : " ", f);
			who(f, m, sh.s[i].tid);
			fprintf(f, " %.3f ms (%.0f%%)", ms(sh.s[i].ns),
				others ? 100.0 * (double)sh.s[i].ns /
						 (double)others :
					 0.0);
		}
	}
	fprintf(f, "\n   blocked %.3f ms", ms(blocked));
	if (blocked) {
		fputs(", the longest ended by ", f);
		who(f, m, unblocker);
	}
	fprintf(f, "; running %.3f ms\n", ms(running));
	int64_t irq = 0, soft = 0;
	if (main_cpu >= 0)
		lt_cpu_irq_in(m, (unsigned)main_cpu, wake, t_end, &irq, &soft);
	fprintf(f, "   irq %.3f ms, softirq %.3f ms on CPU %d\n", ms(irq),
		ms(soft), main_cpu);

	/* the verdict: the largest part */
	int64_t timer = w->timer;
	if (timer > WAKE_SLACK_NS && waker > 0) {
		/* woken by a thread long after the due time: the timer's
		 * own wake-up is not in the trace, and it then blocked on
		 * something the waker released */
		fprintf(f,
			"   (%.3f ms from the due time to that wake-up: "
			"counted as blocked)\n",
			ms(timer));
		blocked += timer;
		if (timer > worst_block) {
			unblocker = waker;
			block_a = due;
			block_b = wake;
		}
		timer = 0;
	}
	int64_t best = runnable;
	int kind = 0;
	if (blocked > best)
		best = blocked, kind = 1;
	if (irq + soft > best)
		best = irq + soft, kind = 2;
	if (timer > best)
		best = timer, kind = 3;
	if (w->span && running > best)
		best = running, kind = 4;
	fputs("   verdict: ", f);
	/* best * 10 < late_ns, which overflows on a corrupt trace's times */
	if (!w->span && late_ns > 0 && best <= (late_ns - 1) / 10) {
		fprintf(f,
			"late %.3f ms with no scheduling cause in the "
			"trace\n",
			ms(late_ns));
		return;
	}
	switch (kind) {
	case 0:
		fprintf(f, "waited %.1f ms runnable on CPU %d behind ",
			ms(runnable), main_cpu);
		who(f, m, sh.n ? sh.s[0].tid : -1);
		break;
	case 1:
		if (w->span) {
			fputs("blocked ", f);
			span_blocked(f, m, w, blocked, block_a, block_b,
				     unblocker);
		} else {
			fprintf(f, "blocked %.1f ms after waking, until ",
				ms(blocked));
			who(f, m, unblocker);
			fputs(" woke it (a lock or resource it held)\n", f);
		}
		int32_t seen[CHAIN_MAX + 1] = { tid };
		chain(f, m, unblocker, block_a, block_b, seen, 1);
		return;
	case 2:
		fprintf(f, "%.1f ms in irq/softirq on CPU %d", ms(irq + soft),
			main_cpu);
		break;
	case 4:
		fprintf(f, "running %.1f ms: its own work, not a wait",
			ms(running));
		break;
	default:
		fprintf(f, "the timer fired %.1f ms late (woken by ",
			ms(timer));
		who(f, m, waker);
		fputc(')', f);
		break;
	}
	fputc('\n', f);
}

struct result {
	int64_t key;
	char *text;
};

static int by_key_desc(const void *a, const void *b)
{
	const struct result *x = a, *y = b;
	return x->key < y->key ? 1 : x->key > y->key ? -1 : 0;
}

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

/* Writes the explanation of one span into f. */
static void explain_span(FILE *f, const struct lt_model *m,
			 const struct lt_span_tracker *spans,
			 const struct lt_span *sp)
{
	int64_t dur = sp->end - sp->begin;
	fprintf(f, "%s at +%.6f s, ", sp->name, rel_s(m, sp->begin));
	who(f, m, sp->tid);
	fprintf(f, ": %.3f ms\n", ms(dur));
	if (*sp->fields)
		fprintf(f, "   %s\n", sp->fields);
	const struct lt_thread *th = lt_model_thread(m, sp->tid);
	if (!th) {
		fprintf(f,
			"   no scheduling events for tid %d (record with "
			"-k sched)\n   verdict: unknown\n",
			sp->tid);
		return;
	}
	/* the spans inside it, by name: count and time (nested ones of a
	 * kind counted once), most time first */
	struct lt_span in[64];
	struct inner {
		const char *name;
		unsigned key, n;
		int64_t ns, until;
	} agg[64];
	size_t n = lt_spans_inside(spans, sp->tid, sp->begin, sp->end, in, 64);
	for (size_t i = 1; i < n; i++) /* by begin: they came by end */
		for (size_t k = i; k > 0 && in[k].begin < in[k - 1].begin;
		     k--) {
			struct lt_span t = in[k];
			in[k] = in[k - 1];
			in[k - 1] = t;
		}
	size_t na = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < na && agg[k].key != in[i].key)
			k++;
		if (k == na)
			agg[na++] = (struct inner){ in[i].name, in[i].key, 0, 0,
						    INT64_MIN };
		agg[k].n++;
		int64_t from =
			in[i].begin > agg[k].until ? in[i].begin : agg[k].until;
		if (in[i].end > from)
			agg[k].ns += in[i].end - from;
		if (in[i].end > agg[k].until)
			agg[k].until = in[i].end;
	}
	for (size_t i = 0; i < na; i++) {
		size_t best = i;
		for (size_t k = i + 1; k < na; k++)
			if (agg[k].ns > agg[best].ns)
				best = k;
		struct inner tmp = agg[i];
		agg[i] = agg[best];
		agg[best] = tmp;
		fprintf(f, "%s%s %.3f ms",
			i ? ", " : "   inside: ", agg[i].name, ms(agg[i].ns));
		if (agg[i].n > 1)
			fprintf(f, " (%u)", agg[i].n);
	}
	if (na)
		fputc('\n', f);
	if (lt_thread_truncated(th, sp->begin))
		fputs("   (history of the window partly dropped)\n", f);
	struct window w = {
		.tid = sp->tid,
		.th = th,
		.a = sp->begin,
		.b = sp->end,
		.cpu = -1,
		.waker = -1,
		.due = sp->begin,
		.total = dur,
		.span = sp,
		.spans = spans,
	};
	where_went(f, m, &w);
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
	unsigned slot = r->nres;
	if (r->nres == r->top) {
		slot = 0;
		for (unsigned i = 1; i < r->nres; i++)
			if (r->res[i].key < r->res[slot].key)
				slot = i;
		if (r->res[slot].key >= dur)
			return;
		free(r->res[slot].text);
		r->res[slot].text = NULL;
	} else {
		r->nres++;
	}
	size_t len = 0;
	FILE *f = open_memstream(&r->res[slot].text, &len);
	if (!f) {
		r->err = -ENOMEM;
		return;
	}
	explain_span(f, r->m, r->spans, sp);
	fclose(f);
	r->res[slot].key = dur;
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
	if (ret == 0) {
		qsort(r.res, r.nres, sizeof(*r.res), by_key_desc);
		fprintf(out, "%llu spans %s", (unsigned long long)r.nspans,
			o->span);
		if (o->min_ns)
			fprintf(out, " of %.3f ms or more", ms(o->min_ns));
		fprintf(out, "; the %u slowest, with where the time went:\n",
			r.nres);
		for (unsigned i = 0; i < r.nres; i++)
			fprintf(out, "#%u %s", i + 1, r.res[i].text);
		if (m.nsched == 0)
			fputs("(no kernel scheduling events in the trace: "
			      "record with -k sched)\n",
			      out);
	}
	for (unsigned i = 0; r.res && i < r.nres; i++)
		free(r.res[i].text);
	free(r.res);
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
		unsigned slot = nres;
		if (o->last) {
			/* explained as it passes (the model holds only the
			 * window before it): each replaces the one before */
			if (nres)
				free(res[0].text);
			slot = 0;
			nres = 1;
		} else if (nres == top) {
			slot = 0;
			for (unsigned i = 1; i < nres; i++)
				if (res[i].key < res[slot].key)
					slot = i;
			if (res[slot].key >= byval)
				continue;
			free(res[slot].text);
		} else {
			nres++;
		}
		size_t len = 0;
		FILE *f = open_memstream(&res[slot].text, &len);
		if (!f) {
			ret = -ENOMEM;
			break;
		}
		explain(f, &m, ev, (int32_t)tid, lt_sat_mul(byval, unit_ns(by)),
			has_by ? by : NULL, byval);
		fclose(f);
		res[slot].key = byval;
	}
	if (ret == 0) {
		qsort(res, nres, sizeof(*res), by_key_desc);
		if (o->last)
			fprintf(out,
				"the last of %llu anchors %s, with where the "
				"time went:\n",
				(unsigned long long)nanchors, o->anchor.spec);
		else
			fprintf(out,
				"%llu anchors %s; the %u worst by %s, with "
				"where the time went:\n",
				(unsigned long long)nanchors, o->anchor.spec,
				nres, by);
		for (unsigned i = 0; i < nres; i++)
			fprintf(out, "#%u %s", i + 1, res[i].text);
		if (m.nsched == 0)
			fputs("(no kernel scheduling events in the trace: "
			      "record with -k sched,irq --all)\n",
			      out);
	}
	for (unsigned i = 0; i < nres; i++)
		free(res[i].text);
	free(res);
	free(memo);
	lt_model_free(&m);
	return ret;
}
