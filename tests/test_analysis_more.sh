#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_analysis_more.sh - `lowtrace analyze cpu`, `analyze syscalls` and
# `analyze irq` on real recordings, each checked against what the
# recorded program did and against the raw events `lowtrace view` prints:
#
#   cpu       a SCHED_FIFO hog pinned to one CPU spinning 10 bursts of
#             30 ms: its CPU time is 250-450 ms, nearly all on that CPU;
#             each CPU's busy + idle + unknown time is the trace's span
#   syscalls  ten `sleep 0.02` recorded with -k syscalls alone (the
#             process tree is followed through its forks all the same):
#             clock_nanosleep is timed ten times, mean and worst 20-60 ms;
#             every sys_exit is a timed call or a skipped one
#   irq       the handler runs counted equal the entries in the trace,
#             less the exits without an entry; the lines add up
#   errors    a trace without the needed events is refused by sched, cpu,
#             syscalls and irq, naming the -k option to record them
#
# Kernel events need root: skips otherwise (fails under
# LOWTRACE_REQUIRE_ALL=1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
EX=$B/examples
. "$top/tests/lib/harness.sh" lt-test-analysis-more
# between LO HI VALUE: LO <= VALUE <= HI
between() { awk -v lo="$1" -v hi="$2" -v v="$3" 'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'; }

