/* SPDX-License-Identifier: MIT */
/*
 * test_syscall_names.c - the built-in x86_64 system call names
 * (src/tool/analysis/syscall_names.c) agree with the system's
 * <asm/unistd_64.h>, and numbers outside the table get "syscall_N".
 */
#include "analysis/analysis.h"
#include "lt_test.h"

#include <stdio.h>
#include <string.h>

static const char *const headers[] = {
	"/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
	"/usr/include/asm/unistd_64.h",
};

LT_TEST(test_names_match_the_system_header)
{
#if !defined(__x86_64__)
	LT_SKIP("the table is x86_64's");
#endif
	FILE *f = NULL;
	for (unsigned i = 0; !f && i < sizeof(headers) / sizeof(headers[0]);
	     i++)
		f = fopen(headers[i], "r");
	if (!f)
		LT_SKIP("no asm/unistd_64.h (Debian package linux-libc-dev)");
	char line[256], name[128], buf[32];
	long nr;
	unsigned n = 0, bad = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "#define __NR_%127s %ld", name, &nr) != 2)
			continue;
		n++;
		const char *got = lt_syscall_name(nr, buf, sizeof(buf));
		if (strcmp(got, name) != 0) {
			fprintf(stderr, "  %ld: header %s, table %s\n", nr,
				name, got);
			bad++;
		}
	}
	fclose(f);
	LT_ASSERT_CMP(n, >, 300);
	LT_ASSERT_EQ(bad, 0);
}

LT_TEST(test_unknown_numbers_are_numbered)
{
	char buf[32];
	LT_ASSERT_STREQ(lt_syscall_name(-1, buf, sizeof(buf)), "syscall_-1");
	LT_ASSERT_STREQ(lt_syscall_name(100000, buf, sizeof(buf)),
			"syscall_100000");
	LT_ASSERT_STREQ(lt_syscall_name(0, buf, sizeof(buf)), "read");
	LT_ASSERT_STREQ(lt_syscall_name(231, buf, sizeof(buf)), "exit_group");
}
