#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The cost of tracing kernel events, lowtrace's two backends (eBPF and
# perf_event_open, bench/kernel_trace with LOWTRACE_KERNEL_BACKEND) beside
# `perf record`, runs interleaved, RUNS of each (default 3):
#
#   pingpong   bench/kernel_pingpong (two threads passing a byte through
#              pipes on CPU 0) untraced, under perf record -e
#              sched:sched_switch,sched:sched_wakeup -a, and under lowtrace
#              with those two events and with the sched preset
#   syscalls   bench/kernel_syscalls (getppid() in a loop on CPU 0)
#              untraced, under perf record -e 'raw_syscalls:*' -a and under
#              lowtrace -k syscalls
#
# lowtrace's eBPF modes run twice: lt_bpf_* as recorded by default (the
# programs write the packets) and lt_bpfrec_* with LOWTRACE_KERNEL_RING=
# records (each record through a BPF ring buffer, re-headed by the
# consumer).
#   neighbour  the pingpong recorded alone by `lowtrace record -p PID`
#              (its process only, filtered in the kernel with eBPF, in the
#              consumer with perf), with and without a second pingpong
#              flooding scheduler events on CPU 1; the pingpong starts its
#              trips once the recorder follows it (PINGPONG_GO)
#
# Prints each run, then per mode the medians: the rate and its slowdown,
# the workload's CPU ns per round trip (or call) and the ns each recorded
# event added to it (against the untraced median; events counted by
# lowtrace), and the events lost.
# Needs root. Usage: [BUILD=build] [N=100000] [RUNS=3] [PARTS="pingpong
# syscalls neighbour"] bash bench/kernel.sh
set -eu
BUILD=${BUILD:-build}
N=${N:-100000}
RUNS=${RUNS:-3}
PARTS=${PARTS:-pingpong syscalls neighbour}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
pp=$BUILD/bench/kernel_pingpong
sc=$BUILD/bench/kernel_syscalls
kt=$BUILD/bench/kernel_trace
for b in "$pp" "$sc" "$kt"; do
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
nb=
trap '[ -n "$nb" ] && kill "$nb" 2>/dev/null; rm -rf "$tmp"' EXIT

# the workload's rate and CPU time per operation, from its output
rate() { sed -n 's/^\(round_trips\|calls\)_per_sec //p' "$1"; }
cpu() { sed -n 's/^cpu_ns_per_\(trip\|call\) //p' "$1"; }
two=(-e sched:sched_switch -e sched:sched_wakeup)
# SCALE: syscall loops run 10 calls for each round trip of the pingpong
SN=$((N * 10))

# a lowtrace mode's backend, and its eBPF path: records for *bpfrec*,
# else the default
be_of() { case $1 in *_perf*) echo perf ;; *) echo bpf ;; esac; }
ring_of() { case $1 in *bpfrec*) echo records ;; *) echo packets ;; esac; }

run() { # mode run-number; appends to $tmp/MODE.{rates,cpu,events,lost}
	local mode=$1 r=$2 out=$tmp/out err=$tmp/err
	rm -rf "$tmp/trace" "$tmp/perf.data"
	case $mode in
	untraced) "$pp" "$N" >"$out" 2>"$err" ;;
	perf) perf record -q -e sched:sched_switch,sched:sched_wakeup -a \
		-o "$tmp/perf.data" -- "$pp" "$N" >"$out" 2>"$err" ;;
	lt_perf_2ev|lt_bpf_2ev|lt_bpfrec_2ev)
		LOWTRACE_KERNEL_BACKEND=$(be_of "$mode") LOWTRACE_KERNEL_RING=$(ring_of "$mode") \
			"$kt" "${two[@]}" "$tmp/trace" "$pp" "$N" >"$out" 2>"$err" ;;
	lt_perf_sched|lt_bpf_sched|lt_bpfrec_sched)
		LOWTRACE_KERNEL_BACKEND=$(be_of "$mode") LOWTRACE_KERNEL_RING=$(ring_of "$mode") \
			"$kt" -e sched "$tmp/trace" "$pp" "$N" >"$out" 2>"$err" ;;
	sys_untraced) "$sc" "$SN" >"$out" 2>"$err" ;;
	sys_perf) perf record -q -e 'raw_syscalls:*' -a \
		-o "$tmp/perf.data" -- "$sc" "$SN" >"$out" 2>"$err" ;;
	sys_lt_perf|sys_lt_bpf|sys_lt_bpfrec)
		LOWTRACE_KERNEL_BACKEND=$(be_of "$mode") LOWTRACE_KERNEL_RING=$(ring_of "$mode") \
			"$kt" -e syscalls "$tmp/trace" "$sc" "$SN" >"$out" 2>"$err" ;;
	nb_*_alone|nb_*_neighbour)
		local be=${mode#nb_} pid rec name=kb-$$
		be=${be%%_*}
		if [ "${mode##*_}" = neighbour ]; then
			"$pp" 1000000000 1 >/dev/null 2>&1 & nb=$!
			sleep 0.2
		fi
		rm -f "$tmp/go"
		PINGPONG_GO=$tmp/go "$pp" "$N" >"$out" 2>/dev/null & pid=$!
		LOWTRACE_KERNEL_BACKEND=$be "$BUILD/lowtrace" record -o "$tmp/trace" \
			--name "$name" -k sched:sched_switch,sched:sched_wakeup \
			-p "$pid" >/dev/null 2>"$err" & rec=$!
		for _ in $(seq 400); do
			"$BUILD/lowtrace" status "$name" 2>/dev/null | grep -q "kernel events through" && break
			sleep 0.05
		done
		touch "$tmp/go"
		wait "$pid"; wait "$rec" || true
		if [ -n "$nb" ]; then kill "$nb"; wait "$nb" 2>/dev/null || true; nb=; fi ;;
	esac
	local v c ev=0 lost=0 note=""
	v=$(rate "$out"); c=$(cpu "$out")
	case $mode in
	nb_*)
		note=$(sed -n 's/.*Channel kernel \(.*\)/kernel \1/p' "$err")
		ev=$(echo "$note" | sed -n 's/.*: \([0-9]*\) events,.*/\1/p')
		lost=$(echo "$note" | sed -n 's/.*, \([0-9]*\) lost .*/\1/p') ;;
	*lt_*)
		note=$(sed -n 's/^kernel_trace: //p' "$err")
		ev=$(echo "$note" | sed -n 's/.* \([0-9]*\) events,.*/\1/p')
		lost=$(echo "$note" | sed -n 's/.* \([0-9]*\) lost in perf,.*/\1/p') ;;
	*perf)
		lost=$(grep -io 'lost [0-9]* chunks' "$err" | grep -o '[0-9]*' || echo 0)
		note="$(du -k "$tmp/perf.data" | cut -f1) KiB, lost ${lost:-0} chunks" ;;
	esac
	echo "$v" >>"$tmp/$mode.rates"
	echo "$c" >>"$tmp/$mode.cpu"
	echo "${ev:-0}" >>"$tmp/$mode.events"
	echo "${lost:-0}" >>"$tmp/$mode.lost"
	printf '  run %d %-18s %9s /s %6s CPU ns  %s\n' "$r" "$mode" "$v" "$c" "$note"
}

