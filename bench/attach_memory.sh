#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# attach_memory.sh - the memory `lowtrace record -p` takes for N attached
# programs: with per-process buffers, one set per channel and CPU for each
# process; with per-user buffers, one set per channel and CPU for all of
# them (the recorder's memfds, which the programs map).
#
# usage: bench/attach_memory.sh [N...] (default 1 10 50; BUFFERS=per-user
# or per-process, the default; SUBBUF=256K, SUBBUFS=8: the default
# channel's geometry)
#
# For each N: starts N tests/progs/ticker (one event every 10 ms), waits
# for their rendezvous, attaches them all with one `lowtrace record -p`,
# and after 2 s reads the growth of Shmem in /proc/meminfo since before
# the recording (the buffers, touched whole at creation), the recorder's
# RSS, and one program's RSS beside its RSS before; then stops.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
SUBBUF=${SUBBUF:-256K}
SUBBUFS=${SUBBUFS:-8}
BUFFERS=${BUFFERS:-per-process}
tmp=$(mktemp -d /tmp/lt-bench-attachmem.XXXXXX)
pids=()
cleanup() {
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
[ $# -gt 0 ] || set -- 1 10 50
kib() { sed -n "s/^$1:[[:space:]]*\\([0-9]*\\) kB/\\1/p" "$2"; }
cpus=$(nproc)
echo "CPUs: $cpus; default channel $SUBBUFS x $SUBBUF per CPU; buffers $BUFFERS"
for n in "$@"; do
	pids=()
	for _ in $(seq "$n"); do
		"$B/tests/progs/ticker" 10000 > /dev/null &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		until grep -q "@lowtrace/app/$p\$" /proc/net/unix; do sleep 0.05; done
	done
	before_app=$(kib VmRSS "/proc/${pids[0]}/status")
	shm0=$(kib Shmem /proc/meminfo)
	list=$(IFS=,; echo "${pids[*]}")
	"$B/lowtrace" record -o "$tmp/t$n" -p "$list" --buffers "$BUFFERS" \
		--channel "default:subbuf-size=$SUBBUF,subbufs=$SUBBUFS" > "$tmp/out$n" 2>&1 &
	r=$!
	sleep 2
	shm1=$(kib Shmem /proc/meminfo)
	rec=$(kib VmRSS "/proc/$r/status")
	app=$(kib VmRSS "/proc/${pids[0]}/status")
	kill -INT $r
	wait $r || true
	kill "${pids[@]}"
	wait "${pids[@]}" 2> /dev/null || true
	echo "N=$n: buffers (Shmem growth) $(( (shm1 - shm0) / 1024 )) MiB," \
		"$(( (shm1 - shm0) / n )) KiB per process; recorder RSS $(( rec / 1024 )) MiB;" \
		"one program's RSS $before_app KiB before, $app KiB attached"
done
