#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_follow.sh - `lowtrace view --follow DIR` on recordings of
# examples/periodic (a tick every 10 ms for 3 s): started before DIR
# exists, it prints lines while the recorder runs, and once both end its
# output is `lowtrace view DIR`'s of the finished trace, line for line,
# with -e and a condition too (recorded on CLOCK_MONOTONIC, which the
# recorder does not calibrate again at the end; on the cycle counter the
# lines differ by some ns of time, which a note says); started after the
# end it prints the whole trace; a SIGKILLed recorder ends it with what
# is on disk; a missing or corrupt metadata is an error.  As root, the
# same with the kernel's scheduling events.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
PERIODIC=$B/examples/periodic
export TZ=UTC
. "$top/tests/lib/harness.sh" lt-test-follow

if [ ! -x "$LT" ] || [ ! -x "$PERIODIC" ]; then
	fail build "no $LT or $PERIODIC (run make first)"
	finish
fi

# follow NAME DIR [view options...]: `view --follow` in the background,
# its output in $tmp/NAME.out and .err, its exit status in .rc
follow() {
	local name=$1
	shift
	(
		timeout 30 "$LT" view --follow "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
		echo $? > "$tmp/$name.rc"
	) &
}

# waits up to 20 s for NAME's exit status
follow_rc() {
	local i
	for i in $(seq 200); do
		[ -s "$tmp/$1.rc" ] && break
		sleep 0.1
	done
	cat "$tmp/$1.rc" 2> /dev/null || echo hung
}

# same NAME FILE1 FILE2: ok NAME when the files are equal and not empty
same() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then
		ok "$1"
	else
		fail "$1" "$(wc -l < "$2") lines against $(wc -l < "$3"):"$'\n'"$(diff "$2" "$3" | head -n 20)"
	fi
}

# (1), (2), (4): three followers started before the directory exists, one
# with a condition; beside them, a recording on the cycle counter
d=$tmp/live
cond='demo:tick if seq >= 150,demo:nothing*'
follow plain "$d"
follow cond "$d" -e "$cond"
follow tsc "$tmp/tsc"
# each says it waits before the recorders create the directories
for i in $(seq 100); do
	[ "$(cat "$tmp"/{plain,cond,tsc}.err 2> /dev/null | grep -c waiting)" = 3 ] && break
	sleep 0.05
done
LOWTRACE_CLOCK=monotonic "$LT" record -o "$d" -- "$PERIODIC" --duration-s 3 \
	> /dev/null 2> "$tmp/rec.err" &
rec=$!
"$LT" record -o "$tmp/tsc" -- "$PERIODIC" --duration-s 3 > /dev/null 2>&1 &
rec2=$!
# the kernel's events too (root only)
kern=0
if [ "$(id -u)" -eq 0 ]; then
	kern=1
	follow kern "$tmp/kern"
	for i in $(seq 100); do
		grep -q waiting "$tmp/kern.err" 2> /dev/null && break
		sleep 0.05
	done
	LOWTRACE_CLOCK=monotonic "$LT" record -k sched -o "$tmp/kern" -- "$PERIODIC" \
		--duration-s 3 > /dev/null 2> "$tmp/rec_kern.err" &
	rec3=$!
fi
live=0
while kill -0 "$rec" 2> /dev/null; do
	[ -s "$tmp/plain.out" ] && [ ! -s "$tmp/plain.rc" ] && live=1
	sleep 0.1
done
wait "$rec" || fail record "lowtrace record failed: $(cat "$tmp/rec.err")"
wait "$rec2"
[ "$kern" = 1 ] && wait "$rec3"
rc=$(follow_rc plain)
"$LT" view "$d" > "$tmp/view.out"
if [ "$live" = 1 ]; then
	ok prints_while_recording
else
	fail prints_while_recording "no line before the recorder exited"
fi
if [ "$rc" = 0 ]; then
	same equals_view_of_the_finished_trace "$tmp/plain.out" "$tmp/view.out"
else
	fail equals_view_of_the_finished_trace "exit status $rc: $(cat "$tmp/plain.err")"
fi
if [ "$(grep -c 'waiting for .*live to be created' "$tmp/plain.err")" = 1 ]; then
	ok waits_for_the_directory
else
	fail waits_for_the_directory "stderr:"$'\n'"$(cat "$tmp/plain.err")"
fi

rc=$(follow_rc cond)
"$LT" view "$d" -e "$cond" > "$tmp/view_cond.out"
n=$(wc -l < "$tmp/view_cond.out")
all=$(wc -l < "$tmp/view.out")
if [ "$rc" = 0 ] && [ "$n" -gt 0 ] && [ "$n" -lt "$all" ]; then
	same condition_equals_view "$tmp/cond.out" "$tmp/view_cond.out"
