/*
 * recorder.c - the `lowtrace record` process (recorder.h).
 *
 * It listens on a unix socket, starts the command with
 * LOWTRACE_SESSION_SOCK naming it, and gives every process that joins
 * (agent.c) ring buffers of its own: one memfd per channel, created here,
 * so that what a process committed is still here after it dies.  One
 * thread polls the socket and every process's buffers: complete
 * sub-buffers of discard channels go to stream files as they fill, a
 * switch timer flushes partial ones, new event descriptions rewrite the
 * metadata.  When a process's socket closes (exit, crash, exec), its
 * buffers are flushed and drained here; a sub-buffer left incomplete by a
 * writer that died mid-record keeps its whole records, and the torn ones
 * are counted lost.  Overwrite channels are written at the end.
 *
 * Each process's channel is a stream class of its own (its event ids are
 * its own), streams named CHANNEL_PID_CPU (CHANNEL_PID.N_CPU for the N-th
 * program a pid exec()s).
 */
#include "session/recorder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
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

#include "ctf/metadata.h"
#include "ctf/packet.h"
#include "kernel/kernel.h"
#include "probe/probe.h"
#include "ring/ring.h"
#include "session/streams.h"

#define MAX_PROCS 1024

struct rproc {
	int fd; /* the connection; -1 once closed */
	int pid, ppid, gen;
	char comm[16];
	struct lt_ring *rings[LT_PROTO_MAX_CHANNELS];
	uint32_t stream_id[LT_PROTO_MAX_CHANNELS];
	struct lt_stream_out *out[LT_PROTO_MAX_CHANNELS]; /* per CPU */
	struct lt_proto_event *ev; /* by id */
	struct lt_ctf_event *byid; /* the same, as the walker wants them */
	uint32_t nev; /* slots in ev and byid */
	struct lt_ctf_event *ctf; /* the described ones, for metadata */
	uint32_t nctf;
};

struct rec {
	const struct lt_rec_options *o;
	struct lt_rec_result *res;
	uint8_t uuid[16];
	int lsock;
	char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct rproc *procs[MAX_PROCS];
	int nprocs;
	uint32_t next_stream;
	int meta_dirty;
	char hostname[256];
	char *scratch; /* one sub-buffer, for recovery */
	uint64_t scratch_size;
	int stopped;
	struct lt_kernel *kern;
	struct lt_stream_out *kout; /* per CPU */
	uint32_t kernel_stream;
	pid_t child;
	uint64_t last_scan_ms;
	struct {
		char name[LT_PROTO_NAME];
		uint64_t last_ms;
	} held[32];
	int nheld;
};

static uint64_t now_ms(void);
static void finish(struct rec *R);

static const struct lt_ctf_event *lookup_event(void *arg, uint32_t id)
{
	struct rproc *p = arg;
	if (id >= p->nev || !p->byid[id].name)
		return NULL;
	return &p->byid[id];
}

static void count_record(void *arg, const struct lt_ctf_record *r)
{
	(void)r;
	(*(uint64_t *)arg)++;
}

static void stream_name(const struct rec *R, const struct rproc *p, int ch,
			uint32_t cpu, char *out, size_t cap)
{
	if (p->gen)
		snprintf(out, cap, "%s_%d.%d_%u", R->o->channels[ch].name,
			 p->pid, p->gen, cpu);
	else
		snprintf(out, cap, "%s_%d_%u", R->o->channels[ch].name, p->pid,
			 cpu);
}

static void write_packet(struct rec *R, struct rproc *p, int ch, uint32_t cpu,
			 const void *data, size_t len)
{
	struct lt_rec_channel_stats *st = &R->res->ch[ch];
	char name[200];
	uint64_t n = 0;

	stream_name(R, p, ch, cpu, name, sizeof(name));
	lt_ctf_walk_records(data, len, lookup_event, p, count_record, &n);
	if (lt_stream_write(&p->out[ch][cpu], R->o->dir, name, data, len)) {
		st->lost_disk++;
		return;
	}
	st->packets++;
	st->bytes += len;
	st->events += n;
}

