/* SPDX-License-Identifier: MIT */
/*
 * consumer.c - the consumer side of a trace (consumer.h).
 */
#include "session/consumer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "clock/clock.h"
#include "format/walk.h"

/*
 * The directory locks of this process's consumers.  A child of fork()
 * shares them (one open file description) and would keep the lock after
 * the recording: it closes them, and its consumers then close nothing
 * (their slot is no longer theirs).
 */
#define LOCK_SLOTS 8
static int lock_fds[LOCK_SLOTS]; /* fd + 1; 0: free */

static void close_locks_in_child(void)
{
	for (int i = 0; i < LOCK_SLOTS; i++) {
		int v = __atomic_exchange_n(&lock_fds[i], 0, __ATOMIC_RELAXED);
		if (v)
			close(v - 1);
	}
}

static void register_atfork(void)
{
	pthread_atfork(NULL, NULL, close_locks_in_child);
}

static void lock_dir(struct lt_consumer *c, const char *dir)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* a follower takes it exclusively for a moment only: wait for it */
	while (flock(fd, LOCK_SH) < 0 && errno == EINTR)
		;
	c->lock_fd = fd + 1;
	pthread_once(&once, register_atfork);
	for (int i = 0; i < LOCK_SLOTS; i++) {
		int free_slot = 0;
		if (__atomic_compare_exchange_n(&lock_fds[i], &free_slot,
						fd + 1, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			c->lock_slot = i + 1;
			return;
		}
	}
}

