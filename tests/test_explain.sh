#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_explain.sh - `lowtrace record --explain`: each snapshot a trigger
# takes is explained as it is written, from a flight recorder that holds
# the kernel's scheduling (--channel kernel:mode=overwrite).
#
#   hog     examples/periodic beside a SCHED_FIFO hog on its CPU, a trigger
#           on demo:late: the first explanation comes while the recording
#           runs and its verdict names the hog
#   lock    periodic --lock-holder: the verdict names the holder
#   holdoff a burst of late ticks within the hold-off: one snapshot, one
#           explanation
#   code    lt_trigger() in the code, explained by --anchor
#   bad     --anchor without --explain, a bad --anchor
#
# Kernel events need root: skips otherwise (fails under
# LOWTRACE_REQUIRE_ALL=1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
EX=$B/examples
. "$top/tests/lib/harness.sh" lt-test-explain

row 2 '^lowtrace: record: --anchor goes with --explain' \
	"$LT" record -o "$tmp/bad" --anchor demo:late -- true
row 2 "^lowtrace: record: --anchor demo:late if late_us >: bad condition" \
	"$LT" record -o "$tmp/bad" --explain --anchor 'demo:late if late_us >' -- true
rows_end test_explain_bad_options

if [ "$(id -u)" -ne 0 ]; then
	for t in hog lock holdoff code; do
		skip "test_explain_$t" "kernel events need root"
	done
	finish
fi
cpu=$(($(nproc) - 1))
fr=(-k sched,irq --channel kernel:mode=overwrite,subbuf-size=256K,subbufs=4
	--channel default:mode=overwrite,subbuf-size=64K,subbufs=4)

# hog: the verdict of the late tick that fired, printed while recording
# (the explanation comes before the recording's summary line)
"$LT" record -o "$tmp/hog" "${fr[@]}" --explain \
	--trigger 'demo:late if late_us > 5000 -> snapshot' -- sh -c \
	"$EX/disturb --hog --cpu $cpu --duration-s 2 & $EX/periodic --cpu $cpu --duration-s 1.5; wait" \
	> "$tmp/hog.out" 2>&1
hog=$(sed -n 's/^disturb: hog tid \([0-9]*\).*/\1/p' "$tmp/hog.out")
first=$(grep -n -m1 '^lowtrace: explain: ' "$tmp/hog.out" | cut -d: -f1)
summary=$(grep -n -m1 '^lowtrace: recorded ' "$tmp/hog.out" | cut -d: -f1)
verdict=$(sed -n "${first:-1},\$p" "$tmp/hog.out" | grep -m1 'verdict:')
if [ -n "$hog" ] && [ -n "$first" ] && [ -n "$summary" ] && [ "$first" -lt "$summary" ] &&
	grep -q "^lowtrace: explain: $tmp/hog/snapshot-0 (trigger demo:late):" "$tmp/hog.out" &&
	grep -q '^the last of [0-9]* anchors demo:late if late_us > 5000' "$tmp/hog.out" &&
	echo "$verdict" | grep -q "waited .* ms runnable on CPU $cpu behind tid $hog disturb-hog"; then
	ok test_explain_hog
else
	fail test_explain_hog "hog tid '$hog', explanation at line '$first', summary at '$summary':
$(cat "$tmp/hog.out")"
fi
# each snapshot explained once, and the snapshot holds the kernel's
# scheduling that the verdict came from
snaps=$(sed -n 's/.* \([0-9]*\) snapshots, .*/\1/p' "$tmp/hog.out")
explained=$(grep -c '^lowtrace: explain: ' "$tmp/hog.out")
if [ -n "$snaps" ] && [ "$snaps" -ge 1 ] && [ "$snaps" = "$explained" ] &&
	ls "$tmp/hog/snapshot-0"/kernel_* > /dev/null 2>&1; then
	ok test_explain_each_snapshot_once
else
	fail test_explain_each_snapshot_once "$snaps snapshots, $explained explained: $(ls "$tmp/hog/snapshot-0")"
fi

# lock: periodic's own lock-holder thread keeps the timer waiting
"$LT" record -o "$tmp/lock" "${fr[@]}" --explain \
	--trigger 'demo:late if late_us > 5000 -> snapshot' -- \
	"$EX/periodic" --cpu "$cpu" --duration-s 1.5 --lock-holder \
	> "$tmp/lock.out" 2>&1
holder=$(sed -n 's/^periodic: lock-holder tid \([0-9]*\).*/\1/p' "$tmp/lock.out")
verdict=$(grep -m1 'verdict:' "$tmp/lock.out")
if [ -n "$holder" ] && echo "$verdict" | grep -q "blocked .* until tid $holder lock-holder"; then
	ok test_explain_lock_holder
else
	fail test_explain_lock_holder "holder tid '$holder': $(cat "$tmp/lock.out")"
fi

# holdoff: every late tick of a 1.5 s run within one hold-off
"$LT" record -o "$tmp/hold" "${fr[@]}" --explain --trigger-holdoff 60000 \
	--trigger 'demo:late if late_us > 5000 -> snapshot' -- sh -c \
	"$EX/disturb --hog --cpu $cpu --duration-s 2 & $EX/periodic --cpu $cpu --duration-s 1.5; wait" \
	> "$tmp/hold.out" 2>&1
late=$(sed -n 's/^periodic: .* ticks, \([0-9]*\) late.*/\1/p' "$tmp/hold.out")
if [ "${late:-0}" -ge 2 ] && grep -q ' 1 snapshots, 1 triggers' "$tmp/hold.out" &&
	[ "$(grep -c '^lowtrace: explain: ' "$tmp/hold.out")" = 1 ] && [ ! -e "$tmp/hold/snapshot-1" ]; then
	ok "test_explain_holdoff_one_snapshot ($late late ticks)"
else
	fail test_explain_holdoff_one_snapshot "$(cat "$tmp/hold.out")"
fi

# code: lt_trigger("boom") after 300 sleeps, explained by its last step
"$LT" record -o "$tmp/code" "${fr[@]}" --explain --anchor 'trig:step' -- \
	"$B/tests/progs/trig" 1 0 300 > "$tmp/code.out" 2>&1
if grep -q "^lowtrace: explain: $tmp/code/snapshot-0 (trigger boom):" "$tmp/code.out" &&
	grep -q '^the last of 301 anchors trig:step,' "$tmp/code.out" &&
	grep -q '^#1 trig:step at +[0-9.]* s, tid [0-9]* trig (pid [0-9]*)$' "$tmp/code.out" &&
	grep -q '   verdict: ' "$tmp/code.out"; then
	ok test_explain_code_trigger_by_anchor
else
	fail test_explain_code_trigger_by_anchor "$(cat "$tmp/code.out")"
fi
finish