static void consume_proc(struct rec *R, struct rproc *p)
{
	for (int ch = 0; ch < R->o->nchannels; ch++) {
		struct lt_ring *r = p->rings[ch];
		if (!r || R->o->channels[ch].overwrite)
			continue;
		for (uint32_t cpu = 0; cpu < r->n_cpus; cpu++) {
			struct lt_ring_subbuf sb;
			while (lt_ring_get_subbuf(r, cpu, &sb) == 0) {
				write_packet(R, p, ch, cpu, sb.data, sb.len);
				lt_ring_put_subbuf(r, cpu);
			}
		}
	}
}

struct recover {
	size_t ends[8192];
	uint64_t ts[8192];
	int n;
};

static void note_end(void *arg, const struct lt_ctf_record *r)
{
	struct recover *x = arg;
	if (x->n < (int)(sizeof(x->ends) / sizeof(x->ends[0]))) {
		x->ends[x->n] = r->end;
		x->ts[x->n++] = r->ts;
	}
}

/*
 * The sub-buffer at base of a dead process's buffer never completed: some
 * writer reserved space and died before committing.  Writers of one
 * thread commit in offset order, so the committed bytes are a prefix of
 * the records (plus, if it was closed, the padding): keep the whole
 * records of that prefix, count the rest lost.
 */
static void recover_subbuf(struct rec *R, struct rproc *p, int ch, uint32_t cpu,
			   uint64_t base)
{
	struct lt_ring *r = p->rings[ch];
	const uint64_t S = r->subbuf_size;
	struct lt_rec_channel_stats *st = &R->res->ch[ch];
	static struct recover x;
	uint64_t committed, content;

	if (lt_ring_recover_subbuf(r, cpu, base, R->scratch, &committed,
				   &content) < 0) {
		st->lost_crash++; /* not even its header was written */
		return;
	}
	struct lt_packet_header *h = (void *)R->scratch;
	x.n = 0;
	size_t walked = lt_ctf_walk_records(R->scratch, content, lookup_event,
					    p, note_end, &x);
	int keep = 0;
	for (int i = 0; i < x.n; i++) {
		if (x.ends[i] == committed ||
		    x.ends[i] + (S - content) == committed) {
			keep = i + 1;
			break;
		}
		if (x.ends[i] <= committed)
			keep = i + 1; /* interleaved writers: the best bound */
	}
	/* the torn records, and one more where the walk met garbage */
	st->lost_crash += (uint64_t)(x.n - keep) + (walked < content);
	if (!keep)
		return;
	size_t end = x.ends[keep - 1];
	h->content_size = h->packet_size = (uint64_t)end * 8;
	h->timestamp_end = x.ts[keep - 1];
	h->events_discarded = lt_ring_lost(r, cpu) + st->lost_crash;
	write_packet(R, p, ch, cpu, R->scratch, end);
}

/* Whether pid has no thread left that could write (gone, or a zombie). */
static int proc_gone(pid_t pid)
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* "pid (comm) S ...": the state follows the last ')' */
	const char *e = strrchr(buf, ')');
	return e && e[1] == ' ' && (e[2] == 'Z' || e[2] == 'X');
}

/* A process whose socket closed: everything it committed goes to disk. */
static void collect_dead(struct rec *R, struct rproc *p)
{
	/* a process that closed its socket may still be running */
	int gone = proc_gone(p->pid);
	for (int ch = 0; ch < R->o->nchannels; ch++) {
		struct lt_ring *r = p->rings[ch];
		if (!r || R->o->channels[ch].overwrite)
			continue;
		for (uint32_t cpu = 0; cpu < r->n_cpus; cpu++) {
			if (gone)
				lt_ring_flush_quiescent(r, cpu);
			else
				lt_ring_flush(r, cpu);
			uint64_t end = lt_ring_write_end(r, cpu);
			for (;;) {
				struct lt_ring_subbuf sb;
				uint64_t base = lt_ring_read_pos(r, cpu);
				if (base >= end)
					break;
				if (lt_ring_get_subbuf(r, cpu, &sb) == 0) {
					write_packet(R, p, ch, cpu, sb.data,
						     sb.len);
				} else {
					recover_subbuf(R, p, ch, cpu, base);
				}
				lt_ring_put_subbuf(r, cpu);
			}
		}
	}
}

