/* SPDX-License-Identifier: MIT */
/*
 * dstat.c - duration statistics, the N longest intervals and the
 * integer-keyed table of the analyses and its ranked rows (dstat.h).
 */
#include "analysis/dstat.h"
#include "analysis/analysis.h"

#include "analysis/json_out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char lt_dstat_hist_title[] =
	" <1us <10us <100us <1ms <10ms <100ms  <1s  more";

/* The widths of the titles above, each with its leading space. */
static const int hist_width[LT_DSTAT_NBUCKETS] = { 5, 6, 7, 5, 6, 7, 5, 6 };

void lt_dstat_add(struct lt_dstat *s, int64_t d, int64_t at)
{
	if (d < 0)
		d = 0;
	int b = 0;
	for (int64_t lim = 1000; b < LT_DSTAT_NBUCKETS - 1 && d >= lim;
	     lim *= 10)
		b++;
	s->n++;
	s->hist[b]++;
	s->sum = lt_sat_add(s->sum, d); /* a damaged trace's times */
	if (d > s->max || s->n == 1) {
		s->max = d;
		s->max_at = at;
	}
}

void lt_dstat_print_hist(const struct lt_dstat *s, FILE *out)
{
	for (int b = 0; b < LT_DSTAT_NBUCKETS; b++)
		fprintf(out, " %*llu", hist_width[b] - 1,
			(unsigned long long)s->hist[b]);
}

void lt_dstat_json(const struct lt_dstat *s, struct lt_json *j, int64_t origin)
{
	lt_json_uint(j, "count", s->n);
	lt_json_int(j, "total_ns", s->sum);
	lt_json_num(j, "mean_ns", s->n ? (double)s->sum / (double)s->n : 0.0);
	lt_json_int(j, "max_ns", s->max);
	if (s->n)
		lt_json_int(j, "max_at_ns", s->max_at - origin);
	else
		lt_json_null(j, "max_at_ns");
	lt_json_arr(j, "hist");
	for (int b = 0; b < LT_DSTAT_NBUCKETS; b++)
		lt_json_uint(j, NULL, s->hist[b]);
	lt_json_end(j);
}

void lt_dstat_json_bounds(struct lt_json *j)
{
	lt_json_arr(j, "hist_bounds_ns");
	for (int64_t lim = 1000; lim <= 1000000000; lim *= 10)
		lt_json_int(j, NULL, lim);
	lt_json_end(j);
}

int lt_topn_init(struct lt_topn *t, unsigned cap)
{
	t->n = 0;
	t->cap = cap;
	t->v = calloc(cap ? cap : 1, sizeof(*t->v));
	return t->v ? 0 : -ENOMEM;
}

void lt_topn_free(struct lt_topn *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static void swap_items(struct lt_topn_item *a, struct lt_topn_item *b)
{
	struct lt_topn_item x = *a;
	*a = *b;
	*b = x;
}

static void sift_down(struct lt_topn *t, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;
		if (l < t->n && t->v[l].dur < t->v[m].dur)
			m = l;
		if (r < t->n && t->v[r].dur < t->v[m].dur)
			m = r;
		if (m == i)
			return;
		swap_items(&t->v[i], &t->v[m]);
		i = m;
	}
}

void lt_topn_add(struct lt_topn *t, const struct lt_topn_item *it)
{
	if (!t->cap)
		return;
	if (t->n == t->cap) {
		/* the root is the shortest kept */
		if (it->dur <= t->v[0].dur)
			return;
		t->v[0] = *it;
		sift_down(t, 0);
		return;
	}
	unsigned i = t->n++;
	t->v[i] = *it;
	while (i > 0 && t->v[(i - 1) / 2].dur > t->v[i].dur) {
		swap_items(&t->v[i], &t->v[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

static int by_dur_desc(const void *a, const void *b)
{
	const struct lt_topn_item *x = a, *y = b;
	if (x->dur != y->dur)
		return x->dur < y->dur ? 1 : -1;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

void lt_topn_sort(struct lt_topn *t)
{
	qsort(t->v, t->n, sizeof(*t->v), by_dur_desc);
}

int lt_itab_init(struct lt_itab *t, size_t vsize)
{
	memset(t, 0, sizeof(*t));
	t->vsize = vsize;
	t->cap = 64;
	t->keys = calloc(t->cap, sizeof(*t->keys));
	t->used = calloc(t->cap, 1);
	t->vals = calloc(t->cap, vsize);
	if (!t->keys || !t->used || !t->vals) {
		lt_itab_free(t);
		return -ENOMEM;
	}
	return 0;
}

void lt_itab_free(struct lt_itab *t)
{
	free(t->keys);
	free(t->used);
	free(t->vals);
	memset(t, 0, sizeof(*t));
}

static unsigned hash_key(int64_t key, unsigned cap)
{
	uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
	return (unsigned)(h >> 32) & (cap - 1);
}

/* The slot of key, or of the empty slot where it would go. */
static unsigned probe(const struct lt_itab *t, int64_t key)
{
	unsigned h = hash_key(key, t->cap);
	while (t->used[h] && t->keys[h] != key)
		h = (h + 1) & (t->cap - 1);
	return h;
}

static int grow(struct lt_itab *t)
{
	struct lt_itab n = { .vsize = t->vsize, .cap = t->cap * 2 };
	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.used = calloc(n.cap, 1);
	n.vals = calloc(n.cap, n.vsize);
	if (!n.keys || !n.used || !n.vals) {
		lt_itab_free(&n);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < t->cap; i++) {
		if (!t->used[i])
			continue;
		unsigned h = probe(&n, t->keys[i]);
		n.used[h] = 1;
		n.keys[h] = t->keys[i];
		memcpy(n.vals + (size_t)h * n.vsize,
		       t->vals + (size_t)i * t->vsize, t->vsize);
	}
	n.n = t->n;
	lt_itab_free(t);
	*t = n;
	return 0;
}

void *lt_itab_find(const struct lt_itab *t, int64_t key)
{
	unsigned h = probe(t, key);
	return t->used[h] ? t->vals + (size_t)h * t->vsize : NULL;
}

void *lt_itab_get(struct lt_itab *t, int64_t key)
{
	unsigned h = probe(t, key);
	if (t->used[h])
		return t->vals + (size_t)h * t->vsize;
	if ((t->n + 1) * 2 > t->cap) {
		if (grow(t) != 0)
			return NULL;
		h = probe(t, key);
	}
	t->used[h] = 1;
	t->keys[h] = key;
	t->n++;
	return t->vals + (size_t)h * t->vsize;
}

void *lt_itab_slot(const struct lt_itab *t, unsigned i, int64_t *key)
{
	if (i >= t->cap || !t->used[i])
		return NULL;
	*key = t->keys[i];
	return t->vals + (size_t)i * t->vsize;
}

static int by_total_desc(const void *a, const void *b)
{
	const struct lt_itab_row *x = a, *y = b;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

struct lt_itab_row *lt_itab_sorted(const struct lt_itab *t,
				   int (*rank)(struct lt_itab_row *row),
				   unsigned *n)
{
	struct lt_itab_row *rows = calloc(t->n ? t->n : 1, sizeof(*rows));
	*n = 0;
	if (!rows)
		return NULL;
	for (unsigned i = 0; i < t->cap; i++) {
		struct lt_itab_row r = { 0 };
		r.val = lt_itab_slot(t, i, &r.key);
		if (r.val && rank(&r))
			rows[(*n)++] = r;
	}
	qsort(rows, *n, sizeof(*rows), by_total_desc);
	return rows;
}
