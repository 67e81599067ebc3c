/* SPDX-License-Identifier: MIT */
/*
 * channel.c - kernel tracepoints through perf_event_open, re-encoded as the
 * kernel channel of a lowtrace trace: the API of kernel.h.  Below it,
 * perf_ring.c reads the perf rings and encode.c re-encodes the samples.
 *
 * Per online CPU: one perf event per tracepoint, system-wide on that CPU
 * (pid -1), every sample stamped with CLOCK_MONOTONIC; the first event's
 * fd owns the CPU's mmap ring and the others write into it
 * (PERF_EVENT_IOC_SET_OUTPUT), so that the CPU's samples come in the order
 * the CPU wrote them.  A sample's PERF_SAMPLE_IDENTIFIER says which event
 * fired.  Each sample becomes one event in that CPU's buffer of a
 * consumer-side lt_ring (atomic, this thread its only writer), at its
 * timestamp converted to trace clock counts; the ring's consumer (the
 * recorder's, consumer.h) writes its complete sub-buffers, the packets of
 * the kernel_CPU stream files.  Where the eBPF programs write the packets
 * themselves (bpf.h), each complete one is copied whole into the next
 * sub-buffer of the CPU's lt_ring, behind the header written here.
 */
#include "kernel/kernel.h"

#include <linux/perf_event.h>
#include <linux/types.h>

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock/clock.h"
#include "kernel/bpf.h"
#include "kernel/bpf/records.h"
#include "kernel/encode.h"
#include "kernel/perf_ring.h"
#include "kernel/tracefs.h"
#include "ring/ring_consume.h"
#include "ring/ring_write.h"

#define SCRATCH_SIZE 65536 /* a perf record is at most 64 KiB */

struct kevent {
	struct lt_kformat fmt;
	/* raw offset of a field naming another thread the event concerns
	 * (sched_switch's next_pid, sched_wakeup's pid), or -1; and of a
	 * forked child's pid (sched_process_fork), or -1 */
	int target_off, child_off;
	/* opened only to follow the process tree: never written */
	int follow_only;
	struct lt_field_desc *desc;
	uint32_t ndesc;
	char full[LT_KNAME_GROUP + LT_KNAME_EVENT + 2];
};

struct kcpu {
	int cpu;
	int *fds; /* one per event; fds[0] owns the ring */
	struct lt_perf_ring ring;
	uint64_t last_ts; /* counts of the last event written */
	uint64_t lost_perf; /* perf: the records' count; bpf: the programs' */
	uint64_t open_since_ms; /* when the open packet got its first event */
	uint64_t open_seq; /* eBPF packets: which packet that is */
	int open;
};

struct idmap {
	uint64_t id;
	uint32_t ev;
};

struct lt_kernel {
	struct kevent *ev;
	size_t nev;
	struct lt_ctf_event *ctf;
	size_t nctf; /* the events written: ev[0..nctf), then follow-only */
	int fork_ev; /* sched_process_fork is among ev */
	uint64_t *heads; /* per CPU: where this drain stops (scan_forks) */
	uint64_t *scan_heads; /* per CPU: where its fork scan stops */
	unsigned forks_added;
	struct kcpu *cpus;
	size_t ncpus;
	struct idmap *ids;
	size_t nids;
	struct lt_ring *ring;
	pid_t *pids;
	size_t npids;
	uint32_t flush_ms;
	int overwrite;
	char *scratch;
	struct lt_kernel_stats st;
	/* per sample, for the record callback */
	struct kcpu *cur;
	lt_kernel_full_fn full;
	void *arg;
	int err;
	/* the eBPF backend, when it records (else perf); why not, when
	 * the choice was the machine's */
	struct lt_kbpf *bpf;
	char why[400];
};

uint64_t lt_kernel_mono_to_counts(int64_t ns)
{
	const struct lt_clock_calib *c = &lt_clock_calib;
	__int128 num = ((__int128)ns - c->base_ns) * ((__int128)1 << c->shift);
	__int128 q = num >= 0 ? (num + c->mult - 1) / c->mult : num / c->mult;
	return c->base_cyc + (uint64_t)(int64_t)q;
}

/* The CPUs of a sysfs cpu list ("0-3,5") into cpus; how many. */
static int cpu_list(const char *path, int *cpus, int max)
{
	char buf[4096];
	int n = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	for (char *p = buf; *p && *p != '\n';) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p)
			break;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			p = end;
		}
		for (long c = a; c <= b && n < max; c++)
			cpus[n++] = (int)c;
		if (*p == ',')
			p++;
	}
	return n;
}

static int paranoid_level(void)
{
	int v = 99;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 99;
		fclose(f);
	}
	return v;
}

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif

/* 1 while the kernel accepts PERF_FORMAT_LOST (6.0 and later). */
static _Atomic int format_lost = 1;

