/* SPDX-License-Identifier: MIT */
/*
 * agent.c - the traced process's side of `lowtrace record`.
 *
 * When LOWTRACE_SESSION_SOCK names the recorder's socket, the first object
 * with events to load connects, says who it is (HELLO), and receives the
 * session (CONFIG): the clock calibration, the channels' ring buffers
 * (memfds it maps) and the rules that enable events.  It then describes
 * every event it has, and each one registered later (dlopen), so that the
 * recorder can write the metadata.  The buffers belong to the recorder:
 * whatever this process committed survives it, however it ends.  A child
 * made by fork() connects again and gets buffers of its own; a program
 * started by exec() begins anew.
 *
 * Rules may carry a filter (compiled here, per event; one that does not
 * fit an event it names is refused with a message on stderr) and may be
 * condition triggers: a matching event calls fire() on the tracing path,
 * which applies the hold-off with a compare-and-swap on the trigger's last
 * time and, once per hold-off, writes the trigger's index to a pipe.  The
 * agent's trigger thread reads it and does lt_trigger(NAME)'s work: the round trip
 * to the recorder happens there, not in the thread that traced the event,
 * so a snapshot holds events up to a little after the matching one.
 */
#include <errno.h>
#include <fcntl.h>
#include <lowtrace/lowtrace.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

/* the library's own event: its registry registers it (tracepoint.h's
 * constructor would start a session from inside the agent) */
#define LT__NO_REGISTRATION 1
#include <lowtrace/tracepoint.h>

#include "clock/clock.h"
#include "ctf/metadata.h"
#include "probe/probe.h"
#include "ring/ring.h"
#include "session/agent.h"
#include "session/proto.h"

static struct {
	int sock;
	struct lt_ring *rings[LT_PROTO_MAX_CHANNELS];
	uint32_t nrings;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
} agent = { .sock = -1 };

static char event_buf[LT_PROTO_MAX];

struct cond_trigger {
	char name[LT_PROTO_NAME];
	uint64_t holdoff_ns;
	_Atomic uint64_t last; /* monotonic ns of the last firing; 0: never */
};

static struct {
	struct cond_trigger t[LT_PROTO_MAX_RULES];
	uint32_t n;
	int pipe[2];
	int thread;
} trig = { .pipe = { -1, -1 } };

/* On the tracing path: at most one wake-up per hold-off, never blocking. */
static void fire(void *arg)
{
	struct cond_trigger *t = arg;
	uint64_t now = lt_clock_read_monotonic();
	uint64_t last = atomic_load_explicit(&t->last, memory_order_relaxed);
	if (last && now - last < t->holdoff_ns)
		return;
	/* one thread of a burst wins; the others see its time */
	if (!atomic_compare_exchange_strong_explicit(&t->last, &last, now,
						     memory_order_relaxed,
						     memory_order_relaxed))
		return;
	uint8_t idx = (uint8_t)(t - trig.t);
	if (write(trig.pipe[1], &idx, 1) < 0)
		return; /* pipe full: a wake-up is pending anyway */
}

static void *trigger_thread(void *arg)
{
	int fd = (int)(intptr_t)arg;
	uint8_t idx;
	for (;;) {
		ssize_t n = read(fd, &idx, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return NULL;
		if (idx < trig.n)
			lt_agent_trigger(trig.t[idx].name);
	}
}

static int start_trigger_thread(void)
{
	pthread_t th;
	sigset_t all, old;
	if (trig.thread)
		return 0;
	if (pipe2(trig.pipe, O_CLOEXEC) < 0)
		return -errno;
	fcntl(trig.pipe[1], F_SETFL, O_NONBLOCK);
	/* the process's signals go to its own threads */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&th, NULL, trigger_thread,
				(void *)(intptr_t)trig.pipe[0]);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -rc;
	pthread_detach(th);
	trig.thread = 1;
	return 0;
}

