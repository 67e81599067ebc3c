#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_lenient.sh - `lowtrace view` beside babeltrace2 on the traces a
# reader must take leniently, which tests/gen_ctf.py writes
# (tests/gen_ctf_lenient.py): each tracer's known quirk (read, events as
# babeltrace2 prints them, one warning per stream naming the file and the
# offset), a trace without a clock (events in babeltrace2's stream order,
# without times; the analyses refuse it), empty structs, and damaged
# packets (each said with its file and offset, every other event printed,
# exit status 1).  Then the CTF 1.8 twins of ../shared/data/ctf2 that are
# such cases, when that directory is there.  Needs babeltrace2 and
# /usr/bin/python3 (skips without them, fails under LOWTRACE_REQUIRE_ALL=1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
PY=/usr/bin/python3
export TZ=UTC
. "$top/tests/lib/harness.sh" lt-test-lenient
. "$top/tests/lib/compare.sh"

if ! command -v babeltrace2 > /dev/null 2>&1 || [ ! -x "$PY" ]; then
	skip lenient "babeltrace2 or $PY missing"
	finish
fi

gen() { # dir, gen_ctf.py options...
	local d=$1
	shift
	"$PY" "$top/tests/gen_ctf.py" "$d" "$@" > "$tmp/gen.out" 2>&1 ||
		{ fail "gen_ctf $*" "$(head -c 600 "$tmp/gen.out")"; return 1; }
}

# compared NAME BT_OUT LT_OUT: the two outputs hold the same events
compared() {
	local out
	if out=$("$PY" "$top/tests/compare_babeltrace.py" "$2" "$3" 2>&1) &&
		! printf '%s' "$out" | grep -q '^compared 0 events'; then
		ok "$1 ($out)"
	else
		fail "$1" "$out"
	fi
}

LOST='the tracer discarded'
# each quirk: read, one warning per stream (three streams) naming the
# file and the offset, the events as babeltrace2 prints them, those of
# the twin without the quirk too
quirk() { # name, what the warning says
	local q=$1 d=$tmp/$1 n
	gen "$d" --quirk "$q" || return
	if [ "$q" = packet-overlap ]; then
		# babeltrace2 2.0.4 refuses it ("Youngest upstream message
		# iterator wrapper's timestamp is less than ..."): its twin
		"$LT" view "$d" > "$tmp/$q.lt" 2> "$tmp/$q.lt.err" ||
			{ fail "compare_$q" "exit $?: $(head -c 300 "$tmp/$q.lt.err")"; return; }
	else
		bt_compare "$q" "$d" '^WARNING: Tracer discarded' "$2\|$LOST" || return
	fi
	babeltrace2 "$d.ref" > "$tmp/$q.ref.bt" 2> /dev/null
	compared "twin_$q" "$tmp/$q.ref.bt" "$tmp/$q.lt"
	n=$(grep -c "^lowtrace: view: warning: $d/stream_[0-2]: offset [0-9]*: .*$2" "$tmp/$q.lt.err")
	if [ -z "$2" ] && ! grep -v "$LOST" "$tmp/$q.lt.err" | grep -q .; then
		ok "no_warning_$q"
	elif [ -n "$2" ] && [ "$n" -eq 3 ] &&
		[ "$(grep -v "$LOST" "$tmp/$q.lt.err" | sort -u | wc -l)" -eq 3 ]; then
		ok "one_warning_per_stream_$q"
	else
		fail "warnings_$q" "$n warnings matching '$2':"$'\n'"$(cat "$tmp/$q.lt.err")"
	fi
}
quirk event-after-packet 'after its packet.s timestamp_end'
quirk event-before-packet 'is before its timestamp_begin'
quirk packet-overlap 'before the previous packet.s end'
quirk crash 'timestamp_end is 0'
quirk discarded-back 'events_discarded [0-9]* is less than'
quirk no-packet-times ''

# events_discarded going back: the count babeltrace2 reports, wrapped
bt=$(sed -n 's/^WARNING: Tracer discarded \([0-9]*\) event.*/\1/p' "$tmp/discarded-back.bt.err" | sort -n | tr '\n' ' ')
lt=$(sed -n 's/.*the tracer discarded \([0-9]*\) events.*/\1/p' "$tmp/discarded-back.lt.err" | sort -n | tr '\n' ' ')
if [ -n "$bt" ] && [ "$bt" = "$lt" ] && [[ $lt == *18446744073709551609* ]]; then
	ok discarded_back_counted_as_babeltrace2
else
	fail discarded_back_counted_as_babeltrace2 "babeltrace2 '$bt', lowtrace '$lt'"
fi

# the analyses and the export read the quirks too, saying so as view does
q=$tmp/event-after-packet
for verb in "analyze latency" "export --format perfetto -o $tmp/q.pftrace"; do
	# shellcheck disable=SC2086 # the verb's words
	"$LT" $verb "$q" > /dev/null 2> "$tmp/verb.err"
	rc=$?
	n=$(grep -c "^lowtrace: ${verb%% *}: warning: $q/stream_[0-2]: offset [0-9]*: .*after its packet.s timestamp_end" "$tmp/verb.err")
	if [ $rc -eq 0 ] && [ "$n" -eq 3 ]; then
		ok "quirk_warned_by_${verb%% *}"
	else
		fail "quirk_warned_by_${verb%% *}" "exit $rc, $n warnings: $(cat "$tmp/verb.err")"
	fi