static void free_proc(struct rproc *p)
{
	for (uint32_t i = 0; i < p->nev; i++)
		lt_proto_event_free(&p->ev[i]);
	free(p->ev);
	free(p->byid);
	free(p->ctf);
	for (int ch = 0; ch < LT_PROTO_MAX_CHANNELS; ch++) {
		if (p->out[ch] && p->rings[ch])
			for (uint32_t cpu = 0; cpu < p->rings[ch]->n_cpus;
			     cpu++)
				lt_stream_close(&p->out[ch][cpu]);
		free(p->out[ch]);
		lt_ring_destroy(p->rings[ch]);
	}
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}

static int write_metadata_to(struct rec *R, const char *dir, int only_overwrite)
{
	struct lt_ctf_stream *streams =
		calloc((size_t)R->nprocs * LT_PROTO_MAX_CHANNELS + 2,
		       sizeof(*streams));
	char *env_store = calloc((size_t)R->nprocs + 1, 64);
	const char **env = calloc((size_t)R->nprocs * 2 + 2, sizeof(*env));
	uint32_t n = 0, ne = 0;
	int rc = -ENOMEM;

	if (!streams || !env_store || !env)
		goto out;
	for (int i = 0; i < R->nprocs; i++) {
		struct rproc *p = R->procs[i];
		if (!p->rings[0])
			continue; /* a control client, or not yet joined */
		/* the described events, in id order, for this process */
		free(p->ctf);
		p->ctf = calloc(p->nev + 1, sizeof(*p->ctf));
		if (!p->ctf)
			goto out;
		p->nctf = 0;
		for (uint32_t id = 0; id < p->nev; id++)
			if (p->byid[id].name)
				p->ctf[p->nctf++] = p->byid[id];
		for (int ch = 0; ch < R->o->nchannels; ch++) {
			if (only_overwrite && !R->o->channels[ch].overwrite)
				continue;
			streams[n++] =
				(struct lt_ctf_stream){ p->stream_id[ch],
							R->o->channels[ch].name,
							p->ctf, p->nctf };
		}
		char *name = env_store + (size_t)i * 64;
		snprintf(name, 64, "process_%d_%d", p->pid, p->gen);
		env[ne * 2] = name;
		env[ne * 2 + 1] = p->comm;
		ne++;
	}
	if (R->kern && !only_overwrite) {
		const struct lt_ctf_event *kev;
		uint32_t nk;
		lt_kernel_events(R->kern, &kev, &nk);
		streams[n++] = (struct lt_ctf_stream){ R->kernel_stream,
						       "kernel", kev, nk };
	}
	struct rproc *first = R->nprocs ? R->procs[0] : NULL;
	struct lt_ctf_trace t = {
		.hostname = R->hostname,
		.procname = first ? first->comm : "none",
		.pid = first ? first->pid : 0,
		.clock = lt_clock_calib,
		.clock_source = lt_clock_source_name(),
		.streams = streams,
		.nstreams = n,
		.env_extra = env,
		.nenv_extra = ne,
	};
	memcpy(t.uuid, R->uuid, 16);
	rc = lt_ctf_metadata_write(dir, &t);
	if (rc)
		fprintf(stderr,
			"lowtrace: record: cannot write %s/metadata: %s\n", dir,
			strerror(-rc));
out:
	free(streams);
	free(env_store);
	free(env);
	return rc;
}

static int write_metadata(struct rec *R)
{
	R->meta_dirty = 0;
	return write_metadata_to(R, R->o->dir, 0);
}

struct snap_out {
	struct rec *R;
	struct rproc *p;
	int ch;
	uint32_t cpu;
	const char *dir;
	struct lt_stream_out out;
	int packets;
};

static int snap_to_dir(void *arg, const struct lt_packet_header *h,
		       const void *data, size_t len)
{
	struct snap_out *a = arg;
	char name[200];
	(void)h;
	stream_name(a->R, a->p, a->ch, a->cpu, name, sizeof(name));
	if (lt_stream_write(&a->out, a->dir, name, data, len) == 0)
		a->packets++;
	return 0;
}

