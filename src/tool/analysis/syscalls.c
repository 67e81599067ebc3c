/* SPDX-License-Identifier: MIT */
/*
 * syscalls.c - `lowtrace analyze syscalls`: the time threads spend in
 * system calls, from raw_syscalls:sys_enter/sys_exit (`lowtrace record
 * -k syscalls`).  Each thread's open call (its number and enter time) is
 * kept here, in a table by tid; the exit of the same number closes it.
 *
 * Per syscall number (named by syscall_names.c): calls, total, mean and
 * worst time and a histogram by decade, the syscalls with the most time
 * first; the slowest single calls with their thread and time; the
 * threads with the most time in syscalls.  A call's time is from its
 * enter to its exit, blocked time included (nanosleep's sleep).
 *
 * What the trace cuts: a call still open when its thread exits
 * (sched:sched_process_exit; exit and exit_group never return) or when
 * the trace ends is unfinished, counted per syscall and listed, not
 * timed; an exit without an enter (the call began before the trace) is
 * skipped and counted, as are an exit of another number than the open
 * call's and an enter while a call is open (events lost).  An exit with
 * number -1 (rt_sigreturn's: it restores registers that name no call)
 * closes the open call.
 */
#include "analysis/analysis.h"
#include "analysis/dstat.h"
#include "analysis/json_out.h"
#include "analysis/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { K_UNSEEN = 0, K_OTHER, K_ENTER, K_EXIT, K_PROC_EXIT };

struct sclass {
	uint8_t kind;
	int16_t f_id, f_tid; /* field indices: id (or pid), common_tid */
};

struct thr {
	int64_t enter_ns, id; /* the open call */
	int32_t cpu;
	uint8_t open;
	uint64_t n;
	int64_t total, max, max_id;
};

struct sys {
	struct lt_dstat d;
	uint64_t unfin_exited, unfin_end;
};

struct sc_run {
	struct lt_model m;
	struct sclass *cls;
	unsigned ncls;
	struct lt_itab thr; /* tid -> struct thr */
	struct lt_itab sys; /* id -> struct sys */
	struct lt_topn slow;
	uint64_t ncalls, exit_no_enter, mismatched, lost_exit;
	uint64_t unfin_exited, unfin_end;
};

static int16_t field_index(const struct lt_event_class *ec, const char *name)
{
	for (unsigned i = 0; i < ec->nfields; i++)
		if (strcmp(ec->fields[i].name, name) == 0)
			return (int16_t)i;
	return -1;
}

static const struct sclass *class_of(struct sc_run *r,
				     const struct lt_event *ev)
{
	const struct lt_event_class *ec = ev->cls;
	static const struct sclass other = { K_OTHER, -1, -1 };
	if (ec->index >= r->ncls)
		return &other;
	struct sclass *c = &r->cls[ec->index];
	if (c->kind != K_UNSEEN)
		return c;
	c->kind = K_OTHER;
	c->f_tid = field_index(ec, "common_tid");
	if (strcmp(ec->name, "raw_syscalls:sys_enter") == 0)
		c->kind = K_ENTER;
	else if (strcmp(ec->name, "raw_syscalls:sys_exit") == 0)
		c->kind = K_EXIT;
	else if (strcmp(ec->name, "sched:sched_process_exit") == 0 ||
		 strcmp(ec->name, "sched_process_exit") == 0)
		c->kind = K_PROC_EXIT;
	c->f_id = field_index(ec, c->kind == K_PROC_EXIT ? "pid" : "id");
	if (c->kind == K_PROC_EXIT && field_index(ec, "tid") >= 0)
		c->f_id = field_index(ec, "tid"); /* lttng-modules's */
	if (c->f_id < 0 || (c->kind != K_PROC_EXIT && c->f_tid < 0))
		c->kind = K_OTHER;
	return c;
}

static int field_int(const struct lt_event *ev, int16_t i, int64_t *v)
{
	struct lt_value val;
	if (i < 0 || lt_event_field(ev, (unsigned)i, &val) != 0)
		return -ENOENT;
	if (val.kind != LT_KIND_INT && val.kind != LT_KIND_ENUM)
		return -ENOENT;
	*v = val.fc->is_signed ? val.i : (int64_t)val.u;
	return 0;
}

