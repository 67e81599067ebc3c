/*
 * session.c - in-process tracing sessions (include/lowtrace/lowtrace.h).
 *
 * A session owns its channels (one ring buffer each), the rules that send
 * events to them, and a consumer thread that writes every complete
 * sub-buffer of a discard channel to the channel's stream file for its
 * CPU, flushes partial sub-buffers on the switch timer, and rewrites the
 * metadata when new events are registered.  Overwrite channels stay in
 * memory; stopping the session writes their newest sub-buffers.
 */
#include <lowtrace/lowtrace.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ctf/metadata.h"
#include "probe/probe.h"
#include "ring/ring.h"
#include "session/streams.h"

#define MAX_CHANNELS 16

struct channel {
	char name[64];
	struct lt_ring *ring;
	uint32_t stream_id;
	int overwrite;
	struct lt_stream_out *out; /* per CPU */
};

struct lt_session {
	char dir[PATH_MAX];
	uint8_t uuid[16];
	struct channel chans[MAX_CHANNELS];
	int nchans;
	unsigned switch_ms;
	pthread_t thread;
	int running, stopped;
	atomic_int stop_req;
	uint64_t meta_gen;
	int pid;
	char procname[64], hostname[256];
	pthread_mutex_t lock; /* stats and stream files */
	struct lt_session_stats st;
};

const char *lt_strerror(int err)
{
	return strerror(err < 0 ? -err : err);
}

const char *lt_session_dir(const lt_session_t *s)
{
	return s->dir;
}

