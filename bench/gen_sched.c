/* SPDX-License-Identifier: MIT */
/*
 * gen_sched.c - writes a synthetic kernel scheduling trace, fast, in the
 * shape `lowtrace record -k sched,irq --all` gives: one stream class (id
 * 0, "kernel") with the sched and irq presets' 13 events in their order
 * and with their fields (common_tid, common_tgid, then the tracepoint's
 * own, as src/tool/kernel/encode.c re-encodes them), one file kernel_CPU per CPU
 * in packets of 256 KiB cut to their content, the metadata written by the
 * recorder's own writer (src/runtime/format/metadata.c).
 *
 * usage: gen_sched DIR NEVENTS [--cpus N] [--threads N] [--seed S]
 *                  [--packet BYTES]
 *
 * The CPUs (default 2) are simulated in time order, always the one whose
 * next event is earliest, so that what one CPU does to a thread is in the
 * past of every other CPU's later events.  The events are coherent: a
 * CPU's sched_switch has prev = the thread it runs; a thread blocks in a
 * switch (prev_state S or D), is woken later by a running thread or from
 * an interrupt on an idle CPU (sched_waking, sched_migrate_task when it
 * changes CPU, sched_wakeup, target_cpu its run queue), and a later switch
 * on that CPU runs it; a preempted thread (prev_state R) queues again.
 * irq_handler_entry/exit and softirq_raise/entry/exit come in pairs on
 * their CPU, irqs not nested, a softirq after the irq that raised it.
 * The threads (default 300) form processes of 1 to 8 threads with shared
 * names; each event's common_tid is its CPU's running thread (0 when
 * idle).  Timestamps are counts of a 2.6 GHz clock; idle CPUs now and
 * then stay quiet longer than the compact header's 27 bits, so a few
 * events take the extended header, as in a real trace.
 *
 * bench/model.sh uses it for the model pass's speed; about 42 bytes an
 * event, 50 M events in about 2 GiB, written in about 8 s here (2-vCPU
 * VM), which the model pass then reads at 20-24 M events/s in 20 MiB of
 * memory (docs/analysis.md, Speed).  tests/test_gen_sched.sh checks that
 * the traces are coherent as said above.
 */
#define _GNU_SOURCE
#include "format/metadata.h"
#include "format/event_header.h"
#include "format/packet_header.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GEN_PID 4242u /* the recorder's, in the packet headers */
#define GEN_MAX_CPUS 64
#define GEN_MAX_EVENT 128 /* bytes: extended header and the widest payload */
#define GEN_FREQ 2596134183ull

static const uint8_t gen_uuid[16] = { 0x5e, 0xd1, 0x3a, 0x07, 0x42, 0x9c,
				      0x4b, 0x11, 0x8e, 0x2f, 0x63, 0xa0,
				      0x19, 0xc4, 0x7d, 0x55 };

enum {
	EV_SWITCH = 0,
	EV_WAKEUP = 1,
	EV_WAKEUP_NEW = 2,
	EV_WAKING = 3,
	EV_FORK = 4,
	EV_EXIT = 5,
	EV_EXEC = 6,
	EV_MIGRATE = 7,
	EV_IRQ_ENTRY = 8,
	EV_IRQ_EXIT = 9,
	EV_SOFTIRQ_ENTRY = 10,
	EV_SOFTIRQ_EXIT = 11,
	EV_SOFTIRQ_RAISE = 12,
	EV_N,
};

/* The fields, as encode.c describes the tracepoints of this kernel. */
#define F_INT(n)                                \
	{                                       \
		n, LT_FT_INT, 4, 1, 10, 0, NULL \
	}
#define F_UINT(n)                               \
	{                                       \
		n, LT_FT_INT, 4, 0, 10, 0, NULL \
	}
#define F_COMM(n)                                  \
	{                                          \
		n, LT_FT_CHARS, 1, 1, 10, 16, NULL \
	}
#define F_STR(n)                                   \
	{                                          \
		n, LT_FT_STRING, 1, 0, 10, 0, NULL \
	}
#define F_COMMON F_INT("common_tid"), F_INT("common_tgid")