static void unlock_dir(struct lt_consumer *c)
{
	int fd = c->lock_fd - 1, slot = c->lock_slot;
	c->lock_fd = c->lock_slot = 0;
	if (fd < 0)
		return;
	int expected = fd + 1;
	/* in a child of fork(), the slot was emptied and the fd closed */
	if (!slot ||
	    __atomic_compare_exchange_n(&lock_fds[slot - 1], &expected, 0, 0,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		close(fd);
}

void lt_consumer_init(struct lt_consumer *c, const char *dir,
		      const uint8_t uuid[16], unsigned switch_ms)
{
	memset(c, 0, sizeof(*c));
	c->dir = dir;
	memcpy(c->uuid, uuid, 16);
	c->switch_ms = switch_ms;
	c->who = "";
	pthread_mutex_init(&c->lock, NULL);
	lock_dir(c, dir);
}

int lt_consumer_add(struct lt_consumer *c, struct lt_consumer_buf *b)
{
	struct lt_ring *r = b->ring;
	if (c->nbufs == c->cap) {
		uint32_t cap = c->cap ? c->cap * 2 : 16;
		void *p = realloc(c->bufs, cap * sizeof(*c->bufs));
		if (!p)
			return -ENOMEM;
		c->bufs = p;
		c->cap = cap;
	}
	b->out = calloc(r->n_cpus, sizeof(*b->out));
	if (!b->out)
		return -ENOMEM;
	for (uint32_t cpu = 0; cpu < r->n_cpus; cpu++)
		lt_stream_init(&b->out[cpu]);
	b->live = 1;
	c->bufs[c->nbufs++] = b;
	return 0;
}

int lt_consumer_close(struct lt_consumer *c)
{
	int rc = 0;
	for (uint32_t i = 0; i < c->nbufs; i++) {
		struct lt_consumer_buf *b = c->bufs[i];
		for (uint32_t cpu = 0; cpu < b->ring->n_cpus; cpu++) {
			int e = lt_stream_close(&b->out[cpu]);
			if (e && !rc)
				rc = e;
		}
	}
	unlock_dir(c);
	return rc;
}

void lt_consumer_destroy(struct lt_consumer *c)
{
	lt_consumer_close(c);
	for (uint32_t i = 0; i < c->nbufs; i++) {
		free(c->bufs[i]->out);
		c->bufs[i]->out = NULL;
		if (!c->bufs[i]->local) /* the writer's */
			lt_ring_destroy(c->bufs[i]->ring);
		c->bufs[i]->ring = NULL;
	}
	free(c->bufs);
	free(c->scratch);
	free(c->recovery);
	pthread_mutex_destroy(&c->lock);
	memset(c, 0, sizeof(*c));
}

static void stream_name(const struct lt_consumer_buf *b, uint32_t cpu,
			char *out, size_t cap)
{
	if (b->local)
		snprintf(out, cap, "%s_%u", b->channel, cpu);
	else if (b->shared)
		snprintf(out, cap, "%s_u%d_%u", b->channel, b->uid, cpu);
	else if (b->gen)
		snprintf(out, cap, "%s_%d.%d_%u", b->channel, b->pid, b->gen,
			 cpu);
	else
		snprintf(out, cap, "%s_%d_%u", b->channel, b->pid, cpu);
}

/* Bytes of event context before each payload of b's records. */
static size_t ctx_of(const struct lt_consumer_buf *b)
{
	return b->shared ? LT_CTF_PID_CONTEXT : 0;
}

static const struct lt_ctf_event *lookup_event(void *arg, uint32_t id)
{
	const struct lt_event_table *t = arg;
	if (id >= t->n || !t->ev[id].name)
		return NULL;
	return &t->ev[id];
}

static void count_record(void *arg, const struct lt_ctf_record *r)
{
	(void)r;
	(*(uint64_t *)arg)++;
}

static void add_stat(struct lt_consumer *c, uint64_t *v, uint64_t n)
{
	pthread_mutex_lock(&c->lock);
	*v += n;
	pthread_mutex_unlock(&c->lock);
}

/* Appends one packet to b's stream file for cpu, and counts it. */
static void write_packet(struct lt_consumer *c, struct lt_consumer_buf *b,
			 uint32_t cpu, const void *data, size_t len)
{
	char name[200];
	uint64_t n = 0;

	stream_name(b, cpu, name, sizeof(name));
	if (c->count_events && b->events)
		lt_ctf_walk_records(data, len, ctx_of(b), lookup_event,
				    (void *)b->events, count_record, &n);
	int rc = lt_stream_write(&b->out[cpu], c->dir, name, data, len);
	pthread_mutex_lock(&c->lock);
	if (rc) {
		b->st->lost_disk++;
	} else {
		b->st->packets++;
		b->st->bytes += len;
		b->st->events += n;
	}
	pthread_mutex_unlock(&c->lock);
}

struct packet_to {
	struct lt_consumer *c;
	struct lt_consumer_buf *b;
	uint32_t cpu;
};

static int packet_to_stream(void *arg, const struct lt_packet_header *h,
			    const void *data, size_t len)
{
	struct packet_to *a = arg;
	(void)h;
	write_packet(a->c, a->b, a->cpu, data, len);
	return 0;
}

int lt_consumer_drain_buf(struct lt_consumer *c, struct lt_consumer_buf *b)
{
	int n = 0;
	for (uint32_t cpu = 0; cpu < b->ring->n_cpus; cpu++) {
		struct lt_ring_subbuf sb;
		while (lt_ring_get_subbuf(b->ring, cpu, &sb) == 0) {
			write_packet(c, b, cpu, sb.data, sb.len);
			lt_ring_put_subbuf(b->ring, cpu);
			n++;
		}
	}
	return n;
}

static int drained(const struct lt_consumer_buf *b)
{
	return b->live && !b->overwrite;
}

int lt_consumer_drain(struct lt_consumer *c)
{
	int n = 0;
	for (uint32_t i = 0; i < c->nbufs; i++)
		if (drained(c->bufs[i]))
			n += lt_consumer_drain_buf(c, c->bufs[i]);
	return n;
}

static void flush_buf(struct lt_consumer_buf *b)
{
	for (uint32_t cpu = 0; cpu < b->ring->n_cpus; cpu++)
		lt_ring_flush(b->ring, cpu);
}

void lt_consumer_switch_timer(struct lt_consumer *c)
{
	uint64_t now = lt_clock_read_monotonic() / 1000000;
	if (!c->last_switch_ms)
		c->last_switch_ms = now; /* the timer starts with the passes */
	if (now - c->last_switch_ms < c->switch_ms)
		return;
	for (uint32_t i = 0; i < c->nbufs; i++)
		if (drained(c->bufs[i]) && !c->bufs[i]->local)
			flush_buf(c->bufs[i]);
	c->last_switch_ms = lt_clock_read_monotonic() / 1000000;
}

/* The ends and timestamps of the whole records of a recovered
 * sub-buffer. */
struct lt_recovery {
	size_t ends[8192];
	uint64_t ts[8192];
	int n;
};

static void note_end(void *arg, const struct lt_ctf_record *r)
{
	struct lt_recovery *x = arg;
	if (x->n < (int)(sizeof(x->ends) / sizeof(x->ends[0]))) {
		x->ends[x->n] = r->end;
		x->ts[x->n++] = r->ts;
	}
}

/*
 * The sub-buffer at base of a buffer whose writers are gone never
 * completed: some writer reserved space and died before committing.  The
 * ring copies it into c->scratch and says how much of it was committed, a
 * prefix of the records (plus, if it was closed, the padding): keep the
 * whole records of that prefix, count the rest lost.
 */
static void keep_committed(struct lt_consumer *c, struct lt_consumer_buf *b,
			   uint32_t cpu, uint64_t base)
{
	const uint64_t S = b->ring->subbuf_size;
	struct lt_packet_header *h = (void *)c->scratch;
	struct lt_recovery *x = c->recovery;
	uint64_t committed, content;

	if (lt_ring_recover_subbuf(b->ring, cpu, base, c->scratch, &committed,
				   &content) < 0) {
		add_stat(c, &b->st->lost_crash, 1); /* not even its header */
		return;
	}
	x->n = 0;
	size_t walked = lt_ctf_walk_records(c->scratch, content, ctx_of(b),
					    lookup_event, (void *)b->events,
					    note_end, x);
	int keep = 0;
	for (int i = 0; i < x->n; i++) {
		if (x->ends[i] == committed ||
		    x->ends[i] + (S - content) == committed) {
			keep = i + 1;
			break;
		}
		if (x->ends[i] <= committed)
			keep = i + 1; /* interleaved writers: the best bound */
	}
	/* the torn records, and one more where the walk met garbage */
	add_stat(c, &b->st->lost_crash,
		 (uint64_t)(x->n - keep) + (walked < content));
	if (!keep)
		return;
	size_t end = x->ends[keep - 1];
	h->content_size = h->packet_size = (uint64_t)end * 8;
	h->timestamp_end = x->ts[keep - 1];
	h->events_discarded = lt_ring_lost(b->ring, cpu) + b->st->lost_crash;
	write_packet(c, b, cpu, c->scratch, end);
}

/* A copy of a sub-buffer, and the list of its records; 0 or -ENOMEM. */
static int recovery_room(struct lt_consumer *c, uint64_t size)
{
	if (!c->recovery)
		c->recovery = malloc(sizeof(*c->recovery));
	if (size > c->scratch_size) {
		char *s = realloc(c->scratch, size);
		if (!s)
			return -ENOMEM;
		c->scratch = s;
		c->scratch_size = size;
	}
	return c->recovery ? 0 : -ENOMEM;
}

/*
 * Writes what cpu's buffer holds up to its write offset, whole
 * sub-buffers as they are and incomplete ones recovered.
 */
static void drain_dead_cpu(struct lt_consumer *c, struct lt_consumer_buf *b,
			   uint32_t cpu)
{
	struct lt_ring *r = b->ring;
	uint64_t end = lt_ring_write_end(r, cpu);
	int room = recovery_room(c, r->subbuf_size) == 0;

	for (;;) {
		struct lt_ring_subbuf sb;
		uint64_t base = lt_ring_read_pos(r, cpu);
		if (base >= end)
			break;
		if (lt_ring_get_subbuf(r, cpu, &sb) == 0)
			write_packet(c, b, cpu, sb.data, sb.len);
		else if (!room)
			add_stat(c, &b->st->lost_crash, 1);
		else
			keep_committed(c, b, cpu, base);
		lt_ring_put_subbuf(r, cpu);
	}
}

void lt_consumer_collect(struct lt_consumer *c, struct lt_consumer_buf *b,
			 int gone)
{
	int discard = drained(b);
	b->live = 0;
	for (uint32_t cpu = 0; discard && cpu < b->ring->n_cpus; cpu++) {
		if (gone)
			lt_ring_flush_quiescent(b->ring, cpu);
		else
			lt_ring_flush(b->ring, cpu);
		drain_dead_cpu(c, b, cpu);
	}
}

/* The last pass over a buffer whose writers may still be there. */
static void finish_live(struct lt_consumer *c, struct lt_consumer_buf *b)
{
	if (b->local) {
		/* its writer, this process, closed what it holds */
		lt_consumer_drain_buf(c, b);
		return;
	}
	flush_buf(b);
	lt_consumer_drain_buf(c, b);
	/* what a close could not reach (an rseq buffer of a CPU this
	 * process may not run on) is copied */
	for (uint32_t cpu = 0; cpu < b->ring->n_cpus; cpu++) {
		struct packet_to a = { c, b, cpu };
		lt_ring_copy_open(b->ring, cpu, packet_to_stream, &a);
	}
}

void lt_consumer_finish(struct lt_consumer *c)
{
	for (uint32_t i = 0; i < c->nbufs; i++) {
		struct lt_consumer_buf *b = c->bufs[i];
		struct lt_ring *r = b->ring;
		if (drained(b))
			finish_live(c, b);
		for (uint32_t cpu = 0; b->overwrite && cpu < r->n_cpus; cpu++) {
			struct packet_to a = { c, b, cpu };
			lt_ring_snapshot(r, cpu, packet_to_stream, &a);
		}
		uint64_t lost = 0;
		for (uint32_t cpu = 0; cpu < r->n_cpus; cpu++)
			lost += lt_ring_lost(r, cpu);
		add_stat(c, &b->st->lost_full, lost);
	}
}

struct snap_to {
	const struct lt_consumer_buf *b;
	uint32_t cpu;
	const char *dir;
	struct lt_stream_out out;
	int packets;
};

static int snap_to_dir(void *arg, const struct lt_packet_header *h,
		       const void *data, size_t len)
{
	struct snap_to *a = arg;
	char name[200];
	(void)h;
	stream_name(a->b, a->cpu, name, sizeof(name));
	if (lt_stream_write(&a->out, a->dir, name, data, len) == 0)
		a->packets++;
	return 0;
}

int lt_consumer_snapshot(struct lt_consumer *c, const char *dir)
{
	int packets = 0;
	for (uint32_t i = 0; i < c->nbufs; i++) {
		const struct lt_consumer_buf *b = c->bufs[i];
		for (uint32_t cpu = 0; b->overwrite && cpu < b->ring->n_cpus;
		     cpu++) {
			struct snap_to a = { .b = b, .cpu = cpu, .dir = dir };
			lt_stream_init(&a.out);
			lt_ring_snapshot(b->ring, cpu, snap_to_dir, &a);
			lt_stream_close(&a.out);
			packets += a.packets;
		}
	}
	return packets;
}

uint64_t lt_consumer_lost(const struct lt_consumer *c)
{
	uint64_t lost = 0;
	for (uint32_t i = 0; i < c->nbufs; i++) {
		const struct lt_consumer_buf *b = c->bufs[i];
		for (uint32_t cpu = 0; !b->local && cpu < b->ring->n_cpus;
		     cpu++)
			lost += lt_ring_lost(b->ring, cpu);
	}
	return lost;
}

void lt_consumer_read_stats(struct lt_consumer *c,
			    const struct lt_consumer_stats *st,
			    struct lt_consumer_stats *out)
{
	pthread_mutex_lock(&c->lock);
	*out = *st;
	pthread_mutex_unlock(&c->lock);
}

int lt_consumer_write_metadata(struct lt_consumer *c, const char *dir,
			       int only_overwrite,
			       const struct lt_consumer_meta *m)
{
	struct lt_ctf_stream *streams =
		calloc((size_t)c->nbufs + m->nmore + 1, sizeof(*streams));
	uint32_t n = 0;

	if (!streams)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->nbufs; i++) {
		const struct lt_consumer_buf *b = c->bufs[i];
		if (b->local || (only_overwrite && !b->overwrite))
			continue;
		streams[n++] =
			(struct lt_ctf_stream){ b->stream_id,  b->channel,
						b->events->ev, b->events->n,
						b->shared,     0 };
	}
	for (uint32_t i = 0; i < m->nmore; i++)
		streams[n++] = m->more[i];
	/* how late a packet can reach the disk, for a follower */
	const char **env = calloc((size_t)m->nenv_extra * 2 + 2, sizeof(*env));
	char switch_ms[16];
	if (!env) {
		free(streams);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < m->nenv_extra * 2; i++)
		env[i] = m->env_extra[i];
	uint32_t ne = m->nenv_extra;
	if (c->switch_ms) {
		snprintf(switch_ms, sizeof(switch_ms), "%u", c->switch_ms);
		env[ne * 2] = "switch_timer_ms";
		env[ne * 2 + 1] = switch_ms;
		ne++;
	}
	struct lt_ctf_trace t = {
		.hostname = m->hostname,
		.procname = m->procname,
		.pid = m->pid,
		.clock = lt_clock_calib,
		.clock_source = lt_clock_source_name(),
		.streams = streams,
		.nstreams = n,
		.env_extra = env,
		.nenv_extra = ne,
	};
	memcpy(t.uuid, c->uuid, 16);
	int rc = lt_ctf_metadata_write(dir, &t);
	free(env);
	free(streams);
	if (rc)
		fprintf(stderr,
			"lowtrace: %scannot write %s/metadata: %s (check the "
			"directory's space and permissions)\n",
			c->who, dir, strerror(-rc));
	return rc;
}
