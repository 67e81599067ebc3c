/* SPDX-License-Identifier: MIT */
/*
 * recorder.c - the `lowtrace record` process (recorder.h).
 *
 * It listens on a unix socket, starts the command with
 * LOWTRACE_SESSION_SOCK naming it, and gives every process that joins
 * (agent.c) ring buffers of its own: one memfd per channel, created here,
 * so that what a process committed is still here after it dies.  One
 * thread polls the socket and every process's buffers, each a buffer of
 * the consumer (consumer.h): complete sub-buffers of discard channels go
 * to stream files as they fill, a switch timer flushes partial ones, new
 * event descriptions rewrite the metadata.  When a process's socket
 * closes (exit, crash, exec), the consumer collects its buffers, keeping
 * the whole records a writer that died mid-record left.  Overwrite
 * channels are written at the end.
 *
 * With -p or --all-apps, running programs that link liblowtrace are
 * attached through their rendezvous (apps.h): the connection a JOIN
 * leaves is served like one made to the session's socket, and its
 * closing, at the end, is what detaches the program.  A look at
 * /proc/net/unix every 100 ms attaches the programs they fork or exec (or,
 * with --all-apps, any of the user's that starts).
 *
 * Each process's channel is a stream class of its own (its event ids are
 * its own), streams named CHANNEL_PID_CPU (CHANNEL_PID.N_CPU for the N-th
 * program a pid exec()s).  With per-user buffers (shared.h) the processes
 * of one user share one buffer per channel instead, a stream class
 * CHANNEL_uUID_CPU whose records carry their writer's pid.
 */
#include "recorder/recorder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "format/metadata.h"
#include "kernel/dynevent.h"
#include "kernel/kernel.h"
#include "probe/probe.h"
#include "ring/ring.h"
#include "recorder/apps.h"
#include "session/consumer.h"
#include "recorder/shared.h"
#include "session/streams.h"

#define MAX_PROCS 1024

struct rproc {
	int fd; /* the connection; -1 once closed */
	int pid, ppid, gen;
	int asked_pid; /* attached through its rendezvous: its pid */
	char comm[16];
	/* its channels' buffers, the consumer's once it joined */
	struct lt_consumer_buf buf[LT_PROTO_MAX_CHANNELS];
	struct lt_event_table events; /* by id, owned; a hole has no name */
	struct lt_shared *u; /* its user's buffers, if shared */
};

/* A process of the kernel channel's tree and its command line, as
 * /proc showed it last (a server may retitle itself: PostgreSQL's
 * backends do). */
struct cmdline {
	int pid;
	char text[160];
};

#define MAX_CMDLINES 1024

struct rec {
	const struct lt_rec_options *o;
	struct lt_rec_result *res;
	uint8_t uuid[16];
	int lsock;
	char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct rproc *procs[MAX_PROCS];
	int nprocs;
	struct lt_consumer cons;
	uint32_t next_stream;
	int meta_dirty;
	char hostname[256];
	int stopped;
	int idle_ms; /* the next wait for something to do */
	struct lt_kernel *kern;
	struct lt_dyn *dyn; /* uprobes and kprobes, removed at the end */
	struct lt_stream_out *kout; /* per CPU */
	uint32_t kernel_stream;
	pid_t child;
	int child_alive;
	uint64_t child_done_ms;
	uint64_t last_scan_ms;
	struct cmdline cmds[MAX_CMDLINES];
	int ncmds;
	struct {
		char name[LT_PROTO_NAME];
		uint64_t last_ms;
	} held[32];
	int nheld;
	/* rendezvous already asked (their inodes), and when last looked */
	uint64_t asked[1024];
	int nasked;
	uint64_t last_apps_ms;
	/* per-user buffers: a set per user that joined */
	int per_user;
	struct lt_shared *users[64];
	int nusers;
};

static uint64_t now_ms(void);
static void finish(struct rec *R);
static void watch_attached(struct rec *R);
static void refresh_users(struct rec *R, int may_serve);

/* The fields of /proc/PID/stat after "PID (COMM)" (COMM may hold spaces
 * and parentheses), read into buf; NULL, with errno, if it cannot be. */
static const char *proc_stat(pid_t pid, char *buf, size_t cap)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	const char *e = strrchr(buf, ')');
	if (!e)
		errno = EIO;
	return e ? e + 1 : NULL;
}

/* Whether pid has no thread left that could write (gone, or a zombie). */
static int proc_gone(pid_t pid)
{
	char buf[512];
	const char *s = proc_stat(pid, buf, sizeof(buf));
	if (!s)
		return errno == ENOENT;
	/* " S ...": the state comes first */
	return s[0] == ' ' && (s[1] == 'Z' || s[1] == 'X');
}

/* pid's parent; 0 if unknown. */
static int parent_of(pid_t pid)
{
	char buf[512];
	int ppid = 0;
	const char *s = proc_stat(pid, buf, sizeof(buf));
	if (!s || sscanf(s, " %*c %d", &ppid) != 1)
		return 0;
	return ppid;
}