static const struct lt_field_desc f_switch[] = {
	F_COMMON,
	F_COMM("prev_comm"),
	F_INT("prev_pid"),
	F_INT("prev_prio"),
	{ "prev_state", LT_FT_INT, 8, 1, 10, 0, NULL },
	F_COMM("next_comm"),
	F_INT("next_pid"),
	F_INT("next_prio"),
};
static const struct lt_field_desc f_wakeup[] = {
	F_COMMON,      F_COMM("comm"),	    F_INT("pid"),
	F_INT("prio"), F_INT("target_cpu"),
};
static const struct lt_field_desc f_fork[] = {
	F_COMMON,
	F_STR("parent_comm"),
	F_INT("parent_pid"),
	F_STR("child_comm"),
	F_INT("child_pid"),
};
static const struct lt_field_desc f_exit[] = {
	F_COMMON,
	F_COMM("comm"),
	F_INT("pid"),
	F_INT("prio"),
	{ "group_dead", LT_FT_INT, 1, 0, 10, 0, NULL },
};
static const struct lt_field_desc f_exec[] = {
	F_COMMON,
	F_STR("filename"),
	F_INT("pid"),
	F_INT("old_pid"),
};
static const struct lt_field_desc f_migrate[] = {
	F_COMMON,      F_STR("comm"),	  F_INT("pid"),
	F_INT("prio"), F_INT("orig_cpu"), F_INT("dest_cpu"),
};
static const struct lt_field_desc f_irq_entry[] = {
	F_COMMON,
	F_INT("irq"),
	F_STR("name"),
};
static const struct lt_field_desc f_irq_exit[] = {
	F_COMMON,
	F_INT("irq"),
	F_INT("ret"),
};
static const struct lt_field_desc f_softirq[] = {
	F_COMMON,
	F_UINT("vec"),
};

#define NF(a) (uint32_t)(sizeof(a) / sizeof(a[0]))
static const struct lt_ctf_event events[EV_N] = {
	{ EV_SWITCH, "sched:sched_switch", 6, f_switch, NF(f_switch), NULL },
	{ EV_WAKEUP, "sched:sched_wakeup", 6, f_wakeup, NF(f_wakeup), NULL },
	{ EV_WAKEUP_NEW, "sched:sched_wakeup_new", 6, f_wakeup, NF(f_wakeup),
	  NULL },
	{ EV_WAKING, "sched:sched_waking", 6, f_wakeup, NF(f_wakeup), NULL },
	{ EV_FORK, "sched:sched_process_fork", 6, f_fork, NF(f_fork), NULL },
	{ EV_EXIT, "sched:sched_process_exit", 6, f_exit, NF(f_exit), NULL },
	{ EV_EXEC, "sched:sched_process_exec", 6, f_exec, NF(f_exec), NULL },
	{ EV_MIGRATE, "sched:sched_migrate_task", 6, f_migrate, NF(f_migrate),
	  NULL },
	{ EV_IRQ_ENTRY, "irq:irq_handler_entry", 6, f_irq_entry,
	  NF(f_irq_entry), NULL },
	{ EV_IRQ_EXIT, "irq:irq_handler_exit", 6, f_irq_exit, NF(f_irq_exit),
	  NULL },
	{ EV_SOFTIRQ_ENTRY, "irq:softirq_entry", 6, f_softirq, NF(f_softirq),
	  NULL },
	{ EV_SOFTIRQ_EXIT, "irq:softirq_exit", 6, f_softirq, NF(f_softirq),
	  NULL },
	{ EV_SOFTIRQ_RAISE, "irq:softirq_raise", 6, f_softirq, NF(f_softirq),
	  NULL },
};

static const char *const proc_names[] = {
	"postgres",
	"nginx",
	"Web Content",
	"gnome-shell",
	"pipewire",
	"Xorg",
	"python3",
	"java",
	"cc1",
	"make",
	"sshd",
	"bash",
	"tokio-rt-worker",
	"systemd-journal",
	"containerd",
	"kworker/u4:2",
	"rcu_preempt",
	"ksoftirqd/0",
	"jbd2/vda1-8",
	"chrome",
};

/* The interrupts of a small virtual machine. */
static const struct {
	int32_t irq;
	const char *name;
} irqs[] = {
	{ 24, "virtio0-config" },     { 25, "virtio0-input.0" },
	{ 26, "virtio0-output.0" },   { 27, "virtio2-req.0" },
	{ 11, "ahci[0000:00:1f.2]" }, { 1, "i8042" },
};

/* softirq vectors: TIMER, NET_RX, BLOCK, TASKLET, SCHED, RCU */
static const uint32_t soft_vecs[] = { 1, 3, 4, 6, 7, 9 };

enum { T_BLOCKED, T_RUNNABLE, T_RUNNING };

