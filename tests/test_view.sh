#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_view.sh - `lowtrace view` beside babeltrace2, and on broken traces.
#
# Generates synthetic traces with bench/gen_trace (every field type, three
# streams of two stream classes, two or more CPUs, compact and extended
# headers with long gaps), prints them with `babeltrace2 DIR` and with
# `lowtrace view DIR`, both in UTC, and compares them event by event with
# tests/compare_babeltrace.py (name, time to the ns, CPU, every value).
# Then checks filters, time ranges, --stats, and that every trace of
# tests/corpus/ is rejected with a message naming a file in it and no
# crash.  Needs babeltrace2 and /usr/bin/python3 (skips without them,
# fails under LOWTRACE_REQUIRE_ALL=1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
GEN=$B/bench/gen_trace
PY=/usr/bin/python3
export TZ=UTC
. "$top/tests/lib/harness.sh" lt-test-view
. "$top/tests/lib/compare.sh"

if [ ! -x "$LT" ] || [ ! -x "$GEN" ]; then
	fail build "no $LT or $GEN (run make first)"
	finish
fi

have_bt=1
command -v babeltrace2 > /dev/null 2>&1 || have_bt=0
[ -x "$PY" ] || have_bt=0

compare() { # name, gen_trace arguments...
	local name=$1
	shift
	local d=$tmp/$name
	if ! "$GEN" "$d" "$@" > "$tmp/gen.err" 2>&1; then
		fail "compare_$name" "gen_trace failed: $(cat "$tmp/gen.err")"
		return
	fi
	compare_dir "$name" "$d"
}

compare_dir() { # name, trace directory
	local name=$1 d=$2
	if [ $have_bt -eq 0 ]; then
		skip "compare_$name" "babeltrace2 or /usr/bin/python3 missing"
		return
	fi
	bt_compare "$name" "$d"
}

# Empty strings are left out: babeltrace2 2.0.4 prints an empty string
# field as the value of the string before it.
compare full 30000 --cpus 2 --packet 4096 --no-empty --seed 1
compare cpus4_ghz 20000 --cpus 4 --packet 1024 --freq 1000000000 --no-empty --seed 2
compare small_mix 20000 --cpus 2 --mix small --packet 65536 --no-empty --seed 3

# traces the tracer itself wrote: the example of every field type traced
# from inside (LOWTRACE_TRACE), under `lowtrace record` with its process
# tree, and with kernel events beside its own (as root)
B=$(dirname "$LT")
if LOWTRACE_TRACE="$tmp/ex_env" "$B/examples/fields" 50 > /dev/null 2>&1; then
	compare_dir example_lowtrace_trace "$tmp/ex_env"
else
	fail compare_example_lowtrace_trace "examples/fields failed"
fi
if "$LT" record -o "$tmp/ex_rec" -- "$B/tests/progs/forker" "$B/examples/fields" > /dev/null 2>&1; then
	compare_dir example_record_tree "$tmp/ex_rec"
else
	fail compare_example_record_tree "lowtrace record failed"
fi
if [ "$(id -u)" -eq 0 ]; then
	if "$LT" record -o "$tmp/ex_kern" -k sched,syscalls:sys_enter_nanosleep,syscalls:sys_exit_nanosleep \
		-- "$B/tests/progs/sleeper" > "$tmp/ex_kern.log" 2>&1; then
		compare_dir example_record_kernel "$tmp/ex_kern"
	else
		fail compare_example_record_kernel "$(tail -c 600 "$tmp/ex_kern.log")"
	fi
else
	skip compare_example_record_kernel "kernel events need root"
fi

# real lttng-modules kernel traces (packetized metadata, typealiases,
# LTTng's compact and large event headers, one of them big-endian), kept
# beside the repository: ../shared/data from the checkout
# (LOWTRACE_SHARED_DATA names another place)
shared=${LOWTRACE_SHARED_DATA:-}
for c in "$top/../shared/data" "$top/../../shared/data"; do
	[ -z "$shared" ] && [ -d "$c" ] && shared=$c
done
for k in bug446190 flipping-endianness; do
	if [ -n "$shared" ] && [ -d "$shared/$k" ]; then
		compare_dir "lttng_kernel_$k" "$shared/$k"
	else
		skip "compare_lttng_kernel_$k" "no ../shared/data/$k"
	fi
