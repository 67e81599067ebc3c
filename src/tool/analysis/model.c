/* SPDX-License-Identifier: MIT */
/*
 * model.c - the trace model (model.h): per-CPU slices and per-thread
 * state spans from sched_switch, sched_waking/wakeup and irq events, in
 * one streaming pass with fixed rings.
 *
 * Each event class is looked at once, on its first event (model_class.c:
 * its kind, and the fields the kind needs with how to load each), so the
 * hot loop reads fields by index.  A command name is compared before it
 * is copied (it rarely changes), and each CPU keeps a pointer to its
 * running thread, the one most events name.
 */
#include "analysis/model.h"
#include "analysis/model_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int lt_model_init(struct lt_model *m, lt_reader_t *t)
{
	memset(m, 0, sizeof(*m));
	m->trace = t;
	m->ncls = lt_reader_nclasses(t);
	m->cls = calloc(m->ncls ? m->ncls : 1, sizeof(*m->cls));
	m->tab_cap = 1024;
	m->tab = calloc(m->tab_cap, sizeof(*m->tab));
	if (!m->cls || !m->tab) {
		lt_model_free(m);
		return -ENOMEM;
	}
	return 0;
}

void lt_model_free(struct lt_model *m)
{
	for (unsigned i = 0; m->tab && i < m->tab_cap; i++)
		free(m->tab[i]);
	for (unsigned i = 0; i < m->ncpus; i++) {
		free(m->cpus[i].slices);
		free(m->cpus[i].irqs);
	}
	free(m->tab);
	free(m->cpus);
	free(m->cls);
	memset(m, 0, sizeof(*m));
}

static struct lt_model_class *class_of(struct lt_model *m,
				       const struct lt_event *ev)
{
	const struct lt_event_class *ec = ev->cls;
	if (ec->index >= m->ncls)
		return NULL;
	struct lt_model_class *c = &m->cls[ec->index];
	if (__builtin_expect(c->seen, 1))
		return c;
	lt_model_class_plan(c, ec);
	return c;
}

static int64_t fint_value(const struct lt_event *ev,
			  const struct lt_model_class *c, int k, int64_t dflt)
{
	struct lt_value v;
	if (lt_event_field(ev, (unsigned)c->f[k], &v) != 0)
		return dflt;
	if (v.kind == LT_KIND_INT || v.kind == LT_KIND_ENUM)
		return v.fc->is_signed ? v.i : (int64_t)v.u;
	return dflt;
}

/* Integer field k of ev (as its class says), or dflt. */
static inline int64_t fint(const struct lt_event *ev,
			   const struct lt_model_class *c, int k, int64_t dflt)
{
	const unsigned char *p;
	union {
		int8_t s8;
		uint8_t u8;
		int16_t s16;
		uint16_t u16;
		int32_t s32;
		uint32_t u32;
		int64_t s64;
		uint64_t u64;
	} v;

	if (c->ld[k] == LD_NONE)
		return dflt;
	p = ev->base + ev->off[c->f[k]];
	switch (c->ld[k]) {
	case LD_S8:
		return (int8_t)p[0];
	case LD_U8:
		return p[0];
	case LD_S16:
		memcpy(&v.s16, p, 2);
		return v.s16;
	case LD_U16:
		memcpy(&v.u16, p, 2);
		return v.u16;
	case LD_S32:
		memcpy(&v.s32, p, 4);
		return v.s32;
	case LD_U32:
		memcpy(&v.u32, p, 4);
		return v.u32;
	case LD_S64:
		memcpy(&v.s64, p, 8);
		return v.s64;
	case LD_U64:
		memcpy(&v.u64, p, 8);
		return (int64_t)v.u64;
	default:
		return fint_value(ev, c, k, dflt);
	}
}

/*
 * The command name in field k, into out (at most 15 bytes, the rest of
 * out zeroed) unless it is empty.  The kernel's 16-byte comm arrays are
 * mostly what out already holds: two compares then.
 */