/*
 * DIR/snapshot-N: the newest sub-buffers of every overwrite channel of
 * every process (the current partial ones flushed), as a trace of its own.
 */
static int take_snapshot(struct rec *R, const char *why, char *out, size_t cap)
{
	char dir[PATH_MAX];
	int packets = 0, rc;

	snprintf(dir, sizeof(dir), "%s/snapshot-%d", R->o->dir,
		 R->res->snapshots);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	for (int i = 0; i < R->nprocs; i++) {
		struct rproc *p = R->procs[i];
		for (int ch = 0; ch < R->o->nchannels; ch++) {
			struct lt_ring *r = p->rings[ch];
			if (!r || !R->o->channels[ch].overwrite)
				continue;
			for (uint32_t c = 0; c < r->n_cpus; c++) {
				struct snap_out a = { .R = R,
						      .p = p,
						      .ch = ch,
						      .cpu = c,
						      .dir = dir };
				lt_stream_init(&a.out);
				lt_ring_snapshot(r, c, snap_to_dir, &a);
				lt_stream_close(&a.out);
				packets += a.packets;
			}
		}
	}
	rc = write_metadata_to(R, dir, 1);
	if (rc)
		return rc;
	R->res->snapshots++;
	snprintf(out, cap, "snapshot %s: %d packets (%s)", dir, packets, why);
	fprintf(stderr, "lowtrace: %s\n", out);
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
		"complete, the command runs on untraced\n",
		why, R->o->dir);
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
	int rc = take_snapshot(R, why, out, sizeof(out));
	if (rc)
		fprintf(stderr, "lowtrace: record: snapshot failed: %s\n",
			strerror(-rc));
	return rc;
}

static void on_ctl(struct rec *R, struct rproc *p, const struct lt_msg_ctl *m)
{
	static struct lt_msg_reply rep;
	int alive = 0;
	uint64_t ev = 0, lost = 0;

	memset(&rep, 0, sizeof(rep));
	lt_proto_init(&rep.h, LT_MSG_REPLY, sizeof(rep));
	for (int i = 0; i < R->nprocs; i++) {
		alive += R->procs[i]->fd >= 0 && R->procs[i]->pid > 0;
		for (int ch = 0; ch < R->o->nchannels; ch++)
			if (R->procs[i]->rings[ch])
				for (uint32_t c = 0;
				     c < R->procs[i]->rings[ch]->n_cpus; c++)
					lost += lt_ring_lost(
						R->procs[i]->rings[ch], c);
	}
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
		int has = 0;
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
			rep.status = take_snapshot(R, "lowtrace snapshot",
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

/* A new process joined: buffers of its own, and the session's rules. */
static int on_hello(struct rec *R, struct rproc *p,
		    const struct lt_msg_hello *m)
{
	static struct lt_msg_config cfg;
	int fds[LT_PROTO_MAX_CHANNELS];

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
	for (int ch = 0; ch < R->o->nchannels; ch++) {
		const struct lt_rec_channel *c = &R->o->channels[ch];
		struct lt_ring_config rc = {
			.mode = c->overwrite ? LT_RING_OVERWRITE :
					       LT_RING_DISCARD,
			.n_subbufs = c->n_subbufs,
			.subbuf_size = c->subbuf_size,
			.stream_id = R->next_stream++,
			.pid = (uint32_t)p->pid,
			/* the traced process knows whether it has rseq */
			.sync = LT_RING_SYNC_WRITER,
		};
		memcpy(rc.uuid, R->uuid, 16);
		int e = lt_ring_create(&rc, &p->rings[ch]);
		if (e)
			return e;
		p->stream_id[ch] = rc.stream_id;
		p->out[ch] = calloc(p->rings[ch]->n_cpus, sizeof(*p->out[ch]));
		if (!p->out[ch])
			return -ENOMEM;
		for (uint32_t cpu = 0; cpu < p->rings[ch]->n_cpus; cpu++)
			lt_stream_init(&p->out[ch][cpu]);
		fds[ch] = lt_ring_fd(p->rings[ch]);
		memcpy(cfg.channels[ch].name, c->name, LT_PROTO_NAME);
		cfg.channels[ch].stream_id = rc.stream_id;
		cfg.channels[ch].mode = rc.mode;
	}
	memcpy(cfg.rules, R->o->rules,
	       sizeof(cfg.rules[0]) * (size_t)R->o->nrules);
	R->res->processes++;
	R->meta_dirty = 1;
	if (R->kern)
		lt_kernel_add_pid(R->kern, p->pid);
	return lt_proto_send(p->fd, &cfg, sizeof(cfg), fds, R->o->nchannels);
}

static int on_event(struct rec *R, struct rproc *p, const void *buf, size_t len)
{
	struct lt_proto_event ev;
	int rc = lt_proto_event_decode(buf, len, &ev);
	if (rc)
		return rc;
	if (ev.id >= p->nev) {
		uint32_t n = ev.id + 64;
		struct lt_proto_event *a = realloc(p->ev, n * sizeof(*a));
		if (a)
			p->ev = a;
		struct lt_ctf_event *b = realloc(p->byid, n * sizeof(*b));
		if (b)
			p->byid = b;
		if (!a || !b) {
			lt_proto_event_free(&ev);
			return -ENOMEM;
		}
		memset(a + p->nev, 0, (n - p->nev) * sizeof(*a));
		memset(b + p->nev, 0, (n - p->nev) * sizeof(*b));
		p->nev = n;
	}
	lt_proto_event_free(&p->ev[ev.id]);
	p->ev[ev.id] = ev;
	p->byid[ev.id] = (struct lt_ctf_event){ ev.id, ev.name, ev.loglevel,
						ev.fields, ev.nfields };
	for (int i = 0; i < R->o->nrules; i++)
		if (lt_probe_match(R->o->rules[i].pattern, ev.name))
			R->res->patterns_unmatched &= ~(1ull << i);
	R->meta_dirty = 1;
	return 0;
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

static pid_t start_command(struct rec *R, int *err)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		*err = -errno;
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		*err = -errno;
		return -1;
	}
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
		*err = -e;
		return -1;
	}
	return pid;
}

