/* SPDX-License-Identifier: MIT */
/*
 * control.c - `lowtrace status`, `lowtrace snapshot`, `lowtrace stop`: a
 * request to a running `lowtrace record` over its session socket.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli/cli.h"
#include "session/proto.h"

/* The socket of the session named, or the only one running. */
static int find_socket(const char *verb, const char *name, char *out,
		       size_t cap)
{
	char dir[PATH_MAX];
	int rc = lt_proto_socket_dir(dir, sizeof(dir));
	if (rc)
		return lt_cli_error(verb, "no session directory: %s",
				    strerror(-rc));
	if (name) {
		if (strchr(name, '/') ||
		    snprintf(out, cap, "%s/%s.sock", dir, name) >= (int)cap)
			return lt_cli_error(verb, "bad session name %s", name);
		if (lt_proto_socket_live(out) == 0)
			return lt_cli_error(verb,
					    "no session %s running (`lowtrace "
					    "status` lists them)",
					    name);
		return 0;
	}
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		char path[PATH_MAX];
		if (l <= 5 || strcmp(e->d_name + l - 5, ".sock") != 0 ||
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >=
			    (int)sizeof(path))
			continue;
		/* a killed recorder's socket is removed, not listed */
		if (lt_proto_socket_live(path) == 0)
			continue;
		if (n++ == 0 && snprintf(out, cap, "%s", path) >= (int)cap)
			n = 2; /* too long a path to use */
		else
			fprintf(stderr, "  %.*s\n", (int)(l - 5), e->d_name);
	}
	if (d)
		closedir(d);
	if (n == 0)
		return lt_cli_error(verb, "no session is running (start one "
					  "with `lowtrace record`)");
	if (n > 1)
		return lt_cli_error(verb,
				    "%d sessions are running: name one "
				    "(`lowtrace %s NAME`)",
				    n, verb);
	return 0;
}

static int request(const char *verb, enum lt_ctl_op op, int argc, char **argv)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct lt_msg_ctl m;
	struct lt_msg_reply rep;
	enum lt_msg_type type;

	if (argc > 2)
		return lt_cli_error(verb, "one session name at most");
	if (find_socket(verb, argc > 1 ? argv[1] : NULL, path, sizeof(path)))
		return 1;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return lt_cli_error(verb,
				    "cannot reach %s: %s (a session that "
				    "ended leaves no socket; is it stale?)",
				    path, strerror(errno));
	struct timeval tv = { 30, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(&m, 0, sizeof(m));
	lt_proto_init(&m.h, LT_MSG_CTL, sizeof(m));
	m.op = op;
	int rc = lt_proto_send(fd, &m, sizeof(m), NULL, 0);
	ssize_t n =
		rc ? rc : lt_proto_recv(fd, &rep, sizeof(rep), NULL, 0, NULL);
	close(fd);
	if (n < 0)
		return lt_cli_error(verb, "no answer from %s: %s", path,
				    strerror((int)-n));
	if (lt_proto_check(&rep, (size_t)n, &type) || type != LT_MSG_REPLY ||
	    !lt_proto_str_ok(rep.text, sizeof(rep.text)))
		return lt_cli_error(verb, "a malformed answer from %s", path);
	if (rep.status)
		return lt_cli_error(verb, "%s", rep.text);
	printf("%s\n", rep.text);
	return 0;
}

static int status_run(int argc, char **argv)
{
	return request("status", LT_CTL_STATUS, argc, argv);
}

static int stop_run(int argc, char **argv)
{
	return request("stop", LT_CTL_STOP, argc, argv);
}

static int snapshot_run(int argc, char **argv)
{
	return request("snapshot", LT_CTL_SNAPSHOT, argc, argv);
}

LT_CLI_VERB(status_verb, .name = "status",
	    .summary = "show what a running `lowtrace record` is doing",
	    .usage = "usage: lowtrace status [SESSION]\n", .run = status_run)
LT_CLI_VERB(
	stop_verb, .name = "stop",
	.summary = "stop a running `lowtrace record`; its trace is complete",
	.usage = "usage: lowtrace stop [SESSION]\n"
		 "The command being recorded runs on, untraced.\n",
	.run = stop_run)
LT_CLI_VERB(snapshot_verb, .name = "snapshot",
	    .summary = "write a running session's overwrite channels to "
		       "DIR/snapshot-N",
	    .usage = "usage: lowtrace snapshot [SESSION]\n",
	    .run = snapshot_run)
