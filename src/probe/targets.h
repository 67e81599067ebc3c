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
	struct lt_ring *rings[];
};

/* Frees t after every lt_probe_emit() that may be reading it has ended. */
void lt_targets_retire(struct lt_targets *t);

#endif