/* A process whose socket closed: everything it committed goes to disk. */
static void collect_dead(struct rec *R, struct rproc *p)
{
	/* a process that closed its socket may still be running */
	int gone = proc_gone(p->pid);
	for (int ch = 0; ch < R->o->nchannels; ch++)
		if (p->buf[ch].ring)
			lt_consumer_collect(&R->cons, &p->buf[ch], gone);
}

/* After lt_consumer_destroy(): its buffers and rings are gone. */
static void free_proc(struct rproc *p)
{
	for (uint32_t i = 0; i < p->events.n; i++)
		lt_proto_event_free(&p->events.ev[i]);
	free(p->events.ev);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}

static int write_metadata_to(struct rec *R, const char *dir, int only_overwrite)
{
	char *env_store = calloc((size_t)(R->nprocs + R->ncmds) + 1, 64);
	const char **env =
		calloc((size_t)(R->nprocs + R->ncmds) * 2 + 2, sizeof(*env));
	uint32_t ne = 0;
	int rc = -ENOMEM;

	if (!env_store || !env)
		goto out;
	for (int i = 0; i < R->nprocs; i++) {
		struct rproc *p = R->procs[i];
		if (!p->buf[0].ring && !p->u)
			continue; /* a control client, or not yet joined */
		char *name = env_store + (size_t)i * 64;
		snprintf(name, 64, "process_%d_%d", p->pid, p->gen);
		env[ne * 2] = name;
		env[ne * 2 + 1] = p->comm;
		ne++;
	}
	/* cmdline_PID: what the analyses say of a process besides its
	 * command name */
	for (int i = 0; i < R->ncmds; i++) {
		char *name = env_store + (size_t)(R->nprocs + i) * 64;
		snprintf(name, 64, "cmdline_%d", R->cmds[i].pid);
		env[ne * 2] = name;
		env[ne * 2 + 1] = R->cmds[i].text;
		ne++;
	}
	struct lt_ctf_stream kernel = { R->kernel_stream, "kernel", NULL, 0,
					0 };
	if (R->kern)
		lt_kernel_events(R->kern, &kernel.events, &kernel.nevents);
	struct rproc *first = R->nprocs ? R->procs[0] : NULL;
	struct lt_consumer_meta m = {
		.hostname = R->hostname,
		.procname = first ? first->comm : "none",
		.pid = first ? first->pid : 0,
		.more = &kernel,
		.nmore = R->kern &&
			 (!only_overwrite || R->o->kernel_channel.overwrite),
		.env_extra = env,
		.nenv_extra = ne,
	};
	rc = lt_consumer_write_metadata(&R->cons, dir, only_overwrite, &m);
out:
	free(env_store);
	free(env);
	return rc;
}

static int write_metadata(struct rec *R)
{
	R->meta_dirty = 0;
	return write_metadata_to(R, R->o->dir, 0);
}

/* The kernel channel's packets into a snapshot's directory. */
struct kernel_snap {
	const char *dir;
	struct lt_stream_out *out; /* per CPU */
};

/* A kernel packet of cpu appended to dir/kernel_CPU. */
static int write_kernel_packet(struct lt_stream_out *out, const char *dir,
			       uint32_t cpu, const void *packet, size_t len)
{
	char name[64];
	snprintf(name, sizeof(name), "kernel_%u", cpu);
	return lt_stream_write(out, dir, name, packet, len);
}

static int kernel_snap_packet(void *arg, uint32_t cpu, const void *packet,
			      size_t len)
{
	struct kernel_snap *ks = arg;
	return write_kernel_packet(&ks->out[cpu], ks->dir, cpu, packet, len);
}

/* An overwrite kernel channel's newest packets into dir; how many. */
static int kernel_snapshot(struct rec *R, const char *dir)
{
	uint32_t n = lt_kernel_ncpus(R->kern);
	struct kernel_snap ks = { dir, calloc(n, sizeof(*ks.out)) };
	if (!ks.out)
		return -ENOMEM;
	for (uint32_t c = 0; c < n; c++)
		lt_stream_init(&ks.out[c]);
	int packets = lt_kernel_snapshot(R->kern, kernel_snap_packet, &ks);
	for (uint32_t c = 0; c < n; c++)
		lt_stream_close(&ks.out[c]);
	free(ks.out);
	return packets;
}

/*
 * DIR/snapshot-N: the newest sub-buffers of every overwrite channel of
 * every process and of an overwrite kernel channel (the current partial
 * ones flushed), as a trace of its own, on one timeline.
 */
static int take_snapshot(struct rec *R, const char *why, const char *trigger,
			 char *out, size_t cap)
{
	char dir[PATH_MAX];
	int packets = 0, rc;

	snprintf(dir, sizeof(dir), "%s/snapshot-%d", R->o->dir,
		 R->res->snapshots);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	refresh_users(R, 0);
	packets = lt_consumer_snapshot(&R->cons, dir);
	if (R->kern && R->o->kernel_channel.overwrite) {
		int n = kernel_snapshot(R, dir);
		packets += n > 0 ? n : 0;
	}
	rc = write_metadata_to(R, dir, 1);
	if (rc)
		return rc;
	R->res->snapshots++;
	snprintf(out, cap, "snapshot %s: %d packets (%s)", dir, packets, why);
	fprintf(stderr, "lowtrace: %s\n", out);
	if (R->o->on_snapshot)
		R->o->on_snapshot(R->o->on_snapshot_arg, dir, trigger);
	return 0;
}

