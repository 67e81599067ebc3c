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
 * made when the anchor goes by, from the model's rings, into a structure
 * (struct expl) that names the threads as they were then; the worst
 * --top are kept and printed at the end, worst first, as text or as
 * JSON (docs/analysis-json.md) from that same structure.
 */
#include "analysis/analysis.h"
#include "analysis/json_out.h"
#include "analysis/model.h"
#include "analysis/span.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHARES 32
#define WAKE_SLACK_NS 1000000 /* a wake-up this early still counts */
#define SHARES_SAID 5 /* of those who ran where it waited, in the text */

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

/* A thread as an explanation names it, as the model knew it then. */
struct who {
	int32_t tid, pid;
	char comm[24];
};

static void who_of(struct who *w, const struct lt_model *m, int32_t tid)
{
	w->tid = tid;
	w->pid = tid > 0 ? lt_model_tgid(m, tid) : -1;
	snprintf(w->comm, sizeof(w->comm), "%s", lt_model_comm(m, tid));
}

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
#define MARKS_SEEN 64 /* of the waker's markers, looked at */
#define INSIDE_MAX 64 /* spans inside a span, looked at */

/* A thread further back in the chain of wakers (chain()). */
struct link {
	struct who who;
	int64_t run, wait, block;
	int32_t wait_cpu;
	int behind_known; /* behind: who ran on wait_cpu the most */
	struct who behind;
	int truncated; /* its history over the window partly dropped */
	int64_t a, b; /* the window: the block before it in the chain */
	/* the longest of its blocks, ended by next: the next link */
	int has_next;
	int64_t worst;
	struct who next;
};

/* The spans of a kind inside a span: count and time. */
struct inner {
	const char *name;
	unsigned key, n;
	int64_t ns, until;
};

enum verdict {
	V_UNKNOWN, /* no scheduling events for the thread */
	V_NO_CAUSE,
	V_RUNNABLE,
	V_BLOCKED,
	V_IRQ,
	V_TIMER,
	V_RUNNING,
};

static const char *const verdict_names[] = {
	[V_UNKNOWN] = "unknown",   [V_NO_CAUSE] = "no_cause",
	[V_RUNNABLE] = "runnable", [V_BLOCKED] = "blocked",
	[V_IRQ] = "irq",	   [V_TIMER] = "timer",
	[V_RUNNING] = "running",
};

/*
 * The explanation of an anchor or a span: what both forms print.  Times
 * named *_rel are from the trace's first event; the names it points to
 * (event classes, span pairs, the environment) live as long as the
 * reader and the span tracker.
 */
struct expl {
	const struct lt_span *span; /* during the making only */
	int is_span;
	const char *name; /* the anchor's event, or the span's pair */
	int64_t at_rel;
	struct who thread;
	const char *by; /* an anchor's field, NULL where it has none */
	int64_t byval;
	int64_t total; /* the lateness, or the span's duration */
	char *fields; /* a span's start fields, or NULL */
	struct inner inside[INSIDE_MAX]; /* most time first */
	size_t ninside;
	int sched; /* the thread has scheduling events */
	int truncated;
	/* an anchor's due time and the wake-up after it */
	int64_t due_rel;
	int woken;
	int64_t wake_rel;
	struct who waker;
	int32_t wake_cpu;
	/* where the time went */
	int32_t cpu; /* where it waited the most */
	int64_t runnable, blocked, running, irq, soft;
	struct share shares[MAX_SHARES]; /* who ran there, most first */
	struct who share_who[MAX_SHARES];
	unsigned nshares;
	int64_t others; /* their time together */
	struct who longest_by; /* who ended its longest block */
	int64_t timer_blocked; /* due time to a late wake-up, as blocked */
	/* the verdict and what it rests on */
	enum verdict verdict;
	int64_t v_ns;
	struct who v_who;
	int64_t block_a_rel, block_b_rel; /* V_BLOCKED: the block */
	const char *v_inside; /* a span's inner span of that block */
	/* V_BLOCKED of a span: the waker's markers before it woke it */
	const char *mark; /* NULL: none */
	int64_t mark_ago;
	struct {
		const char *name;
		size_t n;
	} then[MARKS_SEEN];
	size_t nthen;
	const char *cmdline; /* the waker's */
	struct link chain[CHAIN_MAX];
	unsigned nchain;
};

static void expl_free(struct expl *e)
{
	if (e)
		free(e->fields);
	free(e);
}

/*
 * Further back: what the thread that ended the anchor's wait (tid) did
 * over that wait, [a, b]: running, waiting for a CPU (and who ran there),
 * blocked.  A waker that was itself kept from running is the cause behind
 * the cause.  When blocked is the largest part and another thread ended
 * the longest of those blocks, the same for that thread over that block,
 * and so on: up to CHAIN_MAX threads, none twice (seen[0 .. depth - 1]
 * holds the anchor's thread and those before; seen[depth] gets tid).
 */
