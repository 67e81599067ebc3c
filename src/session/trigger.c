/*
 * trigger.c - lt_trigger(): an event in the trace, and under `lowtrace
 * record` a request to the recorder to act (take a snapshot, or stop).
 */
#include <errno.h>
#include <lowtrace/lowtrace.h>
#include <lowtrace/tracepoint.h>
#include <stdio.h>
#include <string.h>

#include "session/agent.h"
#include "session/proto.h"

LT_EVENT(lowtrace, trigger, LT_NOTICE, LT_ARGS(const char *, name),
	 LT_FIELDS(LT_FIELD_STRING(name, name)))

int lt_trigger(const char *name)
{
	struct lt_msg_trigger m;

	if (!name || !*name || strlen(name) >= sizeof(m.name))
		return -EINVAL;
	lt_trace(lowtrace, trigger, name);
	memset(&m, 0, sizeof(m));
	lt_proto_init(&m.h, LT_MSG_TRIGGER, sizeof(m));
	snprintf(m.name, sizeof(m.name), "%s", name);
	return lt_agent_request(&m, sizeof(m));
}
