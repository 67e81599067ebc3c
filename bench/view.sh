#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# view.sh - `lowtrace view` beside babeltrace2 on one synthetic trace.
#
# usage: bench/view.sh [NEVENTS] (default 3000000; MIX=full|small, CPUS=4)
#
# Generates a trace with build/bench/gen_trace, then times, 3 runs each,
# median reported:
#   lowtrace view DIR > /dev/null            text output
#   babeltrace2 DIR > /dev/null              text output
#   lowtrace view DIR --stats                decode only (every field read)
#   babeltrace2 DIR -c sink.utils.dummy      decode only
# and prints events/s for each (wall clock and CPU time) and the ratios
# lowtrace / babeltrace2; then the same on two traces that
# tests/gen_ctf.py writes, FOREIGN_EVENTS events each (default NEVENTS):
# an lttng-modules kernel trace (KERNEL=0 leaves it out) and a trace of
# LTTng's layout with every feature of the format mixed (FOREIGN=0 leaves
# it out); and on an LTTng-UST trace with contexts that lttng-tools
# records (as root; UST=0 leaves it out), and its CTF 2 twin
# (tests/gen_ctf2.py --from, its stream files the recorded ones; CTF2=0
# leaves it out): the table, babeltrace2
# left out when it does not read CTF 2 (2.0.4 does not), then the decode
# rates of the two twins side by side (11 runs each in pairs, medians)
# and their ratio.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
N=${1:-3000000}
MIX=${MIX:-small}
CPUS=${CPUS:-4}
tmp=$(mktemp -d /tmp/lt-bench-view.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

command -v babeltrace2 > /dev/null || { echo "view.sh: babeltrace2 is not installed" >&2; exit 1; }
"$B/bench/gen_trace" "$tmp/t" "$N" --cpus "$CPUS" --mix "$MIX" --no-empty
total=$("$B/lowtrace" view "$tmp/t" --stats | sed -n 's/^events: //p')
bytes=$(du -sb "$tmp/t" | cut -f1)
echo "trace: $total events, $((bytes / 1048576)) MiB, $CPUS CPUs + 1 stream, mix $MIX"

# median of 3 runs of "$@": "WALL CPU" seconds (CPU = user + system, which
# other load on the machine disturbs less than the wall clock), to the ms:
# bash's time reads the rusage to the microsecond, where /usr/bin/time
# prints hundredths, a step of 4% of lowtrace's quarter of a second
median3() {
	local w=() c=() TIMEFORMAT='%3R %3U %3S'
	for _ in 1 2 3; do
		{ time "$@" > /dev/null 2>&1; } 2> "$tmp/time"
		read -r e u s < "$tmp/time"
		w+=("$e")
		c+=("$(echo "$u + $s" | bc -l)")
	done
	echo "$(printf '%s\n' "${w[@]}" | sort -g | sed -n 2p)" \
		"$(printf '%s\n' "${c[@]}" | sort -g | sed -n 2p)"
}

# times the four commands on the trace in $1 and prints the table (the
# two of lowtrace alone when babeltrace2 prints no event of it)
measure() {
	local d=$1 total
	total=$("$B/lowtrace" view "$d" --stats 2> /dev/null | sed -n 's/^events: //p')
	echo "events: $total"
	if [ -z "$(babeltrace2 "$d" 2> /dev/null | head -c 1)" ]; then
		read -r w_view c_view <<< "$(median3 "$B/lowtrace" view "$d")"
		read -r w_stats c_stats <<< "$(median3 "$B/lowtrace" view "$d" --stats)"
		echo "median of 3 runs: wall clock, and CPU time (user + system); babeltrace2 $(babeltrace2 --version | sed -n 's/^Babeltrace \([^ ]*\).*/\1/p') reads none of its events"
		printf '%-42s %7.2f s %11.0f ev/s   cpu %7.2f s %11.0f ev/s\n' \
			"lowtrace view DIR > /dev/null" "$w_view" "$(echo "$total / $w_view" | bc -l)" \
			"$c_view" "$(echo "$total / ($c_view + 0.001)" | bc -l)" \
			"lowtrace view DIR --stats (decode only)" "$w_stats" \
			"$(echo "$total / $w_stats" | bc -l)" "$c_stats" \
			"$(echo "$total / ($c_stats + 0.001)" | bc -l)"
		return
	fi
	read -r w_view c_view <<< "$(median3 "$B/lowtrace" view "$d")"
	read -r w_bt c_bt <<< "$(median3 babeltrace2 "$d")"
	read -r w_stats c_stats <<< "$(median3 "$B/lowtrace" view "$d" --stats)"
	read -r w_btd c_btd <<< "$(median3 babeltrace2 "$d" -c sink.utils.dummy)"
	row() { # label, wall seconds, cpu seconds
		printf '%-42s %7.2f s %11.0f ev/s   cpu %7.2f s %11.0f ev/s\n' "$1" "$2" \
			"$(echo "$total / $2" | bc -l)" "$3" "$(echo "$total / ($3 + 0.001)" | bc -l)"
	}
	echo "median of 3 runs: wall clock, and CPU time (user + system)"
	row "lowtrace view DIR > /dev/null" "$w_view" "$c_view"
	row "babeltrace2 DIR > /dev/null" "$w_bt" "$c_bt"
	row "lowtrace view DIR --stats (decode only)" "$w_stats" "$c_stats"
	row "babeltrace2 DIR -c sink.utils.dummy" "$w_btd" "$c_btd"
	printf 'ratio text output (lowtrace / babeltrace2): %.1fx wall, %.1fx cpu\n' \
		"$(echo "$w_bt / $w_view" | bc -l)" "$(echo "$c_bt / ($c_view + 0.001)" | bc -l)"
	printf 'ratio decode only (lowtrace / babeltrace2): %.1fx wall, %.1fx cpu\n' \
		"$(echo "$w_btd / $w_stats" | bc -l)" "$(echo "$c_btd / ($c_stats + 0.001)" | bc -l)"
}
# the decode rates (view --stats, CPU time) of the CTF 1.8 trace in $1
# and of its CTF 2 twin in $2, 11 runs each in pairs (the first of a pair
# in turn one and the other): the medians, and the median of the pairs'
# ratios, which a drift of the machine's speed between pairs leaves alone
twins() {
	local a=() b=() q=() TIMEFORMAT='%3U %3S' total u s i
	total=$("$B/lowtrace" view "$1" --stats 2> /dev/null | sed -n 's/^events: //p')
	one() { # prints the CPU seconds of view --stats on $1
		{ time "$B/lowtrace" view "$1" --stats > /dev/null 2>&1; } 2> "$tmp/time"
		read -r u s < "$tmp/time"
		echo "$u + $s" | bc -l
	}
	for i in 0 1 2 3 4 5 6 7 8 9 10; do
		if [ $((i % 2)) = 0 ]; then
			a+=("$(one "$1")")
			b+=("$(one "$2")")
		else
			b+=("$(one "$2")")
			a+=("$(one "$1")")
		fi
		q+=("$(echo "(${a[$i]} + 0.001) / (${b[$i]} + 0.001)" | bc -l)")
	done
	local ma mb mq
	ma=$(printf '%s\n' "${a[@]}" | sort -g | sed -n 6p)
	mb=$(printf '%s\n' "${b[@]}" | sort -g | sed -n 6p)
	mq=$(printf '%s\n' "${q[@]}" | sort -g | sed -n 6p)
	echo "decode only, CPU time, medians of 11 runs each, in pairs:"
	printf '  CTF 1.8: %.3f s %11.0f ev/s   CTF 2: %.3f s %11.0f ev/s   CTF 2 / CTF 1.8: %.3f (median of the pairs: %.3f)\n' \
		"$ma" "$(echo "$total / ($ma + 0.001)" | bc -l)" "$mb" \
		"$(echo "$total / ($mb + 0.001)" | bc -l)" "$(echo "($ma + 0.001) / ($mb + 0.001)" | bc -l)" "$mq"
}

measure "$tmp/t"

rm -rf "$tmp/t"

# an lttng-modules kernel trace (tests/gen_ctf.py --kernel: LTTng's
# kernel event names and fields, compact headers, two CPUs' streams)
if [ "${KERNEL:-1}" != 0 ]; then
	FN=${FOREIGN_EVENTS:-$N}
	python3 "$top/tests/gen_ctf.py" "$tmp/k" --kernel --events "$FN" --seed 7
	echo
	echo "kernel trace: $FN events of lttng-modules' layout (tests/gen_ctf.py --kernel), $(($(du -sb "$tmp/k" | cut -f1) / 1048576)) MiB"
	measure "$tmp/k"
	rm -rf "$tmp/k"
fi

# the mixed case: a trace of LTTng's layout (tests/gen_ctf.py: LTTng's
# compact and large event headers, packet context, contexts, big-endian
# fields, packetized metadata), FOREIGN_EVENTS events (default NEVENTS)
if [ "${FOREIGN:-1}" != 0 ]; then
	FN=${FOREIGN_EVENTS:-$N}
	python3 "$top/tests/gen_ctf.py" "$tmp/f" --events "$FN" --packetized --seed 7
	echo
	echo "mixed trace: $FN events of LTTng's layout, every feature (tests/gen_ctf.py), $(($(du -sb "$tmp/f" | cut -f1) / 1048576)) MiB"
	measure "$tmp/f"
	rm -rf "$tmp/f"
fi

# an LTTng-UST trace with contexts (vpid, vtid, procname), recorded here
# with lttng-tools (tests/lttng/record.sh: per-UID buffers, two processes
# of two threads): as root only, UST=0 leaves it out
if [ "${UST:-1}" != 0 ] && [ "$(id -u)" -eq 0 ] && command -v lttng > /dev/null; then
	per=$((${FOREIGN_EVENTS:-$N} / 8)) # events per thread and event kind
	if bash "$top/tests/lttng/record.sh" "$tmp/u" "$per" 4M --buffers-uid \
		vpid vtid procname > "$tmp/rec.log" 2>&1; then
		echo
		echo "LTTng-UST trace: $(($(du -sb "$tmp/u" | cut -f1) / 1048576)) MiB, contexts vpid, vtid, procname"
		measure "$tmp/u"
		if [ "${CTF2:-1}" != 0 ]; then
			python3 "$top/tests/gen_ctf2.py" "$tmp/u2" --from "$tmp/u"
			# the twin's stream files made the recorded ones (hard
			# links): a copy just written sits otherwise in the page
			# cache and took 5% longer to read, whatever its metadata
			(cd "$tmp/u" && find . -type f ! -name metadata) | while read -r f; do
				ln -f "$tmp/u/$f" "$tmp/u2/ctf2/$f"
			done
			echo
			echo "its CTF 2 twin (tests/gen_ctf2.py --from): the same stream files (linked), JSON metadata"
			measure "$tmp/u2/ctf2"
			twins "$tmp/u" "$tmp/u2/ctf2"
		fi
	else
		echo "view.sh: recording the LTTng-UST trace failed: $(tail -3 "$tmp/rec.log")" >&2
	fi
fi
