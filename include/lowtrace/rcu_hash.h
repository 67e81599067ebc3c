/* SPDX-License-Identifier: MIT */
/*
 * rcu_hash.h - a resizable hash table: lookups and iteration inside a
 * read-side section of the membarrier flavour (lowtrace/rcu.h), without
 * locks; updates serialised by the table.  The code:
 * src/lib-rcu/hash.c; docs/rcu.md.
 */
#ifndef LOWTRACE_RCU_HASH_H
#define LOWTRACE_RCU_HASH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/*
 * Embedded in the user's object.  Two link slots: a resize builds the new
 * bucket array on the slot the current one does not use, so readers still
 * on the old array keep valid chains.
 */
struct lt_rcu_ht_node {
	struct lt_rcu_ht_node *next[2];
	unsigned long hash;
};

typedef struct lt_rcu_ht lt_rcu_ht_t;

/* Nonzero if node holds key. */
typedef int (*lt_rcu_ht_match_fn)(const struct lt_rcu_ht_node *node,
				  const void *key);

/* Grow automatically when the table holds more than 2 nodes per bucket. */
#define LT_RCU_HT_AUTO_RESIZE 1U

struct lt_rcu_ht_iter {
	const void *buckets;
	size_t index;
	struct lt_rcu_ht_node *node;
};

/* size: initial bucket count, rounded up to a power of two. */
lt_rcu_ht_t *lt_rcu_ht_create(size_t size, unsigned flags);
/* The table must no longer be reachable by readers; nodes are the caller's. */
void lt_rcu_ht_destroy(lt_rcu_ht_t *ht);
void lt_rcu_ht_add(lt_rcu_ht_t *ht, struct lt_rcu_ht_node *node,
		   unsigned long hash);
/* 0, or -ENOENT if node is not in the table.  Free node after a GP. */
int lt_rcu_ht_del(lt_rcu_ht_t *ht, struct lt_rcu_ht_node *node);
/* Put n in old's place (same hash); 0 or -ENOENT.  Free old after a GP. */
int lt_rcu_ht_replace(lt_rcu_ht_t *ht, struct lt_rcu_ht_node *old,
		      struct lt_rcu_ht_node *n);
/* Inside a read-side section; NULL if absent. */
struct lt_rcu_ht_node *lt_rcu_ht_lookup(lt_rcu_ht_t *ht, unsigned long hash,
					lt_rcu_ht_match_fn match,
					const void *key);
/*
 * Rebuild with size buckets (rounded up to a power of two): 0, -ENOMEM, or
 * -EBUSY when called inside a read-side section and a grace period would be
 * needed first (an automatic resize is then skipped).
 */
int lt_rcu_ht_resize(lt_rcu_ht_t *ht, size_t size);
size_t lt_rcu_ht_size(lt_rcu_ht_t *ht);
size_t lt_rcu_ht_count(lt_rcu_ht_t *ht);
/*
 * Iteration inside a read-side section, over one snapshot of the bucket
 * array: each node present for the whole walk is seen exactly once.
 */
struct lt_rcu_ht_node *lt_rcu_ht_first(lt_rcu_ht_t *ht,
				       struct lt_rcu_ht_iter *it);
struct lt_rcu_ht_node *lt_rcu_ht_next(struct lt_rcu_ht_iter *it);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
