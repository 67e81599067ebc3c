#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/record.sh - what `lowtrace record` sustains, and what it costs the
# traced program.  One invocation runs everything and prints one table.
#
#	bash bench/record.sh        (from the repository, after make)
#
# 1. Highest zero-loss rate: bench/record_load (event with two 32-bit
#    integer fields) under `lowtrace record` with the default channel
#    (8 x 256 KiB per CPU, discard), 1 and 2 producing threads, paced at an
#    aggregate target rate for TRIAL_S seconds.  A trial passes when the
#    summary line on stderr reports no event lost (in full buffers, torn,
#    or packets not written), the trace holds every event emitted, and the
#    program reached 95% of the target.  Each search doubles from MIN_RATE
#    until a trial fails or MAX_RATE passes, then bisects (geometric mean)
#    until the bounds are within 10%; the figure is the median of SEARCHES
#    searches.  Then the 10 M events/s goal is tried GOAL_RUNS times, and
#    the program runs flat out under record (its own ceiling, and the loss).
# 2. Slowdown at 1 M events/s: record_load -w W with W units of arithmetic
#    per event, W calibrated (record_load -c) so that the work of one
#    event takes 1 us of CPU time; SLOW_EVENTS events flat out (1 thread; with 2 threads
#    each does half the events and twice the work per event, 1 M events/s
#    aggregate).  Wall time untraced, under record with no event enabled
#    (-e 'nothing:*'), and under record with the event enabled; the three
#    alternate run by run, RUNS runs, medians; slowdown is the median's
#    excess over the untraced median, in wall time and in the producing
#    threads' CPU time (which other processes on a shared machine do not
#    inflate).
#
# Environment: BUILD (default build), TRACE_DIR (where the traces go,
# default a directory made under /tmp, removed at the end), TRIAL_S (0.5),
# SEARCHES (3), GOAL_RUNS (3), RUNS (5), SLOW_EVENTS (500000), MIN_RATE
# (500000), MAX_RATE (50000000).
set -euo pipefail

BUILD=${BUILD:-build}
TRIAL_S=${TRIAL_S:-0.5}
SEARCHES=${SEARCHES:-3}
GOAL_RUNS=${GOAL_RUNS:-3}
RUNS=${RUNS:-5}
SLOW_EVENTS=${SLOW_EVENTS:-500000}
MIN_RATE=${MIN_RATE:-500000}
MAX_RATE=${MAX_RATE:-50000000}
GOAL_RATE=10000000
SLOW_RATE=1000000

die() {
	echo "record.sh: $*" >&2
	exit 1
}

cd "$(dirname "$0")/.."
LT=$BUILD/lowtrace
LOAD=$BUILD/bench/record_load
[ -x "$LT" ] && [ -x "$LOAD" ] || die "build first: make -j2"
unset LOWTRACE_TRACE LOWTRACE_SESSION_SOCK

WORK=$(mktemp -d /tmp/lt-bench-record.XXXXXX)
TRACE_DIR=${TRACE_DIR:-$WORK}
mkdir -p "$TRACE_DIR" "$WORK/vals"
trap 'rm -rf "$WORK" "$TRACE_DIR/lt-bench-trace"' EXIT
trap 'exit 130' INT TERM
T0=$(date +%s)

# field NAME LINE: the value of NAME=... in LINE
field() {
	sed -n "s/.*\\<$1=\\([0-9.]*\\).*/\\1/p" <<<"$2"
}

put() {
	echo "$2" >>"$WORK/vals/$1"
}

# median KEY
median() {
	sort -g "$WORK/vals/$1" | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2];
		      else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# list KEY: the values, in run order, separated by spaces
list() {
	tr '\n' ' ' <"$WORK/vals/$1" | sed 's/ $//'
}

# suspicious TEXT: noted for the end of the report
suspicious() {
	echo "$*" >>"$WORK/suspicious"
	echo "record.sh: suspicious: $*" >&2
}

# sum_of PATTERN TEXT: sum of the numbers N in "N PATTERN" in TEXT
sum_of() {
	{ grep -o "[0-9][0-9]* $1" <<<"$2" || true; } |
		awk '{ s += $1 } END { print s + 0 }'
}

