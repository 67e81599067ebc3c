#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_probes.sh - programs not built for lowtrace: USDT markers and
# uprobes (`lowtrace list --probes`, `lowtrace record -u / --probe / -p`),
# their spans (`analyze spans`, `analyze latency --span`).
#
# Lists the SDT notes of PostgreSQL and Python; records a Python script
# under -u 'python:function__*' and counts its functions' returns, with
# file, function and line, in lowtrace's and babeltrace2's output alike;
# runs examples/pg-lock.sh (a private PostgreSQL cluster, one session
# holding a row lock while another's UPDATE waits) and checks that the
# slowest query's verdict names the lock wait and the backend whose
# commit woke it; checks that a marker behind a semaphore fires while
# probed (bench/usdt_hit) and that the semaphore is put back, and a
# function's return value; feeds bad input (unknown markers, a binary without
# notes, a malformed type list, a string at a bad address, a PID that
# exits, kprobes on a kernel without kprobe_events, not root), and a recorder
# killed by SIGKILL.  After every case, no lowtrace probe is left in
# uprobe_events.  Needs root, python3.11, PostgreSQL 15 and babeltrace2
# (skips without them, fails under LOWTRACE_REQUIRE_ALL=1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
PY=/usr/bin/python3.11
PG=/usr/lib/postgresql/15/bin/postgres
. "$top/tests/lib/harness.sh" lt-test-probes

UE=/sys/kernel/tracing/uprobe_events
# no lowtrace probe left behind (another tool's are none of our business)
left_behind() { grep -s 'lowtrace_' "$UE"; }
check_clean() { # NAME
	local l
	l=$(left_behind)
	if [ -z "$l" ]; then ok "$1"; else fail "$1" "left in $UE:"$'\n'"$l"; fi
}

# listing needs no root
if [ -x "$PG" ]; then
	"$LT" list --probes "$PG" > "$tmp/pg.list" 2>&1
	n=$(grep -c '^postgresql:' "$tmp/pg.list")
	if [ "$n" -ge 60 ] && grep -q '^postgresql:query__start  .*semaphore 0x[0-9a-f]*  args: 8@%rbx  (query:string)' "$tmp/pg.list" &&
		grep -q '^postgresql:lock__wait__start .*args: 4@(%r12)' "$tmp/pg.list"; then
		ok "test_list_probes_postgres ($n markers)"
	else
		fail test_list_probes_postgres "$(cat "$tmp/pg.list")"
	fi
else
	skip test_list_probes_postgres "no $PG"
fi
if [ -x "$PY" ]; then
	"$LT" list --probes "$PY" > "$tmp/py.list" 2>&1
	"$LT" list --probes "$PY" --functions 'PyEval_EvalCode' > "$tmp/pyf.list" 2>&1
	if [ "$(grep -c "^python:" "$tmp/py.list")" -eq 8 ] &&
		grep -q '^python:function__return  .*semaphore.*(file:string,func:string,line:s32)' "$tmp/py.list" &&
		grep -q ':PyEval_EvalCode  0x' "$tmp/pyf.list"; then
		ok test_list_probes_python
	else
		fail test_list_probes_python "$(cat "$tmp/py.list" "$tmp/pyf.list")"
	fi
else
	skip test_list_probes_python "no $PY"
fi
expect_error test_list_probes_no_notes nonzero 'has no USDT markers' \
	"$LT" list --probes /bin/true
expect_error test_list_probes_no_process nonzero 'no such process' \
	"$LT" list --probes 999999999

if [ "$(id -u)" -ne 0 ]; then
	for t in python bad_input sigkill pg_lock; do
		skip "test_$t" "uprobes need root"
	done
	finish
fi
if [ ! -x "$PY" ]; then
	skip test_python "no $PY"
else
	# python: each function as many times as it ran, with its file and
	# the line it returned from
	cat > "$tmp/calls.py" << 'EOP'
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
def leaf():
    return 1
for i in range(7):
    leaf()
fib(6)
EOP
	"$LT" record -o "$tmp/py" -u 'python:function__*' -- "$PY" "$tmp/calls.py" > "$tmp/py.out" 2>&1
	"$LT" view "$tmp/py" > "$tmp/py.view" 2>&1
	count() { # FILE FUNC LINE
		grep -c "python:function__return: .*file = \"$tmp/calls.py\", func = \"$2\", line = $3 }" "$1"
	}
	lf=$(count "$tmp/py.view" fib 2)
	ll=$(count "$tmp/py.view" leaf 4)
	if [ "$lf" = 25 ] && [ "$ll" = 7 ]; then
		ok test_python_returns_counted
	else
		fail test_python_returns_counted "fib $lf (25 wanted), leaf $ll (7 wanted):"$'\n'"$(cat "$tmp/py.out"; grep calls.py "$tmp/py.view" | head -40)"
	fi
	if command -v babeltrace2 > /dev/null 2>&1; then
		babeltrace2 "$tmp/py" > "$tmp/py.bt" 2> "$tmp/py.bterr"
		bf=$(count "$tmp/py.bt" fib 2)
		bl=$(count "$tmp/py.bt" leaf 4)
		if [ "$bf" = 25 ] && [ "$bl" = 7 ] && [ ! -s "$tmp/py.bterr" ]; then
			ok test_python_returns_in_babeltrace2
		else
			fail test_python_returns_in_babeltrace2 "fib $bf, leaf $bl:"$'\n'"$(cat "$tmp/py.bterr"; grep calls.py "$tmp/py.bt" | head -20)"
		fi
	else
		skip test_python_returns_in_babeltrace2 "no babeltrace2"
	fi
	"$LT" analyze spans "$tmp/py" > "$tmp/py.spans" 2>&1
	if grep -q '^python:function__entry..python:function__return ' "$tmp/py.spans"; then
		ok test_python_spans
	else
		fail test_python_spans "$(cat "$tmp/py.spans")"
	fi
	check_clean test_python_leaves_no_probe
