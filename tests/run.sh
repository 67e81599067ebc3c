#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs each test binary given, adds up their "lt-test: N passed, N failed, N skipped"
# lines, and ends with the total line. Exits non-zero if anything failed,
# and counts as a failure a test without that line, one that exits
# non-zero with no failure counted, and one that ran no case (unless it
# printed "no cases: WHY").
# Shell tests (tests/*.sh) are run too; each prints the same kind of line.
set -u
passed=0 failed=0 skipped=0
failures=""
top=$(cd "$(dirname "$0")/.." && pwd)
export BUILD=${BUILD:-build}
# A program linking liblowtrace has a thread (its rendezvous, attach.c)
# and starts one in each child it forks, which POSIX allows and TSan
# refuses by default.
if [ "${SANITIZE:-}" = thread ]; then
	export TSAN_OPTIONS="die_after_fork=0 ${TSAN_OPTIONS:-}"
fi
run_one() {
	local name=$1; shift
	local out rc
	out=$("$@" 2>&1); rc=$?
	printf '%s\n' "$out" | sed "s|^|[$name] |"
	# Keep each failure with its case's lines (an assertion's message
	# before it, a shell test's lines marked "    |" after it), at most 20
	# each side, to repeat them at the end, where a truncated log still
	# shows them.
	local why
	why=$(printf '%s\n' "$out" | awk -v max=20 '
		function keep(l) {
			if (n < max) buf = buf l "\n"; else if (n == max) buf = buf "    ...\n"
			n++
		}
		/^(ok |skip |FAIL |lt-test: )/ { if (infail) printf "%s", buf; infail = 0 }
		/^(ok |skip |lt-test: )/ { buf = ""; n = 0; next }
		/^FAIL / { buf = buf $0 "\n"; n = 0; infail = 1; next }
		infail && !/^    \|/ { printf "%s", buf; buf = ""; n = 0; infail = 0 }
		{ keep($0) }
		END { if (infail) printf "%s", buf }' | sed "s|^|[$name] |")
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
	# a test that ran no case tests nothing: a failure, unless it says why
	# it has none ("no cases: WHY")
	if [ $((p + f + ${s:-0})) -eq 0 ] && ! printf '%s\n' "$out" | grep -q '^no cases: '; then
		echo "[$name] FAIL: no case ran"
		failures="$failures[$name] FAIL: no case ran"$'\n'
		failed=$((failed + 1))
		return
	fi
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
# The kernel channel's tests once more on the perf backend: the first
# run took the default, eBPF where the kernel allows it, so both backends
# pass the same tests.  Once, in the plain build: the sanitizers' runs
# check the eBPF backend's code and the code both share (CI's time).
kernel_tests=" test_kernel test_record_kernel test_kernel_backends.sh
	test_analysis.sh test_analysis_more.sh test_explain.sh test_report.sh
	test_follow.sh test_gen_sched.sh test_attach.sh "
[ -n "${SANITIZE:-}" ] && { echo "note: the kernel tests on the perf backend run in the plain build alone"; kernel_tests=""; }
for t in "$@" "$top"/tests/*.sh; do
	n=$(basename "$t")
	case $kernel_tests in *[[:space:]]$n[[:space:]]*) ;; *) continue ;; esac
	case $n in
	*.sh) run_one "$n@perf" env LOWTRACE_KERNEL_BACKEND=perf bash "$t" ;;
	*) run_one "$n@perf" env LOWTRACE_KERNEL_BACKEND=perf "$t" ;;
	esac
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