static void chain(struct expl *e, const struct lt_model *m, int32_t tid,
		  int64_t a, int64_t b, int32_t *seen, int depth)
{
	const struct lt_thread *th = tid > 0 ? lt_model_thread(m, tid) : NULL;
	if (!th || b <= a || e->nchain >= CHAIN_MAX)
		return;
	struct states st;
	walk_states(m, th, tid, a, b, &st);
	struct shares sh = st.sh;
	struct link *l = &e->chain[e->nchain++];
	memset(l, 0, sizeof(*l));
	who_of(&l->who, m, tid);
	l->run = st.run;
	l->wait = st.wait;
	l->block = st.block;
	l->wait_cpu = st.wait_cpu;
	l->a = a - m->first_ns;
	l->b = b - m->first_ns;
	if (st.wait && sh.n) {
		qsort(sh.s, sh.n, sizeof(sh.s[0]), by_ns_desc);
		l->behind_known = 1;
		who_of(&l->behind, m, sh.s[0].tid);
	}
	l->truncated = lt_thread_truncated(th, a);
	seen[depth] = tid;
	if (depth >= CHAIN_MAX || st.block <= st.run || st.block <= st.wait ||
	    st.next <= 0)
		return;
	for (int i = 0; i <= depth; i++)
		if (seen[i] == st.next)
			return; /* a cycle: said already */
	l->has_next = 1;
	l->worst = st.worst;
	who_of(&l->next, m, st.next);
	chain(e, m, st.next, st.wa, st.wb, seen, depth + 1);
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
	struct lt_span in[INSIDE_MAX];
	size_t n = lt_spans_inside(w->spans, w->tid, w->span->begin,
				   w->span->end, in, INSIDE_MAX);
	const char *best = NULL;
	int64_t most = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t d = clip(in[i].begin, in[i].end, a, b);
		if (d > most)
			most = d, best = in[i].name;
	}
	return best;
}

/*
 * What the thread that ended a wait had just done, from its markers:
 * the latest one of a kind seen once among its last ones (a commit,
 * among the lock acquisitions and releases that come by the dozen),
 * else its latest; and how many others came after it, by name.
 */
static void waker_marks(struct expl *e, const struct lt_span_tracker *spans,
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
	e->mark = names[pick];
	e->mark_ago = ns - at[pick];
	/* those after it, by name, in the order they first came */
	for (size_t i = pick; i-- > 0;) {
		size_t k = pick, cnt = 0;
		while (--k > i && strcmp(names[k], names[i]) != 0)
			;
		if (k > i)
			continue; /* counted at its first */
		for (k = 0; k < pick; k++)
			cnt += strcmp(names[k], names[i]) == 0;
		e->then[e->nthen].name = names[i];
		e->then[e->nthen++].n = cnt;
	}
}

/*
 * Where a thread's time went over a window: runnable (and behind whom),
 * blocked (and who ended the longest block), running, irq and softirq,
 * then the verdict naming the largest part, and for a block the chain of
 * wakers behind it.  For an anchor the window runs from its wake-up to
 * the anchor (timer: how late that wake-up was); for a span, from its
 * start to its end (w->span).
 */
