#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_ctf2.sh - CTF 2 traces (JSON metadata) read as their CTF 1.8 twins
# are.  The twins tests/gen_ctf2.py writes of tests/gen_ctf.py's traces
# (two stream classes, LTTng's event headers, contexts, every field type,
# either byte order, plain and packetized metadata, every compound type,
# a kernel trace): `lowtrace view` prints the CTF 2 twin as the CTF 1.8
# one, line for line, warnings alike; and as babeltrace2 prints the CTF
# 1.8 twin (babeltrace2 2.0.4 does not read CTF 2: when the installed
# one does, it is compared on the CTF 2 twin too).  An LTTng session's
# twin gives the same analyses, export and report.  The CTF 2 traces of
# ../shared/data/ctf2 (Trace Compass's, converted from babeltrace2's CTF
# 1.8 test traces) print as their CTF 1.8 twins, the one without a clock
# and the one with an event after its packet's end included.  Bad CTF 2 metadata is refused with a message naming the
# metadata, the line and the fragment.  Needs /usr/bin/python3 (skips
# without it, fails under LOWTRACE_REQUIRE_ALL=1); the comparison with
# babeltrace2 needs babeltrace2, the shared traces ../shared/data
# (LOWTRACE_SHARED_DATA names another place).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
PY=/usr/bin/python3
export TZ=UTC
. "$top/tests/lib/harness.sh" lt-test-ctf2
. "$top/tests/lib/compare.sh"

if [ ! -x "$PY" ]; then
	skip ctf2 "$PY missing"
	finish
fi

# same NAME A B: files A and B are equal, else a failure showing the diff
same() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		fail "$1" "differ:"$'\n'"$(diff "$2" "$3" | head -20)"
	fi
}

# bt_same NAME BT LT: babeltrace2's text BT has the events of lowtrace's LT
bt_same() {
	local out
	if out=$("$PY" "$top/tests/compare_babeltrace.py" \
		${BT_PACKET_FIELDS:+--packet-fields "$BT_PACKET_FIELDS"} \
		"$2" "$3" 2>&1); then
		ok "$1 ($out)"
	else
		fail "$1" "$out"
	fi
}

# twin NAME gen_ctf.py-options...: the generated twins print alike
twin() {
	local name=$1 d=$tmp/$1
	shift
	if ! "$PY" "$top/tests/gen_ctf2.py" "$d" "$@" > "$tmp/gen.err" 2>&1; then
		fail "twin_$name" "gen_ctf2.py: $(head -c 600 "$tmp/gen.err")"
		return
	fi
	(cd "$d/ctf2" && "$LT" view .) > "$tmp/$name.2" 2> "$tmp/$name.2.err"
	local rc2=$?
	(cd "$d/ctf-1.8" && "$LT" view .) > "$tmp/$name.1" 2> "$tmp/$name.1.err"
	local rc1=$?
	if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ] || [ ! -s "$tmp/$name.1" ]; then
		fail "twin_$name" "exit $rc1 (1.8), $rc2 (2): $(head -c 600 "$tmp/$name.2.err")"
		return
	fi
	same "twin_$name" "$tmp/$name.1" "$tmp/$name.2"
	same "twin_${name}_warnings" "$tmp/$name.1.err" "$tmp/$name.2.err"
	# babeltrace2 on the CTF 1.8 twin, lowtrace on the CTF 2 one
	[ -n "$have_bt" ] || return
	babeltrace2 "$d/ctf-1.8" > "$tmp/$name.bt" 2> /dev/null
	bt_same "babeltrace2_$name" "$tmp/$name.bt" "$tmp/$name.2"
	# a babeltrace2 that reads CTF 2 (2.1 and later)
	babeltrace2 "$d/ctf2" > "$tmp/$name.bt2" 2> /dev/null
	[ -s "$tmp/$name.bt2" ] &&
		bt_same "babeltrace2_ctf2_$name" "$tmp/$name.bt2" "$tmp/$name.2"
}

have_bt=
if command -v babeltrace2 > /dev/null 2>&1; then
	have_bt=1
else
	skip babeltrace2_compare "babeltrace2 missing: the twins compared with each other only"
fi
twin le_plain --events 2000 --seed 1
twin be_packetized_2ghz --be --packetized --freq 2500000000 --events 2000 --seed 2
twin le_packetized_1mhz --packetized --freq 1000000 --events 2000 --seed 3
twin compound --compound --events 1000 --seed 5
twin kernel --kernel --events 3000 --seed 6

