#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_lttng_ust.sh - `lowtrace view` beside babeltrace2 on LTTng-UST
# traces that lttng-tools records here: tests/lttng/ust_fields (every
# field type LTTng-UST has, two threads) traced with per-UID buffers and
# the contexts vpid, vtid and procname, then with per-PID buffers and the
# contexts vpid, vtid and ip, each compared event for event
# (tests/compare_babeltrace.py: time, name, CPU, contexts, every value),
# the session's directory given whole (`lowtrace view` finds the trace in
# the tree); a snapshot session (overwrite mode, `lttng snapshot record`)
# read alike; a recording in discard mode with small sub-buffers, whose
# lost events lowtrace reports as babeltrace2 does; a recording with the
# perf counters of software events as contexts (page faults, task clock,
# context switches), where the kernel lets lttng open them.
#
# tests/lttng/record.sh records them privately: lttng-sessiond in a mount
# namespace of its own (tmpfs on /run/lttng and /dev/shm) with LTTNG_HOME
# in a temporary directory, killed and removed at the end.  Needs root, lttng-tools, liblttng-ust-dev
# and babeltrace2 (skips without them, fails under LOWTRACE_REQUIRE_ALL=1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
PY=/usr/bin/python3
export TZ=UTC

. "$top/tests/lib/harness.sh" lt-test-lttng-ust
. "$top/tests/lib/compare.sh"
why=
[ "$(id -u)" -eq 0 ] || why="needs root (lttng-sessiond in a mount namespace)"
for c in lttng lttng-sessiond babeltrace2 unshare pkg-config; do
	[ -z "$why" ] && ! command -v "$c" > /dev/null 2>&1 && why="no $c"
done
[ -z "$why" ] && ! pkg-config --exists lttng-ust && why="no liblttng-ust-dev"
[ -z "$why" ] && [ ! -x "$PY" ] && why="no $PY"
if [ -n "$why" ]; then
	skip lttng_ust_traces "$why"
	finish
fi
# name, then the environment record.sh takes (snapshot, discard mode,
# sub-buffers) and its arguments
for r in "uid - 300 256K --buffers-uid vpid vtid procname" \
	"pid - 300 256K --buffers-pid vpid vtid ip" \
	"snap LT_REC_SNAPSHOT=1 2000 8K --buffers-uid vpid vtid procname" \
	"lost LT_REC_DISCARD=1,LT_REC_NUM_SUBBUF=2 3000 4K --buffers-uid vpid vtid"; do
	# shellcheck disable=SC2086
	set -- $r
	name=$1 env=$2
	shift 2
	[ "$env" = - ] && env=
	# shellcheck disable=SC2086
	if ! timeout 120 env ${env//,/ } bash "$top/tests/lttng/record.sh" "$tmp/$name" "$@" \
		> "$tmp/rec.log" 2>&1; then
		fail lttng_record "$name: $(tail -c 1500 "$tmp/rec.log")"
		finish
	fi
done
# LTTng-UST's contexts reach lowtrace's output
has_context() {
	grep -q 'procname = "ust_fields"\|vtid = ' "$tmp/$1.lt" && return
	fail "compare_$1" "no context in lowtrace's output: $(head -c 400 "$tmp/$1.lt")"
	return 1
}
compare() { # name, session directory
	bt_compare "$1" "$2" '' '' has_context
}
compare ust_per_uid "$tmp/uid"
compare ust_per_pid "$tmp/pid"
# a snapshot session: the last of the overwritten sub-buffers, in
# snapshot-1-*/ under the output.  On a loaded machine the application
# outruns the overwrite: both tools then warn of the events the tracer
# discarded, and read the rest alike
bt_compare ust_snapshot "$tmp/snap" \
	'^WARNING: Tracer \(may have \)\{0,1\}discarded ' \
	'the tracer discarded [0-9]* events' has_context
if ls -d "$tmp"/snap/snapshot-1-*/ust/uid > /dev/null 2>&1; then
	ok ust_snapshot_is_a_snapshot
else
	fail ust_snapshot_is_a_snapshot "$(find "$tmp/snap" | head -20)"
fi
# discard mode with two small sub-buffers: events lost, each loss
# reported as babeltrace2 reports it (its warnings and lowtrace's: as
# many, the same counts), the events read alike
babeltrace2 "$tmp/lost" > "$tmp/lost.bt" 2> "$tmp/lost.bt.err"
"$LT" view "$tmp/lost" > "$tmp/lost.lt" 2> "$tmp/lost.lt.err"
bt=$(sed -n 's/^WARNING: Tracer discarded \([0-9]*\) event.*/\1/p' "$tmp/lost.bt.err" | sort -n | tr '\n' ' ')
lt=$(sed -n 's/.*the tracer discarded \([0-9]*\) events.*/\1/p' "$tmp/lost.lt.err" | sort -n | tr '\n' ' ')
if [ -n "$bt" ] && [ "$bt" = "$lt" ] &&
	out=$("$PY" "$top/tests/compare_babeltrace.py" "$tmp/lost.bt" "$tmp/lost.lt" 2>&1); then
	ok "ust_discarded_like_babeltrace2 (lost $bt; $out)"
else
	fail ust_discarded_like_babeltrace2 "babeltrace2 '$bt', lowtrace '$lt' ${out:-}"$'\n'"$(cat "$tmp/lost.bt.err" "$tmp/lost.lt.err")"
fi
# perf counters as contexts (software events, which this VM allows; a
# machine without perf events skips the case)
if timeout 120 bash "$top/tests/lttng/record.sh" "$tmp/perf" 300 256K --buffers-uid vtid \
	perf:thread:page-fault perf:thread:task-clock \
	perf:thread:context-switches > "$tmp/rec.log" 2>&1; then
	has_counter() {
		grep -q 'perf_thread_task_clock = [1-9]' "$tmp/$1.lt" && return
		fail "compare_$1" "no task-clock counter in lowtrace's output: $(head -c 400 "$tmp/$1.lt")"
		return 1
	}
	bt_compare ust_perf_counters "$tmp/perf" '' '' has_counter
elif grep -qi 'perf' "$tmp/rec.log"; then
	skip compare_ust_perf_counters "lttng cannot add perf counter contexts here: $(tail -c 300 "$tmp/rec.log")"
else
	fail lttng_record "perf: $(tail -c 1500 "$tmp/rec.log")"
fi
# the analyses take an LTTng-UST event's thread from its vtid context:
# four threads (two processes of two), so four intervals fewer than events
out=$("$LT" analyze jitter "$tmp/uid" --event 'ltt_fields:ints' --period 1ms 2>&1)
if printf '%s\n' "$out" | grep -q '^1200 ltt_fields:ints events, 1196 intervals'; then
	ok jitter_threads_by_vtid
else
	fail jitter_threads_by_vtid "$out"
fi
n=$(find "$tmp/pid" -name metadata | wc -l)
if [ "$n" -eq 2 ]; then
	ok "per_pid_session_has_two_traces_merged"
else
	fail per_pid_session_has_two_traces_merged "$n traces in $(find "$tmp/pid")"
fi
finish
