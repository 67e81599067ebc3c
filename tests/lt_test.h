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
 * Cases are registered without limit; a run that runs no case fails.
 */
#ifndef LT_TEST_H
#define LT_TEST_H

#include <errno.h>
#include <inttypes.h>
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

#define LT_FAIL(...)                                              \
	do {                                                      \
		fprintf(stderr, "  %s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__);                     \
		fputc('\n', stderr);                              \
		fflush(NULL);                                     \
		_exit(1);                                         \
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

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;
	const char *only = argc > 1 ? argv[1] : NULL;

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
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0) {
			c->fn();
			fflush(NULL);
			_exit(0);
		}
		int st = 0;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
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
