/* SPDX-License-Identifier: MIT */
/*
 * rcu_list.h - a doubly linked list that RCU readers walk while an
 * updater changes it (the _rcu variants), and its plain variants.  All
 * inline.  docs/rcu.md.
 */
#ifndef LOWTRACE_RCU_LIST_H
#define LOWTRACE_RCU_LIST_H

#include <stddef.h>

#include <lowtrace/rcu.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lt_list_head {
	struct lt_list_head *next, *prev;
};

#define LT_LIST_HEAD_INIT(name)  \
	{                        \
		&(name), &(name) \
	}
#define lt_list_entry(ptr, type, member) \
	((type *)((char *)(ptr)-offsetof(type, member)))

static inline void lt_list_init(struct lt_list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline int lt_list_empty(const struct lt_list_head *h)
{
	return __atomic_load_n(&h->next, __ATOMIC_RELAXED) == h;
}

/* Plain (non-RCU) variants, for lists no reader walks concurrently. */
static inline void lt_list_add(struct lt_list_head *n, struct lt_list_head *h)
{
	n->next = h->next;
	n->prev = h;
	h->next->prev = n;
	h->next = n;
}

static inline void lt_list_add_tail(struct lt_list_head *n,
				    struct lt_list_head *h)
{
	n->next = h;
	n->prev = h->prev;
	h->prev->next = n;
	h->prev = n;
}

static inline void lt_list_del(struct lt_list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
}

#define lt_list_for_each(pos, head) \
	for (pos = (head)->next; pos != (head); pos = pos->next)
#define lt_list_for_each_safe(pos, n, head)                    \
	for (pos = (head)->next, n = pos->next; pos != (head); \
	     pos = n, n = pos->next)

/*
 * RCU variants: updaters serialise among themselves (a lock), readers
 * walk with lt_list_for_each_rcu inside a read-side section.  Only the
 * next pointers are read concurrently; prev belongs to updaters.
 */
static inline void lt_list_add_rcu(struct lt_list_head *n,
				   struct lt_list_head *h)
{
	struct lt_list_head *next = h->next;

	n->next = next;
	n->prev = h;
	next->prev = n;
	lt_rcu_assign_pointer(h->next, n);
}

static inline void lt_list_add_tail_rcu(struct lt_list_head *n,
					struct lt_list_head *h)
{
	struct lt_list_head *prev = h->prev;

	n->next = h;
	n->prev = prev;
	lt_rcu_assign_pointer(prev->next, n);
	h->prev = n;
}

/* Unlink e; e->next stays valid for readers still on e. */
static inline void lt_list_del_rcu(struct lt_list_head *e)
{
	e->next->prev = e->prev;
	/* relaxed: e->next was published (released) when it was added, so a
	 * reader that loads it here sees it initialised all the same */
	__atomic_store_n(&e->prev->next, e->next, __ATOMIC_RELAXED);
}

/* Put n in old's place; readers see one or the other, never neither. */
static inline void lt_list_replace_rcu(struct lt_list_head *old,
				       struct lt_list_head *n)
{
	n->next = old->next;
	n->prev = old->prev;
	lt_rcu_assign_pointer(n->prev->next, n);
	n->next->prev = n;
}

#define lt_list_for_each_rcu(pos, head)                             \
	for (pos = lt_rcu_dereference((head)->next); pos != (head); \
	     pos = lt_rcu_dereference(pos->next))

#ifdef __cplusplus
}
#endif

#endif
