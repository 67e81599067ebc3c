/* SPDX-License-Identifier: MIT */
/*
 * apps.c - finding the programs that wait to be attached and asking them
 * (apps.h): their rendezvous are the listening abstract sockets named
 * "@lowtrace/app/PID" in /proc/net/unix.
 */
#include "recorder/apps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "session/proto.h"

#define SO_ACCEPTCON_FLAG 0x10000 /* __SO_ACCEPTCON: a listening socket */

int lt_apps_find(struct lt_app *out, int cap)
{
	FILE *f = fopen("/proc/net/unix", "re");
	if (!f)
		return -errno;
	char line[512];
	int n = 0;
	const size_t plen = strlen("@" LT_PROTO_APP_PREFIX);
	while (n < cap && fgets(line, sizeof(line), f)) {
		unsigned flags, type, st;
		unsigned long long inode;
		char path[256];
		if (sscanf(line, "%*s %*s %*s %x %x %x %llu %255s", &flags,
			   &type, &st, &inode, path) != 5)
			continue;
		if (!(flags & SO_ACCEPTCON_FLAG) ||
		    strncmp(path, "@" LT_PROTO_APP_PREFIX, plen) != 0)
			continue;
		char *end;
		long pid = strtol(path + plen, &end, 10);
		if (*end || pid <= 0)
			continue;
		out[n].pid = (int)pid;
		out[n].inode = inode;
		n++;
	}
	fclose(f);
	return n;
}

int lt_apps_request(int pid, unsigned op, const char *session, const char *sock,
		    int *fd, char *text, size_t cap)
{
	struct sockaddr_un sa;
	socklen_t len = lt_proto_app_addr(pid, &sa);
	struct lt_msg_attach m;
	struct lt_msg_reply rep;
	enum lt_msg_type type;

	text[0] = 0;
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	int rc = 0;
	if (connect(s, (struct sockaddr *)&sa, len) < 0) {
		rc = -errno;
		goto out;
	}
	struct timeval tv = { 5, 0 };
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(&m, 0, sizeof(m));
	lt_proto_init(&m.h, LT_MSG_ATTACH, sizeof(m));
	m.op = op;
	snprintf(m.session, sizeof(m.session), "%s", session ? session : "");
	snprintf(m.sock, sizeof(m.sock), "%s", sock ? sock : "");
	/* a program that refuses a peer answers before reading and closes:
	 * the send may fail, the first receive report the request left
	 * unread (ECONNRESET), and the reply still be there */
	int sent = lt_proto_send(s, &m, sizeof(m), NULL, 0);
	ssize_t n = lt_proto_recv(s, &rep, sizeof(rep), NULL, 0, NULL);
	if (n == -ECONNRESET)
		n = lt_proto_recv(s, &rep, sizeof(rep), NULL, 0, NULL);
	if (n <= 0 && sent) {
		rc = sent;
		goto out;
	}
	if (n == -EAGAIN)
		rc = -ETIMEDOUT;
	else if (n <= 0)
		rc = n < 0 ? (int)n : -ECONNRESET;
	else if (lt_proto_check(&rep, (size_t)n, &type) ||
		 type != LT_MSG_REPLY ||
		 !lt_proto_str_ok(rep.text, sizeof(rep.text)))
		rc = -EPROTO;
	else {
		rc = rep.status;
		snprintf(text, cap, "%s", rep.text);
	}
	if (!rc && op == LT_ATTACH_JOIN && fd) {
		tv.tv_sec = 0;
		setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		*fd = s;
		return 0;
	}
out:
	close(s);
	return rc;
}

int lt_apps_cmdline(int pid, char *out, size_t cap)
{
	char path[64];
	if (cap < 2)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t len = read(fd, out, cap - 1);
	close(fd);
	while (len > 0 && out[len - 1] == 0)
		len--;
	if (len <= 0)
		return -1;
	for (ssize_t k = 0; k < len; k++)
		if ((unsigned char)out[k] < 0x20)
			out[k] = ' ';
	out[len] = 0;
	return (int)len;
}

/* Whether pid's environment (as it started) has an entry that begins
 * with kv (NAME=VALUE, or NAME= for any value). */
static int env_has(int pid, const char *kv)
{
	char path[64], buf[65536];
	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	size_t k = strlen(kv);
	for (char *p = buf; p < buf + n; p += strlen(p) + 1)
		if (strncmp(p, kv, k) == 0 && (kv[k - 1] == '=' || p[k] == 0))
			return 1;
	return 0;
}

void lt_apps_why_not(int pid, char *out, size_t cap)
{
	if (env_has(pid, "LOWTRACE_ATTACH=0"))
		snprintf(out, cap,
			 "process %d was started with LOWTRACE_ATTACH=0: it "
			 "refuses to be attached",
			 pid);
	else if (env_has(pid, "LOWTRACE_SESSION_SOCK="))
		snprintf(out, cap,
			 "process %d was started under `lowtrace record`: it "
			 "is in that recording, not to be attached",
			 pid);
	else if (env_has(pid, "LOWTRACE_TRACE="))
		snprintf(out, cap,
			 "process %d records itself (LOWTRACE_TRACE): it is "
			 "not to be attached",
			 pid);
	else
		snprintf(out, cap,
			 "process %d cannot be attached: it does not link "
			 "liblowtrace, or has no events (no socket "
			 "@" LT_PROTO_APP_PREFIX "%d in /proc/net/unix)",
			 pid, pid);
}
