/* SPDX-License-Identifier: MIT */
/*
 * ring.c - creating and mapping ring buffers, and their writers' rare
 * paths.  The writer's fast path is inline in ring/ring_write.h; its rare
 * paths (opening and closing a sub-buffer, dropping an event, the general
 * writers) are here, with the flushes, which close a sub-buffer as a
 * writer would.  The consumer's reads are in ring_consume.c.
 */
#define _GNU_SOURCE
#include "ring/ring.h"
#include "ring/ring_consume.h"
#include "ring/ring_write.h"

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static size_t ctl_size(uint32_t n_subbufs)
{
	return align_up(sizeof(struct lt_ring_ctl) +
				n_subbufs * sizeof(_Atomic uint64_t),
			64);
}

/* Fills the process-local handle from a validated shared header. */
static void ring_attach(struct lt_ring *r, void *map, size_t len, int fd)
{
	struct lt_ring_shm *h = map;

	r->shm = h;
	r->map = map;
	r->map_len = len;
	r->fd = fd;
	r->mode = h->mode;
	r->sync = atomic_load_explicit(&h->sync, memory_order_relaxed);
	r->n_cpus = h->n_cpus;
	r->n_subbufs = h->n_subbufs;
	r->subbuf_size = h->subbuf_size;
	r->subbuf_shift = (uint32_t)__builtin_ctzll(h->subbuf_size);
	r->buf_size = (uint64_t)h->n_subbufs * h->subbuf_size;
	r->subbuf_mask = r->subbuf_size - 1;
	r->buf_mask = r->buf_size - 1;
	r->ctl_base = (char *)map + h->ctl_offset;
	r->ctl_stride = h->ctl_stride;
	for (uint32_t i = 0; i < h->n_cpus; i++) {
		r->cpu[i].ctl =
			(struct lt_ring_ctl *)(r->ctl_base + i * r->ctl_stride);
		r->cpu[i].data =
			(char *)map + h->data_offset + i * h->data_stride;
	}
}

int lt_ring_create(const struct lt_ring_config *cfg, struct lt_ring **out)
{
	uint32_t n_cpus = cfg->n_cpus;
	long page = sysconf(_SC_PAGESIZE);

	if (!n_cpus) {
		long n = sysconf(_SC_NPROCESSORS_CONF);
		n_cpus = n > 0 ? (uint32_t)n : 1;
	}
	if (!is_pow2(cfg->n_subbufs) || cfg->n_subbufs < 2 ||
	    !is_pow2(cfg->subbuf_size) || cfg->subbuf_size < 1024 ||
	    cfg->subbuf_size > (1ull << 32) || n_cpus > 4096 ||
	    cfg->sync > LT_RING_SYNC_WRITER)
		return -EINVAL;
	if (cfg->sync == LT_RING_SYNC_RSEQ && !lt_ring_rseq_usable())
		return -ENOTSUP;

	uint64_t cs = ctl_size(cfg->n_subbufs);
	uint64_t ctl_off = align_up(sizeof(struct lt_ring_shm), 64);
	uint64_t data_off = align_up(ctl_off + cs * n_cpus, (uint64_t)page);
	uint64_t stride = (uint64_t)cfg->n_subbufs * cfg->subbuf_size;
	uint64_t total = align_up(data_off + stride * n_cpus, (uint64_t)page);

	struct lt_ring *r = calloc(1, sizeof(*r) + n_cpus * sizeof(r->cpu[0]));
	if (!r)
		return -ENOMEM;
	int fd = memfd_create("lowtrace-ring", MFD_CLOEXEC);
	if (fd < 0) {
		free(r);
		return -errno;
	}
	/*
	 * The pages are allocated now and mapped now (MAP_POPULATE): a page
	 * the first lap touched would cost the traced thread a fault of
	 * microseconds inside its tracepoint, and a machine short of memory
	 * would answer it with SIGBUS; fallocate() says so here instead.
	 */
	if (ftruncate(fd, (off_t)total) < 0 ||
	    (fallocate(fd, 0, 0, (off_t)total) < 0 && errno != EOPNOTSUPP)) {
		int e = -errno;
		close(fd);
		free(r);
		return e;
	}
	void *map = mmap(NULL, total, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		int e = -errno;
		close(fd);
		free(r);
		return e;
	}
	struct lt_ring_shm *h = map;
	h->magic = LT_RING_SHM_MAGIC;
	h->version = LT_RING_SHM_VERSION;
	h->mode = cfg->mode;
	h->n_cpus = n_cpus;
	h->n_subbufs = cfg->n_subbufs;
	h->subbuf_size = cfg->subbuf_size;
	h->ctl_offset = ctl_off;
	h->ctl_stride = cs;
	h->data_offset = data_off;
	h->data_stride = stride;
	h->total_size = total;
	h->tmpl.magic = LT_PACKET_MAGIC;
	memcpy(h->tmpl.uuid, cfg->uuid, 16);
	h->tmpl.stream_id = cfg->stream_id;
	h->tmpl.pid = cfg->pid == LT_RING_NO_PID ? 0 :
		      cfg->pid			 ? cfg->pid :
						   (uint32_t)getpid();
	atomic_store_explicit(&h->sync, cfg->sync, memory_order_relaxed);
	ring_attach(r, map, total, fd);
	*out = r;
	return 0;
}

