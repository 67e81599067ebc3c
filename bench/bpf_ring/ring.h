/* SPDX-License-Identifier: MIT */
/*
 * ring.h - what bench/bpf_ring/ring.bpf.c and its loader, bench/bpf_ring_cmp.c,
 * agree on: the two payloads, the record of a BPF ring buffer (ring A),
 * and the per-CPU counts.  Ring B, the sub-buffers the programs write
 * into an mmapable array map, is the kernel backend's
 * (src/tool/kernel/bpf/subbuf.h).
 */
#ifndef BENCH_BPF_RING_H
#define BENCH_BPF_RING_H

#include <linux/types.h>

/* the events, by their id in the compact header */
#define BR_EV_SWITCH 0u
#define BR_EV_WAKEUP 1u
/* the nesting stress's (bpf_ring_cmp -x): a system call's entry, an
 * interrupt's, a softirq's */
#define BR_EV_NEST 2u

/* a record's bytes in a packet the consumer builds from ring A, its
 * padding included */
#define BR_REC_SIZE(hdr, len) (((hdr) + (len) + 3u) & ~3u)

/* sched_switch's payload (as lowtrace's kernel stream lays it out) */
struct br_switch {
	__u32 tid, tgid;
	char prev_comm[16];
	__s32 prev_pid, prev_prio;
	__s64 prev_state;
	char next_comm[16];
	__s32 next_pid, next_prio;
} __attribute__((packed, aligned(4)));

/* sched_wakeup's */
struct br_wakeup {
	__u32 tid, tgid;
	char comm[16];
	__s32 pid, prio, target_cpu;
} __attribute__((packed, aligned(4)));

/* the nesting stress's payload */
struct br_nest {
	__u32 tid, tgid;
	__u32 what; /* 0 sys_enter, 1 irq_handler_entry, 2 softirq_entry */
	__u32 cpu; /* the CPU the program ran on */
} __attribute__((packed, aligned(4)));

/* Ring A: a record in a CPU's BPF ring buffer, as the backend's */
struct br_arec {
	__u64 ns; /* bpf_ktime_get_ns() */
	__u32 ev;
	__u32 len; /* payload bytes after this header */
};

/* each CPU's counts (a per-CPU array of one) */
struct br_stats {
	__u64 calls; /* program runs that tried to write a record */
	__u64 lost; /* of them, those without room */
	__u64 retries; /* B: swaps of the offset that failed (a program
			* interrupted between its read and its swap) */
};

#endif