done
# a tree of traces (both of them, one big-endian, in subdirectories):
# found and merged in time order, as babeltrace2 merges a directory
if [ -n "$shared" ] && [ -d "$shared/bug446190" ] && [ -d "$shared/flipping-endianness" ]; then
	mkdir -p "$tmp/tree/kernel"
	cp -r "$shared/bug446190" "$tmp/tree/kernel/a"
	cp -r "$shared/flipping-endianness" "$tmp/tree/b"
	compare_dir lttng_kernel_tree "$tmp/tree"
else
	skip compare_lttng_kernel_tree "no ../shared/data"
fi

# the generated traces hold what the comparison must cover (printed here
# when babeltrace2 is missing and compare_full did not)
[ -d "$tmp/full" ] && [ ! -s "$tmp/full.lt" ] && "$LT" view "$tmp/full" > "$tmp/full.lt" 2> /dev/null
if [ ! -s "$tmp/full.lt" ]; then
	fail coverage_of_generated_trace "no output of lowtrace view $tmp/full"
else
	missing=
	for want in 'late_us = -' 'flags = 0x' '"RANGE" : container' '<unknown> : container' \
		'ratio = ' 'value = ' 'name = "quote\\"back\\\\slash"' 'bytes = \[ \[0\] = ' \
		'samples = \[ \]' 'samples = \[ \[0\]' 'comm = "' 'myapp:rare' 'myapp:empty: { }' \
		'aux:sample' 's8 = -128' 'u64 = 18446744073709551615' 'x64 = 0x' 'cpu 1 ' 'level = ( "HIGH"'; do
		grep -q -- "$want" "$tmp/full.lt" || missing="$missing [$want]"
	done
	# long gaps: deltas of more than 2^27 cycles (51 ms at 2.6 GHz)
	grep -q '(+0\.0[5-9]' "$tmp/full.lt" || grep -q '(+0\.[1-9]' "$tmp/full.lt" || missing="$missing [long gap]"
	if [ -z "$missing" ]; then
		ok coverage_of_generated_trace
	else
		fail coverage_of_generated_trace "not in the output:$missing"
	fi
fi