static int open_event(const struct kevent *e, int cpu, uint32_t pages,
		      char *err, size_t errlen)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = e->fmt.id;
	a.sample_period = 1;
	a.sample_type = LT_PERF_SAMPLE_TYPE;
	a.disabled = 1;
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)((uint64_t)pages *
					(uint64_t)sysconf(_SC_PAGESIZE) / 4);
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	/* read() then gives the samples this event could not write */
	a.read_format = format_lost ? PERF_FORMAT_LOST : 0;
	long fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EINVAL && format_lost) {
		format_lost = 0;
		a.read_format = 0;
		fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1,
			     PERF_FLAG_FD_CLOEXEC);
	}
	if (fd >= 0)
		return (int)fd;
	int rc = -errno;
	if (rc == -EACCES || rc == -EPERM)
		lt_kernel_set_err(
			err, errlen,
			"lowtrace: perf_event_open of %s on cpu %d: %s "
			"(kernel.perf_event_paranoid is %d: run as root, or "
			"sysctl -w kernel.perf_event_paranoid=-1)",
			e->full, cpu, strerror(-rc), paranoid_level());
	else if (rc == -EMFILE || rc == -ENFILE)
		lt_kernel_set_err(
			err, errlen,
			"lowtrace: perf_event_open of %s on cpu %d: %s (each "
			"event needs a descriptor per CPU: raise ulimit -n, "
			"or trace fewer events)",
			e->full, cpu, strerror(-rc));
	else if (rc == -ENOENT || rc == -EINVAL)
		lt_kernel_set_err(
			err, errlen,
			"lowtrace: perf_event_open of %s (id %u) on cpu %d: "
			"%s (the kernel needs CONFIG_PERF_EVENTS with "
			"tracepoints and clockid support, 4.1 or later)",
			e->full, e->fmt.id, cpu, strerror(-rc));
	else
		lt_kernel_set_err(
			err, errlen,
			"lowtrace: perf_event_open of %s on cpu %d: %s",
			e->full, cpu, strerror(-rc));
	return rc;
}

static int open_cpu(struct lt_kernel *k, struct kcpu *c, uint32_t pages,
		    char *err, size_t errlen)
{
	int rc;

	c->fds = malloc(k->nev * sizeof(*c->fds));
	if (!c->fds)
		return -ENOMEM;
	for (size_t i = 0; i < k->nev; i++)
		c->fds[i] = -1;
	for (size_t i = 0; i < k->nev; i++) {
		int fd = open_event(&k->ev[i], c->cpu, pages, err, errlen);
		if (fd < 0)
			return fd;
		c->fds[i] = fd;
		if (i == 0) {
			rc = lt_perf_ring_map(fd, pages, &c->ring);
			if (rc) {
				lt_kernel_set_err(
					err, errlen,
					"lowtrace: mapping the perf ring of "
					"cpu %d (%u pages): %s (use fewer "
					"pages, or raise "
					"kernel.perf_event_mlock_kb)",
					c->cpu, pages, strerror(-rc));
				return rc;
			}
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, c->fds[0]) <
			   0) {
			rc = -errno;
			lt_kernel_set_err(
				err, errlen,
				"lowtrace: sharing the perf ring of cpu %d: %s",
				c->cpu, strerror(-rc));
			return rc;
		}
		uint64_t id;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0) {
			rc = -errno;
			lt_kernel_set_err(
				err, errlen,
				"lowtrace: PERF_EVENT_IOC_ID: %s (the kernel "
				"needs 3.12 or later)",
				strerror(-rc));
			return rc;
		}
		k->ids[k->nids++] = (struct idmap){ id, (uint32_t)i };
	}
	return 0;
}

static int id_cmp(const void *a, const void *b)
{
	const struct idmap *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return x < y ? -1 : x > y;
}

static int add_pid_list(struct lt_kernel *k, pid_t pid);

/*
 * Expands patterns into k->ev.  follow: a process tree is traced, whose
 * growth sched_process_fork tells; it is opened, last and unwritten, when
 * the patterns do not name it.
 */
