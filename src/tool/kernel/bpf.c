/* SPDX-License-Identifier: MIT */
/*
 * bpf.c - the kernel channel's eBPF backend (bpf.h): loads the programs of
 * bpf/kernel.bpf.c through their skeleton (libbpf, CO-RE against the
 * running kernel's BTF), gives each CPU its own BPF ring buffer (an array
 * of maps indexed by CPU: no lock shared between CPUs), attaches a typed
 * tp_btf program to each event that has one and the generic tracepoint
 * program to the others, and reads the rings.  When the programs write
 * packets (bpf.h), each CPU also has its sub-buffers (bpf/subbuf.h), and
 * its BPF ring buffer only carries the followed forks and the doorbell.
 *
 * Nothing is pinned: every program, link and map is held by a descriptor
 * of this process, so all of it goes when the process ends, however it
 * ends.
 */
#include "kernel/bpf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifndef LT_BPF
#define LT_BPF 0
#endif

#if !LT_BPF

int lt_kbpf_usable(char *why, size_t whylen)
{
	snprintf(why, whylen,
		 "this lowtrace was built without the eBPF backend (LT_BPF=0)");
	return 0;
}

int lt_kbpf_open(const struct lt_kbpf_config *cfg, struct lt_kbpf **out,
		 char *err, size_t errlen)
{
	(void)cfg;
	(void)out;
	lt_kbpf_usable(err, errlen);
	return -ENOSYS;
}

int lt_kbpf_add_pid(struct lt_kbpf *b, pid_t pid)
{
	(void)b;
	(void)pid;
	return -ENOSYS;
}

int lt_kbpf_wait(struct lt_kbpf *b, int timeout_ms)
{
	(void)b;
	(void)timeout_ms;
	return -ENOSYS;
}

int lt_kbpf_drain(struct lt_kbpf *b, lt_kbpf_rec_fn fn, lt_kbpf_packet_fn pfn,
		  void *arg, int final)
{
	(void)b;
	(void)fn;
	(void)pfn;
	(void)arg;
	(void) final;
	return -ENOSYS;
}

int lt_kbpf_packets(const struct lt_kbpf *b)
{
	(void)b;
	return 0;
}

uint64_t lt_kbpf_open_bytes(const struct lt_kbpf *b, size_t cpu_index,
			    uint64_t *seq)
{
	(void)b;
	(void)cpu_index;
	(void)seq;
	return 0;
}

int lt_kbpf_close_packet(struct lt_kbpf *b, size_t cpu_index)
{
	(void)b;
	(void)cpu_index;
	return 0;
}

uint64_t lt_kbpf_lost(struct lt_kbpf *b, size_t cpu_index)
{
	(void)b;
	(void)cpu_index;
	return 0;
}

void lt_kbpf_stop(struct lt_kbpf *b)
{
	(void)b;
}

void lt_kbpf_close(struct lt_kbpf *b)
{
	(void)b;
}

#else

#include <linux/perf_event.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <time.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/bpf/records.h"
#include "kernel/bpf/subbuf.h"
#include "kernel.skel.h"

/*
 * The typed programs and the layout each writes, to be checked against
 * the event's format file: per field, NAME:iN (an integer of N bytes),
 * NAME:cN (char[N]), NAME:s (a string), NAME:aNxM (N integers of M).
 */
struct typed {
	const char *group, *name;
	const char *layout;
};

