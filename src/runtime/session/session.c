/* SPDX-License-Identifier: MIT */
/*
 * session.c - in-process tracing sessions (include/lowtrace/lowtrace.h).
 *
 * A session owns its channels (one ring buffer each), the rules that send
 * events to them, and a consumer thread that runs the consumer's passes
 * (consumer.h): every complete sub-buffer of a discard channel to the
 * channel's stream file for its CPU, partial ones on the switch timer,
 * and the metadata rewritten when new events are registered.  Overwrite
 * channels stay in memory; stopping the session writes their newest
 * sub-buffers.
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

#include "format/metadata.h"
#include "probe/probe.h"
#include "ring/ring.h"
#include "session/consumer.h"

#define MAX_CHANNELS 16

struct channel {
	char name[64];
	struct lt_consumer_buf buf;
};

struct lt_session {
	char dir[PATH_MAX];
	uint8_t uuid[16];
	struct channel chans[MAX_CHANNELS];
	int nchans;
	struct lt_consumer cons;
	struct lt_event_table events; /* the registry's, at the last metadata */
	struct lt_consumer_stats st; /* of every channel */
	pthread_t thread;
	int running, stopped;
	atomic_int stop_req;
	uint64_t meta_gen;
	int pid;
	char procname[64], hostname[256];
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
	struct lt_ring *ring;
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
	int rc = lt_ring_create(&cfg, &ring);
	if (rc)
		return rc;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->buf = (struct lt_consumer_buf){
		.ring = ring,
		.channel = c->name,
		.stream_id = cfg.stream_id,
		.pid = s->pid,
		.overwrite = o->overwrite,
		.events = &s->events,
		.st = &s->st,
	};
	rc = lt_consumer_add(&s->cons, &c->buf);
	if (rc) {
		lt_ring_destroy(ring);
		return rc;
	}
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
	lt_ctf_uuid_make(s->uuid);
	s->pid = (int)getpid();
	if (gethostname(s->hostname, sizeof(s->hostname) - 1) < 0)
		snprintf(s->hostname, sizeof(s->hostname), "unknown");
	FILE *f = fopen("/proc/self/comm", "r");
	if (!f || !fgets(s->procname, sizeof(s->procname), f))
		snprintf(s->procname, sizeof(s->procname), "unknown");
	if (f)
		fclose(f);
	s->procname[strcspn(s->procname, "\n")] = 0;
	lt_consumer_init(&s->cons, s->dir, s->uuid,
			 opts->switch_timer_ms ? opts->switch_timer_ms : 1000);
	rc = lt_session_add_channel(s, "default", &opts->channel);
	if (rc) {
		lt_consumer_destroy(&s->cons);
		goto fail;
	}
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
	return lt_probe_enable(s, pattern, level, c->buf.ring);
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

	s->meta_gen = lt_probe_generation();
	lt_probe_foreach_event(collect_event, &l);
	if (l.oom) {
		free(l.ev);
		return -ENOMEM;
	}
	free(s->events.ev);
	s->events = (struct lt_event_table){ l.ev, l.n };
	struct lt_consumer_meta m = {
		.hostname = s->hostname,
		.procname = s->procname,
		.pid = s->pid,
	};
	return lt_consumer_write_metadata(&s->cons, s->dir, 0, &m);
}

static void *consumer_main(void *arg)
{
	lt_session_t *s = arg;

	while (!atomic_load(&s->stop_req)) {
		int n = lt_consumer_drain(&s->cons);
		if (lt_probe_generation() != s->meta_gen)
			write_metadata(s);
		lt_consumer_switch_timer(&s->cons);
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
	pthread_setname_np(s->thread, "lt-consumer");
	s->running = 1;
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
	lt_consumer_finish(&s->cons);
	lt_clock_refine();
	int rc = write_metadata(s);
	int e = lt_consumer_close(&s->cons);
	return rc ? rc : e;
}

int lt_session_get_stats(lt_session_t *s, struct lt_session_stats *st)
{
	struct lt_consumer_stats cs;
	lt_consumer_read_stats(&s->cons, &s->st, &cs);
	st->packets_written = cs.packets;
	st->bytes_written = cs.bytes;
	st->packets_lost_disk = cs.lost_disk;
	/* counted once the buffers are done with, read from them until */
	st->events_lost =
		s->stopped ? cs.lost_full : lt_consumer_lost(&s->cons);
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
	lt_consumer_destroy(&s->cons);
	free(s->events.ev);
	free(s);
}
