/* SPDX-License-Identifier: MIT */
/*
 * bpf_ring_cmp.c - two ways for eBPF programs to hand kernel events to
 * lowtrace, side by side (bench/bpf_ring.sh, docs/bench-kernel.md): loads
 * bpf_ring/ring.bpf.c (sched_switch and sched_wakeup) writing into
 *
 *   -m a  a BPF ring buffer per CPU, drained as the kernel backend drains
 *         it (edge-triggered epoll on the rings, 100 ms timeout); each
 *         record's header rewritten as lowtrace's compact or extended
 *         header into packets of the sub-buffer size, as the backend's
 *         consumer writes its own ring;
 *   -m b  a ring of sub-buffers per CPU in an mmapable array, which the
 *         programs write in lowtrace's layout themselves; polled every
 *         100 ms and woken by a CPU's doorbell when a sub-buffer
 *         completes with a quarter of the ring waiting, as A wakes (-W:
 *         the timer alone); each complete sub-buffer copied whole.
 *
 * -x adds a nesting stress: programs on sys_enter (interrupts on), and on
 * irq_handler_entry and softirq_entry (which interrupt it), writing a
 * small record into the same ring (run a system call loop under it).
 *
 * Both write the same file: per packet, struct pkt then the sub-buffer.
 * It runs CMD while recording, then reads the file back and verifies it:
 * per CPU, packets in sequence, records decoded to their end (none torn
 * or overlapping: known ids, the switch's thread is its prev_pid, comms
 * NUL-terminated, priorities in range, a nesting record's CPU the
 * packet's), times inside their packet's and never going back (records
 * with a time before the previous record's are counted, and fail the
 * check), and records + lost = the programs' calls.
 * Prints (stderr, "bpf_ring_cmp: ...") the counts, the consumer's CPU
 * time and its wake-ups; CMD's output is left as it is.
 *
 * Usage: bpf_ring_cmp -m a|b [-s SUBBUF_BYTES] [-n SUBBUFS] [-r RING_BYTES]
 *        [-W] [-x] -o FILE -- CMD [ARG...]
 *        bpf_ring_cmp -V FILE [-s SUBBUF_BYTES]   (verifies FILE alone,
 *        without the programs' counts)
 * Defaults: 16 sub-buffers of 64 KiB (B, and A's packets), A's rings 1 MiB.
 * Exits 0 when the recording verifies, 1 when it does not, 2 on bad usage
 * or a failed setup, 3 when CMD fails.  Needs root, BTF and LT_BPF=1.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "format/event_header.h"
#include "bpf_ring/ring.h"
#include "kernel/bpf/subbuf.h"
#include "ring.skel.h"

_Static_assert(LT_SB_ID_EXTENDED == LT_EV_ID_EXTENDED &&
		       LT_SB_TS_BITS == LT_EV_TS_BITS &&
		       LT_SB_HDR_COMPACT == LT_EV_HDR_COMPACT &&
		       LT_SB_HDR_EXTENDED == LT_EV_HDR_EXTENDED,
	       "ring B's headers are lowtrace's");
_Static_assert(sizeof(struct lt_sb_ctl) == 4096, "a CPU's control is a page");
_Static_assert(sizeof(struct br_switch) == 64 &&
		       sizeof(struct br_wakeup) == 36 &&
		       sizeof(struct br_nest) == 16,
	       "the payloads are packed");

#define PKT_MAGIC 0x6b504242u /* "BBPk" */

/* a packet in the file: this, then size bytes of which content are
 * records */
struct pkt {
	uint32_t magic, cpu;
	uint64_t seq; /* the CPU's packets, from 0 */
	uint64_t begin_ts, end_ts;
	uint32_t content, size;
};

/* A's packet under construction, per CPU */
struct apkt {
	unsigned char *buf;
	uint32_t off;
	uint64_t last, seq;
	uint64_t first, end; /* its earliest and latest times */
};

