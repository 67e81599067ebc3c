/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ring.bpf.c - the programs of bench/bpf_ring_cmp: tp_btf programs on
 * sched_switch and sched_wakeup writing the payloads of ring.h into one
 * of two per-CPU rings, chosen at load (mode):
 *
 *   A  the running CPU's BPF ring buffer (an array of maps by CPU), as
 *      the kernel backend (src/tool/kernel/bpf/kernel.bpf.c) writes it:
 *      reserve, time, payload, submit; the consumer woken once a quarter
 *      of the ring waits.
 *   B  the running CPU's ring of sub-buffers in an mmapable array map,
 *      written as the kernel backend writes its packets, with the same
 *      code (src/tool/kernel/bpf/subbuf.h): a reserve loop reads the
 *      clock and compare-and-swaps the CPU's offset, so records are in
 *      the order of their times even when a program interrupts another
 *      on the CPU; lowtrace's compact header, or the extended one when
 *      the time is too far from the last; a commit counter per
 *      sub-buffer; a sub-buffer the consumer has not released is not
 *      written (the record is counted lost).  A program whose commit
 *      completes a sub-buffer while a quarter of the ring waits (A's
 *      threshold) rings the CPU's doorbell (a small BPF ring buffer),
 *      once until the consumer has taken what waits.
 *
 * The kernel structures are a CO-RE subset, as in kernel.bpf.c.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <stdbool.h>

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "ring.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

struct thread_info {
	__u32 cpu;
} __attribute__((preserve_access_index));

struct task_struct {
	struct thread_info thread_info;
	unsigned int cpu;
	int prio;
	int pid;
	int tgid;
	char comm[16];
} __attribute__((preserve_access_index));

/* set by the loader (and subbuf.h's geometry, for B) */
const volatile __u32 mode_b; /* 0: ring A, 1: ring B */
const volatile __u64 wake_at; /* A: wake the consumer once this much waits */
const volatile __u32 doorbell; /* B: ring the doorbell */

/* A: each CPU's ring buffer; B: each CPU's doorbell.  By CPU number; the
 * loader makes them. */
struct cpu_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct cpu_ring);
} rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct br_stats);
} stats SEC(".maps");

#define COUNT_CALL 0
#define COUNT_LOST 1
#define COUNT_RETRY 2

/* counts a call, a lost record or a failed swap; atomic: a program may
 * interrupt another on the CPU */
static __always_inline void count(int what)
{
	__u32 z = 0;
	struct br_stats *s = bpf_map_lookup_elem(&stats, &z);
	if (!s)
		return;
	if (what == COUNT_LOST)
		__sync_fetch_and_add(&s->lost, 1);
	else if (what == COUNT_RETRY)
		__sync_fetch_and_add(&s->retries, 1);
	else
		__sync_fetch_and_add(&s->calls, 1);
}

/* B's losses and failed swaps in the counts above */
#define LT_SB_COUNT_LOST(c) count(COUNT_LOST)
#define LT_SB_COUNT_RETRY(c) count(COUNT_RETRY)
#include "subbuf.h"

/* a task's comm, in two loads and four 32-bit stores (the payload is
 * 4-aligned) */
static __always_inline void copy_comm(char *dst, struct task_struct *p)
{
	const __u64 *c = (const __u64 *)p->comm;
	__u64 a = c[0], b = c[1];
	__u32 *d = (__u32 *)dst;
	d[0] = (__u32)a;
	d[1] = (__u32)(a >> 32);
	d[2] = (__u32)b;
	d[3] = (__u32)(b >> 32);
}

static __always_inline unsigned int task_cpu(struct task_struct *p)
{
	if (bpf_core_field_exists(p->cpu))
		return p->cpu;
	return p->thread_info.cpu;
}

static __always_inline void put_ids(__u32 *tid)
{
	__u64 id = bpf_get_current_pid_tgid();
	tid[0] = (__u32)id;
	tid[1] = (__u32)(id >> 32);
}

static __always_inline void fill_switch(struct br_switch *f, bool preempt,
					struct task_struct *prev,
					struct task_struct *next,
					unsigned int prev_state)
{
	put_ids(&f->tid);
	copy_comm(f->prev_comm, prev);
	f->prev_pid = prev->pid;
	f->prev_prio = prev->prio;
	/* the state's lowest bit, as the kernel reports it, or preempted */
	f->prev_state = preempt ? 0x100 : (prev_state & -prev_state) & 0x7f;
	copy_comm(f->next_comm, next);
	f->next_pid = next->pid;
	f->next_prio = next->prio;
}

