#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_ctf_gen.sh - `lowtrace view` beside babeltrace2 on traces of other
# tracers' shapes that tests/gen_ctf.py writes (type names, LTTng's
# compact and large event headers with their extended forms and wrapping
# timestamps, two stream classes, contexts, every field type, byte order
# per type), little- and big-endian, plain and packetized metadata, clocks
# of 1 MHz, 1 GHz and 2.5 GHz with offsets, every compound type (arrays
# of structs, variants in variants, lengths and tags named by relative
# paths scoped as CTF 1.8 says, ...), two traces of one uuid in a tree
# (read as one, as babeltrace2 does): every event the same (time,
# name, CPU, contexts, values), and the discarded events reported alike
# (babeltrace2's warnings, lowtrace's: as many, the same counts).  Needs
# babeltrace2 and /usr/bin/python3 (skips without them, fails under
# LOWTRACE_REQUIRE_ALL=1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
PY=/usr/bin/python3
export TZ=UTC
. "$top/tests/lib/harness.sh" lt-test-ctf-gen
. "$top/tests/lib/compare.sh"

if ! command -v babeltrace2 > /dev/null 2>&1 || [ ! -x "$PY" ]; then
	skip ctf_gen "babeltrace2 or $PY missing"
	finish
fi

gen() { # name, gen_ctf.py options...
	local name=$1 d=$tmp/$1
	shift
	if ! "$PY" "$top/tests/gen_ctf.py" "$d" "$@" > "$tmp/gen.err" 2>&1; then
		fail "compare_$name" "gen_ctf.py: $(head -c 600 "$tmp/gen.err")"
		return
	fi
	bt_compare "$name" "$d" '^WARNING: Tracer discarded' 'the tracer discarded' ||
		return
	# the discarded events: one report per packet after a loss, alike
	local bt lt
	bt=$(sed -n 's/^WARNING: Tracer discarded \([0-9]*\) event.*/\1/p' "$tmp/$name.bt.err" | sort -n | tr '\n' ' ')
	lt=$(sed -n 's/.*the tracer discarded \([0-9]*\) events.*/\1/p' "$tmp/$name.lt.err" | sort -n | tr '\n' ' ')
	if [ -n "$bt" ] && [ "$bt" = "$lt" ]; then
		ok "discarded_$name"
	else
		fail "discarded_$name" "babeltrace2 '$bt', lowtrace '$lt'"
	fi
}

gen le_plain --events 3000 --seed 1
gen be_packetized_2ghz --be --packetized --freq 2500000000 --events 3000 --seed 2
gen le_packetized_1mhz --packetized --freq 1000000 --events 3000 --seed 3
gen be_plain --be --events 3000 --seed 4
# arrays and sequences of structs, variants and arrays, variants in
# variants, a sequence whose length is a variant's option
gen compound --compound --events 1500 --seed 5

# two traces of one uuid in a tree (two runs of a DPDK application, all
# its traces' uuid the same), their clocks 100 s apart: babeltrace2 reads
# them as one trace, every stream with the metadata of the trace with
# the most stream and event classes, the first in path order on a tie
same_uuid() { # name, what to add to the metadata of b
	local name=$1 d=$tmp/$1
	if ! "$PY" "$top/tests/gen_ctf.py" "$d/a" --events 600 --seed 6 > "$tmp/gen.err" 2>&1; then
		fail "compare_$name" "gen_ctf.py: $(head -c 600 "$tmp/gen.err")"
		return
	fi
	cp -r "$d/a" "$d/b"
	sed -i 's/offset_s = 1764740000;/offset_s = 1764740100;/' "$d/b/metadata"
	printf '%s' "$2" >> "$d/b/metadata"
	bt_compare "$name" "$d" '^WARNING: Tracer discarded' 'the tracer discarded'
}
same_uuid same_uuid_tie ''
same_uuid same_uuid_larger 'event { name = "extra"; id = 99; stream_id = 0; fields := struct { uint8_t x; }; };'

# an lttng-modules kernel trace (--kernel): read alike, and the analyses
# see most of its 300 threads woken and run (by their LTTng names) on its
# two CPUs
name=lttng_kernel d=$tmp/kernel
if "$PY" "$top/tests/gen_ctf.py" "$d" --kernel --events 6000 > "$tmp/gen.err" 2>&1 &&
	babeltrace2 "$d" > "$tmp/k.bt" 2> "$tmp/k.bt.err" && "$LT" view "$d" > "$tmp/k.lt" 2>&1 &&
	out=$("$PY" "$top/tests/compare_babeltrace.py" "$tmp/k.bt" "$tmp/k.lt" 2>&1); then
	ok "compare_$name ($out)"
else
	fail "compare_$name" "$(cat "$tmp/gen.err" "$tmp/k.bt.err" 2> /dev/null | head -c 300) ${out:-}"
fi
sched=$("$LT" analyze sched "$d" 2>&1)
cpu=$("$LT" analyze cpu "$d" 2>&1)
woken=$(printf '%s\n' "$sched" | sed -n 's/^wake-up to run latency, \([0-9]*\) threads woken.*/\1/p')
ran=$(printf '%s\n' "$cpu" | sed -n 's/.* 2 CPUs, \([0-9]*\) threads ran.*/\1/p')
if [ "${woken:-0}" -ge 250 ] && [ "${woken:-0}" -le 300 ] &&
	[ "${ran:-0}" -ge 250 ] && [ "${ran:-0}" -le 301 ] &&
	printf '%s\n' "$cpu" | grep -Eq '^ +1[0-9]{3} worker-[0-9]+ '; then
	ok analyses_of_lttng_kernel_trace
else
	fail analyses_of_lttng_kernel_trace "$sched"$'\n'"$cpu"
fi
finish