static void where_went(struct expl *e, const struct lt_model *m,
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
	e->others = 0;
	for (unsigned i = 0; i < sh.n; i++) {
		e->others += sh.s[i].ns;
		e->shares[i] = sh.s[i];
		who_of(&e->share_who[i], m, sh.s[i].tid);
	}
	e->nshares = sh.n;
	e->cpu = main_cpu;
	e->runnable = runnable;
	e->blocked = blocked;
	e->running = running;
	who_of(&e->longest_by, m, unblocker);
	int64_t irq = 0, soft = 0;
	if (main_cpu >= 0)
		lt_cpu_irq_in(m, (unsigned)main_cpu, wake, t_end, &irq, &soft);
	e->irq = irq;
	e->soft = soft;

	/* the verdict: the largest part */
	int64_t timer = w->timer;
	if (timer > WAKE_SLACK_NS && waker > 0) {
		/* woken by a thread long after the due time: the timer's
		 * own wake-up is not in the trace, and it then blocked on
		 * something the waker released */
		e->timer_blocked = timer;
		blocked += timer;
		if (timer > worst_block) {
			unblocker = waker;
			block_a = due;
			block_b = wake;
		}
		timer = 0;
	}
	int64_t best = runnable;
	enum verdict kind = V_RUNNABLE;
	if (blocked > best)
		best = blocked, kind = V_BLOCKED;
	if (irq + soft > best)
		best = irq + soft, kind = V_IRQ;
	if (timer > best)
		best = timer, kind = V_TIMER;
	if (w->span && running > best)
		best = running, kind = V_RUNNING;
	who_of(&e->v_who, m, -1);
	/* best * 10 < late_ns, which overflows on a corrupt trace's times */
	if (!w->span && late_ns > 0 && best <= (late_ns - 1) / 10) {
		e->verdict = V_NO_CAUSE;
		e->v_ns = late_ns;
		return;
	}
	e->verdict = kind;
	switch (kind) {
	case V_RUNNABLE:
		e->v_ns = runnable;
		who_of(&e->v_who, m, sh.n ? sh.s[0].tid : -1);
		break;
	case V_BLOCKED:
		e->v_ns = blocked;
		who_of(&e->v_who, m, unblocker);
		e->block_a_rel = block_a - m->first_ns;
		e->block_b_rel = block_b - m->first_ns;
		if (w->span) {
			e->v_inside = inside_block(w, block_a, block_b);
			if (unblocker > 0)
				waker_marks(e, w->spans, unblocker, block_b);
			e->cmdline = cmdline(m, lt_model_tgid(m, unblocker));
		}
		int32_t seen[CHAIN_MAX + 1] = { tid };
		chain(e, m, unblocker, block_a, block_b, seen, 1);
		break;
	case V_IRQ:
		e->v_ns = irq + soft;
		break;
	case V_RUNNING:
		e->v_ns = running;
		break;
	default:
		e->v_ns = timer;
		who_of(&e->v_who, m, waker);
		break;
	}
}

/* Explains one anchor at ev into e. */
static void explain(struct expl *e, const struct lt_model *m,
		    const struct lt_event *ev, int32_t tid, int64_t late_ns,
		    const char *by, int64_t byval)
{
	int64_t t_end = ev->ns, due = ev->ns - late_ns;
	struct lt_thread *th = lt_model_thread(m, tid);

	e->name = ev->cls->name;
	e->at_rel = ev->ns - m->first_ns;
	who_of(&e->thread, m, tid);
	e->by = by;
	e->byval = byval;
	e->total = late_ns;
	if (!th)
		return;
	e->sched = 1;
	e->truncated = lt_thread_truncated(th, due);

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
	e->due_rel = due - m->first_ns;
	e->woken = found;
	e->wake_rel = wake - m->first_ns;
	who_of(&e->waker, m, waker);
	e->wake_cpu = wake_cpu;
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
	where_went(e, m, &w);
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

/* The spans inside sp by name into e: count and time (nested ones of a
 * kind counted once), most time first. */
static void inside_of(struct expl *e, const struct lt_span_tracker *spans,
		      const struct lt_span *sp)
{
	struct lt_span in[INSIDE_MAX];
	struct inner *agg = e->inside;
	size_t n = lt_spans_inside(spans, sp->tid, sp->begin, sp->end, in,
				   INSIDE_MAX);
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
	}
	e->ninside = na;
}

/* Explains one span into e; -ENOMEM. */
static int explain_span(struct expl *e, const struct lt_model *m,
			const struct lt_span_tracker *spans,
			const struct lt_span *sp)
{
	int64_t dur = sp->end - sp->begin;
	e->is_span = 1;
	e->name = sp->name;
	e->at_rel = sp->begin - m->first_ns;
	who_of(&e->thread, m, sp->tid);
	e->total = dur;
	if (*sp->fields && !(e->fields = strdup(sp->fields)))
		return -ENOMEM;
	const struct lt_thread *th = lt_model_thread(m, sp->tid);
	if (!th)
		return 0;
	e->sched = 1;
	inside_of(e, spans, sp);
	e->truncated = lt_thread_truncated(th, sp->begin);
	who_of(&e->waker, m, -1);
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
	where_went(e, m, &w);
	return 0;
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
static void expl_text(FILE *f, const struct expl *e)
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
static void expl_json(struct lt_json *j, const struct expl *e, unsigned rank)
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
		expl_text(out, l->res[i].e);
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
		expl_json(&j, l->res[i].e, i + 1);
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
		expl_free(l->res[i].e);
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
		expl_free(res[slot].e);
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
	if (!e || explain_span(e, r->m, r->spans, sp) != 0)
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
				expl_free(res[0].e);
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
		explain(e, &m, ev, (int32_t)tid, lt_sat_mul(byval, unit_ns(by)),
			has_by ? by : NULL, byval);
	}
	struct latency l = { o, &m, by, nanchors, res, nres };
	latency_print(&l, ret == 0, out);
	free(memo);
	lt_model_free(&m);
	return ret;
}