static __always_inline void fill_wakeup(struct br_wakeup *f,
					struct task_struct *p)
{
	put_ids(&f->tid);
	copy_comm(f->comm, p);
	f->pid = p->pid;
	f->prio = p->prio;
	f->target_cpu = (int)task_cpu(p);
}

/* ---- ring A ---- */

static __always_inline struct br_arec *a_reserve(__u32 ev, __u32 len,
						 void **ring)
{
	__u32 cpu = bpf_get_smp_processor_id();
	*ring = bpf_map_lookup_elem(&rings, &cpu);
	struct br_arec *r =
		*ring ? bpf_ringbuf_reserve(*ring, sizeof(*r) + len, 0) : NULL;
	if (!r) {
		count(COUNT_LOST);
		return NULL;
	}
	r->ns = bpf_ktime_get_ns();
	r->ev = ev;
	r->len = len;
	return r;
}

static __always_inline void a_submit(void *ring, struct br_arec *r)
{
	__u64 fl = bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) >= wake_at ?
			   BPF_RB_FORCE_WAKEUP :
			   BPF_RB_NO_WAKEUP;
	bpf_ringbuf_submit(r, fl);
}

/* ---- ring B ---- */

/* The record's bytes committed; the doorbell rung when a quarter of the
 * ring waits. */
static __always_inline void b_commit(struct lt_sb_res *res)
{
	if (lt_sb_commit(res) && doorbell) {
		__u32 cpu = bpf_get_smp_processor_id();
		void *bell = bpf_map_lookup_elem(&rings, &cpu);
		if (bell)
			bpf_ringbuf_output(bell, &cpu, sizeof(cpu),
					   BPF_RB_FORCE_WAKEUP);
	}
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	count(COUNT_CALL);
	if (mode_b) {
		struct lt_sb_res res;
		struct br_switch *f =
			lt_sb_reserve(BR_EV_SWITCH, sizeof(*f), &res);
		if (!f)
			return 0;
		fill_switch(f, preempt, prev, next, prev_state);
		b_commit(&res);
	} else {
		void *ring;
		struct br_arec *r = a_reserve(BR_EV_SWITCH,
					      sizeof(struct br_switch), &ring);
		if (!r)
			return 0;
		fill_switch((void *)(r + 1), preempt, prev, next, prev_state);
		a_submit(ring, r);
	}
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(sched_wakeup, struct task_struct *p)
{
	count(COUNT_CALL);
	if (mode_b) {
		struct lt_sb_res res;
		struct br_wakeup *f =
			lt_sb_reserve(BR_EV_WAKEUP, sizeof(*f), &res);
		if (!f)
			return 0;
		fill_wakeup(f, p);
		b_commit(&res);
	} else {
		void *ring;
		struct br_arec *r = a_reserve(BR_EV_WAKEUP,
					      sizeof(struct br_wakeup), &ring);
		if (!r)
			return 0;
		fill_wakeup((void *)(r + 1), p);
		a_submit(ring, r);
	}
	return 0;
}

/*
 * The nesting stress (loaded with bpf_ring_cmp -x): programs on a system
 * call's entry, which runs with interrupts on, and on an interrupt's and a
 * softirq's, which interrupt it, writing a small record to the same ring.
 */
static __always_inline int nest(__u32 what)
{
	count(COUNT_CALL);
	if (mode_b) {
		struct lt_sb_res res;
		struct br_nest *f = lt_sb_reserve(BR_EV_NEST, sizeof(*f), &res);
		if (!f)
			return 0;
		put_ids(&f->tid);
		f->what = what;
		f->cpu = bpf_get_smp_processor_id();
		b_commit(&res);
	} else {
		void *ring;
		struct br_arec *r =
			a_reserve(BR_EV_NEST, sizeof(struct br_nest), &ring);
		if (!r)
			return 0;
		struct br_nest *f = (void *)(r + 1);
		put_ids(&f->tid);
		f->what = what;
		f->cpu = bpf_get_smp_processor_id();
		a_submit(ring, r);
	}
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(nest_sys_enter, void *regs, long id)
{
	return nest(0);
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(nest_irq_entry, int irq, void *action)
{
	return nest(1);
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(nest_softirq_entry, unsigned int vec)
{
	return nest(2);
}