int lt_ring_map(int fd, struct lt_ring **out)
{
	struct stat st;
	struct lt_ring_shm h;

	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size < sizeof(h))
		return -EINVAL;
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return -EIO;
	/* the other side may be broken or hostile: check the geometry */
	if (h.magic != LT_RING_SHM_MAGIC || h.version != LT_RING_SHM_VERSION ||
	    h.mode > LT_RING_OVERWRITE || h.sync > LT_RING_SYNC_WRITER ||
	    !is_pow2(h.n_subbufs) || h.n_subbufs < 2 ||
	    !is_pow2(h.subbuf_size) || h.subbuf_size < 1024 ||
	    h.subbuf_size > (1ull << 32) || !h.n_cpus || h.n_cpus > 4096 ||
	    h.ctl_stride < ctl_size(h.n_subbufs) ||
	    h.data_stride != (uint64_t)h.n_subbufs * h.subbuf_size ||
	    h.ctl_offset < sizeof(h) ||
	    h.data_offset < h.ctl_offset + h.ctl_stride * h.n_cpus ||
	    h.total_size < h.data_offset + h.data_stride * h.n_cpus ||
	    h.total_size > (uint64_t)st.st_size)
		return -EINVAL;
	struct lt_ring *r =
		calloc(1, sizeof(*r) + h.n_cpus * sizeof(r->cpu[0]));
	if (!r)
		return -ENOMEM;
	/* mapped now, for the same reason as in lt_ring_create() */
	void *map = mmap(NULL, h.total_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		int e = -errno;
		free(r);
		return e;
	}
	ring_attach(r, map, h.total_size, fd);
	*out = r;
	return 0;
}

void lt_ring_destroy(struct lt_ring *r)
{
	if (!r)
		return;
	munmap(r->map, r->map_len);
	close(r->fd);
	free(r);
}

int lt_ring_fd(const struct lt_ring *r)
{
	return r->fd;
}

int lt_ring_rseq_usable(void)
{
#ifdef LT_HAVE_RSEQ
	static int forced = -1; /* LOWTRACE_RING_SYNC=atomic, read once */
	int f = __atomic_load_n(&forced, __ATOMIC_RELAXED);
	if (f < 0) {
		const char *e = getenv("LOWTRACE_RING_SYNC");
		f = e && strcmp(e, "atomic") == 0;
		__atomic_store_n(&forced, f, __ATOMIC_RELAXED);
	}
	struct rseq *rs = lt_rseq_area();
	return !f && rs &&
	       (int32_t)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED) >= 0;
#else
	return 0;
#endif
}