static int load_events(struct lt_kernel *k, const char *const *patterns,
		       size_t n, int follow, const struct lt_kernel_options *o,
		       char *err, size_t errlen)
{
	static const struct lt_kname fork_ev = { "sched",
						 "sched_process_fork" };
	struct lt_kname *names;
	size_t nn;
	int rc = lt_tracefs_expand(patterns, n, &names, &nn, err, errlen);

	if (rc)
		return rc;
	k->nctf = nn;
	for (size_t i = 0; follow && i < nn; i++)
		if (strcmp(names[i].group, fork_ev.group) == 0 &&
		    strcmp(names[i].name, fork_ev.name) == 0)
			follow = 0;
	if (follow) {
		struct lt_kname *more =
			realloc(names, (nn + 1) * sizeof(*names));
		if (!more) {
			free(names);
			return -ENOMEM;
		}
		names = more;
		names[nn++] = fork_ev;
	}
	k->ev = calloc(nn ? nn : 1, sizeof(*k->ev));
	k->ctf = calloc(nn ? nn : 1, sizeof(*k->ctf));
	if (!k->ev || !k->ctf) {
		free(names);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nn && !rc; i++) {
		struct kevent *e = &k->ev[i];
		rc = lt_kformat_load(&names[i], &e->fmt, err, errlen);
		if (rc)
			break;
		k->nev++;
		snprintf(e->full, sizeof(e->full), "%s:%s", names[i].group,
			 names[i].name);
		for (size_t a = 0; a < o->naliases; a++)
			if (strcmp(o->aliases[a].event, e->full) == 0)
				snprintf(e->full, sizeof(e->full), "%s",
					 o->aliases[a].name);
		e->desc = lt_kencode_fields(&e->fmt, &e->ndesc);
		if (!e->desc) {
			rc = -ENOMEM;
			break;
		}
		k->ctf[i] =
			(struct lt_ctf_event){ (uint32_t)i, e->full,  LT_INFO,
					       e->desc,	    e->ndesc, NULL };
		e->target_off = e->child_off = -1;
		e->follow_only = i >= k->nctf;
		const char *target = NULL;
		if (strcmp(e->full, "sched:sched_switch") == 0)
			target = "next_pid";
		else if (strncmp(e->full, "sched:sched_wak", 15) == 0)
			target = "pid";
		for (uint32_t f = 0; f < e->fmt.nfields; f++) {
			const struct lt_kfield *kf = &e->fmt.fields[f];
			if (kf->size != 4)
				continue;
			if (target && strcmp(kf->name, target) == 0)
				e->target_off = kf->offset;
			if (strcmp(e->full, "sched:sched_process_fork") == 0 &&
			    strcmp(kf->name, "child_pid") == 0)
				e->child_off = kf->offset;
			k->fork_ev |= e->child_off >= 0;
		}
	}
	free(names);
	return rc;
}

/* The backend asked for: the option's, else LOWTRACE_KERNEL_BACKEND's
 * (perf, bpf or auto), else auto. */
static int backend_asked(const struct lt_kernel_options *o)
{
	const char *env = getenv("LOWTRACE_KERNEL_BACKEND");
	if (o->backend != LT_KBACKEND_AUTO || !env)
		return o->backend;
	if (strcmp(env, "perf") == 0)
		return LT_KBACKEND_PERF;
	if (strcmp(env, "bpf") == 0)
		return LT_KBACKEND_BPF;
	return LT_KBACKEND_AUTO;
}

/*
 * Whether the eBPF programs may write the packets: not for the flight
 * recorder (its lt_ring reuses sub-buffers, which the programs' do not),
 * nor with LOWTRACE_KERNEL_RING=records (benchmarks and tests compare the
 * two paths).
 */
static int packets_allowed(const struct lt_kernel_options *o)
{
	const char *env = getenv("LOWTRACE_KERNEL_RING");
	return !o->overwrite && !(env && strcmp(env, "records") == 0);
}

/*
 * A BPF ring's default size per CPU: 4 MiB (LTTng's kernel channels hold
 * as much), which lets a consumer kept off its CPU for a few hundred ms
 * at a busy CPU's scheduler event rate lose nothing; halved down to 1 MiB
 * while all CPUs' rings would pass 64 MiB (BPF rings are allocated
 * whole).  A power of two, as BPF rings must be.
 */
static uint32_t bpf_ring_bytes(int ncpus)
{
	uint32_t per = 4u << 20;
	while (per > (1u << 20) &&
	       (uint64_t)per * (uint64_t)ncpus > (64u << 20))
		per /= 2;
	return per;
}

/*
 * Opens the eBPF backend unless perf is asked for.  Where it cannot run,
 * auto falls back to perf, keeping the reason in k->why; bpf asked for
 * is an error.
 */
static int open_bpf(struct lt_kernel *k, const struct lt_kernel_options *o,
		    const int *cpus, int ncpus, uint32_t pages,
		    uint64_t subbuf_size, char *err, size_t errlen)
{
	int want = backend_asked(o);
	char why[sizeof(k->why) - 64];
	if (want == LT_KBACKEND_PERF)
		return 0;
	int rc = -ENOSYS;
	/* a uprobe's or kprobe's record (its first field __probe_ip, or
	 * __probe_func for a return) is no tracepoint program's context */
	const struct kevent *probe = NULL;
	for (size_t i = 0; i < k->nctf && !probe; i++)
		if (k->ev[i].fmt.nfields > 0 &&
		    strncmp(k->ev[i].fmt.fields[0].name, "__probe_", 8) == 0)
			probe = &k->ev[i];
	if (probe)
		snprintf(why, sizeof(why),
			 "%s:%s is a uprobe or kprobe, which the eBPF backend "
			 "does not take",
			 probe->fmt.name.group, probe->fmt.name.name);
	else if (lt_kbpf_usable(why, sizeof(why))) {
		const struct lt_kformat **f =
			calloc(k->nctf ? k->nctf : 1, sizeof(*f));
		if (!f)
			return -ENOMEM;
		for (size_t i = 0; i < k->nctf; i++)
			f[i] = &k->ev[i].fmt;
		struct lt_kbpf_config cfg = {
			.fmts = f,
			.nev = k->nctf,
			.cpus = cpus,
			.ncpus = (size_t)ncpus,
			.ring_bytes =
				o->perf_pages ?
					(uint32_t)((uint64_t)pages *
						   (uint64_t)sysconf(
							   _SC_PAGESIZE)) :
					bpf_ring_bytes(ncpus),
			.filter = k->npids > 0,
			.pids = k->pids,
			.npids = k->npids,
			.packets_ok = packets_allowed(o),
			.packet_size = (uint32_t)subbuf_size,
			.packet_head = LT_PACKET_HDR_SIZE,
		};
		rc = lt_kbpf_open(&cfg, &k->bpf, why, sizeof(why));
		free(f);
		if (rc == 0)
			return 0;
	}
	if (want == LT_KBACKEND_BPF) {
		lt_kernel_set_err(err, errlen,
				  "lowtrace: the eBPF kernel backend: %s "
				  "(record with --kernel-backend perf)",
				  why);
		return rc;
	}
	snprintf(k->why, sizeof(k->why), "%s", why);
	return 0;
}