static void stop_recording(struct rec *R, const char *why)
{
	if (R->stopped)
		return;
	finish(R);
	R->stopped = 1;
	R->res->stopped = 1;
	fprintf(stderr,
		"lowtrace: recording stopped (%s); the trace in %s is "
		"complete, %s\n",
		why, R->o->dir,
		R->o->argv ? "the command runs on untraced" :
			     "the programs attached run on, detached");
}

static int on_trigger_act(struct rec *R, struct rproc *p,
			  const struct lt_msg_trigger *m);

/* lt_trigger("NAME") in a traced process: its action, unless held off. */
static void trigger_reply(struct rproc *p, int status)
{
	struct lt_msg_reply rep;
	memset(&rep, 0, sizeof(rep));
	lt_proto_init(&rep.h, LT_MSG_REPLY, sizeof(rep));
	rep.status = status;
	lt_proto_send(p->fd, &rep, sizeof(rep), NULL, 0);
}

/* The traced thread waits for the reply: a snapshot holds the events
 * just before its trigger. */
static void on_trigger(struct rec *R, struct rproc *p,
		       const struct lt_msg_trigger *m)
{
	int st = on_trigger_act(R, p, m);
	trigger_reply(p, st);
}

static int on_trigger_act(struct rec *R, struct rproc *p,
			  const struct lt_msg_trigger *m)
{
	char why[160], out[PATH_MAX + 64];
	const char *action = "snapshot";

	if (!lt_proto_str_ok(m->name, sizeof(m->name)))
		return -EINVAL;
	R->res->triggers++;
	for (int i = 0; i < R->o->non_trigger; i++) {
		const char *t = R->o->on_trigger[i];
		size_t n = strlen(m->name);
		if (strncmp(t, m->name, n) == 0 && t[n] == '=')
			action = t + n + 1;
	}
	int k;
	for (k = 0; k < R->nheld; k++)
		if (strcmp(R->held[k].name, m->name) == 0)
			break;
	if (k < R->nheld &&
	    now_ms() - R->held[k].last_ms < R->o->trigger_holdoff_ms) {
		R->res->triggers_held++;
		return -EBUSY;
	}
	if (k == R->nheld && R->nheld < 32)
		snprintf(R->held[R->nheld++].name, LT_PROTO_NAME, "%s",
			 m->name);
	if (k < R->nheld)
		R->held[k].last_ms = now_ms();
	snprintf(why, sizeof(why), "trigger %s in process %d", m->name, p->pid);
	if (strcmp(action, "stop") == 0) {
		stop_recording(R, why);
		return 0;
	}
	if (R->stopped)
		return -EINVAL;
	int rc = take_snapshot(R, why, m->name, out, sizeof(out));
	if (rc)
		fprintf(stderr, "lowtrace: record: snapshot failed: %s\n",
			strerror(-rc));
	return rc;
}

static void on_ctl(struct rec *R, struct rproc *p, const struct lt_msg_ctl *m)
{
	static struct lt_msg_reply rep;
	int alive = 0;
	uint64_t ev = 0, lost = lt_consumer_lost(&R->cons);

	memset(&rep, 0, sizeof(rep));
	lt_proto_init(&rep.h, LT_MSG_REPLY, sizeof(rep));
	for (int i = 0; i < R->nprocs; i++)
		alive += R->procs[i]->fd >= 0 && R->procs[i]->pid > 0;
	for (int ch = 0; ch < R->o->nchannels; ch++)
		ev += R->res->ch[ch].events;
	switch (m->op) {
	case LT_CTL_STATUS:
		snprintf(rep.text, sizeof(rep.text),
			 "session %s: %s to %s; %d processes joined, %d "
			 "running; %llu events written, %llu lost so far; %d "
			 "snapshots",
			 R->o->session_name,
			 R->stopped ? "stopped, was recording" : "recording",
			 R->o->dir, R->res->processes, alive,
			 (unsigned long long)ev, (unsigned long long)lost,
			 R->res->snapshots);
		break;
	case LT_CTL_STOP:
		stop_recording(R, "lowtrace stop");
		snprintf(rep.text, sizeof(rep.text),
			 "session %s stopped; trace complete in %s",
			 R->o->session_name, R->o->dir);
		break;
	case LT_CTL_SNAPSHOT: {
		int has = R->kern && R->o->kernel_channel.overwrite;
		for (int ch = 0; ch < R->o->nchannels; ch++)
			has |= R->o->channels[ch].overwrite;
		if (!has) {
			rep.status = -EINVAL;
			snprintf(rep.text, sizeof(rep.text),
				 "session %s has no overwrite channel to "
				 "snapshot (record with --channel "
				 "NAME:mode=overwrite)",
				 R->o->session_name);
		} else if (R->stopped) {
			rep.status = -EINVAL;
			snprintf(rep.text, sizeof(rep.text),
				 "session %s is stopped", R->o->session_name);
		} else {
			rep.status = take_snapshot(R, "lowtrace snapshot", NULL,
						   rep.text, sizeof(rep.text));
			if (rep.status)
				snprintf(rep.text, sizeof(rep.text),
					 "snapshot failed: %s",
					 strerror(-rep.status));
		}
		break;
	}
	default:
		rep.status = -EINVAL;
		snprintf(rep.text, sizeof(rep.text), "unknown request %u",
			 m->op);
	}
	lt_proto_send(p->fd, &rep, sizeof(rep), NULL, 0);
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
static int on_hello(struct rec *R, struct rproc *p,
		    const struct lt_msg_hello *m)
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

static int on_event(struct rec *R, struct rproc *p, const void *buf, size_t len)
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
		if (lt_probe_match(R->o->rules[i].pattern, ev.name))
			R->res->patterns_unmatched &= ~(1ull << i);
	R->meta_dirty = 1;
	return 0;
}

