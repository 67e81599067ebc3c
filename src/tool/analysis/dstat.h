/* SPDX-License-Identifier: MIT */
/*
 * dstat.h - duration statistics shared by the analyses that count
 * intervals (cpu.c, syscalls.c, irq.c): count, sum, worst and a
 * histogram by decade from 1 us to 1 s (dstat.c); a bounded set of the
 * N longest intervals (a min-heap); and a table keyed by a 64-bit
 * integer (a tid, a syscall number, an irq line) with values of a fixed
 * size, by open addressing, and its entries as rows ranked for printing.
 */
#ifndef LT_ANALYSIS_DSTAT_H
#define LT_ANALYSIS_DSTAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* < 1 us, < 10 us, < 100 us, < 1 ms, < 10 ms, < 100 ms, < 1 s, more */
#define LT_DSTAT_NBUCKETS 8

struct lt_dstat {
	uint64_t n, hist[LT_DSTAT_NBUCKETS];
	int64_t sum, max, max_at; /* ns; max_at: the worst one's begin */
};

/* Counts an interval of d ns (negative: taken as 0) that began at at. */
void lt_dstat_add(struct lt_dstat *s, int64_t d, int64_t at);
/* The histogram's column titles, "<1us <10us ... more". */
extern const char lt_dstat_hist_title[];
/* The histogram's counts, each right-aligned under its title. */
void lt_dstat_print_hist(const struct lt_dstat *s, FILE *out);

struct lt_json;
/* Its figures as members of the JSON object open (docs/analysis-json.md):
 * count, total_ns, mean_ns, max_ns, max_at_ns (from origin), hist. */
void lt_dstat_json(const struct lt_dstat *s, struct lt_json *j, int64_t origin);
/* The histogram's bounds, "hist_bounds_ns": [1000, ..., 1000000000]. */
void lt_dstat_json_bounds(struct lt_json *j);

/* One interval kept by lt_topn: key says what it was (the caller's). */
struct lt_topn_item {
	int64_t dur, begin;
	int64_t key;
	int32_t tid, cpu;
};

struct lt_topn {
	struct lt_topn_item *v; /* a min-heap by dur until lt_topn_sort() */
	unsigned n, cap;
};

/* Keeps the cap longest; cap 0 keeps none.  0 or -ENOMEM. */
int lt_topn_init(struct lt_topn *t, unsigned cap);
void lt_topn_add(struct lt_topn *t, const struct lt_topn_item *it);
/* Longest first (the heap is gone: add no more). */
void lt_topn_sort(struct lt_topn *t);
void lt_topn_free(struct lt_topn *t);

struct lt_itab {
	int64_t *keys;
	uint8_t *used;
	unsigned char *vals;
	size_t vsize;
	unsigned cap, n;
};

int lt_itab_init(struct lt_itab *t, size_t vsize);
void lt_itab_free(struct lt_itab *t);
/*
 * The value of key, inserted zeroed if new; NULL if out of memory.  A
 * pointer returned stays valid until the next insertion.
 */
void *lt_itab_get(struct lt_itab *t, int64_t key);
/* The value of key, or NULL. */
void *lt_itab_find(const struct lt_itab *t, int64_t key);
/* Slot i (i < t->cap): its value and *key, or NULL if the slot is empty. */
void *lt_itab_slot(const struct lt_itab *t, unsigned i, int64_t *key);

/* An entry of an lt_itab and the figures it is ranked by. */
struct lt_itab_row {
	int64_t key;
	const void *val;
	int64_t total; /* the most first */
	uint64_t count; /* then the most first (0 where it does not count) */
};

/*
 * The entries of t that rank() keeps (it returns nonzero, having set the
 * row's total and count), the most total first, then the most count,
 * then the lowest key: an order with no ties, so the same rows always
 * print alike.  *n: how many.  The array has room for every entry of t
 * (at least one); free() it.  NULL if out of memory.
 */
struct lt_itab_row *lt_itab_sorted(const struct lt_itab *t,
				   int (*rank)(struct lt_itab_row *row),
				   unsigned *n);

#endif