struct cmp {
	struct br_ring_skel *skel;
	int mode_b, doorbell, nest;
	uint32_t sub, nsub, ring_bytes;
	int ncpus; /* possible CPUs */
	int *ring_fd;
	struct ring_ctx *ctx; /* each ring's */
	struct ring_buffer *rb;
	int epfd, out;
	struct apkt *ap; /* A */
	unsigned char *data; /* B: the sub-buffers, mapped */
	struct lt_sb_ctl *ctl; /* B: the controls, mapped */
	size_t data_len, ctl_len;
	uint64_t *seq; /* B: packets written, per CPU */
	uint64_t bytes, wakeups, timeouts, bells;
	int failed; /* a write or final-drain error */
};

/* a ring's context: the consumer and the CPU */
struct ring_ctx {
	struct cmp *m;
	int cpu;
};

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("bpf_ring_cmp: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
		       1000000000u +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) *
		       1000u;
}

static void put_packet(struct cmp *m, const struct pkt *h, const void *data)
{
	struct iovec v[2] = { { (void *)h, sizeof(*h) },
			      { (void *)data, h->size } };
	ssize_t want = (ssize_t)(sizeof(*h) + h->size);
	if (writev(m->out, v, 2) != want) {
		fprintf(stderr, "bpf_ring_cmp: writing the packets: %s\n",
			strerror(errno));
		m->failed = 1;
	}
	m->bytes += (uint64_t)want;
}

/* ---- A: records re-headed into packets ---- */

static void a_flush(struct cmp *m, int cpu)
{
	struct apkt *p = &m->ap[cpu];
	if (!p->off)
		return;
	struct pkt h = { PKT_MAGIC, (uint32_t)cpu, p->seq++, p->first,
			 p->end,    p->off,	   m->sub };
	put_packet(m, &h, p->buf);
	p->off = 0;
}

static int on_a_record(void *ctx, void *data, size_t size)
{
	struct ring_ctx *rc = ctx;
	struct cmp *m = rc->m;
	struct apkt *p = &m->ap[rc->cpu];
	const struct br_arec *r = data;
	if (size < sizeof(*r) || r->len > size - sizeof(*r)) {
		fprintf(stderr, "bpf_ring_cmp: CPU %d: a record of %zu bytes\n",
			rc->cpu, size);
		m->failed = 1;
		return 0;
	}
	uint32_t hs = p->off && r->ns - p->last <= LT_EV_TS_MASK ?
			      LT_EV_HDR_COMPACT :
			      LT_EV_HDR_EXTENDED;
	if (p->off + BR_REC_SIZE(hs, r->len) > m->sub) {
		a_flush(m, rc->cpu);
		hs = LT_EV_HDR_EXTENDED;
	}
	if (!p->off)
		p->first = p->end = r->ns;
	/* (records of a ring may be out of time order) */
	if (r->ns < p->first)
		p->first = r->ns;
	if (r->ns > p->end)
		p->end = r->ns;
	unsigned char *o = p->buf + p->off;
	lt_ev_header_put(o, hs, r->ev, r->ns);
	memcpy(o + hs, r + 1, r->len);
	uint32_t rs = BR_REC_SIZE(hs, r->len);
	memset(o + hs + r->len, 0, rs - hs - r->len);
	p->off += rs;
	p->last = r->ns;
	return 0;
}

/* ---- B: complete sub-buffers copied whole ---- */

