#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ab.sh - two builds of lowtrace side by side on one trace: the CPU time
# of `lowtrace view TRACE --stats` (or of another lowtrace command) by
# each, in turn, so that the machine's drift between runs falls on both.
#
# usage: bench/ab.sh LOWTRACE_A LOWTRACE_B TRACE [ARGS...]
#        (ARGS default: view TRACE --stats; ROUNDS, default 6)
#
# Each round times `perf stat -r 5 -e task-clock` of A, then of B; prints
# the medians over the rounds (ms) and B / A.  perf stat's task-clock is
# the CPU time of the command; a ratio under 1 is B faster.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: bench/ab.sh LOWTRACE_A LOWTRACE_B TRACE [ARGS...]" >&2; exit 2; }
A=$1 B=$2 T=$3
shift 3
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(view "$T" --stats)
command -v perf > /dev/null || { echo "ab.sh: perf is not installed" >&2; exit 1; }
ms() { # the task-clock of perf stat -r 5 of "$@", ms
	perf stat -r 5 -x, -e task-clock "$@" 2>&1 > /dev/null | cut -d, -f1 | tail -n 1
}
a=() b=()
for _ in $(seq "${ROUNDS:-6}"); do
	a+=("$(ms "$A" "${args[@]}")")
	b+=("$(ms "$B" "${args[@]}")")
done
med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ma=$(med "${a[@]}") mb=$(med "${b[@]}")
printf 'A %s ms  B %s ms  B/A %.3f  (medians of %d rounds)\n' "$ma" "$mb" \
	"$(echo "$mb / $ma" | bc -l)" "${ROUNDS:-6}"