int lt_kernel_open(const char *const *patterns, size_t n,
		   const struct lt_kernel_options *o, struct lt_kernel **out,
		   char *err, size_t errlen)
{
	static const struct lt_kernel_options def;
	int online[4096], possible[4096];
	int rc;

	if (!o)
		o = &def;
	if (err && errlen)
		err[0] = 0;
	uint32_t pages = o->perf_pages ? o->perf_pages : 256;
	if (pages & (pages - 1)) {
		lt_kernel_set_err(
			err, errlen,
			"lowtrace: perf_pages %u is not a power of two", pages);
		return -EINVAL;
	}
	rc = lt_clock_init();
	if (rc) {
		lt_kernel_set_err(err, errlen, "lowtrace: the trace clock: %s",
				  strerror(-rc));
		return rc;
	}
	int non = cpu_list("/sys/devices/system/cpu/online", online, 4096);
	int npos = cpu_list("/sys/devices/system/cpu/possible", possible, 4096);
	if (non <= 0 || npos <= 0) {
		lt_kernel_set_err(
			err, errlen,
			"lowtrace: cannot read /sys/devices/system/cpu/online "
			"(is sysfs mounted?)");
		return -ENOENT;
	}
	struct lt_kernel *k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	rc = load_events(k, patterns, n, o->npids > 0, o, err, errlen);
	if (rc)
		goto fail;
	k->cpus = calloc((size_t)non, sizeof(*k->cpus));
	k->ids = calloc((size_t)non * k->nev, sizeof(*k->ids));
	k->scratch = malloc(SCRATCH_SIZE);
	k->heads = calloc((size_t)non, sizeof(*k->heads));
	k->scan_heads = calloc((size_t)non, sizeof(*k->scan_heads));
	if (!k->cpus || !k->ids || !k->scratch || !k->heads || !k->scan_heads) {
		rc = -ENOMEM;
		goto fail;
	}
	if (o->npids) {
		k->pids = malloc(o->npids * sizeof(*k->pids));
		if (!k->pids) {
			rc = -ENOMEM;
			goto fail;
		}
		memcpy(k->pids, o->pids, o->npids * sizeof(*k->pids));
		k->npids = o->npids;
		qsort(k->pids, k->npids, sizeof(*k->pids), pid_cmp);
	}
	uint64_t subbuf_size = o->subbuf_size ? o->subbuf_size : 256 * 1024;
	rc = open_bpf(k, o, online, non, pages, subbuf_size, err, errlen);
	if (rc)
		goto fail;
	for (int i = 0; i < non; i++) {
		struct kcpu *c = &k->cpus[k->ncpus++];
		c->cpu = online[i];
		rc = k->bpf ? 0 : open_cpu(k, c, pages, err, errlen);
		if (rc)
			goto fail;
	}
	qsort(k->ids, k->nids, sizeof(*k->ids), id_cmp);
	struct lt_ring_config rc_cfg = {
		.mode = o->overwrite ? LT_RING_OVERWRITE : LT_RING_DISCARD,
		.n_cpus = (uint32_t)possible[npos - 1] + 1,
		.n_subbufs = o->n_subbufs ? o->n_subbufs : 4,
		.subbuf_size = subbuf_size,
		.stream_id = o->stream_id,
		.pid = o->pid,
	};
	memcpy(rc_cfg.uuid, o->uuid, 16);
	rc = lt_ring_create(&rc_cfg, &k->ring);
	if (rc) {
		lt_kernel_set_err(
			err, errlen,
			"lowtrace: creating the kernel channel's buffers: %s "
			"(sub-buffers must be powers of two, >= 1024 bytes)",
			strerror(-rc));
		goto fail;
	}
	k->flush_ms = o->flush_ms;
	k->overwrite = o->overwrite;
	for (size_t i = 0; i < k->ncpus && !k->bpf; i++)
		for (size_t e = 0; e < k->nev; e++)
			if (ioctl(k->cpus[i].fds[e], PERF_EVENT_IOC_ENABLE, 0) <
			    0) {
				rc = -errno;
				lt_kernel_set_err(
					err, errlen,
					"lowtrace: enabling %s on cpu %d: %s",
					k->ev[e].full, k->cpus[i].cpu,
					strerror(-rc));
				goto fail;
			}
	*out = k;
	return 0;
fail:
	lt_kernel_close(k);
	return rc;
}

