/* SPDX-License-Identifier: MIT */
/*
 * model.h - the trace model the analyses share, built in one pass of the
 * reader (ctf/reader.h) from the kernel's scheduling and interrupt events:
 *
 *   per CPU     which thread runs when (sched_switch), as a ring of the
 *               most recent slices, and its irq/softirq windows
 *   per thread  its state over time (running, runnable: woken or
 *               preempted and waiting for a CPU, blocked), as a ring of
 *               the most recent spans, each runnable span with the thread
 *               that woke it (sched_waking/sched_wakeup: the wake-up edge);
 *               whether it is inside a system call, which and since when
 *               (raw_syscalls:sys_enter/sys_exit, recorded with -k
 *               syscalls), and in an irq when its CPU is (lt_thread_in_irq)
 *
 * Switches the kernel did not report (those from the idle task, and
 * wake-ups in its context, are often missing) are inferred: every kernel
 * event names the thread running on its CPU (common_tid); when that is
 * not the CPU's current thread, a switch to it is assumed at the CPU's
 * previous event (or at the thread's wake-up, if later); from idle to a
 * blocked thread whose wake-up is missing as well, the wake-up and the
 * switch at the event itself (an idle CPU makes no events, a running
 * thread makes ticks, and an idle CPU runs what wakes on it at once).  A thread
 * switched to without a wake-up in the trace is taken as woken (by
 * LT_WAKER_UNSEEN) at the start of the CPU's latest idle slice, or when
 * it blocked if later: both are the earliest times the trace allows.
 *
 * Streaming: feed every event in time order with lt_model_feed(); memory
 * is bounded by the number of threads and CPUs (fixed rings), and nothing
 * is allocated per event except when a new thread or CPU appears.  An
 * analysis asks about the recent past at the moment an event of its own
 * (an anchor) goes by; what fell out of a ring is reported as unknown.
 */
#ifndef LT_ANALYSIS_MODEL_H
#define LT_ANALYSIS_MODEL_H

#include "ctf/reader.h"

#include <stdint.h>

enum lt_tstate {
	LT_TS_UNKNOWN = 0,
	LT_TS_RUNNING = 1,
	LT_TS_RUNNABLE = 2, /* woken or preempted, waiting for a CPU */
	LT_TS_BLOCKED = 3,
};

/* What lt_model_feed() made of an event. */
enum lt_kev {
	LT_KEV_OTHER = 0, /* not a scheduling or irq event */
	LT_KEV_SWITCH,
	LT_KEV_WAKING,
	LT_KEV_WAKEUP,
	LT_KEV_WAKEUP_NEW,
	LT_KEV_IRQ_ENTRY,
	LT_KEV_IRQ_EXIT,
	LT_KEV_SOFTIRQ_ENTRY,
	LT_KEV_SOFTIRQ_EXIT,
	LT_KEV_SYS_ENTER,
	LT_KEV_SYS_EXIT,
	LT_KEV_THREAD_NAME, /* a thread's name (LTTng's state dump) */
	LT_KEV_NKINDS,
};

/* A span of a thread's state; waker is the waking thread (-1: none). */
struct lt_tspan {
	int64_t begin, end; /* ns since the epoch */
	int32_t cpu; /* where it ran, or waits for a CPU */
	int32_t waker;
	uint8_t state; /* enum lt_tstate */
};

/* The waker of a wake-up the trace does not hold (one from idle). */
#define LT_WAKER_UNSEEN (-2)

#define LT_THREAD_HIST 128 /* spans kept per thread */
#define LT_CPU_SLICES 8192 /* slices kept per CPU */
#define LT_CPU_IRQS 4096 /* irq/softirq windows kept per CPU */

struct lt_thread {
	int32_t tid, tgid; /* tgid -1 until seen */
	char comm[16];
	struct lt_tspan cur; /* open span: end is unset */
	uint64_t nhist; /* closed spans so far; the ring keeps the last */
	struct lt_tspan hist[LT_THREAD_HIST];
	int32_t sys_nr; /* the system call it is in, -1: none seen */
	int64_t sys_since; /* its entry, ns */
	int64_t mark; /* for an analysis's own use, 0 at first */
	void *user; /* the same; the analysis frees it */
};

/* A CPU slice: tid (0: idle) ran from begin to end. */
struct lt_cslice {
	int64_t begin, end;
	int32_t tid;
};

