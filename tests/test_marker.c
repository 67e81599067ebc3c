/* SPDX-License-Identifier: MIT */
/*
 * test_marker.c - the grammar of lt_tracef's formats and the check of a
 * marker's fields against its format (src/ctf/marker.c), the registry's
 * at load; the same table in C++ at compile time is in test_cxx.cpp.
 */
#include "ctf/marker.h"

#include <errno.h>

#include "lt_test.h"

#define I(sz, sg)                                   \
	{                                           \
		"a", LT_FT_INT, sz, sg, 10, 0, NULL \
	}
#define P                                         \
	{                                         \
		"a", LT_FT_INT, 8, 0, 16, 0, NULL \
	}
#define F(sz)                                        \
	{                                            \
		"a", LT_FT_FLOAT, sz, 1, 10, 0, NULL \
	}
#define S                                            \
	{                                            \
		"a", LT_FT_STRING, 1, 0, 10, 0, NULL \
	}

LT_TEST(test_formats_that_fit_their_fields)
{
	static const struct {
		const char *fmt;
		struct lt_field_desc f[7];
		uint32_t n;
	} good[] = {
		{ "no conversion, 100%% sure", { I(4, 1) }, 0 },
		{ "%d %u", { I(4, 1), I(4, 0) }, 2 },
		{ "%hhd %hu %ld %lld %jd %zu %td",
		  { I(1, 1), I(2, 0), I(8, 1), I(8, 1), I(8, 1), I(8, 0),
		    I(8, 1) },
		  7 },
		{ "%-08.3x %#X %o %c",
		  { I(4, 0), I(8, 0), I(2, 0), I(1, 1) },
		  4 },
		{ "%f %.2e %10g", { F(8), F(4), F(8) }, 3 },
		{ "%s [%-5.2s] %p", { S, S, P }, 3 },
	};
	int failed = 0;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char err[256] = "";
		int rc = lt_marker_check(good[i].fmt, good[i].f, good[i].n, err,
					 sizeof(err));
		failed += !LT_CHECK_ROW(good[i].fmt, rc, 0, err, "");
	}
	LT_ASSERT_ROWS(failed, sizeof(good) / sizeof(good[0]));

	/* the pieces of one format: text, conversions with their length */
	const char *fmt = "x%hhd%%y%-5.2lfz%zu";
	struct lt_marker_piece p;
	size_t pos = 0;
	char got[128] = "";
	int r;
	while ((r = lt_marker_next(fmt, &pos, &p)) > 0)
		snprintf(got + strlen(got), sizeof(got) - strlen(got),
			 "[%.*s:%c:%u]", (int)p.len, fmt + p.start,
			 p.conv ? p.conv : '-', p.length);
	LT_ASSERT_EQ(r, 0);
	LT_ASSERT_STREQ(got, "[x:-:0][%hhd:d:1][%:-:0][y:-:0][%-5.2lf:f:3]"
			     "[z:-:0][%zu:u:6]");
}

LT_TEST(test_formats_the_markers_refuse)
{
	static const struct {
		const char *fmt;
		struct lt_field_desc f[3];
		uint32_t n;
		const char *why;
	} bad[] = {
		{ "%a", { F(8) }, 1, "not supported" },
		{ "%n", { P }, 1, "not supported" },
		{ "%Lf", { F(8) }, 1, "not supported" },
		{ "%ls", { S }, 1, "not supported" },
		{ "%lc", { I(4, 1) }, 1, "not supported" },
		{ "%lp", { P }, 1, "not supported" },
		{ "%*d", { I(4, 1), I(4, 1) }, 2, "not supported" },
		{ "%m", { I(4, 1) }, 0, "not supported" },
		{ "trailing %", { I(4, 1) }, 0, "not supported" },
		{ "%d %d", { I(4, 1) }, 1, "more conversions than the 1" },
		{ "%d", { I(4, 1), I(4, 1) }, 2, "1 conversions for 2" },
		{ "%s", { I(4, 1) }, 1, "argument 0 does not fit %s" },
		{ "%p", { S }, 1, "a string: %p needs a void *" },
		{ "%d", { F(8) }, 1, "argument 0 does not fit %d (a float)" },
		{ "%f", { I(8, 1) }, 1, "does not fit %f (an integer)" },
	};
	int failed = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[256] = "";
		int rc = lt_marker_check(bad[i].fmt, bad[i].f, bad[i].n, err,
					 sizeof(err));
		failed +=
			!LT_CHECK_ROW(bad[i].fmt, rc, -EINVAL, err, bad[i].why);
	}
	LT_ASSERT_ROWS(failed, sizeof(bad) / sizeof(bad[0]));
}