fi

# a marker behind a semaphore fires while probed, and the semaphore is
# put back after: bench/usdt_hit prints its semaphore and the count
HIT=$B/bench/usdt_hit
if [ -x "$HIT" ]; then
	"$LT" record -o "$tmp/hit" -u 'bench:hit(a,b,s:string)' -- "$HIT" 1000 > "$tmp/hit.out" 2>&1
	n=$("$LT" view "$tmp/hit" 2>&1 | grep -c 'bench:hit: .*a = 999, b = 2997, s = "select"')
	after=$("$HIT" 10)
	if grep -q 'semaphore 1' "$tmp/hit.out" && [ "$n" = 1 ] &&
		[ "$("$LT" view "$tmp/hit" 2>&1 | grep -c 'bench:hit:')" = 1000 ] &&
		echo "$after" | grep -q 'semaphore 0'; then
		ok test_semaphore_raised_while_probed
	else
		fail test_semaphore_raised_while_probed "$(cat "$tmp/hit.out"; echo "$after"; "$LT" view "$tmp/hit" 2>&1 | tail -3)"
	fi
else
	fail test_semaphore_raised_while_probed "no $HIT (run make)"
fi

# a function and its return value, from the calling convention
if [ -x "$PY" ]; then
	"$LT" record -o "$tmp/fn" --probe 'libc:getpid%return(ret:s32)' -- \
		"$PY" -c 'import os; print("pid", os.getpid())' > "$tmp/fn.out" 2>&1
	pid=$(sed -n 's/^pid //p' "$tmp/fn.out")
	if [ -n "$pid" ] && "$LT" view "$tmp/fn" 2>&1 | grep -q "libc:getpid__return: .*common_tgid = $pid, .*ret = $pid }"; then
		ok test_function_return_value
	else
		fail test_function_return_value "$(cat "$tmp/fn.out"; "$LT" view "$tmp/fn" 2>&1 | head -5)"
	fi
fi

# bad input: each a clear message and a non-zero exit, nothing left
if [ -x "$PY" ]; then
	row nonzero 'no such USDT marker .*did you mean python:function__return' \
		"$LT" record -o "$tmp/b1" -u 'python:function__retrn' -- "$PY" -c 1
	row nonzero "no such USDT marker .*lowtrace list --probes" \
		"$LT" record -o "$tmp/b2" -u 'nosuch:*' -- "$PY" -c 1
	row nonzero '`file:strng` is not NAME:TYPE' \
		"$LT" record -o "$tmp/b3" -u 'python:function__return(file:strng)' -- "$PY" -c 1
	row nonzero 'has 3 arguments, the type list 4' \
		"$LT" record -o "$tmp/b4" -u 'python:function__return(a,b,c,d)' -- "$PY" -c 1
	row nonzero 'expected PROVIDER:NAME' \
		"$LT" record -o "$tmp/b5" -u 'python:gc__start(x:s32' -- "$PY" -c 1
	row nonzero 'no such function symbol' \
		"$LT" record -o "$tmp/b6" --probe 'libc:no_such_function_here' -- "$PY" -c 1
fi
row nonzero 'no USDT markers in /usr/bin/true' \
	"$LT" record -o "$tmp/b7" -u 'x:y' -- /usr/bin/true
row nonzero '^lowtrace: record: -p 999999999: no such process' \
	"$LT" record -o "$tmp/b8" -p 999999999 -u 'x:*'
row nonzero 'this kernel has no kprobe_events' \
	"$LT" record -o "$tmp/b9" -k 'kprobe:do_sys_openat2' -- /usr/bin/true
if [ -x "$PY" ] && id nobody > /dev/null 2>&1; then
	chmod o+x "$tmp" && mkdir -m 777 "$tmp/nobody"
	row nonzero 'run as root' \
		runuser -u nobody -- "$LT" record -o "$tmp/nobody/t" -u 'python:gc__start' -- "$PY" -c 1
fi
rows_end test_bad_input_is_refused
check_clean test_bad_input_leaves_no_probe

