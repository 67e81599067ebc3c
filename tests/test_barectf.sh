#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_barectf.sh - `lowtrace view` beside babeltrace2 on a trace that
# barectf writes, a CTF 1.8 writer lowtrace shares no code with.
# `barectf generate` makes a tracer of tests/barectf/config.yaml; built
# with tests/barectf/emit.c (its platform: a packet a write, clocks from
# CLOCK_MONOTONIC), it writes three data streams of two data stream
# types: main (twice: cpu_id 0 and 1) on a 3 MHz clock with an offset in
# seconds and cycles, 5-bit event ids and 27-bit timestamps packed in one
# word, extra packet context members (a 12-bit signed bit-field, a hex
# integer), an event record common context (an integer, a string),
# sequence numbers and discarded event records; aux on a 1 GHz clock
# with 16-bit packet sizes and no end timestamp, counters or contexts.
# The payloads: integers of 1 to 64 bits at byte and bit alignments in
# binary, octal, decimal and hex, enums with ranges, overlapping labels
# and unmapped values, 32/64-bit floats (zeros, extremes, a subnormal),
# strings (UTF-8, escapes, empty), static and dynamic arrays of integers,
# 4-bit integers, enums, strings and arrays (static arrays of static
# arrays, a dynamic array of them), a zero-length array, an
# event specific context, events without payload or with an empty one.
# Small packets (several dozen a stream), a simulated idle time that
# makes the 27-bit timestamps wrap many times, a back end that is full
# now and then.  Compared event for event (tests/compare_babeltrace.py:
# time, name, CPU, contexts, every value; babeltrace2's extra packet
# context fields aside, as lowtrace prints cpu_id only); the discarded
# event records reported alike; the output checked for the features so
# that the comparison is not vacuous.  barectf 3's generated code writes
# the machine's byte order only, which the configuration names: a
# little-endian one (skipped elsewhere).
# Needs barectf, babeltrace2 and a C compiler (skips without them, fails
# under LOWTRACE_REQUIRE_ALL=1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
PY=/usr/bin/python3
CC=${CC:-cc}
export TZ=UTC

. "$top/tests/lib/harness.sh" lt-test-barectf
. "$top/tests/lib/compare.sh"
why=
for c in barectf babeltrace2 "$CC"; do
	[ -z "$why" ] && ! command -v "$c" > /dev/null 2>&1 && why="no $c"
done
[ -z "$why" ] && [ ! -x "$PY" ] && why="no $PY"
[ -z "$why" ] && [ "$("$PY" -c 'import sys; print(sys.byteorder)')" != little ] &&
	why="config.yaml's native byte order is little-endian"
if [ -n "$why" ]; then
	skip barectf_trace "$why"
	finish
fi

# the tracer: barectf's code (its warnings are its own) and the platform
mkdir -p "$tmp/gen" "$tmp/trace"
if ! barectf generate -c "$tmp/gen" -H "$tmp/gen" -m "$tmp/trace" \
	"$top/tests/barectf/config.yaml" > "$tmp/gen.log" 2>&1; then
	fail barectf_generate "$(tail -c 1500 "$tmp/gen.log")"
	finish
fi
if ! "$CC" -O1 -Wall -Wextra -c "$tmp/gen/bctf.c" -o "$tmp/bctf.o" \
	> "$tmp/cc.log" 2>&1 ||
	! "$CC" -O1 -Wall -Wextra -Werror -I"$tmp/gen" \
		-c "$top/tests/barectf/emit.c" -o "$tmp/emit.o" >> "$tmp/cc.log" 2>&1 ||
	! "$CC" -o "$tmp/emit" "$tmp/emit.o" "$tmp/bctf.o" >> "$tmp/cc.log" 2>&1; then
	fail barectf_build "$(tail -c 1500 "$tmp/cc.log")"
	finish
fi
if ! "$tmp/emit" "$tmp/trace" 3000 > "$tmp/emit.log" 2>&1; then
	fail barectf_emit "$(tail -c 1500 "$tmp/emit.log")"
	finish
fi
# several packets a stream, and the 27-bit timestamps that wrap
packets=$(($(stat -c %s "$tmp/trace/main_0") / 1024))
if [ "$packets" -ge 20 ] && grep -q 'size = 27;' "$tmp/trace/metadata"; then
	ok "barectf_trace ($packets packets in main_0, 27-bit timestamps)"
else
	fail barectf_trace "$packets packets in main_0: $(ls -l "$tmp/trace")"
fi

