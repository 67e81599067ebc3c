/* SPDX-License-Identifier: MIT */
/*
 * agent.h - joining a `lowtrace record` session from the traced process.
 */
#ifndef LT_SESSION_AGENT_H
#define LT_SESSION_AGENT_H

#include <stddef.h>

/* Connects to the recorder at sock_path and takes its configuration. */
int lt_agent_start(const char *sock_path);
/* lt_trigger(NAME): traces lowtrace:trigger, then asks the recorder to
 * act and waits for its reply: the reply's status, -ENOTCONN outside a
 * recording session, -EINVAL for an empty or too long name. */
int lt_agent_trigger(const char *name);

#endif