if [ -x "$PY" ]; then
	# a string at a bad address: the kernel's fetch fails, the event
	# says so
	"$LT" record -o "$tmp/fault" --probe 'libc:abs(s:string)' -- \
		"$PY" -c 'import ctypes; ctypes.CDLL(None).abs(12345)' > "$tmp/fault.out" 2>&1
	if "$LT" view "$tmp/fault" 2>&1 | grep -q 'libc:abs: .*s = "(fault)"'; then
		ok test_string_at_bad_address_is_marked
	else
		fail test_string_at_bad_address_is_marked "$(cat "$tmp/fault.out"; "$LT" view "$tmp/fault" 2>&1 | head)"
	fi
	# -p of a process that exits while recorded: the trace ends there
	"$PY" -c 'import time; time.sleep(0.5)' &
	victim=$!
	"$LT" record -o "$tmp/gone" -p "$victim" -u 'python:gc__*' > "$tmp/gone.out" 2>&1
	if grep -q "process $victim exited; the trace ends there" "$tmp/gone.out" &&
		[ -s "$tmp/gone/metadata" ]; then
		ok test_pid_that_exits
	else
		fail test_pid_that_exits "$(cat "$tmp/gone.out")"
	fi
	wait "$victim" 2> /dev/null
	check_clean test_pid_leaves_no_probe

	# SIGTERM ends the recording as the command's end would: the
	# trace is whole and the probes are gone (the command runs on)
	"$LT" record -o "$tmp/term" -u 'python:function__return' -- \
		"$PY" -c 'import time; time.sleep(3)' > "$tmp/term.out" 2>&1 &
	rec=$!
	for _ in $(seq 100); do
		grep -q "lowtrace_$rec/" "$UE" && break
		sleep 0.05
	done
	kill -TERM "$rec"
	wait "$rec"
	st=$?
	if [ "$st" = 143 ] && [ -z "$(left_behind)" ] && "$LT" view "$tmp/term" > /dev/null 2>&1; then
		ok test_sigterm_recorder_cleans_up
	else
		fail test_sigterm_recorder_cleans_up "exit $st; $UE:"$'\n'"$(cat "$UE" "$tmp/term.out")"
	fi

	# a recorder killed by SIGKILL leaves its probes; the next one
	# removes them (and nothing of another tool)
	echo 'p:other_tool_test/keep /usr/bin/true:0x0' >> "$UE" 2> /dev/null
	"$LT" record -o "$tmp/kill" -u 'python:function__return' -- \
		"$PY" -c 'import time; time.sleep(5)' > /dev/null 2>&1 &
	rec=$!
	for _ in $(seq 100); do
		grep -q "lowtrace_$rec/" "$UE" && break
		sleep 0.05
	done
	had=$(grep -c "lowtrace_$rec/" "$UE")
	child=
	for st in /proc/[0-9]*/stat; do
		[ "$(sed 's/.*) . \([0-9]*\) .*/\1/' "$st" 2> /dev/null)" = "$rec" ] &&
			child="$child $(basename "$(dirname "$st")")"
	done
	kill -9 "$rec"
	wait "$rec" 2> /dev/null
	[ -n "$child" ] && kill $child 2> /dev/null
	"$LT" record -o "$tmp/after" -u 'python:gc__start' -- "$PY" -c 1 > /dev/null 2>&1
	if [ "$had" -ge 1 ] && [ -z "$(left_behind)" ] && grep -q other_tool_test "$UE"; then
		ok test_sigkilled_recorder_cleaned_next_time
	else
		fail test_sigkilled_recorder_cleaned_next_time "had $had; now:"$'\n'"$(cat "$UE")"
	fi
	echo '-:other_tool_test/keep' >> "$UE" 2> /dev/null
fi

# PostgreSQL: the slowest query was blocked on the row lock, and the
# verdict names the backend whose commit woke it
if [ ! -x "$PG" ] || ! id postgres > /dev/null 2>&1; then
	skip test_pg_lock "no PostgreSQL 15 or no postgres user"
else
	LOWTRACE=$LT bash "$top/examples/pg-lock.sh" "$tmp/pg" > "$tmp/pg.out" 2>&1
	first=$(sed -n '/^#1 /,/^#2 /p' "$tmp/pg.out")
	verdict=$(printf '%s\n' "$first" | grep -m1 'verdict:')
	waker=$(printf '%s\n' "$verdict" | sed -n 's/.*until tid [0-9]* postgres (pid \([0-9]*\)).*/\1/p')
	self=$(printf '%s\n' "$first" | sed -n '1s/.* (pid \([0-9]*\)).*/\1/p')
	if printf '%s\n' "$first" | grep -q 'query = "UPDATE account SET balance = balance + 10 WHERE id = 1;"' &&
		printf '%s\n' "$verdict" | grep -q 'blocked [0-9.]* ms in postgresql:lock__wait__start..postgresql:lock__wait__done, until tid [0-9]* postgres (pid [0-9]*) woke it .* after its postgresql:transaction__commit' &&
		[ -n "$waker" ] && [ "$waker" != "$self" ] &&
		printf '%s\n' "$first" | grep -q "the waker's command line: postgres: "; then
		ok test_pg_lock_verdict
	else
		fail test_pg_lock_verdict "$(cat "$tmp/pg.out")"
	fi
	check_clean test_pg_lock_leaves_no_probe
fi
finish
