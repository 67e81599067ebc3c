/* SPDX-License-Identifier: MIT */
/*
 * targets.h - the list of rings one event goes to, as lt_probe_emit() reads
 * it, and its reclamation once no reader can still hold it.
 */
#ifndef LT_PROBE_TARGETS_H
#define LT_PROBE_TARGETS_H

#include <stdint.h>

#include "ring/ring.h"

struct lt_filter;

/* One destination: a ring, or a trigger's function; either behind an
 * optional filter (compiled for this event, freed with the list). */
struct lt_target {
	struct lt_ring *ring; /* NULL for a trigger */
	struct lt_filter *filter; /* NULL: every event */
	void (*fire)(void *arg);
	void *arg;
	uint32_t id; /* the event's id in ring: its own, or a shared ring's */
	int32_t pid; /* a shared ring's: each record led by it; else 0 */
};

struct lt_targets {
	uint32_t id; /* the event's */
	uint32_t n;
	/* the only target, a ring with no filter that takes the event's id
	 * and no pid */
	struct lt_ring *solo;
	/* solo again if an rseq ring and id fits a compact event header:
	 * what lt_probe_emit()'s call-free path writes to */
	struct lt_ring *fast;
	/* fast again if the clock is the TSC and this process can restart
	 * every sequence in flight (lt_probe_seq_usable()): what
	 * probe_x86_64.S and the call sites' sequence (tp_seq.h, through the
	 * descriptor's seq) read inside a restartable sequence, with no RCU
	 * section */
	struct lt_ring *seq;
	/* the only target, a shared rseq ring with no filter and a compact
	 * id: what the call-free path writes to, the pid leading the
	 * payload */
	const struct lt_target *led;
	struct lt_targets *next_retired; /* the registry's, once replaced */
	struct lt_target t[]; /* rings first, then triggers */
};

/* Frees a list and the filters it owns. */
void lt_targets_free(struct lt_targets *t);

/*
 * Whether the call-free path of probe_x86_64.S may run in this process:
 * registers it for membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ) the
 * first time (the registry's lock held), unless LOWTRACE_PROBE_SEQ=0.
 */
int lt_probe_seq_usable(void);

/* Forgets readers in flight in the parent, in the child after fork(). */
void lt_probe_readers_after_fork(void);

#endif