# The field classes CTF 1.8 lacks (booleans, bit arrays and maps, BLOBs, LEB128
# integers and enumerations, optionals, variants selected by integer
# ranges, 2.0's enumerations, strings of every length kind in UTF-8,
# UTF-16 and UTF-32): each event as
# gen_ctf2_fields.py made its expected text from the values it wrote.
f=$tmp/fields
if "$PY" "$top/tests/gen_ctf2.py" "$f" --fields > "$tmp/gen.err" 2>&1 &&
	"$LT" view "$f/ctf2" > "$tmp/fields.out" 2> "$tmp/fields.err"; then
	sed 's/^.* cpu [0-9]* //' "$tmp/fields.out" > "$tmp/fields.got"
	if [ "$(wc -l < "$f/expected.txt")" -ge 70 ]; then
		same new_field_classes "$f/expected.txt" "$tmp/fields.got"
	else
		fail new_field_classes "$(wc -l < "$f/expected.txt") events expected"
	fi
	# the header members found by their roles (the timestamps, the
	# clock's offset), the environment's hostname
	if grep -q '^\[05:33:20.000001500\] (+?.?????????) fieldhost cpu 0 f:bool' "$tmp/fields.out"; then
		ok new_field_classes_header_roles
	else
		fail new_field_classes_header_roles "$(head -2 "$tmp/fields.out")"
	fi
else
	fail new_field_classes "$(cat "$tmp/gen.err" "$tmp/fields.err" | head -c 600)"
fi

# An LTTng session (kernel and UST traces): the analyses, the export and
# the report read the CTF 2 twin as the CTF 1.8 one.
s=$tmp/session
if "$PY" "$top/tests/gen_ctf2.py" "$s" --session > "$tmp/gen.err" 2>&1; then
	for v in ctf-1.8 ctf2; do
		(cd "$s/$v" &&
			"$LT" analyze sched . 2>&1 &&
			"$LT" analyze cpu . 2>&1 &&
			"$LT" analyze latency ust --anchor 'app:tick' --top 3 2>&1 &&
			"$LT" export . -o "$tmp/$v.json" 2>&1 &&
			"$LT" report . -o "$tmp/$v.html" 2>&1) > "$tmp/session.$v"
		echo "exit $?" >> "$tmp/session.$v"
	done
	if grep -q 'app-tick' "$tmp/session.ctf2" && grep -q '^exit 0$' "$tmp/session.ctf2"; then
		same analyses_of_session "$tmp/session.ctf-1.8" "$tmp/session.ctf2"
	else
		fail analyses_of_session "$(head -c 600 "$tmp/session.ctf2")"
	fi
	same export_of_session "$tmp/ctf-1.8.json" "$tmp/ctf2.json"
	same report_of_session "$tmp/ctf-1.8.html" "$tmp/ctf2.html"
else
	fail analyses_of_session "gen_ctf2.py: $(head -c 600 "$tmp/gen.err")"
fi

# Bad CTF 2 metadata: a message naming the metadata file, its line and
# the fragment, exit 1, no crash.
bad=$tmp/bad
mkdir -p "$bad"
cp "$tmp/le_plain/ctf2/chan_0_0" "$bad/"
good=$tmp/le_plain/ctf2/metadata
bad_meta() { # python expression turning the list of fragments f
	"$PY" - "$good" "$bad/metadata" "$1" << 'EOF'
import json, sys
f = [json.loads(x) for x in open(sys.argv[1]).read().split("\x1e") if x.strip()]
exec(sys.argv[3])
open(sys.argv[2], "w").write("".join("\x1e" + (x if isinstance(x, str) else json.dumps(x)) + "\n" for x in f))
EOF
}
bad_case() { # expression, pattern
	bad_meta "$1"
	row 1 "$2" "$LT" view "$bad"
}
bad_case 'f[0]["extensions"] = {"my.tracer": {"piano": {}}}' \
	'metadata:1: preamble: the trace needs extension "piano" of "my.tracer"'
bad_case 'f[0]["version"] = 3' 'metadata:1: preamble: version 3, expected 2'
bad_case 'f.pop(0)' 'the first fragment must be the preamble'
bad_case 'f[3] = "{\"type\": \"clock-class\", "' 'fragment 3: invalid JSON'
bad_case 'f[-1]["payload-field-class"]["member-classes"][0]["field-class"]["type"] = "quantum-integer"' \
	'event-record-class "gen:far": y: unknown field class type "quantum-integer"'
bad_case 'f[-1]["payload-field-class"]["member-classes"][0]["field-class"] = "nosuch"' \
	'y: no field class alias "nosuch"'
bad_case 'f[-1]["payload-field-class"]["member-classes"][0]["field-class"] = {"type": "optional", "field-class": {"type": "null-terminated-string"}}' \
	'y: expected a field location with a path'
bad_case 'f[-1]["payload-field-class"]["member-classes"][0]["field-class"] = {"type": "fixed-length-bit-map", "length": 8, "byte-order": "little-endian", "flags": {"A": [[0, 8]]}}' \
	'y: flag "A": bit 8 of 8'
