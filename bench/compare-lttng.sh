#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/compare-lttng.sh - lowtrace's tracepoint beside LTTng-UST's.
#
# One event with two 32-bit integer fields on each side, 4 sub-buffers of
# 1 MiB per CPU in discard mode, the same loop around the call (bench/
# tp_harness.h).  Prints ns per enabled event with 1 and 2 threads (2: wall
# time over all events), events lost, the disabled tracepoint beside an
# empty loop of the same shape (bare, then around a little work), and a
# plain rdtsc loop; medians of RUNS runs, the two tracers alternating run
# by run.
#
# lowtrace runs three ways: as it chooses by itself (its clock: the cycle
# counter if the kernel's clocksource is tsc, else CLOCK_MONOTONIC, as
# LTTng-UST always reads; its ring: rseq channels); with the cycle counter
# forced (LOWTRACE_CLOCK=counter), which a machine whose kernel distrusts
# the TSC takes only on the user's word; and with the counter and the
# compare-and-swap ring (LOWTRACE_RING_SYNC=atomic), the ring without rseq;
# and, as it chooses, from C++: bench/tp_lowtrace.c compiled by g++
# (bench/tp_lowtrace_cxx.cpp).
#
# Markers, one thread: lowtrace's lt_tracef (bench/tp_tracef.c) beside
# LTTng-UST's tracef() (tp_lttng.c built with -DTP_TRACEF), both
# "ev %d %d" with the same two integers, and beside the LT_EVENT.
#
#	sudo bash bench/compare-lttng.sh        (from the repository)
#
# Environment: RUNS (default 7), EVENTS per thread and run (default
# 4000000), LOOPS for the disabled and rdtsc loops (default 200000000),
# BUILD (default build).  Needs root: it installs lttng-tools and
# liblttng-ust-dev if missing, and runs its own lttng-sessiond in a private
# mount namespace (its own /run/lttng and /dev/shm), with LTTNG_HOME and
# both traces in a temporary directory, all removed at the end.
set -euo pipefail

RUNS=${RUNS:-7}
EVENTS=${EVENTS:-4000000}
LOOPS=${LOOPS:-200000000}
BUILD=${BUILD:-build}
# the flags make gives bench/tp_lowtrace.c, with mk/bench-lttng.mk's
BENCH_CFLAGS="-std=gnu11 -D_GNU_SOURCE -O2 -g -fPIC -pthread"
BENCH_WARN="-Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes"
BENCH_ALIGN="-falign-loops=32"

die() {
	echo "compare-lttng: $*" >&2
	exit 1
}

cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || die "run as root (lttng-sessiond, apt-get, mounts)"

# --- outside the namespace: packages, build, then re-run inside ---------
if [ -z "${LT_BENCH_INSIDE:-}" ]; then
	if ! dpkg -s lttng-tools liblttng-ust-dev >/dev/null 2>&1; then
		echo "compare-lttng: installing lttng-tools liblttng-ust-dev" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			lttng-tools liblttng-ust-dev >&2 ||
			{ apt-get update -q >&2 &&
				DEBIAN_FRONTEND=noninteractive apt-get install \
					-y -q lttng-tools liblttng-ust-dev >&2; }
	fi
	command -v unshare >/dev/null || die "unshare (util-linux) missing"

	make -s -j2 "BUILD=$BUILD" "$BUILD/bench/tp_lowtrace" \
		"$BUILD/bench/tp_lowtrace_cxx" "$BUILD/bench/tp_tracef" >&2
	mkdir -p "$BUILD/bench"
	# flags are lists of words
	# shellcheck disable=SC2086,SC2046
	${CC:-gcc} $BENCH_CFLAGS $BENCH_WARN $BENCH_ALIGN -Ibench -Ibench/lttng \
		$(pkg-config --cflags lttng-ust) -o "$BUILD/bench/tp_lttng" \
		bench/lttng/tp_lttng.c bench/lttng/tp_lttng_provider.c \
		$(pkg-config --libs lttng-ust) ||
		die "building bench/lttng/tp_lttng.c failed"
	# shellcheck disable=SC2086,SC2046
	${CC:-gcc} $BENCH_CFLAGS $BENCH_WARN $BENCH_ALIGN -Ibench -Ibench/lttng \
		$(pkg-config --cflags lttng-ust) -DTP_TRACEF \
		-o "$BUILD/bench/tp_lttng_tracef" \
		bench/lttng/tp_lttng.c bench/lttng/tp_lttng_provider.c \
		$(pkg-config --libs lttng-ust) ||
		die "building bench/lttng/tp_lttng.c -DTP_TRACEF failed"

	# /run/lttng has to exist to be mounted on; remove it after if new
	made_rundir=
	if [ ! -e /run/lttng ]; then
		mkdir /run/lttng
		made_rundir=1
	fi
	rc=0
	LT_BENCH_INSIDE=1 RUNS=$RUNS EVENTS=$EVENTS LOOPS=$LOOPS BUILD=$BUILD \
		unshare --mount --propagation private bash "$0" || rc=$?
	[ -n "$made_rundir" ] && rmdir /run/lttng 2>/dev/null
	exit $rc
