#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# python.sh - the Python module (docs/python.md) beside babeltrace2's
# Python bindings and LTTng's Python agent, side by side in one run
# (bench/python_bench.py does each measurement; figures in
# docs/bench-python.md).
#
# usage: bench/python.sh [NEVENTS] (default 200000; RUNS=3)
#
#   read    every event with all its fields as Python values:
#           lowtrace.open(DIR).events() beside python3-bt2, on an LTTng-UST
#           trace with contexts recorded by lttng-tools (as bench/view.sh
#           records it, NEVENTS events; as root), else on a trace of
#           LTTng's layout from tests/gen_ctf.py
#   table   trace.table() of one class, every field, on a trace of
#           lowtrace's layout (bench/gen_trace, 10 x NEVENTS events), and
#           `lowtrace view --stats` on it, the C reader's rate here
#   log     what lowtrace.logging.Handler adds to logger.info(): no one
#           recording, and under `lowtrace record`; and what LTTng's Python
#           agent (python3-lttngust) adds, recorded by an LTTng session
#           (as root; its session daemon in a mount namespace of its own,
#           as bench/compare-lttng.sh runs it)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
PY=${PYTHON:-/usr/bin/python3}
N=${1:-200000}
RUNS=${RUNS:-3}
CALLS=${CALLS:-200000}
BENCH=$top/bench/python_bench.py
export PYTHONPATH=$B/python

# --- inside the private mount namespace: LTTng's Python agent -----------
if [ -n "${LT_PYB_INSIDE:-}" ]; then
	mount -t tmpfs lt-pyb-run /run/lttng
	mount -t tmpfs lt-pyb-shm /dev/shm
	work=$LT_PYB_WORK
	export LTTNG_HOME=$work/home
	mkdir -p "$LTTNG_HOME"
	lttng-sessiond --no-kernel > "$work/sessiond.log" 2>&1 &
	sessiond=$!
	trap 'kill $sessiond 2> /dev/null; wait $sessiond 2> /dev/null' EXIT
	for _ in $(seq 300); do
		lttng -n list > /dev/null 2>&1 && break
		sleep 0.1
	done
	lttng -n create lt_pyb --output="$work/lttng-trace" > /dev/null
	lttng -n enable-event --python -s lt_pyb bench > /dev/null
	lttng -n start lt_pyb > /dev/null
	"$PY" "$BENCH" log lttngust "$CALLS" "$RUNS"
	lttng -n stop lt_pyb > /dev/null
	lttng -n destroy lt_pyb > /dev/null
	exit 0
fi

tmp=$(mktemp -d /tmp/lt-bench-python.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$PY" -c 'import bt2, numpy' || { echo "python.sh: needs python3-bt2 and python3-numpy" >&2; exit 1; }
[ -e "$B/python/lowtrace/__init__.py" ] || { echo "python.sh: run make first" >&2; exit 1; }

val() { sed -n "s/^$1 //p" "$2"; }

echo "== read: every event with all its fields, lowtrace vs python3-bt2 (median of $RUNS runs each)"
trace=
if [ "$(id -u)" -eq 0 ] && command -v lttng > /dev/null &&
	bash "$top/tests/lttng/record.sh" "$tmp/u" $((N / 8)) 4M --buffers-uid \
		vpid vtid procname > "$tmp/rec.log" 2>&1; then
	trace=$tmp/u
	echo "trace: LTTng-UST, contexts vpid, vtid, procname (tests/lttng/record.sh), $(($(du -sb "$trace" | cut -f1) / 1048576)) MiB"
else
	"$PY" "$top/tests/gen_ctf.py" "$tmp/f" --events "$N" --seed 7 > /dev/null
	trace=$tmp/f
	echo "trace: LTTng's layout, every feature (tests/gen_ctf.py; no LTTng-UST recording here)"
fi
"$PY" "$BENCH" read "$trace" "$RUNS" > "$tmp/read"
cat "$tmp/read"
rm -rf "$tmp/u" "$tmp/f"

echo
echo "== table: one class, every field (median of $RUNS runs)"
"$B/bench/gen_trace" "$tmp/g" $((10 * N)) --cpus 2 --mix small --no-empty > /dev/null
echo "trace: bench/gen_trace, $((10 * N)) events, $(($(du -sb "$tmp/g" | cut -f1) / 1048576)) MiB"
"$PY" "$BENCH" table "$tmp/g" myapp:frame_begin "$RUNS"
echo "C reader here: $("$B/lowtrace" view "$tmp/g" --stats | sed -n 's/^decode: //p')"
rm -rf "$tmp/g"

echo
echo "== log: what a handler adds to logger.info() ($CALLS calls, median of $RUNS runs, each beside the calls without it)"
echo "-- lowtrace.logging.Handler, no one recording"
"$PY" "$BENCH" log lowtrace "$CALLS" "$RUNS"
echo "-- lowtrace.logging.Handler under lowtrace record"
"$B/lowtrace" record -o "$tmp/rec" -- "$PY" "$BENCH" log lowtrace "$CALLS" "$RUNS" \
	2> "$tmp/rec.err" | grep -v '^lowtrace:'
grep -o 'recorded [0-9]* events' "$tmp/rec.err" || true
rm -rf "$tmp/rec"
if [ "$(id -u)" -eq 0 ] && command -v lttng-sessiond > /dev/null &&
	"$PY" -c 'import lttngust.loghandler' 2> /dev/null; then
	echo "-- LTTng's Python agent (python3-lttngust), recorded by an LTTng session"
	made=
	[ -e /run/lttng ] || { mkdir /run/lttng && made=1; }
	LT_PYB_INSIDE=1 LT_PYB_WORK=$tmp CALLS=$CALLS RUNS=$RUNS \
		unshare --mount --propagation private bash "$0" ||
		echo "python.sh: the LTTng agent's run failed: $(tail -3 "$tmp/sessiond.log" 2> /dev/null)"
	[ -n "$made" ] && rmdir /run/lttng 2> /dev/null
else
	echo "-- LTTng's Python agent: not measured (needs root, lttng-tools and python3-lttngust)"
fi
