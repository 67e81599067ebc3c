#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_harness.sh - the test harness itself: tests/lt_test.h and
# tests/lt_tools.h compiled into small programs, tests/run.sh run on
# shell tests of its own, and tests/lib/harness.sh's tables:
#
#   every case   300 cases all run, none left out
#   no case      a name matching no case, or a file without cases, fails
#   texts        a failed contains assertion shows the text it searched,
#                escaped, and a long one bounded (its beginning and end);
#                a comparison both values, of their types
#   tables       every failing row is reported with its input, its status
#                and its output, and the case fails once after the last
#   run.sh       a test that runs no case fails unless it says why, and the
#                summary at the end repeats a failure's message
#   shell rows   rows_end reports each failing row with its command
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-cc}
. "$top/tests/lib/harness.sh" lt-test-harness
# the programs' cases make their directories in here (failing ones are kept)
export TMPDIR="$tmp"

# has [-x] TEXT: $out holds TEXT (as a whole line with -x)
has() {
	local x=
	[ "$1" = -x ] && x=x && shift
	printf '%s\n' "$out" | grep -qF$x -- "$1"
}

# build NAME: $tmp/NAME.c into $tmp/NAME, as the tests are built
build() {
	"$CC" -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$top/tests" \
		${SANITIZE:+-fsanitize=$SANITIZE} -o "$tmp/$1" "$tmp/$1.c" > "$tmp/$1.cc" 2>&1
}

# 300 cases, each checking that it runs once
{
	echo '#include "lt_test.h"'
	for i in $(seq 1 300); do
		echo "LT_TEST(case_$i) { LT_ASSERT_EQ($i, $i); }"
	done
} > "$tmp/many.c"
if ! build many; then
	fail test_harness_runs_every_case "$(cat "$tmp/many.cc")"
else
	out=$("$tmp/many" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | grep -c '^ok case_')" -eq 300 ] &&
		has -x 'lt-test: 300 passed, 0 failed, 0 skipped'; then
		ok test_harness_runs_every_case
	else
		fail test_harness_runs_every_case "exit $rc: $(printf '%s\n' "$out" | tail -n 3)"
	fi
	row 1 '^FAIL no_such_case: no case of that name' "$tmp/many" no_such_case
	row 0 '^lt-test: 1 passed, 0 failed' "$tmp/many" case_300
	rows_end test_harness_fails_a_name_matching_no_case
fi

# each case's $TMPDIR: a fresh directory, removed after a case that
# passes, kept and named after one that fails
cat > "$tmp/tmpdirs.c" << 'CEOF'
#include "lt_tools.h"
static void leave_a_file(const char *tag)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/left", lt_tmpdir(tag));
	FILE *f = fopen(p, "w");
	LT_ASSERT(f != NULL);
	fclose(f);
	printf("%s: %s\n", tag, getenv("TMPDIR"));
}
LT_TEST(passes)
{
	leave_a_file("passes");
}
LT_TEST(fails)
{
	leave_a_file("fails");
	LT_ASSERT_EQ(1, 2);
}
CEOF
if build tmpdirs; then
	out=$("$tmp/tmpdirs" 2>&1)
	pdir=$(printf '%s\n' "$out" | sed -n 's/^passes: //p')
	fdir=$(printf '%s\n' "$out" | sed -n 's/^fails: //p')
	if [ -n "$pdir" ] && [ ! -e "$pdir" ] && [ -n "$fdir" ] &&
		[ "$pdir" != "$fdir" ] && [ -e "$fdir" ] &&
		[ "$(dirname "$fdir")" = "$tmp" ] &&
		has "fails: its files are kept in $fdir"; then
		ok test_harness_case_tmpdir_removed_unless_failed
	else
		fail test_harness_case_tmpdir_removed_unless_failed "passes '$pdir', fails '$fdir': $out"
	fi
else
	fail test_harness_case_tmpdir_removed_unless_failed "$(cat "$tmp/tmpdirs.cc")"
fi

echo '#include "lt_test.h"' > "$tmp/none.c"
if build none; then
	expect_error test_harness_fails_a_file_without_cases 1 '^FAIL lt-test: no case registered' "$tmp/none"
else
	fail test_harness_fails_a_file_without_cases "$(cat "$tmp/none.cc")"
fi

# assertions that fail, for what they print
cat > "$tmp/asserts.c" << 'EOF'
#include "lt_tools.h"
LT_TEST(contains)
{
	const char *out = "first line\nsecond\tline\001\n";
	LT_ASSERT_CONTAINS(out, "third");
}
LT_TEST(not_contains)
{
	const char *out = "abc emitted xyz";
	LT_ASSERT_NOT_CONTAINS(out, "emitted");
}
LT_TEST(long_text)
{
	static char big[100000];
	for (size_t i = 0; i < sizeof(big) - 1; i++)
		big[i] = i % 50 == 49 ? '\n' : 'a' + i % 26;
	memcpy(big, "BEGIN", 5);
	memcpy(big + sizeof(big) - 4, "END", 3);
	LT_ASSERT_CONTAINS(big, "needle");
}
LT_TEST(result)
{
	int st = 0;
	LT_ASSERT_RESULT(st, LT_NONZERO, "recorded\n", "no session");
}
LT_TEST(cmp_unsigned)
{
	size_t n = 3;
	LT_ASSERT_CMP(n, >, 0);
	LT_ASSERT_CMP(n, >=, 8 + 5);
}
LT_TEST(cmp_double)
{
	double w = 1500.5;
	LT_ASSERT_CMP(w, <, 1000);
}
LT_TEST(rows)
{
	static const struct lt_run_row rows[] = {
		{ "'exit 3'", 3, "" },
		{ "'echo said-hi; exit 2'", 3, "bye" },
		{ "'echo fine'", LT_NONZERO, "fine" },
		{ "'echo also fine; exit 1'", 1, "also" },
	};
	LT_ASSERT_RUN_ROWS("sh -c", rows);
}
EOF
if ! build asserts; then
	fail test_harness_assertions_build "$(cat "$tmp/asserts.cc")"
