/* SPDX-License-Identifier: MIT */
/*
 * markers.c - a traced program of lt_tracef markers: each marker also
 * prints its format and arguments with printf, one line each, so that
 * tests/test_tracef.sh compares `lowtrace view`'s text with printf's.
 *	markers N
 * Every supported conversion with its length modifiers, flags, widths
 * and precisions; markers of 4 and 8 bytes (the inline sequence), of
 * more, of strings, of none.  One marker, "hex float %a", is not
 * supported: built without the compiler's check of its format (which
 * would refuse it), the registry reports it and keeps it disabled (it
 * prints nothing).
 */
#include <limits.h>
#include <lowtrace/tracepoint.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BOTH(...)                       \
	do {                            \
		lt_tracef(__VA_ARGS__); \
		printf(__VA_ARGS__);    \
		putchar('\n');          \
	} while (0)

/* A marker of no argument alone in its function: gcc once saw its empty
 * payload as read uninitialized (-Werror=maybe-uninitialized). */
static void started(void)
{
	lt_tracef("started");
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	static int anchor;
	char name[16] = "worker-0";
	started();
	puts("started");
	for (int i = 0; i < n; i++) {
		name[7] = (char)('0' + i % 10);
		BOTH("frame %u late by %lld us (%s)", (unsigned)i,
		     (long long)i * -1000, i % 2 ? "audio" : "render");
		BOTH("small %d", i);
		BOTH("pair %d %d", i, -i);
		BOTH("ints %hhd %hhu %hd %hu %d %u %ld %lu %lld %llu",
		     (signed char)-i, (unsigned char)(250 + i), (short)-30000,
		     (unsigned short)65535, INT_MIN + i, UINT_MAX - (unsigned)i,
		     LONG_MIN, ULONG_MAX, LLONG_MIN + i, ULLONG_MAX);
		BOTH("hex %x %X %#x %08lx %o %jd %zu %td",
		     0xbeefu + (unsigned)i, 0xcafeu, 255u, 0xabcUL, 8u,
		     (intmax_t)-i, (size_t)i * 7, (ptrdiff_t)-3);
		BOTH("floats %f %.3e %g %10.2f %E %G", 1.5 * i, (double)i / 3,
		     0.1f, -2.25, 1e100, 1e-5f);
		BOTH("chars %c%c%c pointer %p null %p", 'o', (char)'k',
		     (unsigned char)'!', (void *)&anchor, (void *)NULL);
		BOTH("strings [%s] [%-10s] [%.3s] [%5s]", name, "left",
		     "truncated", "r");
		BOTH("100%% done, %s", "no conversion before");
		BOTH("no arguments at all");
#pragma push_macro("LT__TF_COUNT_CHECK")
#undef LT__TF_COUNT_CHECK
#define LT__TF_COUNT_CHECK(fmt, n)
		lt_tracef("hex float %a", 1.0 * i);
#pragma pop_macro("LT__TF_COUNT_CHECK")
	}
	return 0;
}
