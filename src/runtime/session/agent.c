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
 * A session joined through the rendezvous (attach.c, `lowtrace record -p`)
 * is attached: a thread of its own waits, in poll() for the hang-up
 * alone, for the recorder's end however it comes (stop, a signal,
 * SIGKILL), and detaches: the session's rules removed and the target
 * lists republished, so that its call sites are back to a load and a
 * branch, then, after lt_probe_sync(), its buffers unmapped.  The program
 * goes on as before and may be attached again.  Up to
 * LT_AGENT_MAX_SESSIONS sessions at once, each with its own rules,
 * buffers and triggers (the rules' owner is the session).
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
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <poll.h>
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
#include "format/metadata.h"
#include "probe/probe.h"
#include "ring/ring.h"
#include "session/agent.h"
#include "session/idtab.h"
#include "session/proto.h"

struct session;

struct cond_trigger {
	struct session *s;
	char name[LT_PROTO_NAME];
	uint64_t holdoff_ns;
	_Atomic uint64_t last; /* monotonic ns of the last firing; 0: never */
};

struct session {
	int sock;
	int attached; /* joined through the rendezvous: detaches at its end */
	int listening; /* its describe_event() is a registry listener */
	struct lt_ring *rings[LT_PROTO_MAX_CHANNELS];
	uint32_t nrings;
	uint32_t shared; /* bit i: rings[i] is shared, its ids from ids */
	struct lt_idtab *ids;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char name[LT_PROTO_NAME];
	pthread_mutex_t one_request; /* a request and its reply at a time */
	struct cond_trigger t[LT_PROTO_MAX_RULES];
	uint32_t ntrig;
	int pipe[2];
	pthread_t trig_thread;
	int trig_started;
};

/* The sessions; lock orders before the registry's (rules are set under
 * it), and nothing called under the registry's takes it. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct session *sessions[LT_AGENT_MAX_SESSIONS];
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* EVENT messages, and the keys of shared ids, encoded here: both under
 * the registry's lock */
static char event_buf[LT_PROTO_MAX];

static int request(struct session *s, const void *msg, size_t len);

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
	uint8_t idx = (uint8_t)(t - t->s->t);
	if (write(t->s->pipe[1], &idx, 1) < 0)
		return; /* pipe full: a wake-up is pending anyway */
}

LT_EVENT(lowtrace, trigger, LT_NOTICE, LT_ARGS(const char *, name),
	 LT_FIELDS(LT_FIELD_STRING(name, name)))

