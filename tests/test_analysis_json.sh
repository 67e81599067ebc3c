#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_analysis_json.sh - `lowtrace analyze VERB --json`: on each trace
# below, every analysis that has its events prints one document that
# docs/analysis.schema.json accepts and whose figures are those of the
# text the same analysis prints (tests/check_analysis_json.py parses
# both); a document tampered with is refused, so the comparison can
# fail; the text is the same with --json given elsewhere on the line;
# lt_analyze_json(), linked into a program of its own
# (tests/embed/analyze_json), prints what the command prints.
#
#   kernel  tests/gen_ctf.py --kernel: an lttng-modules trace
#   gen     bench/gen_sched: the recorder's kernel events, synthetic
#   hog     a recording of examples/periodic beside a SCHED_FIFO hog
#           (-k sched,irq,syscalls): latency's verdicts, jitter, and
#           latency --span over its system calls (wakers, markers)
#   lock    periodic --holder-waits: blocked verdicts and their chain
#
# The recordings need root: skipped otherwise (failures under
# LOWTRACE_REQUIRE_ALL=1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
EX=$B/examples
EMBED=$B/tests/embed/analyze_json
PY=/usr/bin/python3
SCHEMA=$top/docs/analysis.schema.json
CHECK=$top/tests/check_analysis_json.py
. "$top/tests/lib/harness.sh" lt-test-analysis-json

# check NAME TRACE VERB [OPTIONS...]: the text and the document agree
check() {
	local name=$1 d=$2
	shift 2
	local txt=$tmp/$name.txt js=$tmp/$name.json
	if ! "$LT" analyze "$@" "$d" > "$txt" 2> "$tmp/$name.err"; then
		fail "$name" "text: $(cat "$tmp/$name.err")"
		return
	fi
	if ! "$LT" analyze "$@" "$d" --json > "$js" 2> "$tmp/$name.err"; then
		fail "$name" "--json: $(cat "$tmp/$name.err")"
		return
	fi
	local out
	if out=$("$PY" "$CHECK" "$SCHEMA" "$js" "$txt" 2>&1); then
		ok "$name ($out)"
	else
		fail "$name" "$out"$'\n'"$(head -c 1500 "$txt")"
	fi
}

# verbs NAME TRACE VERB...: check of each verb, at its default --top
verbs() {
	local name=$1 d=$2
	shift 2
	for v in "$@"; do
		check "${name}_$v" "$d" "$v"
	done
}

"$PY" "$top/tests/gen_ctf.py" "$tmp/kernel" --kernel --events 6000 > /dev/null 2>&1 ||
	fail gen_ctf_kernel "gen_ctf.py --kernel failed"
verbs kernel "$tmp/kernel" sched cpu irq latency jitter
check kernel_cpu_top3 "$tmp/kernel" cpu --top 3
"$B/bench/gen_sched" "$tmp/gen" 30000 --cpus 3 --threads 40 --seed 7 > /dev/null 2>&1 ||
	fail gen_sched "bench/gen_sched failed"
verbs gen "$tmp/gen" sched cpu irq
check gen_irq_top30 "$tmp/gen" irq --top 30

# the comparison fails on a figure changed in the document
if [ -s "$tmp/gen_cpu.json" ] &&
	sed 's/"busy_ns": \([0-9]*\)/"busy_ns": 1\1/' "$tmp/gen_cpu.json" > "$tmp/bad.json" &&
	! "$PY" "$CHECK" "$SCHEMA" "$tmp/bad.json" "$tmp/gen_cpu.txt" > "$tmp/bad.out" 2>&1 &&
	grep -q 'busy_ns' "$tmp/bad.out"; then
	ok tampered_figure_is_refused
else
	fail tampered_figure_is_refused "$(cat "$tmp/bad.out" 2> /dev/null)"
fi
# and the schema refuses a member it does not know
if [ -s "$tmp/gen_sched.json" ] &&
	sed 's/"threads_woken"/"threads_wokn": 1, &/' "$tmp/gen_sched.json" > "$tmp/bad2.json" &&
	! "$PY" "$CHECK" "$SCHEMA" "$tmp/bad2.json" "$tmp/gen_sched.txt" > "$tmp/bad2.out" 2>&1 &&
	grep -q 'threads_wokn is not in the schema' "$tmp/bad2.out"; then
	ok unknown_member_is_refused
else
	fail unknown_member_is_refused "$(cat "$tmp/bad2.out" 2> /dev/null)"
fi

# the embedded entry point prints what the command prints
if [ -x "$EMBED" ] && "$EMBED" "$tmp/gen" cpu --top 4 > "$tmp/embed.json" 2> "$tmp/embed.err" &&
	"$LT" analyze cpu "$tmp/gen" --top 4 --json | cmp -s - "$tmp/embed.json"; then
	ok embedded_entry_point
else
	fail embedded_entry_point "$(cat "$tmp/embed.err" 2> /dev/null)"
fi
expect_error embedded_entry_point_error 1 '^embedded analyze: cannot open trace' \
	"$EMBED" "$tmp/none" sched
expect_error spans_has_no_json 1 'spans has no --json form' \
	"$LT" analyze spans "$tmp/gen" --json

if [ "$(id -u)" -ne 0 ]; then
	for t in hog lock; do
		skip "test_$t" "kernel events need root"
	done
	finish
fi
cpu=$(($(nproc) - 1))

"$LT" record -o "$tmp/hog" -k sched,irq,syscalls --all -- sh -c \
	"$EX/disturb --hog --cpu $cpu --duration-s 1.2 & $EX/periodic --cpu $cpu --duration-s 1; wait" \
	> "$tmp/hog.out" 2>&1
verbs hog "$tmp/hog" latency jitter sched cpu syscalls irq
check hog_latency_ticks "$tmp/hog" latency --anchor demo:tick --top 8
check hog_latency_syscall_spans "$tmp/hog" latency \
	--span 'raw_syscalls:sys_enter..raw_syscalls:sys_exit' --top 4
check hog_syscalls_top40 "$tmp/hog" syscalls --top 40
# --json before the trace gives the same document as after it
if "$LT" analyze latency "$tmp/hog" --top 3 > "$tmp/t1" 2>&1 &&
	"$LT" analyze latency "$tmp/hog" --top 3 --json > "$tmp/j1" 2>&1 &&
	"$LT" analyze latency --json "$tmp/hog" --top 3 > "$tmp/j2" 2>&1 &&
	cmp -s "$tmp/j1" "$tmp/j2" && grep -q '^#1 demo:late at ' "$tmp/t1"; then
	ok json_option_anywhere
else
	fail json_option_anywhere "$(head -c 600 "$tmp/t1")"
fi

"$LT" record -o "$tmp/lock" -k sched,irq --all -- \
	"$EX/periodic" --cpu "$cpu" --duration-s 1 --holder-waits \
	> "$tmp/lock.out" 2>&1
check lock_latency "$tmp/lock" latency
if "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
e = d["explanations"][0]
v = e["verdict"]
assert v["kind"] == "blocked", v
assert v["block"]["end_ns"] > v["block"]["begin_ns"], v
assert v["thread"]["comm"] == "lock-holder", v
assert e["chain"] and e["chain"][0]["thread"]["tid"] == v["thread"]["tid"], e["chain"]
' "$tmp/lock_latency.json" > "$tmp/lock.py" 2>&1; then
	ok lock_verdict_as_data
else
	fail lock_verdict_as_data "$(cat "$tmp/lock.py")"$'\n'"$(head -c 1500 "$tmp/lock_latency.txt")"
fi
finish