uint32_t lt_ring_choose_sync(struct lt_ring *r)
{
	uint32_t want =
		lt_ring_rseq_usable() ? LT_RING_SYNC_RSEQ : LT_RING_SYNC_ATOMIC;
	uint32_t cur = LT_RING_SYNC_WRITER;
	/* release: before this process's first record; pairs with the
	 * acquire load in lt_ring_sync_of() */
	if (!atomic_compare_exchange_strong_explicit(&r->shm->sync, &cur, want,
						     memory_order_release,
						     memory_order_acquire))
		want = cur;
	r->sync = want;
	return want;
}

/* The fields of cpu's header at begin that the sub-buffer's opener owns. */
static void open_fields(const struct lt_ring *r, uint32_t cpu,
			struct lt_packet_header *h, uint64_t begin, uint64_t ts)
{
	lt_packet_begin(h, &r->shm->tmpl, cpu, begin >> r->subbuf_shift, ts);
}

void lt_ring_open_subbuf(struct lt_ring *r, struct lt_ring_ctl *ctl,
			 uint64_t begin, uint64_t ts)
{
	uint32_t cpu = lt_ring_cpu_of(r, ctl);
	open_fields(r, cpu, lt_ring_packet_at(r, cpu, begin), begin, ts);
}

/*
 * Fills the fields the closer owns (the opener may still be writing the
 * others) and commits the padding after the last record.
 */
void lt_ring_close_subbuf(struct lt_ring *r, struct lt_ring_ctl *ctl,
			  uint64_t base, uint64_t used, uint64_t ts,
			  uint64_t lost)
{
	uint32_t cpu = lt_ring_cpu_of(r, ctl);
	struct lt_packet_header *h = lt_ring_packet_at(r, cpu, base);

	lt_packet_end(h, ts, used, lost);
	/* release: the header fields before the padding's count; pairs with
	 * the consumer's acquire load of the commit count.  A full
	 * sub-buffer has no padding; the closer's own commit publishes. */
	if (used < r->subbuf_size)
		atomic_fetch_add_explicit(&ctl->commit[lt_ring_slot(r, base)],
					  r->subbuf_size - used,
					  memory_order_release);
}

void lt_ring_drop(struct lt_ring_ctl *ctl, int err)
{
	atomic_fetch_add_explicit(err == -E2BIG ? &ctl->lost_big :
						  &ctl->lost_full,
				  1, memory_order_relaxed);
}

int lt_ring_write_slow(struct lt_ring *r, uint32_t cpu, uint64_t ts,
		       uint32_t id, const void *payload, uint32_t len)
{
	struct lt_ring_ctx c;
	int rc = r->mode == LT_RING_OVERWRITE ?
			 lt_ring_reserve_on(r, &c, cpu, &ts, id, len,
					    LT_RING_OVERWRITE) :
			 lt_ring_reserve_on(r, &c, cpu, &ts, id, len,
					    LT_RING_DISCARD);
	if (rc)
		return rc;
	if (len)
		memcpy(c.payload, payload, len);
	lt_ring_commit(r, &c);
	return 0;
}

void lt_ring_count_too_big(struct lt_ring *r)
{
	uint32_t cpu = (uint32_t)lt_cpu_current() % r->n_cpus;
	lt_ring_drop(lt_ring_ctl(r, cpu), -E2BIG);
}

uint64_t lt_ring_lost(const struct lt_ring *r, uint32_t cpu)
{
	struct lt_ring_ctl *ctl = lt_ring_ctl(r, cpu);
	return atomic_load_explicit(&ctl->lost_full, memory_order_relaxed) +
	       atomic_load_explicit(&ctl->lost_big, memory_order_relaxed) +
	       atomic_load_explicit(&ctl->lost_seq, memory_order_relaxed);
}