/*
 * Reserves an event of len payload bytes at CLOCK_MONOTONIC time ns in
 * c's buffer (raised to the CPU's previous event's time if earlier).
 * 0, or non-zero when the ring dropped it (and counted it).
 */
static int reserve_event(struct lt_kernel *k, struct kcpu *c, uint64_t ns,
			 uint32_t ev, uint32_t len, struct lt_ring_ctx *ctx)
{
	uint32_t cpu = (uint32_t)c->cpu;
	uint64_t ts = lt_kernel_mono_to_counts((int64_t)ns);
	if (ts < c->last_ts) {
		ts = c->last_ts;
		k->st.clamped++;
	}
	int rc = k->full ? lt_ring_reserve_at_try(k->ring, ctx, cpu, ts, ev,
						  len) :
			   lt_ring_reserve_at(k->ring, ctx, cpu, ts, ev, len);
	if (rc == -ENOBUFS && k->full) {
		/* the consumer runs synchronously: it takes the complete
		 * sub-buffers, and the record is tried once more, a loss
		 * only if that fails too */
		k->full(k->arg, cpu);
		rc = lt_ring_reserve_at(k->ring, ctx, cpu, ts, ev, len);
	}
	if (!rc)
		c->last_ts = ts;
	return rc;
}

static void commit_event(struct lt_kernel *k, struct kcpu *c,
			 struct lt_ring_ctx *ctx)
{
	lt_ring_commit(k->ring, ctx);
	if (!c->open) {
		c->open = 1;
		c->open_since_ms = lt_clock_read_monotonic() / 1000000;
	}
	k->st.events++;
}

static int write_sample(struct lt_kernel *k, struct kcpu *c,
			const struct lt_perf_sample *s)
{
	struct idmap key = { s->id, 0 };
	struct idmap *m =
		bsearch(&key, k->ids, k->nids, sizeof(*k->ids), id_cmp);
	if (!m)
		return 0; /* not ours; cannot happen */
	const struct kevent *e = &k->ev[m->ev];
	if (e->follow_only)
		return 0; /* scan_forks() has grown the tree from it */
	if (k->npids) {
		pid_t p = (pid_t)s->pid, q = -1;
		int kept = bsearch(&p, k->pids, k->npids, sizeof(p), pid_cmp) !=
			   NULL;
		if (!kept && e->target_off >= 0 &&
		    (size_t)e->target_off + 4 <= s->raw_size) {
			memcpy(&q, (const char *)s->raw + e->target_off, 4);
			kept = lt_kernel_has_pid(k, q);
		}
		if (!kept) {
			k->st.filtered++;
			return 0;
		}
	}
	uint32_t len = lt_kencode_size(&e->fmt, s->raw, s->raw_size);
	struct lt_ring_ctx ctx;
	if (reserve_event(k, c, s->time, m->ev, len, &ctx))
		return 0; /* counted by the ring */
	lt_kencode(&e->fmt, s->tid, s->pid, s->raw, s->raw_size, ctx.payload);
	commit_event(k, c, &ctx);
	return 0;
}

/* One record of the eBPF backend's ring of k->cpus[idx]: a typed
 * program's payload copied as it is, a raw record re-encoded, a fork
 * the kernel's filter followed added to the list of processes. */
static void on_bpf_record(void *arg, size_t idx, const void *rec, size_t size)
{
	struct lt_kernel *k = arg;
	struct kcpu *c = &k->cpus[idx];
	struct lt_kbpf_rec h;
	struct lt_ring_ctx ctx;

	if (size < sizeof(h))
		return;
	memcpy(&h, rec, sizeof(h));
	const unsigned char *p = (const unsigned char *)rec + sizeof(h);
	if (h.len > size - sizeof(h))
		return;
	if (h.ev == LT_KBPF_BELL)
		return;
	k->st.samples++;
	if (h.ev == LT_KBPF_FOLLOW) {
		pid_t child;
		if (h.len >= 4) {
			memcpy(&child, p, 4);
			add_pid_list(k, child);
		}
		return;
	}
	uint32_t ev = h.ev & ~LT_KBPF_RAW;
	if (ev >= k->nctf)
		return;
	if (!(h.ev & LT_KBPF_RAW)) {
		if (reserve_event(k, c, h.ns, ev, h.len, &ctx))
			return;
		memcpy(ctx.payload, p, h.len);
		commit_event(k, c, &ctx);
		return;
	}
	if (h.len < 8)
		return;
	uint32_t tid, tgid;
	memcpy(&tid, p, 4);
	memcpy(&tgid, p + 4, 4);
	const struct lt_kformat *f = &k->ev[ev].fmt;
	uint32_t len = lt_kencode_size(f, p + 8, h.len - 8);
	if (reserve_event(k, c, h.ns, ev, len, &ctx))
		return;
	lt_kencode(f, tid, tgid, p + 8, h.len - 8, ctx.payload);
	commit_event(k, c, &ctx);
}

