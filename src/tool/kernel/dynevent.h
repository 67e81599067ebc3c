/* SPDX-License-Identifier: MIT */
/*
 * dynevent.h - the tracefs dynamic events a recording creates: uprobes on
 * USDT markers (`-u PROVIDER:NAME(ARGS)`) and on functions (`--probe
 * BIN:FUNC(ARGS)`, `BIN:FUNC%return(ret:TYPE)`), and kprobes where the
 * kernel has kprobe_events.  They live in a group of their own,
 * `lowtrace_PID` (PID: the recorder's), so that the kernel channel reads
 * them as it reads tracepoints (pattern `lowtrace_PID:*`, each renamed
 * PROVIDER:NAME in the trace) and so that a group whose recorder is dead
 * is known to be stale: lt_dyn_clean_stale() removes those, and nothing
 * else, at the next start.  Other tools' probes are never touched.
 */
#ifndef LT_KERNEL_DYNEVENT_H
#define LT_KERNEL_DYNEVENT_H

#include <stddef.h>
#include <sys/types.h>

#include "kernel/kernel.h"

struct lt_dyn_spec {
	const char *const *usdt; /* -u items: PROVIDER:NAME[(TYPES)] */
	size_t nusdt;
	const char *const
		*funcs; /* --probe items: BIN:FUNC[%return][(TYPES)] */
	size_t nfuncs;
	const char *const *kprobes; /* kprobe:FUNC, kretprobe:FUNC */
	size_t nkprobes;
	const char *prog; /* the command (argv[0]), or NULL */
	pid_t pid; /* -p, or 0 */
};

struct lt_dyn;

/*
 * Creates the events the spec names in this process's group; 0, or a
 * negative errno with a message in err ("lowtrace: ...") and nothing
 * left behind.  A spec with nothing to create gives an empty set.
 */
int lt_dyn_create(const struct lt_dyn_spec *s, struct lt_dyn **out, char *err,
		  size_t errlen);

/* The kernel channel's pattern for the set ("lowtrace_PID:*"), NULL when
 * it is empty; and the trace names of its events. */
const char *lt_dyn_pattern(const struct lt_dyn *d);
void lt_dyn_aliases(const struct lt_dyn *d, const struct lt_kernel_alias **a,
		    size_t *n);

/* Removes every event of the set (after the perf events on them are
 * closed) and frees it. */
void lt_dyn_destroy(struct lt_dyn *d);

/* Removes the events of lowtrace groups whose recorder is no longer
 * running; how many, or a negative errno. */
int lt_dyn_clean_stale(void);

/* Splits a comma-separated list whose items may hold commas inside
 * parentheses; the items point into buf (modified); how many. */
int lt_dyn_split(char *buf, const char **items, int max);

#endif