static int flush_atomic(struct lt_ring *r, uint32_t cpu)
{
	struct lt_ring_ctl *ctl = lt_ring_ctl(r, cpu);
	const uint64_t S = r->subbuf_size;
	uint64_t old = atomic_load_explicit(&ctl->offset, memory_order_relaxed);
	uint64_t last =
		atomic_load_explicit(&ctl->last_tsc, memory_order_relaxed);
	uint64_t ts, lost;

	do {
		if ((old & (S - 1)) == 0)
			return 0; /* no sub-buffer open */
		ts = lt_clock_read_fast();
		if (ts < last)
			ts = last; /* timestamp_end after every record */
		lost = lt_ring_lost(r, cpu);
	} while (!lt_ring_cas_pair(ctl, &old, &last, (old & ~(S - 1)) + S, ts));
	lt_ring_close_subbuf(r, ctl, old & ~(S - 1), old & (S - 1), ts, lost);
	return 1;
}

/* Counts a dropped event in the buffer of the CPU the thread runs on. */
static int drop_here(struct lt_ring *r, int err)
{
	lt_ring_drop(lt_ring_ctl(r, (uint32_t)lt_cpu_current() % r->n_cpus),
		     err);
	return err;
}

#ifdef LT_HAVE_RSEQ
/* The fields a closer writes (format/packet_header.h), for one copy. */
static void close_fields(const struct lt_ring *r, struct lt_packet_end *c,
			 uint64_t base, uint64_t used, uint64_t ts,
			 uint64_t lost)
{
	lt_packet_end_fill(c, ts, used, base >> r->subbuf_shift, lost);
}

/* A publish of no copy yet, committing (new_off, ts) over old.  Field by
 * field: an initializer would zero the copies too (a rep stos of 128
 * bytes, a sixth of the general writer's time). */
static void pub_start(struct lt_rseq_pub *p, uint64_t new_off, uint64_t ts,
		      uint64_t old)
{
	p->new_off = new_off;
	p->new_ts = ts;
	p->old = old;
	p->n = 0;
}

static void add_copy(struct lt_rseq_pub *p, void *dst, const void *src,
		     uint64_t len)
{
	p->c[p->n++] = (struct lt_rseq_copy){ dst, src, len };
}

/*
 * Discard mode: whether a record of len payload bytes at offset old must
 * go to the next sub-buffer whatever its header (it does not fit the open
 * one even with a compact header, or none is open) and that one is not
 * consumed yet.  The decision the sequence's path below would come to,
 * taken before the clock is read.
 */
static int full_ahead(const struct lt_ring *r, struct lt_ring_ctl *ctl,
		      uint64_t old, uint32_t len)
{
	const uint64_t S = r->subbuf_size;
	uint64_t obase = old & ~(S - 1), begin;
	if ((old & (S - 1)) == 0) {
		begin = old;
	} else {
		uint64_t rec =
			(old + LT_EV_ALIGN - 1) & ~(uint64_t)(LT_EV_ALIGN - 1);
		if (rec + LT_EV_HDR_COMPACT + len - obase <= S)
			return 0;
		begin = obase + S;
	}
	return !lt_ring_subbuf_free(r, ctl, begin, LT_RING_DISCARD);
}

/*
 * One attempt of lt_ring_write_rseq_slow() at offset old of cpu's buffer:
 * lt_ring_place()'s decisions (switch, open, close, header size), then
 * the record and the headers it changes are copied and published by one
 * restartable sequence.  Returns 0 if published, 1 if a writer of this
 * CPU came in between or the thread moved (start again), or -ENOBUFS.
 * Out of line: the drop before it stays light.
 */
