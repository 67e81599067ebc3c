#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The cost per hit of a USDT marker (bench/usdt_hit: two ints and a
# string, semaphore-guarded) in the same run:
#   bare       the loop without the marker
#   untraced   with the marker, semaphore off (no probe)
#   lowtrace   lowtrace record -u 'bench:hit(a,b,s:string)'
#   perf_sdt   perf probe %sdt_bench:hit (perf's own arguments: the string
#              as a number), perf record -e sdt_bench:hit
#   perf_str   the same probe defined with lowtrace's fetch arguments (the
#              string fetched), perf record -e sdt_bench:hit
# Runs are interleaved, RUNS of each (default 5); prints each mode's median
# CPU ns per iteration (the thread's, which holds the uprobe's trap and
# handler) and, for the traced ones, the cost per hit against the untraced
# median.  Needs root and perf.
# Usage: [BUILD=build] [N=200000] [RUNS=5] bash bench/probes.sh
set -eu
BUILD=${BUILD:-build}
N=${N:-200000}
RUNS=${RUNS:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
hit=$(realpath "$BUILD/bench/usdt_hit")
LT=$BUILD/lowtrace
for b in "$hit" "$LT"; do
	[ -x "$b" ] || { echo "probes.sh: $b is missing (run make first)" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "probes.sh: needs root (uprobes)" >&2; exit 1; }
command -v perf > /dev/null || { echo "probes.sh: needs perf (linux-perf)" >&2; exit 1; }
UE=/sys/kernel/tracing/uprobe_events
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lt-pbench-XXXXXX")
cleanup() {
	echo '-:sdt_bench/hit' >> "$UE" 2> /dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# the marker's place and argument registers, as lowtrace lists them
line=$("$LT" list --probes "$hit" | grep '^bench:hit ')
off=$(echo "$line" | awk '{print $3}')
sem=$(echo "$line" | awk '{print $5}')
regs=($(echo "$line" | sed 's/.*args: //' | grep -o '%[a-z0-9]*' | sed 's/%e\?r\?//;s/^/%/'))

define_perf() { # sdt | str
	echo '-:sdt_bench/hit' >> "$UE" 2> /dev/null || true
	if [ "$1" = sdt ]; then
		perf probe -q -x "$hit" -a '%sdt_bench:hit' > /dev/null 2>&1 || {
			perf buildid-cache --add "$hit" > /dev/null 2>&1
			perf probe -q -x "$hit" -a '%sdt_bench:hit' > /dev/null 2>&1
		}
	else
		echo "p:sdt_bench/hit $hit:$off($sem) a=${regs[0]}:s32 b=${regs[1]}:s32 s=+0(${regs[2]}):ustring" >> "$UE"
	fi
}

# the thread's CPU time per iteration (wall time would count the waits of
# a loaded machine)
per_iter() { sed -n 's/^usdt_hit: .* \([0-9.]*\) cpu ns per iteration.*/\1/p' "$1"; }

run() { # mode
	local out=$tmp/out
	case $1 in
	bare) "$hit" "$N" bare > "$out" ;;
	untraced) "$hit" "$N" > "$out" ;;
	lowtrace) "$LT" record -o "$tmp/trace" -u 'bench:hit(a,b,s:string)' -- "$hit" "$N" > "$out" 2> /dev/null ;;
	perf_sdt | perf_str)
		define_perf "${1#perf_}"
		perf record -q -o "$tmp/perf.data" -e sdt_bench:hit -- "$hit" "$N" > "$out" 2> /dev/null
		echo '-:sdt_bench/hit' >> "$UE"
		;;
	esac
	rm -rf "$tmp/trace" "$tmp/perf.data"
	per_iter "$out" >> "$tmp/$1"
}

modes="bare untraced lowtrace perf_sdt perf_str"
for r in $(seq "$RUNS"); do
	for m in $modes; do run "$m"; done
done
median() { sort -n "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
base=$(median "$tmp/untraced")
printf '%-10s %14s %14s   %s\n' mode cpu_ns_per_iter cost_per_hit runs
for m in $modes; do
	med=$(median "$tmp/$m")
	case $m in
	bare) cost=$(awk -v a="$base" -v b="$med" 'BEGIN { printf "%.2f", a - b }') ;; # the semaphore check
	untraced) cost=- ;;
	*) cost=$(awk -v a="$med" -v b="$base" 'BEGIN { printf "%.0f", a - b }') ;;
	esac
	printf '%-10s %14s %14s   %s\n' "$m" "$med" "$cost" "$(tr '\n' ' ' < "$tmp/$m")"
done
echo "(bare: cost_per_hit is the semaphore-off marker's cost, untraced less bare)"
