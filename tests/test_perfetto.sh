#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_perfetto.sh - `lowtrace export --format perfetto`: each export is
# decoded by protoc and python3-protobuf with tests/perfetto/
# perfetto_subset.proto (Perfetto's messages, names and field numbers) and
# checked by tests/perfetto/check_pftrace.py: Perfetto's sequence rules,
# interned names, tracks described before use, compact_sched's arrays,
# and a round trip (switches, wake-ups, events with their fields, thread
# names read back equal `lowtrace view`'s) on
#
#   sched     bench/gen_sched's trace (lowtrace's kernel layout)
#   lttng     tests/gen_ctf.py --kernel (lttng-modules' layout)
#   session   tests/gen_ctf.py --session (an LTTng kernel + UST session)
#   data      the LTTng kernel traces of ../shared/data (LOWTRACE_SHARED_DATA
#             names another place)
#   demo      a recording of examples/periodic with -k sched,irq,syscalls
#             --all, its demo:tick anchors (with a condition) marked, and
#             a program's lt_trigger() firing marked (need root)
#   ust       an LTTng-UST recording of tests/lttng/ust_fields (needs root
#             and lttng-tools)
#   usdt      a recording of python's USDT markers, its function entry and
#             return pairs as span slices (needs root and python3.11)
#   errors    a trace the reader refuses gets its error and leaves no file
#             (nor a temporary one); bad options; chrome stays the default
#   report    `lowtrace report` points to this export for a trace of more
#             than about a million events, and not for a small one
#
# Needs protoc and python3-protobuf: skips otherwise (fails under
# LOWTRACE_REQUIRE_ALL=1), as the cases needing root or tools do.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
PY=/usr/bin/python3
CHECK=$top/tests/perfetto/check_pftrace.py
DATA=${LOWTRACE_SHARED_DATA:-}
for c in "$top/../shared/data" "$top/../../shared/data"; do
	[ -z "$DATA" ] && [ -d "$c" ] && DATA=$c
done
. "$top/tests/lib/harness.sh" lt-test-perfetto

# errors that need no decoder
mkdir -p "$tmp/none"
expect_error test_missing_trace_gets_the_readers_error nonzero \
	"^lowtrace: export: cannot open trace $tmp/none: .*metadata" \
	"$LT" export --format perfetto "$tmp/none" -o "$tmp/none.pftrace"
if [ -e "$tmp/none.pftrace" ]; then
	fail test_missing_trace_leaves_no_file "$(ls "$tmp")"
else
	ok test_missing_trace_leaves_no_file
fi
row nonzero "unknown format 'protobuf' (chrome, perfetto)" \
	"$LT" export --format protobuf "$tmp/none" -o "$tmp/x"
row nonzero "no output file" "$LT" export --format perfetto "$tmp/none"
row nonzero "--span needs --format perfetto" \
	"$LT" export "$tmp/none" -o "$tmp/x" --span 'a..b'
row nonzero "^lowtrace: export: --span: bad span" \
	"$LT" export --format perfetto "$tmp/none" -o "$tmp/x" --span 'ab'
rows_end test_bad_options_are_errors

if ! command -v protoc > /dev/null || ! "$PY" -c 'import google.protobuf' 2> /dev/null; then
	for t in sched lttng session data demo ust usdt damaged chrome_default; do
		skip "test_$t" "needs protoc and python3-protobuf"
	done
	finish
fi
protoc --python_out="$tmp" -I "$top/tests/perfetto" perfetto_subset.proto

# check NAME DIR [EXPORT_OPTIONS...] [-- CHECK_OPTIONS...]: exports DIR,
# decodes and checks it against view
check() {
	local name=$1 dir=$2 eo=() co=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		eo+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	co=("$@")
	if ! "$LT" export --format perfetto "$dir" -o "$tmp/$name.pftrace" "${eo[@]}" > "$tmp/$name.err" 2>&1; then
		fail "test_$name" "export failed: $(cat "$tmp/$name.err")"
		return 1
	fi
	viewof "$name" "$dir"
	if "$PY" "$CHECK" "$tmp" "$tmp/$name.pftrace" "$tmp/$name.view" "${co[@]}" > "$tmp/$name.check" 2>&1; then
		ok "test_$name ($(grep '^counts:' "$tmp/$name.check"))"
	else
		fail "test_$name" "$(grep -v '^ok' "$tmp/$name.check")"
		return 1
	fi
}