static __attribute__((noinline)) int
publish_rseq(struct lt_ring *r, struct rseq *rs, uint32_t cpu, uint64_t old,
	     uint32_t id, const void *payload, uint32_t len)
{
	const uint64_t S = r->subbuf_size, mask = r->buf_size - 1;
	struct lt_ring_ctl *ctl = lt_ring_ctl(r, cpu);
	char *data = lt_ring_data(r, cpu);
	uint64_t last =
		atomic_load_explicit(&ctl->last_tsc, memory_order_relaxed);
	uint64_t ts = lt_clock_read_fast();
	if (ts < last)
		ts = last;
	uint64_t obase = old & ~(S - 1);
	struct lt_ring_place pl;
	lt_ring_place(S, old, last, ts, id, len, &pl);
	/* an overwritten sub-buffer is always whole here (no record is ever
	 * half-done) */
	if (pl.enter && r->mode == LT_RING_DISCARD &&
	    !lt_ring_subbuf_free(r, ctl, pl.begin, LT_RING_DISCARD)) {
		lt_ring_drop(ctl, -ENOBUFS);
		return -ENOBUFS;
	}
	uint64_t lost = pl.sw | pl.fill ? lt_ring_lost(r, cpu) : 0;

	struct lt_rseq_pub pub;
	pub_start(&pub, pl.end, ts, old);
	struct lt_packet_end prev, own;
	struct lt_packet_header open;
	unsigned char eh[LT_EV_HDR_EXTENDED];
	if (pl.sw) {
		close_fields(r, &prev, obase, old & (S - 1), ts, lost);
		add_copy(&pub, data + ((obase + LT_PACKET_END_AT) & mask),
			 &prev, sizeof(prev));
	}
	if (pl.enter) {
		memset(&open, 0, sizeof(open));
		open_fields(r, cpu, &open, pl.begin, ts);
		add_copy(&pub, data + (pl.begin & mask), &open, sizeof(open));
	}
	lt_ev_header_put(eh, pl.hsz, id, ts);
	add_copy(&pub, data + (pl.rec & mask), eh, pl.hsz);
	if (len)
		add_copy(&pub, data + ((pl.rec + pl.hsz) & mask), payload, len);
	if (pl.fill) {
		/* the record ends the sub-buffer: it closes it */
		close_fields(r, &own, pl.end - S, S, ts, lost);
		add_copy(&pub, data + ((pl.end - S + LT_PACKET_END_AT) & mask),
			 &own, sizeof(own));
	}
	return lt_rseq_publish(rs, cpu, &ctl->pair, &pub);
}

/*
 * Any writer of this CPU between the reads and the publish, or a move to
 * another CPU, and it starts again.
 */
int lt_ring_write_rseq_slow(struct lt_ring *r, uint32_t id, const void *payload,
			    uint32_t len)
{
	struct rseq *rs = lt_rseq_area();

	if (LT_PACKET_HDR_SIZE + LT_EV_HDR_EXTENDED + len > r->subbuf_size)
		return drop_here(r, -E2BIG);
	for (;;) {
		/* a thread without rseq cannot write here: counted lost */
		if (!rs ||
		    (int32_t)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED) < 0)
			return drop_here(r, -ENOBUFS);
		uint32_t cpu =
			__atomic_load_n(&rs->cpu_id_start, __ATOMIC_RELAXED);
		if (cpu >= r->n_cpus)
			return drop_here(r, -ENOBUFS);
		struct lt_ring_ctl *ctl = lt_ring_ctl(r, cpu);
		uint64_t old = atomic_load_explicit(&ctl->offset,
						    memory_order_relaxed);
		if (r->mode == LT_RING_DISCARD &&
		    full_ahead(r, ctl, old, len)) {
			/* dropped before the clock is read, and counted by a
			 * sequence on this CPU (no locked instruction): a
			 * full buffer costs its writers as little as it can */
			if (lt_rseq_inc(rs, cpu, (uint64_t *)&ctl->lost_seq))
				continue;
			return -ENOBUFS;
		}
		int rc = publish_rseq(r, rs, cpu, old, id, payload, len);
		if (rc <= 0)
			return rc;
	}
}

/* Closes cpu's open sub-buffer from a thread that runs on cpu: 1 if it
 * closed one, 0 if none was open, -EAGAIN if the thread is elsewhere. */
