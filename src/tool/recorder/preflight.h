/* SPDX-License-Identifier: MIT */
/*
 * preflight.h - `lowtrace record`'s check of its filters against the
 * events of the program, before the program runs (preflight.c).
 */
#ifndef LT_SESSION_PREFLIGHT_H
#define LT_SESSION_PREFLIGHT_H

#include <stdio.h>

#include "session/proto.h"

/*
 * Runs argv once in listing mode (LOWTRACE_LIST_EVENTS) if any rule has a
 * filter and the executable has events of its own, and checks each
 * filter against the events its rule selects.  Returns 0, or -EINVAL
 * after a message on stderr for each filter that does not fit.
 */
int lt_preflight_check(char *const *argv, const struct lt_proto_rule *rules,
		       int nrules);

/*
 * Prints the events the program (argv[0], found as execvp would) defines,
 * in it and the libraries it links, one per line: name, level, fields.
 * -ENOENT: no such program; -ENODATA: it defines no events of its own.
 */
int lt_preflight_list(char *const *argv, FILE *out);

#endif
