/* SPDX-License-Identifier: MIT */
/*
 * test_pattern.c - the one matcher of event patterns (probe/pattern.h):
 * its table of cases, and the same answers as fnmatch() with no flags on
 * random patterns and names.
 */
#include "lt_test.h"

#include <fnmatch.h>

#include "probe/pattern.h"

static const struct {
	const char *pat, *name;
	int match;
} cases[] = {
	/* '*': any run, across ':' and '/' */
	{ "*", "", 1 },
	{ "*", "a:b", 1 },
	{ "a:*", "a:b", 1 },
	{ "*:frame_*", "x:frame_done", 1 },
	{ "*:frame_*", "x:frames", 0 },
	{ "a*b*c", "aXbYbZc", 1 },
	{ "a*b*c", "aXbYbZ", 0 },
	{ "lt_tracef:src/*", "lt_tracef:src/net/a.c:12", 1 },
	{ "**a", "xa", 1 },
	{ "exact", "exact", 1 },
	{ "exact", "exactly", 0 },
	{ "exactly", "exact", 0 },
	{ "", "", 1 },
	{ "", "a", 0 },
	/* '?': exactly one */
	{ "a?c", "abc", 1 },
	{ "a?c", "ac", 0 },
	{ "a?c", "a?c", 1 },
	{ "??", "abc", 0 },
	/* sets */
	{ "sched:sched_[sw]*", "sched:sched_switch", 1 },
	{ "sched:sched_[sw]*", "sched:sched_wakeup", 1 },
	{ "sched:sched_[sw]*", "sched:sched_process_exit", 0 },
	{ "irq:[!s]*", "irq:irq_handler_entry", 1 },
	{ "irq:[!s]*", "irq:softirq_entry", 0 },
	{ "irq:[^s]*", "irq:softirq_entry", 0 },
	{ "x[0-9]", "x7", 1 },
	{ "x[0-9]", "xa", 0 },
	{ "x[]]", "x]", 1 },
	{ "x[!]]", "x]", 0 },
	{ "x[a-]", "x-", 1 },
	{ "x[\\]]", "x]", 1 },
	/* a '[' without its ']' is itself */
	{ "a[b", "a[b", 1 },
	{ "a[b*", "a[bcd", 1 },
	{ "a[b", "ab", 0 },
	/* escapes */
	{ "a\\*", "a*", 1 },
	{ "a\\*", "ab", 0 },
	{ "a\\?", "a?", 1 },
	{ "a\\[b]", "a[b]", 1 },
	{ "\\a", "a", 1 },
	/* a '*' gives back what a later element needs */
	{ "*[ab]b", "aab", 1 },
	{ "*?x", "x", 0 },
	{ "*?x", "yx", 1 },
	{ "a*?*c", "abc", 1 },
	{ "a*?*c", "ac", 0 },
};

LT_TEST(test_pattern_cases)
{
	size_t n = sizeof(cases) / sizeof(cases[0]);
	int bad = 0;
	char input[96];
	for (size_t i = 0; i < n; i++) {
		snprintf(input, sizeof(input), "'%s' on '%s'", cases[i].pat,
			 cases[i].name);
		bad += !LT_CHECK_ROW(
			input, lt_pattern_match(cases[i].pat, cases[i].name),
			cases[i].match, "", "");
	}
	LT_ASSERT_ROWS(bad, n);
}

LT_TEST(test_pattern_literal)
{
	LT_ASSERT(lt_pattern_is_literal("demo:tick"));
	LT_ASSERT(lt_pattern_is_literal(""));
	LT_ASSERT(!lt_pattern_is_literal("demo:*"));
	LT_ASSERT(!lt_pattern_is_literal("demo:t?ck"));
	LT_ASSERT(!lt_pattern_is_literal("demo:[t]ick"));
	LT_ASSERT(!lt_pattern_is_literal("demo:\\tick"));
}

/* A random string of n tokens from tok (a '\' always with a character,
 * as a trailing one differs: fnmatch() refuses it, the matcher takes it
 * as itself). */
static void random_text(char *out, const char *const *tok, size_t ntok,
			unsigned n, unsigned *seed)
{
	out[0] = 0;
	for (unsigned k = 0; k < n; k++)
		strcat(out, tok[(unsigned)rand_r(seed) % ntok]);
}

LT_TEST(test_pattern_agrees_with_fnmatch)
{
	/* no ':', '=' or '.' after '[': fnmatch()'s classes are not ours */
	static const char *const ptok[] = {
		"a", "b", "-",	 "/",	"*",   "?",   "[",   "]",
		"!", "^", "\\a", "\\*", "\\]", "\\[", "\\\\"
	};
	static const char *const stok[] = { "a", "b", "-", "/", "*",
					    "?", "[", "]", "!", "\\" };
	unsigned seed = 30;
	char pat[64], name[64];
	int disagree = 0;
	for (int i = 0; i < 200000 && disagree < 5; i++) {
		random_text(pat, ptok, sizeof(ptok) / sizeof(ptok[0]),
			    (unsigned)rand_r(&seed) % 7, &seed);
		random_text(name, stok, sizeof(stok) / sizeof(stok[0]),
			    (unsigned)rand_r(&seed) % 9, &seed);
		int want = fnmatch(pat, name, 0) == 0;
		if (lt_pattern_match(pat, name) != want) {
			fprintf(stderr, "'%s' on '%s': fnmatch says %d\n", pat,
				name, want);
			disagree++;
		}
	}
	LT_ASSERT_EQ(disagree, 0);
}
