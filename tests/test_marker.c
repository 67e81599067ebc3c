/* SPDX-License-Identifier: MIT */
/*
 * test_marker.c - the grammar of lt_tracef's formats and the check of a
 * marker's fields against its format (src/runtime/format/marker.c), the registry's
 * at load; the same table in C++ at compile time is in test_cxx.cpp.
 * The C compile-time check (lowtrace/tracef.h's LT__TF_GRAMMAR, of
 * the compiler this test is built with) must decide as the registry on
 * a table of formats.
 */
#include "format/marker.h"

#include <errno.h>
#include <lowtrace/tracepoint.h>

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

/* lt_marker_next()'s verdict on fmt: -1 not supported, else conversions */
static int registry_verdict(const char *fmt)
{
	struct lt_marker_piece p;
	size_t pos = 0;
	int r, n = 0;
	while ((r = lt_marker_next(fmt, &pos, &p)) > 0)
		n += p.conv != 0;
	return r < 0 ? -1 : n;
}

/* one row: the compile-time grammar's verdict on the literal f, which
 * reads it to its end (if it is supported) */
#define GRAMMAR_ROW(f)                                                        \
	do {                                                                  \
		enum { LT__TF_GRAMMAR(f) };                                   \
		char why[64];                                                 \
		snprintf(why, sizeof(why), "done %d",                         \
			 (int)(lt__tf_done || lt__tf_bad));                   \
		failed +=                                                     \
			!LT_CHECK_ROW(f, lt__tf_bad ? -1 : (int)lt__tf_convs, \
				      registry_verdict(f), why, "done 1");    \
		rows++;                                                       \
	} while (0)

LT_TEST(test_compile_time_grammar_is_the_registrys)
{
	int failed = 0, rows = 0;
	GRAMMAR_ROW("");
	GRAMMAR_ROW("no conversion, 100%% sure");
	GRAMMAR_ROW("%%%%%% %%d");
	GRAMMAR_ROW("frame %u late by %lld us (%s)");
	GRAMMAR_ROW("%d %i %u %o %x %X %c %s %p %f %F %e %E %g %G");
	GRAMMAR_ROW("%hhd %hu %ld %lld %jd %zu %td %hhx %llX %lf");
	GRAMMAR_ROW("%Lf");
	GRAMMAR_ROW("%-08.3x %#X %+d % d %'d %010.5f %.e %5.s %12p");
	GRAMMAR_ROW("x%hhd%%y%-5.2lfz%zu");
	GRAMMAR_ROW("%a");
	GRAMMAR_ROW("%A");
	GRAMMAR_ROW("%n");
	GRAMMAR_ROW("%m");
	GRAMMAR_ROW("%ls");
	GRAMMAR_ROW("%lc");
	GRAMMAR_ROW("%lp");
	GRAMMAR_ROW("%hhs");
	GRAMMAR_ROW("%*d");
	GRAMMAR_ROW("%.*d");
	GRAMMAR_ROW("%1$d");
	GRAMMAR_ROW("%hld");
	GRAMMAR_ROW("%hhhd");
	GRAMMAR_ROW("%jjd");
	GRAMMAR_ROW("%qd");
	GRAMMAR_ROW("%5%");
	GRAMMAR_ROW("%-%d");
	GRAMMAR_ROW("%..2d");
	GRAMMAR_ROW("%5.2.3d");
	GRAMMAR_ROW("%d trailing %");
	GRAMMAR_ROW("%d %s ok then %a");
	GRAMMAR_ROW("%%%");
	LT_ASSERT_ROWS(failed, rows);
}
