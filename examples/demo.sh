#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The latency demo: a 10 ms periodic timer (examples/periodic) traced with the
# kernel's scheduler and interrupt events while a CPU hog (examples/disturb)
# shares its CPU, then the analysis that walks back from the late expiries to
# their cause, and where the CPU time went.  Needs root (kernel events).
# Usage: examples/demo.sh [DIR]
set -euo pipefail
B=${BUILD:-build}
dir=${1:-demo-trace}
rm -rf "$dir"
"$B"/lowtrace record -o "$dir" -k sched,irq --all -- sh -c \
	"$B/examples/disturb --hog --cpu 1 --duration-s 2 & $B/examples/periodic --cpu 1 --duration-s 1.5; wait"
echo
"$B"/lowtrace analyze jitter "$dir" --event demo:tick --period 10ms --top 3
echo
"$B"/lowtrace analyze latency "$dir" --anchor demo:late --top 3
echo
"$B"/lowtrace analyze cpu "$dir" --top 3
