/* SPDX-License-Identifier: MIT */
/*
 * proto.h - messages between a traced process (its agent, in liblowtrace)
 * and the `lowtrace record` process, over a SOCK_SEQPACKET unix socket.
 *
 *   agent -> recorder  HELLO   pid, ppid, program name
 *   recorder -> agent  CONFIG  trace uuid, clock calibration, channels and
 *                              rules; one ring-buffer memfd per channel
 *                              rides along (SCM_RIGHTS), then, if a
 *                              channel's buffers are shared by several
 *                              processes, the table of their event ids
 *                              (idtab.h)
 *   agent -> recorder  EVENT   one event's description (id, name, level,
 *                              fields), for every event it has or gets
 *   agent -> recorder  NOTE    a line for the user (a rule it refused),
 *                              from a program attached, whose own stderr
 *                              the user may not see
 *   client -> recorder CTL     stop, snapshot or status (`lowtrace stop`)
 *   recorder -> client REPLY   a status code and a line of text
 *
 * A program started without `lowtrace record` waits for one on its
 * rendezvous, the abstract unix socket "\0lowtrace/app/PID" (attach.c):
 *
 *   recorder -> program ATTACH  JOIN: the session's name and socket;
 *                               QUERY: what `lowtrace list --apps` shows
 *   program -> recorder REPLY   0, or why it refuses; after a JOIN's 0
 *                               the connection is the agent's, as if it
 *                               had connected to the session's socket
 *
 * The process's end closes its socket, which tells the recorder to collect
 * what it left in its buffers.  Every message is checked on receipt:
 * lengths, counts and strings; a bad one is refused, never trusted.
 */
#ifndef LT_SESSION_PROTO_H
#define LT_SESSION_PROTO_H

#include <lowtrace/types.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "clock/clock.h"

#define LT_PROTO_MAGIC 0x6c747270u /* "ltrp" */
#define LT_PROTO_VERSION 2
#define LT_PROTO_MAX 65536 /* bytes in one message */
#define LT_PROTO_MAX_CHANNELS 16
#define LT_PROTO_MAX_FDS (LT_PROTO_MAX_CHANNELS + 1) /* and an id table */
#define LT_PROTO_MAX_RULES 64
#define LT_PROTO_NAME 64
#define LT_PROTO_PATTERN 256
#define LT_PROTO_FILTER 512 /* LT_FILTER_MAX_TEXT */

enum lt_msg_type {
	LT_MSG_HELLO = 1,
	LT_MSG_CONFIG = 2,
	LT_MSG_EVENT = 3,
	LT_MSG_CTL = 4,
	LT_MSG_REPLY = 5,
	LT_MSG_TRIGGER = 6,
	LT_MSG_ATTACH = 7,
	LT_MSG_NOTE = 8,
};

struct lt_msg_hdr {
	uint32_t magic;
	uint16_t type;
	uint16_t version;
	uint32_t len; /* whole message, this header included */
	uint32_t pad;
};

struct lt_msg_hello {
	struct lt_msg_hdr h;
	int32_t pid, ppid;
	char procname[16];
};

struct lt_proto_channel {
	char name[LT_PROTO_NAME];
	uint32_t stream_id;
	uint32_t mode;
	/* 1: buffers shared by the processes of one user: ids from the
	 * CONFIG's id table, each record led by the writer's pid (its
	 * stream's event context, vpid) */
	uint32_t shared;
	uint32_t pad;
};

/* A rule records the events it selects into a channel, or, with a
 * trigger name, acts as lt_trigger(NAME) when one of them matches (at most
 * once per holdoff_ms, decided in the traced process). */
struct lt_proto_rule {
	char pattern[LT_PROTO_PATTERN];
	int32_t loglevel_max;
	uint32_t channel;
	char filter[LT_PROTO_FILTER]; /* filter.h; "" for none */
	char trigger[LT_PROTO_NAME]; /* "" for a recording rule */
	uint32_t holdoff_ms;
	uint32_t pad;
};

