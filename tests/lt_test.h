/* SPDX-License-Identifier: MIT */
/*
 * lt_test.h - the test harness shared by every tests/test_*.c.
 *
 * A test file defines cases with LT_TEST(name) { ... } and includes this
 * header once; main() comes from here.  Each case runs in its own forked
 * child so that a crash or a failed assertion ends only that case.  Output:
 * one "ok NAME" or "FAIL NAME: why" line per case, then a line
 * "lt-test: N passed, N failed, N skipped" that tests/run.sh adds up.
 *
 * A case that needs a tool that is missing calls LT_SKIP("why"); under
 * LOWTRACE_REQUIRE_ALL=1 (CI) a skip counts as a failure.
 *
 * A failed assertion says what it got: LT_ASSERT_EQ, LT_ASSERT_CMP and
 * LT_ASSERT_STREQ both values, LT_ASSERT_CONTAINS and LT_ASSERT_NOT_CONTAINS the text
 * searched (escaped, its beginning and end when long), LT_ASSERT_RESULT a
 * status or result with its message.  A table of inputs is walked with
 * LT_CHECK_ROW on each row, which reports a failing row and lets the loop
 * go on, then LT_ASSERT_ROWS.  Cases are registered without limit; a run
 * that runs no case fails.
 *
 * Each forked case gets a directory of its own as $TMPDIR (lt_tmpdir() of
 * lt_tools.h makes its directories there), removed when the case passes
 * or skips and kept, with its path said, when it fails: a run leaves
 * nothing behind but what explains a failure.
 */
#ifndef LT_TEST_H
#define LT_TEST_H

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct lt_test_case {
	const char *name;
	void (*fn)(void);
};

/* Grown as the constructors register cases: no case is ever left out. */
static struct lt_test_case *lt_test_cases;
static int lt_test_ncases, lt_test_cap;

__attribute__((unused)) static void lt_test_register(const char *name,
						     void (*fn)(void))
{
	if (lt_test_ncases == lt_test_cap) {
		int cap = lt_test_cap ? 2 * lt_test_cap : 64;
		struct lt_test_case *c =
			realloc(lt_test_cases, (size_t)cap * sizeof(*c));
		if (!c) {
			fprintf(stderr, "lt-test: no memory to register %s\n",
				name);
			_exit(2);
		}
		lt_test_cases = c;
		lt_test_cap = cap;
	}
	lt_test_cases[lt_test_ncases++] = (struct lt_test_case){ name, fn };
}