struct thread {
	int32_t tid, tgid, prio;
	char comm[16];
	uint8_t state;
	int32_t cpu; /* the last it ran or was queued on */
	uint32_t bidx; /* in the blocked list while blocked */
};

/* What a CPU does next beside running its thread. */
enum {
	C_NORMAL,
	C_IRQ, /* inside a hardirq handler */
	C_SOFT_ENTRY, /* a softirq raised, to be entered */
	C_SOFT, /* inside a softirq */
	C_WAKE_MIGRATE, /* after sched_waking: the migration, if any */
	C_WAKE_UP, /* then sched_wakeup */
};

struct cpu {
	unsigned id;
	int32_t cur; /* thread index, -1: idle */
	uint8_t mode, after_wake; /* the mode to go back to after a wake */
	int32_t irq; /* irqs[] index inside C_IRQ */
	uint32_t vec, raised;
	int32_t waking; /* thread being woken */
	int32_t wake_to;
	uint64_t now; /* its next event's time, counts */
	uint32_t *rq; /* FIFO run queue of thread indices */
	uint32_t rq_head, rq_len, rq_cap;
	/* the stream */
	FILE *f;
	unsigned char *buf;
	size_t used;
	int open;
	uint64_t seq, first_ts, prev_ts;
};

static uint64_t rng_state;
static struct thread *th;
static uint32_t nth;
static uint32_t *blocked; /* thread indices */
static uint32_t nblocked;
static struct cpu cpus[GEN_MAX_CPUS];
static unsigned ncpus;
static size_t packet_size = 256 * 1024;
static uint64_t nwritten, nextended;

static inline uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

/* counts for about ns nanoseconds */
static inline uint64_t counts(uint64_t ns)
{
	return ns * 2596 / 1000 + 1;
}

static void block_add(uint32_t t)
{
	th[t].state = T_BLOCKED;
	th[t].bidx = nblocked;
	blocked[nblocked++] = t;
}

static void block_del(uint32_t t)
{
	uint32_t i = th[t].bidx, last = blocked[--nblocked];
	blocked[i] = last;
	th[last].bidx = i;
}

static void rq_push(struct cpu *c, uint32_t t)
{
	c->rq[(c->rq_head + c->rq_len++) % c->rq_cap] = t;
	th[t].state = T_RUNNABLE;
	th[t].cpu = (int32_t)c->id;
}

static uint32_t rq_pop(struct cpu *c)
{
	uint32_t t = c->rq[c->rq_head];
	c->rq_head = (c->rq_head + 1) % c->rq_cap;
	c->rq_len--;
	return t;
}

static void flush_packet(struct cpu *c)
{
	struct lt_packet_header h;

	if (!c->open)
		return;
	memset(&h, 0, sizeof(h));
	h.magic = LT_PACKET_MAGIC;
	memcpy(h.uuid, gen_uuid, 16);
	h.stream_id = 0;
	h.stream_instance_id = (uint64_t)GEN_PID << 32 | c->id;
	h.timestamp_begin = c->first_ts;
	h.timestamp_end = c->prev_ts;
	h.content_size = (uint64_t)c->used * 8;
	h.packet_size = h.content_size;
	h.packet_seq_num = c->seq++;
	h.cpu_id = c->id;
	h.pid = GEN_PID;
	memcpy(c->buf, &h, sizeof(h));
	if (fwrite(c->buf, 1, c->used, c->f) != c->used) {
		perror("gen_sched: write");
		exit(1);
	}
	c->open = 0;
}

/* Starts an event of id at c->now: its header; returns where the payload
 * goes. */
static unsigned char *begin_event(struct cpu *c, uint32_t id)
{
	uint64_t ts = c->now;
	if (c->open && c->used + GEN_MAX_EVENT > packet_size)
		flush_packet(c);
	if (!c->open) {
		c->open = 1;
		c->used = LT_PACKET_HDR_SIZE;
		c->first_ts = ts;
		c->prev_ts = ts;
	}
	size_t off = (c->used + LT_EV_ALIGN - 1) & ~(size_t)(LT_EV_ALIGN - 1);
	memset(c->buf + c->used, 0, off - c->used);
	uint32_t hsz = ts - c->prev_ts < (1ull << LT_EV_TS_BITS) ?
			       LT_EV_HDR_COMPACT :
			       LT_EV_HDR_EXTENDED;
	lt_ev_header_put(c->buf + off, hsz, id, ts);
	off += hsz;
	nextended += hsz == LT_EV_HDR_EXTENDED;
	c->prev_ts = ts;
	c->used = off;
	nwritten++;
	return c->buf + off;
}

