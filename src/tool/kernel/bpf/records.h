/* SPDX-License-Identifier: MIT */
/*
 * records.h - what the kernel channel's BPF programs (kernel.bpf.c) and
 * their loader (kernel/bpf.c) agree on: the programs' slots and the
 * header of each record they write into a CPU's BPF ring buffer.
 *
 * A record is struct lt_kbpf_rec, then len bytes of payload.  A typed
 * program's payload is already the event's CTF payload (common_tid,
 * common_tgid, then the fields as encode.c lays them out), copied as it
 * is; a raw one's (LT_KBPF_RAW in ev) is tid, tgid and the tracepoint's
 * raw record, re-encoded by encode.c like a perf sample's.
 */
#ifndef LT_KERNEL_BPF_RECORDS_H
#define LT_KERNEL_BPF_RECORDS_H

/* the typed programs, one a tracepoint (tp_btf) */
enum lt_kbpf_slot {
	LT_KBPF_SCHED_SWITCH,
	LT_KBPF_SCHED_WAKING,
	LT_KBPF_SCHED_WAKEUP,
	LT_KBPF_SCHED_WAKEUP_NEW,
	LT_KBPF_SCHED_PROCESS_FORK,
	LT_KBPF_SCHED_PROCESS_EXIT,
	LT_KBPF_SCHED_PROCESS_EXEC,
	LT_KBPF_SCHED_MIGRATE_TASK,
	LT_KBPF_IRQ_HANDLER_ENTRY,
	LT_KBPF_IRQ_HANDLER_EXIT,
	LT_KBPF_SOFTIRQ_ENTRY,
	LT_KBPF_SOFTIRQ_EXIT,
	LT_KBPF_SOFTIRQ_RAISE,
	LT_KBPF_SYS_ENTER,
	LT_KBPF_SYS_EXIT,
	LT_KBPF_HRTIMER_START,
	LT_KBPF_HRTIMER_EXPIRE_ENTRY,
	LT_KBPF_HRTIMER_EXPIRE_EXIT,
	LT_KBPF_HRTIMER_CANCEL,
	LT_KBPF_TIMER_START,
	LT_KBPF_TIMER_EXPIRE_ENTRY,
	LT_KBPF_TIMER_EXPIRE_EXIT,
	LT_KBPF_NSLOTS
};

/* ev of a record whose payload is a raw tracepoint record */
#define LT_KBPF_RAW 0x80000000u
/* ev of a record that says a kept process forked: the payload is the
 * child's tgid (the filter's set grows in the kernel; the loader's copy
 * follows) */
#define LT_KBPF_FOLLOW 0x40000000u
/* ev of a slot that writes nothing (the filter's fork and free programs) */
#define LT_KBPF_NONE 0xffffffffu
/* ev of a record that only wakes the consumer (packets: subbuf.h) */
#define LT_KBPF_BELL 0x20000000u

struct lt_kbpf_rec {
	__u64 ns; /* CLOCK_MONOTONIC */
	__u32 ev; /* the event's index in the kernel stream, and flags */
	__u32 len; /* payload bytes after this header */
};

/* the most events the generic program tells apart */
#define LT_KBPF_MAX_EVENTS 4096

/* the most a raw record copies (the rest of a longer one is cut) */
#define LT_KBPF_RAW_MAX 2048

#endif