# a count of the events of CASE's view named by the extended regex NAME
# (viewof CASE DIR writes the view)
viewof() { TZ=UTC "$LT" view "$2" --no-delta > "$tmp/$1.view" 2> /dev/null; }
nview() { grep -cE "^\[[^]]*\] (\S+ )?cpu [0-9]+ ($2): " "$tmp/$1.view"; }

# sched: lowtrace's own kernel layout
"$B/bench/gen_sched" "$tmp/g" 60000 --cpus 3 --threads 40 --seed 9 \
	--packet 16384 2> /dev/null
check sched "$tmp/g" && {
	n=$(nview sched 'sched:sched_switch')
	if [ "$n" -gt 10000 ] && grep -q " switches=$n " "$tmp/sched.check" &&
		grep -q ' threads=40 ' "$tmp/sched.check" &&
		grep -q " slices_irq=$(nview sched 'irq:irq_handler_entry') " "$tmp/sched.check"; then
		ok test_sched_counts
	else
		fail test_sched_counts "$n switches in view; $(tail -1 "$tmp/sched.check")"
	fi
}

# lttng: lttng-modules' layout
"$PY" "$top/tests/gen_ctf.py" "$tmp/k" --kernel --events 30000 --seed 7
viewof lttng "$tmp/k"
check lttng "$tmp/k" -- --expect wakings="$(nview lttng sched_waking)"

# session: an LTTng kernel + UST session (a tree of traces)
"$PY" "$top/tests/gen_ctf.py" "$tmp/s" --session --seed 3 > /dev/null
viewof session "$tmp/s"
check session "$tmp/s" -- --expect instants="$(nview session 'app:[a-z]+|lttng_statedump_(start|end)')"

# data: the real LTTng kernel traces kept beside the repository
if [ -n "$DATA" ] && [ -d "$DATA/bug446190" ] && [ -d "$DATA/flipping-endianness" ]; then
	check data_bug446190 "$DATA/bug446190"
	check data_flipping_endianness "$DATA/flipping-endianness"
else
	skip test_data "no ../shared/data/bug446190 and flipping-endianness"
fi

# damaged: a packet whose content the reader cannot decode, midway: said
# with its file and offset, stepped over as view does; the file holds
# the rest (checked against view's events) and the exit status is 1
cp -r "$tmp/g" "$tmp/bad"
printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' |
	dd of="$tmp/bad/kernel_1" bs=1 seek=40000 conv=notrunc 2> /dev/null
out=$("$LT" export --format perfetto "$tmp/bad" -o "$tmp/bad.pftrace" 2>&1)
rc=$?
viewof bad "$tmp/bad"
if [ $rc -eq 1 ] && echo "$out" | grep -q "^lowtrace: export: warning: $tmp/bad/kernel_1: offset [0-9]*: .*skipped)$" &&
	echo "$out" | grep -q "^lowtrace: export: 1 damaged packet skipped" &&
	"$PY" "$CHECK" "$tmp" "$tmp/bad.pftrace" "$tmp/bad.view" > "$tmp/bad.check" 2>&1; then
	ok test_damaged_trace_read_on_said_exit_1
else
	fail test_damaged_trace_read_on_said_exit_1 "exit $rc: $out; $(grep -v '^ok' "$tmp/bad.check" 2> /dev/null)"
fi

# a full disk: the writer thread's error reaches the exit status, and no
# file is left (stdout on /dev/full: every write fails with ENOSPC)
out=$("$LT" export --format perfetto "$tmp/g" -o - 2>&1 > /dev/full)
rc=$?
if [ $rc -ne 0 ] && echo "$out" | grep -q "^lowtrace: export: writing stdout: No space left on device"; then
	ok test_full_disk_is_an_error
else
	fail test_full_disk_is_an_error "exit $rc: $out"
fi

