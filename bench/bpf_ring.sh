#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two per-CPU rings for eBPF programs (bench/bpf_ring_cmp, docs/bench-kernel.md):
# bench/kernel_pingpong N untraced, recorded through ring A (a BPF ring
# buffer per CPU, the kernel backend's) and through ring B (sub-buffers
# per CPU in an mmapable array, written by the programs in lowtrace's
# layout), runs interleaved, RUNS of each (default 5):
#
#   alone      the pingpong on CPU 0, nothing else; also ring B without
#              its doorbell (b_timer: the consumer's 100 ms timer alone)
#   neighbour  the same while a second pingpong floods scheduler events on
#              CPU 1 (both rings record every CPU: what each CPU's events
#              cost must not depend on the other's)
#   nesting    bench/kernel_syscalls (10 N getppid() calls on CPU 0) under
#              both rings with bpf_ring_cmp -x: programs on sys_enter and
#              on the interrupts that interrupt it, so programs nest; the
#              records whose time is before the previous record's (A's
#              time is read after its reservation) and B's retried swaps
#
# Prints each run, then per mode the medians: round trips/s and the
# slowdown, the workload's CPU ns per trip and the ns each event added to
# it (against the untraced median of the same part; events per trip:
# the programs' calls on CPU 0, the pingpong's CPU, over N), the events
# lost in all runs, the consumer's CPU ns per recorded event and its
# wake-ups.  Every recorded run is verified by bpf_ring_cmp (a failure
# stops the script).
# Needs root, BTF and a build with LT_BPF=1.
# Usage: [BUILD=build] [N=100000] [RUNS=5] [PARTS="alone neighbour nesting"]
#        [RING_ARGS_A=...] [RING_ARGS_B=...] bash bench/bpf_ring.sh
set -eu
BUILD=${BUILD:-build}
N=${N:-100000}
RUNS=${RUNS:-5}
PARTS=${PARTS:-alone neighbour nesting}
# the default geometry: 1 MiB a CPU each, the consumer woken once a
# quarter of it waits (A: one ring; B: 16 sub-buffers of 64 KiB)
RING_ARGS_A=${RING_ARGS_A:--r 1048576}
RING_ARGS_B=${RING_ARGS_B:--n 16 -s 65536}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
pp=$BUILD/bench/kernel_pingpong
sc=$BUILD/bench/kernel_syscalls
cmp=$BUILD/bench/bpf_ring_cmp
for b in "$pp" "$sc" "$cmp"; do
	[ -x "$b" ] || { echo "bpf_ring.sh: $b is missing (make with LT_BPF=1 first)" >&2; exit 1; }
done
if [ "$(id -u)" -ne 0 ]; then
	echo "bpf_ring.sh: needs root (BPF programs)" >&2
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lt-bpfring-XXXXXX")
nb=
trap '[ -n "$nb" ] && kill "$nb" 2>/dev/null; rm -rf "$tmp"' EXIT

# run MODE RUN: appends to $tmp/MODE.{rates,cpu,calls0,recs,lost,ccpu,wake}
run() {
	local mode=$1 r=$2 out=$tmp/out err=$tmp/err ring
	ring=${mode#nb_}
	if [ "${mode#nb_}" != "$mode" ]; then
		"$pp" 1000000000 1 >/dev/null 2>&1 & nb=$!
		sleep 0.2
	fi
	rm -f "$tmp/rec.pk"
	# another tracer on the same tracepoints (another benchmark) adds its
	# cost to every mode: said in the run's line
	local others
	others=$(bpftool prog list 2>/dev/null | grep -c 'name sched_switch' || true)
	case $ring in
	untraced) "$pp" "$N" >"$out" 2>"$err" ;;
	x_untraced) "$sc" $((N * 10)) >"$out" 2>"$err" ;;
	a) # shellcheck disable=SC2086
		"$cmp" -m a $RING_ARGS_A -o "$tmp/rec.pk" -- "$pp" "$N" >"$out" 2>"$err" ;;
	b) # shellcheck disable=SC2086
		"$cmp" -m b $RING_ARGS_B -o "$tmp/rec.pk" -- "$pp" "$N" >"$out" 2>"$err" ;;
	b_timer) # shellcheck disable=SC2086
		"$cmp" -m b -W $RING_ARGS_B -o "$tmp/rec.pk" -- "$pp" "$N" >"$out" 2>"$err" ;;
	x_a|x_b) # shellcheck disable=SC2086
		# (A's recording may fail the check on order alone: counted)
		"$cmp" -m "${ring#x_}" -x $([ "$ring" = x_a ] && echo "$RING_ARGS_A" || echo "$RING_ARGS_B") \
			-o "$tmp/rec.pk" -- "$sc" $((N * 10)) >"$out" 2>"$err" ||
			grep -q '^bpf_ring_cmp: verify FAILED: CPU [0-9]*: [0-9]* records with a time before' "$err" ;;
	esac || { cat "$err" >&2; echo "bpf_ring.sh: $mode failed" >&2; exit 1; }
	if [ -n "$nb" ]; then kill "$nb"; wait "$nb" 2>/dev/null || true; nb=; fi
	local v c calls0=0 recs=0 lost=0 ccpu=0 wake=0 note=""
	v=$(sed -n 's/^\(round_trips\|calls\)_per_sec //p' "$out")
	c=$(sed -n 's/^cpu_ns_per_\(trip\|call\) //p' "$out")
	if [ "$ring" != untraced ]; then
		calls0=$(sed -n 's/^bpf_ring_cmp: cpu 0 calls \([0-9]*\) .*/\1/p' "$err")
		recs=$(sed -n 's/^bpf_ring_cmp: mode .* records \([0-9]*\) .*/\1/p' "$err")
		lost=$(sed -n 's/^bpf_ring_cmp: mode .* lost \([0-9]*\) .*/\1/p' "$err")
		ccpu=$(sed -n 's/^bpf_ring_cmp: consumer_cpu_ns .* per_event \([0-9.]*\) .*/\1/p' "$err")
		wake=$(sed -n 's/^bpf_ring_cmp: consumer_cpu_ns .* wakeups \([0-9]*\) .*/\1/p' "$err")
		note="$recs events, $lost lost, consumer $ccpu ns/event, $wake wake-ups"
	fi
	case $ring in
	x_*)
		local back retries
		back=$(sed -n 's/^bpf_ring_cmp: mode .* out_of_order \([0-9]*\) .*/\1/p' "$err")
		retries=$(sed -n 's/^bpf_ring_cmp: mode .* retries \([0-9]*\).*/\1/p' "$err")
		echo "$back" >>"$tmp/$mode.back"
		echo "$retries" >>"$tmp/$mode.retries"
		note="$note, $back out of order, $retries swaps retried" ;;
	esac
	echo "$v" >>"$tmp/$mode.rates"
	echo "$c" >>"$tmp/$mode.cpu"
	echo "$calls0" >>"$tmp/$mode.calls0"
	echo "$recs" >>"$tmp/$mode.recs"
	echo "$lost" >>"$tmp/$mode.lost"
	echo "$ccpu" >>"$tmp/$mode.ccpu"
	echo "$wake" >>"$tmp/$mode.wake"
	[ "$others" -gt 0 ] && note="$note (another tracer's sched_switch program was loaded)"
	printf '  run %d %-12s %9s /s %6s CPU ns  %s\n' "$r" "$mode" "$v" "$c" "$note"
}

