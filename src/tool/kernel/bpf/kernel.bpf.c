/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * kernel.bpf.c - the kernel channel's BPF programs (kernel/bpf.c loads
 * them): one tp_btf program per tracepoint of the presets, which writes
 * the event's CTF payload itself (the fields the tracepoint's format
 * file lists, in the layout of encode.c), and a generic tracepoint
 * program for any other event, which copies the raw record for the
 * consumer to re-encode.  Records go to one of two per-CPU rings, chosen
 * at load (packets):
 *
 *   records  the running CPU's own BPF ring buffer (records.h), the
 *            consumer woken once a quarter of it waits (below that, its
 *            poll timer takes them); the consumer writes each record
 *            into its lt_ring at the converted time.
 *   packets  the running CPU's sub-buffers (subbuf.h), written in the
 *            kernel stream's layout (compact or extended header, the
 *            payload), which the consumer copies whole as packets.  A
 *            record is built first in the program's own per-CPU scratch
 *            (programs of different events may nest on a CPU, one
 *            event's never), so that its size is known before the
 *            reserve.  The doorbell is the CPU's BPF ring buffer.
 *
 * The kernel structures are a CO-RE subset (preserve_access_index): the
 * offsets come from the running kernel's BTF when the object loads, so
 * building needs no BTF, only clang.  tp_btf arguments are typed
 * pointers the programs read directly, without a helper call a field.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <stdbool.h>

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "records.h"
#include "subbuf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

#define CO_RE __attribute__((preserve_access_index))

struct thread_info {
	__u32 cpu;
} CO_RE;

struct task_struct {
	struct thread_info thread_info;
	unsigned int cpu;
	int prio;
	int exit_state;
	int pid;
	int tgid;
	char comm[16];
} CO_RE;

struct pt_regs {
	unsigned long di, si, dx, r10, r8, r9, orig_ax;
	unsigned long regs[31];
	unsigned long orig_x0, syscallno;
} CO_RE;

struct irqaction {
	const char *name;
} CO_RE;

struct timerqueue_node {
	long long expires;
} CO_RE;

struct hrtimer {
	struct timerqueue_node node;
	long long _softexpires;
	void *function;
} CO_RE;

struct timer_list {
	unsigned long expires;
	void *function;
	__u32 flags;
} CO_RE;

struct linux_binprm {
	const char *filename;
} CO_RE;

/* the ring buffer of each CPU, by CPU number; the loader makes them */
struct cpu_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct cpu_ring);
} rings SEC(".maps");

/* the processes (tgids) kept when filter is set */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} keep SEC(".maps");

/* the bytes of raw record the generic program copies, by event index
 * (its attach cookie) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LT_KBPF_MAX_EVENTS);
	__type(key, __u32);
	__type(value, __u32);
} raw_size SEC(".maps");

/* records the ring buffers had no room for, per CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* the generic program's record, built here before it is copied */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8[sizeof(struct lt_kbpf_rec) + 8 + LT_KBPF_RAW_MAX]);
} scratch SEC(".maps");

/* the per-program scratch of the packets mode, by slot: room for the
 * largest record but exec's (an irq's name at most 128 bytes) ... */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LT_KBPF_NSLOTS);
	__type(key, __u32);
	__type(value, __u8[256]);
} build SEC(".maps");

/* ... and exec's: its file name up to PATH_MAX */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8[sizeof(struct lt_kbpf_rec) + 8 + 4096 + 8]);
} build_exec SEC(".maps");

/* set by the loader: write packets (subbuf.h), not records */
const volatile __u32 packets;

/* set by the loader before the programs attach */
__u32 ev_of[LT_KBPF_NSLOTS]; /* event index of each slot, or LT_KBPF_NONE */
__u32 filter; /* keep only the processes of `keep` */
__u64 wake_at; /* wake the consumer once this much waits */

static __always_inline int kept_tgid(__u32 tgid)
{
	return bpf_map_lookup_elem(&keep, &tgid) != NULL;
}

/* Whether an event of the running task is recorded; other: a task it
 * names (the one switched to, woken), or NULL, kept when its id is a
 * kept process's, as the perf backend judges the id the event names. */
static __always_inline int kept(struct task_struct *other)
{
	if (!filter)
		return 1;
	if (kept_tgid((__u32)(bpf_get_current_pid_tgid() >> 32)))
		return 1;
	return other && kept_tgid((__u32)other->pid);
}

static __always_inline void count_lost(void)
{
	__u32 z = 0;
	__u64 *n = bpf_map_lookup_elem(&lost, &z);
	if (n)
		*n += 1;
}