struct lt_msg_config {
	struct lt_msg_hdr h;
	uint8_t uuid[16];
	struct lt_clock_calib calib;
	uint32_t nchannels, nrules;
	struct lt_proto_channel channels[LT_PROTO_MAX_CHANNELS];
	struct lt_proto_rule rules[LT_PROTO_MAX_RULES];
};

enum lt_ctl_op {
	LT_CTL_STATUS = 1,
	LT_CTL_STOP = 2,
	LT_CTL_SNAPSHOT = 3,
};

struct lt_msg_ctl {
	struct lt_msg_hdr h;
	uint32_t op;
	char arg[LT_PROTO_NAME];
};

struct lt_msg_reply {
	struct lt_msg_hdr h;
	int32_t status; /* 0 or -errno */
	char text[1024];
};

struct lt_msg_trigger {
	struct lt_msg_hdr h;
	char name[LT_PROTO_NAME];
};

struct lt_msg_note {
	struct lt_msg_hdr h;
	char text[1024];
};

enum lt_attach_op {
	LT_ATTACH_JOIN = 1,
	LT_ATTACH_QUERY = 2,
};

/* A QUERY's reply text: "EVENTS SESSIONS", SESSIONS the names of the
 * attached sessions, comma-separated, or "-". */
struct lt_msg_attach {
	struct lt_msg_hdr h;
	uint32_t op;
	uint32_t pad;
	char session[LT_PROTO_NAME]; /* its name, for messages */
	char sock[108]; /* its socket, which the program's children join */
};

/* The rendezvous's name, without its leading NUL. */
#define LT_PROTO_APP_PREFIX "lowtrace/app/"

/* A received ATTACH, checked (lengths, strings, op) and copied to m;
 * 0 or -EPROTO. */
int lt_proto_attach_check(const void *buf, size_t len, struct lt_msg_attach *m);

struct sockaddr_un;
/* Fills sa with pid's rendezvous; returns the address's length. */
unsigned lt_proto_app_addr(int pid, struct sockaddr_un *sa);

struct lt_ctf_event; /* ctf/metadata.h */

void lt_proto_init(struct lt_msg_hdr *h, enum lt_msg_type type, size_t len);
/* 0 if the header is ours and len bytes were received for it. */
int lt_proto_check(const void *buf, size_t len, enum lt_msg_type *type);

/* Sends/receives one message with up to max_fds descriptors. */
int lt_proto_send(int sock, const void *msg, size_t len, const int *fds,
		  int nfds);
ssize_t lt_proto_recv(int sock, void *buf, size_t cap, int *fds, int max_fds,
		      int *nfds);

/* EVENT messages: encodes into buf (returns length or -E2BIG); decodes
 * and checks (returns 0 or -EPROTO), into an event that owns its name and
 * fields until lt_proto_event_free(). */
ssize_t lt_proto_event_encode(void *buf, size_t cap,
			      const struct lt_ctf_event *ev);
int lt_proto_event_decode(const void *buf, size_t len, struct lt_ctf_event *ev);
void lt_proto_event_free(struct lt_ctf_event *ev);
/* The key of an encoded EVENT message's event (idtab.h): a hash of all
 * of it but the id, so that the same event in two processes has one key
 * and events that differ in a field have two. */
uint64_t lt_proto_event_key(const void *msg, size_t len);

/* A string field of a fixed-size array: NUL-terminated within it? */
int lt_proto_str_ok(const char *s, size_t cap);

/* Where sessions' sockets live: $XDG_RUNTIME_DIR/lowtrace or
 * /tmp/lowtrace-UID, created 0700 and checked to be ours. */
int lt_proto_socket_dir(char *out, size_t cap);

/* Whether a session's socket at path has a recorder listening: 1; 0 for
 * one a recorder killed before it could remove it (nobody listens), which
 * is removed then; a negative errno when it cannot tell. */
int lt_proto_socket_live(const char *path);

#endif
