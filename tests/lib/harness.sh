# SPDX-License-Identifier: MIT
# harness.sh - sourced by the shell tests (tests/*.sh) as
#   . "$top/tests/lib/harness.sh" NAME
# Sets the counters and $tmp (a directory /tmp/NAME.XXXXXX, removed at
# exit), and defines ok NAME, fail NAME WHY, skip NAME WHY (a failure
# under LOWTRACE_REQUIRE_ALL=1) and finish, which prints the summary line
# tests/run.sh adds up and exits non-zero if a case failed; no_cases WHY
# finishes a test that has no case to run here (tests/run.sh fails one
# that runs none without saying why).
# A table of bad inputs is a series of `row STATUS PATTERN CMD...` ended
# by `rows_end NAME`, which reports every failing row with its command,
# exit status and output; expect_error NAME STATUS PATTERN CMD... is a
# table of one row.
passed=0 failed=0 skipped=0
tmp=$(mktemp -d "/tmp/${1:-lt-test}.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# show TEXT: TEXT with each line marked "    |", all of it up to 4096
# bytes, else its beginning and its end.
show() {
	local t=$1 n=${#1}
	if [ "$n" -gt 4096 ]; then
		t="${t:0:2048}"$'\n'"... $((n - 4096)) bytes left out ..."$'\n'"${t:n-2048}"
	fi
	printf '%s\n' "$t" | sed 's/^/    |/'
}

ok() { echo "ok $1"; passed=$((passed + 1)); }
# (a WHY of several lines: its first on the FAIL line, the others shown)
fail() {
	local first=${2%%$'\n'*}
	echo "FAIL $1: $first"
	[ "$first" = "$2" ] || show "${2#*$'\n'}"
	failed=$((failed + 1))
}
skip() {
	if [ -n "${LOWTRACE_REQUIRE_ALL:-}" ] && [ "${LOWTRACE_REQUIRE_ALL}" != 0 ]; then
		fail "$1" "skipped under LOWTRACE_REQUIRE_ALL=1 ($2)"
	else
		echo "skip $1: $2"
		skipped=$((skipped + 1))
	fi
}
finish() {
	echo "lt-test: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit
}
no_cases() {
	echo "no cases: $1"
	finish
}

# row STATUS PATTERN CMD...: CMD exits with STATUS (a number, or nonzero)
# and prints (on stdout or stderr) a line matching the grep pattern
# PATTERN; a row that does not is kept for rows_end.
rows_failed=
row() {
	local want=$1 pat=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if { [ "$want" = nonzero ] && [ $rc -ne 0 ]; } || [ "$rc" = "$want" ]; then
		printf '%s\n' "$out" | grep -q -- "$pat" && return 0
	fi
	rows_failed="$rows_failed"$'\n'"$*: exit $rc, expected $want and a line matching '$pat'; output:"$'\n'"$(show "$out")"
	return 1
}
# rows_end NAME: ok NAME if the rows since the last rows_end passed, else
# fail NAME with the rows that did not.
rows_end() {
	if [ -z "$rows_failed" ]; then
		ok "$1"
	else
		fail "$1" "rows failed:$rows_failed"
	fi
	rows_failed=
}
expect_error() {
	local name=$1
	shift
	row "$@"
	rows_end "$name"
}
