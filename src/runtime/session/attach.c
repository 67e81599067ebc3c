/* SPDX-License-Identifier: MIT */
/*
 * attach.c - the rendezvous of a program started the ordinary way: how
 * `lowtrace record -p PID` and `lowtrace list --apps` reach it.
 *
 * When the first object with events loads and the environment sets up no
 * session (autostart.c), a thread waits in accept() on the abstract unix
 * socket "\0lowtrace/app/PID" (proto.h).  Abstract, so that the name
 * vanishes with the process however it ends; blocked in accept(), the
 * thread never wakes while nobody comes.  Anyone may connect to an
 * abstract name, so the peer is checked first (SO_PEERCRED: this process's
 * user or root, else refused with a reply saying so), then its one
 * request, through proto.c's checks: JOIN hands the connection to the
 * agent, which joins the recorder's session over it (agent.c); QUERY
 * answers how many events registered and which sessions are joined.
 * LOWTRACE_ATTACH=0 starts no thread: the process cannot be attached.  A
 * child made by fork() listens under its own pid.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "probe/probe.h"
#include "session/agent.h"
#include "session/attach.h"
#include "session/proto.h"

static int lfd = -1;
/* posted by the listener once it is up: see listen_now() */
static sem_t listener_up;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void answer(int fd, int status, const char *text)
{
	struct lt_msg_reply rep;
	memset(&rep, 0, sizeof(rep));
	lt_proto_init(&rep.h, LT_MSG_REPLY, sizeof(rep));
	rep.status = status;
	snprintf(rep.text, sizeof(rep.text), "%s", text);
	lt_proto_send(fd, &rep, sizeof(rep), NULL, 0);
}

/* One peer: checked, then its request; fd is closed or handed on. */
static void serve(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	char text[256];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
		close(fd);
		return;
	}
	if (cr.uid != 0 && cr.uid != geteuid()) {
		snprintf(text, sizeof(text),
			 "process %d belongs to user %u: only that user or "
			 "root can attach",
			 (int)getpid(), (unsigned)geteuid());
		answer(fd, -EPERM, text);
		close(fd);
		return;
	}
	/* a peer that says nothing does not hold the rendezvous */
	struct timeval tv = { 2, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	/* one byte more than a request: a longer one is refused */
	char buf[sizeof(struct lt_msg_attach) + 1];
	struct lt_msg_attach m;
	ssize_t n = lt_proto_recv(fd, buf, sizeof(buf), NULL, 0, NULL);
	if (n < 0 || lt_proto_attach_check(buf, (size_t)n, &m)) {
		if (n != -EAGAIN) /* a peer that said nothing gets nothing */
			answer(fd, -EPROTO, "malformed request");
		close(fd);
		return;
	}
	if (m.op == LT_ATTACH_JOIN) {
		lt_agent_attach(fd, &m);
		return;
	}
	char names[200];
	lt_agent_describe(names, sizeof(names));
	snprintf(text, sizeof(text), "%zu %s", lt_probe_nevents(), names);
	answer(fd, 0, text);
	close(fd);
}

static void *listen_thread(void *arg)
{
	int fd = (int)(intptr_t)arg;
	sem_post(&listener_up);
	for (;;) {
		int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (c >= 0) {
			serve(c);
		} else if (errno != EINTR && errno != ECONNABORTED) {
			/* out of descriptors, say: not a busy loop */
			struct timespec d = { 0, 100000000 };
			nanosleep(&d, NULL);
		}
	}
	return NULL;
}

static int listen_now(void)
{
	struct sockaddr_un sa;
	socklen_t len = lt_proto_app_addr((int)getpid(), &sa);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, len) < 0 || listen(fd, 8) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	pthread_t th;
	sem_init(&listener_up, 0, 0);
	int rc = lt_agent_thread(&th, "lt-rendezvous", listen_thread,
				 (void *)(intptr_t)fd);
	if (rc) {
		close(fd);
		return rc;
	}
	/*
	 * Until the thread runs its own code, its start-up (the C library's,
	 * a sanitizer's) may hold locks that a fork() right after this
	 * function would copy held into the child; a program that forks at
	 * once then deadlocks there.  Blocked in accept(), it holds none.
	 */
	while (sem_wait(&listener_up) < 0 && errno == EINTR)
		;
	pthread_detach(th);
	lfd = fd;
	return 0;
}

/* The parent's listener is not the child's: it listens under its pid. */
static void after_fork_child(void)
{
	if (lfd >= 0)
		close(lfd);
	lfd = -1;
	listen_now();
}

static void install_atfork(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
}

int lt_attach_listen(void)
{
	pthread_once(&atfork_once, install_atfork);
	/* before the thread: in a static program the registrations may
	 * not have been made yet, and with two threads they wait */
	lt_probe_prepare();
	return listen_now();
}
