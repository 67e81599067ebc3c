/* SPDX-License-Identifier: MIT */
/*
 * test_attach.c - a running program's rendezvous (src/runtime/session/attach.c)
 * against its callers: this test links liblowtrace and has an event, so
 * it listens on "\0lowtrace/app/PID" (each case runs in a forked child,
 * which listens under its own pid).  What `lowtrace list --apps` finds
 * and asks (src/tool/recorder/apps.c), and hostile peers: garbage, requests cut
 * short, too long, of an unknown op, with names lacking their NUL or with
 * descriptors riding along, and a "recorder" that answers HELLO with a
 * malformed CONFIG.  Each is refused and the rendezvous goes on serving.
 */
#include <lowtrace/tracepoint.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "lt_test.h"
#include "recorder/apps.h"
#include "session/proto.h"

LT_EVENT(attach_test, ev, LT_INFO, LT_ARGS(int, x),
	 LT_FIELDS(LT_FIELD_INT(x, x)))

/* The rendezvous of this process, once its thread listens. */
static int find_self(void)
{
	for (int round = 0; round < 100; round++) {
		struct lt_app apps[256];
		int n = lt_apps_find(apps, 256);
		for (int i = 0; i < n; i++)
			if (apps[i].pid == getpid())
				return 1;
		usleep(10000);
	}
	return 0;
}

static int query(char *text, size_t cap)
{
	return lt_apps_request(getpid(), LT_ATTACH_QUERY, "", "", NULL, text,
			       cap);
}

/* Sends len bytes (and a descriptor if fd >= 0) to the rendezvous;
 * returns the status of the reply, 1 for none (closed). */
static int send_raw(const void *msg, size_t len, int fd)
{
	struct sockaddr_un sa;
	socklen_t alen = lt_proto_app_addr(getpid(), &sa);
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, alen) < 0)
		return -errno;
	lt_proto_send(s, msg, len, fd >= 0 ? &fd : NULL, fd >= 0 ? 1 : 0);
	struct lt_msg_reply rep;
	enum lt_msg_type type;
	ssize_t n = lt_proto_recv(s, &rep, sizeof(rep), NULL, 0, NULL);
	close(s);
	if (n <= 0)
		return 1;
	if (lt_proto_check(&rep, (size_t)n, &type) || type != LT_MSG_REPLY)
		return 2;
	return rep.status;
}

static void request_of(struct lt_msg_attach *m, unsigned op)
{
	memset(m, 0, sizeof(*m));
	lt_proto_init(&m->h, LT_MSG_ATTACH, sizeof(*m));
	m->op = op;
	snprintf(m->session, sizeof(m->session), "test");
	snprintf(m->sock, sizeof(m->sock), "/nonexistent.sock");
}

LT_TEST(test_rendezvous_found_and_queried)
{
	char text[1024];
	LT_ASSERT(find_self());
	LT_ASSERT_EQ(query(text, sizeof(text)), 0);
	/* this test's event and the library's own, no session */
	unsigned events = 0;
	char sessions[64] = "";
	LT_ASSERT_EQ(sscanf(text, "%u %63s", &events, sessions), 2);
	LT_ASSERT_CMP(events, >=, 2);
	LT_ASSERT_STREQ(sessions, "-");
}

LT_TEST(test_rendezvous_refuses_hostile_requests)
{
	LT_ASSERT(find_self());
	struct lt_msg_attach m;
	char junk[300];
	memset(junk, 0x5a, sizeof(junk));
	LT_ASSERT_EQ(send_raw(junk, sizeof(junk), -1), -EPROTO);
	request_of(&m, LT_ATTACH_QUERY);
	LT_ASSERT_EQ(send_raw(&m, sizeof(m) - 8, -1), -EPROTO);
	request_of(&m, 99);
	LT_ASSERT_EQ(send_raw(&m, sizeof(m), -1), -EPROTO);
	request_of(&m, LT_ATTACH_QUERY);
	memset(m.session, 'a', sizeof(m.session));
	LT_ASSERT_EQ(send_raw(&m, sizeof(m), -1), -EPROTO);
	request_of(&m, LT_ATTACH_JOIN);
	memset(m.sock, 'b', sizeof(m.sock));
	LT_ASSERT_EQ(send_raw(&m, sizeof(m), -1), -EPROTO);
	/* too long: one byte more than a request */
	char longer[sizeof(m) + 64];
	request_of(&m, LT_ATTACH_QUERY);
	memcpy(longer, &m, sizeof(m));
	((struct lt_msg_hdr *)longer)->len = sizeof(longer);
	LT_ASSERT_EQ(send_raw(longer, sizeof(longer), -1), -EPROTO);
	/* a descriptor riding along is closed, the request served */
	int p[2];
	LT_ASSERT_EQ(pipe(p), 0);
	LT_ASSERT_EQ(send_raw(&m, sizeof(m), p[0]), 0);
	close(p[0]);
	/* the rendezvous still serves */
	char text[1024];
	LT_ASSERT_EQ(query(text, sizeof(text)), 0);
	LT_ASSERT_CONTAINS(text, " -");
}

/* A JOIN whose "recorder" answers HELLO with a malformed CONFIG: the
 * program joins nothing and can be asked again. */
LT_TEST(test_rendezvous_join_with_bad_config)
{
	LT_ASSERT(find_self());
	char text[1024];
	int fd = -1;
	LT_ASSERT_EQ(lt_apps_request(getpid(), LT_ATTACH_JOIN, "bad",
				     "/nonexistent.sock", &fd, text,
				     sizeof(text)),
		     0);
	LT_ASSERT_STREQ(text, "attached");
	union {
		struct lt_msg_hello hello;
		char buf[LT_PROTO_MAX];
	} u;
	enum lt_msg_type type;
	ssize_t n = lt_proto_recv(fd, u.buf, sizeof(u.buf), NULL, 0, NULL);
	LT_ASSERT_CMP(n, >, 0);
	LT_ASSERT_EQ(lt_proto_check(u.buf, (size_t)n, &type), 0);
	LT_ASSERT_EQ(type, LT_MSG_HELLO);
	LT_ASSERT_EQ(u.hello.pid, getpid());
	/* a CONFIG header with nothing behind it */
	struct lt_msg_hdr h;
	lt_proto_init(&h, LT_MSG_CONFIG, sizeof(h));
	LT_ASSERT_EQ(lt_proto_send(fd, &h, sizeof(h), NULL, 0), 0);
	/* the program hangs up */
	struct pollfd pf = { fd, POLLRDHUP, 0 };
	LT_ASSERT_EQ(poll(&pf, 1, 5000), 1);
	close(fd);
	LT_ASSERT_EQ(query(text, sizeof(text)), 0);
	LT_ASSERT_CONTAINS(text, " -");
	lt_trace(attach_test, ev, 1); /* disabled: nothing to write to */
}

LT_TEST(test_no_rendezvous)
{
	char text[1024];
	/* pid 1 links no liblowtrace here; an unused pid has nothing */
	LT_ASSERT_EQ(lt_apps_request(0x7ffffff0, LT_ATTACH_QUERY, "", "", NULL,
				     text, sizeof(text)),
		     -ECONNREFUSED);
}