static __always_inline void *cpu_ring(void)
{
	__u32 cpu = bpf_get_smp_processor_id();
	return bpf_map_lookup_elem(&rings, &cpu);
}

/* A record of size bytes (payload size - 16) in this CPU's ring, its
 * header filled; NULL (counted) when there is no room. */
static __always_inline struct lt_kbpf_rec *reserve(void *ring, __u32 ev,
						   __u32 size)
{
	struct lt_kbpf_rec *r = bpf_ringbuf_reserve(ring, size, 0);
	if (!r) {
		count_lost();
		return NULL;
	}
	r->ns = bpf_ktime_get_ns();
	r->ev = ev;
	r->len = size - sizeof(*r);
	return r;
}

/* The consumer is woken by the amount waiting, never by one record. */
static __always_inline __u64 wake_flags(void *ring)
{
	return bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) >= wake_at ?
		       BPF_RB_FORCE_WAKEUP :
		       BPF_RB_NO_WAKEUP;
}

static __always_inline void submit(void *ring, void *r)
{
	__u64 fl = wake_flags(ring);
	bpf_ringbuf_submit(r, fl);
}

/*
 * A record of event ev and size bytes (payload size - 16) of the program
 * of slot: in ring (records), or in the slot's scratch (packets, ring
 * NULL); NULL when there is no room (counted).
 */
static __always_inline struct lt_kbpf_rec *rec_reserve(void *ring, __u32 slot,
						       __u32 ev, __u32 size)
{
	if (!packets)
		return reserve(ring, ev, size);
	__u32 z = 0;
	struct lt_kbpf_rec *r = slot == LT_KBPF_SCHED_PROCESS_EXEC ?
					bpf_map_lookup_elem(&build_exec, &z) :
					bpf_map_lookup_elem(&build, &slot);
	if (r) {
		r->ev = ev;
		r->len = size - sizeof(*r);
	}
	return r;
}

/*
 * n bytes (a constant) from the scratch s to d, in loads and stores of 8,
 * 4, 2 and 1 bytes, no byte past them (a program that interrupts this one
 * writes right after): d is only 1-aligned after an extended header,
 * which x86-64 and arm64 store to at no cost (a kernel that wants
 * aligned stores refuses the programs, and perf records).
 */
static __always_inline void copy_fixed(char *d, const char *s, __u32 n)
{
	__u32 i = 0;
#pragma unroll
	for (; i + 8 <= n; i += 8)
		*(__u64 *)(d + i) = *(const __u64 *)(s + i);
	if (i + 4 <= n) {
		*(__u32 *)(d + i) = *(const __u32 *)(s + i);
		i += 4;
	}
	if (i + 2 <= n) {
		*(__u16 *)(d + i) = *(const __u16 *)(s + i);
		i += 2;
	}
	if (i < n)
		d[i] = s[i];
}

/* Packets: the record of the scratch r copied into this CPU's
 * sub-buffers, its payload's n bytes by copy_fixed() when n is a constant
 * (fixed: a typed program's fixed fields), else by a helper; the
 * doorbell rung when a quarter of them waits. */
static __always_inline void sb_write(struct lt_kbpf_rec *r, __u32 n, int fixed)
{
	struct lt_sb_res res;
	__u32 len = fixed ? n : r->len;
	if (len > LT_SB_LEN_MAX)
		return;
	char *p = lt_sb_reserve(r->ev, len, &res);
	if (!p)
		return;
	if (fixed)
		copy_fixed(p, (const char *)(r + 1), n);
	else
		bpf_probe_read_kernel(p, len, r + 1);
	if (lt_sb_commit(&res)) {
		void *bell = cpu_ring();
		struct lt_kbpf_rec b = { 0, LT_KBPF_BELL, 0 };
		if (bell)
			bpf_ringbuf_output(bell, &b, sizeof(b),
					   BPF_RB_FORCE_WAKEUP);
	}
}

static __always_inline void rec_submit(void *ring, struct lt_kbpf_rec *r)
{
	if (packets)
		sb_write(r, 0, 0);
	else
		submit(ring, r);
}

/* rec_submit() of a record whose payload is n bytes, a constant */
static __always_inline void rec_submit_fixed(void *ring, struct lt_kbpf_rec *r,
					     __u32 n)
{
	if (packets)
		sb_write(r, n, 1);
	else
		submit(ring, r);
}

/* The ring a program reserves in: its CPU's BPF ring buffer, or NULL
 * when it writes packets. */