struct lt_irqspan {
	int64_t begin, end;
	int32_t vec; /* irq number or softirq vector */
	uint8_t soft;
};

struct lt_cpu {
	int32_t cur; /* running tid, -1 before the first switch */
	int64_t since;
	int64_t last_ns; /* the CPU's latest event */
	int64_t idle_begin; /* start of its latest closed idle slice */
	uint64_t ninferred; /* switches inferred from common_tid */
	int64_t irq_begin, soft_begin; /* 0: not inside */
	int32_t irq_vec, soft_vec;
	uint64_t nslices, nirqs;
	struct lt_cslice *slices; /* rings */
	struct lt_irqspan *irqs;
	struct lt_thread *cur_th; /* cur's, when looked up (a cache) */
};

struct lt_model_class; /* per event class: its kind and field indices */

struct lt_model {
	lt_reader_t *trace;
	struct lt_model_class *cls;
	unsigned ncls;
	struct lt_thread **tab; /* open addressing by tid */
	unsigned tab_cap, nthreads;
	struct lt_cpu *cpus;
	unsigned ncpus;
	int64_t first_ns, last_ns;
	uint64_t nevents, nsched;
	/* called when a CPU slice closes (also a running span of s->tid) */
	void (*on_slice)(void *arg, unsigned cpu, const struct lt_cslice *s);
	/* called when an irq or softirq window closes (an exit after its
	 * entry); cpus[cpu].cur is the thread it interrupted */
	void (*on_irq)(void *arg, unsigned cpu, const struct lt_irqspan *s);
	void *arg;
};

int lt_model_init(struct lt_model *m, lt_reader_t *t);
void lt_model_free(struct lt_model *m);
/* Takes one event (in time order); returns its enum lt_kev. */
int lt_model_feed(struct lt_model *m, const struct lt_event *ev);
/* What lt_model_feed() would return for ev, without taking it: the
 * model's state before ev, for an analysis that needs both. */
int lt_model_kind(struct lt_model *m, const struct lt_event *ev);
/* Closes the open slices at the last event's time (calls on_slice). */
void lt_model_finish(struct lt_model *m);

/* The thread tid, or NULL if never seen. */
struct lt_thread *lt_model_thread(const struct lt_model *m, int32_t tid);
/* Its command name, "idle" for tid 0, "?" if unknown. */
const char *lt_model_comm(const struct lt_model *m, int32_t tid);
int32_t lt_model_tgid(const struct lt_model *m, int32_t tid);

/*
 * Span i of a thread, oldest first, the open span last (its end set to
 * the model's time); *n is the count.  Returns the spans available:
 * lt_thread_span(th, m, i, &s) for i < lt_thread_nspans(th).
 */
unsigned lt_thread_nspans(const struct lt_thread *th);
void lt_thread_span(const struct lt_thread *th, const struct lt_model *m,
		    unsigned i, struct lt_tspan *out);
/* 1 if spans before ns may have been dropped from the ring. */
int lt_thread_truncated(const struct lt_thread *th, int64_t ns);

/* Per CPU: ns each tid ran in [a, b]; calls fn(arg, tid, ns) per slice. */
void lt_cpu_slices_in(const struct lt_model *m, unsigned cpu, int64_t a,
		      int64_t b, void (*fn)(void *arg, int32_t tid, int64_t ns),
		      void *arg);
/* ns of irq and softirq time on cpu within [a, b]. */
void lt_cpu_irq_in(const struct lt_model *m, unsigned cpu, int64_t a, int64_t b,
		   int64_t *irq_ns, int64_t *soft_ns);

/* 1 if th is running on a CPU that is in an irq or softirq handler. */
int lt_thread_in_irq(const struct lt_model *m, const struct lt_thread *th);

/* 1 if the trace declares an event class called name. */
/* The system call number of a system call event (its id field, or its
 * name's x86_64 number for lttng-modules's syscall_entry_NAME), or -1. */
int32_t lt_model_sys_nr(struct lt_model *m, const struct lt_event *ev);
/* The thread running on cpu as the events so far say, or -1. */
int32_t lt_model_cpu_tid(const struct lt_model *m, uint32_t cpu);
int lt_reader_has_event(const lt_reader_t *t, const char *name);

/* The integer field name of ev, 0 and *v, or -ENOENT. */
int lt_event_int(const struct lt_event *ev, const char *name, int64_t *v);

#endif