static void fcomm(const struct lt_event *ev, const struct lt_model_class *c,
		  int k, char out[16])
{
	struct lt_value v;
	if (c->f[k] < 0)
		return;
	if (c->comm16[k]) {
		uint64_t a[2], b[2];
		memcpy(a, ev->base + ev->off[c->f[k]], 16);
		memcpy(b, out, 16);
		if (a[0] == b[0] && a[1] == b[1] && !out[15])
			return;
	}
	if (lt_event_field(ev, (unsigned)c->f[k], &v) != 0)
		return;
	if (!v.str || (v.kind != LT_KIND_STRING && !v.fc->text))
		return;
	size_t n = strnlen(v.str, v.len < 15 ? v.len : 15);
	if (!n)
		return;
	memcpy(out, v.str, n);
	memset(out + n, 0, 16 - n);
}

int32_t lt_model_sys_nr(struct lt_model *m, const struct lt_event *ev)
{
	struct lt_model_class *k = class_of(m, ev);
	if (!k || (k->kind != LT_KEV_SYS_ENTER && k->kind != LT_KEV_SYS_EXIT))
		return -1;
	return (int32_t)fint(ev, k, F_SYSID, k->sysnr);
}

int lt_model_kind(struct lt_model *m, const struct lt_event *ev)
{
	const struct lt_model_class *k = class_of(m, ev);
	return k ? k->kind : LT_KEV_OTHER;
}

int32_t lt_model_cpu_tid(const struct lt_model *m, uint32_t cpu)
{
	return cpu < m->ncpus ? m->cpus[cpu].cur : -1;
}

