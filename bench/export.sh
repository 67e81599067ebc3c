#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# export.sh - `lowtrace export --format perfetto`: its speed, its peak
# memory as the trace grows, and the size of what it writes beside the CTF
# trace and beside the Chrome JSON export of the same trace.
#
# usage: bench/export.sh [NEVENTS...]   (default: 5000000 50000000)
#   RUNS=3          runs of each timing, median reported
#   LTTNG_EVENTS=N  events of the lttng-modules trace (default 5000000;
#                   0 leaves it out; tests/gen_ctf.py writes it, slowly)
#   JSON=0          leaves the Chrome JSON export out (its size and time)
#   BASE=DIR        another build directory (of another commit): its
#                   export --format perfetto timed too, on the same traces,
#                   each of its runs beside one of this build's
#
# For each NEVENTS, a trace of lowtrace's kernel layout from
# build/bench/gen_sched (2 CPUs, 300 threads: the shape `lowtrace record
# -k sched,irq --all` writes); then one of lttng-modules' layout
# (tests/gen_ctf.py --kernel).  Each is read once to warm the page cache,
# then timed, side by side in one run:
#   model_pass DIR            the reader and the trace model alone, the
#                             floor of the export's pass
#   export --format perfetto  to a file in the same directory
#   export --format chrome    once (JSON=1)
# Each export writes a new file, as a user's does: the one before is
# deleted and synced first (freeing its pages would be counted otherwise).
# The export runs on two CPUs (the pass, and a thread writing its output),
# so its wall clock is its speed; CPU time is both threads'.
# It prints events/s by wall clock and by CPU time (user + system), the
# peak RSS (/usr/bin/time's), and the sizes: CTF (the stream files and
# metadata), .pftrace, JSON, with their ratios.  The traces are deleted
# at the end.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
RUNS=${RUNS:-3}
LTTNG_EVENTS=${LTTNG_EVENTS:-5000000}
JSON=${JSON:-1}
TMP=${TMPDIR:-/tmp}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(5000000 50000000)

tmp=$(mktemp -d "$TMP/lt-bench-export.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "machine: $(nproc) CPUs, $(free -m | awk '/^Mem:/ { print $2 }') MiB RAM, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commit: $(git -C "$top" rev-parse --short HEAD 2> /dev/null || echo unknown)"

. "$top/bench/median_time.sh"

row() { # label, events, wall s, cpu s, peak RSS KiB
	printf '  %-28s %7.2f s %6.1f M ev/s   cpu %6.2f s %6.1f M ev/s   peak RSS %5d MiB\n' \
		"$1" "$3" "$(awk -v n="$2" -v s="$3" 'BEGIN { print n / (s + 0.001) / 1e6 }')" "$4" \
		"$(awk -v n="$2" -v s="$4" 'BEGIN { print n / (s + 0.001) / 1e6 }')" $(($5 / 1024))
}

# measure LABEL DIR EVENTS
measure() {
	local label=$1 dir=$2 n=$3
	local BEFORE_RUN='rm -f "$tmp"/*.pftrace; sync'
	local ctf
	ctf=$(du -sb "$dir" | cut -f1)
	echo
	echo "$label: $n events, CTF $((ctf / 1048576)) MiB"
	"$B/bench/model_pass" "$dir" --decode-only > /dev/null # warm the page cache
	read -r w c m <<< "$(median_time "$B/bench/model_pass" "$dir")"
	row "model_pass (reader + model)" "$n" "$w" "$c" "$m"
	if [ -n "${BASE:-}" ]; then
		# one run of each in turn, so that both see the same load
		local bw=() bc=() bm=() hw=() hc=() hm=() RUNS_ALL=$RUNS bpf
		RUNS=1
		for _ in $(seq "$RUNS_ALL"); do
			read -r w c m <<< "$(median_time "$BASE/lowtrace" export --format perfetto "$dir" -o "$tmp/base.pftrace")"
			bw+=("$w") bc+=("$c") bm+=("$m")
			bpf=$(stat -c %s "$tmp/base.pftrace")
			read -r w c m <<< "$(median_time "$B/lowtrace" export --format perfetto "$dir" -o "$tmp/out.pftrace")"
			hw+=("$w") hc+=("$c") hm+=("$m")
		done
		RUNS=$RUNS_ALL
		local mid=$(((RUNS + 1) / 2))
		med() { printf '%s\n' "$@" | sort -g | sed -n "${mid}p"; }
		row "export --format perfetto BASE" "$n" "$(med "${bw[@]}")" "$(med "${bc[@]}")" "$(med "${bm[@]}")"
		row "export --format perfetto" "$n" "$(med "${hw[@]}")" "$(med "${hc[@]}")" "$(med "${hm[@]}")"
		rm -f "$tmp/base.pftrace"
		echo "  BASE's .pftrace $((bpf / 1048576)) MiB ($(awk -v a="$bpf" -v n="$n" 'BEGIN { printf "%.1f", a / n }') bytes an event)"
	else
		read -r w c m <<< "$(median_time "$B/lowtrace" export --format perfetto "$dir" -o "$tmp/out.pftrace")"
		row "export --format perfetto" "$n" "$w" "$c" "$m"
	fi
	local pf
	pf=$(stat -c %s "$tmp/out.pftrace")
	rm -f "$tmp/out.pftrace"
	local line
	line="  sizes: CTF $((ctf / 1048576)) MiB, .pftrace $((pf / 1048576)) MiB ($(awk -v a="$pf" -v b="$ctf" 'BEGIN { printf "%.2f", a / b }') of CTF, $(awk -v a="$pf" -v n="$n" 'BEGIN { printf "%.1f", a / n }') bytes an event)"
	if [ "$JSON" != 0 ]; then
		/usr/bin/time -o "$tmp/time" -f '%e %U %S %M' "$B/lowtrace" export "$dir" -o "$tmp/out.json"
		read -r e u s k < "$tmp/time"
		local js
		js=$(stat -c %s "$tmp/out.json")
		rm -f "$tmp/out.json"
		row "export --format chrome (1 run)" "$n" "$e" "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" "$k"
		line="$line, JSON $((js / 1048576)) MiB (.pftrace $(awk -v a="$js" -v b="$pf" 'BEGIN { printf "%.1f", a / b }')x smaller)"
	fi
	echo "$line"
}

for n in "${sizes[@]}"; do
	"$B/bench/gen_sched" "$tmp/t" "$n" --cpus 2 --threads 300 2> /dev/null
	measure "lowtrace's kernel layout (bench/gen_sched)" "$tmp/t" "$n"
	rm -rf "$tmp/t"
done

if [ "$LTTNG_EVENTS" != 0 ]; then
	python3 "$top/tests/gen_ctf.py" "$tmp/k" --kernel --events "$LTTNG_EVENTS" --seed 7
	n=$("$B/lowtrace" view "$tmp/k" --stats | sed -n 's/^events: //p')
	measure "lttng-modules' layout (tests/gen_ctf.py --kernel)" "$tmp/k" "$n"
	rm -rf "$tmp/k"
fi
