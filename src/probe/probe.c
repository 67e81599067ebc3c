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

/* Every target of t, each through its filter; the general case. */
static __attribute__((noinline)) void emit_all(const struct lt_targets *t,
					       const void *payload,
					       uint32_t len, int overflow)
{
	for (uint32_t i = 0; i < t->n; i++) {
		const struct lt_target *g = &t->t[i];
		struct lt_ring *r = g->ring;
		if (__builtin_expect(overflow, 0)) {
			if (r)
				lt_ring_count_too_big(r);
			continue;
		}
		if (g->filter && !lt_filter_match(g->filter, payload, len))
			continue;
		if (!r)
			g->fire(g->arg);
		else
			lt_ring_write(r, t->id, payload, len);
	}
}

void lt_probe_emit(struct lt_event_desc *d, const void *payload, uint32_t len,
		   int overflow)
{
	lt_rcu_read_lock();
	/* acquire: pairs with the release store in the registry's
	 * update_entry(), so the list's contents are complete */
	struct lt_targets *t = __atomic_load_n(
		(struct lt_targets **)&d->targets, __ATOMIC_ACQUIRE);
	if (__builtin_expect(t != NULL, 1)) {
		/* the common case, one ring and no filter, without the loop */
		struct lt_ring *r = t->solo;
		if (__builtin_expect(r && !overflow, 1))
			lt_ring_write(r, t->id, payload, len);
		else
			emit_all(t, payload, len, overflow);
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