/* Ends th's open call without an exit; at_end: the trace ended. */
static int unfinished(struct sc_run *r, struct thr *th, int at_end)
{
	struct sys *s = lt_itab_get(&r->sys, th->id);
	if (!s)
		return -ENOMEM;
	if (at_end) {
		s->unfin_end++;
		r->unfin_end++;
	} else {
		s->unfin_exited++;
		r->unfin_exited++;
	}
	th->open = 0;
	return 0;
}

static int on_sys_enter(struct sc_run *r, const struct lt_event *ev,
			int32_t tid, int64_t id)
{
	struct thr *th = lt_itab_get(&r->thr, tid);
	if (!th)
		return -ENOMEM;
	if (th->open) {
		r->lost_exit++;
		th->open = 0;
	}
	th->open = 1;
	th->id = id;
	th->enter_ns = ev->ns;
	th->cpu = (int32_t)ev->cpu;
	return 0;
}

static int on_sys_exit(struct sc_run *r, const struct lt_event *ev, int32_t tid,
		       int64_t id)
{
	struct thr *th = lt_itab_find(&r->thr, tid);
	if (!th || !th->open) {
		r->exit_no_enter++;
		return 0;
	}
	th->open = 0;
	/* rt_sigreturn exits with id -1: it restored registers that say no
	 * system call; -1 is taken as the open call's number */
	if (id == -1)
		id = th->id;
	if (th->id != id) {
		r->mismatched++;
		return 0;
	}
	int64_t d = ev->ns - th->enter_ns;
	if (d < 0)
		d = 0;
	th->n++;
	th->total += d;
	if (d > th->max || th->n == 1) {
		th->max = d;
		th->max_id = id;
	}
	struct lt_topn_item it = { .dur = d,
				   .begin = th->enter_ns,
				   .key = id,
				   .tid = tid,
				   .cpu = th->cpu };
	struct sys *s = lt_itab_get(&r->sys, id);
	if (!s)
		return -ENOMEM;
	lt_dstat_add(&s->d, d, th->enter_ns);
	lt_topn_add(&r->slow, &it);
	r->ncalls++;
	return 0;
}

/* kev: what the model made of ev (lttng-modules's syscall_entry_NAME and
 * syscall_exit_NAME name no thread: the one running on the CPU made it) */
static int feed(struct sc_run *r, const struct lt_event *ev, int kev)
{
	const struct sclass *c = class_of(r, ev);
	int64_t id, tid = -1;
	if (c->kind == K_OTHER &&
	    (kev == LT_KEV_SYS_ENTER || kev == LT_KEV_SYS_EXIT)) {
		tid = lt_model_cpu_tid(&r->m, ev->cpu);
		if (tid <= 0)
			return 0;
		id = lt_model_sys_nr(&r->m, ev);
		return kev == LT_KEV_SYS_ENTER ?
			       on_sys_enter(r, ev, (int32_t)tid, id) :
			       on_sys_exit(r, ev, (int32_t)tid, id);
	}
	if (c->kind == K_OTHER || field_int(ev, c->f_id, &id) != 0)
		return 0;
	if (c->kind == K_PROC_EXIT) {
		struct thr *th = lt_itab_find(&r->thr, id);
		return th && th->open ? unfinished(r, th, 0) : 0;
	}
	if (field_int(ev, c->f_tid, &tid) != 0 || tid <= 0)
		return 0; /* the idle task makes no system calls */
	if (c->kind == K_ENTER)
		return on_sys_enter(r, ev, (int32_t)tid, id);
	return on_sys_exit(r, ev, (int32_t)tid, id);
}

/* the syscalls' rows: the most time first, then the most calls */
static int rank_sys(struct lt_itab_row *row)
{
	const struct sys *s = row->val;
	row->total = s->d.sum;
	row->count = s->d.n;
	return 1;
}

/* the rows of the threads that made a timed call: the most time first */
static int rank_thr(struct lt_itab_row *row)
{
	const struct thr *t = row->val;
	row->total = t->total;
	return t->n != 0;
}

static const struct thr *thr_of(const struct lt_itab_row *row)
{
	return row->val;
}

/* What the pass found, ranked: what both forms print. */
struct sc_result {
	const struct sc_run *r;
	unsigned top;
	unsigned nthreads; /* that made a timed call */
	struct lt_itab_row *sys; /* the syscalls, the most time first */
	unsigned nsys;
	struct lt_itab_row *thr; /* those threads, the most time first */
	unsigned nthr;
	struct lt_itab_row *open; /* the calls open at the end, oldest first */
	unsigned nopen;
};

