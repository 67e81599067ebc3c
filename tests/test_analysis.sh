#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_analysis.sh - `lowtrace analyze` and `lowtrace export` on real
# recordings of examples/periodic beside each disturbance:
#
#   hog   disturb --hog pinned to periodic's CPU: the first verdict of
#         `analyze latency` names the hog thread (its tid and name)
#   lock  periodic --lock-holder: the first verdict names the holder's tid,
#         and the line after it shows the holder blocked (asleep with the
#         lock) for most of the wait
#   chain periodic --holder-waits: the holder waits, lock held, for its
#         io-worker thread; the chain goes two steps back, to the worker
#   softirq tests/progs/netsoft's loopback traffic: the verdict names
#         the irq/softirq time on its CPU (NET_RX, as analyze irq says)
#   jitter ranks an expiry at least 5 ms late in the hog recording
#   sched  shows periodic waiting more than 5 ms for the CPU there
#   export writes Chrome JSON that tests/check_chrome_trace.py accepts
#
# Kernel events need root: skips otherwise (fails under
# LOWTRACE_REQUIRE_ALL=1).  Each recording lasts about 1.5 s.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
EX=$B/examples
PY=/usr/bin/python3
. "$top/tests/lib/harness.sh" lt-test-analysis

# errors that need no recording
expect_error test_analyze_missing_trace_is_an_error nonzero '^lowtrace: analyze: cannot open trace' \
	"$LT" analyze latency "$tmp/none"
expect_error test_analyze_bad_anchor_condition_is_an_error nonzero '^lowtrace: analyze: --anchor: bad condition' \
	"$LT" analyze latency "$tmp" --anchor 'demo:tick if late_us >'

if [ "$(id -u)" -ne 0 ]; then
	for t in hog lock lock_chain chain_two_steps softirq_is_named_first jitter anchor_condition anchor_condition_and_or sched export; do
		skip "test_$t" "kernel events need root"
	done
	finish
fi
cpu=$(($(nproc) - 1))

# hog: record periodic with a SCHED_FIFO hog on its CPU
"$LT" record -o "$tmp/hog" -k sched,irq --all -- sh -c \
	"$EX/disturb --hog --cpu $cpu --duration-s 2 & $EX/periodic --cpu $cpu --duration-s 1.5; wait" \
	> "$tmp/hog.out" 2>&1
hog=$(sed -n 's/^disturb: hog tid \([0-9]*\).*/\1/p' "$tmp/hog.out")
"$LT" analyze latency "$tmp/hog" --top 3 > "$tmp/hog.txt" 2>&1
verdict=$(grep -m1 'verdict:' "$tmp/hog.txt")
if [ -n "$hog" ] && echo "$verdict" | grep -q "waited .* ms runnable on CPU $cpu behind tid $hog disturb-hog"; then
	ok test_hog_is_named_first
else
	fail test_hog_is_named_first "hog tid '$hog', got: $(cat "$tmp/hog.out" "$tmp/hog.txt")"
fi

# lock: periodic's own lock-holder thread
"$LT" record -o "$tmp/lock" -k sched,irq --all -- \
	"$EX/periodic" --cpu "$cpu" --duration-s 1.5 --lock-holder \
	> "$tmp/lock.out" 2>&1
holder=$(sed -n 's/^periodic: lock-holder tid \([0-9]*\).*/\1/p' "$tmp/lock.out")
"$LT" analyze latency "$tmp/lock" --top 3 > "$tmp/lock.txt" 2>&1
verdict=$(grep -m1 'verdict:' "$tmp/lock.txt")
if [ -n "$holder" ] && echo "$verdict" | grep -q "blocked .* until tid $holder lock-holder"; then
	ok test_lock_holder_is_named_first
else
	fail test_lock_holder_is_named_first "holder tid '$holder', got: $(cat "$tmp/lock.out" "$tmp/lock.txt")"
