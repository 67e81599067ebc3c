/* SPDX-License-Identifier: MIT */
/*
 * shared.c - the recorder's per-user buffers: matching the ids the
 * processes claim with the descriptions they send (shared.h).
 */
#include "recorder/shared.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct lt_shared_desc {
	uint64_t key;
	struct lt_ctf_event ev; /* owned */
};

int lt_shared_init(struct lt_shared *u, int uid)
{
	memset(u, 0, sizeof(*u));
	u->uid = uid;
	return lt_idtab_create(LT_SHARED_IDS, &u->ids);
}

void lt_shared_free(struct lt_shared *u)
{
	for (uint32_t i = 0; i < u->ndescs; i++)
		lt_proto_event_free(&u->descs[i].ev);
	free(u->descs);
	free(u->events.ev);
	lt_idtab_destroy(u->ids);
	memset(u, 0, sizeof(*u));
}

static const struct lt_shared_desc *find(const struct lt_shared *u,
					 uint64_t key)
{
	for (uint32_t i = 0; i < u->ndescs; i++)
		if (u->descs[i].key == key)
			return &u->descs[i];
	return NULL;
}

int lt_shared_describe(struct lt_shared *u, const void *msg, size_t len)
{
	uint64_t key = lt_proto_event_key(msg, len);
	if (find(u, key))
		return 0; /* another process's, or sent again */
	struct lt_ctf_event ev;
	int rc = lt_proto_event_decode(msg, len, &ev);
	if (rc)
		return rc;
	if (u->ndescs == u->cap) {
		uint32_t cap = u->cap ? u->cap * 2 : 64;
		struct lt_shared_desc *d = realloc(u->descs, cap * sizeof(*d));
		if (!d) {
			lt_proto_event_free(&ev);
			return -ENOMEM;
		}
		u->descs = d;
		u->cap = cap;
	}
	u->descs[u->ndescs++] = (struct lt_shared_desc){ key, ev };
	return 0;
}

int lt_shared_refresh(struct lt_shared *u, int *waiting)
{
	uint32_t cap = lt_idtab_cap(u->ids), grew = 0;
	*waiting = 0;
	for (uint32_t id = u->known; id < cap; id++) {
		uint64_t key = lt_idtab_key(u->ids, id);
		if (!key)
			break;
		const struct lt_shared_desc *d = find(u, key);
		if (!d) {
			/* claimed after its description was sent: it is in
			 * the process's socket still */
			*waiting = 1;
			break;
		}
		if (id >= u->events.n) {
			uint32_t n = id + 64;
			struct lt_ctf_event *a =
				realloc(u->events.ev, n * sizeof(*a));
			if (!a)
				break;
			memset(a + u->events.n, 0,
			       (n - u->events.n) * sizeof(*a));
			u->events.ev = a;
			u->events.n = n;
		}
		u->events.ev[id] = d->ev;
		u->events.ev[id].id = id;
		u->known = id + 1;
		grew = 1;
	}
	return (int)grew;
}