fi

# --- inside the private mount namespace ----------------------------------
mount -t tmpfs lt-bench-run /run/lttng
mount -t tmpfs lt-bench-shm /dev/shm
WORK=$(mktemp -d /tmp/lt-bench-lttng.XXXXXX)
export LTTNG_HOME=$WORK/home
mkdir -p "$LTTNG_HOME" "$WORK/vals"
SESSIOND_PID=

cleanup() {
	if [ -n "$SESSIOND_PID" ]; then
		kill "$SESSIOND_PID" 2>/dev/null || true
		wait "$SESSIOND_PID" 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

lttng-sessiond --no-kernel >"$WORK/sessiond.log" 2>&1 &
SESSIOND_PID=$!
for _ in $(seq 100); do
	lttng -n list >/dev/null 2>&1 && break
	kill -0 "$SESSIOND_PID" 2>/dev/null ||
		die "lttng-sessiond exited: $(tail -3 "$WORK/sessiond.log")"
	sleep 0.1
done
lttng -n list >/dev/null 2>&1 || die "lttng-sessiond does not answer"

LT=$BUILD/bench/tp_lowtrace
# the same source compiled as C++ (bench/tp_lowtrace_cxx.cpp)
LTCXX=$BUILD/bench/tp_lowtrace_cxx
# markers: lt_tracef, LTTng-UST's tracef()
LTTF=$BUILD/bench/tp_tracef
USTTF=$BUILD/bench/tp_lttng_tracef
UST=$BUILD/bench/tp_lttng

# field NAME LINE: the value of NAME=... in LINE
field() {
	sed -n "s/.*\\<$1=\\([0-9.]*\\).*/\\1/p" <<<"$2"
}

# put KEY VALUE: one more run's value
put() {
	echo "$2" >>"$WORK/vals/$1"
}

# median KEY
median() {
	sort -g "$WORK/vals/$1" | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2];
		      else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# maximum KEY
maximum() {
	sort -g "$WORK/vals/$1" | tail -1
}

# record TRACER THREADS NS EVENTS LOST
record() {
	local k=$1-$2
	put "$k.ns" "$3"
	put "$k.lost" "$5"
	put "$k.lostpct" "$(awk -v l="$5" -v e="$4" \
		'BEGIN { printf "%.1f", 100 * l / e }')"
	# wall time over the events kept: what a recorded event cost
	put "$k.kept" "$(awk -v n="$3" -v l="$5" -v e="$4" \
		'BEGIN { printf "%.3f", (l < e ? n * e / (e - l) : 0) }')"
}

# lost TRACER-THREADS: "median (median%), max max%"
lost() {
	echo "$(median "$1.lost") ($(median "$1.lostpct")%)," \
		"max $(maximum "$1.lostpct")%"
}

# run_lowtrace VARIANT THREADS: VARIANT lowtrace, ltcounter, ltatomic,
# ltcxx (the C++ build, as lowtrace otherwise) or lttracef (lt_tracef)
run_lowtrace() {
	local v=$1 t=$2 out env=() prog=$LT
	case $v in
	ltcounter) env=(LOWTRACE_CLOCK=counter) ;;
	ltatomic) env=(LOWTRACE_CLOCK=counter LOWTRACE_RING_SYNC=atomic) ;;
	ltcxx) prog=$LTCXX ;;
	lttracef) prog=$LTTF ;;
	esac
	out=$(env "${env[@]}" "$prog" enabled "$t" "$EVENTS" "$WORK/lt-trace") ||
		die "tp_lowtrace failed: $out"
	rm -rf "$WORK/lt-trace"
	record "$v" "$t" "$(field ns "$out")" "$(field events "$out")" \
		"$(field lost "$out")"
}

# run_lttng THREADS [tracef]: bench_lttng:ev, or tracef()'s event
run_lttng() {
	local t=$1 s=bench-$$ out stats lost prog=$UST ev=bench_lttng:ev key=lttng
	if [ "${2:-}" = tracef ]; then
		prog=$USTTF ev=lttng_ust_tracef:event key=lttngtracef
	fi
	lttng -n create "$s" --output="$WORK/ust-trace" >/dev/null
	lttng -n enable-channel -u -s "$s" --subbuf-size=1M --num-subbuf=4 \
		--discard ch >/dev/null
	lttng -n enable-event -u -s "$s" -c ch "$ev" >/dev/null
	lttng -n start "$s" >/dev/null
	out=$("$prog" enabled "$t" "$EVENTS") || {
		lttng -n destroy "$s" >/dev/null 2>&1
		die "tp_lttng failed: $out"
	}
	lttng -n stop "$s" >"$WORK/stop.out" 2>&1
	stats=$(lttng -n list "$s" -c ch)
	lttng -n destroy "$s" >/dev/null
	rm -rf "$WORK/ust-trace"
	lost=$(sed -n 's/.*Discarded events: *\([0-9]*\).*/\1/p' <<<"$stats")
	[ -n "$lost" ] || die "no 'Discarded events' in lttng list: $stats"
	record "$key" "$t" "$(field ns "$out")" "$(field events "$out")" "$lost"
}