static const struct typed typed[LT_KBPF_NSLOTS] = {
	[LT_KBPF_SCHED_SWITCH] = { "sched", "sched_switch",
				   "prev_comm:c16 prev_pid:i4 prev_prio:i4 "
				   "prev_state:i8 next_comm:c16 next_pid:i4 "
				   "next_prio:i4" },
	[LT_KBPF_SCHED_WAKING] = { "sched", "sched_waking",
				   "comm:c16 pid:i4 prio:i4 target_cpu:i4" },
	[LT_KBPF_SCHED_WAKEUP] = { "sched", "sched_wakeup",
				   "comm:c16 pid:i4 prio:i4 target_cpu:i4" },
	[LT_KBPF_SCHED_WAKEUP_NEW] = { "sched", "sched_wakeup_new",
				       "comm:c16 pid:i4 prio:i4 "
				       "target_cpu:i4" },
	[LT_KBPF_SCHED_PROCESS_FORK] = { "sched", "sched_process_fork",
					 "parent_comm:s parent_pid:i4 "
					 "child_comm:s child_pid:i4" },
	[LT_KBPF_SCHED_PROCESS_EXIT] = { "sched", "sched_process_exit",
					 "comm:c16 pid:i4 prio:i4 "
					 "group_dead:i1" },
	[LT_KBPF_SCHED_PROCESS_EXEC] = { "sched", "sched_process_exec",
					 "filename:s pid:i4 old_pid:i4" },
	[LT_KBPF_SCHED_MIGRATE_TASK] = { "sched", "sched_migrate_task",
					 "comm:s pid:i4 prio:i4 orig_cpu:i4 "
					 "dest_cpu:i4" },
	[LT_KBPF_IRQ_HANDLER_ENTRY] = { "irq", "irq_handler_entry",
					"irq:i4 name:s" },
	[LT_KBPF_IRQ_HANDLER_EXIT] = { "irq", "irq_handler_exit",
				       "irq:i4 ret:i4" },
	[LT_KBPF_SOFTIRQ_ENTRY] = { "irq", "softirq_entry", "vec:i4" },
	[LT_KBPF_SOFTIRQ_EXIT] = { "irq", "softirq_exit", "vec:i4" },
	[LT_KBPF_SOFTIRQ_RAISE] = { "irq", "softirq_raise", "vec:i4" },
	[LT_KBPF_SYS_ENTER] = { "raw_syscalls", "sys_enter",
				"id:i8 args:a6x8" },
	[LT_KBPF_SYS_EXIT] = { "raw_syscalls", "sys_exit", "id:i8 ret:i8" },
	[LT_KBPF_HRTIMER_START] = { "timer", "hrtimer_start",
				    "hrtimer:i8 function:i8 expires:i8 "
				    "softexpires:i8 mode:i4 was_armed:i1" },
	[LT_KBPF_HRTIMER_EXPIRE_ENTRY] = { "timer", "hrtimer_expire_entry",
					   "hrtimer:i8 now:i8 function:i8" },
	[LT_KBPF_HRTIMER_EXPIRE_EXIT] = { "timer", "hrtimer_expire_exit",
					  "hrtimer:i8" },
	[LT_KBPF_HRTIMER_CANCEL] = { "timer", "hrtimer_cancel", "hrtimer:i8" },
	[LT_KBPF_TIMER_START] = { "timer", "timer_start",
				  "timer:i8 function:i8 expires:i8 "
				  "bucket_expiry:i8 now:i8 flags:i4" },
	[LT_KBPF_TIMER_EXPIRE_ENTRY] = { "timer", "timer_expire_entry",
					 "timer:i8 now:i8 function:i8 "
					 "baseclk:i8" },
	[LT_KBPF_TIMER_EXPIRE_EXIT] = { "timer", "timer_expire_exit",
					"timer:i8" },
};

struct kring {
	struct lt_kbpf *b;
	size_t idx;
	int cpu;
	int fd;
};

struct lt_kbpf {
	struct lt_kbpf_skel *skel;
	struct kring *rings;
	size_t nrings;
	struct ring_buffer *rb;
	/*
	 * The consumer's wait: the rings, edge-triggered.  A ring polls
	 * readable while it holds any record, so a level-triggered wait
	 * would return at once, for the consumer's own events; edges come
	 * only from the programs' forced wake-ups (a quarter full).
	 */
	int epfd;
	uint64_t lost_read_ms; /* when the lost counts were last read */
	struct bpf_link **links; /* the generic program's, one per event */
	size_t nlinks;
	int possible;
	uint64_t *lost_vals; /* scratch: one per possible CPU */
	lt_kbpf_rec_fn fn;
	void *arg;
	/* packets: the sub-buffers and their controls, mapped */
	int packets;
	struct lt_sb_ctl *ctl;
	size_t ctl_len;
	char *data;
	size_t data_len;
	uint64_t sub_size, nsub, stride; /* stride: an element's bytes */
};