static uint64_t now_ms(void)
{
	return lt_clock_read_monotonic() / 1000000;
}

struct snap_arg {
	struct rec *R;
	struct rproc *p;
	int ch;
	uint32_t cpu;
};

static int snap_write(void *arg, const struct lt_packet_header *h,
		      const void *data, size_t len)
{
	struct snap_arg *a = arg;
	(void)h;
	write_packet(a->R, a->p, a->ch, a->cpu, data, len);
	return 0;
}

static int kernel_packet(void *arg, uint32_t cpu, const void *packet,
			 size_t len)
{
	struct rec *R = arg;
	char name[64];

	if (R->stopped)
		return 0;
	snprintf(name, sizeof(name), "kernel_%u", cpu);
	if (lt_stream_write(&R->kout[cpu], R->o->dir, name, packet, len) == 0) {
		R->res->kernel_packets++;
		R->res->kernel_bytes += len;
	}
	return 0;
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
	for (int round = 0; round < 4; round++) {
		int added = 0;
		DIR *d = opendir("/proc");
		struct dirent *e;
		while (d && (e = readdir(d))) {
			char path[300], buf[512];
			pid_t pid = (pid_t)atoi(e->d_name);
			if (pid <= 0 || lt_kernel_has_pid(R->kern, pid))
				continue;
			snprintf(path, sizeof(path), "/proc/%d/stat", pid);
			FILE *f = fopen(path, "r");
			if (!f)
				continue;
			size_t n = fread(buf, 1, sizeof(buf) - 1, f);
			fclose(f);
			buf[n] = 0;
			/* "pid (comm) state ppid": comm may hold spaces */
			char *rp = strrchr(buf, ')');
			int ppid = 0;
			if (rp && sscanf(rp + 1, " %*c %d", &ppid) == 1 &&
			    ppid > 0 && lt_kernel_has_pid(R->kern, ppid)) {
				lt_kernel_add_pid(R->kern, pid);
				added++;
			}
		}
		if (d)
			closedir(d);
		if (!added)
			break;
	}
}

