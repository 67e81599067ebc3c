/* SPDX-License-Identifier: MIT */
/*
 * lt_tools.h - running outside tools (babeltrace2) and commands from tests:
 * a test that needs a missing tool skips, which LOWTRACE_REQUIRE_ALL=1
 * turns into a failure; a table of command lines each expected to fail
 * with a message is walked by one call.
 */
#ifndef LT_TEST_TOOLS_H
#define LT_TEST_TOOLS_H

#include "lt_test.h"

#include <stdio.h>
#include <stdlib.h>

static inline void lt_need_tool(const char *tool)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	if (system(cmd) != 0)
		LT_SKIP("%s is not installed (scripts/install-deps.sh)", tool);
}

/* Runs cmd through sh; its stdout (malloc'd) and exit status. */
static inline char *lt_run(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	size_t len = 0, cap = 65536;
	char *out = malloc(cap);
	if (!p || !out)
		LT_FAIL("cannot run %s", cmd);
	for (;;) {
		if (cap - len < 4096) {
			cap *= 2;
			out = realloc(out, cap);
			if (!out)
				LT_FAIL("out of memory");
		}
		size_t n = fread(out + len, 1, cap - len - 1, p);
		if (!n)
			break;
		len += n;
	}
	out[len] = 0;
	int st = pclose(p);
	if (status)
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	return out;
}

/* A command line that must end with a status and say something: one row
 * of a table of bad inputs. */
struct lt_run_row {
	const char *args; /* appended to the command */
	long status; /* its exit status, or LT_NONZERO */
	const char *message; /* what its output (stdout and stderr) holds */
};

/* Runs "PREFIX ARGS 2>&1" for each row, reports every row that ends or
 * says otherwise, and fails after the last if any did. */
static inline void lt_run_rows(const char *file, int line, const char *prefix,
			       const struct lt_run_row *rows, size_t n)
{
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		char cmd[4096];
		int st;
		snprintf(cmd, sizeof(cmd), "%s %s 2>&1", prefix, rows[i].args);
		char *out = lt_run(cmd, &st);
		if (!lt_test_check_row(file, line, cmd, st, rows[i].status, out,
				       rows[i].message))
			bad++;
		free(out);
	}
	LT_ASSERT_ROWS(bad, n);
}

#define LT_ASSERT_RUN_ROWS(prefix, rows)                  \
	lt_run_rows(__FILE__, __LINE__, (prefix), (rows), \
		    sizeof(rows) / sizeof((rows)[0]))

static inline int lt_count_lines(const char *s, const char *needle)
{
	int n = 0;
	for (const char *l = s; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		if (!needle || memmem(l, len, needle, strlen(needle)))
			n++;
		l += len + (e ? 1 : 0);
	}
	return n;
}

/* A fresh empty directory under $TMPDIR. */
static inline const char *lt_tmpdir(const char *tag)
{
	static char buf[256];
	const char *t = getenv("TMPDIR");
	snprintf(buf, sizeof(buf), "%s/lt-%s-XXXXXX", t && *t ? t : "/tmp",
		 tag);
	if (!mkdtemp(buf))
		LT_FAIL("mkdtemp: %s", strerror(errno));
	return buf;
}

#endif