static unsigned shown_of(const struct sc_result *s, unsigned n)
{
	return s->top && s->top < n ? s->top : n;
}

static void print_syscalls(const struct sc_result *res, FILE *out)
{
	const struct sc_run *r = res->r;
	char nb[32];
	unsigned n = res->nsys, shown = shown_of(res, n);
	fprintf(out,
		"system calls over %.6f s: %llu timed calls by %u threads, "
		"%llu unfinished; the %u syscalls of %u with the most time:\n"
		"%-22s %8s %6s %11s %11s %11s %s\n",
		(double)(r->m.last_ns - r->m.first_ns) / 1e9,
		(unsigned long long)r->ncalls, res->nthreads,
		(unsigned long long)(r->unfin_exited + r->unfin_end), shown, n,
		"syscall", "calls", "unfin", "total_ms", "mean_us", "max_us",
		lt_dstat_hist_title);
	for (unsigned i = 0; i < shown; i++) {
		const struct sys *s = res->sys[i].val;
		fprintf(out, "%-22s %8llu %6llu %11.3f %11.1f %11.1f",
			lt_syscall_name(res->sys[i].key, nb, sizeof(nb)),
			(unsigned long long)s->d.n,
			(unsigned long long)(s->unfin_exited + s->unfin_end),
			(double)s->d.sum / 1e6,
			s->d.n ? (double)s->d.sum / (double)s->d.n / 1e3 : 0.0,
			(double)s->d.max / 1e3);
		lt_dstat_print_hist(&s->d, out);
		fputc('\n', out);
	}
}

static void print_slowest(const struct sc_run *r, FILE *out)
{
	char nb[32];
	fprintf(out,
		"\nthe %u slowest calls:\n%3s %12s %-22s %8s %-16s %4s %12s\n",
		r->slow.n, "#", "duration_us", "syscall", "tid", "comm", "cpu",
		"at_s");
	for (unsigned i = 0; i < r->slow.n; i++) {
		const struct lt_topn_item *it = &r->slow.v[i];
		fprintf(out, "%3u %12.1f %-22s %8d %-16s %4d %12.6f\n", i + 1,
			(double)it->dur / 1e3,
			lt_syscall_name(it->key, nb, sizeof(nb)), it->tid,
			lt_model_comm(&r->m, it->tid), it->cpu,
			(double)(it->begin - r->m.first_ns) / 1e9);
	}
}

static void print_threads(const struct sc_result *res, FILE *out)
{
	const struct sc_run *r = res->r;
	char nb[32];
	unsigned n = res->nthr, shown = shown_of(res, n);
	fprintf(out,
		"\nthe %u threads of %u with the most time in system calls:\n"
		"%8s %-16s %8s %8s %11s %11s  %s\n",
		shown, n, "tid", "comm", "pid", "calls", "total_ms", "max_us",
		"slowest");
	for (unsigned i = 0; i < shown; i++) {
		const struct thr *t = res->thr[i].val;
		int32_t tid = (int32_t)res->thr[i].key;
		fprintf(out, "%8d %-16s %8d %8llu %11.3f %11.1f  %s\n", tid,
			lt_model_comm(&r->m, tid), lt_model_tgid(&r->m, tid),
			(unsigned long long)t->n, (double)t->total / 1e6,
			(double)t->max / 1e3,
			lt_syscall_name(t->max_id, nb, sizeof(nb)));
	}
	fprintf(out,
		"\nunfinished: %llu calls whose thread exited in them (exit and "
		"exit_group do not return), %u still open at the end",
		(unsigned long long)r->unfin_exited, res->nopen);
	shown = shown_of(res, res->nopen);
	if (shown)
		fprintf(out, ", the %u oldest:\n%-22s %8s %-16s %12s %11s\n",
			shown, "syscall", "tid", "comm", "since_s", "open_ms");
	else
		fputs("\n", out);
	for (unsigned i = 0; i < shown; i++) {
		const struct thr *t = res->open[i].val;
		int32_t tid = (int32_t)res->open[i].key;
		fprintf(out, "%-22s %8d %-16s %12.6f %11.3f\n",
			lt_syscall_name(t->id, nb, sizeof(nb)), tid,
			lt_model_comm(&r->m, tid),
			(double)(t->enter_ns - r->m.first_ns) / 1e9,
			(double)(r->m.last_ns - t->enter_ns) / 1e6);
	}
}

