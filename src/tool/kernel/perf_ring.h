/* SPDX-License-Identifier: MIT */
/*
 * perf_ring.h - reading a perf event's mmap ring and decoding the
 * tracepoint samples in it: the part of the kernel channel (kernel.h)
 * that speaks perf's formats.  Exposed for tests.
 */
#ifndef LT_KERNEL_PERF_RING_H
#define LT_KERNEL_PERF_RING_H

#include <stddef.h>
#include <stdint.h>

/* The sample_type every event of the channel uses, in this order. */
#define LT_PERF_SAMPLE_TYPE                                            \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)

/* A decoded PERF_RECORD_SAMPLE of LT_PERF_SAMPLE_TYPE. */
struct lt_perf_sample {
	uint64_t id; /* PERF_EVENT_IOC_ID of the event that fired */
	uint32_t pid, tid; /* process and thread */
	uint64_t time; /* CLOCK_MONOTONIC ns */
	uint32_t cpu;
	uint32_t raw_size;
	const unsigned char *raw; /* the tracepoint's record */
};

/* Decodes the body of a sample record (after struct perf_event_header);
 * 0, or -EINVAL when it is too short for what it says it holds. */
int lt_perf_sample_parse(const void *body, size_t len,
			 struct lt_perf_sample *s);

/* One CPU's perf ring: the first page is control, then 2^n data pages. */
struct lt_perf_ring {
	void *base; /* struct perf_event_mmap_page */
	char *data;
	uint64_t data_size;
	size_t map_len;
};

/* Maps the ring of a perf event fd with pages data pages. */
int lt_perf_ring_map(int fd, uint32_t pages, struct lt_perf_ring *r);
void lt_perf_ring_unmap(struct lt_perf_ring *r);

typedef int (*lt_perf_record_fn)(void *arg, uint32_t type, const void *body,
				 size_t len);
/* The ring's head now: the records before it are whole. */
uint64_t lt_perf_ring_head(const struct lt_perf_ring *r);
/*
 * Calls fn for every record between the ring's tail and head (from
 * lt_perf_ring_head(), not beyond the ring's head now), oldest first (a
 * record that wraps around the end is copied into scratch, of 64 KiB);
 * with consume, then frees the space, else leaves the records in the
 * ring.  Returns the number of records, or fn's negative return (the
 * records before it are consumed).
 */
int lt_perf_ring_walk(struct lt_perf_ring *r, uint64_t head, char *scratch,
		      lt_perf_record_fn fn, void *arg, int consume);

#endif
