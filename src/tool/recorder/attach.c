/* SPDX-License-Identifier: MIT */
/*
 * attach.c - running programs that link liblowtrace, attached to a
 * recording through their rendezvous (apps.h): the -p ones before it
 * starts, and every 100 ms those that appeared since (children forked,
 * programs exec()ed, or with --all-apps any of the user's).  Also what
 * /proc says of a process: whether it is gone, its parent.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/apps.h"
#include "recorder/rec.h"
#include "recorder/recorder.h"

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
int rec_proc_gone(pid_t pid)
{
	char buf[512];
	const char *s = proc_stat(pid, buf, sizeof(buf));
	if (!s)
		return errno == ENOENT;
	/* " S ...": the state comes first */
	return s[0] == ' ' && (s[1] == 'Z' || s[1] == 'X');
}

/* pid's parent; 0 if unknown. */
int rec_parent_of(pid_t pid)
{
	char buf[512];
	int ppid = 0;
	const char *s = proc_stat(pid, buf, sizeof(buf));
	if (!s || sscanf(s, " %*c %d", &ppid) != 1)
		return 0;
	return ppid;
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
int rec_attach_given(struct rec *R)
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
		pid = rec_parent_of(pid);
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
void rec_track_apps(struct rec *R)
{
	const struct lt_rec_options *o = R->o;
	if ((!o->npids && !o->all_apps) || R->stopped ||
	    rec_now_ms() - R->last_apps_ms < 100)
		return;
	R->last_apps_ms = rec_now_ms();
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
