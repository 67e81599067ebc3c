#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_lttng.sh - the analyses on lttng-modules kernel traces: the two
# real traces kept in ../shared/data (bug446190: LTTng 2.5, ARM, four
# CPUs, sys_NAME/exit_syscall, irqs, softirqs, timers;
# flipping-endianness: big-endian, one CPU, scheduling, irqs and the state
# dump).  Each figure is checked against the raw events `lowtrace view`
# prints for the same trace:
#
#   irq       the runs of irq 23 ("timer") are its irq_handler_entry events
#   syscalls  ioctl's calls and unfinished ones are its sys_ioctl events;
#             the 32-bit variants are named as their calls (stat64 as
#             stat, mmap2 as mmap, arm_fadvise64_64 as fadvise64)
#   cpu       the threads that ran have their names (from sched_switch and
#             the state dump) and processes (the state dump's), on the
#             trace's CPUs
#   sched     the wake-ups of lttng-modules's sched_wakeup (tid, not pid)
#             are counted
#
# Skips without ../shared/data (LOWTRACE_SHARED_DATA names another place).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
. "$top/tests/lib/harness.sh" lt-test-lttng

shared=${LOWTRACE_SHARED_DATA:-}
for c in "$top/../shared/data" "$top/../../shared/data"; do
	[ -z "$shared" ] && [ -d "$c" ] && shared=$c
done
if [ -z "$shared" ] || [ ! -d "$shared/bug446190" ] || [ ! -d "$shared/flipping-endianness" ]; then
	skip lttng_kernel_traces "no ../shared/data/bug446190 and flipping-endianness"
	finish
fi
flip=$shared/flipping-endianness
bug=$shared/bug446190
"$LT" view "$flip" > "$tmp/flip.txt" 2>&1 || fail view_flip "$(head -c 600 "$tmp/flip.txt")"
"$LT" view "$bug" > "$tmp/bug.txt" 2>&1 || fail view_bug "$(head -c 600 "$tmp/bug.txt")"

# irq: the timer's runs are its entries (each has its exit in this trace)
out=$("$LT" analyze irq "$flip" 2>&1)
want=$(grep -c 'irq_handler_entry: { irq = 23, name = "timer" }' "$tmp/flip.txt")
got=$(printf '%s\n' "$out" | awk '$1 == "irq" && $2 == 23 && $3 == "timer" { print $4 }')
if [ -n "$got" ] && [ "$got" = "$want" ] && [ "$want" -gt 1000 ]; then
	ok "irq_counts_lttng_irq_handler_entry ($got runs)"
else
	fail irq_counts_lttng_irq_handler_entry "timer runs '$got', entries $want"$'\n'"$out"
fi

# syscalls: sys_ioctl entries = ioctl's timed calls + unfinished ones
out=$("$LT" analyze syscalls "$bug" --top 60 2>&1)
want=$(grep -c ' sys_ioctl: ' "$tmp/bug.txt")
got=$(printf '%s\n' "$out" | awk '$1 == "ioctl" { print $2 + $3; exit }')
if [ -n "$got" ] && [ "$got" = "$want" ] && [ "$want" -gt 100 ]; then
	ok "syscalls_times_lttng_sys_events ($got ioctl calls)"
else
	fail syscalls_times_lttng_sys_events "ioctl calls+unfinished '$got', sys_ioctl events $want"$'\n'"$out"
fi
if printf '%s\n' "$out" | grep -q '^fadvise64 ' &&
	printf '%s\n' "$out" | grep -q '^stat  ' &&
	printf '%s\n' "$out" | grep -q '^mmap  '; then
	ok syscalls_name_32bit_variants
else
	fail syscalls_name_32bit_variants "$out"
fi

# cpu: threads named, on the trace's CPUs
out=$("$LT" analyze cpu "$flip" --top 50 2>&1)
if printf '%s\n' "$out" | grep -q '^CPU time over .* 1 CPUs, 31 threads ran' &&
	printf '%s\n' "$out" | grep -Eq '^ +258 systemd ' &&
	printf '%s\n' "$out" | grep -Eq '^ +85 kworker/0:3 '; then
	ok cpu_names_lttng_threads
else
	fail cpu_names_lttng_threads "$out"
fi
# the state dump's pid is the thread's process
if printf '%s\n' "$out" | grep -Eq '^ +85 kworker/0:3 +85 ' &&
	printf '%s\n' "$out" | grep -Eq '^ +1 systemd +1 '; then
	ok cpu_processes_from_state_dump
else
	fail cpu_processes_from_state_dump "$out"
fi
out=$("$LT" analyze cpu "$bug" 2>&1)
if printf '%s\n' "$out" | grep -q '4 CPUs, 26 threads ran' &&
	printf '%s\n' "$out" | grep -Eq '^ +496 lttng-consumerd .*cpu3'; then
	ok cpu_on_four_cpus
else
	fail cpu_on_four_cpus "$out"
fi

# sched: lttng-modules's sched_wakeup (comm, tid) wakes threads
out=$("$LT" analyze sched "$bug" 2>&1)
n=$(printf '%s\n' "$out" | sed -n 's/^wake-up to run latency, \([0-9]*\) threads woken.*/\1/p')
wakeups=$(grep -c ' sched_wakeup: { comm = "kworker/1:2", tid = 184,' "$tmp/bug.txt")
got=$(printf '%s\n' "$out" | awk '$1 == 184 && $2 == "kworker/1:2" { print $3 }')
if [ -n "$n" ] && [ "$n" -gt 10 ] && [ -n "$got" ] && [ "$got" -gt 0 ] && [ "$got" -le "$wakeups" ]; then
	ok "sched_counts_lttng_wakeups ($n threads, kworker/1:2 $got of $wakeups wake-ups)"
else
	fail sched_counts_lttng_wakeups "threads '$n', kworker/1:2 '$got' of $wakeups"$'\n'"$out"
fi
finish