# filters
d=$tmp/full
if [ -d "$d" ]; then
	"$LT" view "$d" > "$tmp/all.txt"
	n_all=$(wc -l < "$tmp/all.txt")
	n1=$("$LT" view "$d" -e 'myapp:frame_*' | wc -l)
	w1=$(grep -c ' myapp:frame_\(done\|begin\): ' "$tmp/all.txt")
	n2=$("$LT" view "$d" -e '*:sample,myapp:ints' | wc -l)
	w2=$(grep -c ' \(aux:sample\|myapp:ints\): ' "$tmp/all.txt")
	n3=$("$LT" view "$d" -e 'nothing*' | wc -l)
	if [ "$n1" -eq "$w1" ] && [ "$n2" -eq "$w2" ] && [ "$n3" -eq 0 ] && [ "$w1" -gt 0 ]; then
		ok event_name_patterns
	else
		fail event_name_patterns "frame_*: $n1 vs $w1, sample/ints: $n2 vs $w2, none: $n3"
	fi
	# a condition on an integer field, as the analyses' anchors take it
	n4=$("$LT" view "$d" -e 'myapp:frame_done if late_us > 0,aux:sample' | wc -l)
	w4=$(grep -cE ' myapp:frame_done: .*late_us = [1-9]| aux:sample: ' "$tmp/all.txt")
	w5=$(grep -c ' myapp:frame_done: ' "$tmp/all.txt")
	if [ "$n4" -eq "$w4" ] && [ "$w4" -gt 0 ] && [ "$w4" -lt "$((w5 + $(grep -c ' aux:sample: ' "$tmp/all.txt")))" ]; then
		ok event_pattern_with_condition
	else
		fail event_pattern_with_condition "$n4 events, expected $w4"
	fi
	expect_error bad_condition 1 "bad condition" "$LT" view "$d" -e 'myapp:frame_done if late_us >'
	# record's condition language: && ||, parentheses, strings with a
	# prefix, enum labels; a condition a field does not fit matches none
	n6=$("$LT" view "$d" -e 'myapp:frame_done if late_us > 0 && (name == "al*" || state == "BUSY")' | wc -l)
	w6=$(grep ' myapp:frame_done: ' "$tmp/all.txt" | grep -E 'late_us = [1-9]' |
		grep -cE 'name = "al|state = \( "BUSY"')
	n7=$("$LT" view "$d" -e 'myapp:frame_done if name != "x" && !(name == "a*")' | wc -l)
	w7=$(grep ' myapp:frame_done: ' "$tmp/all.txt" | grep -v 'name = "x"' | grep -cv 'name = "a')
	n8=$("$LT" view "$d" -e 'myapp:frame_done if name > 3 || late_us > 0' | wc -l)
	if [ "$n6" -eq "$w6" ] && [ "$w6" -gt 0 ] && [ "$n7" -eq "$w7" ] && [ "$w7" -gt 0 ] &&
		[ "$w7" -lt "$w5" ] && [ "$n8" -eq 0 ]; then
		ok event_pattern_with_record_condition
	else
		fail event_pattern_with_record_condition "&&/||: $n6 vs $w6, strings: $n7 vs $w7, misfit: $n8"
	fi

	# time ranges: lines 1000 to 2000 by their time of day, and in ns
	t1=$(sed -n 1000p "$tmp/all.txt" | cut -c2-19)
	t2=$(sed -n 2000p "$tmp/all.txt" | cut -c2-19)
	want=$(awk -v a="$t1" -v b="$t2" '{ t = substr($0, 2, 18); if (t >= a && t <= b) n++ } END { print n }' "$tmp/all.txt")
	got=$("$LT" view "$d" --begin "$t1" --end "$t2" | wc -l)
	first=$("$LT" view "$d" --begin "$t1" --end "$t2" --no-delta | head -n 1)
	if [ "$got" -eq "$want" ] && [ "$got" -ge 1001 ] && [[ $first == "[$t1] "* ]]; then
		ok time_range_time_of_day
	else
		fail time_range_time_of_day "$got events, expected $want; first: $first"
	fi
	# the trace's day: that of the generator's clock offset_s
	sod=$((1764740000 / 86400 * 86400))
	base=$(date -u -d "1970-01-01 ${t1%.*}" +%s)
	ns1="$((sod + base))${t1#*.}"
	s1="$((sod + base)).${t1#*.}"
	got_ns=$("$LT" view "$d" --begin "$ns1" | wc -l)
	got_s=$("$LT" view "$d" --begin "$s1" | wc -l)
	want_b=$(awk -v a="$t1" '{ if (substr($0, 2, 18) >= a) n++ } END { print n }' "$tmp/all.txt")
	if [ "$got_ns" -eq "$want_b" ] && [ "$got_s" -eq "$want_b" ]; then
		ok time_range_ns_and_seconds
	else
		fail time_range_ns_and_seconds "ns $got_ns, s $got_s, expected $want_b"
	fi

	stats=$("$LT" view "$d" --stats)
	if echo "$stats" | grep -q "^events: $n_all\$"; then
		ok stats_counts_every_event
	else
		fail stats_counts_every_event "$(echo "$stats" | head -3) vs $n_all lines"
	fi
	# --stats with filters counts the events they print, and the counts
	# of each event name alone add up to those of the whole trace
	nf=$("$LT" view "$d" --stats -e myapp:frame_done --begin "$t1" --end "$t2" |
		sed -n 's/^events: //p')
	wf=$("$LT" view "$d" -e myapp:frame_done --begin "$t1" --end "$t2" | wc -l)
	esum=0 fsum=0
	for c in $(echo "$stats" | awk '/^  [a-z]/ { print $1 }' | sort -u); do
		s=$("$LT" view "$d" --stats -e "$c")
		esum=$((esum + $(echo "$s" | sed -n 's/^events: //p')))
		fsum=$((fsum + $(echo "$s" | sed -n 's/^fields: //p')))
	done
	fall=$(echo "$stats" | sed -n 's/^fields: //p')
	if [ "$nf" -eq "$wf" ] && [ "$wf" -gt 0 ] && [ "$esum" -eq "$n_all" ] &&
		[ "$fsum" -eq "$fall" ] && [ "$fall" -gt "$n_all" ]; then
		ok stats_with_filters
	else
		fail stats_with_filters "filtered $nf vs $wf lines; by name $esum events, $fsum fields vs $n_all, $fall"
	fi

	if "$LT" view "$d" --no-delta | head -n 1 | grep -Eq '^\[[0-9:.]{18}\] ([^ ]+ )?cpu [0-9]+ [a-z]+:[a-z_]+: \{'; then
		ok no_delta_format
	else
		fail no_delta_format "$("$LT" view "$d" --no-delta | head -n 1)"
	fi