static inline unsigned char *put32(unsigned char *p, int32_t v)
{
	memcpy(p, &v, 4);
	return p + 4;
}

static unsigned char *put_common(struct cpu *c, unsigned char *p)
{
	const struct thread *t = c->cur >= 0 ? &th[c->cur] : NULL;
	p = put32(p, t ? t->tid : 0);
	return put32(p, t ? t->tgid : 0);
}

static void end_event(struct cpu *c, unsigned char *p)
{
	c->used = (size_t)(p - c->buf);
}

static unsigned char *put_comm(unsigned char *p, const struct cpu *c, int32_t t)
{
	if (t >= 0) {
		memcpy(p, th[t].comm, 16);
	} else {
		memset(p, 0, 16);
		snprintf((char *)p, 16, "swapper/%u", c->id);
	}
	return p + 16;
}

static void ev_switch(struct cpu *c, int64_t prev_state, int32_t next)
{
	unsigned char *p = put_common(c, begin_event(c, EV_SWITCH));
	int32_t prev = c->cur;
	p = put_comm(p, c, prev);
	p = put32(p, prev >= 0 ? th[prev].tid : 0);
	p = put32(p, prev >= 0 ? th[prev].prio : 120);
	memcpy(p, &prev_state, 8);
	p += 8;
	p = put_comm(p, c, next);
	p = put32(p, next >= 0 ? th[next].tid : 0);
	p = put32(p, next >= 0 ? th[next].prio : 120);
	end_event(c, p);
	c->cur = next;
}

static void ev_wake(struct cpu *c, uint32_t id, uint32_t t, int32_t target)
{
	unsigned char *p = put_common(c, begin_event(c, id));
	memcpy(p, th[t].comm, 16);
	p = put32(p + 16, th[t].tid);
	p = put32(p, th[t].prio);
	p = put32(p, target);
	end_event(c, p);
}

static void ev_migrate(struct cpu *c, uint32_t t, int32_t from, int32_t to)
{
	unsigned char *p = put_common(c, begin_event(c, EV_MIGRATE));
	size_t n = strnlen(th[t].comm, 15);
	memcpy(p, th[t].comm, n);
	p[n] = 0;
	p = put32(p + n + 1, th[t].tid);
	p = put32(p, th[t].prio);
	p = put32(p, from);
	p = put32(p, to);
	end_event(c, p);
}

static void ev_irq(struct cpu *c, uint32_t id, int32_t i)
{
	unsigned char *p = put_common(c, begin_event(c, id));
	p = put32(p, irqs[i].irq);
	if (id == EV_IRQ_ENTRY) {
		size_t n = strlen(irqs[i].name) + 1;
		memcpy(p, irqs[i].name, n);
		p += n;
	} else {
		p = put32(p, 1); /* IRQ_HANDLED */
	}
	end_event(c, p);
}

static void ev_soft(struct cpu *c, uint32_t id, uint32_t vec)
{
	unsigned char *p = put_common(c, begin_event(c, id));
	memcpy(p, &vec, 4);
	end_event(c, p + 4);
}

/* Starts waking a blocked thread from c (sched_waking). */
static void start_wake(struct cpu *c, uint64_t r)
{
	uint32_t t = blocked[(r >> 8) % nblocked];
	int32_t to = th[t].cpu;
	if (((r >> 40) & 7) == 0 || to < 0)
		to = (int32_t)((r >> 44) % ncpus);
	/* an idle CPU, if there is one, as the kernel's wake-up prefers */
	for (unsigned i = 0; i < ncpus && cpus[to].cur >= 0; i++)
		if (cpus[i].cur < 0 && cpus[i].rq_len == 0)
			to = (int32_t)i;
	block_del(t);
	th[t].state = T_RUNNABLE; /* not yet queued: no other wake picks it */
	c->waking = (int32_t)t;
	c->wake_to = to;
	c->after_wake = c->mode;
	c->mode =
		to != th[t].cpu && th[t].cpu >= 0 ? C_WAKE_MIGRATE : C_WAKE_UP;
	ev_wake(c, EV_WAKING, t, to);
}

