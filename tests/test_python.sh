#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_python.sh - the Python module (python/, docs/python.md) with pytest
# (tests/python/): events and values beside babeltrace2's Python bindings
# (python3-bt2) on traces of other tracers' shapes (tests/gen_ctf.py),
# lowtrace's own (bench/gen_trace, a recording of examples/fields), the
# shared LTTng kernel traces; table() beside events(); filters; mutated
# traces; a Python program's logging records and events recorded by
# `lowtrace record` (launched, and attached with -p).  Each pytest case is
# one line here.  Needs /usr/bin/python3 with
# pytest, numpy, pandas and bt2 (skips without them, fails under
# LOWTRACE_REQUIRE_ALL=1).  A sanitizer build does not build the module:
# its interpreter would have to preload the sanitizer's runtime.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
PY=${PYTHON:-/usr/bin/python3}
. "$top/tests/lib/harness.sh" lt-test-python

if [ -n "${SANITIZE:-}" ]; then
	echo "skip python: a sanitizer build does not build the module" \
		"(python3 would have to preload the sanitizer's runtime)"
	no_cases "the Python tests run in the plain build"
fi
mod=$(ls "$B"/python/lowtrace/_reader*.so 2> /dev/null | head -n 1)
if [ -z "$mod" ]; then
	if [ -x "$PY" ] && "$PY" -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
		fail build "no $B/python/lowtrace/_reader*.so (run make)"
	else
		skip python "python3-dev missing: the module is not built"
	fi
	finish
fi
if ! "$PY" -c 'import pytest' > /dev/null 2>&1; then
	skip python "python3-pytest missing"
	finish
fi

# the traces to read, in $tmp/traces (conftest.py: LT_PY_TRACES)
T=$tmp/traces
mkdir -p "$T"
gen() { # name, gen_ctf.py options
	local name=$1
	shift
	"$PY" "$top/tests/gen_ctf.py" "$T/$name" "$@" > "$tmp/gen.err" 2>&1 ||
		fail "gen_$name" "$(head -c 600 "$tmp/gen.err")"
}
gen gen_le_small --events 400 --seed 11
gen gen_le --events 3000 --seed 1
gen gen_be_packetized_2ghz --be --packetized --freq 2500000000 --events 2000 --seed 2
gen gen_le_1mhz --packetized --freq 1000000 --events 2000 --seed 3
gen gen_compound --compound --events 1000 --seed 5
gen gen_kernel --kernel --events 3000 --seed 6
gen gen_session --session --periods 20 --seed 7
"$B/bench/gen_trace" "$T/lowtrace_gen" 6000 --cpus 2 --packet 4096 --no-empty \
	--seed 1 > "$tmp/gen.err" 2>&1 || fail gen_lowtrace "$(cat "$tmp/gen.err")"
"$B/lowtrace" record -o "$T/lowtrace_record" -- "$B/examples/fields" 200 \
	> "$tmp/rec.err" 2>&1 || fail record_fields "$(tail -c 600 "$tmp/rec.err")"

export LT_PY_TRACES=$T PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH=$B/python:$top/tests/python${PYTHONPATH:+:$PYTHONPATH}
out=$(cd "$top" && "$PY" -m pytest -v -p no:cacheprovider -o console_output_style=classic \
	tests/python 2>&1)
rc=$?
# one line per case: "PATH::NAME[ID] PASSED|FAILED|SKIPPED|ERROR"
while IFS= read -r l; do
	case $l in
	*"::"*" PASSED"*) ok "${l%% PASSED*}" ;;
	*"::"*" SKIPPED"*) skip "${l%% SKIPPED*}" "skipped by pytest" ;;
	*"::"*" FAILED"* | *"::"*" ERROR"*) fail "${l%% *}" "see pytest's output below" ;;
	esac
done < <(printf '%s\n' "$out" | grep -E '^[^ ]*::[^ ]* (PASSED|FAILED|SKIPPED|ERROR)')
if [ $rc -ne 0 ] || [ $((passed + failed + skipped)) -eq 0 ]; then
	fail pytest "exit $rc"$'\n'"$(printf '%s\n' "$out" | tail -n 80)"
fi
finish