# A trace with no kernel events: a user-space recording.
LOWTRACE_TRACE="$tmp/user" LOWTRACE_EVENTS='*' "$EX/fields" > /dev/null 2>&1
for a in sched:sched cpu:sched syscalls:syscalls irq:irq; do
	what=${a%%:*} k=${a#*:}
	expect_error "test_${what}_needs_kernel_events" 1 \
		"no $k events for .analyze $what.: record with .lowtrace record -k $k." \
		"$LT" analyze "$what" "$tmp/user"
done
expect_error test_unknown_analysis nonzero "unknown analysis 'nosuch'" \
	"$LT" analyze nosuch "$tmp/user"

if [ "$(id -u)" -ne 0 ]; then
	for t in cpu_hog cpu_accounts_the_span syscalls_sleep syscalls_every_exit irq_counts; do
		skip "test_$t" "kernel events need root"
	done
	finish
fi
cpu=$(($(nproc) - 1))

# cpu: 10 bursts of 30 ms at SCHED_FIFO on $cpu
"$LT" record -o "$tmp/hog" -k sched,irq --all -- \
	"$EX/disturb" --hog --cpu "$cpu" --burst-ms 30 --every-ms 100 --duration-s 1 \
	> "$tmp/hog.out" 2>&1
hog=$(sed -n 's/^disturb: hog tid \([0-9]*\).*/\1/p' "$tmp/hog.out")
"$LT" analyze cpu "$tmp/hog" --top 1000 > "$tmp/cpu.txt" 2>&1
row=$(awk -v t="$hog" '$1 == t && $2 == "disturb-hog"' "$tmp/cpu.txt")
ms=$(echo "$row" | awk '{ print $4 }')
first=$(echo "$row" | awk '{ print $7 }')
if [ -n "$hog" ] && between 250 450 "$ms" && [ "$first" = "cpu$cpu" ]; then
	ok "test_cpu_hog ($ms ms on cpu$cpu)"
else
	fail test_cpu_hog "hog tid '$hog' row '$row': $(cat "$tmp/hog.out" "$tmp/cpu.txt")"
fi
# per CPU: busy + idle + unknown = span (to the printed precision)
span=$(sed -n 's/^CPU time over \([0-9.]*\) s .*/\1/p' "$tmp/cpu.txt")
bad=$(awk -v span="$span" '
	/^per CPU/ { on = 1; getline; next }
	on && NF >= 9 { n++; s = ($2 + $4 + $6) / 1000; if (s < span - 0.00001 || s > span + 0.00001 || $3 < 0) print }
	END { if (n < 1) print "no CPU rows" }' "$tmp/cpu.txt")
if [ -n "$span" ] && [ -z "$bad" ]; then
	ok test_cpu_accounts_the_span
else
	fail test_cpu_accounts_the_span "span '$span', rows not adding up: $bad"
fi

# syscalls: ten sleeps of 20 ms, the command's own tree only
"$LT" record -o "$tmp/sys" -k syscalls -- sh -c \
	'for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.02; done' > "$tmp/sys.out" 2>&1
"$LT" analyze syscalls "$tmp/sys" --top 1000 > "$tmp/sys.txt" 2>&1
row=$(awk '$1 == "clock_nanosleep"' "$tmp/sys.txt" | head -n 1)
n=$(echo "$row" | awk '{ print $2 }')
mean=$(echo "$row" | awk '{ print $5 }')
max=$(echo "$row" | awk '{ print $6 }')
# the tree is followed through forks without sched events asked for,
# and the fork events it uses for that are not written
nsched=$("$LT" view "$tmp/sys" -e 'sched:*' | grep -c 'sched:')
if [ "$n" = 10 ] && between 20000 60000 "$mean" && between 20000 60000 "$max" &&
	[ "$nsched" = 0 ]; then
	ok "test_syscalls_sleep (10 calls, mean $mean us)"
else
	fail test_syscalls_sleep "$nsched sched events, row '$row': $(cat "$tmp/sys.out" "$tmp/sys.txt")"
fi
# each sys_exit is a timed call or one of the skipped ones
exits=$("$LT" view "$tmp/sys" -e raw_syscalls:sys_exit | grep -c 'raw_syscalls:sys_exit:')
timed=$(sed -n 's/^system calls over [0-9.]* s: \([0-9]*\) timed calls.*/\1/p' "$tmp/sys.txt")
skipped_n=$(sed -n 's/^skipped: \([0-9]*\) exits without an enter.*, \([0-9]*\) exits of another.*/\1 \2/p' "$tmp/sys.txt")
sum=$(echo "$timed $skipped_n" | awk '{ print $1 + $2 + $3 }')
if [ -n "$timed" ] && [ "$exits" -gt 10 ] && [ "$sum" = "$exits" ]; then
	ok "test_syscalls_every_exit ($exits exits)"
else
	fail test_syscalls_every_exit "$exits exits, timed '$timed', skipped '$skipped_n': $(cat "$tmp/sys.txt")"
fi

# irq: from the hog recording (all CPUs, 1 s: timer softirqs at least)
"$LT" analyze irq "$tmp/hog" --top 1000 > "$tmp/irq.txt" 2>&1
entries=$("$LT" view "$tmp/hog" -e 'irq:irq_handler_entry,irq:softirq_entry' | grep -c '_entry:')
head=$(sed -n 's/^interrupts over [0-9.]* s on [0-9]* CPUs: \([0-9]*\) irq and \([0-9]*\) softirq handler runs.*/\1 \2/p' "$tmp/irq.txt")
unmatched=$(sed -n 's/^skipped: \([0-9]*\) exits without an entry.*/\1/p' "$tmp/irq.txt")
lines=$(awk '/^kind / { on = 1; next } on && NF == 0 { on = 0 } on { s += $4 } END { print s + 0 }' "$tmp/irq.txt")
runs=$(echo "$head" | awk '{ print $1 + $2 }')
# an entry still open when the trace ends is not a run: allow one per CPU
open=$((entries - runs))
if [ -n "$head" ] && [ "$runs" -gt 0 ] && [ "$lines" = "$runs" ] &&
	[ "$open" -ge 0 ] && [ "$open" -le $((2 * $(nproc))) ] && [ -n "$unmatched" ] &&
	grep -q '^softirq .* TIMER ' "$tmp/irq.txt"; then
	ok "test_irq_counts ($runs runs of $entries entries)"
else
	fail test_irq_counts "entries $entries, header '$head', lines $lines: $(cat "$tmp/irq.txt")"
fi
finish
