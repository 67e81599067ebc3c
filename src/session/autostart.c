/*
 * autostart.c - what the environment asks of a traced program, decided when
 * the first object with events loads: joining `lowtrace record`
 * (LOWTRACE_SESSION_SOCK, see agent.c), or an in-process session on
 * LOWTRACE_TRACE=DIR, stopped (trace complete) at exit.
 * LOWTRACE_EVENTS is a comma-separated list of patterns (default "*"),
 * LOWTRACE_LOGLEVEL a level name, LOWTRACE_SUBBUF_SIZE and
 * LOWTRACE_SUBBUFS the default channel's geometry.
 */
#include <lowtrace/lowtrace.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/agent.h"

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
	if (!dir || !*dir)
		return;
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

void lt_session_autostart(void)
{
	pthread_once(&once, start);
}
