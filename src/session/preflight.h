/*
 * preflight.h - `lowtrace record`'s check of its filters against the
 * events of the program, before the program runs (preflight.c).
 */
#ifndef LT_SESSION_PREFLIGHT_H
#define LT_SESSION_PREFLIGHT_H

#include "session/proto.h"

/*
 * Runs argv once in listing mode (LOWTRACE_LIST_EVENTS) if any rule has a
 * filter and the executable has events of its own, and checks each
 * filter against the events its rule selects.  Returns 0, or -EINVAL
 * after a message on stderr for each filter that does not fit.
 */
int lt_preflight_check(char *const *argv, const struct lt_proto_rule *rules,
		       int nrules);

#endif