done

# empty structs as payload, context and field
d=$tmp/empty
gen "$d" --empty-struct &&
	bt_compare empty_struct "$d" '^WARNING: Tracer discarded' "$LOST" &&
	if grep -q 'gen:empty_ctx: { }, { seq = [0-9]*, nothing = { } }$' "$tmp/empty_struct.lt" &&
		grep -q 'gen:empty: { }$' "$tmp/empty_struct.lt"; then
		ok empty_struct_text
	else
		fail empty_struct_text "$(grep -m2 empty "$tmp/empty_struct.lt")"
	fi

# no clock: stream after stream, no times; what needs times says so
d=$tmp/clockless
if gen "$d" --clockless && bt_compare clockless "$d" '^WARNING: Tracer discarded' "$LOST"; then
	if grep -q '^genhost cpu [0-2] gen:tick: { seq = ' "$tmp/clockless.lt" &&
		! grep -q '^\[' "$tmp/clockless.lt"; then
		ok clockless_lines_have_no_time
	else
		fail clockless_lines_have_no_time "$(head -3 "$tmp/clockless.lt")"
	fi
	row 1 'has no clock: its events have no times' "$LT" analyze sched "$d"
	row 1 'has no clock: its events have no times' "$LT" analyze latency "$d"
	row 1 'has no clock' "$LT" view "$d" --begin 1
	rows_end clockless_needs_times_refused
fi

# timestamps without a clock block: ns since the epoch, as babeltrace2's
# default clock counts them
d=$tmp/noclock
gen "$d" --no-clock-block &&
	bt_compare no_clock_block "$d" '^WARNING: Tracer discarded' "$LOST" &&
	if grep -q '^\[00:00:00.000001050\] (+?.?????????) genhost cpu 0 ' "$tmp/no_clock_block.lt"; then
		ok no_clock_block_counts_from_the_epoch
	else
		fail no_clock_block_counts_from_the_epoch "$(head -2 "$tmp/no_clock_block.lt")"
	fi

# damaged packets: each said with its file and offset, the events before
# and after printed (those of the trace without the damaged packets),
# exit status 1; babeltrace2 stops at the first
d=$tmp/damaged
if gen "$d" --damaged; then
	"$LT" view "$d" > "$tmp/damaged.lt" 2> "$tmp/damaged.err"
	rc=$?
	babeltrace2 "$d.ref" > "$tmp/damaged.ref.bt" 2> /dev/null
	compared damaged_reads_on "$tmp/damaged.ref.bt" "$tmp/damaged.lt"
	bad=
	while read -r f off; do
		grep -q "^lowtrace: view: warning: $d/$f: offset $off: .*(packet skipped)$\|^lowtrace: view: warning: $d/$f: offset $((off + 80)): unknown event id 77 (the rest of the packet skipped)$" "$tmp/damaged.err" ||
			bad="$bad $f@$off"
	done < "$tmp/gen.out"
	bt_n=$(babeltrace2 "$d" 2> /dev/null | wc -l)
	if [ $rc -eq 1 ] && [ -z "$bad" ] && [ -s "$tmp/gen.out" ] &&
		grep -q '^lowtrace: view: 2 damaged packets skipped' "$tmp/damaged.err" &&
		[ "$bt_n" -lt "$(wc -l < "$tmp/damaged.lt")" ]; then
		ok damaged_packets_said_exit_1
	else
		fail damaged_packets_said_exit_1 "exit $rc, not said:$bad, babeltrace2 $bt_n lines:"$'\n'"$(cat "$tmp/damaged.err")"
	fi
fi

# the analyses, report and export read on too: the same warnings under
# their verb's name, their results, exit status 1
if [ -d "$d" ]; then
	for verb in "analyze jitter --event gen:tick" "report -o $tmp/d.html" \
		"export -o $tmp/d.json"; do
		v=${verb%% *}
		# shellcheck disable=SC2086 # the verb's words
		"$LT" $verb "$d" > "$tmp/verb.out" 2> "$tmp/verb.err"
		rc=$?
		n=$(grep -c "^lowtrace: $v: warning: $d/stream_[0-9]: offset [0-9]*: .*skipped)$" "$tmp/verb.err")
		if [ $rc -eq 1 ] && [ "$n" -eq 2 ] &&
			grep -q "^lowtrace: $v: 2 damaged packets skipped (said above)" "$tmp/verb.err" &&
			{ [ -s "$tmp/verb.out" ] || [ -s "$tmp/d.html" ] || [ -s "$tmp/d.json" ]; }; then
			ok "damaged_read_on_by_$v"
		else
			fail "damaged_read_on_by_$v" "exit $rc, $n warnings: $(cat "$tmp/verb.err")"
		fi
	done
fi

# the CTF 1.8 twins of ../shared/data/ctf2 that are such cases
shared=$top/../shared/data/ctf2
if [ -d "$shared/succeed1/ctf-1.8" ]; then
	bt_compare shared_succeed1_no_clock "$shared/succeed1/ctf-1.8"
	bt_compare shared_lttng_event_after_packet "$shared/lttng-event-after-packet/ctf-1.8" '' \
		'chan_0: offset 90: event timestamp 900859125273445 is 1 after its packet.s timestamp_end'
else
	echo "note: $shared absent: its traces not compared"
fi
finish
