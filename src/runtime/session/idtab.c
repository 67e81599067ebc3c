/* SPDX-License-Identifier: MIT */
/*
 * idtab.c - event ids agreed by the processes that share buffers
 * (idtab.h).
 */
#include "session/idtab.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* a lock-free atomic works across processes; one built on a lock would
 * take a lock private to each process */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2,
	       "the shared table needs lock-free 64-bit atomics");

#define IDTAB_MAGIC 0x6c746964u /* "ltid" */
#define IDTAB_VERSION 1

/* The shared layout: a header, then cap keys. */
struct idtab_shm {
	uint32_t magic, version;
	uint32_t cap, pad;
	_Atomic uint64_t key[];
};

struct lt_idtab {
	struct idtab_shm *shm;
	size_t size;
	uint32_t cap; /* the creator's, or checked against the mapping */
	int fd;
};

static size_t size_for(uint32_t cap)
{
	return sizeof(struct idtab_shm) + (size_t)cap * sizeof(uint64_t);
}

int lt_idtab_create(uint32_t cap, struct lt_idtab **out)
{
	struct lt_idtab *t = calloc(1, sizeof(*t));
	if (!t || cap == 0 || cap > (1u << 20)) {
		free(t);
		return t ? -EINVAL : -ENOMEM;
	}
	t->fd = memfd_create("lowtrace-idtab", MFD_CLOEXEC);
	if (t->fd < 0) {
		int e = -errno;
		free(t);
		return e;
	}
	t->size = size_for(cap);
	t->cap = cap;
	if (ftruncate(t->fd, (off_t)t->size) < 0)
		goto fail;
	t->shm = mmap(NULL, t->size, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd,
		      0);
	if (t->shm == MAP_FAILED)
		goto fail;
	t->shm->magic = IDTAB_MAGIC;
	t->shm->version = IDTAB_VERSION;
	t->shm->cap = cap;
	*out = t;
	return 0;
fail:;
	int e = -errno;
	close(t->fd);
	free(t);
	return e;
}

int lt_idtab_map(int fd, struct lt_idtab **out)
{
	struct stat st;
	struct lt_idtab *t = calloc(1, sizeof(*t));
	int e = -ENOMEM;
	if (!t)
		goto fail;
	e = -EPROTO;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)size_for(1) ||
	    st.st_size > (off_t)size_for(1u << 20))
		goto fail;
	t->size = (size_t)st.st_size;
	t->shm = mmap(NULL, t->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (t->shm == MAP_FAILED) {
		e = -errno;
		goto fail;
	}
	t->cap = t->shm->cap;
	if (t->shm->magic != IDTAB_MAGIC || t->shm->version != IDTAB_VERSION ||
	    t->cap == 0 || size_for(t->cap) != t->size) {
		munmap(t->shm, t->size);
		goto fail;
	}
	t->fd = fd;
	*out = t;
	return 0;
fail:
	close(fd);
	free(t);
	return e;
}

void lt_idtab_destroy(struct lt_idtab *t)
{
	if (!t)
		return;
	munmap(t->shm, t->size);
	close(t->fd);
	free(t);
}

int lt_idtab_fd(const struct lt_idtab *t)
{
	return t->fd;
}

uint32_t lt_idtab_cap(const struct lt_idtab *t)
{
	return t->cap;
}

uint32_t lt_idtab_id(struct lt_idtab *t, uint64_t key)
{
	if (!key)
		key = 1;
	for (uint32_t i = 0; i < t->cap; i++) {
		/* acquire: pairs with the claim's release; a key seen is
		 * whole */
		uint64_t k = atomic_load_explicit(&t->shm->key[i],
						  memory_order_acquire);
		if (k == 0) {
			uint64_t empty = 0;
			if (atomic_compare_exchange_strong_explicit(
				    &t->shm->key[i], &empty, key,
				    memory_order_release, memory_order_acquire))
				return i;
			k = empty; /* another process's claim */
		}
		if (k == key)
			return i;
	}
	return LT_IDTAB_NONE;
}

uint64_t lt_idtab_key(const struct lt_idtab *t, uint32_t id)
{
	if (id >= t->cap)
		return 0;
	return atomic_load_explicit(&t->shm->key[id], memory_order_acquire);
}