else
	A=$tmp/asserts
	row 1 'asserts\.c:5: out lacks "third"; it is (24 bytes):$' "$A" contains
	row 1 '^    |first line$' "$A" contains
	row 1 "^    |second"$'\t'"line\\\\x01\$" "$A" contains
	rows_end test_contains_shows_the_text_escaped
	row 1 'out contains "emitted" (at byte 4)' "$A" not_contains
	row 1 '^    |abc emitted xyz$' "$A" not_contains
	rows_end test_not_contains_shows_where
	out=$("$tmp/asserts" long_text 2>&1)
	if [ ${#out} -lt 6000 ] && printf '%s\n' "$out" | grep -q '^    |BEGIN' &&
		printf '%s\n' "$out" | grep -q '^    \.\.\. 95903 bytes left out \.\.\.$' &&
		printf '%s\n' "$out" | grep -q 'END$'; then
		ok "test_long_text_is_bounded (${#out} bytes)"
	else
		fail test_long_text_is_bounded "${#out} bytes: $out"
	fi
	row 1 '"st": got 0, expected non-zero; the text lacks "no session"' "$A" result
	row 1 '^    |recorded$' "$A" result
	rows_end test_result_shows_status_and_text
	row 1 'asserts\.c:[0-9]*: n >= 8 + 5: 3 >= 13$' "$A" cmp_unsigned
	row 1 'asserts\.c:[0-9]*: w < 1000: 1500\.5 < 1000$' "$A" cmp_double
	rows_end test_cmp_shows_both_values
	out=$("$tmp/asserts" rows 2>&1)
	rc=$?
	if [ $rc -ne 0 ] &&
		has '"sh -c '\''echo said-hi; exit 2'\'' 2>&1": got 2, expected 3; the text lacks "bye"' &&
		has -x '    |said-hi' &&
		has '"sh -c '\''echo fine'\'' 2>&1": got 0, expected non-zero' &&
		[ "$(printf '%s\n' "$out" | grep -c ': got ')" -eq 2 ] &&
		has '2 of 4 rows failed' &&
		has -x 'FAIL rows: exit status 1'; then
		ok test_table_reports_every_failing_row
	else
		fail test_table_reports_every_failing_row "exit $rc: $out"
	fi
fi

# run.sh on shell tests of its own: a copy under $tmp/rN/tests runs those
# beside it
runsh() { # N: run $tmp/rN/tests/run.sh with no binaries
	BUILD=$tmp/r$1 bash "$tmp/r$1/tests/run.sh"
}
mkdir -p "$tmp/r1/tests" "$tmp/r2/tests" "$tmp/r3/tests"
for n in 1 2 3; do cp "$top/tests/run.sh" "$tmp/r$n/tests/"; done
printf 'echo "lt-test: 0 passed, 0 failed, 0 skipped"\n' > "$tmp/r1/tests/test_empty.sh"
printf 'echo "no cases: not here"\necho "lt-test: 0 passed, 0 failed, 0 skipped"\n' > "$tmp/r2/tests/test_empty.sh"
cp "$tmp/asserts" "$tmp/r3/asserts"
row 1 '^\[test_empty.sh\] FAIL: no case ran' runsh 1
row 0 '^0 passed, 0 failed$' runsh 2
rows_end test_run_sh_fails_a_test_that_runs_no_case
if [ -x "$tmp/r3/asserts" ]; then
	out=$(BUILD=$tmp/r3 bash "$tmp/r3/tests/run.sh" "$tmp/r3/asserts" 2>&1)
	rc=$?
	# the summary after "failures:" holds each assertion's first line
	sum=$(printf '%s\n' "$out" | sed -n '/^failures:$/,$p')
	if [ $rc -ne 0 ] && printf '%s\n' "$sum" | grep -qF '[asserts] FAIL long_text' &&
		printf '%s\n' "$sum" | grep -qF '[asserts]   '"$tmp"'/asserts.c:19: big lacks "needle"' &&
		printf '%s\n' "$sum" | grep -qF '[asserts]   '"$tmp"'/asserts.c:5: out lacks "third"' &&
		has -x '0 passed, 7 failed'; then
		ok test_run_sh_repeats_the_failures_messages
	else
		fail test_run_sh_repeats_the_failures_messages "exit $rc: $sum"
	fi
fi

# harness.sh's rows, in a test of its own
cat > "$tmp/rows.sh" << EOF
. "$top/tests/lib/harness.sh" lt-test-harness-rows
row nonzero '^no' sh -c 'echo no; exit 2'
row 2 'yes' sh -c 'echo no; exit 2'
row 0 'quiet' sh -c 'echo quiet; exit 1'
rows_end table
finish
EOF
out=$(bash "$tmp/rows.sh" 2>&1)
rc=$?
if [ $rc -ne 0 ] && has -x 'FAIL table: rows failed:' &&
	has "sh -c echo no; exit 2: exit 2, expected 2 and a line matching 'yes'; output:" &&
	has "sh -c echo quiet; exit 1: exit 1, expected 0 and a line matching 'quiet'; output:" &&
	has -x 'lt-test: 0 passed, 1 failed, 0 skipped'; then
	ok test_shell_rows_report_each_failing_row
else
	fail test_shell_rows_report_each_failing_row "exit $rc: $out"
fi
finish