static int add_rule(const struct lt_proto_rule *r, struct lt_ring *ring,
		    char *err, size_t errcap)
{
	const char *filter = r->filter[0] ? r->filter : NULL;
	if (!r->trigger[0])
		return lt_probe_enable_filter(&agent, r->pattern,
					      r->loglevel_max, ring, filter,
					      err, errcap);
	if (trig.n >= LT_PROTO_MAX_RULES)
		return -ENOSPC;
	int rc = start_trigger_thread();
	if (rc)
		return rc;
	struct cond_trigger *t = &trig.t[trig.n];
	memcpy(t->name, r->trigger, sizeof(t->name));
	t->holdoff_ns = (uint64_t)r->holdoff_ms * 1000000;
	atomic_store(&t->last, 0);
	/* counted before it can fire: the thread checks the index */
	trig.n++;
	rc = lt_probe_enable_trigger(&agent, r->pattern, r->loglevel_max,
				     filter, fire, t, err, errcap);
	if (rc)
		trig.n--;
	return rc;
}

/* Called by the registry, under its lock, for each event. */
static void describe_event(void *arg, const struct lt_ctf_event *e)
{
	(void)arg;
	ssize_t n = lt_proto_event_encode(event_buf, sizeof(event_buf), e);
	if (n < 0) {
		fprintf(stderr,
			"lowtrace: event %s has too many fields to describe; "
			"it is not recorded\n",
			e->name);
		return;
	}
	if (agent.sock >= 0)
		lt_proto_send(agent.sock, event_buf, (size_t)n, NULL, 0);
}

static void drop_session(void)
{
	for (uint32_t i = 0; i < agent.nrings; i++)
		lt_ring_destroy(agent.rings[i]);
	agent.nrings = 0;
	if (agent.sock >= 0)
		close(agent.sock);
	agent.sock = -1;
}