# what lowtrace prints holds every kind of field barectf wrote
has_barectf_fields() {
	local f=$tmp/$1.lt pat miss=
	for pat in \
		'cpu 1 ints: { core = [0-9], task = "[^"]*" }, { u8 = 0b[01]\{8\}, s8 = -\?[0-9]*, u16 = 0[0-7]*, .* u32 = 0x[0-9A-F]*, .* u64 = 0xFFFFFFFFFFFFFFFF, s64 = -9223372036854775808 }' \
		'bitfields: .* s5 = -[0-9]*, u13 = 0x[0-9A-F]*, s37 = -[0-9]*, u64_unaligned = [0-9]*, s64_unaligned = -9223372036854775[0-9]*, u7_oct = 0[0-7]* }' \
		'st = ( "WAITING", "BUSY" : container = 5 )' \
		'st = ( <unknown> : container = 2[0-3] )' \
		'lvl = ( "LOW" : container = 0xFED4 )' \
		'st_packed = ( "HIGH" \|st = ( "HIGH" ' \
		'reals: .* f = -[0-9.]*, d_packed = [0-9]*, d = 4.94066e-324 }' \
		'd = 1e+300 }' \
		'names = \[ \[0\] = "héllo wörld", \[1\] = "tab\\there", \[2\] = "third" \]' \
		'_words_len = 3, words = \[ \[0\] = "one", \[1\] = "[^"]*", \[2\] = "three" \], tail = "end" }$' \
		'grid = \[ \[0\] = \[ \[0\] = 1, \[1\] = 2, \[2\] = [0-9]* \], \[1\] = \[ ' \
		'_nibbles_len = 5, nibbles = \[ \[0\] = [0-9]*, \[1\] = 15, ' \
		'states = \[ \[0\] = ( ' \
		'none = \[ \], _pairs_len = 2, pairs = \[ \[0\] = \[ \[0\] = 0x[0-9A-F]*, \[1\] = 0xFFFF \], \[1\] = \[ \[0\] = 0x0, \[1\] = 0x7 \] \] }$' \
		'with_context: { core = [0-9], task = "[^"]*" }, { req_id = [0-9]*, origin = "disk" }, { value = [0-9.]* }$' \
		'context_only: { core = [0-9], task = "[^"]*" }, { flag = [0-9]* }$' \
		'no_payload: { core = [0-9], task = "[^"]*" }$' \
		'cpu 0 empty: $' \
		'cpu 0 empty_struct: { }$' \
		'cpu 0 tick: { n = [0-9]*, phase = ( "RUNNING" : container = 1[0-9] ) }$' \
		'note: { text = "quote\\"d", ratio = [0-9.]* }$'; do
		grep -q -- "$pat" "$f" || miss="$miss"$'\n'"$pat"
	done
	if [ -n "$miss" ]; then
		fail "compare_$1" "lowtrace's output lacks lines matching:$miss"
		return 1
	fi
}
BT_PACKET_FIELDS=board_temp,fw_flags bt_compare barectf "$tmp/trace" \
	'^WARNING: Tracer discarded [0-9]* events between ' \
	'the tracer discarded [0-9]* events before packet' has_barectf_fields

# the back end was full now and then: the same discarded event records
bt=$(sed -n 's/^WARNING: Tracer discarded \([0-9]*\) event.*"\([^"]*\)" (stream class.*/\2 \1/p' \
	"$tmp/barectf.bt.err" | sed 's,.*/,,' | sort | tr '\n' ' ')
lt=$(sed -n 's/^lowtrace: view: warning: \([^:]*\): the tracer discarded \([0-9]*\) events.*/\1 \2/p' \
	"$tmp/barectf.lt.err" | sort | tr '\n' ' ')
if [ -n "$bt" ] && [ "$bt" = "$lt" ]; then
	ok "barectf_discarded_like_babeltrace2 ($(printf '%s\n' "$bt" | wc -w | awk '{ print $1 / 2 }') losses)"
else
	fail barectf_discarded_like_babeltrace2 "babeltrace2 '$bt', lowtrace '$lt'"
fi

# the main streams' events span more than two wraps of their 27-bit
# timestamps (2^27 cycles at 3 MHz: 44.7 s), rebuilt as babeltrace2 does
span=$(awk '/ cpu [01] [a-z_]*: \{ core/ {
		split(substr($1, 2, 18), t, ":")
		s = t[1] * 3600 + t[2] * 60 + t[3] + day
		if (n && s < last - 43200) { day += 86400; s += 86400 }
		if (!n++) first = s
		last = s
	} END { printf "%d", last - first }' "$tmp/barectf.lt")
if [ "${span:-0}" -gt 90 ]; then
	ok "barectf_timestamps_wrap (main spans ${span} s)"
else
	fail barectf_timestamps_wrap "main spans ${span:-?} s: $(head -3 "$tmp/barectf.lt")"
fi
finish
