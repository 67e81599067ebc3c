/* SPDX-License-Identifier: MIT */
/*
 * control.c - the session's socket: where processes join (the command's,
 * and those attached, whose connection the rendezvous handed over) and
 * where `lowtrace status`, `stop` and `snapshot` ask.  Each connection's
 * messages are read and handed to the file of their concept; a connection
 * that closes has its process's buffers collected.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/kernel.h"
#include "recorder/rec.h"
#include "recorder/recorder.h"

/* `lowtrace status`, `stop` and `snapshot`: one request, one reply. */
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
			 "snapshots%s%s",
			 R->o->session_name,
			 R->stopped ? "stopped, was recording" : "recording",
			 R->o->dir, R->res->processes, alive,
			 (unsigned long long)ev, (unsigned long long)lost,
			 R->res->snapshots,
			 R->kern ? "; kernel events through " : "",
			 R->kern ? lt_kernel_backend(R->kern, NULL) : "");
		break;
	case LT_CTL_STOP:
		R->stop(R, "lowtrace stop");
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
			rep.status =
				rec_take_snapshot(R, "lowtrace snapshot", NULL,
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
			rc = rec_on_hello(R, p, (const void *)u.buf);
		else if (type == LT_MSG_EVENT && p->pid)
			rc = rec_on_event(R, p, u.buf, (size_t)n);
		else if (type == LT_MSG_TRIGGER && p->pid)
			rec_on_trigger(R, p, (const void *)u.buf);
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

int rec_listen(struct rec *R)
{
	char dir[PATH_MAX];
	int rc = lt_proto_socket_dir(dir, sizeof(dir));
	if (rc)
		return rc;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (snprintf(R->sock_path, sizeof(R->sock_path), "%s/%s.sock", dir,
		     R->o->session_name) >= (int)sizeof(R->sock_path))
		return -ENAMETOOLONG;
	/* a live session of that name keeps it; a dead one's is removed */
	if (lt_proto_socket_live(R->sock_path) == 1)
		return -EADDRINUSE;
	R->lsock = socket(AF_UNIX,
			  SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (R->lsock < 0)
		return -errno;
	/* bound under a name of its own, listening, then renamed: a
	 * socket file under NAME.sock always has a listener (or had one,
	 * until a SIGKILL), which lt_proto_socket_live() relies on */
	char tmp[sizeof(sa.sun_path)];
	if (snprintf(tmp, sizeof(tmp), "%s/.%d.tmp", dir, (int)getpid()) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, tmp, sizeof(sa.sun_path));
	unlink(tmp);
	if (bind(R->lsock, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(tmp, 0600) < 0 || listen(R->lsock, 64) < 0 ||
	    rename(tmp, R->sock_path) < 0) {
		int e = errno;
		unlink(tmp);
		return -e;
	}
	return 0;
}

void rec_accept_all(struct rec *R)
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

static void close_connection(struct rec *R, struct rproc *p)
{
	close(p->fd);
	p->fd = -1;
	if (p->pid && !R->stopped)
		rec_collect_dead(R, p);
}

/* Reads every connection; one that closed has its buffers collected.
 * Returns how many processes that joined are still connected. */
int rec_serve_processes(struct rec *R)
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
