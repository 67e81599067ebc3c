/*
 * targets.h - the list of rings one event goes to, as lt_probe_emit() reads
 * it, and its reclamation once no reader can still hold it.
 */
#ifndef LT_PROBE_TARGETS_H
#define LT_PROBE_TARGETS_H

#include <stdint.h>

#include "ring/ring.h"

struct lt_targets {
	uint32_t id; /* the event's */
	uint32_t n;
	struct lt_targets *next_retired; /* the registry's, once replaced */
	struct lt_ring *rings[];
};

/* Forgets readers in flight in the parent, in the child after fork(). */
void lt_probe_readers_after_fork(void);

#endif
