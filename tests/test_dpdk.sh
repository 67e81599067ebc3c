#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_dpdk.sh - `lowtrace view` beside babeltrace2 on CTF traces that
# DPDK's tracer (rte_trace) writes: tests/dpdk/dpdk_trace, a DPDK
# application on two lcores with every trace point enabled, fires EAL's
# (malloc, memzones, alarms, remote launch, the generic ones of every
# field type), the mempool library's and ethdev's (on a net_null device)
# trace points and its own (tests/dpdk/dpdk_tp.h: integers of each width
# and sign, long, size_t, float, double, a pointer, strings cut to DPDK's
# 32 bytes); the trace, a stream per thread, is compared event for event
# (tests/compare_babeltrace.py) after a run with a buffer large enough
# for every event, one whose small buffer wraps (overwrite mode, the
# default) and one that drops the events past its end (discard mode);
# then two runs in one trace directory, read as one trace (their uuid is
# one) as babeltrace2 reads them.
# DPDK's fast-path trace points (rx/tx bursts, mempool get/put) are
# compiled out of Debian's DPDK and add no events.
#
# EAL runs without hugepages, PCI, shared configuration or telemetry, in
# a mount namespace with a tmpfs on /run, where it makes its runtime
# directory (/var/run/dpdk/PREFIX): nothing is left behind, which the
# test checks.  Needs root (the mount namespace), pkg-config's libdpdk
# (libdpdk-dev), a C compiler, unshare and babeltrace2 (skips without
# them, fails under LOWTRACE_REQUIRE_ALL=1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
PY=/usr/bin/python3
export TZ=UTC

. "$top/tests/lib/harness.sh" lt-test-dpdk
. "$top/tests/lib/compare.sh"
why=
[ "$(id -u)" -eq 0 ] || why="needs root (a mount namespace for EAL's runtime directory)"
for c in babeltrace2 unshare pkg-config "${CC:-cc}"; do
	[ -z "$why" ] && ! command -v "$c" > /dev/null 2>&1 && why="no $c"
done
[ -z "$why" ] && ! pkg-config --exists libdpdk && why="no libdpdk-dev"
[ -z "$why" ] && [ ! -x "$PY" ] && why="no $PY"
if [ -n "$why" ]; then
	skip dpdk_traces "$why"
	finish
fi

