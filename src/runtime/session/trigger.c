/* SPDX-License-Identifier: MIT */
/*
 * trigger.c - lt_trigger(), the public call: an event in the trace and,
 * under `lowtrace record`, a request to the recorder to act (take a
 * snapshot, or stop).  The agent does both (lt_agent_trigger()); this
 * file only makes sure the session the environment asks for exists, for
 * a program that has no events of its own to start it.
 */
#include <lowtrace/lowtrace.h>

#include "session/agent.h"

int lt_trigger(const char *name)
{
	lt_session_autostart();
	return lt_agent_trigger(name);
}
