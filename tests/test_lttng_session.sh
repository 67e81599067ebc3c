#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_lttng_session.sh - the analyses on an LTTng session of a kernel and
# a UST trace together: a UST event as the anchor, the kernel's
# scheduling as the cause.  tests/gen_ctf.py --session writes the session
# (kernel/ of lttng-modules's layout with a state dump, ust/uid/1000/64-bit/
# of LTTng-UST's with vpid/vtid/procname contexts, each clock with its own
# offset): app-tick's app:tick is late once behind a hog that kept its CPU
# and once blocked until app-worker woke it.
#
#   view     `lowtrace view SESSION` is babeltrace2's output, event for
#            event (tests/compare_babeltrace.py), with both traces merged;
#            the events lost in a stream's empty last packet are reported
#   latency  with app:tick as the anchor, its thread is the vtid context's,
#            the hog's wait names the hog (tid, name and process: the
#            state dump's) and the block names the waker; the UST trace alone has no cause to give
#   cpu      each thread's process is the state dump's pid
#
# Needs babeltrace2 and /usr/bin/python3 (skips without them, fails under
# LOWTRACE_REQUIRE_ALL=1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
PY=/usr/bin/python3
export TZ=UTC
. "$top/tests/lib/harness.sh" lt-test-lttng-session

if ! command -v babeltrace2 > /dev/null 2>&1 || [ ! -x "$PY" ]; then
	skip lttng_session "babeltrace2 or $PY missing"
	finish
fi
d=$tmp/session
if ! "$PY" "$top/tests/gen_ctf.py" "$d" --session --periods 200 > "$tmp/gen.err" 2>&1; then
	fail gen_session "$(head -c 600 "$tmp/gen.err")"
	finish
fi

# view: babeltrace2's events, the kernel's and the UST's merged
babeltrace2 "$d" > "$tmp/bt" 2> "$tmp/bt.err" || fail view_session "babeltrace2: $(head -c 600 "$tmp/bt.err")"
"$LT" view "$d" > "$tmp/lt" 2> "$tmp/lt.err" || fail view_session "lowtrace view: $(head -c 600 "$tmp/lt.err")"
ticks=$(grep -c ' app:tick: ' "$tmp/lt")
switches=$(grep -c ' sched_switch: ' "$tmp/lt")
dump=$(grep -c ' lttng_statedump_process_state: ' "$tmp/lt")
if out=$("$PY" "$top/tests/compare_babeltrace.py" "$tmp/bt" "$tmp/lt" 2>&1) &&
	[ "$ticks" -eq 200 ] && [ "$switches" -gt 400 ] && [ "$dump" -eq 5 ]; then
	ok "view_session_like_babeltrace2 ($out)"
else
	fail view_session_like_babeltrace2 "${out:-} (app:tick $ticks, sched_switch $switches, state dump $dump)"
fi

# the events lost at the end of a stream (its empty last packet)
bt=$(sed -n 's/^WARNING: Tracer discarded \([0-9]*\) event.*/\1/p' "$tmp/bt.err" | tr '\n' ' ')
lt=$(sed -n 's/.*channel0_1: the tracer discarded \([0-9]*\) events after its last event.*/\1/p' "$tmp/lt.err" | tr '\n' ' ')
if [ "$bt" = "42 " ] && [ "$lt" = "42 " ] && [ "$(wc -l < "$tmp/lt.err")" -eq 1 ]; then
	ok view_session_reports_loss_at_end
else
	fail view_session_reports_loss_at_end "babeltrace2 '$bt', lowtrace '$lt'"$'\n'"$(cat "$tmp/bt.err" "$tmp/lt.err")"
fi

# latency: the two late ticks, worst first, each with its cause
out=$("$LT" analyze latency "$d" --anchor 'app:tick' --top 3 2>&1)
block() { # the explanation of the anchor whose late_us is $1
	printf '%s\n' "$out" | awk -v want="late_us = $1" '
		/^#[0-9]+ / { on = index($0, want) > 0 } on'
}
hog_late=$(sed -n 's/.* app:tick: .* seq = 3, late_us = \([0-9]*\) }$/\1/p' "$tmp/bt")
lock_late=$(sed -n 's/.* app:tick: .* seq = 6, late_us = \([0-9]*\) }$/\1/p' "$tmp/bt")
hog=$(block "$hog_late")
lock=$(block "$lock_late")
if printf '%s\n' "$out" | grep -q '^200 anchors app:tick;' &&
	printf '%s\n' "$out" | grep -q "^#1 app:tick at .*, tid 4243 app-tick (pid 4242): late_us = $lock_late\$" &&
	printf '%s\n' "$out" | grep -q "^#2 app:tick at .*, tid 4243 app-tick (pid 4242): late_us = $hog_late\$"; then
	ok "latency_anchors_ust_event_by_vtid ($lock_late and $hog_late us late)"
else
	fail latency_anchors_ust_event_by_vtid "late_us $lock_late and $hog_late"$'\n'"$out"
fi
if printf '%s\n' "$hog" | grep -q 'ran there meanwhile: tid 5000 hog (pid 5000) 4.000 ms (100%)' &&
	printf '%s\n' "$hog" | grep -q 'verdict: waited 4.0 ms runnable on CPU 0 behind tid 5000 hog (pid 5000)$'; then
	ok latency_names_the_hog
else
	fail latency_names_the_hog "$out"
fi
if printf '%s\n' "$lock" | grep -q 'verdict: blocked 6.0 ms after waking, until tid 4244 app-worker (pid 4242) woke it'; then
	ok latency_names_the_waker
else
	fail latency_names_the_waker "$out"
fi
# cpu: the threads' processes are the state dump's
out=$("$LT" analyze cpu "$d" 2>&1)
if printf '%s\n' "$out" | grep -Eq '^ +4243 app-tick +4242 ' &&
	printf '%s\n' "$out" | grep -Eq '^ +4244 app-worker +4242 ' &&
	printf '%s\n' "$out" | grep -Eq '^ +5000 hog +5000 '; then
	ok cpu_processes_from_state_dump
else
	fail cpu_processes_from_state_dump "$out"
fi
# without the kernel trace the same anchor has no cause
out=$("$LT" analyze latency "$d/ust" --anchor 'app:tick' --top 1 2>&1)
if printf '%s\n' "$out" | grep -q 'no scheduling events for tid 4243' &&
	printf '%s\n' "$out" | grep -q 'verdict: unknown'; then
	ok latency_ust_alone_has_no_cause
else
	fail latency_ust_alone_has_no_cause "$out"
fi
finish
