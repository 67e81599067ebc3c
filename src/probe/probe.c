/*
 * probe.c - the tracing path of an enabled event: read the event's target
 * list inside an RCU read-side section, and copy the serialised payload
 * into each target ring whose filter (if any) the payload matches.  No
 * lock, no system call, no allocation.  A trigger target calls its
 * function (see lt_probe_enable_trigger()).
 */
#include "probe/probe.h"

#include <stdlib.h>

#include "probe/filter.h"
#include "probe/targets.h"

#include <lowtrace/rcu.h>

void lt_probe_emit(struct lt_event_desc *d, const void *payload, uint32_t len,
		   int overflow)
{
	lt_rcu_read_lock();
	/* acquire: pairs with the release store in the registry's
	 * update_entry(), so the list's contents are complete */
	struct lt_targets *t = __atomic_load_n(
		(struct lt_targets **)&d->targets, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; t && i < t->n; i++) {
		const struct lt_target *g = &t->t[i];
		struct lt_ring *r = g->ring;
		struct lt_ring_ctx c;
		if (__builtin_expect(overflow, 0)) {
			if (r)
				lt_ring_count_too_big(r);
			continue;
		}
		if (g->filter && !lt_filter_match(g->filter, payload, len))
			continue;
		if (!r) {
			g->fire(g->arg);
			continue;
		}
		if (lt_ring_reserve(r, &c, t->id, len) == 0) {
			if (len)
				memcpy(c.payload, payload, len);
			lt_ring_commit(r, &c);
		}
	}
	lt_rcu_read_unlock();
}

void lt_targets_free(struct lt_targets *t)
{
	for (uint32_t i = 0; t && i < t->n; i++)
		lt_filter_free(t->t[i].filter);
	free(t);
}

void lt_probe_readers_after_fork(void)
{
	lt_rcu_after_fork_child();
}

void lt_probe_sync(void)
{
	lt_rcu_synchronize();
}