# report says when a trace is too large for its page
"$LT" report "$tmp/g" -o "$tmp/g.html" > /dev/null 2> "$tmp/g.report"
"$B/bench/gen_sched" "$tmp/big" 1200000 --seed 3 2> /dev/null
"$LT" report "$tmp/big" -o "$tmp/big.html" > /dev/null 2> "$tmp/big.report"
if [ ! -s "$tmp/g.report" ] &&
	grep -q "^lowtrace: report: $tmp/big holds about 1 million events .*lowtrace export --format perfetto $tmp/big" "$tmp/big.report"; then
	ok test_report_advises_perfetto_for_large_traces
else
	fail test_report_advises_perfetto_for_large_traces "$(cat "$tmp/g.report" "$tmp/big.report")"
fi
rm -rf "$tmp/big" "$tmp/big.html"

# chrome stays the default
"$LT" export "$tmp/g" -o "$tmp/g.json" > /dev/null 2>&1
if head -c 40 "$tmp/g.json" | grep -q '^{"displayTimeUnit":"ns","traceEvents":\['; then
	ok test_chrome_stays_the_default
else
	fail test_chrome_stays_the_default "$(head -c 200 "$tmp/g.json")"
fi

if [ "$(id -u)" -ne 0 ]; then
	for t in demo trigger ust usdt; do
		skip "test_$t" "recording needs root"
	done
	finish
fi

# demo: examples/periodic with the kernel's scheduling and system calls
"$LT" record -o "$tmp/demo" -k sched,irq,syscalls --all -- \
	"$B/examples/periodic" --duration-s 0.4 > "$tmp/demo.out" 2>&1
viewof demo "$tmp/demo"
late=$(awk '/ demo:tick: / { match($0, /late_us = [0-9]+/)
	if (substr($0, RSTART + 10, RLENGTH - 10) + 0 > 150) n++ } END { print n + 0 }' "$tmp/demo.view")
check demo "$tmp/demo" --anchor 'demo:tick if late_us > 150' -- \
	--expect anchors="$late" \
	--expect slices_syscall="$(nview demo 'raw_syscalls:sys_enter')"

# trigger: a program's lt_trigger() firing is marked as an anchor
"$LT" record -o "$tmp/trig" -- "$B/tests/progs/trig" 100 > "$tmp/trig.out" 2>&1
viewof trigger "$tmp/trig"
ntrig=$(nview trigger 'lowtrace:trigger')
if [ "$ntrig" -ge 1 ]; then
	check trigger "$tmp/trig" --anchor 'nosuch:event' -- --expect anchors="$ntrig"
else
	fail test_trigger "no lowtrace:trigger event: $(cat "$tmp/trig.out")"
fi

# ust: LTTng-UST with lttng-tools, per-UID buffers and vpid/vtid contexts
if command -v lttng > /dev/null && pkg-config --exists lttng-ust 2> /dev/null; then
	# bounded: a session daemon that stops answering fails the case
	if timeout 120 bash "$top/tests/lttng/record.sh" "$tmp/u" 300 256K --buffers-uid vpid vtid > "$tmp/u.out" 2>&1; then
		# two processes of two threads, 300 of each of two events
		check ust "$tmp/u" -- --expect instants=2400
	else
		fail test_ust "recording failed: $(cat "$tmp/u.out")"
	fi
else
	skip test_ust "needs lttng-tools and liblttng-ust-dev"
fi

# usdt: python's function markers, entries and returns paired as spans
PY311=/usr/bin/python3.11
if [ -x "$PY311" ]; then
	cat > "$tmp/calls.py" << 'EOP'
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
for i in range(5):
    fib(5)
EOP
	"$LT" record -o "$tmp/py" -u 'python:function__*' -- "$PY311" "$tmp/calls.py" > "$tmp/py.out" 2>&1
	nspans=$("$LT" analyze spans "$tmp/py" 2>&1 | sed -n 's/^\([0-9]*\) spans of.*/\1/p')
	check usdt "$tmp/py" -- --expect slices_span="${nspans:-0}"
	if [ "${nspans:-0}" -gt 0 ]; then
		ok "test_usdt_has_spans ($nspans)"
	else
		fail test_usdt_has_spans "$("$LT" analyze spans "$tmp/py" 2>&1 | head -5)"
	fi
else
	skip test_usdt "no $PY311"
fi
finish