fi
# one step further back: the holder slept (blocked) with the lock held.
# Any of the three worst: the first hold of a program slowed by a
# sanitizer may be spent running (the sanitizer's own start-up work)
chain=$(grep '^   meanwhile ' "$tmp/lock.txt" | grep "meanwhile tid $holder lock-holder")
held=$(grep '^   meanwhile ' "$tmp/lock.txt" | grep "meanwhile tid $holder lock-holder" |
	sed -n 's/.*, blocked \([0-9.]*\) ms.*/\1/p' | sort -n | tail -n 1)
if [ -n "$holder" ] && [ -n "$chain" ] &&
	awk -v b="$held" 'BEGIN { exit !(b != "" && b >= 10) }'; then
	ok "test_lock_chain_shows_the_holder_asleep ($held ms)"
else
	fail test_lock_chain_shows_the_holder_asleep "chain '$chain': $(cat "$tmp/lock.txt")"
fi

# two steps back: the holder waits, lock held, for its io-worker thread;
# the chain names the holder, then the worker that ended its block
"$LT" record -o "$tmp/wait2" -k sched,irq --all -- \
	"$EX/periodic" --cpu "$cpu" --duration-s 1.5 --holder-waits \
	> "$tmp/wait2.out" 2>&1
holder=$(sed -n 's/^periodic: lock-holder tid \([0-9]*\).*/\1/p' "$tmp/wait2.out")
worker=$(sed -n 's/^periodic: io-worker tid \([0-9]*\).*/\1/p' "$tmp/wait2.out")
"$LT" analyze latency "$tmp/wait2" --top 1 > "$tmp/wait2.txt" 2>&1
if [ -n "$holder" ] && [ -n "$worker" ] &&
	grep -q "verdict: blocked .* until tid $holder lock-holder" "$tmp/wait2.txt" &&
	grep -q "^   meanwhile tid $holder lock-holder .*, blocked [1-9][0-9.]* ms" "$tmp/wait2.txt" &&
	grep -q "^   its longest block, [0-9.]* ms, ended when tid $worker io-worker .* woke it" "$tmp/wait2.txt" &&
	grep -q "^   meanwhile tid $worker io-worker " "$tmp/wait2.txt"; then
	ok test_chain_two_steps
else
	fail test_chain_two_steps "holder '$holder', worker '$worker': $(cat "$tmp/wait2.out" "$tmp/wait2.txt")"
fi

# softirq: a thread on $cpu sends itself UDP datagrams over the loopback
# device (the NET_RX softirq runs on its CPU), then traces its anchor: the
# verdict names the irq/softirq time, which analyze irq finds as NET_RX.
# The recorder runs on the other CPUs, where there are: a recorder slowed
# by a sanitizer would otherwise take $cpu from the thread for longer than
# the softirqs do, and be named first
others=$(awk -v c="$cpu" 'BEGIN { s = ""; for (i = 0; i < c; i++) s = s (s == "" ? "" : ",") i; print s }')
pin=()
[ -n "$others" ] && command -v taskset > /dev/null && pin=(taskset -c "$others")
"${pin[@]}" "$LT" record -o "$tmp/net" -k sched,irq --all -- \
	"$B/tests/progs/netsoft" "$cpu" 5 3 > "$tmp/net.out" 2>&1
# (any of its three bursts: another process of the machine may take the
# CPU from one of them for longer than its softirqs, and be named first)
"$LT" analyze latency "$tmp/net" --anchor netsoft:late --top 3 > "$tmp/net.txt" 2>&1
"$LT" analyze irq "$tmp/net" > "$tmp/netirq.txt" 2>&1
soft=$(sed -n 's/^   irq [0-9.]* ms, softirq \([0-9.]*\) ms on CPU .*/\1/p' "$tmp/net.txt" |
	sort -n | tail -n 1)