/* libbpf's last warning, for the reason of a failure */
static char last_msg[256];

static int on_libbpf_msg(enum libbpf_print_level level, const char *fmt,
			 va_list ap)
{
	if (getenv("LOWTRACE_BPF_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_WARN) {
		vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
		last_msg[strcspn(last_msg, "\n")] = 0;
	}
	return 0;
}

/* The BTF the programs relocate against (LOWTRACE_BTF: another file, for
 * tests of a kernel without it). */
static const char *btf_path(void)
{
	const char *p = getenv("LOWTRACE_BTF");
	return p && *p ? p : "/sys/kernel/btf/vmlinux";
}

int lt_kbpf_usable(char *why, size_t whylen)
{
	if (access(btf_path(), R_OK) != 0) {
		snprintf(why, whylen,
			 "the kernel has no BTF (%s: %s; it needs "
			 "CONFIG_DEBUG_INFO_BTF)",
			 btf_path(), strerror(errno));
		return 0;
	}
	return 1;
}

/* 1 if the format's fields are laid out as layout says. */
static int layout_matches(const struct lt_kformat *f, const char *layout)
{
	uint32_t i = 0;
	const char *p = layout;
	while (*p) {
		char name[LT_KFIELD_NAME], kind;
		unsigned a = 0, m = 0;
		int used = 0;
		if (sscanf(p, " %63[^:]:%c%n", name, &kind, &used) < 2)
			return 0;
		p += used;
		if (kind != 's' && sscanf(p, "%u%n", &a, &used) == 1)
			p += used;
		if (kind == 'a' && sscanf(p, "x%u%n", &m, &used) == 1)
			p += used;
		if (i >= f->nfields)
			return 0;
		const struct lt_kfield *k = &f->fields[i++];
		if (strcmp(k->name, name) != 0)
			return 0;
		switch (kind) {
		case 'i':
			if (k->kind != LT_KF_INT || k->elem_size != a)
				return 0;
			break;
		case 'c':
			if (k->kind != LT_KF_CHARS || k->count != a)
				return 0;
			break;
		case 's':
			if (k->kind != LT_KF_STRING || k->rel_loc)
				return 0;
			break;
		case 'a':
			if (k->kind != LT_KF_ARRAY || k->count != a ||
			    k->elem_size != m)
				return 0;
			break;
		default:
			return 0;
		}
		while (*p == ' ')
			p++;
	}
	return i == f->nfields;
}

static int typed_slot(const struct lt_kformat *f)
{
	for (int s = 0; s < LT_KBPF_NSLOTS; s++)
		if (strcmp(f->name.group, typed[s].group) == 0 &&
		    strcmp(f->name.name, typed[s].name) == 0)
			return layout_matches(f, typed[s].layout) ? s : -1;
	return -1;
}

static struct bpf_program *slot_prog(struct lt_kbpf_skel *s, int slot)
{
	struct bpf_program *p[LT_KBPF_NSLOTS] = {
		[LT_KBPF_SCHED_SWITCH] = s->progs.sched_switch,
		[LT_KBPF_SCHED_WAKING] = s->progs.sched_waking,
		[LT_KBPF_SCHED_WAKEUP] = s->progs.sched_wakeup,
		[LT_KBPF_SCHED_WAKEUP_NEW] = s->progs.sched_wakeup_new,
		[LT_KBPF_SCHED_PROCESS_FORK] = s->progs.sched_process_fork,
		[LT_KBPF_SCHED_PROCESS_EXIT] = s->progs.sched_process_exit,
		[LT_KBPF_SCHED_PROCESS_EXEC] = s->progs.sched_process_exec,
		[LT_KBPF_SCHED_MIGRATE_TASK] = s->progs.sched_migrate_task,
		[LT_KBPF_IRQ_HANDLER_ENTRY] = s->progs.irq_handler_entry,
		[LT_KBPF_IRQ_HANDLER_EXIT] = s->progs.irq_handler_exit,
		[LT_KBPF_SOFTIRQ_ENTRY] = s->progs.softirq_entry,
		[LT_KBPF_SOFTIRQ_EXIT] = s->progs.softirq_exit,
		[LT_KBPF_SOFTIRQ_RAISE] = s->progs.softirq_raise,
		[LT_KBPF_SYS_ENTER] = s->progs.sys_enter,
		[LT_KBPF_SYS_EXIT] = s->progs.sys_exit,
		[LT_KBPF_HRTIMER_START] = s->progs.hrtimer_start,
		[LT_KBPF_HRTIMER_EXPIRE_ENTRY] = s->progs.hrtimer_expire_entry,
		[LT_KBPF_HRTIMER_EXPIRE_EXIT] = s->progs.hrtimer_expire_exit,
		[LT_KBPF_HRTIMER_CANCEL] = s->progs.hrtimer_cancel,
		[LT_KBPF_TIMER_START] = s->progs.timer_start,
		[LT_KBPF_TIMER_EXPIRE_ENTRY] = s->progs.timer_expire_entry,
		[LT_KBPF_TIMER_EXPIRE_EXIT] = s->progs.timer_expire_exit,
	};
	return p[slot];
}

/* Bytes of a raw record the generic program copies: its fixed part, and
 * room for the dynamic data after it. */
static uint32_t raw_size(const struct lt_kformat *f)
{
	uint32_t n = 8, dyn = 0;
	for (uint32_t i = 0; i < f->nfields; i++) {
		const struct lt_kfield *k = &f->fields[i];
		if ((uint32_t)k->offset + k->size > n)
			n = (uint32_t)k->offset + k->size;
		dyn |= k->kind == LT_KF_STRING || k->kind == LT_KF_DYNARRAY;
	}
	if (dyn)
		n += 512;
	n = (n + 7) & ~7u;
	return n > LT_KBPF_RAW_MAX ? LT_KBPF_RAW_MAX : n;
}

static void set_err(char *err, size_t errlen, const char *what, int rc)
{
	if (last_msg[0])
		snprintf(err, errlen, "%s: %s (libbpf: %s)", what,
			 strerror(-rc), last_msg);
	else
		snprintf(err, errlen, "%s: %s", what, strerror(-rc));
}

/* The generic program on tracepoint id, through one perf event: the
 * program runs on every CPU, perf writes nothing. */
static int attach_generic(struct lt_kbpf *b, uint32_t id, uint32_t ev, int cpu)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_RAW;
	long fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	LIBBPF_OPTS(bpf_perf_event_opts, po, .bpf_cookie = ev);
	struct bpf_link *l = bpf_program__attach_perf_event_opts(
		b->skel->progs.raw_tracepoint_record, (int)fd, &po);
	if (!l) {
		int rc = -errno;
		close((int)fd);
		return rc;
	}
	b->links[b->nlinks++] = l;
	return 0;
}

