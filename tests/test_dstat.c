/* SPDX-License-Identifier: MIT */
/*
 * test_dstat.c - the ranked rows of the analyses' integer-keyed table
 * (src/tool/analysis/dstat.c, lt_itab_sorted()): the order the cpu,
 * syscalls and irq analyses print, ties included, and the entries the
 * caller leaves out.
 */
#include "lt_test.h"

#include "analysis/dstat.h"

struct val {
	int64_t total;
	uint64_t count;
	int keep;
};

static int rank_val(struct lt_itab_row *row)
{
	const struct val *v = row->val;
	row->total = v->total;
	row->count = v->count;
	return v->keep;
}

LT_TEST(test_rows_by_total_then_count_then_key)
{
	/* key, total, count, kept: inserted in no order, enough to grow
	 * the table past its first size */
	static const struct {
		int64_t key, total;
		uint64_t count;
		int keep;
	} in[] = {
		{ 7, 100, 1, 1 },   { -3, 100, 1, 1 }, { 42, 500, 0, 1 },
		{ 5, 100, 9, 1 },   { 9, 999, 0, 0 },  { 1, 0, 0, 1 },
		{ 300, 100, 1, 1 }, { 2, -5, 0, 1 },
	};
	static const int64_t want[] = { 42, 5, -3, 7, 300, 1, 2 };
	struct lt_itab t;
	LT_ASSERT_EQ(lt_itab_init(&t, sizeof(struct val)), 0);
	for (int64_t extra = 1000; extra < 1100; extra++) {
		struct val *v = lt_itab_get(&t, extra);
		LT_ASSERT(v != NULL);
		v->keep = 0;
	}
	for (unsigned i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct val *v = lt_itab_get(&t, in[i].key);
		LT_ASSERT(v != NULL);
		*v = (struct val){ in[i].total, in[i].count, in[i].keep };
	}
	unsigned n = 99;
	struct lt_itab_row *rows = lt_itab_sorted(&t, rank_val, &n);
	LT_ASSERT(rows != NULL);
	LT_ASSERT_EQ(n, sizeof(want) / sizeof(want[0]));
	for (unsigned i = 0; i < n; i++) {
		LT_ASSERT_EQ(rows[i].key, want[i]);
		LT_ASSERT(rows[i].val == lt_itab_find(&t, want[i]));
	}
	free(rows);
	lt_itab_free(&t);
}

LT_TEST(test_rows_of_an_empty_table)
{
	struct lt_itab t;
	LT_ASSERT_EQ(lt_itab_init(&t, sizeof(struct val)), 0);
	unsigned n = 99;
	struct lt_itab_row *rows = lt_itab_sorted(&t, rank_val, &n);
	LT_ASSERT(rows != NULL);
	LT_ASSERT_EQ(n, 0);
	free(rows);
	lt_itab_free(&t);
}