static void print_text(const struct sc_result *res, FILE *out)
{
	const struct sc_run *r = res->r;
	print_syscalls(res, out);
	print_slowest(r, out);
	print_threads(res, out);
	fprintf(out,
		"skipped: %llu exits without an enter (calls begun before "
		"the trace), %llu exits of another syscall than the open one, "
		"%llu enters while a call was open (events lost)\n",
		(unsigned long long)r->exit_no_enter,
		(unsigned long long)r->mismatched,
		(unsigned long long)r->lost_exit);
}

/* A syscall's number and name as members of the object open. */
static void json_nr(struct lt_json *j, int64_t nr)
{
	char nb[32];
	lt_json_int(j, "nr", nr);
	lt_json_str(j, "name", lt_syscall_name(nr, nb, sizeof(nb)));
}

static void print_json(const struct sc_result *res, lt_reader_t *t, FILE *out)
{
	const struct sc_run *r = res->r;
	const struct lt_model *m = &r->m;
	struct lt_json j;
	lt_json_doc_begin(&j, out, "syscalls", t);
	lt_json_int(&j, "origin_ns", m->first_ns);
	lt_json_int(&j, "span_ns", m->last_ns - m->first_ns);
	lt_json_uint(&j, "timed_calls", r->ncalls);
	lt_json_uint(&j, "threads_with_calls", res->nthreads);
	lt_json_uint(&j, "unfinished", r->unfin_exited + r->unfin_end);
	lt_json_uint(&j, "unfinished_exited", r->unfin_exited);
	lt_json_uint(&j, "syscalls_seen", res->nsys);
	lt_dstat_json_bounds(&j);
	lt_json_arr(&j, "syscalls");
	for (unsigned i = 0; i < shown_of(res, res->nsys); i++) {
		const struct sys *s = res->sys[i].val;
		lt_json_obj(&j, NULL);
		json_nr(&j, res->sys[i].key);
		lt_json_uint(&j, "unfinished", s->unfin_exited + s->unfin_end);
		lt_dstat_json(&s->d, &j, m->first_ns);
		lt_json_end(&j);
	}
	lt_json_end(&j);
	lt_json_arr(&j, "slowest");
	for (unsigned i = 0; i < r->slow.n; i++) {
		const struct lt_topn_item *it = &r->slow.v[i];
		lt_json_obj(&j, NULL);
		lt_json_int(&j, "duration_ns", it->dur);
		json_nr(&j, it->key);
		lt_json_int(&j, "tid", it->tid);
		lt_json_str(&j, "comm", lt_model_comm(m, it->tid));
		lt_json_int(&j, "cpu", it->cpu);
		lt_json_int(&j, "at_ns", it->begin - m->first_ns);
		lt_json_end(&j);
	}
	lt_json_end(&j);
	lt_json_arr(&j, "threads");
	for (unsigned i = 0; i < shown_of(res, res->nthr); i++) {
		const struct thr *th = res->thr[i].val;
		int32_t tid = (int32_t)res->thr[i].key;
		lt_json_obj(&j, NULL);
		lt_json_int(&j, "tid", tid);
		lt_json_str(&j, "comm", lt_model_comm(m, tid));
		lt_json_int(&j, "pid", lt_model_tgid(m, tid));
		lt_json_uint(&j, "calls", th->n);
		lt_json_int(&j, "total_ns", th->total);
		lt_json_int(&j, "max_ns", th->max);
		lt_json_obj(&j, "slowest");
		json_nr(&j, th->max_id);
		lt_json_end(&j);
		lt_json_end(&j);
	}
	lt_json_end(&j);
	lt_json_uint(&j, "open_at_end", res->nopen);
	lt_json_arr(&j, "open");
	for (unsigned i = 0; i < shown_of(res, res->nopen); i++) {
		const struct thr *th = res->open[i].val;
		int32_t tid = (int32_t)res->open[i].key;
		lt_json_obj(&j, NULL);
		json_nr(&j, th->id);
		lt_json_int(&j, "tid", tid);
		lt_json_str(&j, "comm", lt_model_comm(m, tid));
		lt_json_int(&j, "since_ns", th->enter_ns - m->first_ns);
		lt_json_int(&j, "open_ns", m->last_ns - th->enter_ns);
		lt_json_end(&j);
	}
	lt_json_end(&j);
	lt_json_obj(&j, "skipped");
	lt_json_uint(&j, "exits_without_enter", r->exit_no_enter);
	lt_json_uint(&j, "exits_of_another_syscall", r->mismatched);
	lt_json_uint(&j, "enters_while_open", r->lost_exit);
	lt_json_end(&j);
	lt_json_doc_end(&j);
}