static void finish_wake(struct cpu *c)
{
	uint32_t t = (uint32_t)c->waking;
	struct cpu *d = &cpus[c->wake_to];
	ev_wake(c, EV_WAKEUP, t, c->wake_to);
	rq_push(d, t);
	/* an idle CPU gets the reschedule IPI and switches soon */
	uint64_t soon = c->now + counts(2000 + (rnd() & 8191));
	if (d->cur < 0 && d->now > soon)
		d->now = soon;
	c->mode = c->after_wake;
}

/* The next event of CPU c at c->now; then the time of the one after. */
static void step(struct cpu *c)
{
	uint64_t r = rnd();
	unsigned k = (unsigned)(r & 1023);
	uint64_t gap = counts(300 + ((r >> 12) & 4095)); /* 0.3 .. 4.4 us */

	switch (c->mode) {
	case C_IRQ:
		if (!c->raised && (k & 1)) {
			c->raised = 1;
			c->vec = soft_vecs[(r >> 20) % 6];
			ev_soft(c, EV_SOFTIRQ_RAISE, c->vec);
		} else {
			ev_irq(c, EV_IRQ_EXIT, c->irq);
			c->mode = c->raised ? C_SOFT_ENTRY : C_NORMAL;
		}
		break;
	case C_SOFT_ENTRY:
		ev_soft(c, EV_SOFTIRQ_ENTRY, c->vec);
		c->mode = C_SOFT;
		break;
	case C_SOFT:
		/* timers and RCU wake threads; idle CPUs' wakes come here */
		if (nblocked && k < (c->cur < 0 ? 500u : 300u)) {
			start_wake(c, r);
			break;
		}
		ev_soft(c, EV_SOFTIRQ_EXIT, c->vec);
		c->raised = 0;
		c->mode = C_NORMAL;
		break;
	case C_WAKE_MIGRATE:
		ev_migrate(c, (uint32_t)c->waking, th[c->waking].cpu,
			   c->wake_to);
		c->mode = C_WAKE_UP;
		break;
	case C_WAKE_UP:
		finish_wake(c);
		break;
	default:
		if (c->cur < 0) {
			if (c->rq_len) {
				ev_switch(c, 0, (int32_t)rq_pop(c));
				th[c->cur].state = T_RUNNING;
				break;
			}
			/* idle: an interrupt after a while, now and then
			 * after longer than the compact header's range */
			c->irq = (int32_t)((r >> 24) % 6);
			if (k < 600) {
				ev_irq(c, EV_IRQ_ENTRY, c->irq);
				c->mode = C_IRQ;
			} else {
				c->vec = soft_vecs[(r >> 20) % 6];
				c->raised = 1;
				ev_soft(c, EV_SOFTIRQ_RAISE, c->vec);
				c->mode = C_SOFT_ENTRY;
			}
			gap = ((r >> 34) & 255) == 0 ?
				      counts(60000000 + ((r >> 42) & 0xfffff)) :
				      counts(5000 + ((r >> 42) & 0x3ffff));
			break;
		}
		if (k < 40) {
			c->irq = (int32_t)((r >> 24) % 6);
			ev_irq(c, EV_IRQ_ENTRY, c->irq);
			c->mode = C_IRQ;
		} else if (k < 70) {
			c->vec = soft_vecs[(r >> 20) % 6];
			c->raised = 1;
			ev_soft(c, EV_SOFTIRQ_RAISE, c->vec);
			c->mode = C_SOFT_ENTRY;
		} else if (k < 420 && nblocked) {
			start_wake(c, r);
		} else {
			/* preempted while others wait, else it blocks */
			uint32_t prev = (uint32_t)c->cur;
			int preempt = c->rq_len && ((r >> 50) & 3) == 0;
			int64_t pst = preempt ? 0 : (((r >> 52) & 7) ? 1 : 2);
			int32_t next = c->rq_len ? (int32_t)rq_pop(c) : -1;
			ev_switch(c, pst, next);
			if (preempt)
				rq_push(c, prev);
			else
				block_add(prev);
			if (next >= 0)
				th[next].state = T_RUNNING;
			gap += counts((r >> 54) * 40); /* up to 40 us of work */
		}
		break;
	}
	c->now += gap;
}

static int usage(void)
{
	fprintf(stderr, "usage: gen_sched DIR NEVENTS [--cpus N] "
			"[--threads N] [--seed S] [--packet BYTES]\n");
	return 2;
}