/*
 * A complete packet of the eBPF programs (CLOCK_MONOTONIC ns), copied
 * whole into the next sub-buffer of the CPU's lt_ring, as the only writer
 * of that ring: its header begun at the first record's time, the records,
 * the offset moved past it, its end written and its bytes committed (the
 * padding's by lt_ring_close_subbuf(), the rest here), which completes
 * it for the consumer.  The lt_ring's offset is always at a sub-buffer's
 * start in this mode.
 */
static void on_bpf_packet(void *arg, size_t idx, const void *data,
			  size_t content, uint64_t begin_ns, uint64_t end_ns,
			  uint64_t records)
{
	struct lt_kernel *k = arg;
	struct lt_ring *r = k->ring;
	uint32_t cpu = (uint32_t)k->cpus[idx].cpu;
	struct lt_ring_ctl *ctl = lt_ring_ctl(r, cpu);
	uint64_t off = atomic_load_explicit(&ctl->offset, memory_order_relaxed);

	if (content < LT_PACKET_HDR_SIZE || content > r->subbuf_size)
		return;
	if (!lt_ring_subbuf_free(r, ctl, off, LT_RING_DISCARD) && k->full)
		k->full(k->arg, cpu); /* the consumer takes what is complete */
	if (!lt_ring_subbuf_free(r, ctl, off, LT_RING_DISCARD)) {
		lt_ring_add_lost(r, cpu, records);
		return;
	}
	lt_ring_open_subbuf(r, ctl, off, begin_ns);
	char *dst = (char *)lt_ring_packet_at(r, cpu, off);
	memcpy(dst + LT_PACKET_HDR_SIZE,
	       (const char *)data + LT_PACKET_HDR_SIZE,
	       content - LT_PACKET_HDR_SIZE);
	atomic_store_explicit(&ctl->offset, off + r->subbuf_size,
			      memory_order_relaxed);
	atomic_store_explicit(&ctl->last_tsc, end_ns, memory_order_relaxed);
	lt_ring_close_subbuf(r, ctl, off, content, end_ns,
			     lt_ring_lost(r, cpu));
	/* release: the packet's bytes before its completion */
	atomic_fetch_add_explicit(&ctl->commit[lt_ring_slot(r, off)], content,
				  memory_order_release);
	k->st.samples += records;
	k->st.events += records;
}

static int on_record(void *arg, uint32_t type, const void *body, size_t len)
{
	struct lt_kernel *k = arg;
	struct kcpu *c = k->cur;

	if (type == PERF_RECORD_SAMPLE) {
		struct lt_perf_sample s;
		k->st.samples++;
		if (lt_perf_sample_parse(body, len, &s))
			return 0;
		return write_sample(k, c, &s);
	}
	if (type == PERF_RECORD_THROTTLE) {
		k->st.throttled++;
		return 0;
	}
	if (type != PERF_RECORD_LOST) {
		if (type != PERF_RECORD_UNTHROTTLE)
			k->st.other++;
		return 0;
	}
	if (len >= 16) {
		uint64_t lost;
		memcpy(&lost, (const char *)body + 8, 8);
		c->lost_perf += lost;
		k->st.lost_perf += lost;
		/* the packets' events_discarded counts these too */
		lt_ring_add_lost(k->ring, (uint32_t)c->cpu, lost);
	}
	return 0;
}

/* The fork pre-scan's record callback: adds a kept process's child. */
static int on_fork_record(void *arg, uint32_t type, const void *body,
			  size_t len)
{
	struct lt_kernel *k = arg;
	struct lt_perf_sample s;
	if (type != PERF_RECORD_SAMPLE || lt_perf_sample_parse(body, len, &s))
		return 0;
	struct idmap key = { s.id, 0 };
	const struct idmap *m =
		bsearch(&key, k->ids, k->nids, sizeof(*k->ids), id_cmp);
	if (!m)
		return 0;
	const struct kevent *e = &k->ev[m->ev];
	pid_t q;
	if (e->child_off < 0 || (size_t)e->child_off + 4 > s.raw_size ||
	    !lt_kernel_has_pid(k, (pid_t)s.pid))
		return 0;
	memcpy(&q, (const char *)s.raw + e->child_off, 4);
	if (lt_kernel_has_pid(k, q))
		return 0;
	if (lt_kernel_add_pid(k, q) == 0)
		k->forks_added++;
	return 0;
}

/*
 * Following a process tree, a child's events may sit in one CPU's ring
 * while its parent's fork sits unread in another's.  So the heads are
 * taken first (heads[]: what this drain writes), and only then are the
 * rings scanned for forks up to their heads of that later moment: a fork
 * before any record to write is published before that record, so before
 * the scan's heads.  The scan repeats over the same records while it
 * finds children (grandchildren forked on an already scanned CPU): each
 * round adds one at least, of a finite set.  The tree grows here alone.
 */
