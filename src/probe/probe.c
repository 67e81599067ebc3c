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

/* Copies a payload of a few words without a call into the C library. */
static inline __attribute__((always_inline)) void
copy_payload(char *d, const char *s, uint32_t n)
{
	uint64_t a, b;
	uint32_t x, y;
	if (n > 16) {
		memcpy(d, s, n);
	} else if (n >= 8) {
		/* two words that overlap when n < 16 */
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		memcpy(&x, s, 4);
		memcpy(&y, s + n - 4, 4);
		memcpy(d, &x, 4);
		memcpy(d + n - 4, &y, 4);
	} else {
		for (uint32_t i = 0; i < n; i++)
			d[i] = s[i];
	}
}

static inline __attribute__((always_inline)) void
write_one(struct lt_ring *r, uint32_t id, const void *payload, uint32_t len,
	  const int mode)
{
	struct lt_ring_ctx c;
	uint32_t cpu = (uint32_t)lt_cpu_current();
	if (__builtin_expect(cpu >= r->n_cpus, 0))
		cpu %= r->n_cpus;
	if (lt_ring_reserve_on(r, &c, cpu, NULL, id, len, mode) == 0) {
		copy_payload(c.payload, payload, len);
		lt_ring_commit(r, &c);
	}
}

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
		else if (r->mode == LT_RING_OVERWRITE)
			write_one(r, t->id, payload, len, LT_RING_OVERWRITE);
		else
			write_one(r, t->id, payload, len, LT_RING_DISCARD);
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
		if (__builtin_expect(r && !overflow, 1)) {
			if (r->mode == LT_RING_DISCARD)
				write_one(r, t->id, payload, len,
					  LT_RING_DISCARD);
			else
				write_one(r, t->id, payload, len,
					  LT_RING_OVERWRITE);
		} else {
			emit_all(t, payload, len, overflow);
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