else
	fail condition_equals_view "exit status $rc, $n of $all events: $(cat "$tmp/cond.err")"
fi

# the cycle counter: the same events, their times off by a few ns when
# the clock was calibrated again (and events of one ns maybe in another
# order), and then a note says so
rc=$(follow_rc tsc)
"$LT" view "$tmp/tsc" > "$tmp/view_tsc.out"
cut -d' ' -f3- "$tmp/tsc.out" > "$tmp/tsc.cut"
cut -d' ' -f3- "$tmp/view_tsc.out" > "$tmp/view_tsc.cut"
if [ "$rc" != 0 ]; then
	fail cycle_counter_same_events "exit status $rc: $(cat "$tmp/tsc.err")"
elif ! cmp -s "$tmp/tsc.out" "$tmp/view_tsc.out" && ! grep -q 'calibrated again' "$tmp/tsc.err"; then
	fail cycle_counter_same_events "times differ without a note; the first lines that differ (follow <, view >):"$'\n'"$(diff "$tmp/tsc.out" "$tmp/view_tsc.out" | head -12)"
elif cmp -s "$tmp/tsc.out" "$tmp/view_tsc.out"; then
	ok cycle_counter_same_events
else
	# calibrated again: events of streams a ns apart may also change
	# places, so the same lines in any order
	sort "$tmp/tsc.cut" > "$tmp/tsc.sorted"
	sort "$tmp/view_tsc.cut" > "$tmp/view_tsc.sorted"
	same cycle_counter_same_events "$tmp/tsc.sorted" "$tmp/view_tsc.sorted"
fi

if [ "$kern" = 0 ]; then
	skip kernel_events_equal_view "kernel events need root"
else
	rc=$(follow_rc kern)
	"$LT" view "$tmp/kern" > "$tmp/view_kern.out"
	if [ "$rc" != 0 ]; then
		fail kernel_events_equal_view "exit status $rc: $(cat "$tmp/kern.err" "$tmp/rec_kern.err")"
	elif ! grep -q ' sched:sched_switch: ' "$tmp/view_kern.out"; then
		fail kernel_events_equal_view "no sched_switch in the trace: $(cat "$tmp/rec_kern.err")"
	else
		same kernel_events_equal_view "$tmp/kern.out" "$tmp/view_kern.out"
	fi
fi

# (3) after the end: the whole trace, at once
rc=0
timeout 20 "$LT" view --follow "$d" > "$tmp/after.out" 2> "$tmp/after.err" || rc=$?
if [ "$rc" = 0 ]; then
	same after_the_end_prints_it_all "$tmp/after.out" "$tmp/view.out"
else
	fail after_the_end_prints_it_all "exit status $rc: $(cat "$tmp/after.err")"
fi

# (5) a SIGKILLed recorder: the follower ends with what is on disk
d=$tmp/killed
"$LT" record -o "$d" -- "$PERIODIC" --duration-s 20 > /dev/null 2>&1 &
rec=$!
follow killed "$d"
sleep 2.5
child=$(pgrep -P "$rec")
{
	kill -KILL "$rec"
	wait "$rec"
} 2> /dev/null
rc=$(follow_rc killed)
[ -n "$child" ] && kill "$child" 2> /dev/null
vrc=0
"$LT" view "$d" > "$tmp/view_killed.out" 2> /dev/null || vrc=$?
if [ "$rc" = hung ]; then
	fail killed_recorder_ends_the_follower "still following 20 s after the kill"
elif [ "$rc" = 0 ] && [ "$vrc" = 0 ]; then
	same killed_recorder_ends_the_follower "$tmp/killed.out" "$tmp/view_killed.out"
else
	fail killed_recorder_ends_the_follower "exit status $rc (view's $vrc): $(cat "$tmp/killed.err")"
fi

# (6) no metadata, a corrupt one: an error naming it
mkdir "$tmp/empty" "$tmp/corrupt"
echo 'trace { major = 1; minor = ' > "$tmp/corrupt/metadata"
row 1 'empty/metadata: No such file' timeout 20 "$LT" view --follow "$tmp/empty"
row 1 'corrupt/metadata:[0-9]' timeout 20 "$LT" view --follow "$tmp/corrupt"
row 1 'does not take --stats' "$LT" view --follow "$tmp/corrupt" --stats
rows_end metadata_missing_or_corrupt_is_an_error

finish