/* The doorbell's and the followed forks' ring of a CPU when the programs
 * write packets: records of a few bytes, a few at a time */
#define BELL_RING_BYTES (256u << 10)

/*
 * Whether the programs write packets (every event typed, packets_ok), and
 * then their geometry: sub-buffers of packet_size, as many as fit
 * ring_bytes (2 to LT_SB_MAX_SUBBUFS), a quarter of them waiting rings
 * the doorbell; the BPF ring buffers shrink to BELL_RING_BYTES.
 */
static int packets_config(struct lt_kbpf *b, const struct lt_kbpf_config *cfg,
			  int generic, uint32_t *ring_bytes)
{
	struct lt_kbpf_skel *s = b->skel;
	uint64_t S = cfg->packet_size, n;
	if (!cfg->packets_ok || generic || !S || (S & (S - 1)) ||
	    cfg->packet_head >= S)
		return 0;
	/* a smaller ring has smaller packets (4 KiB at least) */
	while (S > 4096 && 2 * S > cfg->ring_bytes)
		S /= 2;
	for (n = 2; n < LT_SB_MAX_SUBBUFS && (n * 2) * S <= cfg->ring_bytes;)
		n *= 2;
	b->packets = 1;
	b->sub_size = S;
	b->nsub = n;
	b->stride = (S + LT_SB_SLACK + 7) & ~7ull;
	s->rodata->packets = 1;
	s->rodata->sb_size = (uint32_t)S;
	s->rodata->sb_n = (uint32_t)n;
	s->rodata->sb_head = cfg->packet_head;
	s->rodata->sb_wake_at = n * S / 4;
	int rc = bpf_map__set_value_size(s->maps.sb_data,
					 (uint32_t)(S + LT_SB_SLACK));
	if (!rc)
		rc = bpf_map__set_max_entries(
			s->maps.sb_data, (uint32_t)((uint64_t)b->possible * n));
	if (!rc)
		rc = bpf_map__set_max_entries(s->maps.sb_ctl,
					      (uint32_t)b->possible);
	if (rc)
		return rc;
	if (*ring_bytes > BELL_RING_BYTES)
		*ring_bytes = BELL_RING_BYTES;
	return 0;
}