# traced ARGS...: record_load ARGS under `lowtrace record -e ...`, whose
# first argument is the -e pattern.  Sets OUT (the program's line),
# EMITTED, RECORDED, LOST (full + torn) and UNWRITTEN (packets).
traced() {
	local pattern=$1 err
	shift
	local dir=$TRACE_DIR/lt-bench-trace
	rm -rf "$dir"
	if ! OUT=$("$LT" record -o "$dir" -e "$pattern" -- "$LOAD" "$@" \
		2>"$WORK/err"); then
		die "lowtrace record -- record_load $* failed: $(cat "$WORK/err")"
	fi
	err=$(cat "$WORK/err")
	rm -rf "$dir"
	local line
	line=$(grep '^lowtrace: recorded [0-9]* events' <<<"$err" | tail -1) ||
		die "no summary line from lowtrace record: $err"
	EMITTED=$(field events "$OUT")
	[ -n "$EMITTED" ] || die "no output from record_load: $OUT / $err"
	RECORDED=$(sed -n 's/^lowtrace: recorded \([0-9]*\) events.*/\1/p' \
		<<<"$line")
	LOST=$(($(sum_of 'lost in full buffers' "$line") +
		$(sum_of 'torn by a process' "$line")))
	UNWRITTEN=$(sum_of 'packets not written' "$line")
	if [ "$pattern" != 'nothing:*' ] &&
		[ $((RECORDED + LOST)) != "$EMITTED" ]; then
		suspicious "record_load $* emitted $EMITTED events; the" \
			"summary says $RECORDED recorded + $LOST lost" \
			"($((EMITTED - RECORDED - LOST)) unaccounted): $line"
	fi
}

# trial THREADS RATE: 0 when the rate is sustained without loss
trial() {
	traced 'record_load:*' -t "$1" -r "$2" -d "$TRIAL_S"
	local achieved why=
	achieved=$(field rate "$OUT")
	if [ "$LOST" != 0 ] || [ "$UNWRITTEN" != 0 ] ||
		[ "$RECORDED" != "$EMITTED" ]; then
		why=loss
	elif awk -v a="$achieved" -v r="$2" 'BEGIN { exit a >= 0.95 * r }'; then
		why=slow
	fi
	printf 'record.sh:   %d thr %10d/s: achieved %10d/s, %9d emitted, %8d lost%s\n' \
		"$1" "$2" "$achieved" "$EMITTED" "$LOST" \
		"${why:+  FAIL ($why)}" >&2
	[ -z "$why" ] || echo "$2" >>"$WORK/vals/fail-$1.$why"
	[ -z "$why" ]
}

# search THREADS: prints the highest passing rate found (0: none)
search() {
	local t=$1 lo=0 hi=0 r=$MIN_RATE
	while :; do
		if trial "$t" "$r"; then
			lo=$r
			[ "$r" -ge "$MAX_RATE" ] && break
			r=$((r * 2 > MAX_RATE ? MAX_RATE : r * 2))
		else
			hi=$r
			break
		fi
	done
	if [ "$hi" -gt 0 ] && [ "$lo" -gt 0 ]; then
		while awk -v l="$lo" -v h="$hi" 'BEGIN { exit !(h > 1.1 * l) }'; do
			r=$(awk -v l="$lo" -v h="$hi" \
				'BEGIN { printf "%d", sqrt(l * h) }')
			if trial "$t" "$r"; then lo=$r; else hi=$r; fi
		done
	fi
	echo "$lo"
}

LOAD0=$(cut -d' ' -f1 /proc/loadavg)
echo "record.sh: $(uname -r), $(nproc) CPUs; traces in $TRACE_DIR" >&2

# --- 1. highest zero-loss rate --------------------------------------------
for t in 1 2; do
	for s in $(seq "$SEARCHES"); do
		echo "record.sh: search $s of $SEARCHES, $t thread(s)" >&2
		v=$(search "$t") && [ -n "$v" ] || die "search failed"
		put "max-$t" "$v"
	done
	for _ in $(seq "$GOAL_RUNS"); do
		trial "$t" "$GOAL_RATE" || true
		put "goal-$t.lost" "$LOST"
		put "goal-$t.rate" "$(field rate "$OUT")"
	done
	for _ in $(seq "$GOAL_RUNS"); do
		traced 'record_load:*' -t "$t" -d "$TRIAL_S"
		put "flat-$t.rate" "$(field rate "$OUT")"
		put "flat-$t.lostpct" "$(awk -v l="$LOST" -v e="$EMITTED" \
			'BEGIN { printf "%.1f", 100 * l / e }')"
		echo "record.sh:   $t thr flat out: $(field rate "$OUT")/s," \
			"$LOST of $EMITTED lost" >&2
	done
