/*
 * agent.h - joining a `lowtrace record` session from the traced process.
 */
#ifndef LT_SESSION_AGENT_H
#define LT_SESSION_AGENT_H

#include <stddef.h>

/* Connects to the recorder at sock_path and takes its configuration. */
int lt_agent_start(const char *sock_path);
/* Sends one message to the recorder (a trigger); -ENOTCONN if none. */
int lt_agent_send(const void *msg, size_t len);

#endif