static unsigned hash_tid(int32_t tid, unsigned cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

static inline struct lt_thread *find_thread(const struct lt_model *m,
					    int32_t tid)
{
	for (unsigned h = hash_tid(tid, m->tab_cap);;
	     h = (h + 1) & (m->tab_cap - 1)) {
		struct lt_thread *th = m->tab[h];
		if (!th || th->tid == tid)
			return th;
	}
}

struct lt_thread *lt_model_thread(const struct lt_model *m, int32_t tid)
{
	return find_thread(m, tid);
}

static int grow_tab(struct lt_model *m)
{
	unsigned cap = m->tab_cap * 2;
	struct lt_thread **nt = calloc(cap, sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	for (unsigned i = 0; i < m->tab_cap; i++) {
		struct lt_thread *th = m->tab[i];
		if (!th)
			continue;
		unsigned h = hash_tid(th->tid, cap);
		while (nt[h])
			h = (h + 1) & (cap - 1);
		nt[h] = th;
	}
	free(m->tab);
	m->tab = nt;
	m->tab_cap = cap;
	return 0;
}

static __attribute__((noinline)) struct lt_thread *
new_thread(struct lt_model *m, int32_t tid, int64_t ns)
{
	struct lt_thread *th;
	if ((m->nthreads + 1) * 2 > m->tab_cap && grow_tab(m) != 0)
		return NULL;
	/* the hot fields in one cache line, each span within one */
	void *mem;
	if (posix_memalign(&mem, 64, sizeof(*th)) != 0)
		return NULL;
	th = memset(mem, 0, sizeof(*th));
	th->tid = tid;
	th->tgid = -1;
	th->sys_nr = -1;
	th->cur.begin = ns;
	th->cur.cpu = -1;
	th->cur.waker = -1;
	th->cur.state = LT_TS_UNKNOWN;
	unsigned h = hash_tid(tid, m->tab_cap);
	while (m->tab[h])
		h = (h + 1) & (m->tab_cap - 1);
	m->tab[h] = th;
	m->nthreads++;
	return th;
}

/* The thread tid, created in state UNKNOWN if new; NULL for tid <= 0. */
static inline struct lt_thread *get_thread(struct lt_model *m, int32_t tid,
					   int64_t ns)
{
	if (tid <= 0)
		return NULL;
	struct lt_thread *th = find_thread(m, tid);
	return __builtin_expect(th != NULL, 1) ? th : new_thread(m, tid, ns);
}

/* The thread running on c (NULL when idle or unknown). */
static inline struct lt_thread *cur_thread(struct lt_model *m, struct lt_cpu *c,
					   int64_t ns)
{
	if (c->cur_th && c->cur_th->tid == c->cur)
		return c->cur_th;
	return c->cur_th = get_thread(m, c->cur, ns);
}

static struct lt_cpu *get_cpu(struct lt_model *m, uint32_t cpu)
{
	if (cpu > 4095)
		return NULL;
	if (cpu >= m->ncpus) {
		unsigned n = cpu + 1;
		struct lt_cpu *nc = realloc(m->cpus, n * sizeof(*nc));
		if (!nc)
			return NULL;
		m->cpus = nc;
		for (unsigned i = m->ncpus; i < n; i++) {
			memset(&nc[i], 0, sizeof(nc[i]));
			nc[i].cur = -1;
		}
		m->ncpus = n;
	}
	struct lt_cpu *c = &m->cpus[cpu];
	if (!c->slices) {
		c->slices = malloc(LT_CPU_SLICES * sizeof(*c->slices));
		c->irqs = malloc(LT_CPU_IRQS * sizeof(*c->irqs));
		if (!c->slices || !c->irqs)
			return NULL;
	}
	return c;
}

/* Closes th's open span at ns and opens one in state st. */
static void set_state(struct lt_thread *th, int64_t ns, uint8_t st, int32_t cpu,
		      int32_t waker)
{
	/* the closed span is written field by field: a copy of th->cur
	 * after a store to cur.end would wait for that store */
	if (ns > th->cur.begin || th->cur.state != LT_TS_UNKNOWN) {
		struct lt_tspan *h = &th->hist[th->nhist % LT_THREAD_HIST];
		h->begin = th->cur.begin;
		h->end = ns;
		h->cpu = th->cur.cpu;
		h->waker = th->cur.waker;
		h->state = th->cur.state;
		th->nhist++;
	}
	th->cur.end = ns;
	th->cur.begin = ns;
	th->cur.state = st;
	th->cur.cpu = cpu;
	th->cur.waker = waker;
}

static void close_slice(struct lt_model *m, unsigned ci, struct lt_cpu *c,
			int64_t ns)
{
	if (c->cur < 0)
		return;
	struct lt_cslice *s = &c->slices[c->nslices % LT_CPU_SLICES];
	s->begin = c->since;
	s->end = ns;
	s->tid = c->cur;
	c->nslices++;
	if (s->tid == 0)
		c->idle_begin = s->begin;
	if (m->on_slice)
		m->on_slice(m->arg, ci, s);
}

static void push_irq(struct lt_model *m, unsigned ci, struct lt_cpu *c,
		     int64_t b, int64_t e, int32_t vec, uint8_t soft)
{
	struct lt_irqspan *s = &c->irqs[c->nirqs % LT_CPU_IRQS];
	s->begin = b;
	s->end = e;
	s->vec = vec;
	s->soft = soft;
	c->nirqs++;
	if (m->on_irq)
		m->on_irq(m->arg, ci, s);
}

/*
 * n runs at ns on c without a wake-up in the trace: it was woken in the
 * idle task's context, whose events are often missing, so during the
 * CPU's last idle slice; taken at its start (or when n blocked, if later).
 */
static void unseen_wake(const struct lt_cpu *c, struct lt_thread *n,
			int32_t cpu, int64_t ns)
{
	int64_t at = c->cur == 0 ? c->since : c->idle_begin;
	if (at < n->cur.begin)
		at = n->cur.begin;
	if (at > ns)
		at = ns;
	set_state(n, at, LT_TS_RUNNABLE, cpu, LT_WAKER_UNSEEN);
}

static void on_switch(struct lt_model *m, const struct lt_event *ev,
		      const struct lt_model_class *k, struct lt_cpu *c)
{
	int32_t prev = (int32_t)fint(ev, k, F_PREV_PID, -1);
	int32_t next = (int32_t)fint(ev, k, F_NEXT_PID, -1);
	int64_t pst = fint(ev, k, F_PREV_STATE, 0);
	int64_t ns = ev->ns;

	close_slice(m, ev->cpu, c, ns);
	struct lt_thread *p =
		prev == c->cur ? cur_thread(m, c, ns) : get_thread(m, prev, ns);
	c->cur = next;
	c->since = ns;
	if (p) {
		fcomm(ev, k, F_PREV_COMM, p->comm);
		/* R or R+ (preempted): still wants the CPU */
		if ((pst & 0xff) == 0)
			set_state(p, ns, LT_TS_RUNNABLE, (int32_t)ev->cpu, -1);
		else
			set_state(p, ns, LT_TS_BLOCKED, -1, -1);
	}
	struct lt_thread *n = get_thread(m, next, ns);
	if (n) {
		fcomm(ev, k, F_NEXT_COMM, n->comm);
		if (n->cur.state == LT_TS_BLOCKED)
			unseen_wake(c, n, (int32_t)ev->cpu, ns);
		set_state(n, ns, LT_TS_RUNNING, (int32_t)ev->cpu,
			  n->cur.state == LT_TS_RUNNABLE ? n->cur.waker : -1);
	}
	c->cur_th = n;
}

static void on_wake(struct lt_model *m, const struct lt_event *ev,
		    const struct lt_model_class *k)
{
	int32_t tid = (int32_t)fint(ev, k, F_PID, -1);
	struct lt_thread *th = get_thread(m, tid, ev->ns);
	if (!th)
		return;
	fcomm(ev, k, F_COMM, th->comm);
	if (th->cur.state == LT_TS_RUNNABLE || th->cur.state == LT_TS_RUNNING)
		return;
	/* the waker: the event's thread (perf), else the thread running
	 * on the event's CPU (LTTng's events name no thread) */
	struct lt_cpu *wc = k->f[F_TID] < 0 ? get_cpu(m, ev->cpu) : NULL;
	int32_t waker = (int32_t)fint(ev, k, F_TID, wc ? wc->cur : -1);
	int32_t cpu = (int32_t)fint(ev, k, F_TARGET_CPU, (int64_t)ev->cpu);
	set_state(th, ev->ns, LT_TS_RUNNABLE, cpu, waker);
}

/* A switch on c to tid that the trace did not report (see model.h). */
static void infer_switch(struct lt_model *m, unsigned ci, struct lt_cpu *c,
			 int32_t tid, int64_t ns)
{
	struct lt_thread *n = get_thread(m, tid, ns);
	/* the earliest it can have started: after the CPU's last event */
	int64_t at = c->last_ns > c->since ? c->last_ns : c->since;
	if (c->cur < 0)
		at = ns;
	if (n && n->cur.state == LT_TS_RUNNABLE && n->cur.cpu == (int32_t)ci &&
	    n->cur.begin > at)
		at = n->cur.begin;
	if (at > ns)
		at = ns;
	if (n && n->cur.begin > at)
		at = n->cur.begin <= ns ? n->cur.begin : ns;
	/* From idle to a blocked thread, its wake-up unseen too: an idle
	 * CPU makes no events (no tick), a running thread does, so the
	 * switch is nearer this event than the CPU's last one (the start of
	 * its idle time); and an idle CPU runs what wakes on it at once, so
	 * the wake-up is as near.  Both go here: the thread was blocked
	 * until then. */
	if (n && c->cur == 0 && n->cur.state == LT_TS_BLOCKED) {
		at = ns;
		set_state(n, at, LT_TS_RUNNABLE, (int32_t)ci, LT_WAKER_UNSEEN);
	} else if (n && n->cur.state != LT_TS_RUNNABLE) {
		unseen_wake(c, n, (int32_t)ci, at);
	}
	close_slice(m, ci, c, at);
	struct lt_thread *p = cur_thread(m, c, at);
	if (p && p->cur.state == LT_TS_RUNNING && p->cur.cpu == (int32_t)ci)
		set_state(p, at, LT_TS_UNKNOWN, -1, -1);
	c->cur = tid;
	c->cur_th = n;
	c->since = at;
	c->ninferred++;
	if (n && n->cur.begin <= at)
		set_state(n, at, LT_TS_RUNNING, (int32_t)ci,
			  n->cur.state == LT_TS_RUNNABLE ? n->cur.waker : -1);
}

int lt_model_feed(struct lt_model *m, const struct lt_event *ev)
{
	struct lt_model_class *k = class_of(m, ev);
	if (!m->nevents)
		m->first_ns = ev->ns;
	m->nevents++;
	m->last_ns = ev->ns;
	if (!k || k->kind == LT_KEV_OTHER)
		return LT_KEV_OTHER;
	m->nsched++;
	struct lt_cpu *c = get_cpu(m, ev->cpu);
	if (!c)
		return LT_KEV_OTHER;
	if (k->f[F_TID] >= 0) {
		int32_t tid = (int32_t)fint(ev, k, F_TID, -1);
		if (tid >= 0 && tid != c->cur)
			infer_switch(m, ev->cpu, c, tid, ev->ns);
		struct lt_thread *th = tid == c->cur ?
					       cur_thread(m, c, ev->ns) :
					       get_thread(m, tid, ev->ns);
		if (th && k->f[F_TGID] >= 0)
			th->tgid = (int32_t)fint(ev, k, F_TGID, -1);
	}
	c->last_ns = ev->ns;
	switch (k->kind) {
	case LT_KEV_SWITCH:
		on_switch(m, ev, k, c);
		break;
	case LT_KEV_WAKING:
	case LT_KEV_WAKEUP:
	case LT_KEV_WAKEUP_NEW:
		on_wake(m, ev, k);
		break;
	case LT_KEV_IRQ_ENTRY:
		c->irq_begin = ev->ns;
		c->irq_vec = (int32_t)fint(ev, k, F_IRQ, -1);
		break;
	case LT_KEV_IRQ_EXIT:
		if (c->irq_begin)
			push_irq(m, ev->cpu, c, c->irq_begin, ev->ns,
				 c->irq_vec, 0);
		c->irq_begin = 0;
		break;
	case LT_KEV_SOFTIRQ_ENTRY:
		c->soft_begin = ev->ns;
		c->soft_vec = (int32_t)fint(ev, k, F_VEC, -1);
		break;
	case LT_KEV_SOFTIRQ_EXIT:
		if (c->soft_begin)
			push_irq(m, ev->cpu, c, c->soft_begin, ev->ns,
				 c->soft_vec, 1);
		c->soft_begin = 0;
		break;
	case LT_KEV_THREAD_NAME: {
		/* a thread that existed before the trace began, and its
		 * process */
		struct lt_thread *th =
			get_thread(m, (int32_t)fint(ev, k, F_PID, -1), ev->ns);
		if (!th)
			break;
		fcomm(ev, k, F_NAME, th->comm);
		if (k->f[F_PROC] >= 0)
			th->tgid = (int32_t)fint(ev, k, F_PROC, -1);
		break;
	}
	case LT_KEV_SYS_ENTER:
	case LT_KEV_SYS_EXIT: {
		/* the thread making the call is the one running here */
		struct lt_thread *th = cur_thread(m, c, ev->ns);
		if (!th)
			break;
		if (k->kind == LT_KEV_SYS_ENTER) {
			th->sys_nr = (int32_t)fint(ev, k, F_SYSID, k->sysnr);
			th->sys_since = ev->ns;
		} else {
			th->sys_nr = -1;
			th->sys_since = 0;
		}
		break;
	}
	}
	return k->kind;
}

void lt_model_finish(struct lt_model *m)
{
	for (unsigned i = 0; i < m->ncpus; i++) {
		struct lt_cpu *c = &m->cpus[i];
		if (!c->slices)
			continue;
		close_slice(m, i, c, m->last_ns);
		c->since = m->last_ns;
	}
}

int lt_thread_in_irq(const struct lt_model *m, const struct lt_thread *th)
{
	if (th->cur.state != LT_TS_RUNNING || th->cur.cpu < 0 ||
	    (unsigned)th->cur.cpu >= m->ncpus)
		return 0;
	const struct lt_cpu *c = &m->cpus[th->cur.cpu];
	return c->cur == th->tid && (c->irq_begin || c->soft_begin);
}

const char *lt_model_comm(const struct lt_model *m, int32_t tid)
{
	if (tid == 0)
		return "idle";
	struct lt_thread *th = tid > 0 ? lt_model_thread(m, tid) : NULL;
	return th && th->comm[0] ? th->comm : "?";
}

int32_t lt_model_tgid(const struct lt_model *m, int32_t tid)
{
	struct lt_thread *th = tid > 0 ? lt_model_thread(m, tid) : NULL;
	return th ? th->tgid : -1;
}

unsigned lt_thread_nspans(const struct lt_thread *th)
{
	uint64_t n = th->nhist < LT_THREAD_HIST ? th->nhist : LT_THREAD_HIST;
	return (unsigned)n + 1;
}

void lt_thread_span(const struct lt_thread *th, const struct lt_model *m,
		    unsigned i, struct lt_tspan *out)
{
	unsigned n = lt_thread_nspans(th) - 1;
	if (i >= n) {
		*out = th->cur;
		out->end = m->last_ns;
		return;
	}
	*out = th->hist[(th->nhist - n + i) % LT_THREAD_HIST];
}

int lt_thread_truncated(const struct lt_thread *th, int64_t ns)
{
	if (th->nhist <= LT_THREAD_HIST)
		return 0;
	return th->hist[th->nhist % LT_THREAD_HIST].begin > ns;
}

static int64_t overlap(int64_t b, int64_t e, int64_t lo, int64_t hi)
{
	int64_t x = b > lo ? b : lo, y = e < hi ? e : hi;
	return y > x ? y - x : 0;
}

void lt_cpu_slices_in(const struct lt_model *m, unsigned cpu, int64_t a,
		      int64_t b, void (*fn)(void *arg, int32_t tid, int64_t ns),
		      void *arg)
{
	if (cpu >= m->ncpus || !m->cpus[cpu].slices)
		return;
	const struct lt_cpu *c = &m->cpus[cpu];
	uint64_t n = c->nslices < LT_CPU_SLICES ? c->nslices : LT_CPU_SLICES;
	for (uint64_t i = 0; i < n; i++) {
		const struct lt_cslice *s =
			&c->slices[(c->nslices - 1 - i) % LT_CPU_SLICES];
		if (s->end < a)
			break;
		int64_t o = overlap(s->begin, s->end, a, b);
		if (o)
			fn(arg, s->tid, o);
	}
	if (c->cur >= 0) {
		int64_t o = overlap(c->since, m->last_ns, a, b);
		if (o)
			fn(arg, c->cur, o);
	}
}

void lt_cpu_irq_in(const struct lt_model *m, unsigned cpu, int64_t a, int64_t b,
		   int64_t *irq_ns, int64_t *soft_ns)
{
	*irq_ns = *soft_ns = 0;
	if (cpu >= m->ncpus || !m->cpus[cpu].irqs)
		return;
	const struct lt_cpu *c = &m->cpus[cpu];
	uint64_t n = c->nirqs < LT_CPU_IRQS ? c->nirqs : LT_CPU_IRQS;
	for (uint64_t i = 0; i < n; i++) {
		const struct lt_irqspan *s =
			&c->irqs[(c->nirqs - 1 - i) % LT_CPU_IRQS];
		if (s->end < a)
			break;
		int64_t o = overlap(s->begin, s->end, a, b);
		if (s->soft)
			*soft_ns += o;
		else
			*irq_ns += o;
	}
}