#define LT_TEST(name)                                                     \
	static void name(void);                                           \
	__attribute__((constructor)) static void lt_test_reg_##name(void) \
	{                                                                 \
		lt_test_register(#name, name);                            \
	}                                                                 \
	static void name(void)

#define LT_EXIT_SKIP 77

/* Ends a case that failed (it runs in a child of its own). */
static inline __attribute__((noreturn)) void lt_test_failed(void)
{
	fflush(NULL);
	_exit(1);
}

#define LT_FAIL(...)                                              \
	do {                                                      \
		fprintf(stderr, "  %s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__);                     \
		fputc('\n', stderr);                              \
		lt_test_failed();                                 \
	} while (0)

#define LT_SKIP(...)                          \
	do {                                  \
		fprintf(stderr, "  skip: ");  \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr);          \
		fflush(NULL);                 \
		_exit(LT_EXIT_SKIP);          \
	} while (0)

#define LT_ASSERT(cond)                                         \
	do {                                                    \
		if (!(cond))                                    \
			LT_FAIL("assertion failed: %s", #cond); \
	} while (0)

#define LT_ASSERT_EQ(a, b)                                                \
	do {                                                              \
		long long lt_a_ = (long long)(a), lt_b_ = (long long)(b); \
		if (lt_a_ != lt_b_)                                       \
			LT_FAIL("%s == %s: %lld != %lld", #a, #b, lt_a_,  \
				lt_b_);                                   \
	} while (0)

#define LT_ASSERT_STREQ(a, b)                                         \
	do {                                                          \
		const char *lt_a_ = (a), *lt_b_ = (b);                \
		if (!lt_a_ || !lt_b_ || strcmp(lt_a_, lt_b_) != 0)    \
			LT_FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b, \
				lt_a_ ? lt_a_ : "(null)",             \
				lt_b_ ? lt_b_ : "(null)");            \
	} while (0)

/* A number of any type as text in buf (LT_TEST_VALUE). */
static inline const char *lt_test_value_i(char *buf, long long v)
{
	snprintf(buf, 48, "%lld", v);
	return buf;
}
static inline const char *lt_test_value_u(char *buf, unsigned long long v)
{
	snprintf(buf, 48, "%llu", v);
	return buf;
}
static inline const char *lt_test_value_f(char *buf, long double v)
{
	snprintf(buf, 48, "%.17Lg", v);
	return buf;
}
#define LT_TEST_VALUE(buf, v)                          \
	_Generic((v), float                            \
		 : lt_test_value_f, double             \
		 : lt_test_value_f, long double        \
		 : lt_test_value_f, unsigned char      \
		 : lt_test_value_u, unsigned short     \
		 : lt_test_value_u, unsigned int       \
		 : lt_test_value_u, unsigned long      \
		 : lt_test_value_u, unsigned long long \
		 : lt_test_value_u, default            \
		 : lt_test_value_i)(buf, v)

/* LT_ASSERT_CMP copies its operands: a constant's copy is a signed
 * variable, which compared with an unsigned one draws a warning that the
 * constant did not. */
#define LT_TEST_NO_SIGN_COMPARE        \
	_Pragma("GCC diagnostic push") \
		_Pragma("GCC diagnostic ignored \"-Wsign-compare\"")
#define LT_TEST_END_NO_SIGN_COMPARE _Pragma("GCC diagnostic pop")

/* a OP b, for numbers, compared as C compares them (the operands keep
 * their types); shows both values when not. */
#define LT_ASSERT_CMP(a, op, b)                                    \
	do {                                                       \
		LT_TEST_NO_SIGN_COMPARE;                           \
		__typeof__(a) lt_a_ = (a);                         \
		__typeof__(b) lt_b_ = (b);                         \
		if (!(lt_a_ op lt_b_)) {                           \
			char lt_sa_[48], lt_sb_[48];               \
			LT_FAIL("%s %s %s: %s %s %s", #a, #op, #b, \
				LT_TEST_VALUE(lt_sa_, lt_a_), #op, \
				LT_TEST_VALUE(lt_sb_, lt_b_));     \
		}                                                  \
		LT_TEST_END_NO_SIGN_COMPARE;                       \
	} while (0)

/* As the expected value of LT_ASSERT_RESULT or LT_CHECK_ROW: any value
 * but 0 (a command's exit status when only its failure matters). */
#define LT_NONZERO LONG_MIN

/* Texts longer than this show their beginning and their end. */
#define LT_TEST_SHOW_MAX 4096

/* Writes n bytes of s to stderr, bytes that are not printable as \xNN;
 * newlines as \n on one line (lines 0), or as they are with each line
 * marked "    |" (lines 1, or 2 for the end of the text, which says when
 * the text does not end with a newline). */
static inline void lt_test_put(const char *s, size_t n, int lines)
{
	int bol = 1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (lines && bol)
			fputs("    |", stderr);
		bol = 0;
		if (c == '\n' && lines) {
			fputc('\n', stderr);
			bol = 1;
		} else if (c == '\n') {
			fputs("\\n", stderr);
		} else if (c == '\t' || (c >= 0x20 && c < 0x7f)) {
			fputc(c, stderr);
		} else {
			fprintf(stderr, "\\x%02x", c);
		}
	}
	if (lines && !bol)
		fputs(lines == 2 ? "\n    (no newline at the end)\n" : "\n",
		      stderr);
}

/* Writes a text a failure is about to stderr, line by line: all of it up
 * to LT_TEST_SHOW_MAX bytes, else its beginning and its end. */
static inline void lt_test_show(const char *text)
{
	if (!text) {
		fputs("    (null)\n", stderr);
		return;
	}
	size_t len = strlen(text), half = LT_TEST_SHOW_MAX / 2;
	if (len <= LT_TEST_SHOW_MAX) {
		lt_test_put(text, len, 2);
		return;
	}
	lt_test_put(text, half, 1);
	fprintf(stderr, "    ... %zu bytes left out ...\n", len - 2 * half);
	lt_test_put(text + len - half, half, 2);
}

/* A quoted string on one line, escaped. */
static inline void lt_test_quote(const char *s)
{
	if (!s) {
		fputs("(null)", stderr);
		return;
	}
	fputc('"', stderr);
	lt_test_put(s, strlen(s), 0);
	fputc('"', stderr);
}

/*
 * Whether text contains needle (want 1) or does not (want 0); when not as
 * wanted, says so at file:line, naming the text what, and shows the text.
 */
static inline int lt_test_check_contains(const char *file, int line,
					 const char *what, const char *text,
					 const char *needle, int want)
{
	const char *at = text && needle ? strstr(text, needle) : NULL;
	if (text && needle && (at != NULL) == want)
		return 1;
	fprintf(stderr, "  %s:%d: %s %s ", file, line, what,
		want ? "lacks" : "contains");
	lt_test_quote(needle);
	if (at)
		fprintf(stderr, " (at byte %zu)", (size_t)(at - text));
	fprintf(stderr, "; it is (%zu bytes):\n", text ? strlen(text) : 0);
	lt_test_show(text);
	return 0;
}

/*
 * One row of a table of inputs, or a command's outcome: whether got is
 * want (any value but 0 for LT_NONZERO) and text contains fragment (when
 * fragment is not NULL); when not, says so at file:line, naming input,
 * and shows the text.
 */
static inline int lt_test_check_row(const char *file, int line,
				    const char *input, long got, long want,
				    const char *text, const char *fragment)
{
	int got_ok = want == LT_NONZERO ? got != 0 : got == want;
	int text_ok = !fragment || (text && strstr(text, fragment));
	if (got_ok && text_ok)
		return 1;
	fprintf(stderr, "  %s:%d: ", file, line);
	lt_test_quote(input);
	fprintf(stderr, ": got %ld", got);
	if (!got_ok && want == LT_NONZERO)
		fputs(", expected non-zero", stderr);
	else if (!got_ok)
		fprintf(stderr, ", expected %ld", want);
	if (!text_ok) {
		fputs("; the text lacks ", stderr);
		lt_test_quote(fragment);
	}
	fprintf(stderr, "; the text (%zu bytes):\n", text ? strlen(text) : 0);
	lt_test_show(text);
	return 0;
}

#define LT_ASSERT_CONTAINS(text, needle)                                       \
	do {                                                                   \
		if (!lt_test_check_contains(__FILE__, __LINE__, #text, (text), \
					    (needle), 1))                      \
			lt_test_failed();                                      \
	} while (0)

#define LT_ASSERT_NOT_CONTAINS(text, needle)                                   \
	do {                                                                   \
		if (!lt_test_check_contains(__FILE__, __LINE__, #text, (text), \
					    (needle), 0))                      \
			lt_test_failed();                                      \
	} while (0)

/* got is want (or non-zero for LT_NONZERO) and text contains fragment:
 * a command's exit status and output, a function's result and message. */
#define LT_ASSERT_RESULT(got, want, text, fragment)                           \
	do {                                                                  \
		if (!lt_test_check_row(__FILE__, __LINE__, #got, (long)(got), \
				       (long)(want), (text), (fragment)))     \
			lt_test_failed();                                     \
	} while (0)

/* The same for a row of a table, which the loop goes on after: true if
 * the row is as expected. */
#define LT_CHECK_ROW(input, got, want, text, fragment)              \
	lt_test_check_row(__FILE__, __LINE__, (input), (long)(got), \
			  (long)(want), (text), (fragment))

/* After a table's loop: fails if any of its n rows did. */
#define LT_ASSERT_ROWS(bad, n)                                              \
	do {                                                                \
		if (bad)                                                    \
			LT_FAIL("%d of %d rows failed (above)", (int)(bad), \
				(int)(n));                                  \
	} while (0)

/* True when CI demands that no test skips. */
static inline int lt_test_require_all(void)
{
	const char *v = getenv("LOWTRACE_REQUIRE_ALL");
	return v && *v && strcmp(v, "0") != 0;
}

/* Path of the build directory the tests were built in (for tools). */
static inline const char *lt_test_build_dir(void)
{
	const char *b = getenv("BUILD");
	return b && *b ? b : "build";
}

static int lt_test_rm_one(const char *path, const struct stat *sb, int flag,
			  struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* A case's $TMPDIR, under the run's own $TMPDIR; "" if none could be made
 * (the case then uses the run's). */
static inline void lt_test_case_tmp(char *buf, size_t cap)
{
	const char *t = getenv("TMPDIR");
	snprintf(buf, cap, "%s/lt-case-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(buf))
		buf[0] = 0;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;
	const char *only = argc > 1 ? argv[1] : NULL;
	char tmp[PATH_MAX];

	for (int i = 0; i < lt_test_ncases; i++) {
		struct lt_test_case *c = &lt_test_cases[i];
		if (only && strcmp(only, c->name) != 0)
			continue;
		fflush(NULL);
		if (getenv("LT_TEST_NOFORK")) { /* for a debugger */
			c->fn();
			printf("ok %s\n", c->name);
			passed++;
			continue;
		}
		lt_test_case_tmp(tmp, sizeof(tmp));
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0) {
			if (tmp[0])
				setenv("TMPDIR", tmp, 1);
			c->fn();
			fflush(NULL);
			_exit(0);
		}
		int st = 0;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		int ended_well =
			WIFEXITED(st) && (WEXITSTATUS(st) == 0 ||
					  WEXITSTATUS(st) == LT_EXIT_SKIP);
		if (tmp[0] && ended_well)
			nftw(tmp, lt_test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
		else if (tmp[0])
			printf("  %s: its files are kept in %s\n", c->name,
			       tmp);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			printf("ok %s\n", c->name);
			passed++;
		} else if (WIFEXITED(st) && WEXITSTATUS(st) == LT_EXIT_SKIP) {
			if (lt_test_require_all()) {
				printf("FAIL %s: skipped under "
				       "LOWTRACE_REQUIRE_ALL=1\n",
				       c->name);
				failed++;
			} else {
				printf("skip %s\n", c->name);
				skipped++;
			}
		} else if (WIFSIGNALED(st)) {
			printf("FAIL %s: killed by signal %d\n", c->name,
			       WTERMSIG(st));
			failed++;
		} else {
			printf("FAIL %s: exit status %d\n", c->name,
			       WEXITSTATUS(st));
			failed++;
		}
		fflush(stdout);
	}
	/* a name that matches no case, or a file without cases, tests nothing */
	if (passed + failed + skipped == 0) {
		if (only)
			printf("FAIL %s: no case of that name\n", only);
		else
			printf("FAIL lt-test: no case registered\n");
		failed++;
	}
	printf("lt-test: %d passed, %d failed, %d skipped\n", passed, failed,
	       skipped);
	return failed ? 1 : 0;
}

#endif
