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
 *      written as lowtrace's ring is: a reserve loop reads the clock and
 *      compare-and-swaps the CPU's offset, so records are in the order
 *      of their times even when a program interrupts another on the
 *      CPU; lowtrace's compact header, or the extended one when the time
 *      is too far from the last; a commit counter per sub-buffer; a
 *      sub-buffer the consumer has not released is not written (the
 *      record is counted lost).  A program whose commit completes a
 *      sub-buffer while a quarter of the ring waits (A's threshold)
 *      rings the CPU's doorbell (a small BPF ring buffer), once until the
 *      consumer has taken what waits.
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

/* set by the loader */
const volatile __u32 mode_b; /* 0: ring A, 1: ring B */
const volatile __u64 wake_at; /* wake the consumer once this much waits */
const volatile __u32 sub_size = 4096; /* B: a power of two */
const volatile __u32 nsub = 2; /* B: a power of two, <= BR_MAX_SUBBUFS */
const volatile __u32 doorbell; /* B: ring the doorbell at wake_at */

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

/* B: the sub-buffers, nsub per CPU (CPU c's sub-buffer i at c * nsub + i);
 * the loader sets the value size to sub_size */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__uint(key_size, 4);
	__uint(value_size, 4096);
} data SEC(".maps");

/* B: each CPU's control, by CPU number */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct br_ctl);
} ctl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct br_stats);
} stats SEC(".maps");

#define READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

/* how many times B's reserve tries before it counts the record lost */
#define RETRIES 8

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

/* a reservation in a CPU's ring B */
struct b_res {
	struct br_ctl *c;
	__u64 end; /* the offset after it */
	__u32 sb; /* its sub-buffer's index */
	__u32 size;
	int done; /* its reservation completed the sub-buffer before */
};

/* The extended header of ev at time t, 13 bytes at p (4-aligned). */
static __always_inline void put_extended(char *p, __u32 ev, __u64 t)
{
	__u32 *w = (__u32 *)p;
	w[0] = BR_ID_EXTENDED | ev << 8;
	w[1] = ev >> 24 | (__u32)(t << 8);
	w[2] = (__u32)(t >> 24);
	p[12] = (char)(t >> 56);
}

/*
 * Room for a record of event ev with a payload of len bytes in this CPU's
 * ring B, its header written; returns the payload, or NULL (counted lost)
 * when the next sub-buffer is not released or the offset kept moving.
 *
 * The time is read between the offset's read and its compare-and-swap:
 * a program that interrupts this one in between moves the offset, the
 * swap fails and the time is read again, so a later record never has an
 * earlier time.  last_ts is stored after the swap, so it may be older
 * than the record before, never newer: the compact header's test against
 * it is conservative.
 */
static __always_inline void *b_reserve(__u32 ev, __u32 len, struct b_res *res)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct br_ctl *c = bpf_map_lookup_elem(&ctl, &cpu);
	if (!c)
		return NULL;
	__u64 S = sub_size, N = nsub, mask = S - 1;
	__u64 old = 0, begin = 0, t = 0;
	__u32 hs = 0;
	int i;
	for (i = 0; i < RETRIES; i++) {
		old = READ_ONCE(c->offset);
		t = bpf_ktime_get_ns();
		__u64 last = READ_ONCE(c->last_ts);
		hs = t - last < (1ull << BR_TS_BITS) ? BR_HDR_COMPACT :
						       BR_HDR_EXTENDED;
		begin = old;
		if ((old & mask) && (old & mask) + BR_REC_SIZE(hs, len) > S)
			begin = (old | mask) + 1; /* the next sub-buffer */
		if (!(begin & mask)) {
			/* a sub-buffer's first record: its time whole */
			hs = BR_HDR_EXTENDED;
			if (begin - READ_ONCE(c->consumed) >= N * S) {
				count(COUNT_LOST);
				return NULL;
			}
		}
		if (__sync_val_compare_and_swap(&c->offset, old,
						begin + BR_REC_SIZE(hs, len)) ==
		    old)
			break;
		count(COUNT_RETRY);
	}
	if (i == RETRIES) {
		count(COUNT_LOST);
		return NULL;
	}
	WRITE_ONCE(c->last_ts, t);
	__u32 sb = (__u32)((begin / S) & (N - 1)) & (BR_MAX_SUBBUFS - 1);
	if (begin != old) {
		/* close the sub-buffer the record did not fit in: its
		 * size, end and padding */
		__u32 pb = (__u32)((old / S) & (N - 1)) & (BR_MAX_SUBBUFS - 1);
		__u64 pad = S - (old & mask);
		c->sub[pb].content = old & mask;
		c->sub[pb].end_ts = t;
		res->done =
			__sync_fetch_and_add(&c->sub[pb].commit, pad) + pad ==
			S;
	} else {
		res->done = 0;
	}
	if (!(begin & mask))
		c->sub[sb].begin_ts = t;
	__u32 key = cpu * (__u32)N + sb;
	char *d = bpf_map_lookup_elem(&data, &key);
	__u64 at = begin & mask;
	char *p;
	/* (the reserve loop made it fit; the verifier is told again) */
	if (d && hs == BR_HDR_COMPACT &&
	    at <= S - BR_REC_SIZE(BR_HDR_COMPACT, len)) {
		p = d + at;
		*(__u32 *)p = ev | (__u32)(t << 5);
		p += BR_HDR_COMPACT;
	} else if (d && at <= S - BR_REC_SIZE(BR_HDR_EXTENDED, len)) {
		p = d + at;
		put_extended(p, ev, t);
		p += BR_HDR_EXTENDED;
	} else {
		count(COUNT_LOST);
		return NULL;
	}
	res->c = c;
	res->size = BR_REC_SIZE(hs, len);
	res->end = begin + res->size;
	res->sb = sb;
	if (!(res->end & mask)) {
		/* it ends at the boundary: it closes its own sub-buffer */
		c->sub[sb].content = S;
		c->sub[sb].end_ts = t;
	}
	return p;
}

/*
 * The record's bytes committed.  The commits' results are used (whether
 * they completed a sub-buffer), which makes them fetching atomics: fully
 * ordered on every architecture, so the consumer that sees a sub-buffer
 * complete sees its records.  A sub-buffer completed with a quarter of
 * the ring waiting rings the doorbell, once until the consumer clears
 * wake.
 */
static __always_inline void b_commit(struct b_res *res)
{
	struct br_ctl *c = res->c;
	__u64 was = __sync_fetch_and_add(
		&c->sub[res->sb & (BR_MAX_SUBBUFS - 1)].commit, res->size);
	if (was + res->size == sub_size)
		res->done = 1;
	if (doorbell && res->done &&
	    res->end - READ_ONCE(c->consumed) >= wake_at &&
	    !READ_ONCE(c->wake) &&
	    __sync_val_compare_and_swap(&c->wake, 0, 1) == 0) {
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
		struct b_res res;
		struct br_switch *f = b_reserve(BR_EV_SWITCH, sizeof(*f), &res);
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
		struct b_res res;
		struct br_wakeup *f = b_reserve(BR_EV_WAKEUP, sizeof(*f), &res);
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
		struct b_res res;
		struct br_nest *f = b_reserve(BR_EV_NEST, sizeof(*f), &res);
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
