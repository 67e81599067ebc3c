#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# attach_idle.sh - what a program that links liblowtrace pays while nobody
# attaches it, beside the same program without liblowtrace.
#
# usage: bench/attach_idle.sh [SECONDS] (default 60; RUNS=300 start-ups)
#
# Three builds of bench/idle.c (one event, traced once, then one sleep):
# without liblowtrace (cc -DIDLE_PLAIN), linked with liblowtrace.a (as
# make builds it) and with liblowtrace.so.  For each: the start-up time
# (RUNS runs of `idle 0`, median of 3 rounds, ms per run), then, all three
# idle for SECONDS side by side: RSS and threads after 2 s
# (/proc/PID/status), CPU time and voluntary context switches over the
# whole run (/usr/bin/time -v; a thread that woke up would show in both).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
SECS=${1:-60}
RUNS=${RUNS:-300}
CC=${CC:-cc}
tmp=$(mktemp -d /tmp/lt-bench-idle.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

[ -x "$B/bench/idle" ] && [ -e "$B/liblowtrace.so" ] || {
	echo "attach_idle.sh: make $B/bench/idle $B/liblowtrace.so first" >&2
	exit 1
}
$CC -O2 -DIDLE_PLAIN -o "$tmp/plain" "$top/bench/idle.c"
cp "$B/bench/idle" "$tmp/static"
$CC -O2 -pthread -I"$top/include" -o "$tmp/shared" "$top/bench/idle.c" \
	-L"$B" -llowtrace -Wl,-rpath,"$B"
variants="plain static shared"

# ms per start-up: RUNS runs, median of 3 rounds
startup() {
	local t=() r
	for r in 1 2 3; do
		local s e
		s=$(date +%s%N)
		for _ in $(seq "$RUNS"); do "$tmp/$1" 0; done
		e=$(date +%s%N)
		t+=("$(( (e - s) / RUNS ))")
	done
	printf '%s\n' "${t[@]}" | sort -n | sed -n 2p | awk '{ printf "%.3f", $1 / 1e6 }'
}
for v in $variants; do
	echo "startup $v: $(startup $v) ms"
done

for v in $variants; do
	/usr/bin/time -v -o "$tmp/$v.time" "$tmp/$v" "$SECS" &
	echo $! > "$tmp/$v.tpid"
done
sleep 2
for v in $variants; do
	# the child of /usr/bin/time is the program
	pid=$(pgrep -P "$(cat "$tmp/$v.tpid")")
	rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status")
	vsz=$(sed -n 's/^VmSize:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status")
	thr=$(sed -n 's/^Threads:[[:space:]]*//p' "/proc/$pid/status")
	echo "$v: RSS $rss KiB, VmSize $vsz KiB, $thr threads"
done
wait
for v in $variants; do
	u=$(sed -n 's/.*User time (seconds): //p' "$tmp/$v.time")
	s=$(sed -n 's/.*System time (seconds): //p' "$tmp/$v.time")
	m=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/$v.time")
	c=$(sed -n 's/.*Voluntary context switches: //p' "$tmp/$v.time")
	echo "$v over ${SECS}s: user ${u}s, system ${s}s, max RSS $m KiB, $c voluntary context switches"
done