done

# --- 2. slowdown at 1 M events/s -------------------------------------------
W=$(field work "$("$LOAD" -c $((1000000000 / SLOW_RATE)))")
[ -n "$W" ] && [ "$W" -gt 0 ] || die "calibration failed"
echo "record.sh: slowdown runs, $W work units per event" >&2
for r in $(seq "$RUNS"); do
	for t in 1 2; do
		args=(-t "$t" -n $((SLOW_EVENTS / t)) -w $((W * t)))
		# rotate the order, so that drift hits the three alike
		for k in $(seq 0 2); do
			case $(((k + r) % 3)) in
			0)
				out=$("$LOAD" "${args[@]}")
				put "slow-$t.untraced" "$(field wall_s "$out")"
				put "slow-$t.untraced.cpu" "$(field cpu_s "$out")"
				;;
			1)
				traced 'nothing:*' "${args[@]}"
				put "slow-$t.none" "$(field wall_s "$OUT")"
				put "slow-$t.none.cpu" "$(field cpu_s "$OUT")"
				[ "$RECORDED" = 0 ] ||
					suspicious "-e 'nothing:*' recorded $RECORDED events"
				;;
			2)
				traced 'record_load:*' "${args[@]}"
				put "slow-$t.enabled" "$(field wall_s "$OUT")"
				put "slow-$t.enabled.cpu" "$(field cpu_s "$OUT")"
				put "slow-$t.lost" "$LOST"
				put "slow-$t.rate" "$(field rate "$OUT")"
				;;
			esac
		done
	done
	echo "record.sh: slowdown run $r of $RUNS done" >&2
done

# --- the table -------------------------------------------------------------
mrate() {
	awk -v v="$1" 'BEGIN { printf "%.2f", v / 1e6 }'
}
# found VALUE: a search's result in M/s; 0 is "below MIN_RATE"
found() {
	if awk -v v="$1" 'BEGIN { exit !(v == 0) }'; then
		echo "<$(mrate "$MIN_RATE")"
	else
		mrate "$1"
	fi
}
pct() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", 100 * (a / b - 1) }'
}
echo
echo "lowtrace record: event with two 32-bit integer fields, default channel"
echo "(8 x 256 KiB per CPU, discard); $(uname -r), $(nproc) CPUs," \
	"$(date -u '+%F %H:%M UTC'), $(($(date +%s) - T0)) s;"
echo "load average $LOAD0 at the start, $(cut -d' ' -f1 /proc/loadavg) at the end"
echo
printf '%-44s %12s %12s\n' "zero-loss rate, M events/s aggregate" "1 thread" \
	"2 threads"
printf '%-44s %12s %12s\n' "highest found, median of $SEARCHES searches" \
	"$(found "$(median max-1)")" "$(found "$(median max-2)")"
printf '%-44s %12s %12s\n' "  the searches" \
	"$(for v in $(list max-1); do echo -n "$(found "$v") "; done)" \
	"$(for v in $(list max-2); do echo -n "$(found "$v") "; done)"
nfail() {
	[ -s "$WORK/vals/fail-$1" ] && wc -l <"$WORK/vals/fail-$1" || echo 0
}
minfail() {
	[ -s "$WORK/vals/fail-$1" ] && mrate "$(sort -g "$WORK/vals/fail-$1" |
		head -1)" || echo -
}
printf '%-44s %12s %12s\n' "failed trials (all): events lost" \
	"$(nfail 1.loss)" "$(nfail 2.loss)"
printf '%-44s %12s %12s\n' "  lowest target that lost events, M/s" \
	"$(minfail 1.loss)" "$(minfail 2.loss)"
printf '%-44s %12s %12s\n' "failed trials (all): under 95% of target" \
	"$(nfail 1.slow)" "$(nfail 2.slow)"
printf '%-44s %12s %12s\n' "  lowest target not reached, M/s" \
	"$(minfail 1.slow)" "$(minfail 2.slow)"