#define RING_OR_RETURN()                          \
	void *ring = packets ? NULL : cpu_ring(); \
	if (!packets && !ring)                    \
	return 0

/* common_tid and common_tgid, at p; returns the byte after them */
static __always_inline char *put_ids(char *p)
{
	__u64 id = bpf_get_current_pid_tgid();
	*(__u32 *)p = (__u32)id;
	*(__u32 *)(p + 4) = (__u32)(id >> 32);
	return p + 8;
}

/*
 * The record of a typed program whose fields are type (packed: the CTF
 * payload has no padding), in this CPU's ring; returns from the program
 * when the event is not kept or has no room.  The record is 8-aligned in
 * the ring (so declared: the compiler then stores an 8-byte field, a
 * pointer among them, in one store, which the verifier requires of a
 * pointer); its length leaves out the padding at its end.
 */
#define BEGIN(slot, type, other)                                 \
	__u32 ev = ev_of[slot];                                  \
	if (ev == LT_KBPF_NONE || !kept(other))                  \
		return 0;                                        \
	RING_OR_RETURN();                                        \
	struct {                                                 \
		struct lt_kbpf_rec h;                            \
		__u32 tid, tgid;                                 \
		type f;                                          \
	} __attribute__((packed, aligned(8))) *r =               \
		(void *)rec_reserve(ring, slot, ev, sizeof(*r)); \
	if (!r)                                                  \
		return 0;                                        \
	r->h.len = 8 + sizeof(type);                             \
	put_ids((char *)&r->tid)

#define END() rec_submit_fixed(ring, &r->h, 8 + sizeof(r->f))

/* A task's comm, 16 bytes as the kernel's events copy it, in two plain
 * loads (no helper call) */
static __always_inline void copy_comm(char *dst, struct task_struct *p)
{
	const __u64 *c = (const __u64 *)p->comm;
	__u64 a = c[0], b = c[1];
	__builtin_memcpy(dst, &a, 8);
	__builtin_memcpy(dst + 8, &b, 8);
}

static __always_inline unsigned int task_cpu(struct task_struct *p)
{
	if (bpf_core_field_exists(p->cpu))
		return p->cpu;
	return p->thread_info.cpu;
}

/*
 * sched_switch's prev_state, as the kernel computes it: preempted is
 * TASK_REPORT_MAX, else the bit of the reported state (TASK_IDLE shown
 * as TASK_REPORT_IDLE, an rtlock wait as uninterruptible), 0 running.
 */
#define TASK_REPORT 0x7fu
#define TASK_IDLE 0x402u
#define TASK_RTLOCK_WAIT 0x1000u
#define TASK_REPORT_IDLE 0x80u
#define TASK_REPORT_MAX 0x100

static __always_inline long switch_state(int preempt, unsigned int st,
					 struct task_struct *p)
{
	if (preempt)
		return TASK_REPORT_MAX;
	unsigned int s = (st | (unsigned int)p->exit_state) & TASK_REPORT;
	if (st == TASK_IDLE)
		s = TASK_REPORT_IDLE;
	if (st == TASK_RTLOCK_WAIT)
		s = 2;
	/* fls(s), then the bit below it */
	int b = 0;
	for (int i = 0; i < 9; i++)
		if (s >> i)
			b = i + 1;
	return b ? 1L << (b - 1) : 0;
}

struct sw_fields {
	char prev_comm[16];
	int prev_pid, prev_prio;
	long prev_state;
	char next_comm[16];
	int next_pid, next_prio;
} __attribute__((packed));

SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	BEGIN(LT_KBPF_SCHED_SWITCH, struct sw_fields, next);
	copy_comm(r->f.prev_comm, prev);
	r->f.prev_pid = prev->pid;
	r->f.prev_prio = prev->prio;
	r->f.prev_state = switch_state(preempt, prev_state, prev);
	copy_comm(r->f.next_comm, next);
	r->f.next_pid = next->pid;
	r->f.next_prio = next->prio;
	END();
	return 0;
}

struct wake_fields {
	char comm[16];
	int pid, prio, target_cpu;
} __attribute__((packed));

