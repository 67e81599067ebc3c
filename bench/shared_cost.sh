#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# shared_cost.sh - what an enabled event costs a program with buffers
# shared per user against buffers of its own, side by side.
#
# usage: bench/shared_cost.sh [EVENTS] (default 3000000; RUNS=5)
#
# Runs bench/record_load flat out (one thread, EVENTS events of two
# 32-bit fields) under `lowtrace record --buffers per-user` and
# `--buffers per-process`, alternately, RUNS times each, on an
# overwrite channel (no consumer I/O, nothing dropped), and prints the
# median CPU time per event of each and their ratio.  A record of a
# shared ring carries the writer's pid before its payload and is written
# by the library's sequence rather than the call site's.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
N=${1:-3000000}
RUNS=${RUNS:-5}
tmp=$(mktemp -d /tmp/lt-bench-shared.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
one() { # BUFFERS: ns per event of one run
	local out
	out=$("$B/lowtrace" record -o "$tmp/t" --buffers "$1" --channel default:mode=overwrite \
		-e 'record_load:*' -- "$B/bench/record_load" -n "$N" 2> /dev/null)
	rm -rf "$tmp/t"
	echo "$out" | sed -n 's/.*cpu_s=\([0-9.]*\).*/\1/p' | awk -v n="$N" '{ printf "%.2f\n", $1 * 1e9 / n }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: > "$tmp/user"
: > "$tmp/proc"
for _ in $(seq "$RUNS"); do
	one per-user >> "$tmp/user"
	one per-process >> "$tmp/proc"
done
u=$(median < "$tmp/user")
p=$(median < "$tmp/proc")
echo "per-user: $u ns/event (runs: $(tr '\n' ' ' < "$tmp/user"))"
echo "per-process: $p ns/event (runs: $(tr '\n' ' ' < "$tmp/proc"))"
echo "ratio per-user / per-process: $(echo "$u / $p" | bc -l | cut -c1-4)"