else
	for t in event_name_patterns time_range_time_of_day time_range_ns_and_seconds \
		stats_counts_every_event stats_with_filters no_delta_format; do
		fail "$t" "no trace $d (gen_trace failed)"
	done
fi

# a crash-recovered buffer: the last packet's timestamp_end is 0
if "$GEN" "$tmp/crash" 3000 --cpus 2 --crash > /dev/null 2>&1 &&
	[ "$("$LT" view "$tmp/crash" | wc -l)" -eq 3000 ]; then
	ok trailing_packet_with_zero_end
else
	fail trailing_packet_with_zero_end "$("$LT" view "$tmp/crash" 2>&1 > /dev/null | head -c 300)"
fi

# events the tracer discarded: one warning per packet whose count grew,
# as babeltrace2 gives
if "$GEN" "$tmp/lost" 3000 --cpus 2 --packet 4096 --lost > /dev/null 2>&1; then
	"$LT" view "$tmp/lost" 2> "$tmp/lost.err" > /dev/null
	rc=$?
	nl=$(grep -c '^lowtrace: view: warning: [a-z]*_4242_[0-9]: the tracer discarded 3 events before packet [0-9]* ' "$tmp/lost.err")
	if [ $have_bt -eq 1 ]; then
		nb=$(babeltrace2 "$tmp/lost" 2>&1 > /dev/null | grep -c '^WARNING: Tracer discarded 3 events')
	else
		nb=$nl
	fi
	if [ $rc -eq 0 ] && [ "$nl" -gt 0 ] && [ "$nl" -eq "$nb" ] &&
		[ "$nl" -eq "$(wc -l < "$tmp/lost.err")" ]; then
		ok discarded_events_are_reported
	else
		fail discarded_events_are_reported "exit $rc, $nl warnings, babeltrace2 $nb: $(head -c 300 "$tmp/lost.err")"
	fi
else
	fail discarded_events_are_reported "gen_trace --lost failed"
fi

# usage errors: what lowtrace view writes to stderr
view_err() { "$LT" view "$@" 2>&1 > /dev/null; }
row nonzero '^lowtrace: view: no trace directory' view_err
row nonzero "^lowtrace: view: $tmp/nope/metadata: " view_err "$tmp/nope"
row nonzero "^lowtrace: view: unknown option '--bogus'" view_err "$d" --bogus
row nonzero "^lowtrace: view: bad --begin time 'yesterday'" view_err "$d" --begin yesterday
rows_end usage_errors

# every corpus trace is rejected (a damaged packet is skipped, and the
# exit status says so), with the file named, and nothing crashes; an event
# after its packet's end is a tracer's quirk, read with a warning
bad=
n=0
for c in "$top"/tests/corpus/*/; do
	c=${c%/}
	n=$((n + 1))
	"$LT" view "$c" > /dev/null 2> "$tmp/c.err"
	rc=$?
	want=1
	[ "$(basename "$c")" = timestamp_after_end ] && want=0
	if [ $rc -ne $want ] || grep -q Sanitizer "$tmp/c.err" ||
		! grep -Eq "^lowtrace: view: (warning: )?$c/[A-Za-z0-9_]+:" "$tmp/c.err"; then
		bad="$bad $(basename "$c")(exit $rc: $(head -c 200 "$tmp/c.err"))"
	fi
	"$LT" view --skip-bad "$c" > /dev/null 2> "$tmp/c.err"
	rc=$?
	if [ $rc -ge 128 ] || grep -q Sanitizer "$tmp/c.err"; then
		bad="$bad $(basename "$c")(--skip-bad exit $rc)"
	fi
done
if [ $n -ge 10 ] && [ -z "$bad" ]; then
	ok corpus_is_rejected_without_crash
else
	fail corpus_is_rejected_without_crash "$n traces;$bad"
fi

finish