/* Packets: the sub-buffers and their controls mapped, once loaded. */
static int packets_map(struct lt_kbpf *b)
{
	if (!b->packets)
		return 0;
	long pg = sysconf(_SC_PAGESIZE);
	b->data_len =
		((size_t)b->possible * b->nsub * b->stride + (size_t)pg - 1) &
		~((size_t)pg - 1);
	b->ctl_len = (size_t)b->possible * sizeof(struct lt_sb_ctl);
	void *d = mmap(NULL, b->data_len, PROT_READ, MAP_SHARED,
		       bpf_map__fd(b->skel->maps.sb_data), 0);
	if (d == MAP_FAILED)
		return -errno;
	b->data = d;
	void *c = mmap(NULL, b->ctl_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       bpf_map__fd(b->skel->maps.sb_ctl), 0);
	if (c == MAP_FAILED)
		return -errno;
	b->ctl = c;
	return 0;
}

static int on_ring_rec(void *ctx, void *data, size_t size)
{
	struct kring *r = ctx;
	r->b->fn(r->b->arg, r->idx, data, size);
	return 0;
}

int lt_kbpf_open(const struct lt_kbpf_config *cfg, struct lt_kbpf **out,
		 char *err, size_t errlen)
{
	int slot_of[LT_KBPF_NSLOTS], rc;
	struct lt_kbpf *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	b->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (b->epfd < 0) {
		rc = -errno;
		free(b);
		snprintf(err, errlen, "epoll_create1: %s", strerror(-rc));
		return rc;
	}
	last_msg[0] = 0;
	libbpf_set_print(on_libbpf_msg);
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	if (getenv("LOWTRACE_BTF") && *getenv("LOWTRACE_BTF"))
		oo.btf_custom_path = btf_path();
	b->skel = lt_kbpf_skel__open_opts(&oo);
	b->possible = libbpf_num_possible_cpus();
	b->rings = calloc(cfg->ncpus, sizeof(*b->rings));
	b->links = calloc(cfg->nev ? cfg->nev : 1, sizeof(*b->links));
	b->lost_vals = calloc((size_t)(b->possible > 0 ? b->possible : 1),
			      sizeof(*b->lost_vals));
	if (!b->skel || b->possible <= 0 || !b->rings || !b->links ||
	    !b->lost_vals) {
		rc = b->skel ? -ENOMEM : -errno;
		set_err(err, errlen, "opening the BPF object", rc);
		goto fail;
	}
	struct lt_kbpf_skel *s = b->skel;
	for (int i = 0; i < LT_KBPF_NSLOTS; i++) {
		slot_of[i] = -1;
		s->bss->ev_of[i] = LT_KBPF_NONE;
	}
	/* typed programs where the format matches; the rest generic */
	int generic = 0;
	for (size_t e = 0; e < cfg->nev; e++) {
		int sl = typed_slot(cfg->fmts[e]);
		if (sl >= 0 && slot_of[sl] < 0) {
			slot_of[sl] = (int)e;
			s->bss->ev_of[sl] = (uint32_t)e;
		} else {
			generic = 1;
		}
	}
	for (int i = 0; i < LT_KBPF_NSLOTS; i++)
		bpf_program__set_autoload(slot_prog(s, i), slot_of[i] >= 0);
	if (cfg->filter)
		bpf_program__set_autoload(s->progs.sched_process_fork, true);
	bpf_program__set_autoload(s->progs.sched_process_free, cfg->filter);
	bpf_program__set_autoload(s->progs.raw_tracepoint_record, generic);
	s->bss->filter = cfg->filter ? 1 : 0;
	s->bss->wake_at = cfg->ring_bytes / 4;
	uint32_t ring_bytes = cfg->ring_bytes;
	rc = packets_config(b, cfg, generic, &ring_bytes);
	if (rc) {
		set_err(err, errlen, "sizing the sub-buffers", rc);
		goto fail;
	}
	/* one ring buffer per CPU, in the array at the CPU's number (the
	 * first is the array's template: its size is theirs) */
	for (size_t i = 0; i < cfg->ncpus; i++) {
		struct kring *r = &b->rings[b->nrings];
		char name[32];
		/* named by process and CPU (bpftool map list shows whose),
		 * in the 15 characters a map's name has */
		snprintf(name, sizeof(name), "ltk%d_%d", (int)getpid(),
			 cfg->cpus[i]);
		name[15] = 0;
		r->b = b;
		r->idx = i;
		r->cpu = cfg->cpus[i];
		r->fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, name, 0, 0,
				       ring_bytes, NULL);
		if (r->fd < 0) {
			rc = -errno;
			set_err(err, errlen, "creating a CPU's ring buffer",
				rc);
			goto fail;
		}
		b->nrings++;
	}
	bpf_map__set_max_entries(s->maps.rings, (uint32_t)b->possible);
	rc = b->nrings ?
		     bpf_map__set_inner_map_fd(s->maps.rings, b->rings[0].fd) :
		     -EINVAL;
	if (!rc)
		rc = lt_kbpf_skel__load(s);
	if (rc) {
		set_err(err, errlen, "loading the BPF programs", rc);
		goto fail;
	}
	rc = packets_map(b);
	if (rc) {
		set_err(err, errlen, "mapping the sub-buffers", rc);
		goto fail;
	}
	int outer = bpf_map__fd(s->maps.rings);
	for (size_t i = 0; i < b->nrings; i++) {
		struct kring *r = &b->rings[i];
		uint32_t key = (uint32_t)cfg->cpus[i];
		if (bpf_map_update_elem(outer, &key, &r->fd, BPF_ANY)) {
			rc = -errno;
			set_err(err, errlen, "placing a CPU's ring buffer", rc);
			goto fail;
		}
		if (!b->rb)
			b->rb = ring_buffer__new(r->fd, on_ring_rec, r, NULL);
		else if (ring_buffer__add(b->rb, r->fd, on_ring_rec, r))
			rc = -errno;
		struct epoll_event ev = { .events = EPOLLIN | EPOLLET,
					  .data.u64 = i };
		if (!rc && b->rb &&
		    epoll_ctl(b->epfd, EPOLL_CTL_ADD, r->fd, &ev))
			rc = -errno;
		if (!b->rb || rc) {
			rc = rc ? rc : -errno;
			set_err(err, errlen, "mapping a CPU's ring buffer", rc);
			goto fail;
		}
	}
	for (size_t i = 0; cfg->filter && i < cfg->npids; i++) {
		rc = lt_kbpf_add_pid(b, cfg->pids[i]);
		if (rc) {
			set_err(err, errlen, "filling the process filter", rc);
			goto fail;
		}
	}
	for (size_t e = 0; e < cfg->nev && generic; e++) {
		int sl = typed_slot(cfg->fmts[e]);
		if (sl >= 0 && slot_of[sl] == (int)e)
			continue;
		uint32_t key = (uint32_t)e, size = raw_size(cfg->fmts[e]);
		if (e >= LT_KBPF_MAX_EVENTS ||
		    bpf_map_update_elem(bpf_map__fd(s->maps.raw_size), &key,
					&size, BPF_ANY) ||
		    (rc = attach_generic(b, cfg->fmts[e]->id, key,
					 cfg->cpus[0])) != 0) {
			rc = rc ? rc : -errno;
			char what[200];
			snprintf(what, sizeof(what),
				 "attaching the generic program to %s:%s",
				 cfg->fmts[e]->name.group,
				 cfg->fmts[e]->name.name);
			set_err(err, errlen, what, rc);
			goto fail;
		}
	}
	rc = lt_kbpf_skel__attach(s);
	if (rc) {
		set_err(err, errlen, "attaching the BPF programs", rc);
		goto fail;
	}
	*out = b;
	return 0;