static int handshake(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct lt_msg_hello hello;
	static struct lt_msg_config cfg;
	int fds[LT_PROTO_MAX_CHANNELS], nfds = 0, rc;
	enum lt_msg_type type;

	memcpy(sa.sun_path, agent.path, sizeof(sa.sun_path));
	agent.sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (agent.sock < 0)
		return -errno;
	if (connect(agent.sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		goto fail;
	}
	struct timeval tv = { 10, 0 };
	setsockopt(agent.sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	lt_proto_init(&hello.h, LT_MSG_HELLO, sizeof(hello));
	hello.pid = (int32_t)getpid();
	hello.ppid = (int32_t)getppid();
	memset(hello.procname, 0, sizeof(hello.procname));
	FILE *f = fopen("/proc/self/comm", "r");
	if (f) {
		if (fgets(hello.procname, sizeof(hello.procname), f))
			hello.procname[strcspn(hello.procname, "\n")] = 0;
		fclose(f);
	}
	rc = lt_proto_send(agent.sock, &hello, sizeof(hello), NULL, 0);
	if (rc)
		goto fail;
	ssize_t n = lt_proto_recv(agent.sock, &cfg, sizeof(cfg), fds,
				  LT_PROTO_MAX_CHANNELS, &nfds);
	if (n < 0) {
		rc = (int)n;
		goto fail;
	}
	rc = -EPROTO;
	if (lt_proto_check(&cfg, (size_t)n, &type) || type != LT_MSG_CONFIG ||
	    cfg.nchannels == 0 || cfg.nchannels > LT_PROTO_MAX_CHANNELS ||
	    (int)cfg.nchannels != nfds || cfg.nrules > LT_PROTO_MAX_RULES ||
	    cfg.calib.freq == 0)
		goto fail_fds;
	for (uint32_t i = 0; i < cfg.nchannels; i++) {
		rc = lt_ring_map(fds[i], &agent.rings[i]);
		if (rc)
			goto fail_fds;
		fds[i] = -1; /* the ring owns it now */
		/* before any tracepoint can reach it */
		lt_ring_choose_sync(agent.rings[i]);
		agent.nrings = i + 1;
	}
	lt_clock_set_calib(&cfg.calib);
	lt_probe_clock_changed();
	for (uint32_t i = 0; i < cfg.nrules; i++) {
		struct lt_proto_rule *r = &cfg.rules[i];
		char err[600];
		if (!lt_proto_str_ok(r->pattern, sizeof(r->pattern)) ||
		    !lt_proto_str_ok(r->filter, sizeof(r->filter)) ||
		    !lt_proto_str_ok(r->trigger, sizeof(r->trigger)) ||
		    r->channel >= cfg.nchannels)
			continue;
		rc = add_rule(r, agent.rings[r->channel], err, sizeof(err));
		if (rc)
			fprintf(stderr,
				"lowtrace: process %d: %s '%s%s%s' refused: "
				"%s\n",
				(int)getpid(),
				r->trigger[0] ? "--trigger" : "-e", r->pattern,
				r->filter[0] ? " if " : "", r->filter,
				err[0] ? err : strerror(-rc));
	}
	lt_probe_set_listener(describe_event, NULL);
	return 0;
fail_fds:
	for (int i = 0; i < nfds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
fail:
	drop_session();
	return rc;
}

/* The child of a fork: its parent's buffers and socket are not its own. */
static void after_fork_child(void)
{
	lt_probe_reset_after_fork();
	drop_session();
	/* the parent's trigger thread is not in this process */
	if (trig.thread) {
		close(trig.pipe[0]);
		close(trig.pipe[1]);
	}
	trig.pipe[0] = trig.pipe[1] = -1;
	trig.thread = 0;
	trig.n = 0;
	int rc = handshake();
	if (rc)
		fprintf(stderr,
			"lowtrace: process %d (a child) is not traced: %s\n",
			(int)getpid(), strerror(-rc));
}

int lt_agent_start(const char *sock_path)
{
	if (strlen(sock_path) >= sizeof(agent.path))
		return -ENAMETOOLONG;
	snprintf(agent.path, sizeof(agent.path), "%s", sock_path);
	int rc = handshake();
	if (rc) {
		fprintf(stderr,
			"lowtrace: cannot join the recording session at %s: %s "
			"(is `lowtrace record` still running?)\n",
			sock_path, strerror(-rc));
		return rc;
	}
	pthread_atfork(NULL, NULL, after_fork_child);
	return 0;
}

/* Sends one message to the recorder and waits for its reply. */
static int request(const void *msg, size_t len)
{
	static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;
	struct lt_msg_reply rep;
	enum lt_msg_type type;
	int rc;

	pthread_mutex_lock(&one_at_a_time);
	if (agent.sock < 0) {
		rc = -ENOTCONN;
		goto out;
	}
	rc = lt_proto_send(agent.sock, msg, len, NULL, 0);
	if (rc)
		goto out;
	ssize_t n = lt_proto_recv(agent.sock, &rep, sizeof(rep), NULL, 0, NULL);
	if (n < 0)
		rc = (int)n;
	else if (lt_proto_check(&rep, (size_t)n, &type) || type != LT_MSG_REPLY)
		rc = -EPROTO;
	else
		rc = rep.status;
out:
	pthread_mutex_unlock(&one_at_a_time);
	return rc;
}

LT_EVENT(lowtrace, trigger, LT_NOTICE, LT_ARGS(const char *, name),
	 LT_FIELDS(LT_FIELD_STRING(name, name)))

int lt_agent_trigger(const char *name)
{
	struct lt_msg_trigger m;

	if (!name || !*name || strlen(name) >= sizeof(m.name))
		return -EINVAL;
	lt_trace(lowtrace, trigger, name);
	memset(&m, 0, sizeof(m));
	lt_proto_init(&m.h, LT_MSG_TRIGGER, sizeof(m));
	snprintf(m.name, sizeof(m.name), "%s", name);
	return request(&m, sizeof(m));
}
