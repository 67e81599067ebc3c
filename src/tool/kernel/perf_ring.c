/* SPDX-License-Identifier: MIT */
/*
 * perf_ring.c - reading what perf writes: a perf event's mmap ring (map it,
 * walk its records from data_tail to data_head, free them) and the
 * tracepoint samples in it (see perf_ring.h).
 */
#include "kernel/perf_ring.h"

#include <linux/perf_event.h>

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int lt_perf_sample_parse(const void *body, size_t len, struct lt_perf_sample *s)
{
	const unsigned char *p = body;
	uint32_t cpu_res[2];

	/* id, pid/tid, time, cpu/res, raw size: 8 + 8 + 8 + 8 + 4 */
	if (len < 36)
		return -EINVAL;
	memcpy(&s->id, p, 8);
	memcpy(&s->pid, p + 8, 4);
	memcpy(&s->tid, p + 12, 4);
	memcpy(&s->time, p + 16, 8);
	memcpy(cpu_res, p + 24, 8);
	s->cpu = cpu_res[0];
	memcpy(&s->raw_size, p + 32, 4);
	if (s->raw_size > len - 36)
		return -EINVAL;
	s->raw = p + 36;
	return 0;
}

int lt_perf_ring_map(int fd, uint32_t pages, struct lt_perf_ring *r)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (!pages || (pages & (pages - 1)))
		return -EINVAL;
	r->map_len = (1 + (size_t)pages) * page;
	r->base = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return -errno;
	}
	r->data = (char *)r->base + page;
	r->data_size = (uint64_t)pages * page;
	return 0;
}

void lt_perf_ring_unmap(struct lt_perf_ring *r)
{
	if (r->base)
		munmap(r->base, r->map_len);
	r->base = NULL;
}

uint64_t lt_perf_ring_head(const struct lt_perf_ring *r)
{
	const struct perf_event_mmap_page *pc = r->base;
	/* acquire: pairs with the kernel's barrier between writing a record
	 * and publishing data_head; the records up to head are whole */
	return __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
}

int lt_perf_ring_walk(struct lt_perf_ring *r, uint64_t head, char *scratch,
		      lt_perf_record_fn fn, void *arg, int consume)
{
	struct perf_event_mmap_page *pc = r->base;
	const uint64_t mask = r->data_size - 1;
	int n = 0, rc = 0;
	uint64_t tail = pc->data_tail; /* only we write it */

	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail & mask;
		const char *rec;

		if (off + sizeof(h) <= r->data_size) {
			memcpy(&h, r->data + off, sizeof(h));
		} else {
			size_t first = (size_t)(r->data_size - off);
			memcpy(&h, r->data + off, first);
			memcpy((char *)&h + first, r->data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || h.size > head - tail)
			break; /* cannot happen with a sane kernel */
		if (off + h.size <= r->data_size) {
			rec = r->data + off;
		} else {
			size_t first = (size_t)(r->data_size - off);
			memcpy(scratch, r->data + off, first);
			memcpy(scratch + first, r->data, h.size - first);
			rec = scratch;
		}
		rc = fn(arg, h.type, rec + sizeof(h), h.size - sizeof(h));
		tail += h.size;
		if (rc < 0)
			break;
		n++;
	}
	/* release: our reads of the records are done before the kernel may
	 * overwrite them; pairs with the kernel's read of data_tail */
	if (consume)
		__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
	return rc < 0 ? rc : n;
}
