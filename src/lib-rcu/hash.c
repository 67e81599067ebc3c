/* SPDX-License-Identifier: MIT */
/*
 * hash.c - a resizable hash table with lock-free lookups.
 *
 * Readers (inside lt_rcu_read_lock) load the bucket array and walk a
 * chain with lt_rcu_dereference only.  Writers serialise on the table's
 * mutex.  Each node has two link slots: the bucket array in use chains
 * nodes through one of them, and a resize builds the new array through
 * the other, publishes it with lt_rcu_assign_pointer and frees the old
 * array with lt_call_rcu.  Readers still on the old array therefore keep
 * intact chains.  Before a resize reuses a slot, a grace period must
 * have passed since the previous publication (checked with
 * lt_rcu_gp_count).
 */
#define _GNU_SOURCE
#include "lowtrace/rcu.h"
#include "lowtrace/rcu_call.h"
#include "lowtrace/rcu_hash.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

struct lt_rcu_ht_buckets {
	size_t size; /* power of two */
	int slot; /* which next[] of the nodes this array chains through */
	struct lt_rcu_head rcu;
	struct lt_rcu_ht_node *head[];
};

struct lt_rcu_ht {
	struct lt_rcu_ht_buckets *buckets; /* RCU-protected */
	pthread_mutex_t lock;
	size_t count;
	unsigned flags;
	/* lt_rcu_gp_count() just after the last publication. */
	unsigned long pub_gp;
};

static size_t round_pow2(size_t n)
{
	size_t s = 1;

	while (s < n)
		s <<= 1;
	return s;
}

static struct lt_rcu_ht_buckets *buckets_alloc(size_t size, int slot)
{
	struct lt_rcu_ht_buckets *b;

	b = calloc(1, sizeof(*b) + size * sizeof(b->head[0]));
	if (!b)
		return NULL;
	b->size = size;
	b->slot = slot;
	return b;
}

static void buckets_free(struct lt_rcu_head *h)
{
	free((char *)h - offsetof(struct lt_rcu_ht_buckets, rcu));
}

lt_rcu_ht_t *lt_rcu_ht_create(size_t size, unsigned flags)
{
	struct lt_rcu_ht *ht = calloc(1, sizeof(*ht));

	if (!ht)
		return NULL;
	ht->buckets = buckets_alloc(round_pow2(size ? size : 1), 0);
	if (!ht->buckets) {
		free(ht);
		return NULL;
	}
	pthread_mutex_init(&ht->lock, NULL);
	ht->flags = flags;
	return ht;
}

void lt_rcu_ht_destroy(lt_rcu_ht_t *ht)
{
	if (!ht)
		return;
	pthread_mutex_destroy(&ht->lock);
	free(ht->buckets);
	free(ht);
}

/* Link stores are atomic: readers may be loading the same field. */
static void set_link(struct lt_rcu_ht_node **link, struct lt_rcu_ht_node *n)
{
	__atomic_store_n(link, n, __ATOMIC_RELAXED);
}

static int resize_locked(struct lt_rcu_ht *ht, size_t size)
{
	struct lt_rcu_ht_buckets *old = ht->buckets;
	struct lt_rcu_ht_buckets *nb;
	int slot = !old->slot;

	if (old->size == size)
		return 0;
	/*
	 * The slot we are about to rewrite was last used by the array that
	 * the previous resize replaced; its readers are gone once a grace
	 * period that started after that publication has ended.
	 */
	if (lt_rcu_gp_count() < ht->pub_gp + 2) {
		if (lt_rcu_read_ongoing())
			return -EBUSY;
		lt_rcu_synchronize();
	}
	nb = buckets_alloc(size, slot);
	if (!nb)
		return -ENOMEM;
	for (size_t i = 0; i < old->size; i++) {
		struct lt_rcu_ht_node *n = old->head[i];

		while (n) {
			struct lt_rcu_ht_node *next = n->next[old->slot];
			size_t j = n->hash & (size - 1);

			set_link(&n->next[slot], nb->head[j]);
			nb->head[j] = n;
			n = next;
		}
	}
	lt_rcu_assign_pointer(ht->buckets, nb);
	ht->pub_gp = lt_rcu_gp_count();
	lt_call_rcu(&old->rcu, buckets_free);
	return 0;
}

int lt_rcu_ht_resize(lt_rcu_ht_t *ht, size_t size)
{
	int ret;

	pthread_mutex_lock(&ht->lock);
	ret = resize_locked(ht, round_pow2(size ? size : 1));
	pthread_mutex_unlock(&ht->lock);
	return ret;
}