echo "compare-lttng: $RUNS runs of $EVENTS events per thread, each tracer" >&2
for r in $(seq "$RUNS"); do
	for t in 1 2; do
		# alternate which goes first, so that drift hits both alike
		if [ $((r % 2)) = 1 ]; then
			run_lowtrace lowtrace "$t"
			run_lttng "$t"
		else
			run_lttng "$t"
			run_lowtrace lowtrace "$t"
		fi
		run_lowtrace ltcounter "$t"
		if [ "$t" = 1 ]; then
			run_lowtrace ltatomic "$t"
			run_lowtrace ltcxx "$t"
			if [ $((r % 2)) = 1 ]; then
				run_lowtrace lttracef "$t"
				run_lttng "$t" tracef
			else
				run_lttng "$t" tracef
				run_lowtrace lttracef "$t"
			fi
		fi
	done
	for tr in lowtrace lttng; do
		if [ $tr = lowtrace ]; then
			out=$("$LT" disabled 1 "$LOOPS")
		else
			out=$("$UST" disabled 1 "$LOOPS")
		fi
		for f in disabled empty dwork work; do
			put "$tr.$f" "$(field $f "$out")"
		done
	done
	out=$("$LT" floor 1 $((LOOPS / 10)))
	put rdtsc "$(field rdtsc "$out")"
	echo "compare-lttng: run $r of $RUNS done" >&2
done

# --- the table -----------------------------------------------------------
ust_version=$(dpkg-query -W -f='${Version}' liblttng-ust-dev 2>/dev/null ||
	echo '?')
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'
}
echo
echo "lowtrace vs LTTng-UST $ust_version: event with two 32-bit integer fields;"
echo "4 x 1 MiB sub-buffers per CPU, discard mode; $EVENTS events per thread"
echo "and run; medians of $RUNS runs; $(uname -r), $(nproc) CPUs, $(date -u '+%F %H:%M UTC');"
echo "kernel clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo '?')"
echo
printf '%-26s %3s %9s %9s %6s   %-26s %s\n' "ns per event" thr lowtrace \
	LTTng-UST ratio "lost, lowtrace" "lost, LTTng-UST"
for t in 1 2; do
	a=$(median "lowtrace-$t.ns")
	b=$(median "lttng-$t.ns")
	printf '%-26s %3d %9.2f %9.2f %6s   %-26s %s\n' \
		"enabled$([ "$t" = 2 ] && echo ', aggregate')" "$t" "$a" "$b" \
		"$(ratio "$b" "$a")" "$(lost "lowtrace-$t")" "$(lost "lttng-$t")"
done
for v in "ltcounter 1 enabled, counter clock" \
	"ltcounter 2 enabled, counter, aggregate" \
	"ltatomic 1 enabled, counter, atomic ring" \
	"ltcxx 1 enabled, from C++"; do
	read -r k t label <<<"$v"
	a=$(median "$k-$t.ns")
	b=$(median "lttng-$t.ns")
	printf '%-26s %3d %9.2f %9.2f %6s   %-26s\n' "$label" "$t" "$a" "$b" \
		"$(ratio "$b" "$a")" "$(lost "$k-$t")"
done
a=$(median "lttracef-1.ns")
b=$(median "lttngtracef-1.ns")
printf '%-26s %3d %9.2f %9.2f %6s   %-26s %s\n' "marker (tracef)" 1 "$a" "$b" \
	"$(ratio "$b" "$a")" "$(lost lttracef-1)" "$(lost lttngtracef-1)"
for t in 1 2; do
	a=$(median "lowtrace-$t.kept")
	b=$(median "lttng-$t.kept")
	printf '%-26s %3d %9.2f %9.2f %6s\n' "enabled, per event kept" "$t" \
		"$a" "$b" "$(ratio "$b" "$a")"
done
# loop_row LABEL KEY: ns per iteration of one loop, both tracers
loop_row() {
	local a b
	a=$(median "lowtrace.$2")
	b=$(median "lttng.$2")
	printf '%-26s %3d %9.3f %9.3f %6s\n' "$1" 1 "$a" "$b" "$(ratio "$b" "$a")"
}
loop_row "disabled tracepoint" disabled
loop_row "empty loop, same shape" empty
loop_row "disabled, loop with work" dwork
loop_row "the work alone" work
printf '%-26s %3d %9.2f\n' "rdtsc alone (floor)" 1 "$(median rdtsc)"
echo
echo "marker: lt_tracef(\"ev %d %d\", i, i ^ 0x55) beside LTTng-UST's tracef() of"
echo "the same; lt_tracef / LT_EVENT (enabled, 1 thread): $(ratio "$(median lttracef-1.ns)" "$(median lowtrace-1.ns)")."
echo "ratio: LTTng-UST / lowtrace.  lost: median events lost per run (% of"
echo "the run's events), and the worst run.  per event kept: wall time over"
echo "the events that reached the trace.  Disabled, empty, work, rdtsc: ns"
echo "per iteration of a loop of $LOOPS ($((LOOPS / 10)) for rdtsc) on CPU 0;"
echo "the work: a xorshift step, six dependent operations."