median() { sort -n "$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
sum() { awk '{s+=$1} END {print s+0}' "$1"; }

# summary MODES BASE OPS EVSRC: medians against BASE's; events per
# operation from EVSRC's runs (the same events, counted by lowtrace)
summary() {
	local modes=$1 base=$2 ops=$3 evsrc=$4
	local b cb epo
	b=$(median "$tmp/$base.rates"); cb=$(median "$tmp/$base.cpu")
	echo "medians against $base: rate (slowdown), workload CPU ns per operation (ratio), ns added per event, events lost in all runs:"
	for m in $modes; do
		local src=$m
		[ "$(median "$tmp/$m.events")" = 0 ] && src=$evsrc
		epo=$(awk -v e="$(median "$tmp/$src.events")" -v n="$ops" 'BEGIN {print e / n}')
		awk -v m="$m" -v v="$(median "$tmp/$m.rates")" -v b="$b" \
			-v c="$(median "$tmp/$m.cpu")" -v cb="$cb" -v epo="$epo" \
			-v lost="$(sum "$tmp/$m.lost")" 'BEGIN {
			add = epo > 0 && m != "'"$base"'" ? sprintf("%6.0f ns/event (%.2f events/op)", (c - cb) / epo, epo) : ""
			printf "  %-18s %9d /s  x%.2f  %6d ns/op  x%.2f  %s  lost %d\n", m, v, b / v, c, c / cb, add, lost
		}'
	done
}

echo "kernel.sh: N=$N, $RUNS runs each, interleaved ($(nproc) CPUs, $(uname -r), $(date -u '+%F %R') UTC)"
for part in $PARTS; do
	case $part in
	pingpong) modes="untraced perf lt_perf_2ev lt_bpf_2ev lt_bpfrec_2ev lt_perf_sched lt_bpf_sched lt_bpfrec_sched"; base=untraced; ops=$N ;;
	syscalls) modes="sys_untraced sys_perf sys_lt_perf sys_lt_bpf sys_lt_bpfrec"; base=sys_untraced; ops=$SN ;;
	neighbour) modes="nb_bpf_alone nb_bpf_neighbour nb_perf_alone nb_perf_neighbour"; base=nb_bpf_alone; ops=$N ;;
	*) echo "kernel.sh: no part $part (pingpong, syscalls, neighbour)" >&2; exit 2 ;;
	esac
	echo "$part:"
	for r in $(seq 1 "$RUNS"); do
		for m in $modes; do run "$m" "$r"; done
	done
	case $part in
	pingpong) summary "$modes" untraced "$ops" lt_perf_2ev ;;
	syscalls) summary "$modes" sys_untraced "$ops" sys_lt_perf ;;
	neighbour)
		summary "$modes" nb_bpf_alone "$ops" nb_bpf_alone
		for be in bpf perf; do
			awk -v be="$be" -v a="$(median "$tmp/nb_${be}_alone.cpu")" \
				-v n="$(median "$tmp/nb_${be}_neighbour.cpu")" \
				'BEGIN {printf "  %s: CPU per trip of the recorded program, neighbour against alone: x%.2f\n", be, n / a}'
		done ;;
	esac
done