void lt_rcu_ht_add(lt_rcu_ht_t *ht, struct lt_rcu_ht_node *node,
		   unsigned long hash)
{
	struct lt_rcu_ht_buckets *b;
	size_t i;

	pthread_mutex_lock(&ht->lock);
	b = ht->buckets;
	i = hash & (b->size - 1);
	node->hash = hash;
	node->next[!b->slot] = NULL;
	node->next[b->slot] = b->head[i];
	lt_rcu_assign_pointer(b->head[i], node);
	ht->count++;
	if ((ht->flags & LT_RCU_HT_AUTO_RESIZE) && ht->count > 2 * b->size)
		resize_locked(ht, b->size * 2);
	pthread_mutex_unlock(&ht->lock);
}

/* The link that points to node in the current array, or NULL. */
static struct lt_rcu_ht_node **find_link(struct lt_rcu_ht *ht,
					 struct lt_rcu_ht_node *node)
{
	struct lt_rcu_ht_buckets *b = ht->buckets;
	struct lt_rcu_ht_node **link = &b->head[node->hash & (b->size - 1)];

	while (*link && *link != node)
		link = &(*link)->next[b->slot];
	return *link ? link : NULL;
}

int lt_rcu_ht_del(lt_rcu_ht_t *ht, struct lt_rcu_ht_node *node)
{
	struct lt_rcu_ht_node **link;
	int ret = -ENOENT;

	pthread_mutex_lock(&ht->lock);
	link = find_link(ht, node);
	if (link) {
		/* node keeps its own links for readers still on it. */
		set_link(link, node->next[ht->buckets->slot]);
		ht->count--;
		ret = 0;
	}
	pthread_mutex_unlock(&ht->lock);
	return ret;
}

int lt_rcu_ht_replace(lt_rcu_ht_t *ht, struct lt_rcu_ht_node *old,
		      struct lt_rcu_ht_node *n)
{
	struct lt_rcu_ht_node **link;
	int ret = -ENOENT;

	pthread_mutex_lock(&ht->lock);
	link = find_link(ht, old);
	if (link) {
		int slot = ht->buckets->slot;

		n->hash = old->hash;
		n->next[!slot] = NULL;
		n->next[slot] = old->next[slot];
		lt_rcu_assign_pointer(*link, n);
		ret = 0;
	}
	pthread_mutex_unlock(&ht->lock);
	return ret;
}

struct lt_rcu_ht_node *lt_rcu_ht_lookup(lt_rcu_ht_t *ht, unsigned long hash,
					lt_rcu_ht_match_fn match,
					const void *key)
{
	struct lt_rcu_ht_buckets *b = lt_rcu_dereference(ht->buckets);
	struct lt_rcu_ht_node *n;
	int slot = b->slot;

	for (n = lt_rcu_dereference(b->head[hash & (b->size - 1)]); n;
	     n = lt_rcu_dereference(n->next[slot]))
		if (n->hash == hash && match(n, key))
			return n;
	return NULL;
}

size_t lt_rcu_ht_size(lt_rcu_ht_t *ht)
{
	return lt_rcu_dereference(ht->buckets)->size;
}

size_t lt_rcu_ht_count(lt_rcu_ht_t *ht)
{
	size_t n;

	pthread_mutex_lock(&ht->lock);
	n = ht->count;
	pthread_mutex_unlock(&ht->lock);
	return n;
}

static struct lt_rcu_ht_node *first_from(struct lt_rcu_ht_iter *it)
{
	const struct lt_rcu_ht_buckets *b = it->buckets;

	for (; it->index < b->size; it->index++) {
		it->node = lt_rcu_dereference(b->head[it->index]);
		if (it->node)
			return it->node;
	}
	it->node = NULL;
	return NULL;
}

struct lt_rcu_ht_node *lt_rcu_ht_first(lt_rcu_ht_t *ht,
				       struct lt_rcu_ht_iter *it)
{
	it->buckets = lt_rcu_dereference(ht->buckets);
	it->index = 0;
	return first_from(it);
}

struct lt_rcu_ht_node *lt_rcu_ht_next(struct lt_rcu_ht_iter *it)
{
	const struct lt_rcu_ht_buckets *b = it->buckets;

	if (!it->node)
		return NULL;
	it->node = lt_rcu_dereference(it->node->next[b->slot]);
	if (it->node)
		return it->node;
	it->index++;
	return first_from(it);
}
