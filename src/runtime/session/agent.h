/* SPDX-License-Identifier: MIT */
/*
 * agent.h - joining a `lowtrace record` session from the traced process.
 */
#ifndef LT_SESSION_AGENT_H
#define LT_SESSION_AGENT_H

#include <pthread.h>
#include <stddef.h>

/* Sessions a process can be in at once (a flight recorder and an ad hoc
 * recording). */
#define LT_AGENT_MAX_SESSIONS 2

struct lt_msg_attach;

/* Connects to the recorder at sock_path and takes its configuration. */
int lt_agent_start(const char *sock_path);
/*
 * The rendezvous's JOIN (attach.c): replies on fd, then joins the session
 * over it, attached (detached when fd hangs up); takes fd.  Refuses a
 * session already joined (-EALREADY) and one more than
 * LT_AGENT_MAX_SESSIONS (-EBUSY, naming those it is in).
 */
int lt_agent_attach(int fd, const struct lt_msg_attach *m);
/* The names of the sessions joined, comma-separated, or "-"; 1 if any. */
int lt_agent_describe(char *out, size_t cap);
/* A thread with every signal blocked (the process's signals go to its
 * own threads), named name (lt-*, as top -H and gdb show it; at most 15
 * characters); 0 or -errno. */
int lt_agent_thread(pthread_t *th, const char *name, void *(*fn)(void *),
		    void *arg);
/* lt_trigger(NAME): traces lowtrace:trigger, then asks the recorder to
 * act and waits for its reply: the reply's status, -ENOTCONN outside a
 * recording session, -EINVAL for an empty or too long name. */
int lt_agent_trigger(const char *name);

#endif
