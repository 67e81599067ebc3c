/* SPDX-License-Identifier: MIT */
/*
 * buffers.c - the buffers of a recording: one ring per channel for each
 * process that joins (HELLO), or one per channel for all the processes of
 * a user (shared.h), created here and given to the consumer; the events
 * processes describe (EVENT); a process's buffers collected when its
 * socket closes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kernel/kernel.h"
#include "probe/pattern.h"
#include "probe/probe.h"
#include "recorder/rec.h"
#include "recorder/recorder.h"
#include "ring/ring.h"

/* A process whose socket closed: everything it committed goes to disk. */
void rec_collect_dead(struct rec *R, struct rproc *p)
{
	/* a process that closed its socket may still be running */
	int gone = rec_proc_gone(p->pid);
	for (int ch = 0; ch < R->o->nchannels; ch++)
		if (p->buf[ch].ring)
			lt_consumer_collect(&R->cons, &p->buf[ch], gone);
}

/* After lt_consumer_destroy(): its buffers and rings are gone. */
void rec_free_proc(struct rproc *p)
{
	for (uint32_t i = 0; i < p->events.n; i++)
		lt_proto_event_free(&p->events.ev[i]);
	free(p->events.ev);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}

/* Channel ch's buffer for a process that joins (p), or for the processes
 * of a user (u), given to the consumer. */
static int add_buffer(struct rec *R, struct rproc *p, struct lt_shared *u,
		      int ch)
{
	const struct lt_rec_channel *c = &R->o->channels[ch];
	struct lt_consumer_buf *b = u ? &u->buf[ch] : &p->buf[ch];
	struct lt_ring *ring;
	struct lt_ring_config rc = {
		.mode = c->overwrite ? LT_RING_OVERWRITE : LT_RING_DISCARD,
		.n_subbufs = c->n_subbufs,
		.subbuf_size = c->subbuf_size,
		.stream_id = R->next_stream++,
		.pid = u ? LT_RING_NO_PID : (uint32_t)p->pid,
		/* the traced process knows whether it has rseq; a shared
		 * buffer is rseq alone (shared.h) */
		.sync = u ? LT_RING_SYNC_RSEQ : LT_RING_SYNC_WRITER,
	};
	memcpy(rc.uuid, R->uuid, 16);
	int e = lt_ring_create(&rc, &ring);
	if (e)
		return e;
	*b = (struct lt_consumer_buf){
		.ring = ring,
		.channel = c->name,
		.stream_id = rc.stream_id,
		.pid = u ? 0 : p->pid,
		.gen = u ? 0 : p->gen,
		.shared = u != NULL,
		.uid = u ? u->uid : 0,
		.overwrite = c->overwrite,
		.events = u ? &u->events : &p->events,
		.st = &R->res->ch[ch],
	};
	e = lt_consumer_add(&R->cons, b);
	if (e) {
		lt_ring_destroy(ring);
		b->ring = NULL;
	}
	return e;
}

/* The user of the process at the other end of fd, or -1. */
static int peer_uid(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return -1;
	return (int)cr.uid;
}

/* The buffers the processes of uid share, made when the first joins. */
static struct lt_shared *user_buffers(struct rec *R, int uid)
{
	for (int i = 0; i < R->nusers; i++)
		if (R->users[i]->uid == uid)
			return R->users[i];
	if (R->nusers == (int)(sizeof(R->users) / sizeof(R->users[0])))
		return NULL;
	struct lt_shared *u = malloc(sizeof(*u));
	if (!u || lt_shared_init(u, uid) < 0) {
		free(u);
		return NULL;
	}
	R->users[R->nusers++] = u;
	for (int ch = 0; ch < R->o->nchannels; ch++)
		if (add_buffer(R, NULL, u, ch) < 0)
			return NULL; /* freed with the others at the end */
	R->res->users++;
	return u;
}

/* A new process joined: its buffers (its own, or its user's with their
 * id table) and the session's rules. */
