/*
 * lt_tools.h - running outside tools (babeltrace2) from tests: a test that
 * needs a missing tool skips, which LOWTRACE_REQUIRE_ALL=1 turns into a
 * failure.
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