fail:
	lt_kbpf_close(b);
	return rc < 0 ? rc : -EINVAL;
}

int lt_kbpf_add_pid(struct lt_kbpf *b, pid_t pid)
{
	uint32_t key = (uint32_t)pid;
	uint8_t one = 1;
	if (pid <= 0)
		return 0;
	return bpf_map_update_elem(bpf_map__fd(b->skel->maps.keep), &key, &one,
				   BPF_ANY) ?
		       -errno :
		       0;
}

int lt_kbpf_wait(struct lt_kbpf *b, int timeout_ms)
{
	struct epoll_event ev[8];
	int n = epoll_wait(b->epfd, ev, 8, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	return n > 0;
}

static uint64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * Hands ring i's complete sub-buffers over, oldest first, each released
 * once handed (its state cleared first, then consumed moved, after which
 * the programs may write it again).  final: the programs are detached,
 * but one may still be committing a record: its sub-buffer is waited
 * for, 100 ms at most, and then dropped, its records counted lost.
 */
static int take_packets(struct lt_kbpf *b, size_t i, lt_kbpf_packet_fn pfn,
			void *arg, int final)
{
	uint32_t cpu = (uint32_t)b->rings[i].cpu;
	struct lt_sb_ctl *c = &b->ctl[cpu];
	const uint64_t S = b->sub_size;
	uint64_t waited_from = 0;
	int n = 0;
	for (;;) {
		uint64_t cons = c->consumed;
		uint64_t off = __atomic_load_n(&c->offset, __ATOMIC_ACQUIRE);
		if (cons >= off)
			break;
		uint64_t slot = (cons / S) % b->nsub;
		struct lt_sb_sub *sub = &c->sub[slot];
		uint64_t commit =
			__atomic_load_n(&sub->commit, __ATOMIC_ACQUIRE);
		if (LT_SB_BYTES(commit) != S) {
			if (!final)
				break;
			if (!waited_from)
				waited_from = now_ns();
			if (now_ns() - waited_from < 100000000u) {
				sched_yield();
				continue;
			}
			__atomic_fetch_add(&c->lost, LT_SB_RECORDS(commit),
					   __ATOMIC_RELAXED);
		} else {
			pfn(arg, i,
			    b->data + ((uint64_t)cpu * b->nsub + slot) *
					      b->stride,
			    sub->content, sub->begin_ts, sub->end_ts,
			    LT_SB_RECORDS(commit));
			n++;
		}
		memset(sub, 0, sizeof(*sub));
		__atomic_store_n(&c->consumed, cons + S, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&c->wake, 0, __ATOMIC_RELEASE);
	return n;
}

int lt_kbpf_packets(const struct lt_kbpf *b)
{
	return b->packets;
}

uint64_t lt_kbpf_open_bytes(const struct lt_kbpf *b, size_t cpu_index,
			    uint64_t *seq)
{
	if (!b->packets || cpu_index >= b->nrings)
		return 0;
	const struct lt_sb_ctl *c = &b->ctl[b->rings[cpu_index].cpu];
	uint64_t off = __atomic_load_n(&c->offset, __ATOMIC_RELAXED);
	*seq = off / b->sub_size;
	return off & (b->sub_size - 1);
}

/*
 * The time is read between the offset's read and the swap, as the
 * programs read theirs: it is no earlier than any record of the closed
 * sub-buffer (each swapped before the offset was read) and no later than
 * any after (each reads its time after reading the moved offset).
 */
int lt_kbpf_close_packet(struct lt_kbpf *b, size_t cpu_index)
{
	if (!b->packets || cpu_index >= b->nrings)
		return 0;
	struct lt_sb_ctl *c = &b->ctl[b->rings[cpu_index].cpu];
	const uint64_t mask = b->sub_size - 1;
	__u64 old;
	uint64_t t;
	do {
		old = __atomic_load_n(&c->offset, __ATOMIC_ACQUIRE);
		if (!(old & mask))
			return 0;
		t = now_ns();
	} while (!__atomic_compare_exchange_n(
		&c->offset, &old, (old | mask) + 1, 0, __ATOMIC_SEQ_CST,
		__ATOMIC_SEQ_CST));
	struct lt_sb_sub *sub = &c->sub[(old / b->sub_size) % b->nsub];
	sub->content = old & mask;
	sub->end_ts = t;
	__atomic_fetch_add(&sub->commit, b->sub_size - (old & mask),
			   __ATOMIC_SEQ_CST);
	return 1;
}

int lt_kbpf_drain(struct lt_kbpf *b, lt_kbpf_rec_fn fn, lt_kbpf_packet_fn pfn,
		  void *arg, int final)
{
	b->fn = fn;
	b->arg = arg;
	int n = ring_buffer__consume(b->rb);
	if (b->packets) {
		for (size_t i = 0; i < b->nrings && n >= 0; i++)
			n += take_packets(b, i, pfn, arg, final);
		return n; /* the lost counts are in the controls */
	}
	/* the programs' counts of records without room (per CPU, by CPU
	 * number): a system call, so at most ten times a second */
	uint64_t now = now_ms();
	if (!final && now - b->lost_read_ms < 100)
		return n;
	b->lost_read_ms = now;
	uint32_t z = 0;
	if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.lost), &z,
				b->lost_vals))
		memset(b->lost_vals, 0,
		       (size_t)b->possible * sizeof(*b->lost_vals));
	return n;
}

