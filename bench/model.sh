#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# model.sh - the trace model's pass over a generated kernel scheduling trace.
#
# usage: bench/model.sh [NEVENTS] (default 50000000; CPUS=2, THREADS=300,
#                                   RUNS=3; LTTNG=1: an lttng-modules trace
#                                   from tests/gen_ctf.py --kernel instead)
#
# Generates a trace with build/bench/gen_sched (the shape `lowtrace record
# -k sched,irq --all` writes), then times, RUNS runs each, median reported:
#   model_pass DIR                 reader + lt_model_feed per event + finish
#   model_pass DIR --decode-only   the reader alone (lt_reader_next)
#   lowtrace view DIR --stats      the reader, every field read
# and prints events/s (wall clock and CPU time) and the peak RSS (getrusage;
# anon and file parts at the end, the mapped trace counting as file).
# The trace (about 42 bytes an event) is deleted at the end; when $TMPDIR
# (default /tmp) has not room for it, one that fills half the free space is
# used, and said so.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
N=${1:-50000000}
CPUS=${CPUS:-2}
THREADS=${THREADS:-300}
RUNS=${RUNS:-3}
TMP=${TMPDIR:-/tmp}

# room for the trace: about 42 bytes an event, with a margin
need_kib=$((N / 1024 * 50 + 1024))
free_kib=$(df -Pk "$TMP" | awk 'NR == 2 { print $4 }')
if [ "$free_kib" -lt "$need_kib" ]; then
	fit=$((free_kib / 2 / 50 * 1024)) # half the free space: the disk is shared
	if [ "$fit" -lt 1000000 ]; then
		echo "model.sh: $TMP has $((free_kib / 1024)) MiB free, not room for 1 M events (set TMPDIR)" >&2
		exit 1
	fi
	echo "model.sh: $TMP has $((free_kib / 1024)) MiB free, not enough for $N events (about $((need_kib / 1024)) MiB): using $fit" >&2
	N=$fit
fi
tmp=$(mktemp -d "$TMP/lt-bench-model.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

g0=$(date +%s.%N)
if [ "${LTTNG:-0}" != 0 ]; then
	# an lttng-modules kernel trace (tests/gen_ctf.py --kernel: 2 CPUs,
	# 300 threads, LTTng's names and layout)
	python3 "$top/tests/gen_ctf.py" "$tmp/t" --kernel --events "$N"
	echo "gen_ctf.py --kernel" > "$tmp/gen"
	CPUS=2 THREADS=300
else
	"$B/bench/gen_sched" "$tmp/t" "$N" --cpus "$CPUS" --threads "$THREADS" 2> "$tmp/gen"
fi
g1=$(date +%s.%N)
bytes=$(du -sb "$tmp/t" | cut -f1)
printf 'trace: %s events, %d MiB, %s CPUs, %s threads; generated in %.1f s (%s)\n' \
	"$N" $((bytes / 1048576)) "$CPUS" "$THREADS" "$(awk -v a="$g0" -v b="$g1" 'BEGIN { print b - a }')" \
	"$(sed 's/^gen_sched: //' "$tmp/gen")"
echo "machine: $(nproc) CPUs, $(free -m | awk '/^Mem:/ { print $2 }') MiB RAM; the trace is in the page cache (a warm-up run reads it first)"

# median of RUNS of model_pass "$@": "WALL CPU RSS ANON FILE" and the last
# run's line in $tmp/line
median_pass() {
	local w=() c=() m=() a=() f=()
	for _ in $(seq "$RUNS"); do
		"$B/bench/model_pass" "$tmp/t" "$@" > "$tmp/line"
		read -r -a v < "$tmp/line"
		# events N sched N slices N threads N inferred N wall S cpu S
		# rss_max_kib N rss_anon_kib N rss_file_kib N
		w+=("${v[11]}") c+=("${v[13]}") m+=("${v[15]}") a+=("${v[17]}") f+=("${v[19]}")
	done
	local mid=$(((RUNS + 1) / 2))
	med() { printf '%s\n' "$@" | sort -g | sed -n "${mid}p"; }
	echo "$(med "${w[@]}") $(med "${c[@]}") $(med "${m[@]}") $(med "${a[@]}") $(med "${f[@]}")"
}

. "$top/bench/median_time.sh"

"$B/bench/model_pass" "$tmp/t" --decode-only > /dev/null # warm the page cache
read -r w_m c_m rss_m anon_m file_m <<< "$(median_pass)"
echo "model: $(sed 's/ wall.*//' "$tmp/line")"
read -r w_d c_d rss_d anon_d file_d <<< "$(median_pass --decode-only)"
read -r w_v c_v rss_v <<< "$(median_time "$B/lowtrace" view "$tmp/t" --stats)"

row() { # label, wall s, cpu s, peak RSS KiB, extra
	printf '%-34s %6.2f s %6.1f M ev/s   cpu %6.2f s %6.1f M ev/s   peak RSS %5d MiB%s\n' \
		"$1" "$2" "$(awk -v n="$N" -v s="$2" 'BEGIN { print n / s / 1e6 }')" "$3" \
		"$(awk -v n="$N" -v s="$3" 'BEGIN { print n / (s + 0.001) / 1e6 }')" \
		$(($4 / 1024)) "$5"
}
echo "median of $RUNS runs: wall clock, and CPU time (user + system)"
row "model_pass DIR (reader + model)" "$w_m" "$c_m" "$rss_m" \
	" (at the end: anon $((anon_m / 1024)) MiB, file $((file_m / 1024)) MiB)"
row "model_pass DIR --decode-only" "$w_d" "$c_d" "$rss_d" \
	" (at the end: anon $((anon_d / 1024)) MiB, file $((file_d / 1024)) MiB)"
row "lowtrace view DIR --stats" "$w_v" "$c_v" "$rss_v" ""
