# harness.sh - sourced by the shell tests (tests/*.sh) as
#   . "$top/tests/lib/harness.sh" NAME
# Sets the counters and $tmp (a directory /tmp/NAME.XXXXXX, removed at
# exit), and defines ok NAME, fail NAME WHY, skip NAME WHY (a failure
# under LOWTRACE_REQUIRE_ALL=1) and finish, which prints the summary line
# tests/run.sh adds up and exits non-zero if a case failed.
passed=0 failed=0 skipped=0
tmp=$(mktemp -d "/tmp/${1:-lt-test}.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
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
