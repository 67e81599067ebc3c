#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The cost of tracing scheduler events: bench/kernel_pingpong (two threads
# passing a byte through pipes) untraced, under lowtrace's kernel channel
# (bench/kernel_trace: the sched preset, and the same two events perf gets),
# and under `perf record -e sched:sched_switch,sched:sched_wakeup -a`.
# Runs are interleaved, RUNS of each (default 3); prints the median round
# trips per second of each and its slowdown against the untraced median.
# Needs root. Usage: [BUILD=build] [N=100000] [RUNS=3] bash bench/kernel.sh
set -eu
BUILD=${BUILD:-build}
N=${N:-100000}
RUNS=${RUNS:-3}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
pp=$BUILD/bench/kernel_pingpong
kt=$BUILD/bench/kernel_trace
for b in "$pp" "$kt"; do
	[ -x "$b" ] || { echo "kernel.sh: $b is missing (run make first)" >&2; exit 1; }
done
if [ "$(id -u)" -ne 0 ]; then
	echo "kernel.sh: needs root (perf tracepoints system-wide)" >&2
	exit 1
fi
if ! command -v perf >/dev/null 2>&1; then
	echo "kernel.sh: installing linux-perf" >&2
	apt-get install -y linux-perf >/dev/null
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lt-kbench-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

rate() { sed -n 's/^round_trips_per_sec //p' "$1"; }
cpu() { sed -n 's/^cpu_ns_per_trip //p' "$1"; }

run() { # mode run-number; appends the rate to $tmp/MODE.rates
	local mode=$1 r=$2 out=$tmp/out err=$tmp/err
	rm -rf "$tmp/trace" "$tmp/perf.data"
	case $mode in
	untraced) "$pp" "$N" >"$out" 2>"$err" ;;
	lowtrace_sched) "$kt" "$tmp/trace" "$pp" "$N" >"$out" 2>"$err" ;;
	lowtrace_2ev) "$kt" -e sched:sched_switch -e sched:sched_wakeup \
		"$tmp/trace" "$pp" "$N" >"$out" 2>"$err" ;;
	perf) perf record -q -e sched:sched_switch,sched:sched_wakeup -a \
		-o "$tmp/perf.data" -- "$pp" "$N" >"$out" 2>"$err" ;;
	esac
	local v c; v=$(rate "$out"); c=$(cpu "$out")
	echo "$v" >>"$tmp/$mode.rates"
	echo "$c" >>"$tmp/$mode.cpu"
	local note=""
	case $mode in
	lowtrace_*) note=$(sed -n 's/^kernel_trace: //p' "$err") ;;
	perf) note="$(du -k "$tmp/perf.data" | cut -f1) KiB $(grep -io 'lost [0-9]* chunks' "$err" || true)" ;;
	esac
	printf '  run %d %-15s %8s round trips/s %6s CPU ns/trip  %s\n' "$r" "$mode" "$v" "$c" "$note"
}

modes="untraced lowtrace_sched lowtrace_2ev perf"
echo "kernel_pingpong $N round trips, $RUNS runs each, interleaved ($(nproc) CPUs, $(uname -r))"
for r in $(seq 1 "$RUNS"); do
	for m in $modes; do run "$m" "$r"; done
done
median() { sort -n "$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
base=$(median "$tmp/untraced.rates")
cbase=$(median "$tmp/untraced.cpu")
echo "medians: round trips per second (slowdown against untraced), CPU ns per trip of the workload (ratio):"
for m in $modes; do
	v=$(median "$tmp/$m.rates")
	c=$(median "$tmp/$m.cpu")
	awk -v m="$m" -v v="$v" -v b="$base" -v c="$c" -v cb="$cbase" \
		'BEGIN {printf "  %-15s %8d rt/s  x%.2f   %6d ns/trip  x%.2f\n", m, v, b / v, c, c / cb}'
done