static void scan_forks(struct lt_kernel *k)
{
	for (size_t i = 0; i < k->ncpus; i++)
		k->heads[i] = lt_perf_ring_head(&k->cpus[i].ring);
	if (!k->npids || !k->fork_ev)
		return;
	for (size_t i = 0; i < k->ncpus; i++)
		k->scan_heads[i] = lt_perf_ring_head(&k->cpus[i].ring);
	do {
		k->forks_added = 0;
		for (size_t i = 0; i < k->ncpus; i++)
			lt_perf_ring_walk(&k->cpus[i].ring, k->scan_heads[i],
					  k->scratch, on_fork_record, k, 0);
	} while (k->forks_added);
}

/* The eBPF programs' counts of records their rings had no room for,
 * added to the CPUs' lost counts as perf's are. */
static void bpf_lost(struct lt_kernel *k)
{
	for (size_t i = 0; i < k->ncpus; i++) {
		struct kcpu *c = &k->cpus[i];
		uint64_t total = lt_kbpf_lost(k->bpf, i);
		if (total <= c->lost_perf)
			continue;
		uint64_t more = total - c->lost_perf;
		c->lost_perf = total;
		k->st.lost_perf += more;
		lt_ring_add_lost(k->ring, (uint32_t)c->cpu, more);
	}
}

static int drain(struct lt_kernel *k, lt_kernel_full_fn full, void *arg,
		 int final)
{
	uint64_t now = lt_clock_read_monotonic() / 1000000;
	int total = 0;

	k->full = full;
	k->arg = arg;
	if (k->bpf && lt_kbpf_packets(k->bpf)) {
		/* the losses first, so that the packets carry them; open
		 * packets closed at the end, or once open flush_ms */
		bpf_lost(k);
		for (size_t i = 0; i < k->ncpus; i++) {
			struct kcpu *c = &k->cpus[i];
			uint64_t seq = 0;
			if (!lt_kbpf_open_bytes(k->bpf, i, &seq)) {
				c->open = 0;
				continue;
			}
			if (!c->open || c->open_seq != seq) {
				c->open = 1;
				c->open_seq = seq;
				c->open_since_ms = now;
			}
			if (final || (k->flush_ms &&
				      now - c->open_since_ms >= k->flush_ms)) {
				lt_kbpf_close_packet(k->bpf, i);
				c->open = 0;
			}
		}
		total = lt_kbpf_drain(k->bpf, on_bpf_record, on_bpf_packet, k,
				      final);
		bpf_lost(k);
		return total;
	}
	if (k->bpf) {
		total = lt_kbpf_drain(k->bpf, on_bpf_record, NULL, k, final);
		if (total < 0)
			return total;
		bpf_lost(k);
	} else {
		scan_forks(k);
	}
	for (size_t i = 0; i < k->ncpus; i++) {
		struct kcpu *c = &k->cpus[i];
		uint32_t cpu = (uint32_t)c->cpu;
		k->cur = c;
		int n = k->bpf ? 0 :
				 lt_perf_ring_walk(&c->ring, k->heads[i],
						   k->scratch, on_record, k, 1);
		if (n < 0)
			return n;
		total += n;
		/* an overwrite channel's packets are closed by snapshots
		 * alone: a timer's close would waste the rest of each */
		if (c->open &&
		    (final || (k->flush_ms && !k->overwrite &&
			       now - c->open_since_ms >= k->flush_ms))) {
			lt_ring_flush_at(k->ring, cpu, c->last_ts);
			c->open = 0;
		}
	}
	return total;
}

int lt_kernel_poll(struct lt_kernel *k, lt_kernel_full_fn full, void *arg)
{
	return drain(k, full, arg, 0);
}

