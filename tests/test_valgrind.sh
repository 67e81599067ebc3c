#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the tracer's programs under valgrind (memcheck): the traced example
# with an in-process session, `lowtrace record` with its traced child,
# `lowtrace view`, and (as root) the analyses and the report on a recording
# with kernel events.  Any invalid access or definite leak fails.  Sanitizer
# builds cannot run under valgrind: there the test has no cases, and says so.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
. "$top/tests/lib/harness.sh" lt-valgrind
if [ -n "${SANITIZE:-}" ]; then
	no_cases "a sanitizer build cannot run under valgrind"
fi
if ! command -v valgrind > /dev/null 2>&1; then
	skip valgrind "not installed (scripts/install-deps.sh)"
	finish
fi
VG=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite)
check() { # name, command...
	local name=$1
	shift
	if "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"; then
		ok "$name"
	else
		fail "$name" "exit $?: $(cat "$tmp/$name.err")"
	fi
}
check valgrind_in_process_session env LOWTRACE_TRACE="$tmp/in" \
	"${VG[@]}" "$BUILD/examples/fields" 20
check valgrind_record_and_child "${VG[@]}" --trace-children=yes \
	"$BUILD/lowtrace" record -o "$tmp/rec" -- "$BUILD/tests/progs/forker" "$BUILD/examples/fields"
check valgrind_view "${VG[@]}" "$BUILD/lowtrace" view "$tmp/rec"
check valgrind_list_program "${VG[@]}" "$BUILD/lowtrace" list "$BUILD/examples/fields"
# the analyses, on a short recording with kernel events (root only)
if [ "$(id -u)" -eq 0 ] &&
	"$BUILD/lowtrace" record -o "$tmp/k" -k sched,irq,syscalls --all -- \
		"$BUILD/examples/periodic" --duration-s 0.3 > /dev/null 2>&1; then
	for a in latency sched cpu syscalls irq; do
		check "valgrind_analyze_$a" "${VG[@]}" "$BUILD/lowtrace" analyze "$a" "$tmp/k"
	done
	check valgrind_report "${VG[@]}" "$BUILD/lowtrace" report "$tmp/k" -o "$tmp/k.html"
elif [ "$(id -u)" -eq 0 ]; then
	fail valgrind_analyze "recording with -k failed"
else
	skip valgrind_analyze "kernel events need root"
fi
finish