int rec_on_hello(struct rec *R, struct rproc *p, const struct lt_msg_hello *m)
{
	static struct lt_msg_config cfg;
	int fds[LT_PROTO_MAX_FDS];

	if (!lt_proto_str_ok(m->procname, sizeof(m->procname)) || m->pid <= 0 ||
	    p->pid)
		return -EPROTO;
	p->pid = m->pid;
	p->ppid = m->ppid;
	memcpy(p->comm, m->procname, sizeof(p->comm));
	for (int i = 0; i < R->nprocs; i++)
		if (R->procs[i] != p && R->procs[i]->pid == p->pid &&
		    R->procs[i]->gen >= p->gen)
			p->gen = R->procs[i]->gen + 1; /* an exec'd program */
	memset(&cfg, 0, sizeof(cfg));
	lt_proto_init(&cfg.h, LT_MSG_CONFIG, sizeof(cfg));
	memcpy(cfg.uuid, R->uuid, 16);
	cfg.calib = lt_clock_calib;
	cfg.nchannels = (uint32_t)R->o->nchannels;
	cfg.nrules = R->stopped ? 0 : (uint32_t)R->o->nrules;
	int nfds = R->o->nchannels;
	if (R->per_user) {
		int uid = peer_uid(p->fd);
		p->u = uid < 0 ? NULL : user_buffers(R, uid);
		if (!p->u)
			return uid < 0 ? -errno : -ENOMEM;
	}
	for (int ch = 0; ch < R->o->nchannels; ch++) {
		int e = p->u ? 0 : add_buffer(R, p, NULL, ch);
		if (e)
			return e;
		const struct lt_consumer_buf *b =
			p->u ? &p->u->buf[ch] : &p->buf[ch];
		fds[ch] = lt_ring_fd(b->ring);
		memcpy(cfg.channels[ch].name, R->o->channels[ch].name,
		       LT_PROTO_NAME);
		cfg.channels[ch].stream_id = b->stream_id;
		cfg.channels[ch].mode = b->ring->mode;
		cfg.channels[ch].shared = p->u != NULL;
	}
	if (p->u)
		fds[nfds++] = lt_idtab_fd(p->u->ids);
	memcpy(cfg.rules, R->o->rules,
	       sizeof(cfg.rules[0]) * (size_t)R->o->nrules);
	R->res->processes++;
	R->meta_dirty = 1;
	if (R->kern)
		lt_kernel_add_pid(R->kern, p->pid);
	return lt_proto_send(p->fd, &cfg, sizeof(cfg), fds, nfds);
}

int rec_on_event(struct rec *R, struct rproc *p, const void *buf, size_t len)
{
	struct lt_ctf_event ev;
	int rc = lt_proto_event_decode(buf, len, &ev);
	if (rc)
		return rc;
	struct lt_event_table *t = &p->events;
	if (ev.id >= t->n) {
		uint32_t n = ev.id + 64;
		struct lt_ctf_event *a = realloc(t->ev, n * sizeof(*a));
		if (!a) {
			lt_proto_event_free(&ev);
			return -ENOMEM;
		}
		memset(a + t->n, 0, (n - t->n) * sizeof(*a));
		t->ev = a;
		t->n = n;
	}
	if (p->u && (rc = lt_shared_describe(p->u, buf, len)) < 0) {
		lt_proto_event_free(&ev);
		return rc;
	}
	lt_proto_event_free(&t->ev[ev.id]);
	t->ev[ev.id] = ev;
	for (int i = 0; i < R->o->nrules; i++)
		if (lt_pattern_match(R->o->rules[i].pattern, ev.name))
			R->res->patterns_unmatched &= ~(1ull << i);
	R->meta_dirty = 1;
	return 0;
}

/* Per-user buffers: the ids claimed since the last look whose
 * descriptions came.  Returns whether a claimed id still waits for its
 * description, which is then in its process's socket, yet to be read. */
int rec_refresh_users(struct rec *R)
{
	int waiting = 0;
	for (int i = 0; i < R->nusers; i++) {
		int w;
		if (lt_shared_refresh(R->users[i], &w) > 0)
			R->meta_dirty = 1;
		waiting |= w;
	}
	return waiting;
}