# what DPDK could leave behind, before and after (in /dev/shm only what
# DPDK names: other tests may come and go there)
leftovers() {
	ls -d /run/dpdk /dev/hugepages/* /dev/shm/*rte* /dev/shm/*dpdk* 2> /dev/null
}
before=$(leftovers)

# shellcheck disable=SC2046
if ! ${CC:-cc} -O2 -Wall -Wextra -Werror -DALLOW_EXPERIMENTAL_API \
	-I"$top/tests/dpdk" $(pkg-config --cflags libdpdk) \
	-o "$tmp/dpdk_trace" "$top/tests/dpdk/dpdk_trace.c" \
	"$top/tests/dpdk/dpdk_tp.c" $(pkg-config --libs libdpdk) \
	> "$tmp/cc.log" 2>&1; then
	fail dpdk_build "$(tail -c 1500 "$tmp/cc.log")"
	finish
fi

# record NAME PREFIX [EAL_OPTION...]: the trace in $tmp/NAME/PREFIX-DATE/
# (DPDK names it after EAL's file prefix and the time), its directory in
# $dir; 2000 events of each own trace point per lcore
record() {
	local name=$1 prefix=$2
	shift 2
	mkdir -p "$tmp/$name"
	if ! timeout 60 unshare --mount --propagation private \
		sh -c 'mount -t tmpfs lt-dpdk /run && exec "$@"' sh \
		"$tmp/dpdk_trace" "$tmp/$name" 2000 --file-prefix="$prefix" "$@" \
		> "$tmp/$name.log" 2>&1; then
		fail "dpdk_record_$name" "$(tail -c 1500 "$tmp/$name.log")"
		return 1
	fi
	dir=$(ls -d "$tmp/$name/$prefix"-*-*-*-?M-*)
	local streams
	streams=$(find "$dir" -name 'channel*' -size +1k | wc -l)
	if [ ! -s "$dir/metadata" ] || [ "$streams" -lt 2 ]; then
		fail "dpdk_record_$name" "no metadata or fewer than two streams: $(ls -lR "$tmp/$name")"
		return 1
	fi
}

# lowtrace's output holds the values the program gave, on both lcores
count() { grep -ac -- "$1" "$tmp/$2.lt"; }
has_own_values() {
	local n=$1 miss='' p
	for p in \
		'cpu 0 lt_dpdk.mix: { seq = 1, lv = 0xFFFFFFFFFFFFFFFD, sz = 0x8, fv = 1.25, dv = -7.16667, ptr = 0xDEAD0001, name = "quote \" and back\\slash" }' \
		'cpu 1 lt_dpdk.mix: { seq = 2, lv = 0xFFFFFFFFFFFFFFFA, sz = 0x11, fv = 2.25, dv = -6.83333, ptr = 0xDEAD0002, name = "h'$'\xc3\xa9''llo w'$'\xc3\xb6''rld" }' \
		'cpu 1 lt_dpdk.mix: { seq = 3, lv = 0xFFFFFFFFFFFFFFF7, sz = 0x19, fv = 3.25, dv = -6.5, ptr = 0xDEAD0003, name = "a string longer than the thirty" }' \
		'cpu 0 lt_dpdk.ints: { u8v = 0x3, u16v = 0x15, u32v = 0x493E9, u64v = 0x369D0369B, i8v = -3, i16v = -9, i32v = -3001, i64v = -805306368 }' \
		'cpu 0 lib.eal.generic.float: { in = 1.5 }' \
		'cpu 0 lib.eal.generic.double: { in = -2.125 }' \
		'cpu 0 lib.eal.generic.u64: { in = 0xF9CCD8A1C5080000 }' \
		'cpu 0 lib.eal.generic.i64: { in = -9000000000000000000 }' \
		'cpu 0 lib.eal.generic.string: { str = "generic string" }' \
		'cpu 0 lib.eal.generic.string: { str = "" }' \
		'cpu 0 lib.ethdev.configure: { port_id = 0x0, nb_rx_q = 0x1, nb_tx_q = 0x1,' \
		'cpu 0 lib.mempool.create: ' \
		'cpu 0 lib.eal.memzone.reserve: ' \
		'cpu 0 lib.eal.alarm.cancel: ' \
		'cpu 1 lib.eal.mem.realloc: ' \
		'cpu 0 lib.eal.thread.remote.launch: '; do
		grep -aqF -- "$p" "$tmp/$n.lt" || miss="$miss"$'\n'"$p"
	done
	local c
	for c in "cpu 0 lt_dpdk.mix" "cpu 1 lt_dpdk.mix" "cpu 0 lt_dpdk.ints" "cpu 1 lt_dpdk.ints"; do
		[ "$(count "$c" "$n")" -eq 2000 ] || miss="$miss"$'\n'"2000 x $c: $(count "$c" "$n")"
	done
	[ -z "$miss" ] && return
	fail "compare_$n" "lines missing from lowtrace's output:$miss"$'\n'"$(grep -a -m5 lt_dpdk "$tmp/$n.lt")"
	return 1
}
# the packet context's thread name, which babeltrace2 prints and `lowtrace
# view` does not (its line has the packet context's cpu_id alone)
BT_PACKET_FIELDS=name
if record full lt-full; then
	bt_compare dpdk_full "$dir" '' '' has_own_values
	full=$(wc -l < "$tmp/dpdk_full.lt")
fi

# a 64 KiB buffer per thread: in overwrite mode DPDK saves the events
# since the buffer last wrapped, in discard mode those before it filled
fewer() {
	local n=$1 got
	got=$(wc -l < "$tmp/$n.lt")
	[ "$got" -gt 100 ] && [ "$got" -lt "${full:-0}" ] && return
	fail "compare_$n" "$got events, not between 100 and the full trace's ${full:-?}"
	return 1
}
# the directory given to --trace-dir: both tools find the trace below it
record overwrite lt-ow --trace-bufsz=64K --trace-mode=o &&
	bt_compare dpdk_overwrite "$tmp/overwrite" '' '' fewer
record discard lt-drop --trace-bufsz=64K --trace-mode=d &&
	bt_compare dpdk_discard "$dir" '' '' fewer

# two runs in one --trace-dir, as DPDK's default one ($HOME/dpdk-traces)
# gathers them: their traces have one uuid, which DPDK makes of the
# count and size of the trace points, and each its clock offset;
# babeltrace2 reads them as one trace, on the first one's clock
twice() {
	local c
	c=$(count "cpu 1 lt_dpdk.mix" "$1")
	[ "$c" -eq 4000 ] && return
	fail "compare_$1" "$c lt_dpdk.mix events on lcore 1, not 4000"
	return 1
}
record runs lt-run1 && record runs lt-run2 &&
	bt_compare dpdk_two_runs "$tmp/runs" '' '' twice

after=$(leftovers)
if [ "$before" = "$after" ] && ! pgrep -f "$tmp/dpdk_trace" > /dev/null; then
	ok dpdk_leaves_nothing
else
	fail dpdk_leaves_nothing "before: $before"$'\n'"after: $after"$'\n'"$(pgrep -af "$tmp/dpdk_trace")"
fi
finish