printf '%-44s %12s %12s\n' "at 10 M/s (goal): events lost, each run" \
	"$(list goal-1.lost)" "$(list goal-2.lost)"
printf '%-44s %12s %12s\n' "at 10 M/s: achieved M/s, median" \
	"$(mrate "$(median goal-1.rate)")" "$(mrate "$(median goal-2.rate)")"
printf '%-44s %12s %12s\n' "flat out under record: M/s, median" \
	"$(mrate "$(median flat-1.rate)")" "$(mrate "$(median flat-2.rate)")"
printf '%-44s %12s %12s\n' "flat out: % lost, each run" \
	"$(list flat-1.lostpct)" "$(list flat-2.lostpct)"
echo
printf '%-44s %12s %12s\n' "slowdown at 1 M events/s, median of $RUNS" \
	"1 thread" "2 threads"
for t in 1 2; do
	eval "u$t=\$(median slow-$t.untraced)"
	eval "n$t=\$(median slow-$t.none)"
	eval "e$t=\$(median slow-$t.enabled)"
	eval "uc$t=\$(median slow-$t.untraced.cpu)"
	eval "nc$t=\$(median slow-$t.none.cpu)"
	eval "ec$t=\$(median slow-$t.enabled.cpu)"
done
# shellcheck disable=SC2154 # set by the eval above
{
	printf '%-44s %12.4f %12.4f\n' "untraced: wall s" "$u1" "$u2"
	printf '%-44s %12.4f %12.4f\n' "record, no event enabled: wall s" \
		"$n1" "$n2"
	printf '%-44s %12.4f %12.4f\n' "record, event enabled: wall s" \
		"$e1" "$e2"
	printf '%-44s %12s %12s\n' "slowdown, no event enabled" \
		"$(pct "$n1" "$u1")" "$(pct "$n2" "$u2")"
	printf '%-44s %12s %12s\n' "slowdown, event enabled (goal < 5%)" \
		"$(pct "$e1" "$u1")" "$(pct "$e2" "$u2")"
	printf '%-44s %12.4f %12.4f\n' "untraced: CPU s of the producers" \
		"$uc1" "$uc2"
	printf '%-44s %12.4f %12.4f\n' "record, no event enabled: CPU s" \
		"$nc1" "$nc2"
	printf '%-44s %12.4f %12.4f\n' "record, event enabled: CPU s" \
		"$ec1" "$ec2"
	printf '%-44s %12s %12s\n' "CPU-time slowdown, no event enabled" \
		"$(pct "$nc1" "$uc1")" "$(pct "$nc2" "$uc2")"
	printf '%-44s %12s %12s\n' "CPU-time slowdown, event enabled" \
		"$(pct "$ec1" "$uc1")" "$(pct "$ec2" "$uc2")"
	printf '%-44s %12s %12s\n' "untraced: CPU share (CPU s / wall s)" \
		"$(awk -v c="$uc1" -v w="$u1" 'BEGIN { printf "%.2f", c / w }')" \
		"$(awk -v c="$uc2" -v w="$u2" 'BEGIN { printf "%.2f", c / w / 2 }')"
}
printf '%-44s %12s %12s\n' "event enabled: events lost, each run" \
	"$(list slow-1.lost)" "$(list slow-2.lost)"
printf '%-44s %12s %12s\n' "event enabled: achieved M/s, median" \
	"$(mrate "$(median slow-1.rate)")" "$(mrate "$(median slow-2.rate)")"
echo
echo "A trial passes with no event lost, every event in the trace, and 95%"
echo "of the target reached; ${TRIAL_S} s per trial, rates from $(mrate "$MIN_RATE")"
echo "doubling to $(mrate "$MAX_RATE") M/s, then bisected to 10%.  Slowdown:"
echo "$SLOW_EVENTS events, $W work units each (1 us of CPU untraced); wall"
echo "time of the program's own loop (not lowtrace's start-up), and the CPU"
echo "time of its producing threads (what other processes cannot inflate;"
echo "CPU share under 1: they were running); the three cases alternate run"
echo "by run.  2 threads: each half the events, twice the work per event."
if [ -s "$WORK/suspicious" ]; then
	echo
	echo "suspicious:"
	sed 's/^/  /' "$WORK/suspicious"
fi