uint64_t lt_kbpf_lost(struct lt_kbpf *b, size_t cpu_index)
{
	if (cpu_index >= b->nrings || b->rings[cpu_index].cpu >= b->possible)
		return 0;
	if (b->packets)
		return __atomic_load_n(&b->ctl[b->rings[cpu_index].cpu].lost,
				       __ATOMIC_RELAXED);
	return b->lost_vals[b->rings[cpu_index].cpu];
}

void lt_kbpf_stop(struct lt_kbpf *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nlinks; i++)
		bpf_link__destroy(b->links[i]);
	b->nlinks = 0;
	if (b->skel)
		lt_kbpf_skel__detach(b->skel);
}

void lt_kbpf_close(struct lt_kbpf *b)
{
	if (!b)
		return;
	lt_kbpf_stop(b);
	ring_buffer__free(b->rb);
	if (b->data)
		munmap(b->data, b->data_len);
	if (b->ctl)
		munmap(b->ctl, b->ctl_len);
	if (b->epfd >= 0)
		close(b->epfd);
	for (size_t i = 0; i < b->nrings; i++)
		close(b->rings[i].fd);
	lt_kbpf_skel__destroy(b->skel);
	free(b->rings);
	free(b->links);
	free(b->lost_vals);
	free(b);
}

#endif