median() { sort -n "$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
sum() { awk '{s+=$1} END {print s+0}' "$1"; }

# summary MODES BASE OPS: medians against BASE's, OPS operations a run
summary() {
	local modes=$1 base=$2 n=$3 b cb
	b=$(median "$tmp/$base.rates"); cb=$(median "$tmp/$base.cpu")
	echo "medians against $base: rate (slowdown), workload CPU ns per operation (ratio), ns added per event (events per operation on CPU 0), lost in all runs, consumer CPU ns per event, wake-ups per run:"
	for m in $modes; do
		awk -v m="$m" -v base="$base" -v v="$(median "$tmp/$m.rates")" -v b="$b" \
			-v c="$(median "$tmp/$m.cpu")" -v cb="$cb" -v n="$n" \
			-v calls="$(median "$tmp/$m.calls0")" -v lost="$(sum "$tmp/$m.lost")" \
			-v ccpu="$(median "$tmp/$m.ccpu")" -v wake="$(median "$tmp/$m.wake")" 'BEGIN {
			epo = calls / n
			add = m != base && epo > 0 ? sprintf("%5.0f ns/event (%.2f/op)  lost %d  consumer %5.1f ns/event  %d wake-ups", (c - cb) / epo, epo, lost, ccpu, wake) : ""
			printf "  %-12s %9d /s  x%.2f  %6d ns/op  x%.2f  %s\n", m, v, b / v, c, c / cb, add
		}'
	done
}

echo "bpf_ring.sh: N=$N, $RUNS runs each, interleaved ($(nproc) CPUs, $(uname -r), $(date -u '+%F %R') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo "  A: $RING_ARGS_A   B: $RING_ARGS_B"
for part in $PARTS; do
	case $part in
	alone) modes="untraced a b b_timer" ;;
	neighbour) modes="nb_untraced nb_a nb_b" ;;
	nesting) modes="x_untraced x_a x_b" ;;
	*) echo "bpf_ring.sh: no part $part (alone, neighbour, nesting)" >&2; exit 2 ;;
	esac
	echo "$part:"
	for r in $(seq 1 "$RUNS"); do
		for m in $modes; do run "$m" "$r"; done
	done
	if [ "$part" = nesting ]; then
		summary "$modes" x_untraced $((N * 10))
		for m in x_a x_b; do
			echo "  $m: $(sum "$tmp/$m.back") records out of order, $(sum "$tmp/$m.retries") swaps retried, $(sum "$tmp/$m.recs") records in all runs"
		done
		continue
	fi
	summary "$modes" "${modes%% *}" "$N"
done
if [ -f "$tmp/a.cpu" ] && [ -f "$tmp/nb_a.cpu" ]; then
	for ring in a b; do
		awk -v ring="$ring" \
			-v a="$(median "$tmp/$ring.cpu")" -v a0="$(median "$tmp/untraced.cpu")" \
			-v n="$(median "$tmp/nb_$ring.cpu")" -v n0="$(median "$tmp/nb_untraced.cpu")" \
			'BEGIN {printf "  ring %s: CPU ns added per trip, neighbour against alone: %.0f against %.0f (x%.2f)\n", ring, n - n0, a - a0, (n - n0) / (a - a0)}'
	done
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