static __always_inline int wake(__u32 slot, struct task_struct *p)
{
	BEGIN(slot, struct wake_fields, p);
	copy_comm(r->f.comm, p);
	r->f.pid = p->pid;
	r->f.prio = p->prio;
	r->f.target_cpu = (int)task_cpu(p);
	END();
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(sched_waking, struct task_struct *p)
{
	return wake(LT_KBPF_SCHED_WAKING, p);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(sched_wakeup, struct task_struct *p)
{
	return wake(LT_KBPF_SCHED_WAKEUP, p);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(sched_wakeup_new, struct task_struct *p)
{
	return wake(LT_KBPF_SCHED_WAKEUP_NEW, p);
}

/* up to 16 bytes of string (its NUL included) at dst; its length */
static __always_inline __u32 put_comm(char *dst, struct task_struct *p)
{
	char c[16];
	BPF_CORE_READ_INTO(&c, p, comm);
	long n = bpf_probe_read_kernel_str(dst, 16, c);
	return n > 0 ? (__u32)n : 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_process_fork, struct task_struct *parent,
	     struct task_struct *child)
{
	__u32 ptgid = (__u32)parent->tgid;
	__u32 ctgid = (__u32)child->tgid;
	void *ring = cpu_ring();
	if (!ring)
		return 0;
	/* the filter follows a kept process's new processes */
	if (filter && ctgid != ptgid && kept_tgid(ptgid) && !kept_tgid(ctgid)) {
		__u8 one = 1;
		bpf_map_update_elem(&keep, &ctgid, &one, BPF_ANY);
		struct lt_kbpf_rec *f =
			reserve(ring, LT_KBPF_FOLLOW, sizeof(*f) + 4);
		if (f) {
			*(__u32 *)(f + 1) = ctgid;
			bpf_ringbuf_submit(f, BPF_RB_NO_WAKEUP);
		}
	}
	__u32 ev = ev_of[LT_KBPF_SCHED_PROCESS_FORK];
	if (ev == LT_KBPF_NONE || !kept(NULL))
		return 0;
	/* parent_comm, parent_pid, child_comm, child_pid: strings of up
	 * to 16 bytes each, so at most 48 */
	struct lt_kbpf_rec *r = rec_reserve(ring, LT_KBPF_SCHED_PROCESS_FORK,
					    ev, sizeof(*r) + 8 + 48);
	if (!r)
		return 0;
	char *p = put_ids((char *)(r + 1));
	__u32 n = put_comm(p, parent) & 31;
	p += n;
	*(__u32 *)p = (__u32)parent->pid;
	p += 4;
	__u32 m = put_comm(p, child) & 31;
	p += m;
	*(__u32 *)p = (__u32)child->pid;
	r->len = 8 + n + 4 + m + 4;
	rec_submit(ring, r);
	return 0;
}

/* A process gone for good leaves the filter (its pid may come back as
 * another's). */
SEC("tp_btf/sched_process_free")
int BPF_PROG(sched_process_free, struct task_struct *p)
{
	__u32 pid = (__u32)p->pid;
	if (filter && pid == (__u32)p->tgid)
		bpf_map_delete_elem(&keep, &pid);
	return 0;
}

struct exit_fields {
	char comm[16];
	int pid, prio;
	__u8 group_dead;
} __attribute__((packed));

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_process_exit, struct task_struct *p, bool group_dead)
{
	BEGIN(LT_KBPF_SCHED_PROCESS_EXIT, struct exit_fields, NULL);
	copy_comm(r->f.comm, p);
	r->f.pid = p->pid;
	r->f.prio = p->prio;
	r->f.group_dead = group_dead;
	END();
	return 0;
}

#define PATH_MAX_ 4096

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_process_exec, struct task_struct *p, int old_pid,
	     struct linux_binprm *bprm)
{
	__u32 ev = ev_of[LT_KBPF_SCHED_PROCESS_EXEC];
	if (ev == LT_KBPF_NONE || !kept(NULL))
		return 0;
	RING_OR_RETURN();
	struct lt_kbpf_rec *r = rec_reserve(ring, LT_KBPF_SCHED_PROCESS_EXEC,
					    ev, sizeof(*r) + 8 + PATH_MAX_ + 8);
	if (!r)
		return 0;
	char *o = put_ids((char *)(r + 1));
	long n = bpf_probe_read_kernel_str(o, PATH_MAX_, bprm->filename);
	__u32 len = n > 0 ? (__u32)n & (PATH_MAX_ - 1) : 0;
	if (n >= PATH_MAX_)
		len = PATH_MAX_ - 1;
	o += len;
	*(__u32 *)o = (__u32)p->pid;
	*(__u32 *)(o + 4) = (__u32)old_pid;
	r->len = 8 + len + 8;
	rec_submit(ring, r);
	return 0;
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(sched_migrate_task, struct task_struct *p, int dest_cpu)
{
	__u32 ev = ev_of[LT_KBPF_SCHED_MIGRATE_TASK];
	if (ev == LT_KBPF_NONE || !kept(p))
		return 0;
	RING_OR_RETURN();
	struct lt_kbpf_rec *r = rec_reserve(ring, LT_KBPF_SCHED_MIGRATE_TASK,
					    ev, sizeof(*r) + 8 + 16 + 16);
	if (!r)
		return 0;
	char *o = put_ids((char *)(r + 1));
	__u32 n = put_comm(o, p) & 31;
	o += n;
	*(__u32 *)o = (__u32)p->pid;
	*(__u32 *)(o + 4) = (__u32)p->prio;
	*(__u32 *)(o + 8) = task_cpu(p);
	*(__u32 *)(o + 12) = (__u32)dest_cpu;
	r->len = 8 + n + 16;
	rec_submit(ring, r);
	return 0;
}

#define IRQ_NAME_MAX 128

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(irq_handler_entry, int irq, struct irqaction *action)
{
	__u32 ev = ev_of[LT_KBPF_IRQ_HANDLER_ENTRY];
	if (ev == LT_KBPF_NONE || !kept(NULL))
		return 0;
	RING_OR_RETURN();
	struct lt_kbpf_rec *r = rec_reserve(ring, LT_KBPF_IRQ_HANDLER_ENTRY, ev,
					    sizeof(*r) + 8 + 4 + IRQ_NAME_MAX);
	if (!r)
		return 0;
	char *o = put_ids((char *)(r + 1));
	*(__s32 *)o = irq;
	long n = bpf_probe_read_kernel_str(o + 4, IRQ_NAME_MAX, action->name);
	if (n <= 0) {
		o[4] = 0;
		n = 1;
	}
	r->len = 8 + 4 + ((__u32)n & (2 * IRQ_NAME_MAX - 1));
	rec_submit(ring, r);
	return 0;
}

struct irq_exit_fields {
	int irq, ret;
} __attribute__((packed));

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(irq_handler_exit, int irq, struct irqaction *action, int ret)
{
	BEGIN(LT_KBPF_IRQ_HANDLER_EXIT, struct irq_exit_fields, NULL);
	r->f.irq = irq;
	r->f.ret = ret;
	END();
	return 0;
}

static __always_inline int softirq(__u32 slot, unsigned int vec)
{
	BEGIN(slot, __u32, NULL);
	r->f = vec;
	END();
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(softirq_entry, unsigned int vec)
{
	return softirq(LT_KBPF_SOFTIRQ_ENTRY, vec);
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(softirq_exit, unsigned int vec)
{
	return softirq(LT_KBPF_SOFTIRQ_EXIT, vec);
}

SEC("tp_btf/softirq_raise")
int BPF_PROG(softirq_raise, unsigned int vec)
{
	return softirq(LT_KBPF_SOFTIRQ_RAISE, vec);
}

struct sys_enter_fields {
	long id;
	unsigned long args[6];
} __attribute__((packed));

/* The system call's arguments, where the architecture passes them
 * (syscall_get_arguments()). */
SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	BEGIN(LT_KBPF_SYS_ENTER, struct sys_enter_fields, NULL);
	r->f.id = id;
#if defined(__TARGET_ARCH_arm64)
	r->f.args[0] = regs->orig_x0;
	for (int i = 1; i < 6; i++)
		r->f.args[i] = BPF_CORE_READ(regs, regs[i]);
#else
	r->f.args[0] = regs->di;
	r->f.args[1] = regs->si;
	r->f.args[2] = regs->dx;
	r->f.args[3] = regs->r10;
	r->f.args[4] = regs->r8;
	r->f.args[5] = regs->r9;
#endif
	END();
	return 0;
}

struct sys_exit_fields {
	long id, ret;
} __attribute__((packed));

/* the call's number as syscall_get_nr() gives it */
SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	BEGIN(LT_KBPF_SYS_EXIT, struct sys_exit_fields, NULL);
#if defined(__TARGET_ARCH_arm64)
	r->f.id = (int)regs->syscallno;
#else
	r->f.id = (long)regs->orig_ax;
#endif
	r->f.ret = ret;
	END();
	return 0;
}

struct hrtimer_start_fields {
	void *hrtimer, *function;
	long long expires, softexpires;
	__u32 mode;
	__u8 was_armed;
} __attribute__((packed));

SEC("tp_btf/hrtimer_start")
int BPF_PROG(hrtimer_start, struct hrtimer *t, int mode, bool was_armed)
{
	BEGIN(LT_KBPF_HRTIMER_START, struct hrtimer_start_fields, NULL);
	r->f.hrtimer = t;
	r->f.function = t->function;
	r->f.expires = t->node.expires;
	r->f.softexpires = t->_softexpires;
	r->f.mode = (__u32)mode;
	r->f.was_armed = was_armed;
	END();
	return 0;
}

struct hrtimer_entry_fields {
	void *hrtimer;
	long long now;
	void *function;
} __attribute__((packed));

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(hrtimer_expire_entry, struct hrtimer *t, long long *now)
{
	BEGIN(LT_KBPF_HRTIMER_EXPIRE_ENTRY, struct hrtimer_entry_fields, NULL);
	long long v = 0;
	bpf_probe_read_kernel(&v, sizeof(v), now);
	r->f.hrtimer = t;
	r->f.now = v;
	r->f.function = t->function;
	END();
	return 0;
}

static __always_inline int one_pointer(__u32 slot, void *ptr)
{
	BEGIN(slot, void *, NULL);
	r->f = ptr;
	END();
	return 0;
}

SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(hrtimer_expire_exit, struct hrtimer *t)
{
	return one_pointer(LT_KBPF_HRTIMER_EXPIRE_EXIT, t);
}

SEC("tp_btf/hrtimer_cancel")
int BPF_PROG(hrtimer_cancel, struct hrtimer *t)
{
	return one_pointer(LT_KBPF_HRTIMER_CANCEL, t);
}

struct timer_start_fields {
	void *timer, *function;
	unsigned long expires, bucket_expiry, now;
	__u32 flags;
} __attribute__((packed));

SEC("tp_btf/timer_start")
int BPF_PROG(timer_start, struct timer_list *t, unsigned long bucket_expiry)
{
	BEGIN(LT_KBPF_TIMER_START, struct timer_start_fields, NULL);
	r->f.timer = t;
	r->f.function = t->function;
	r->f.expires = t->expires;
	r->f.bucket_expiry = bucket_expiry;
	r->f.now = (unsigned long)bpf_jiffies64();
	r->f.flags = t->flags;
	END();
	return 0;
}

struct timer_entry_fields {
	void *timer;
	unsigned long now;
	void *function;
	unsigned long baseclk;
} __attribute__((packed));

SEC("tp_btf/timer_expire_entry")
int BPF_PROG(timer_expire_entry, struct timer_list *t, unsigned long baseclk)
{
	BEGIN(LT_KBPF_TIMER_EXPIRE_ENTRY, struct timer_entry_fields, NULL);
	r->f.timer = t;
	r->f.now = (unsigned long)bpf_jiffies64();
	r->f.function = t->function;
	r->f.baseclk = baseclk;
	END();
	return 0;
}

SEC("tp_btf/timer_expire_exit")
int BPF_PROG(timer_expire_exit, struct timer_list *t)
{
	return one_pointer(LT_KBPF_TIMER_EXPIRE_EXIT, t);
}

/*
 * Any other tracepoint: its raw record (the layout of its format file),
 * which the consumer re-encodes.  ctx is that record, but for its first
 * 8 bytes, the common fields, where the kernel has put a pointer (they
 * are not encoded).  The attach cookie is the event's index.  Returns 0:
 * perf writes no sample of its own.
 */
SEC("tracepoint")
int raw_tracepoint_record(void *ctx)
{
	__u32 ev = (__u32)bpf_get_attach_cookie(ctx);
	__u32 *sz = bpf_map_lookup_elem(&raw_size, &ev);
	if (!sz || !kept(NULL))
		return 0;
	void *ring = cpu_ring();
	__u32 z = 0;
	char *buf = bpf_map_lookup_elem(&scratch, &z);
	if (!ring || !buf)
		return 0;
	__u32 size = *sz;
	if (size > LT_KBPF_RAW_MAX)
		size = LT_KBPF_RAW_MAX;
	if (size == 0)
		return 0;
	struct lt_kbpf_rec *h = (void *)buf;
	h->ns = bpf_ktime_get_ns();
	h->ev = ev | LT_KBPF_RAW;
	h->len = 8 + size;
	put_ids(buf + sizeof(*h));
	if (bpf_probe_read_kernel(buf + sizeof(*h) + 8, size, ctx))
		return 0;
	if (bpf_ringbuf_output(ring, buf, sizeof(*h) + 8 + size,
			       wake_flags(ring)))
		count_lost();
	return 0;
}