static int close_rseq(struct lt_ring *r, uint32_t cpu, struct rseq *rs)
{
	struct lt_ring_ctl *ctl = lt_ring_ctl(r, cpu);
	const uint64_t S = r->subbuf_size;

	for (;;) {
		if (__atomic_load_n(&rs->cpu_id_start, __ATOMIC_RELAXED) != cpu)
			return -EAGAIN;
		uint64_t old = atomic_load_explicit(&ctl->offset,
						    memory_order_relaxed);
		uint64_t last = atomic_load_explicit(&ctl->last_tsc,
						     memory_order_relaxed);
		if ((old & (S - 1)) == 0)
			return 0;
		uint64_t ts = lt_clock_read_fast();
		if (ts < last)
			ts = last; /* timestamp_end after every record */
		uint64_t base = old & ~(S - 1);
		struct lt_packet_end cf;
		close_fields(r, &cf, base, old & (S - 1), ts,
			     lt_ring_lost(r, cpu));
		struct lt_rseq_pub pub;
		pub_start(&pub, base + S, ts, old);
		add_copy(&pub,
			 lt_ring_data(r, cpu) + ((base + LT_PACKET_END_AT) &
						 (r->buf_size - 1)),
			 &cf, sizeof(cf));
		if (!lt_rseq_publish(rs, cpu, &ctl->pair, &pub))
			return 1;
	}
}

static int flush_rseq(struct lt_ring *r, uint32_t cpu)
{
	struct rseq *rs = lt_rseq_area();
	if (!rs || (int32_t)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED) < 0)
		return 0;
	const size_t setsize = CPU_ALLOC_SIZE(4096);
	cpu_set_t *saved = CPU_ALLOC(4096), *one = CPU_ALLOC(4096);
	int rc = 0;
	if (!saved || !one || sched_getaffinity(0, setsize, saved) < 0)
		goto out;
	CPU_ZERO_S(setsize, one);
	CPU_SET_S(cpu, setsize, one);
	/* returns once the thread runs on cpu (or fails: not allowed) */
	if (sched_setaffinity(0, setsize, one) < 0)
		goto out;
	for (int i = 0; i < 100; i++) {
		rc = close_rseq(r, cpu, rs);
		if (rc != -EAGAIN)
			break;
		sched_yield(); /* cpu_id not yet updated: let it settle */
	}
	sched_setaffinity(0, setsize, saved);
	rc = rc > 0;
out:
	CPU_FREE(saved);
	CPU_FREE(one);
	return rc;
}
#else
/* No rseq channel can be made here (lt_ring_rseq_usable() is 0). */
int lt_ring_write_rseq_slow(struct lt_ring *r, uint32_t id, const void *payload,
			    uint32_t len)
{
	(void)id;
	(void)payload;
	(void)len;
	return drop_here(r, -ENOBUFS);
}
#endif

int lt_ring_flush(struct lt_ring *r, uint32_t cpu)
{
	struct lt_ring_ctl *ctl = lt_ring_ctl(r, cpu);
	/* the offset first: see lt_ring_sync_of() */
	uint64_t off = atomic_load_explicit(&ctl->offset, memory_order_acquire);
	if ((off & (r->subbuf_size - 1)) == 0)
		return 0;
#ifdef LT_HAVE_RSEQ
	if (lt_ring_sync_of(r) == LT_RING_SYNC_RSEQ)
		return flush_rseq(r, cpu);
#endif
	return flush_atomic(r, cpu);
}

int lt_ring_flush_quiescent(struct lt_ring *r, uint32_t cpu)
{
	/* no writer left: the CAS path's close is right for either kind */
	return flush_atomic(r, cpu);
}

int lt_ring_flush_at(struct lt_ring *r, uint32_t cpu, uint64_t ts)
{
	struct lt_ring_ctl *ctl = lt_ring_ctl(r, cpu);
	const uint64_t S = r->subbuf_size;
	uint64_t old = atomic_load_explicit(&ctl->offset, memory_order_relaxed);

	if ((old & (S - 1)) == 0)
		return 0;
	/* release: the records' bytes before the new offset, as the CAS in
	 * flush_atomic() orders them */
	atomic_store_explicit(&ctl->offset, (old & ~(S - 1)) + S,
			      memory_order_release);
	lt_ring_close_subbuf(r, ctl, old & ~(S - 1), old & (S - 1), ts,
			     lt_ring_lost(r, cpu));
	return 1;
}