/* The calls still open at the end into rows (room for every thread),
 * oldest first; how many. */
static unsigned open_calls(const struct sc_run *r, struct lt_itab_row *rows)
{
	unsigned n = 0;
	for (unsigned i = 0; i < r->thr.cap; i++) {
		struct lt_itab_row row = { 0 };
		const struct thr *t = lt_itab_slot(&r->thr, i, &row.key);
		if (t && t->open) {
			row.val = t;
			rows[n++] = row;
		}
	}
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i;
		     j > 0 && thr_of(&rows[j])->enter_ns <
				      thr_of(&rows[j - 1])->enter_ns;
		     j--) {
			struct lt_itab_row x = rows[j];
			rows[j] = rows[j - 1];
			rows[j - 1] = x;
		}
	return n;
}

static int report(struct sc_run *r, unsigned top, lt_reader_t *t,
		  enum lt_afmt fmt, FILE *out)
{
	struct sc_result res = { .r = r, .top = top };
	for (unsigned i = 0; i < r->thr.cap; i++) {
		int64_t tid;
		const struct thr *th = lt_itab_slot(&r->thr, i, &tid);
		res.nthreads += th && th->n;
	}
	lt_topn_sort(&r->slow);
	res.sys = lt_itab_sorted(&r->sys, rank_sys, &res.nsys);
	res.thr = lt_itab_sorted(&r->thr, rank_thr, &res.nthr);
	res.open = calloc(r->thr.n ? r->thr.n : 1, sizeof(*res.open));
	int ret = 0;
	if (res.sys && res.thr && res.open) {
		res.nopen = open_calls(r, res.open);
		if (fmt == LT_AFMT_JSON)
			print_json(&res, t, out);
		else
			print_text(&res, out);
	} else if (fmt == LT_AFMT_JSON) {
		ret = -ENOMEM;
	} else {
		fputs("(out of memory)\n", out);
	}
	free(res.sys);
	free(res.thr);
	free(res.open);
	return ret;
}

int lt_analyze_syscalls(lt_reader_t *t, unsigned top, enum lt_afmt fmt,
			FILE *out)
{
	struct sc_run r = { 0 };
	const struct lt_event *ev;
	if (!lt_reader_has_event(t, "raw_syscalls:sys_enter") ||
	    !lt_reader_has_event(t, "raw_syscalls:sys_exit"))
		return -ENODATA;
	int ret = lt_model_init(&r.m, t);
	if (ret)
		return ret;
	r.ncls = lt_reader_nclasses(t);
	r.cls = calloc(r.ncls ? r.ncls : 1, sizeof(*r.cls));
	if (!r.cls)
		ret = -ENOMEM;
	if (!ret)
		ret = lt_itab_init(&r.thr, sizeof(struct thr));
	if (!ret)
		ret = lt_itab_init(&r.sys, sizeof(struct sys));
	if (!ret)
		ret = lt_topn_init(&r.slow, top);
	if (ret)
		goto out;
	while ((ret = lt_reader_next(t, &ev)) > 0) {
		/* the model: threads' names, the thread on each CPU */
		int kev = lt_model_feed(&r.m, ev);
		ret = feed(&r, ev, kev);
		if (ret < 0)
			break;
	}
	for (unsigned i = 0; ret == 0 && i < r.thr.cap; i++) {
		int64_t tid;
		struct thr *th = lt_itab_slot(&r.thr, i, &tid);
		if (th && th->open) {
			ret = unfinished(&r, th, 1);
			th->open = 1; /* listed as open at the end */
		}
	}
	if (ret == 0)
		ret = report(&r, top, t, fmt, out);
out:
	lt_topn_free(&r.slow);
	lt_itab_free(&r.sys);
	lt_itab_free(&r.thr);
	free(r.cls);
	lt_model_free(&r.m);
	return ret;
}