static int mkdir_p(const char *dir)
{
	char p[PATH_MAX];
	if (snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	for (char *c = p + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = 0;
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		*c = '/';
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static struct channel *find_channel(lt_session_t *s, const char *name)
{
	for (int i = 0; i < s->nchans; i++)
		if (strcmp(s->chans[i].name, name) == 0)
			return &s->chans[i];
	return NULL;
}

int lt_session_add_channel(lt_session_t *s, const char *name,
			   const struct lt_channel_options *o)
{
	struct lt_channel_options def = { 0 };
	if (!o)
		o = &def;
	if (!name || !*name || strlen(name) >= sizeof(s->chans[0].name) ||
	    strchr(name, '/') || strchr(name, '_'))
		return -EINVAL;
	if (find_channel(s, name))
		return -EEXIST;
	if (s->nchans >= MAX_CHANNELS)
		return -ENOSPC;
	if (s->running)
		return -EBUSY;
	struct channel *c = &s->chans[s->nchans];
	struct lt_ring_config cfg = {
		.mode = o->overwrite ? LT_RING_OVERWRITE : LT_RING_DISCARD,
		.n_subbufs = o->n_subbufs ? o->n_subbufs : 8,
		.subbuf_size = o->subbuf_size ? o->subbuf_size : 256 * 1024,
		.stream_id = (uint32_t)s->nchans,
		.pid = (uint32_t)s->pid,
		/* this process writes it: rseq where its threads have it */
		.sync = lt_ring_rseq_usable() ? LT_RING_SYNC_RSEQ :
						LT_RING_SYNC_ATOMIC,
	};
	memcpy(cfg.uuid, s->uuid, 16);
	int rc = lt_ring_create(&cfg, &c->ring);
	if (rc)
		return rc;
	c->out = calloc(c->ring->n_cpus, sizeof(*c->out));
	if (!c->out) {
		lt_ring_destroy(c->ring);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < c->ring->n_cpus; i++)
		lt_stream_init(&c->out[i]);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->stream_id = cfg.stream_id;
	c->overwrite = o->overwrite;
	s->nchans++;
	return 0;
}

lt_session_t *lt_session_create(const char *dir,
				const struct lt_session_options *opts, int *err)
{
	struct lt_session_options def = { 0 };
	int rc;

	if (!opts)
		opts = &def;
	lt_session_t *s = calloc(1, sizeof(*s));
	if (!s) {
		rc = -ENOMEM;
		goto fail;
	}
	if (!dir || snprintf(s->dir, sizeof(s->dir), "%s", dir) >=
			    (int)sizeof(s->dir)) {
		rc = -ENAMETOOLONG;
		goto fail;
	}
	rc = mkdir_p(dir);
	if (rc)
		goto fail;
	rc = lt_clock_init();
	if (rc)
		goto fail;
	pthread_mutex_init(&s->lock, NULL);
	lt_ctf_uuid_make(s->uuid);
	s->pid = (int)getpid();
	s->switch_ms = opts->switch_timer_ms ? opts->switch_timer_ms : 1000;
	if (gethostname(s->hostname, sizeof(s->hostname) - 1) < 0)
		snprintf(s->hostname, sizeof(s->hostname), "unknown");
	FILE *f = fopen("/proc/self/comm", "r");
	if (!f || !fgets(s->procname, sizeof(s->procname), f))
		snprintf(s->procname, sizeof(s->procname), "unknown");
	if (f)
		fclose(f);
	s->procname[strcspn(s->procname, "\n")] = 0;
	rc = lt_session_add_channel(s, "default", &opts->channel);
	if (rc)
		goto fail;
	return s;
fail:
	free(s);
	if (err)
		*err = rc;
	return NULL;
}

int lt_session_enable(lt_session_t *s, const char *pattern,
		      const char *loglevel, const char *channel)
{
	int level = LT_LOGLEVEL_ALL;
	if (loglevel && *loglevel) {
		level = lt_probe_loglevel_parse(loglevel);
		if (level < 0)
			return -EINVAL;
	}
	struct channel *c = find_channel(s, channel ? channel : "default");
	if (!c)
		return -ENOENT;
	return lt_probe_enable(s, pattern, level, c->ring);
}

int lt_session_disable(lt_session_t *s, const char *pattern)
{
	return lt_probe_disable(s, pattern) > 0 ? 0 : -ENOENT;
}

struct event_list {
	struct lt_ctf_event *ev;
	uint32_t n, cap;
	int oom;
};

static void collect_event(void *arg, const struct lt_ctf_event *e)
{
	struct event_list *l = arg;
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 64;
		void *p = realloc(l->ev, cap * sizeof(*l->ev));
		if (!p) {
			l->oom = 1;
			return;
		}
		l->ev = p;
		l->cap = cap;
	}
	/* registry entries and their fields live as long as the process */
	l->ev[l->n++] = *e;
}

static int write_metadata(lt_session_t *s)
{
	struct event_list l = { 0 };
	struct lt_ctf_stream streams[MAX_CHANNELS];

	s->meta_gen = lt_probe_generation();
	lt_probe_foreach_event(collect_event, &l);
	if (l.oom) {
		free(l.ev);
		return -ENOMEM;
	}
	for (int i = 0; i < s->nchans; i++)
		streams[i] =
			(struct lt_ctf_stream){ s->chans[i].stream_id,
						s->chans[i].name, l.ev, l.n };
	struct lt_ctf_trace t = {
		.hostname = s->hostname,
		.procname = s->procname,
		.pid = s->pid,
		.clock = lt_clock_calib,
		.clock_source = lt_clock_source_name(),
		.streams = streams,
		.nstreams = (uint32_t)s->nchans,
	};
	memcpy(t.uuid, s->uuid, 16);
	int rc = lt_ctf_metadata_write(s->dir, &t);
	free(l.ev);
	if (rc)
		fprintf(stderr,
			"lowtrace: cannot write %s/metadata: %s (check the "
			"directory's space and permissions)\n",
			s->dir, lt_strerror(rc));
	return rc;
}

static void write_packet(lt_session_t *s, struct channel *c, uint32_t cpu,
			 const void *data, size_t len)
{
	char name[128];

	snprintf(name, sizeof(name), "%s_%d_%u", c->name, s->pid, cpu);
	pthread_mutex_lock(&s->lock);
	if (lt_stream_write(&c->out[cpu], s->dir, name, data, len) == 0) {
		s->st.packets_written++;
		s->st.bytes_written += len;
	} else {
		s->st.packets_lost_disk++;
	}
	pthread_mutex_unlock(&s->lock);
}

/* Writes every complete sub-buffer of the discard channels; returns how
 * many. */
static int consume(lt_session_t *s)
{
	int n = 0;
	for (int i = 0; i < s->nchans; i++) {
		struct channel *c = &s->chans[i];
		if (c->overwrite)
			continue;
		for (uint32_t cpu = 0; cpu < c->ring->n_cpus; cpu++) {
			struct lt_ring_subbuf sb;
			while (lt_ring_get_subbuf(c->ring, cpu, &sb) == 0) {
				write_packet(s, c, cpu, sb.data, sb.len);
				lt_ring_put_subbuf(c->ring, cpu);
				n++;
			}
		}
	}
	return n;
}

static void flush_discard(lt_session_t *s)
{
	for (int i = 0; i < s->nchans; i++)
		if (!s->chans[i].overwrite)
			for (uint32_t cpu = 0; cpu < s->chans[i].ring->n_cpus;
			     cpu++)
				lt_ring_flush(s->chans[i].ring, cpu);
}

static uint64_t now_ms(void)
{
	return lt_clock_read_monotonic() / 1000000;
}

static void *consumer_main(void *arg)
{
	lt_session_t *s = arg;
	uint64_t last_switch = now_ms();

	while (!atomic_load(&s->stop_req)) {
		int n = consume(s);
		if (lt_probe_generation() != s->meta_gen)
			write_metadata(s);
		if (now_ms() - last_switch >= s->switch_ms) {
			flush_discard(s);
			last_switch = now_ms();
		}
		if (!n) {
			struct timespec d = { 0, 1000000 };
			nanosleep(&d, NULL);
		}
	}
	return NULL;
}

int lt_session_start(lt_session_t *s)
{
	if (s->running)
		return -EALREADY;
	if (s->stopped)
		return -EINVAL;
	int rc = write_metadata(s);
	if (rc)
		return rc;
	atomic_store(&s->stop_req, 0);
	rc = -pthread_create(&s->thread, NULL, consumer_main, s);
	if (rc)
		return rc;
	s->running = 1;
	return 0;
}

struct snap_ctx {
	lt_session_t *s;
	struct channel *c;
	uint32_t cpu;
};

static int snap_write(void *arg, const struct lt_packet_header *h,
		      const void *data, size_t len)
{
	struct snap_ctx *x = arg;
	(void)h;
	write_packet(x->s, x->c, x->cpu, data, len);
	return 0;
}

int lt_session_stop(lt_session_t *s)
{
	if (!s->running)
		return s->stopped ? 0 : -EINVAL;
	/* no new events, and none still being written */
	lt_probe_disable(s, NULL);
	lt_probe_sync();
	atomic_store(&s->stop_req, 1);
	pthread_join(s->thread, NULL);
	s->running = 0;
	s->stopped = 1;
	flush_discard(s);
	consume(s);
	for (int i = 0; i < s->nchans; i++) {
		struct channel *c = &s->chans[i];
		if (!c->overwrite)
			continue;
		for (uint32_t cpu = 0; cpu < c->ring->n_cpus; cpu++) {
			struct snap_ctx x = { s, c, cpu };
			lt_ring_snapshot(c->ring, cpu, snap_write, &x);
		}
	}
	for (int i = 0; i < s->nchans; i++)
		for (uint32_t cpu = 0; cpu < s->chans[i].ring->n_cpus; cpu++)
			s->st.events_lost +=
				lt_ring_lost(s->chans[i].ring, cpu);
	lt_clock_refine();
	int rc = write_metadata(s);
	for (int i = 0; i < s->nchans; i++)
		for (uint32_t cpu = 0; cpu < s->chans[i].ring->n_cpus; cpu++) {
			int e = lt_stream_close(&s->chans[i].out[cpu]);
			if (e && !rc)
				rc = e;
		}
	return rc;
}

int lt_session_get_stats(lt_session_t *s, struct lt_session_stats *st)
{
	pthread_mutex_lock(&s->lock);
	*st = s->st;
	pthread_mutex_unlock(&s->lock);
	if (!s->stopped) {
		st->events_lost = 0;
		for (int i = 0; i < s->nchans; i++)
			for (uint32_t cpu = 0; cpu < s->chans[i].ring->n_cpus;
			     cpu++)
				st->events_lost +=
					lt_ring_lost(s->chans[i].ring, cpu);
	}
	return 0;
}

void lt_session_destroy(lt_session_t *s)
{
	if (!s)
		return;
	if (s->running)
		lt_session_stop(s);
	lt_probe_disable(s, NULL);
	lt_probe_sync();
	for (int i = 0; i < s->nchans; i++) {
		lt_ring_destroy(s->chans[i].ring);
		free(s->chans[i].out);
	}
	pthread_mutex_destroy(&s->lock);
	free(s);
}