if grep -q "verdict: [0-9.]* ms in irq/softirq on CPU $cpu\$" "$tmp/net.txt" &&
	awk -v s="$soft" 'BEGIN { exit !(s != "" && s >= 0.5) }' &&
	grep -q '^softirq .* NET_RX ' "$tmp/netirq.txt"; then
	ok "test_softirq_is_named_first ($soft ms)"
else
	fail test_softirq_is_named_first "$(cat "$tmp/net.out" "$tmp/net.txt" "$tmp/netirq.txt")"
fi

# jitter: the worst expiry of the hog recording is > 5 ms late
"$LT" analyze jitter "$tmp/hog" --event demo:tick --period 10ms > "$tmp/jit.txt" 2>&1
late=$(sed -n 's/^#1 .* ms after the previous one, \([0-9.]*\) ms late$/\1/p' "$tmp/jit.txt")
if [ -n "$late" ] && awk -v l="$late" 'BEGIN { exit !(l > 5) }'; then
	ok test_jitter_ranks_the_late_expiry_first
else
	fail test_jitter_ranks_the_late_expiry_first "$(cat "$tmp/jit.txt")"
fi

# an anchor given by a condition finds the same worst expiry
"$LT" analyze latency "$tmp/hog" --top 1 --anchor 'demo:tick if late_us > 5000' \
	> "$tmp/cond.txt" 2>&1
a=$(grep -m1 '^#1' "$tmp/hog.txt" | sed 's/.*late_us = //')
b=$(grep -m1 '^#1' "$tmp/cond.txt" | sed 's/.*late_us = //')
if [ -n "$a" ] && [ "$a" = "$b" ] && grep -q "behind tid $hog" "$tmp/cond.txt"; then
	ok test_anchor_condition
else
	fail test_anchor_condition "demo:late '$a', condition '$b': $(cat "$tmp/cond.txt")"
fi
# the same with record's condition language: || and parentheses, &&
"$LT" analyze latency "$tmp/hog" --top 1 \
	--anchor 'demo:tick if (late_us > 5000 || late_us < -1000000000) && tid != 0' \
	> "$tmp/cond2.txt" 2>&1
c=$(grep -m1 '^#1' "$tmp/cond2.txt" | sed 's/.*late_us = //')
if [ -n "$a" ] && [ "$a" = "$c" ] && grep -q "behind tid $hog" "$tmp/cond2.txt"; then
	ok test_anchor_condition_and_or
else
	fail test_anchor_condition_and_or "demo:late '$a', condition '$c': $(cat "$tmp/cond2.txt")"
fi

# sched: periodic's worst wait for the CPU is the hog's burst
"$LT" analyze sched "$tmp/hog" --top 1000 > "$tmp/sched.txt" 2>&1
# (periodic's threads: the timer thread and the main one; the largest)
max=$(awk '$2 == "periodic" && $5 + 0 > m + 0 { m = $5 } END { print m }' "$tmp/sched.txt")
if [ -n "$max" ] && awk -v m="$max" 'BEGIN { exit !(m > 5000) }'; then
	ok test_sched_shows_the_wait_behind_the_hog
else
	fail test_sched_shows_the_wait_behind_the_hog "$(cat "$tmp/sched.txt")"
fi

# export
if [ ! -x "$PY" ]; then
	skip test_export_chrome "no $PY"
elif "$LT" export "$tmp/hog" --format=chrome -o "$tmp/t.json" > "$tmp/exp.out" 2>&1 &&
	"$PY" -m json.tool "$tmp/t.json" > /dev/null 2>> "$tmp/exp.out" &&
	"$PY" "$top/tests/check_chrome_trace.py" "$tmp/t.json" >> "$tmp/exp.out" 2>&1 &&
	grep -q '"ph":"i","s":"t","name":"demo:late"' "$tmp/t.json" &&
	grep -q '"name":"disturb-hog"' "$tmp/t.json"; then
	ok test_export_chrome
else
	fail test_export_chrome "$(cat "$tmp/exp.out")"
fi
finish
