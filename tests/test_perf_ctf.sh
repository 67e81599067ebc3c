#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_perf_ctf.sh - `lowtrace view` and the analyses on CTF traces that
# perf's converter writes (`perf data convert --to-ctf`), a CTF 1.8 writer
# lowtrace shares no code with: a system-wide recording of the
# scheduler's, the system calls' and the softirqs' tracepoints around a
# small workload (strings, __data_loc strings, arrays of u64, its
# synthesized comm/mmap/fork events with --all), compared event for event
# with babeltrace2 (tests/compare_babeltrace.py); then `analyze syscalls`
# and `analyze sched` on it name the workload's sleeps and threads.
# Needs root, perf with CTF support and babeltrace2 (skips without them,
# fails under LOWTRACE_REQUIRE_ALL=1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
PY=/usr/bin/python3
export TZ=UTC

. "$top/tests/lib/harness.sh" lt-test-perf-ctf
. "$top/tests/lib/compare.sh"
why=
[ "$(id -u)" -eq 0 ] || why="needs root (system-wide tracepoints)"
for c in perf babeltrace2; do
	[ -z "$why" ] && ! command -v "$c" > /dev/null 2>&1 && why="no $c"
done
[ -z "$why" ] && [ ! -x "$PY" ] && why="no $PY"
if [ -n "$why" ]; then
	skip perf_ctf "$why"
	finish
fi

# the workload: three 20 ms sleeps and a directory listing, in a shell
# whose children exec
events=sched:sched_switch,sched:sched_waking,sched:sched_wakeup,sched:sched_process_fork,sched:sched_process_exec,raw_syscalls:sys_enter,raw_syscalls:sys_exit,irq:softirq_entry,irq:softirq_exit
if ! perf record -q -o "$tmp/perf.data" -e "$events" -a -- \
	sh -c 'for i in 1 2 3; do ls / > /dev/null; sleep 0.02; done' \
	> "$tmp/rec.log" 2>&1; then
	fail perf_record "$(tail -c 1500 "$tmp/rec.log")"
	finish
fi
if ! perf data convert -i "$tmp/perf.data" --to-ctf "$tmp/ctf" --all \
	> "$tmp/conv.log" 2>&1 || [ ! -s "$tmp/ctf/metadata" ]; then
	# a perf built without libbabeltrace says so here
	skip perf_ctf "perf data convert --to-ctf failed: $(tail -c 600 "$tmp/conv.log")"
	finish
fi

# every event, time, CPU and value as babeltrace2 reads them
has_perf_fields() {
	if ! grep -q 'sched:sched_process_exec: .*filename = "' "$tmp/$1.lt" ||
		! grep -q 'raw_syscalls:sys_enter: .*args = \[ \[0\] = ' "$tmp/$1.lt" ||
		! grep -q 'perf_comm: ' "$tmp/$1.lt"; then
		fail "compare_$1" "an exec's file name, a system call's arguments or perf's comm events are missing from lowtrace's output: $(head -c 600 "$tmp/$1.lt")"
		return 1
	fi
}
bt_compare perf_all "$tmp/ctf" "" "" has_perf_fields

# the analyses on perf's names and fields: the workload's three sleeps
# are clock_nanosleep calls of 20 ms or more, its threads are named
out=$("$LT" analyze syscalls "$tmp/ctf" 2>&1)
row=$(printf '%s\n' "$out" | awk '$1 == "clock_nanosleep"')
read -r _ calls _ _ _ max _ <<< "${row:-x 0 0 0 0 0}"
if [ "${calls:-0}" -ge 3 ] && awk -v m="$max" 'BEGIN { exit !(m >= 20000) }'; then
	ok "analyze_syscalls (clock_nanosleep: $calls calls, longest $max us)"
else
	fail analyze_syscalls "no three clock_nanosleep calls of 20 ms: $out"
fi
out=$("$LT" analyze sched "$tmp/ctf" 2>&1)
if printf '%s\n' "$out" | awk '$2 == "sleep" { found = 1 } END { exit !found }'; then
	ok "analyze_sched (the workload's sleep threads woken)"
else
	fail analyze_sched "no thread named sleep: $out"
fi
finish