static void trigger_msg(struct lt_msg_trigger *m, const char *name)
{
	memset(m, 0, sizeof(*m));
	lt_proto_init(&m->h, LT_MSG_TRIGGER, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
}

/* Ends when the session's pipe is closed (its detaching). */
static void *trigger_thread(void *arg)
{
	struct session *s = arg;
	uint8_t idx;
	for (;;) {
		ssize_t n = read(s->pipe[0], &idx, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return NULL;
		if (idx >= s->ntrig)
			continue;
		struct lt_msg_trigger m;
		lt_trace(lowtrace, trigger, s->t[idx].name);
		trigger_msg(&m, s->t[idx].name);
		request(s, &m, sizeof(m));
	}
}

/* A thread with every signal blocked: the process's signals go to its
 * own threads. */
int lt_agent_thread(pthread_t *th, const char *name, void *(*fn)(void *),
		    void *arg)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(th, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!rc)
		pthread_setname_np(*th, name);
	return -rc;
}

static int start_trigger_thread(struct session *s)
{
	if (s->trig_started)
		return 0;
	if (pipe2(s->pipe, O_CLOEXEC) < 0)
		return -errno;
	fcntl(s->pipe[1], F_SETFL, O_NONBLOCK);
	int rc = lt_agent_thread(&s->trig_thread, "lt-trigger", trigger_thread,
				 s);
	if (rc) {
		close(s->pipe[0]);
		close(s->pipe[1]);
		return rc;
	}
	s->trig_started = 1;
	return 0;
}

static int add_rule(struct session *s, const struct lt_proto_rule *r,
		    struct lt_ring *ring, char *err, size_t errcap)
{
	const char *filter = r->filter[0] ? r->filter : NULL;
	if (!r->trigger[0])
		return lt_probe_enable_filter(s, r->pattern, r->loglevel_max,
					      ring, filter, err, errcap);
	if (s->ntrig >= LT_PROTO_MAX_RULES)
		return -ENOSPC;
	int rc = start_trigger_thread(s);
	if (rc)
		return rc;
	struct cond_trigger *t = &s->t[s->ntrig];
	t->s = s;
	memcpy(t->name, r->trigger, sizeof(t->name));
	t->holdoff_ns = (uint64_t)r->holdoff_ms * 1000000;
	atomic_store(&t->last, 0);
	/* counted before it can fire: the thread checks the index */
	s->ntrig++;
	rc = lt_probe_enable_trigger(s, r->pattern, r->loglevel_max, filter,
				     fire, t, err, errcap);
	if (rc)
		s->ntrig--;
	return rc;
}

/* Called by the registry, under its lock, for each event. */
static void describe_event(void *arg, const struct lt_ctf_event *e)
{
	struct session *s = arg;
	ssize_t n = lt_proto_event_encode(event_buf, sizeof(event_buf), e);
	if (n < 0) {
		fprintf(stderr,
			"lowtrace: event %s has too many fields to describe; "
			"it is not recorded\n",
			e->name);
		return;
	}
	lt_proto_send(s->sock, event_buf, (size_t)n, NULL, 0);
}

/* A shared ring's id for an event (the registry's id function, under
 * its lock): its key's slot in the session's id table.  The event was
 * described first (the listener precedes the rules), so the recorder
 * has its description before any record of it. */
static uint32_t shared_id(void *arg, const struct lt_ctf_event *e)
{
	struct session *s = arg;
	ssize_t n = lt_proto_event_encode(event_buf, sizeof(event_buf), e);
	if (n < 0)
		return LT_PROBE_NO_ID; /* not described either */
	uint32_t id =
		lt_idtab_id(s->ids, lt_proto_event_key(event_buf, (size_t)n));
	if (id != LT_IDTAB_NONE)
		return id;
	static _Atomic int told;
	if (!atomic_exchange(&told, 1))
		fprintf(stderr,
			"lowtrace: process %d: the %u event ids shared by this "
			"user's processes are taken; %s and later events are "
			"not recorded (record with --buffers per-process)\n",
			(int)getpid(), lt_idtab_cap(s->ids), e->name);
	return LT_PROBE_NO_ID;
}

static struct session *new_session(int sock, const char *path, const char *name)
{
	struct session *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->sock = sock;
	s->pipe[0] = s->pipe[1] = -1;
	pthread_mutex_init(&s->one_request, NULL);
	snprintf(s->path, sizeof(s->path), "%s", path);
	snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

/*
 * Ends a session in this process: no event reaches its buffers any more
 * (rules removed, lists republished, readers waited for), then they are
 * unmapped.  In a child after fork (in_child), the trigger thread is the
 * parent's.
 */
static void release(struct session *s, int in_child)
{
	if (s->listening)
		lt_probe_remove_listener(describe_event, s);
	lt_probe_disable(s, NULL);
	lt_probe_sync();
	for (uint32_t i = 0; i < s->nrings; i++)
		if (s->shared & 1u << i)
			lt_probe_unshare_ring(s->rings[i]);
	if (s->trig_started) {
		close(s->pipe[1]);
		if (!in_child)
			pthread_join(s->trig_thread, NULL);
		close(s->pipe[0]);
	}
	for (uint32_t i = 0; i < s->nrings; i++)
		lt_ring_destroy(s->rings[i]);
	lt_idtab_destroy(s->ids);
	if (s->sock >= 0)
		close(s->sock);
	pthread_mutex_destroy(&s->one_request);
	free(s);
}

static int connect_path(struct session *s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	memcpy(sa.sun_path, s->path, sizeof(sa.sun_path));
	s->sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s->sock < 0)
		return -errno;
	if (connect(s->sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

/* A line for the user: on this program's stderr, or, attached, sent to
 * the recorder, which prints it where the user looks. */
__attribute__((format(printf, 2, 3))) static void note(struct session *s,
						       const char *fmt, ...)
{
	static struct lt_msg_note m; /* under lock */
	va_list ap;
	memset(&m, 0, sizeof(m));
	va_start(ap, fmt);
	vsnprintf(m.text, sizeof(m.text), fmt, ap);
	va_end(ap);
	if (!s->attached) {
		fprintf(stderr, "lowtrace: %s\n", m.text);
		return;
	}
	lt_proto_init(&m.h, LT_MSG_NOTE, sizeof(m));
	lt_proto_send(s->sock, &m, sizeof(m), NULL, 0);
}

/* Whether another session is on (its clock calibration stays). */
static int others(const struct session *s)
{
	for (int i = 0; i < LT_AGENT_MAX_SESSIONS; i++)
		if (sessions[i] && sessions[i] != s)
			return 1;
	return 0;
}

/* HELLO, then the session's CONFIG on s->sock: buffers, clock, rules. */
static int handshake(struct session *s)
{
	struct lt_msg_hello hello;
	static struct lt_msg_config cfg; /* under lock */
	int fds[LT_PROTO_MAX_FDS], nfds = 0, rc;
	enum lt_msg_type type;

	struct timeval tv = { 10, 0 };
	setsockopt(s->sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	lt_proto_init(&hello.h, LT_MSG_HELLO, sizeof(hello));
	hello.pid = (int32_t)getpid();
	hello.ppid = (int32_t)getppid();
	memset(hello.procname, 0, sizeof(hello.procname));
	FILE *f = fopen("/proc/self/comm", "re");
	if (f) {
		if (fgets(hello.procname, sizeof(hello.procname), f))
			hello.procname[strcspn(hello.procname, "\n")] = 0;
		fclose(f);
	}
	rc = lt_proto_send(s->sock, &hello, sizeof(hello), NULL, 0);
	if (rc)
		return rc;
	ssize_t n = lt_proto_recv(s->sock, &cfg, sizeof(cfg), fds,
				  LT_PROTO_MAX_FDS, &nfds);
	if (n < 0)
		return (int)n;
	rc = -EPROTO;
	if (lt_proto_check(&cfg, (size_t)n, &type) || type != LT_MSG_CONFIG ||
	    cfg.nchannels == 0 || cfg.nchannels > LT_PROTO_MAX_CHANNELS ||
	    cfg.nrules > LT_PROTO_MAX_RULES || cfg.calib.freq == 0)
		goto fail_fds;
	uint32_t shared = 0;
	for (uint32_t i = 0; i < cfg.nchannels; i++)
		if (cfg.channels[i].shared)
			shared |= 1u << i;
	/* shared buffers come with their id table, last */
	if (nfds != (int)cfg.nchannels + (shared != 0))
		goto fail_fds;
	if (shared) {
		rc = lt_idtab_map(fds[cfg.nchannels], &s->ids);
		fds[cfg.nchannels] = -1; /* taken, mapped or not */
		if (rc)
			goto fail_fds;
	}
	/* one clock for every session: another recorder's calibration
	 * converts the same counts, unless its source differs */
	rc = -EXDEV;
	if (others(s) && cfg.calib.source != lt_clock_calib.source)
		goto fail_fds;
	for (uint32_t i = 0; i < cfg.nchannels; i++) {
		rc = lt_ring_map(fds[i], &s->rings[i]);
		if (rc)
			goto fail_fds;
		fds[i] = -1; /* the ring owns it now */
		/* before any tracepoint can reach it */
		lt_ring_choose_sync(s->rings[i]);
		s->nrings = i + 1;
	}
	if (!others(s)) {
		lt_clock_set_calib(&cfg.calib);
		lt_probe_clock_changed();
	}
	/* every event described before a rule claims a shared id for it */
	rc = lt_probe_add_listener(describe_event, s);
	if (rc)
		return rc;
	s->listening = 1;
	for (uint32_t i = 0; i < cfg.nchannels; i++) {
		if (!(shared & 1u << i))
			continue;
		rc = lt_probe_share_ring(s->rings[i], (int32_t)getpid(),
					 shared_id, s);
		if (rc)
			return rc;
		s->shared |= 1u << i;
	}
	for (uint32_t i = 0; i < cfg.nrules; i++) {
		struct lt_proto_rule *r = &cfg.rules[i];
		char err[600];
		if (!lt_proto_str_ok(r->pattern, sizeof(r->pattern)) ||
		    !lt_proto_str_ok(r->filter, sizeof(r->filter)) ||
		    !lt_proto_str_ok(r->trigger, sizeof(r->trigger)) ||
		    r->channel >= cfg.nchannels)
			continue;
		rc = add_rule(s, r, s->rings[r->channel], err, sizeof(err));
		if (rc)
			note(s, "process %d: %s '%s%s%s' refused: %s",
			     (int)getpid(), r->trigger[0] ? "--trigger" : "-e",
			     r->pattern, r->filter[0] ? " if " : "", r->filter,
			     err[0] ? err : strerror(-rc));
	}
	return 0;
fail_fds:
	for (int i = 0; i < nfds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return rc;
}

/* The attached session's end: its socket hangs up. */
static void *watch_thread(void *arg)
{
	struct session *s = arg;
	/* POLLRDHUP alone: replies to requests do not wake it */
	struct pollfd pf = { s->sock, POLLRDHUP, 0 };
	while (poll(&pf, 1, -1) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < LT_AGENT_MAX_SESSIONS; i++)
		if (sessions[i] == s)
			sessions[i] = NULL;
	release(s, 0);
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* Joins a session (under lock); 0, or -errno with s released. */
static int join(struct session *s, int in_child)
{
	int slot = -1;
	for (int i = 0; i < LT_AGENT_MAX_SESSIONS && slot < 0; i++)
		if (!sessions[i])
			slot = i;
	int rc = slot < 0 ? -EBUSY : 0;
	if (!rc && s->sock < 0)
		rc = connect_path(s);
	if (!rc)
		rc = handshake(s);
	if (rc && s->attached && s->sock >= 0)
		note(s, "process %d cannot join session %s: %s", (int)getpid(),
		     s->name[0] ? s->name : s->path,
		     rc == -EXDEV ? "another session it is in reads another "
				    "clock" :
				    strerror(-rc));
	pthread_t th;
	if (!rc && s->attached)
		rc = lt_agent_thread(&th, "lt-session", watch_thread, s);
	if (rc) {
		release(s, in_child);
		return rc;
	}
	if (s->attached)
		pthread_detach(th);
	sessions[slot] = s;
	return 0;
}

static void before_fork(void)
{
	pthread_mutex_lock(&lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

/* The child of a fork: its parent's buffers and sockets are not its own;
 * it joins each of its parent's sessions anew. */
static void after_fork_child(void)
{
	struct session *was[LT_AGENT_MAX_SESSIONS];
	memcpy(was, sessions, sizeof(was));
	memset(sessions, 0, sizeof(sessions));
	lt_probe_reset_after_fork();
	for (int i = 0; i < LT_AGENT_MAX_SESSIONS; i++) {
		struct session *p = was[i];
		if (!p)
			continue;
		struct session *s = new_session(-1, p->path, p->name);
		int attached = p->attached;
		if (s)
			s->attached = attached;
		release(p, 1);
		int rc = s ? join(s, 1) : -ENOMEM;
		/* an attached session's recorder attaches the child through
		 * its rendezvous when it cannot join (another user's socket) */
		if (rc && !attached)
			fprintf(stderr,
				"lowtrace: process %d (a child) is not traced: "
				"%s\n",
				(int)getpid(), strerror(-rc));
	}
	pthread_mutex_unlock(&lock);
}

static void install_atfork(void)
{
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

int lt_agent_start(const char *sock_path)
{
	if (strlen(sock_path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return -ENAMETOOLONG;
	pthread_once(&atfork_once, install_atfork);
	struct session *s = new_session(-1, sock_path, "");
	pthread_mutex_lock(&lock);
	int rc = s ? join(s, 0) : -ENOMEM;
	pthread_mutex_unlock(&lock);
	if (rc) {
		fprintf(stderr,
			"lowtrace: cannot join the recording session at %s: %s "
			"(is `lowtrace record` still running?)\n",
			sock_path, strerror(-rc));
		return rc;
	}
	return 0;
}

static void reply(int fd, int status, const char *text)
{
	static struct lt_msg_reply rep; /* under lock */
	memset(&rep, 0, sizeof(rep));
	lt_proto_init(&rep.h, LT_MSG_REPLY, sizeof(rep));
	rep.status = status;
	snprintf(rep.text, sizeof(rep.text), "%s", text);
	lt_proto_send(fd, &rep, sizeof(rep), NULL, 0);
}

int lt_agent_attach(int fd, const struct lt_msg_attach *m)
{
	char text[LT_AGENT_MAX_SESSIONS * (LT_PROTO_NAME + 8) + 128];
	int n = 0, rc = 0;

	pthread_once(&atfork_once, install_atfork);
	pthread_mutex_lock(&lock);
	for (int i = 0; i < LT_AGENT_MAX_SESSIONS; i++) {
		if (!sessions[i])
			continue;
		if (strcmp(sessions[i]->path, m->sock) == 0)
			rc = -EALREADY;
		n++;
	}
	if (rc) {
		snprintf(text, sizeof(text),
			 "process %d is already in session %s", (int)getpid(),
			 m->session);
	} else if (n == LT_AGENT_MAX_SESSIONS) {
		rc = -EBUSY;
		int k = snprintf(text, sizeof(text),
				 "process %d is already recorded by sessions",
				 (int)getpid());
		for (int i = 0, j = 0; i < LT_AGENT_MAX_SESSIONS; i++)
			if (sessions[i] && k > 0 && (size_t)k < sizeof(text))
				k += snprintf(text + k,
					      sizeof(text) - (size_t)k, "%s %s",
					      j++ ? " and" : "",
					      sessions[i]->name);
		if (k > 0 && (size_t)k < sizeof(text))
			snprintf(text + k, sizeof(text) - (size_t)k,
				 " (%d at most)", LT_AGENT_MAX_SESSIONS);
	}
	if (rc) {
		reply(fd, rc, text);
		close(fd);
	} else {
		reply(fd, 0, "attached");
		struct session *s = new_session(fd, m->sock, m->session);
		if (!s) {
			close(fd);
			rc = -ENOMEM;
		} else {
			s->attached = 1;
			rc = join(s, 0);
		}
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

int lt_agent_describe(char *out, size_t cap)
{
	int k = 0;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < LT_AGENT_MAX_SESSIONS; i++)
		if (sessions[i] && (size_t)k < cap)
			k += snprintf(out + k, cap - (size_t)k, "%s%s",
				      k ? "," : "",
				      sessions[i]->name[0] ? sessions[i]->name :
							     "(environment)");
	pthread_mutex_unlock(&lock);
	if (!k)
		snprintf(out, cap, "-");
	return k > 0;
}

/* Sends one message to the recorder and waits for its reply. */
static int request(struct session *s, const void *msg, size_t len)
{
	struct lt_msg_reply rep;
	enum lt_msg_type type;

	pthread_mutex_lock(&s->one_request);
	int rc = lt_proto_send(s->sock, msg, len, NULL, 0);
	if (!rc) {
		ssize_t n = lt_proto_recv(s->sock, &rep, sizeof(rep), NULL, 0,
					  NULL);
		if (n < 0)
			rc = (int)n;
		else if (lt_proto_check(&rep, (size_t)n, &type) ||
			 type != LT_MSG_REPLY)
			rc = -EPROTO;
		else
			rc = rep.status;
	}
	pthread_mutex_unlock(&s->one_request);
	return rc;
}

int lt_agent_trigger(const char *name)
{
	struct lt_msg_trigger m;

	if (!name || !*name || strlen(name) >= sizeof(m.name))
		return -EINVAL;
	lt_trace(lowtrace, trigger, name);
	trigger_msg(&m, name);
	int rc = -ENOTCONN;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < LT_AGENT_MAX_SESSIONS; i++)
		if (sessions[i])
			rc = request(sessions[i], &m, sizeof(m));
	pthread_mutex_unlock(&lock);
	return rc;
}
