/* SPDX-License-Identifier: MIT */
/*
 * ring.h - what bench/bpf_ring/ring.bpf.c and its loader, bench/bpf_ring_cmp.c,
 * agree on: the two payloads, the record of a BPF ring buffer (ring A),
 * and the per-CPU control of the sub-buffer ring (ring B) the programs
 * write into an mmapable array map.
 *
 * Ring B's records are lowtrace's (docs/ctf-layout.md): 4-byte aligned,
 * a compact header (one 32-bit word: event id in bits 0-4, the time's low
 * 27 bits above) or an extended one (byte 31, the 32-bit id, the 64-bit
 * time: 13 bytes), the packed payload right after it, then padding to the
 * next 4-byte boundary.
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

#define BR_ID_EXTENDED 31u
#define BR_TS_BITS 27
#define BR_HDR_COMPACT 4u
#define BR_HDR_EXTENDED 13u
/* a record's bytes in the ring, its padding included */
#define BR_REC_SIZE(hdr, len) (((hdr) + (len) + 3u) & ~3u)

/* the most sub-buffers a CPU's ring B has (their states are in its
 * control page) */
#define BR_MAX_SUBBUFS 64

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

/* Ring B: one sub-buffer's state */
struct br_sub {
	__u64 commit; /* bytes committed: records and padding */
	__u64 begin_ts; /* the time of its first record */
	__u64 end_ts; /* the time it closed */
	__u64 content; /* bytes of records; the rest is padding */
};

/*
 * Ring B: one CPU's control, a page of its own (no cache line shared
 * between CPUs).  offset counts the bytes reserved since the start, over
 * all laps: sub-buffer (offset / size) % n, at offset % size.  Only the
 * CPU's programs write offset and last_ts; only the consumer writes
 * consumed (a multiple of the sub-buffer size: what it has released),
 * on a line of its own.
 */
struct br_ctl {
	__u64 offset;
	__u64 last_ts; /* the time of a recent record, never a later one */
	__u64 pad0[6];
	__u64 consumed;
	__u64 wake; /* 1 while a wake-up is pending */
	__u64 pad1[6];
	struct br_sub sub[BR_MAX_SUBBUFS];
	__u8 pad2[4096 - 128 - BR_MAX_SUBBUFS * sizeof(struct br_sub)];
};

/* each CPU's counts (a per-CPU array of one) */
struct br_stats {
	__u64 calls; /* program runs that tried to write a record */
	__u64 lost; /* of them, those without room */
	__u64 retries; /* B: swaps of the offset that failed (a program
			* interrupted between its read and its swap) */
};

#endif