/* An attached program's line for the user (a rule it refused). */
static void on_note(struct rproc *p, const struct lt_msg_note *m)
{
	if (lt_proto_str_ok(m->text, sizeof(m->text)))
		fprintf(stderr, "lowtrace: record: %s\n", m->text);
	else
		fprintf(stderr,
			"lowtrace: record: a malformed note from process "
			"%d\n",
			p->pid);
}

/* Reads what a connection has; 0, or <0 when it is to be closed. */
static int on_readable(struct rec *R, struct rproc *p)
{
	static union {
		char buf[LT_PROTO_MAX];
		struct lt_msg_hdr h;
	} u;
	for (;;) {
		ssize_t n = recv(p->fd, u.buf, sizeof(u.buf), MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -EPIPE; /* the process is gone */
		enum lt_msg_type type;
		if (lt_proto_check(u.buf, (size_t)n, &type)) {
			fprintf(stderr,
				"lowtrace: record: malformed message from "
				"process %d; closing its connection\n",
				p->pid);
			return -EPROTO;
		}
		int rc = 0;
		if (type == LT_MSG_HELLO)
			rc = on_hello(R, p, (const void *)u.buf);
		else if (type == LT_MSG_EVENT && p->pid)
			rc = on_event(R, p, u.buf, (size_t)n);
		else if (type == LT_MSG_TRIGGER && p->pid)
			on_trigger(R, p, (const void *)u.buf);
		else if (type == LT_MSG_NOTE && p->pid)
			on_note(p, (const void *)u.buf);
		else if (type == LT_MSG_CTL && !p->pid)
			on_ctl(R, p, (const void *)u.buf);
		else
			rc = -EPROTO;
		if (rc) {
			fprintf(stderr,
				"lowtrace: record: refused a message from "
				"process %d: %s\n",
				p->pid, strerror(-rc));
			return rc;
		}
	}
}

static int listen_socket(struct rec *R)
{
	char dir[PATH_MAX];
	int rc = lt_proto_socket_dir(dir, sizeof(dir));
	if (rc)
		return rc;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (snprintf(R->sock_path, sizeof(R->sock_path), "%s/%s.sock", dir,
		     R->o->session_name) >= (int)sizeof(R->sock_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, R->sock_path, sizeof(sa.sun_path));
	R->lsock = socket(AF_UNIX,
			  SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (R->lsock < 0)
		return -errno;
	unlink(R->sock_path);
	if (bind(R->lsock, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(R->sock_path, 0600) < 0 || listen(R->lsock, 64) < 0)
		return -errno;
	return 0;
}

static void accept_all(struct rec *R)
{
	for (;;) {
		int fd = accept4(R->lsock, NULL, NULL,
				 SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		struct rproc *p =
			R->nprocs < MAX_PROCS ? calloc(1, sizeof(*p)) : NULL;
		if (!p) {
			close(fd);
			continue;
		}
		p->fd = fd;
		R->procs[R->nprocs++] = p;
	}
}

/* The user pid runs as, by name if it has one. */
static void owner_of(int pid, char *out, size_t cap)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (stat(path, &st) < 0) {
		snprintf(out, cap, "?");
		return;
	}
	struct passwd *pw = getpwuid(st.st_uid);
	if (pw)
		snprintf(out, cap, "%s", pw->pw_name);
	else
		snprintf(out, cap, "%u", (unsigned)st.st_uid);
}

/*
 * Attaches a running program: its rendezvous hands over a connection,
 * served from then on as one made to the session's socket.  0, or -errno
 * with why in text (-ECONNREFUSED: it has no rendezvous).
 */
static int attach_app(struct rec *R, int pid, char *text, size_t cap)
{
	int fd = -1;
	int rc = lt_apps_request(pid, LT_ATTACH_JOIN, R->o->session_name,
				 R->sock_path, &fd, text, cap);
	if (rc == -ECONNREFUSED || rc == -ENOENT) {
		lt_apps_why_not(pid, text, cap);
		return -ECONNREFUSED;
	}
	if (rc == -EPERM) {
		char user[64];
		owner_of(pid, user, sizeof(user));
		snprintf(text, cap,
			 "process %d belongs to user %s: only %s or root can "
			 "attach",
			 pid, user, user);
	} else if (rc && !text[0]) {
		snprintf(text, cap, "process %d: %s", pid, strerror(-rc));
	}
	if (rc)
		return rc;
	struct rproc *p = R->nprocs < MAX_PROCS ? calloc(1, sizeof(*p)) : NULL;
	if (!p) {
		close(fd);
		return -ENOMEM;
	}
	p->fd = fd;
	p->asked_pid = pid;
	R->procs[R->nprocs++] = p;
	R->res->attached++;
	return 0;
}

/* The -p programs, attached before the recording starts; 0, or -errno
 * after a message.  A process without a rendezvous is left to -k, -u
 * and --probe, if given. */
static int attach_given(struct rec *R)
{
	const struct lt_rec_options *o = R->o;
	int kernel = o->nkernel || o->nusdt || o->nprobes;
	for (int i = 0; i < o->npids; i++) {
		char text[1024];
		int rc = attach_app(R, o->pids[i], text, sizeof(text));
		if (!rc || (rc == -ECONNREFUSED && kernel))
			continue;
		fprintf(stderr, "lowtrace: record: %s\n", text);
		return rc;
	}
	return 0;
}

/* Whether pid descends from a process of the recording. */
static int in_tree(struct rec *R, int pid)
{
	for (int depth = 0; pid > 1 && depth < 16; depth++) {
		for (int i = 0; i < R->nprocs; i++)
			if (R->procs[i]->pid == pid)
				return 1;
		for (int i = 0; i < R->o->npids; i++)
			if (R->o->pids[i] == pid)
				return 1;
		pid = parent_of(pid);
	}
	return 0;
}

static int asked_before(struct rec *R, uint64_t inode)
{
	for (int i = 0; i < R->nasked; i++)
		if (R->asked[i] == inode)
			return 1;
	/* when full, a slot taken at random: its process is likely gone */
	R->asked[R->nasked < 1024 ? R->nasked++ : (int)(inode % 1024)] = inode;
	return 0;
}

/*
 * Whether pid is connected, attached (-p) or joined.  Asked again, a
 * program still in its handshake would answer only once that ends, which
 * waits for this recorder, blocked in the request: 5 s lost, and another
 * program's HELLO unanswered past its 10 s.
 */
static int attached(const struct rec *R, int pid)
{
	for (int i = 0; i < R->nprocs; i++)
		if (R->procs[i]->fd >= 0 &&
		    (R->procs[i]->pid == pid || R->procs[i]->asked_pid == pid))
			return 1;
	return 0;
}

/*
 * Every 100 ms: programs that appeared since, attached if they descend
 * from one of the recording (a child that forked, a program exec()
 * started) or, with --all-apps, if they are the user's.  A child that
 * joined on its own at fork refuses a second time (-EALREADY).
 */
static void track_apps(struct rec *R)
{
	const struct lt_rec_options *o = R->o;
	if ((!o->npids && !o->all_apps) || R->stopped ||
	    now_ms() - R->last_apps_ms < 100)
		return;
	R->last_apps_ms = now_ms();
	struct lt_app apps[256];
	int n = lt_apps_find(apps, 256);
	for (int i = 0; i < n; i++) {
		int pid = apps[i].pid;
		char path[64], text[1024];
		struct stat st;
		if (pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d", pid);
		if (stat(path, &st) < 0)
			continue;
		/* --all-apps: the user's (root: everyone's); -p: the tree's,
		 * whoever runs them (root attaches another user's) */
		if (o->all_apps ? getuid() && st.st_uid != getuid() :
				  !in_tree(R, pid))
			continue;
		/* asked again once the connection closed: an exec() */
		if (attached(R, pid) || asked_before(R, apps[i].inode))
			continue;
		int rc = attach_app(R, pid, text, sizeof(text));
		if (rc && rc != -EALREADY && o->all_apps)
			fprintf(stderr, "lowtrace: record: %s\n", text);
	}
}

static int cannot_run(struct rec *R, int err)
{
	fprintf(stderr, "lowtrace: record: cannot run %s: %s\n", R->o->argv[0],
		strerror(-err));
	R->res->exit_status = 127;
	return err;
}

/* Runs the command with the session's socket in its environment; 0, or
 * -errno after a message. */
static int start_command(struct rec *R)
{
	int pfd[2];
	signal(SIGINT, SIG_IGN); /* the command gets it and ends; we finish */
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return cannot_run(R, -errno);
	pid_t pid = fork();
	if (pid < 0)
		return cannot_run(R, -errno);
	if (pid == 0) {
		close(pfd[0]);
		setenv("LOWTRACE_SESSION_SOCK", R->sock_path, 1);
		unsetenv("LOWTRACE_TRACE");
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execvp(R->o->argv[0], R->o->argv);
		int e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	int e = 0;
	ssize_t n = read(pfd[0], &e, sizeof(e));
	close(pfd[0]);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(pid, NULL, 0);
		return cannot_run(R, -e);
	}
	R->child = pid;
	R->child_alive = 1;
	if (R->kern)
		lt_kernel_add_pid(R->kern, pid);
	return 0;
}

static uint64_t now_ms(void)
{
	return lt_clock_read_monotonic() / 1000000;
}

static int kernel_packet(void *arg, uint32_t cpu, const void *packet,
			 size_t len)
{
	struct rec *R = arg;

	if (R->stopped)
		return 0;
	if (write_kernel_packet(&R->kout[cpu], R->o->dir, cpu, packet, len) ==
	    0) {
		R->res->kernel_packets++;
		R->res->kernel_bytes += len;
	}
	return 0;
}

/* One look through /proc: adds the processes whose parent is kept;
 * returns how many. */
static int add_children(struct rec *R)
{
	int added = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid <= 0 || lt_kernel_has_pid(R->kern, pid))
			continue;
		int ppid = parent_of(pid);
		if (ppid > 0 && lt_kernel_has_pid(R->kern, ppid)) {
			lt_kernel_add_pid(R->kern, pid);
			added++;
		}
	}
	if (d)
		closedir(d);
	return added;
}

/* Reads the command line of each process of the tree, for the metadata;
 * a process gone keeps its last one. */
static void read_cmdlines(struct rec *R)
{
	const pid_t *pids;
	size_t n = lt_kernel_pids(R->kern, &pids);
	for (size_t i = 0; i < n; i++) {
		char buf[160];
		int len;
		if (pids[i] <= 0 ||
		    (len = lt_apps_cmdline(pids[i], buf, sizeof(buf))) < 0)
			continue;
		int k = 0;
		while (k < R->ncmds && R->cmds[k].pid != pids[i])
			k++;
		if (k == R->ncmds) {
			if (R->ncmds == MAX_CMDLINES)
				continue;
			R->ncmds++;
		}
		R->cmds[k].pid = pids[i];
		memcpy(R->cmds[k].text, buf, (size_t)len + 1);
	}
}

/*
 * Without --all the kernel channel keeps the command's process tree:
 * the processes that joined, and now and then those whose parent is kept
 * (found in /proc; a child is missed until the next look).
 */
static void track_tree(struct rec *R)
{
	if (!R->kern || R->o->kernel_all || now_ms() - R->last_scan_ms < 100)
		return;
	R->last_scan_ms = now_ms();
	for (int round = 0; round < 4 && add_children(R); round++)
		;
	read_cmdlines(R);
}

static void print_err(const char *what, const char *err, int rc)
{
	const char *m = err[0] ? err : strerror(-rc);
	if (strncmp(m, "lowtrace: ", 10) == 0)
		m += 10;
	fprintf(stderr, "lowtrace: record: %s%s\n", what, m);
}

/* 1 if a -k item is a kprobe (a dynamic event), not a tracepoint. */
static int is_kprobe(const char *p)
{
	return strncmp(p, "kprobe:", 7) == 0 ||
	       strncmp(p, "kretprobe:", 10) == 0;
}

/* The uprobes and kprobes, created before the kernel channel reads
 * tracefs's events. */
static int open_dynamic(struct rec *R, const char **kprobes, size_t nk)
{
	char err[1024] = "";
	const struct lt_rec_options *o = R->o;
	struct lt_dyn_spec ds = {
		.usdt = o->usdt,
		.nusdt = (size_t)o->nusdt,
		.funcs = o->probes,
		.nfuncs = (size_t)o->nprobes,
		.kprobes = kprobes,
		.nkprobes = nk,
		.prog = o->argv ? o->argv[0] : NULL,
		.pid = o->attach_pid,
	};
	int rc = lt_dyn_create(&ds, &R->dyn, err, sizeof(err));
	if (rc)
		print_err("", err, rc);
	return rc;
}

static int open_kernel(struct rec *R)
{
	char err[512] = "";
	static const pid_t none = -1; /* until the command's pid is known */
	const char *pats[66], *kprobes[64];
	size_t np = 0, nk = 0;
	for (int i = 0; i < R->o->nkernel; i++) {
		if (is_kprobe(R->o->kernel[i]))
			kprobes[nk++] = R->o->kernel[i];
		else
			pats[np++] = R->o->kernel[i];
	}
	int rc = open_dynamic(R, kprobes, nk);
	if (rc)
		return rc;
	if (lt_dyn_pattern(R->dyn))
		pats[np++] = lt_dyn_pattern(R->dyn);
	struct lt_kernel_options ko = {
		.stream_id = R->kernel_stream,
		.pid = (uint32_t)getpid(),
		.n_subbufs = R->o->kernel_channel.n_subbufs,
		.subbuf_size = (uint32_t)R->o->kernel_channel.subbuf_size,
		.overwrite = R->o->kernel_channel.overwrite,
		.flush_ms = R->o->switch_ms,
		.pids = R->o->kernel_all ? NULL : &none,
		.npids = R->o->kernel_all ? 0 : 1,
	};
	lt_dyn_aliases(R->dyn, &ko.aliases, &ko.naliases);
	memcpy(ko.uuid, R->uuid, 16);
	rc = lt_kernel_open(pats, np, &ko, &R->kern, err, sizeof(err));
	if (rc) {
		print_err("-k: ", err, rc);
		return rc;
	}
	if (R->o->attach_pid > 0) {
		/* the process and the children it has now; forks from here
		 * on are followed by the kernel channel */
		lt_kernel_add_pid(R->kern, R->o->attach_pid);
		for (int round = 0; round < 4 && add_children(R); round++)
			;
	}
	uint32_t n = lt_kernel_ncpus(R->kern);
	R->kout = calloc(n, sizeof(*R->kout));
	if (!R->kout)
		return -ENOMEM;
	for (uint32_t c = 0; c < n; c++)
		lt_stream_init(&R->kout[c]);
	return 0;
}

static void close_kernel(struct rec *R)
{
	if (!R->kern)
		return;
	struct lt_kernel_stats ks;
	lt_kernel_get_stats(R->kern, &ks);
	R->res->kernel_events = ks.events;
	R->res->kernel_lost = lt_kernel_lost(R->kern);
	for (uint32_t c = 0; c < lt_kernel_ncpus(R->kern); c++)
		lt_stream_close(&R->kout[c]);
}

/* The end of the recording: what the buffers hold, the final metadata. */
static void finish(struct rec *R)
{
	if (R->kern && !R->o->kernel_all)
		read_cmdlines(R);
	if (R->kern)
		lt_kernel_flush(R->kern, kernel_packet, R);
	refresh_users(R, 1);
	lt_consumer_finish(&R->cons);
	lt_clock_refine();
	write_metadata(R);
}

/* Everything the recording needs before the command starts; 0, or
 * -errno after a message. */
static int open_recording(struct rec *R, const struct lt_rec_options *o,
			  struct lt_rec_result *res)
{
	memset(R, 0, sizeof(*R));
	memset(res, 0, sizeof(*res));
	R->o = o;
	R->res = res;
	R->lsock = -1;
	R->idle_ms = 1;
	res->patterns_unmatched =
		o->nrules >= 64 ? ~0ull : ((1ull << o->nrules) - 1);
	lt_ctf_uuid_make(R->uuid);
	if (gethostname(R->hostname, sizeof(R->hostname) - 1) < 0)
		snprintf(R->hostname, sizeof(R->hostname), "unknown");
	lt_consumer_init(&R->cons, o->dir, R->uuid, o->switch_ms);
	R->cons.count_events = 1;
	R->cons.who = "record: ";
	R->per_user = o->buffers == LT_BUFFERS_PER_USER ||
		      (o->buffers == LT_BUFFERS_DEFAULT &&
		       (o->all_apps || o->npids > 1));
	if (R->per_user && !lt_ring_rseq_usable()) {
		fprintf(stderr,
			"lowtrace: record: buffers shared per user need rseq "
			"(x86_64, glibc 2.35 or later, LOWTRACE_RING_SYNC "
			"not \"atomic\"); each process gets buffers of its "
			"own\n");
		R->per_user = 0;
	}
	res->per_user = R->per_user;
	int rc = lt_clock_init();
	if (rc)
		return rc;
	rc = listen_socket(R);
	if (rc) {
		fprintf(stderr,
			"lowtrace: record: cannot listen on %s: %s (check "
			"$XDG_RUNTIME_DIR or /tmp)\n",
			R->sock_path[0] ? R->sock_path : "the session socket",
			strerror(-rc));
		return rc;
	}
	if (o->nkernel || o->nusdt || o->nprobes) {
		R->kernel_stream = R->next_stream++;
		rc = open_kernel(R);
		if (rc)
			return rc;
		res->kernel_channel = 1;
	}
	write_metadata(R);
	return 0;
}

static void close_recording(struct rec *R)
{
	if (R->lsock >= 0) {
		close(R->lsock);
		unlink(R->sock_path);
	}
	lt_consumer_destroy(&R->cons);
	for (int i = 0; i < R->nprocs; i++)
		free_proc(R->procs[i]);
	for (int i = 0; i < R->nusers; i++) {
		lt_shared_free(R->users[i]);
		free(R->users[i]);
	}
	if (R->kern) {
		close_kernel(R);
		lt_kernel_close(R->kern);
		free(R->kout);
	}
	/* after the perf events on them are closed */
	lt_dyn_destroy(R->dyn);
}

/* Waits up to idle_ms for a connection or a message. */
static void wait_for_work(struct rec *R)
{
	struct pollfd pf[MAX_PROCS + 1];
	int n = 0;
	pf[n++] = (struct pollfd){ R->lsock, POLLIN, 0 };
	for (int i = 0; i < R->nprocs; i++)
		if (R->procs[i]->fd >= 0)
			pf[n++] = (struct pollfd){ R->procs[i]->fd, POLLIN, 0 };
	poll(pf, (nfds_t)n, R->idle_ms);
}

/* Packets written so far, the kernel's too. */
static uint64_t packets_written(const struct rec *R)
{
	uint64_t n = R->res->kernel_packets;
	for (int ch = 0; ch < R->o->nchannels; ch++)
		n += R->res->ch[ch].packets;
	return n;
}

/* A round that wrote nothing doubles the next wait, up to 8 ms: the
 * default buffers hold far more than that at 10 M events/s. */
static void pace(struct rec *R, uint64_t before)
{
	if (packets_written(R) != before)
		R->idle_ms = 1;
	else if (R->idle_ms < 8)
		R->idle_ms *= 2;
}

static void poll_kernel(struct rec *R)
{
	if (!R->kern)
		return;
	lt_kernel_poll(R->kern, kernel_packet, R);
	track_tree(R);
}

static void close_connection(struct rec *R, struct rproc *p)
{
	close(p->fd);
	p->fd = -1;
	if (p->pid && !R->stopped)
		collect_dead(R, p);
}

/* Reads every connection; one that closed has its buffers collected.
 * Returns how many processes that joined are still connected. */
static int serve_processes(struct rec *R)
{
	int alive = 0;
	for (int i = 0; i < R->nprocs; i++) {
		struct rproc *p = R->procs[i];
		if (p->fd < 0)
			continue;
		if (on_readable(R, p) < 0)
			close_connection(R, p);
		else
			alive += p->pid > 0;
	}
	return alive;
}

/* Per-user buffers: the ids claimed since the last look whose
 * descriptions came.  A description sent before a claim seen is in its
 * process's socket: read now if may_serve (not from inside a message's
 * handling). */
static void refresh_users(struct rec *R, int may_serve)
{
	int waiting = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < R->nusers; i++) {
			int w;
			if (lt_shared_refresh(R->users[i], &w) > 0)
				R->meta_dirty = 1;
			waiting |= w;
		}
		if (!waiting || pass || !may_serve)
			break;
		serve_processes(R);
	}
}

/* The consumer's pass: complete sub-buffers, new event descriptions, the
 * switch timer. */
static void consume(struct rec *R)
{
	if (R->stopped)
		return;
	refresh_users(R, 1);
	lt_consumer_drain(&R->cons);
	if (R->meta_dirty)
		write_metadata(R);
	lt_consumer_switch_timer(&R->cons);
}

/* Notes the command's end, and its exit status as a shell gives it. */
static void watch_command(struct rec *R)
{
	int st;
	if (!R->o->argv || !R->child_alive ||
	    waitpid(R->child, &st, WNOHANG) != R->child)
		return;
	R->child_alive = 0;
	R->child_done_ms = now_ms();
	if (WIFEXITED(st)) {
		R->res->exit_status = WEXITSTATUS(st);
	} else {
		R->res->exit_status = 128 + WTERMSIG(st);
		R->res->crashed++;
	}
}

/* Done when the command and every process that joined are, or a little
 * after the command if orphans live on. */
static int recording_done(const struct rec *R, int alive)
{
	return !R->child_alive &&
	       (!alive || now_ms() - R->child_done_ms > 2000);
}

static void record_until_done(struct rec *R)
{
	for (;;) {
		wait_for_work(R);
		uint64_t before = packets_written(R);
		accept_all(R);
		poll_kernel(R);
		int alive = serve_processes(R);
		consume(R);
		pace(R, before);
		watch_command(R);
		track_apps(R);
		watch_attached(R);
		if (recording_done(R, alive))
			break;
	}
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	interrupted = sig;
}

/*
 * SIGTERM or SIGHUP (and SIGINT with -p and no command) end the
 * recording as the command's end would: the buffers are drained and the
 * probes created removed (a recorder killed by a signal it cannot catch
 * leaves them to the next one).  The command is left running.  With -p
 * and no command, the recording also ends when the process exits.
 */
static int pid_gone(int pid)
{
	return (kill(pid, 0) < 0 && errno == ESRCH) || proc_gone(pid);
}

/* Without a command: whether every -p process has ended. */
static int attached_gone(const struct rec *R)
{
	if (R->o->argv || R->o->all_apps)
		return 0;
	if (pid_gone(R->o->attach_pid) && !R->o->npids)
		return 1;
	for (int i = 0; i < R->o->npids; i++)
		if (!pid_gone(R->o->pids[i]))
			return 0;
	return R->o->npids > 0;
}

static void watch_attached(struct rec *R)
{
	if (!R->child_alive)
		return;
	int gone = attached_gone(R);
	/* `lowtrace stop` without a command ends it: the programs attached
	 * detach when their connections close */
	int stopped = R->stopped && !R->o->argv;
	if (!interrupted && !gone && !stopped)
		return;
	R->res->attached_exited = gone && !interrupted;
	if (interrupted && R->o->argv)
		R->res->exit_status = 128 + interrupted;
	R->child_alive = 0;
	R->child_done_ms = now_ms() - 2000;
}

int lt_record_run(const struct lt_rec_options *o, struct lt_rec_result *res)
{
	static struct rec R;
	struct sigaction sa = { .sa_handler = on_interrupt,
				.sa_flags = SA_RESTART };
	/* before the probes exist; exec gives the command the default
	 * actions back */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	int rc = open_recording(&R, o, res);
	if (!rc)
		rc = attach_given(&R);
	if (!rc && !o->argv) {
		sigaction(SIGINT, &sa, NULL);
		signal(SIGPIPE, SIG_IGN);
		R.child_alive = 1;
	} else if (!rc) {
		rc = start_command(&R);
	}
	if (!rc) {
		record_until_done(&R);
		if (!R.stopped)
			finish(&R);
	}
	close_recording(&R);
	return rc;
}
