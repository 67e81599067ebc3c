#!/usr/bin/env bash
# Runs each test binary given, adds up their "lt-test: N passed, N failed, N skipped"
# lines, and ends with the total line. Exits non-zero if anything failed.
# Shell tests (tests/*.sh) are run too; each prints the same kind of line.
set -u
passed=0 failed=0 skipped=0
failures=""
top=$(cd "$(dirname "$0")/.." && pwd)
export BUILD=${BUILD:-build}
run_one() {
	local name=$1; shift
	local out rc
	out=$("$@" 2>&1); rc=$?
	printf '%s\n' "$out" | sed "s|^|[$name] |"
	# Keep each failure with the lines just before it (the assertion's
	# message) to repeat them at the end, where a truncated log still shows them.
	local why
	why=$(printf '%s\n' "$out" | grep -B 3 -E '^FAIL ' | sed "s|^|[$name] |")
	[ -n "$why" ] && failures="$failures$why"$'\n'
	local line
	line=$(printf '%s\n' "$out" | grep -E '^lt-test: [0-9]+ passed, [0-9]+ failed' | tail -n 1)
	if [ -z "$line" ]; then
		echo "[$name] FAIL: no summary line (exit status $rc)"
		failures="$failures[$name] FAIL: no summary line (exit status $rc)"$'\n'
		failed=$((failed + 1))
		return
	fi
	local p f s
	p=$(echo "$line" | sed -E 's/^lt-test: ([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	s=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p')
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + ${s:-0}))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "[$name] FAIL: exit status $rc"
		failures="$failures[$name] FAIL: exit status $rc"$'\n'
		failed=$((failed + 1))
	fi
}
for t in "$@"; do
	run_one "$(basename "$t")" "$t"
done
for s in "$top"/tests/*.sh; do
	[ -e "$s" ] || continue
	[ "$(basename "$s")" = run.sh ] && continue
	run_one "$(basename "$s")" bash "$s"
done
if [ -n "$failures" ]; then
	echo "failures:"
	printf '%s' "$failures"
fi
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
