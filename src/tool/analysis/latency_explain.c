/* SPDX-License-Identifier: MIT */
/*
 * latency_explain.c - the walk back of `lowtrace analyze latency`: for
 * an anchor or a span, from the model's rings at the moment it goes by,
 * where the time went (the wake-up, the wait for a CPU and who ran
 * there, blocks and who ended them, irq and softirq), the verdict, and
 * the chain of wakers behind a block, into a struct expl that names the
 * threads as they were then (latency.c says what the analysis prints).
 */
#include "analysis/latency_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define WAKE_SLACK_NS 1000000 /* a wake-up this early still counts */

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

static void who_of(struct who *w, const struct lt_model *m, int32_t tid)
{
	w->tid = tid;
	w->pid = tid > 0 ? lt_model_tgid(m, tid) : -1;
	snprintf(w->comm, sizeof(w->comm), "%s", lt_model_comm(m, tid));
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

void lt_lat_expl_free(struct expl *e)
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

void lt_lat_explain(struct expl *e, const struct lt_model *m,
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

int lt_lat_explain_span(struct expl *e, const struct lt_model *m,
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