int lt_kernel_wait(struct lt_kernel *k, int timeout_ms)
{
	if (k->bpf)
		return lt_kbpf_wait(k->bpf, timeout_ms);
	struct pollfd pfd[k->ncpus ? k->ncpus : 1];
	for (size_t i = 0; i < k->ncpus; i++)
		pfd[i] = (struct pollfd){ k->cpus[i].fds[0], POLLIN, 0 };
	int n = poll(pfd, (nfds_t)k->ncpus, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	return n > 0;
}

/*
 * The kernel writes a PERF_RECORD_LOST only once the ring has room again,
 * so losses just before the events stop would go unreported; each event's
 * own count (PERF_FORMAT_LOST) has them all.  Adds what the records did not
 * say to the CPU's count, before its last packet closes.
 */
static void reconcile_lost(struct lt_kernel *k)
{
	if (!format_lost || k->bpf)
		return;
	for (size_t i = 0; i < k->ncpus; i++) {
		struct kcpu *c = &k->cpus[i];
		uint64_t total = 0;
		for (size_t e = 0; e < k->nev; e++) {
			uint64_t v[2]; /* value, lost */
			if (read(c->fds[e], v, sizeof(v)) != sizeof(v))
				return;
			total += v[1];
		}
		if (total <= c->lost_perf)
			continue;
		uint64_t more = total - c->lost_perf;
		c->lost_perf = total;
		k->st.lost_perf += more;
		lt_ring_add_lost(k->ring, (uint32_t)c->cpu, more);
	}
}

int lt_kernel_snapshot(struct lt_kernel *k)
{
	if (!k->overwrite)
		return 0;
	/* each open sub-buffer closed at its last event's time (not the
	 * clock's: a later sample may be older) */
	int rc = drain(k, NULL, NULL, 1);
	return rc < 0 ? rc : 0;
}

int lt_kernel_flush(struct lt_kernel *k, lt_kernel_full_fn full, void *arg)
{
	lt_kbpf_stop(k->bpf);
	for (size_t i = 0; i < k->ncpus && !k->bpf; i++)
		for (size_t e = 0; e < k->nev; e++)
			ioctl(k->cpus[i].fds[e], PERF_EVENT_IOC_DISABLE, 0);
	int rc = drain(k, full, arg, 0);
	if (rc < 0)
		return rc;
	reconcile_lost(k);
	rc = drain(k, full, arg, 1);
	return rc < 0 ? rc : 0;
}

void lt_kernel_events(const struct lt_kernel *k,
		      const struct lt_ctf_event **events, uint32_t *n)
{
	*events = k->ctf;
	*n = (uint32_t)k->nctf;
}

uint64_t lt_kernel_lost(const struct lt_kernel *k)
{
	uint64_t n = 0;
	for (uint32_t cpu = 0; cpu < k->ring->n_cpus; cpu++)
		n += lt_ring_lost(k->ring, cpu);
	return n; /* lost_full includes the perf losses */
}

void lt_kernel_get_stats(const struct lt_kernel *k, struct lt_kernel_stats *st)
{
	*st = k->st;
	st->lost_ring = lt_kernel_lost(k) - k->st.lost_perf;
}

int lt_kernel_packets(const struct lt_kernel *k)
{
	return k->bpf && lt_kbpf_packets(k->bpf);
}

const char *lt_kernel_backend(const struct lt_kernel *k, const char **why)
{
	if (why)
		*why = !k->bpf && k->why[0] ? k->why : NULL;
	return k->bpf ? "bpf" : "perf";
}

struct lt_ring *lt_kernel_ring(const struct lt_kernel *k)
{
	return k->ring;
}

void lt_kernel_close(struct lt_kernel *k)
{
	if (!k)
		return;
	lt_kbpf_close(k->bpf);
	for (size_t i = 0; i < k->ncpus; i++) {
		struct kcpu *c = &k->cpus[i];
		lt_perf_ring_unmap(&c->ring);
		for (size_t e = 0; c->fds && e < k->nev; e++)
			if (c->fds[e] >= 0)
				close(c->fds[e]);
		free(c->fds);
	}
	for (size_t i = 0; i < k->nev; i++) {
		free(k->ev[i].desc);
		lt_kformat_free(&k->ev[i].fmt);
	}
	if (k->ring)
		lt_ring_destroy(k->ring);
	free(k->ev);
	free(k->ctf);
	free(k->heads);
	free(k->scan_heads);
	free(k->cpus);
	free(k->ids);
	free(k->pids);
	free(k->scratch);
	free(k);
}

int lt_kernel_list(const char *pattern, FILE *out)
{
	char err[512];
	struct lt_kname *v;
	size_t n;
	int rc;

	if (pattern && *pattern)
		rc = lt_tracefs_expand(&pattern, 1, &v, &n, err, sizeof(err));
	else
		rc = lt_tracefs_list(&v, &n, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return rc;
	}
	int shown = 0;
	for (size_t i = 0; i < n; i++) {
		/* a recording's own probes (dynevent.h) are not the machine's */
		if (strncmp(v[i].group, "lowtrace_", 9) == 0)
			continue;
		fprintf(out, "%s:%s\n", v[i].group, v[i].name);
		shown++;
	}
	free(v);
	return shown;
}

int lt_kernel_add_pid(struct lt_kernel *k, pid_t pid)
{
	if (k->bpf && k->npids) {
		int rc = lt_kbpf_add_pid(k->bpf, pid);
		if (rc)
			return rc;
	}
	return add_pid_list(k, pid);
}

static int add_pid_list(struct lt_kernel *k, pid_t pid)
{
	if (!k->npids || lt_kernel_has_pid(k, pid))
		return 0;
	pid_t *a = realloc(k->pids, (k->npids + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	size_t i = k->npids;
	while (i > 0 && a[i - 1] > pid) {
		a[i] = a[i - 1];
		i--;
	}
	a[i] = pid;
	k->pids = a;
	k->npids++;
	return 0;
}

int lt_kernel_has_pid(const struct lt_kernel *k, pid_t pid)
{
	return !k->npids ||
	       bsearch(&pid, k->pids, k->npids, sizeof(pid), pid_cmp) != NULL;
}

size_t lt_kernel_pids(const struct lt_kernel *k, const pid_t **pids)
{
	*pids = k->pids;
	return k->npids;
}