static int write_metadata(const char *dir)
{
	struct lt_ctf_stream s = { 0, "kernel", events, EV_N, 0, 0 };
	struct lt_ctf_trace t = {
		.hostname = "vm",
		.procname = "none",
		.pid = 0,
		.clock = { .source = LT_CLOCK_TSC,
			   .freq = GEN_FREQ,
			   .base_cyc = 0,
			   .base_ns = 0,
			   .realtime_off_ns = 1764740000000000000ll },
		.clock_source = "tsc",
		.streams = &s,
		.nstreams = 1,
	};
	memcpy(t.uuid, gen_uuid, 16);
	int r = lt_ctf_metadata_write(dir, &t);
	if (r)
		fprintf(stderr, "gen_sched: %s/metadata: %s\n", dir,
			strerror(-r));
	return r;
}

static void setup_threads(uint64_t seed)
{
	rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
	blocked = calloc(nth, sizeof(*blocked));
	th = calloc(nth, sizeof(*th));
	if (!blocked || !th) {
		fputs("gen_sched: out of memory\n", stderr);
		exit(1);
	}
	uint32_t i = 0, proc = 0;
	while (i < nth) {
		uint64_t r = rnd();
		uint32_t n = 1 + (uint32_t)(r % 8), first = i;
		const char *name = proc_names[proc++ % NF(proc_names)];
		for (; n-- && i < nth; i++) {
			th[i].tid = 1000 + (int32_t)(i * 3 + (r >> 8) % 3);
			th[i].tgid = th[first].tid;
			th[i].prio = ((r >> 16) & 7) == 0 ? 100 : 120;
			th[i].cpu = -1;
			snprintf(th[i].comm, 16, "%s", name);
		}
	}
	/* one running thread per CPU, some queued, the rest blocked */
	for (i = 0; i < nth; i++) {
		if (i < ncpus) {
			cpus[i].cur = (int32_t)i;
			th[i].state = T_RUNNING;
			th[i].cpu = (int32_t)i;
		} else if (i < 3 * ncpus) {
			rq_push(&cpus[i % ncpus], i);
		} else {
			block_add(i);
		}
	}
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	char path[4096];

	ncpus = 2;
	nth = 300;
	if (argc < 3)
		return usage();
	const char *dir = argv[1];
	char *end;
	uint64_t nev = strtoull(argv[2], &end, 0);
	if (*end || !nev)
		return usage();
	for (int i = 3; i < argc; i++) {
		const char *a = argv[i];
		if (i + 1 >= argc)
			return usage();
		unsigned long long v = strtoull(argv[++i], &end, 0);
		if (*end)
			return usage();
		if (strcmp(a, "--cpus") == 0)
			ncpus = (unsigned)v;
		else if (strcmp(a, "--threads") == 0)
			nth = (uint32_t)v;
		else if (strcmp(a, "--seed") == 0)
			seed = v;
		else if (strcmp(a, "--packet") == 0)
			packet_size = (size_t)v;
		else
			return usage();
	}
	if (ncpus < 1 || ncpus > GEN_MAX_CPUS || nth < 4 * ncpus ||
	    nth > 1000000 || packet_size < 4096 || packet_size > (1u << 30))
		return usage();
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		perror(dir);
		return 1;
	}
	if (write_metadata(dir))
		return 1;
	for (unsigned i = 0; i < ncpus; i++) {
		struct cpu *c = &cpus[i];
		c->id = i;
		c->cur = -1;
		c->rq_cap = nth;
		c->rq = calloc(nth, sizeof(*c->rq));
		c->buf = malloc(packet_size);
		snprintf(path, sizeof(path), "%s/kernel_%u", dir, i);
		c->f = fopen(path, "wb");
		if (!c->rq || !c->buf || !c->f) {
			perror(path);
			return 1;
		}
		c->now = 1000000000ull + i * 977;
	}
	setup_threads(seed);
	while (nwritten < nev) {
		struct cpu *c = &cpus[0];
		for (unsigned i = 1; i < ncpus; i++)
			if (cpus[i].now < c->now)
				c = &cpus[i];
		step(c);
	}
	for (unsigned i = 0; i < ncpus; i++) {
		flush_packet(&cpus[i]);
		if (fclose(cpus[i].f) != 0) {
			perror("gen_sched: close");
			return 1;
		}
		free(cpus[i].buf);
		free(cpus[i].rq);
	}
	fprintf(stderr, "gen_sched: %llu events (%llu extended headers)\n",
		(unsigned long long)nwritten, (unsigned long long)nextended);
	free(th);
	free(blocked);
	return 0;
}
