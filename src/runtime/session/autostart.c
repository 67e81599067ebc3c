/* SPDX-License-Identifier: MIT */
/*
 * autostart.c - what the environment asks of a traced program, decided when
 * the first object with events loads: joining `lowtrace record`
 * (LOWTRACE_SESSION_SOCK, see agent.c), or an in-process session on
 * LOWTRACE_TRACE=DIR, stopped (trace complete) at exit.
 * LOWTRACE_EVENTS is a comma-separated list of patterns (default "*"),
 * LOWTRACE_LOGLEVEL a level name, LOWTRACE_SUBBUF_SIZE and
 * LOWTRACE_SUBBUFS the default channel's geometry.  With neither, the
 * process waits to be attached (attach.c), unless LOWTRACE_ATTACH=0.
 *
 * LOWTRACE_LIST_EVENTS=FD is `lowtrace record`'s pre-flight (preflight.c):
 * when the main executable's events register, every event registered so
 * far (the executable's and those of the libraries it links, whose
 * constructors ran first) is described on FD, and the process exits
 * before main() runs.
 */
#include <lowtrace/lowtrace.h>

#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/metadata.h"
#include "probe/probe.h"
#include "session/agent.h"
#include "session/attach.h"
#include "session/proto.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static lt_session_t *session;

static void stop_at_exit(void)
{
	if (!session)
		return;
	int rc = lt_session_stop(session);
	struct lt_session_stats st;
	lt_session_get_stats(session, &st);
	if (rc)
		fprintf(stderr, "lowtrace: finishing %s: %s\n",
			lt_session_dir(session), lt_strerror(rc));
	if (st.events_lost || st.packets_lost_disk)
		fprintf(stderr,
			"lowtrace: %s: %llu events lost in full buffers, %llu "
			"packets not written (LOWTRACE_SUBBUF_SIZE or "
			"LOWTRACE_SUBBUFS make the buffers bigger)\n",
			lt_session_dir(session),
			(unsigned long long)st.events_lost,
			(unsigned long long)st.packets_lost_disk);
	/* the session's memory stays: other threads may still be running */
}

static void start(void)
{
	const char *sock = getenv("LOWTRACE_SESSION_SOCK");
	const char *dir = getenv("LOWTRACE_TRACE");
	int err = 0;

	if (sock && *sock) {
		lt_agent_start(sock);
		return;
	}
	if (!dir || !*dir) {
		const char *a = getenv("LOWTRACE_ATTACH");
		if (!a || strcmp(a, "0") != 0)
			lt_attach_listen();
		return;
	}
	struct lt_session_options o = { 0 };
	const char *v = getenv("LOWTRACE_SUBBUF_SIZE");
	if (v)
		o.channel.subbuf_size = strtoull(v, NULL, 0);
	v = getenv("LOWTRACE_SUBBUFS");
	if (v)
		o.channel.n_subbufs = (unsigned)strtoul(v, NULL, 0);
	lt_session_t *s = lt_session_create(dir, &o, &err);
	if (!s) {
		fprintf(stderr,
			"lowtrace: LOWTRACE_TRACE=%s: cannot create the "
			"session: %s (sizes must be powers of two)\n",
			dir, lt_strerror(err));
		return;
	}
	const char *events = getenv("LOWTRACE_EVENTS");
	const char *level = getenv("LOWTRACE_LOGLEVEL");
	char *list = strdup(events && *events ? events : "*");
	for (char *save = NULL, *p = strtok_r(list, ",", &save); p;
	     p = strtok_r(NULL, ",", &save)) {
		err = lt_session_enable(s, p, level, NULL);
		if (err)
			fprintf(stderr,
				"lowtrace: LOWTRACE_EVENTS: cannot enable '%s': "
				"%s\n",
				p,
				err == -EINVAL ? "unknown LOWTRACE_LOGLEVEL" :
						 lt_strerror(err));
	}
	free(list);
	err = lt_session_start(s);
	if (err) {
		fprintf(stderr, "lowtrace: LOWTRACE_TRACE=%s: %s\n", dir,
			lt_strerror(err));
		lt_session_destroy(s);
		return;
	}
	session = s;
	atexit(stop_at_exit);
}

/* The first object dl_iterate_phdr() reports is the main program: have
 * its events registered? */
static int main_program(struct dl_phdr_info *info, size_t size, void *arg)
{
	int *registered = arg;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD &&
		    lt_probe_range_within(lo, lo + ph->p_memsz))
			*registered = 1;
	}
	return 1;
}

static void describe(void *arg, const struct lt_ctf_event *e)
{
	static char buf[LT_PROTO_MAX];
	ssize_t n = lt_proto_event_encode(buf, sizeof(buf), e);
	if (n > 0)
		send(*(int *)arg, buf, (size_t)n, MSG_NOSIGNAL);
}

static void list_events(const char *fdtext)
{
	int registered = 0;
	dl_iterate_phdr(main_program, &registered);
	if (!registered)
		return; /* a library's events: the executable's come later */
	int fd = atoi(fdtext);
	lt_probe_foreach_event(describe, &fd);
	_exit(0);
}

void lt_session_autostart(void)
{
	const char *list = getenv("LOWTRACE_LIST_EVENTS");
	if (list && *list) {
		list_events(list);
		return;
	}
	pthread_once(&once, start);
}
