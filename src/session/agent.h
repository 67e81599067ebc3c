/*
 * agent.h - joining a `lowtrace record` session from the traced process.
 */
#ifndef LT_SESSION_AGENT_H
#define LT_SESSION_AGENT_H

#include <stddef.h>

/* Connects to the recorder at sock_path and takes its configuration. */
int lt_agent_start(const char *sock_path);
/* Sends one message to the recorder and waits for its reply (a trigger):
 * the reply's status, or -ENOTCONN outside a recording session. */
int lt_agent_request(const void *msg, size_t len);

#endif