static int open_kernel(struct rec *R)
{
	char err[512] = "";
	static const pid_t none = -1; /* until the command's pid is known */
	struct lt_kernel_options ko = {
		.stream_id = R->kernel_stream,
		.pid = (uint32_t)getpid(),
		.flush_ms = R->o->switch_ms,
		.pids = R->o->kernel_all ? NULL : &none,
		.npids = R->o->kernel_all ? 0 : 1,
	};
	memcpy(ko.uuid, R->uuid, 16);
	int rc = lt_kernel_open(R->o->kernel, (size_t)R->o->nkernel, &ko,
				&R->kern, err, sizeof(err));
	if (rc) {
		const char *m = err[0] ? err : strerror(-rc);
		if (strncmp(m, "lowtrace: ", 10) == 0)
			m += 10;
		fprintf(stderr, "lowtrace: record: -k: %s\n", m);
		return rc;
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

static void finish(struct rec *R)
{
	if (R->kern)
		lt_kernel_flush(R->kern, kernel_packet, R);
	for (int i = 0; i < R->nprocs; i++) {
		struct rproc *p = R->procs[i];
		if (p->fd >= 0) {
			/* still running (an orphan): take what is there */
			for (int ch = 0; ch < R->o->nchannels; ch++)
				if (p->rings[ch] &&
				    !R->o->channels[ch].overwrite)
					for (uint32_t c = 0;
					     c < p->rings[ch]->n_cpus; c++)
						lt_ring_flush(p->rings[ch], c);
			consume_proc(R, p);
			/* what a close could not reach (an rseq buffer of
			 * a CPU this process may not run on) is copied */
			for (int ch = 0; ch < R->o->nchannels; ch++)
				if (p->rings[ch] &&
				    !R->o->channels[ch].overwrite)
					for (uint32_t c = 0;
					     c < p->rings[ch]->n_cpus; c++) {
						struct snap_arg a = { R, p, ch,
								      c };
						lt_ring_copy_open(p->rings[ch],
								  c, snap_write,
								  &a);
					}
		}
		for (int ch = 0; ch < R->o->nchannels; ch++) {
			struct lt_ring *r = p->rings[ch];
			if (!r)
				continue;
			if (R->o->channels[ch].overwrite)
				for (uint32_t c = 0; c < r->n_cpus; c++) {
					struct snap_arg a = { R, p, ch, c };
					lt_ring_snapshot(r, c, snap_write, &a);
				}
			for (uint32_t c = 0; c < r->n_cpus; c++)
				R->res->ch[ch].lost_full += lt_ring_lost(r, c);
		}
	}
	lt_clock_refine();
	write_metadata(R);
}

int lt_record_run(const struct lt_rec_options *o, struct lt_rec_result *res)
{
	static struct rec R;
	int rc;

	memset(&R, 0, sizeof(R));
	memset(res, 0, sizeof(*res));
	R.o = o;
	R.res = res;
	R.lsock = -1;
	res->patterns_unmatched =
		o->nrules >= 64 ? ~0ull : ((1ull << o->nrules) - 1);
	lt_ctf_uuid_make(R.uuid);
	if (gethostname(R.hostname, sizeof(R.hostname) - 1) < 0)
		snprintf(R.hostname, sizeof(R.hostname), "unknown");
	uint64_t max_sb = 0;
	for (int ch = 0; ch < o->nchannels; ch++)
		if (o->channels[ch].subbuf_size > max_sb)
			max_sb = o->channels[ch].subbuf_size;
	R.scratch = malloc(max_sb);
	if (!R.scratch)
		return -ENOMEM;
	rc = lt_clock_init();
	if (rc)
		goto out;
	rc = listen_socket(&R);
	if (rc) {
		fprintf(stderr,
			"lowtrace: record: cannot listen on %s: %s (check "
			"$XDG_RUNTIME_DIR or /tmp)\n",
			R.sock_path[0] ? R.sock_path : "the session socket",
			strerror(-rc));
		goto out;
	}
	if (o->nkernel) {
		R.kernel_stream = R.next_stream++;
		rc = open_kernel(&R);
		if (rc)
			goto out;
	}
	write_metadata(&R);
	signal(SIGINT, SIG_IGN); /* the command gets it and ends; we finish */
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	int err = 0;
	pid_t child = start_command(&R, &err);
	if (child < 0) {
		fprintf(stderr, "lowtrace: record: cannot run %s: %s\n",
			o->argv[0], strerror(-err));
		res->exit_status = 127;
		rc = err;
		goto out;
	}
	uint64_t last_switch = now_ms(), child_done = 0;
	int child_alive = 1, idle_ms = 1;
	R.child = child;
	if (R.kern)
		lt_kernel_add_pid(R.kern, child);
	for (;;) {
		struct pollfd pf[MAX_PROCS + 1];
		int n = 0;
		pf[n++] = (struct pollfd){ R.lsock, POLLIN, 0 };
		for (int i = 0; i < R.nprocs; i++)
			if (R.procs[i]->fd >= 0)
				pf[n++] = (struct pollfd){ R.procs[i]->fd,
							   POLLIN, 0 };
		/* a consumer that found nothing waits longer, up to 8 ms: the
		 * default buffers hold far more than that at 10 M events/s */
		poll(pf, (nfds_t)n, idle_ms);
		uint64_t before = R.res->ch[0].packets + R.res->kernel_packets;
		for (int ch = 1; ch < o->nchannels; ch++)
			before += R.res->ch[ch].packets;
		accept_all(&R);
		if (R.kern) {
			lt_kernel_poll(R.kern, kernel_packet, &R);
			track_tree(&R);
		}
		int alive = 0;
		for (int i = 0; i < R.nprocs; i++) {
			struct rproc *p = R.procs[i];
			if (p->fd < 0)
				continue;
			if (on_readable(&R, p) < 0) {
				close(p->fd);
				p->fd = -1;
				if (p->pid && !R.stopped)
					collect_dead(&R, p);
				continue;
			}
			alive += p->pid > 0;
			if (!R.stopped)
				consume_proc(&R, p);
		}
		uint64_t after = R.res->ch[0].packets + R.res->kernel_packets;
		for (int ch = 1; ch < o->nchannels; ch++)
			after += R.res->ch[ch].packets;
		idle_ms = after != before ? 1 : (idle_ms < 8 ? idle_ms * 2 : 8);
		if (R.meta_dirty && !R.stopped)
			write_metadata(&R);
		if (!R.stopped && now_ms() - last_switch >= o->switch_ms) {
			for (int i = 0; i < R.nprocs; i++)
				for (int ch = 0; ch < o->nchannels; ch++)
					if (R.procs[i]->rings[ch] &&
					    !o->channels[ch].overwrite)
						for (uint32_t c = 0;
						     c < R.procs[i]
								 ->rings[ch]
								 ->n_cpus;
						     c++)
							lt_ring_flush(
								R.procs[i]->rings
									[ch],
								c);
			last_switch = now_ms();
		}
		if (child_alive) {
			int st;
			if (waitpid(child, &st, WNOHANG) == child) {
				child_alive = 0;
				child_done = now_ms();
				if (WIFEXITED(st)) {
					res->exit_status = WEXITSTATUS(st);
				} else {
					res->exit_status = 128 + WTERMSIG(st);
					res->crashed++;
				}
			}
		}
		/* done when the command and every process that joined are,
		 * or a little after the command if orphans live on */
		if (!child_alive && (!alive || now_ms() - child_done > 2000))
			break;
	}
	if (!R.stopped)
		finish(&R);
	rc = 0;
out:
	if (R.lsock >= 0) {
		close(R.lsock);
		unlink(R.sock_path);
	}
	for (int i = 0; i < R.nprocs; i++)
		free_proc(R.procs[i]);
	if (R.kern) {
		close_kernel(&R);
		lt_kernel_close(R.kern);
		free(R.kout);
	}
	free(R.scratch);
	return rc;
}
