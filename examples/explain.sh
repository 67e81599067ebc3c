#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The flight-recorder demo: examples/periodic's 10 ms timer beside a CPU hog
# (examples/disturb) on its CPU, recorded in memory only (the program's and
# the kernel's events in overwrite channels); each late tick triggers a
# snapshot, and `--explain` prints the verdict for it as soon as the
# snapshot is written.  Needs root (kernel events).
# Usage: examples/explain.sh [DIR]
set -euo pipefail
B=${BUILD:-build}
dir=${1:-explain-trace}
rm -rf "$dir"
cpu=$(($(nproc) - 1))
"$B"/lowtrace record -o "$dir" -k sched,irq \
	--channel kernel:mode=overwrite,subbuf-size=256K,subbufs=4 \
	--channel default:mode=overwrite,subbuf-size=64K,subbufs=4 \
	--trigger 'demo:late if late_us > 5000 -> snapshot' --trigger-holdoff 0 \
	--explain -- sh -c \
	"$B/examples/disturb --hog --cpu $cpu --duration-s 3 & $B/examples/periodic --cpu $cpu --duration-s 3; wait"