static void b_take(struct cmp *m, int cpu, int final)
{
	struct lt_sb_ctl *c = &m->ctl[cpu];
	uint64_t S = m->sub;
	for (;;) {
		uint64_t cons = c->consumed;
		uint64_t off = __atomic_load_n(&c->offset, __ATOMIC_ACQUIRE);
		if (cons >= off)
			break;
		struct lt_sb_sub *s = &c->sub[(cons / S) % m->nsub];
		uint64_t commit = LT_SB_BYTES(
			__atomic_load_n(&s->commit, __ATOMIC_ACQUIRE));
		struct pkt h = { PKT_MAGIC,   (uint32_t)cpu, m->seq[cpu],
				 s->begin_ts, s->end_ts,     0,
				 m->sub };
		if (commit == S) {
			h.content = (uint32_t)s->content;
		} else if (final && off - cons < S) {
			/* the sub-buffer being filled when the programs
			 * stopped */
			h.content = (uint32_t)(off - cons);
			h.end_ts = now_ns();
			if (commit != h.content) {
				fprintf(stderr,
					"bpf_ring_cmp: CPU %d: the last "
					"sub-buffer has %llu of %u bytes "
					"committed\n",
					cpu, (unsigned long long)commit,
					h.content);
				m->failed = 1;
			}
		} else {
			if (final) {
				fprintf(stderr,
					"bpf_ring_cmp: CPU %d: sub-buffer %llu "
					"left uncommitted (%llu bytes)\n",
					cpu, (unsigned long long)(cons / S),
					(unsigned long long)commit);
				m->failed = 1;
			}
			break;
		}
		put_packet(m, &h,
			   m->data + ((size_t)cpu * m->nsub +
				      (cons / S) % m->nsub) *
					     (S + LT_SB_SLACK));
		m->seq[cpu]++;
		/* released: its state cleared first, then consumed moved,
		 * after which the programs may write it again */
		memset(s, 0, sizeof(*s));
		__atomic_store_n(&c->consumed, cons + S, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&c->wake, 0, __ATOMIC_RELEASE);
}

static int on_bell(void *ctx, void *data, size_t size)
{
	struct ring_ctx *rc = ctx;
	(void)data;
	(void)size;
	rc->m->bells++;
	return 0;
}

static void drain(struct cmp *m, int final)
{
	ring_buffer__consume(m->rb);
	if (!m->mode_b) {
		if (final)
			for (int c = 0; c < m->ncpus; c++)
				a_flush(m, c);
		return;
	}
	for (int c = 0; c < m->ncpus; c++)
		b_take(m, c, final);
}

/* ---- setup ---- */

static void setup(struct cmp *m)
{
	struct br_ring_skel *s = br_ring_skel__open();
	if (!s)
		die("opening the BPF object: %s", strerror(errno));
	m->skel = s;
	s->rodata->mode_b = (uint32_t)m->mode_b;
	/* both woken once a quarter of the CPU's ring waits */
	s->rodata->wake_at =
		m->mode_b ? (uint64_t)m->sub * m->nsub / 4 : m->ring_bytes / 4;
	s->rodata->sb_size = m->sub;
	s->rodata->sb_n = m->nsub;
	s->rodata->sb_wake_at =
		m->doorbell ? (uint64_t)m->sub * m->nsub / 4 : UINT64_MAX;
	s->rodata->doorbell = (uint32_t)m->doorbell;
	bpf_program__set_autoload(s->progs.nest_sys_enter, m->nest);
	bpf_program__set_autoload(s->progs.nest_irq_entry, m->nest);
	bpf_program__set_autoload(s->progs.nest_softirq_entry, m->nest);
	bpf_map__set_value_size(s->maps.sb_data, m->sub + LT_SB_SLACK);
	bpf_map__set_max_entries(s->maps.sb_data,
				 m->mode_b ? (uint32_t)m->ncpus * m->nsub : 1);
	bpf_map__set_max_entries(s->maps.sb_ctl, (uint32_t)m->ncpus);
	bpf_map__set_max_entries(s->maps.rings, (uint32_t)m->ncpus);
	/* A: the rings; B: the doorbells, a page each */
	m->ring_fd = calloc((size_t)m->ncpus, sizeof(int));
	if (!m->ring_fd)
		die("out of memory");
	for (int c = 0; c < m->ncpus; c++) {
		/* named by process and CPU, in the 15 characters a map's
		 * name has (the test finds what it left behind by them) */
		char name[32];
		snprintf(name, sizeof(name), "brc%d_%d", (int)getpid(), c);
		name[15] = 0;
		m->ring_fd[c] =
			bpf_map_create(BPF_MAP_TYPE_RINGBUF, name, 0, 0,
				       m->mode_b ? 4096 : m->ring_bytes, NULL);
		if (m->ring_fd[c] < 0)
			die("creating CPU %d's ring buffer: %s", c,
			    strerror(errno));
	}
	if (bpf_map__set_inner_map_fd(s->maps.rings, m->ring_fd[0]))
		die("the rings' template: %s", strerror(errno));
	int rc = br_ring_skel__load(s);
	if (rc)
		die("loading the BPF programs: %s (BPF_RING_DEBUG=1 shows "
		    "libbpf's log)",
		    strerror(-rc));
	m->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (m->epfd < 0)
		die("epoll_create1: %s", strerror(errno));
	struct ring_ctx *ctx = calloc((size_t)m->ncpus, sizeof(*ctx));
	if (!ctx)
		die("out of memory");
	m->ctx = ctx;
	for (int c = 0; c < m->ncpus; c++) {
		uint32_t key = (uint32_t)c;
		ctx[c] = (struct ring_ctx){ m, c };
		if (bpf_map_update_elem(bpf_map__fd(s->maps.rings), &key,
					&m->ring_fd[c], BPF_ANY))
			die("placing CPU %d's ring: %s", c, strerror(errno));
		ring_buffer_sample_fn fn = m->mode_b ? on_bell : on_a_record;
		if (!m->rb)
			m->rb = ring_buffer__new(m->ring_fd[c], fn, &ctx[c],
						 NULL);
		else if (ring_buffer__add(m->rb, m->ring_fd[c], fn, &ctx[c]))
			die("mapping CPU %d's ring: %s", c, strerror(errno));
		if (!m->rb)
			die("mapping CPU %d's ring: %s", c, strerror(errno));
		/* edge-triggered: a ring holding records polls readable,
		 * so only the programs' forced wake-ups wake the consumer */
		struct epoll_event ev = { .events = EPOLLIN | EPOLLET,
					  .data.u64 = (uint64_t)c };
		if (epoll_ctl(m->epfd, EPOLL_CTL_ADD, m->ring_fd[c], &ev))
			die("epoll_ctl: %s", strerror(errno));
	}
	if (m->mode_b) {
		long pg = sysconf(_SC_PAGESIZE);
		m->data_len =
			((size_t)m->ncpus * m->nsub * (m->sub + LT_SB_SLACK) +
			 (size_t)pg - 1) &
			~((size_t)pg - 1);
		m->ctl_len = (size_t)m->ncpus * sizeof(struct lt_sb_ctl);
		m->data = mmap(NULL, m->data_len, PROT_READ, MAP_SHARED,
			       bpf_map__fd(s->maps.sb_data), 0);
		m->ctl = mmap(NULL, m->ctl_len, PROT_READ | PROT_WRITE,
			      MAP_SHARED, bpf_map__fd(s->maps.sb_ctl), 0);
		m->seq = calloc((size_t)m->ncpus, sizeof(*m->seq));
		if (m->data == MAP_FAILED || m->ctl == MAP_FAILED || !m->seq)
			die("mapping the sub-buffers: %s", strerror(errno));
	} else {
		m->ap = calloc((size_t)m->ncpus, sizeof(*m->ap));
		for (int c = 0; m->ap && c < m->ncpus; c++)
			if (!(m->ap[c].buf = malloc(m->sub)))
				die("out of memory");
		if (!m->ap)
			die("out of memory");
	}
	rc = br_ring_skel__attach(s);
	if (rc)
		die("attaching the BPF programs: %s", strerror(-rc));
}

/* ---- verification ---- */

struct vcpu {
	uint64_t seq, last, records, calls, lost, retries;
	uint64_t backwards; /* records with a time before the previous's */
};

static int bad(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("bpf_ring_cmp: verify FAILED: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return 1;
}

static int comm_ok(const char *c)
{
	return memchr(c, 0, 16) != NULL;
}

static int prio_ok(int32_t p)
{
	return p >= -1 && p < 140;
}

/* The records of one packet; 0 when all are sound. */
static int verify_packet(const struct pkt *h, const unsigned char *b,
			 struct vcpu *v, int ncpus)
{
	uint32_t o = 0;
	uint64_t prev = h->begin_ts;
	while (o < h->content) {
		uint32_t id;
		uint64_t ts;
		int hs =
			lt_ev_header_get(b + o, h->content - o, prev, &id, &ts);
		if (hs <= 0)
			return bad("CPU %u packet %llu at %u: no header",
				   h->cpu, (unsigned long long)h->seq, o);
		if (o == 0 && hs != LT_EV_HDR_EXTENDED)
			return bad("CPU %u packet %llu: first record compact",
				   h->cpu, (unsigned long long)h->seq);
		uint32_t len = id == BR_EV_SWITCH ? sizeof(struct br_switch) :
			       id == BR_EV_WAKEUP ? sizeof(struct br_wakeup) :
			       id == BR_EV_NEST	  ? sizeof(struct br_nest) :
						    0;
		if (!len)
			return bad("CPU %u packet %llu at %u: event id %u",
				   h->cpu, (unsigned long long)h->seq, o, id);
		if ((uint32_t)hs + len > h->content - o)
			return bad("CPU %u packet %llu at %u: a record past "
				   "the content (%u)",
				   h->cpu, (unsigned long long)h->seq, o,
				   h->content);
		if (ts < h->begin_ts || ts > h->end_ts)
			return bad(
				"CPU %u packet %llu at %u: time %llu outside "
				"the packet's %llu-%llu",
				h->cpu, (unsigned long long)h->seq, o,
				(unsigned long long)ts,
				(unsigned long long)h->begin_ts,
				(unsigned long long)h->end_ts);
		if (ts < v->last && !v->backwards++)
			fprintf(stderr,
				"bpf_ring_cmp: CPU %u packet %llu at %u: time "
				"%llu after %llu (the first record out of "
				"order)\n",
				h->cpu, (unsigned long long)h->seq, o,
				(unsigned long long)ts,
				(unsigned long long)v->last);
		const unsigned char *p = b + o + hs;
		int sound;
		if (id == BR_EV_SWITCH) {
			struct br_switch f;
			memcpy(&f, p, sizeof(f));
			sound = (int32_t)f.tid == f.prev_pid &&
				comm_ok(f.prev_comm) && comm_ok(f.next_comm) &&
				prio_ok(f.prev_prio) && prio_ok(f.next_prio);
		} else if (id == BR_EV_WAKEUP) {
			struct br_wakeup f;
			memcpy(&f, p, sizeof(f));
			sound = comm_ok(f.comm) && prio_ok(f.prio) &&
				f.target_cpu >= 0 && f.target_cpu < ncpus;
		} else {
			struct br_nest f;
			memcpy(&f, p, sizeof(f));
			sound = f.what < 3 && f.cpu == h->cpu;
		}
		if (!sound)
			return bad("CPU %u packet %llu at %u: a torn record "
				   "(event %u)",
				   h->cpu, (unsigned long long)h->seq, o, id);
		v->last = prev = ts;
		v->records++;
		/* the next record at the next 4-byte boundary (a packet
		 * ends at its last record's end) */
		o = (uint32_t)LT_SB_ALIGN(o + (uint32_t)hs + len);
	}
	return 0;
}

/* The packets of path; counted: v holds the programs' calls and lost,
 * which the records must add up to. */
static int verify(const char *path, struct cmp *m, struct vcpu *v, int counted)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return bad("%s: %s", path, strerror(errno));
	unsigned char *b = malloc(m->sub);
	struct pkt h;
	int rc = 0;
	while (!rc && b && fread(&h, sizeof(h), 1, f) == 1) {
		if (h.magic != PKT_MAGIC || h.cpu >= (uint32_t)m->ncpus ||
		    h.size != m->sub || h.content > h.size)
			rc = bad("a bad packet header after %ld bytes",
				 ftell(f) - (long)sizeof(h));
		else if (fread(b, h.size, 1, f) != 1)
			rc = bad("a packet cut short");
		else if (h.seq != v[h.cpu].seq)
			rc = bad("CPU %u: packet %llu where %llu was due",
				 h.cpu, (unsigned long long)h.seq,
				 (unsigned long long)v[h.cpu].seq);
		else if (h.begin_ts > h.end_ts)
			rc = bad("CPU %u packet %llu ends before it begins",
				 h.cpu, (unsigned long long)h.seq);
		else
			rc = verify_packet(&h, b, &v[h.cpu], m->ncpus);
		v[h.cpu < (uint32_t)m->ncpus ? h.cpu : 0].seq++;
	}
	if (!b)
		rc = bad("out of memory");
	else if (!rc && ferror(f))
		rc = bad("%s: %s", path, strerror(errno));
	free(b);
	fclose(f);
	for (int c = 0; !rc && c < m->ncpus; c++)
		if (v[c].backwards)
			rc = bad("CPU %d: %llu records with a time before the "
				 "previous record's",
				 c, (unsigned long long)v[c].backwards);
	for (int c = 0; !rc && counted && c < m->ncpus; c++)
		if (v[c].records + v[c].lost != v[c].calls)
			rc = bad("CPU %d: %llu records + %llu lost != %llu "
				 "calls",
				 c, (unsigned long long)v[c].records,
				 (unsigned long long)v[c].lost,
				 (unsigned long long)v[c].calls);
	return rc;
}

static int on_libbpf_msg(enum libbpf_print_level level, const char *fmt,
			 va_list ap)
{
	if (level == LIBBPF_DEBUG && !getenv("BPF_RING_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static uint32_t pow2_arg(const char *s, const char *what, uint32_t lo,
			 uint32_t hi)
{
	char *e;
	unsigned long v = strtoul(s, &e, 0);
	if (*e || v < lo || v > hi || (v & (v - 1)))
		die("%s %s: a power of two from %u to %u", what, s, lo, hi);
	return (uint32_t)v;
}

int main(int argc, char **argv)
{
	struct cmp m = { .sub = 65536,
			 .nsub = 16,
			 .ring_bytes = 1u << 20,
			 .doorbell = 1,
			 .epfd = -1,
			 .out = -1 };
	const char *path = NULL, *mode = NULL, *check = NULL;
	int o;
	while ((o = getopt(argc, argv, "+m:s:n:r:Wxo:V:")) != -1) {
		switch (o) {
		case 'x':
			m.nest = 1;
			break;
		case 'V':
			check = optarg;
			break;
		case 'm':
			mode = optarg;
			break;
		case 's':
			m.sub = pow2_arg(optarg, "-s", 4096, 1u << 22);
			break;
		case 'n':
			m.nsub = pow2_arg(optarg, "-n", 2, LT_SB_MAX_SUBBUFS);
			break;
		case 'r':
			m.ring_bytes = pow2_arg(optarg, "-r", 4096, 1u << 30);
			break;
		case 'W':
			m.doorbell = 0;
			break;
		case 'o':
			path = optarg;
			break;
		default:
			die("usage: bpf_ring_cmp -m a|b [-s SUBBUF_BYTES] "
			    "[-n SUBBUFS] [-r RING_BYTES] [-W] [-x] -o FILE -- "
			    "CMD [ARG...]");
		}
	}
	m.ncpus = libbpf_num_possible_cpus();
	if (m.ncpus <= 0)
		die("the possible CPUs: %s", strerror(-m.ncpus));
	if (check) {
		struct vcpu *v = calloc((size_t)m.ncpus, sizeof(*v));
		if (!v)
			die("out of memory");
		int rc = verify(check, &m, v, 0);
		uint64_t recs = 0;
		for (int c = 0; c < m.ncpus; c++)
			recs += v[c].records;
		fprintf(stderr, "bpf_ring_cmp: %s: records %llu, verify %s\n",
			check, (unsigned long long)recs, rc ? "FAILED" : "ok");
		free(v);
		return rc;
	}
	if (!mode || (strcmp(mode, "a") && strcmp(mode, "b")) || !path ||
	    optind >= argc)
		die("usage: bpf_ring_cmp -m a|b [-s SUBBUF_BYTES] [-n SUBBUFS] "
		    "[-r RING_BYTES] [-W] [-x] -o FILE -- CMD [ARG...]");
	m.mode_b = mode[0] == 'b';
	libbpf_set_print(on_libbpf_msg);
	m.out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (m.out < 0)
		die("%s: %s", path, strerror(errno));
	setup(&m);

	uint64_t c0 = cpu_ns();
	pid_t child = fork();
	if (child < 0)
		die("fork: %s", strerror(errno));
	if (child == 0) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "bpf_ring_cmp: %s: %s\n", argv[optind],
			strerror(errno));
		_exit(127);
	}
	int pfd = (int)syscall(SYS_pidfd_open, child, 0);
	struct epoll_event pev = { .events = EPOLLIN, .data.u64 = UINT64_MAX };
	if (pfd < 0 || epoll_ctl(m.epfd, EPOLL_CTL_ADD, pfd, &pev))
		die("watching the command: %s", strerror(errno));
	for (int done = 0; !done;) {
		struct epoll_event ev[8];
		int n = epoll_wait(m.epfd, ev, 8, 100);
		if (n < 0 && errno != EINTR)
			die("epoll_wait: %s", strerror(errno));
		int woken = 0;
		for (int i = 0; i < n; i++) {
			if (ev[i].data.u64 == UINT64_MAX)
				done = 1;
			else
				woken = 1;
		}
		if (woken)
			m.wakeups++;
		else if (n == 0)
			m.timeouts++;
		drain(&m, 0);
	}
	br_ring_skel__detach(m.skel);
	/* a program that started before the detach has ended by now */
	usleep(20000);
	drain(&m, 1);
	uint64_t used = cpu_ns() - c0;
	int st = 0;
	waitpid(child, &st, 0);
	close(pfd);

	struct vcpu *v = calloc((size_t)m.ncpus, sizeof(*v));
	struct br_stats *ps = calloc((size_t)m.ncpus, sizeof(*ps));
	uint32_t z = 0;
	if (!v || !ps ||
	    bpf_map_lookup_elem(bpf_map__fd(m.skel->maps.stats), &z, ps))
		die("reading the programs' counts: %s", strerror(errno));
	uint64_t calls = 0, lost = 0, recs = 0, back = 0, retries = 0;
	for (int c = 0; c < m.ncpus; c++) {
		v[c].calls = ps[c].calls;
		v[c].lost = ps[c].lost;
		v[c].retries = ps[c].retries;
	}
	if (close(m.out))
		m.failed = 1;
	int rc = verify(path, &m, v, 1) || m.failed;
	for (int c = 0; c < m.ncpus; c++) {
		fprintf(stderr,
			"bpf_ring_cmp: cpu %d calls %llu records %llu lost %llu "
			"packets %llu out_of_order %llu retries %llu\n",
			c, (unsigned long long)v[c].calls,
			(unsigned long long)v[c].records,
			(unsigned long long)v[c].lost,
			(unsigned long long)v[c].seq,
			(unsigned long long)v[c].backwards,
			(unsigned long long)v[c].retries);
		back += v[c].backwards;
		retries += v[c].retries;
		calls += v[c].calls;
		lost += v[c].lost;
		recs += v[c].records;
	}
	fprintf(stderr,
		"bpf_ring_cmp: mode %s cpus %d %s calls %llu records %llu "
		"lost %llu bytes %llu out_of_order %llu retries %llu\n",
		m.mode_b ? "b" : "a", m.ncpus,
		m.mode_b ? "sub-buffers" : "rings", (unsigned long long)calls,
		(unsigned long long)recs, (unsigned long long)lost,
		(unsigned long long)m.bytes, (unsigned long long)back,
		(unsigned long long)retries);
	fprintf(stderr,
		"bpf_ring_cmp: consumer_cpu_ns %llu per_event %.1f wakeups "
		"%llu timeouts %llu bells %llu\n",
		(unsigned long long)used,
		recs ? (double)used / (double)recs : 0.0,
		(unsigned long long)m.wakeups, (unsigned long long)m.timeouts,
		(unsigned long long)m.bells);
	fprintf(stderr, "bpf_ring_cmp: verify %s\n", rc ? "FAILED" : "ok");

	ring_buffer__free(m.rb);
	if (m.mode_b) {
		munmap(m.data, m.data_len);
		munmap(m.ctl, m.ctl_len);
	}
	br_ring_skel__destroy(m.skel);
	for (int c = 0; c < m.ncpus; c++) {
		close(m.ring_fd[c]);
		if (m.ap)
			free(m.ap[c].buf);
	}
	close(m.epfd);
	free(m.ring_fd);
	free(m.ctx);
	free(m.ap);
	free(m.seq);
	free(v);
	free(ps);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "bpf_ring_cmp: %s failed (status %d)\n",
			argv[optind], st);
		return 3;
	}
	return rc ? 1 : 0;
}