bad_case 'f[-1]["payload-field-class"]["member-classes"][0]["field-class"] = {"type": "null-terminated-string", "encoding": "utf-7"}' \
	'y: unknown string encoding "utf-7"'
bad_case 'f[-1]["data-stream-class-id"] = 9' 'no stream 9'
bad_case 'f[-1]["payload-field-class"]["member-classes"][0]["field-class"]["length"] = 65' \
	'"length": 65 is out of range'
bad_case 'f[4]["event-record-header-field-class"]["member-classes"][1]["field-class"]["selector-field-location"] = {"origin": "event-record-header", "path": ["nosuch"]}' \
	"tag 'stream.event.header._nosuch' is not an earlier enum"
bad_case '[x for x in f if x["type"] == "data-stream-class"][0]["default-clock-class-id"] = "nosuch"' 'no clock class "nosuch" before it'
bad_case 'f.insert(1, dict(f[0]))' 'a second preamble'
printf 'x\036{"type": "preamble", "version": 2}\n' > "$bad/metadata"
row 1 'metadata:1: CTF 2 metadata: text before the first record separator' "$LT" view "$bad"
rows_end bad_ctf2_metadata

# The shared CTF 2 traces beside their CTF 1.8 originals.
shared=${LOWTRACE_SHARED_DATA:-}
for c in "$top/../shared/data" "$top/../../shared/data"; do
	[ -z "$shared" ] && [ -d "$c" ] && shared=$c
done
if [ -z "$shared" ] || [ ! -d "$shared/ctf2/trace-with-index" ]; then
	skip shared_ctf2 "no ../shared/data/ctf2"
	finish
fi
# view NAME VERSION [OPTIONS]: its text in $tmp/NAME.VERSION(.err), the
# trace's directory left out of messages
view() {
	local d=$shared/ctf2/$1/$2
	"$LT" view "${@:3}" "$d" > "$tmp/$1.$2" 2> "$tmp/$1.$2.err"
	local rc=$?
	sed -i "s|$d|DIR|g; s|metadata:[0-9]*:|metadata:N:|" "$tmp/$1.$2.err"
	return $rc
}
for name in trace-with-index debug-info succeed1 lttng-event-after-packet; do
	view "$name" ctf-1.8
	rc1=$?
	view "$name" ctf2
	rc2=$?
	if [ $rc1 -ne 0 ]; then
		fail "shared_$name" "the CTF 1.8 twin: $(head -c 600 "$tmp/$name.ctf-1.8.err")"
		continue
	fi
	if [ "$name" = debug-info ]; then
		# Trace Compass's conversion changed one byte of a path in the
		# stream ("/libhello-so" became "/libhello_so"): that one only
		n=$(cmp -l "$shared/ctf2/$name/ctf2/channel0_0" \
			"$shared/ctf2/$name/ctf-1.8/channel0_0" | wc -l)
		[ "$n" = 1 ] || fail shared_debug-info_data "$n bytes differ, not 1"
		sed -i 's|"/libhello-so"|"/libhello_so"|' "$tmp/$name.ctf-1.8"
	fi
	if [ $rc2 -eq 0 ] && [ -s "$tmp/$name.ctf2" ]; then
		same "shared_$name" "$tmp/$name.ctf-1.8" "$tmp/$name.ctf2"
	else
		fail "shared_$name" "exit $rc2: $(head -c 600 "$tmp/$name.ctf2.err")"
	fi
done
# what reads past the event after its packet's end reads alike
# LEB128 integers (a trace without a clock): the values a decoder of
# LEB128 in Python reads in the stream
vl=$shared/ctf2/vl-ints/ctf2
"$PY" - "$vl" > "$tmp/vl.want" << 'EOF'
import json, sys
d = sys.argv[1]
f = [json.loads(x) for x in open(d + "/metadata").read().split("\x1e") if x.strip()]
ev = [x for x in f if x["type"] == "event-record-class"][0]
b, at, out = open(d + "/stream", "rb").read(), 0, []
for m in ev["payload-field-class"]["member-classes"]:
    v = shift = 0
    while True:
        c = b[at]
        at += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            break
    if "-signed-" in m["field-class"]["type"] and c & 0x40:
        v -= 1 << shift
    out.append("%s = %d" % (m["name"], v))
print("test: { " + ", ".join(out) + " }")
EOF
"$LT" view "$vl" 2>&1 | sed 's/^.*cpu [0-9]* //' > "$tmp/vl.got"
if grep -q 'vu10 = 18446744073709551615' "$tmp/vl.want"; then
	same shared_vl-ints_leb128 "$tmp/vl.want" "$tmp/vl.got"
else
	fail shared_vl-ints_leb128 "$(head -c 600 "$tmp/vl.want")"
fi
finish
