#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_cxx.sh - events defined and called from C++ (tests/test_cxx.cpp and
# test_cxx_tu2.cpp), built by g++ and by clang++ (mk/cxx.mk), read back.
#
# Each program traces itself (LOWTRACE_TRACE) for a few rounds; the trace
# must hold every event with the values the program gave (every field
# kind; calls from a namespace, a member function, a template, a lambda
# and the second translation unit), and babeltrace2 must read it as
# `lowtrace view` does (tests/compare_babeltrace.py).  The lt_tracef
# markers of the same places print their text on stdout: `lowtrace view`
# must print the same; selected by file, only that file's are recorded.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
PY=/usr/bin/python3
export TZ=UTC
. "$top/tests/lib/harness.sh" lt-test-cxx

rounds=5
for cxx in gnu clang; do
	prog=$B/tests/cxx/test_cxx-$cxx
	if [ ! -x "$prog" ] || [ ! -x "$LT" ]; then
		fail "build_$cxx" "no $prog or $LT (run make first)"
		continue
	fi
	d=$tmp/$cxx
	if ! LOWTRACE_TRACE=$d "$prog" $rounds > "$tmp/$cxx.out" 2>&1; then
		fail "run_$cxx" "$(cat "$tmp/$cxx.out")"
		continue
	fi
	if ! "$LT" view "$d" > "$tmp/$cxx.lt" 2> "$tmp/$cxx.err" || [ -s "$tmp/$cxx.err" ]; then
		fail "view_$cxx" "$(head -c 600 "$tmp/$cxx.err")"
		continue
	fi
	# events per round: each name with its count
	bad=
	for want in cxxtp:ints:1 cxxtp:colored:1 cxxtp:floats:1 cxxtp:strings:1 \
		cxxtp:arrays:1 cxxns:inner:1 cxxtp:small:4 cxxtp:where:3; do
		name=${want%:*} n=${want##*:}
		got=$(grep -c " $name: " "$tmp/$cxx.lt")
		[ "$got" -eq $((n * rounds)) ] || bad="$bad [$name: $got, not $((n * rounds))]"
	done
	[ -z "$bad" ] && ok "counts_$cxx" || fail "counts_$cxx" "$bad"
	# the values of the last round (i = 4)
	missing=
	for want in 's8 = -96, u8 = 204, s16 = -29996, u16 = 0xBEF3, s32 = -1999999996, u32 = 0xDEADBEF3, s64 = -8999999999999999996, u64 = 18000000000000000004' \
		'c = ( "GREEN" : container = 1 ), n = 4' 'c = ( "BLUEISH" : container = 7 ), n = 2' \
		'f = 4.5, d = 12.5664' 'lit = "literal", s = "std::string 4"' \
		'fixed = \[ \[0\] = 1, \[1\] = 65535, \[2\] = 4 \], seq_length = 4, seq = \[ \[0\] = -1, \[1\] = 2, \[2\] = -3, \[3\] = 4 \], comm = "cxx4"' \
		'cxxns:inner: { i = 4, x = 1 }' 'cxxtp:small: { id = 2, v = -4 }' 'cxxtp:small: { id = 8, v = 4 }' \
		'from = "lambda", i = 4' 'cxxtp:small: { id = 1000, v = -4 }' 'from = "member", i = 1000' \
		'from = "tu2-4", i = 4' 'cxxtp:small: { id = 2004, v = -4 }'; do
		grep -q -- "$want" "$tmp/$cxx.lt" || missing="$missing [$want]"
	done
	[ -z "$missing" ] && ok "values_$cxx" || fail "values_$cxx" "not in the trace:$missing"
	# the markers: printf's text, 6 a round
	sed -n 's/^\[[^]]*\] ([^)]*) \([^ ]* \)\{0,1\}cpu [0-9]* lt_tracef:[^ ]*: //p' "$tmp/$cxx.lt" > "$tmp/$cxx.txt"
	if dd=$(diff "$tmp/$cxx.out" "$tmp/$cxx.txt") && [ "$(wc -l < "$tmp/$cxx.txt")" -eq $((6 * rounds)) ]; then
		ok "markers_$cxx"
	else
		fail "markers_$cxx" "printf (<) and lowtrace view (>) differ:"$'\n'"$dd"
	fi
	LOWTRACE_TRACE=$tmp/$cxx-tu2 LOWTRACE_EVENTS='lt_tracef:tests/test_cxx_tu2.cpp:*' \
		"$prog" $rounds > /dev/null 2>&1
	got=$("$LT" view "$tmp/$cxx-tu2" | sed 's/^[^ ]* [^ ]* \([^ ]* \)\{0,1\}cpu [0-9]* //' | sort | uniq -c | sed 's/^ *//')
	if [ "$(wc -l <<< "$got")" -eq $rounds ] && ! grep -qv "^1 lt_tracef:tests/test_cxx_tu2.cpp:[0-9]*: tu2 tu2-[0-9] round [0-9]$" <<< "$got"; then
		ok "markers_by_file_$cxx"
	else
		fail "markers_by_file_$cxx" "$got"
	fi
	if ! command -v babeltrace2 > /dev/null 2>&1 || [ ! -x "$PY" ]; then
		skip "babeltrace2_$cxx" "babeltrace2 or /usr/bin/python3 missing"
		continue
	fi
	"$LT" view --fields "$d" > "$tmp/$cxx.ltf"
	if ! babeltrace2 "$d" > "$tmp/$cxx.bt" 2> "$tmp/$cxx.bterr" || [ -s "$tmp/$cxx.bterr" ]; then
		fail "babeltrace2_$cxx" "$(head -c 600 "$tmp/$cxx.bterr")"
	elif out=$("$PY" "$top/tests/compare_babeltrace.py" "$tmp/$cxx.bt" "$tmp/$cxx.ltf" 2>&1); then
		ok "babeltrace2_$cxx ($out)"
	else
		fail "babeltrace2_$cxx" "$out"
	fi
done

# rcu.h's read side compiles to the same instructions from C and from
# C++ (<stdatomic.h> there, <atomic> here): one function of each
# flavour's read side, compiled by gcc and by g++, disassembled
cat > "$tmp/rs.c" <<'SRC'
#include <lowtrace/rcu.h>
#ifdef __cplusplus
extern "C"
#endif
int rs(int *p);
int rs(int *p)
{
	lt_rcu_read_lock();
	int v = *p;
	lt_rcu_read_unlock();
	if (lt_rcu_read_lock_outer())
		lt_rcu_read_unlock_outer();
	lt_rcu_qsbr_quiescent_state();
	return v + lt_rcu_read_ongoing();
}
SRC
cp "$tmp/rs.c" "$tmp/rs.cpp"
dis() { objdump -d --no-show-raw-insn "$1" | sed -n '/<rs>:/,$p' | sed 's/^ *[0-9a-f]*://'; }
if ! command -v objdump > /dev/null 2>&1; then
	skip rcu_read_side_same_code "objdump missing"
elif ! out=$(gcc -std=gnu11 -O2 -I"$top/include" -c "$tmp/rs.c" -o "$tmp/rs_c.o" 2>&1 &&
	g++ -std=c++11 -O2 -Wall -Wextra -Werror -I"$top/include" -c "$tmp/rs.cpp" -o "$tmp/rs_cxx.o" 2>&1); then
	fail rcu_read_side_same_code "$out"
elif d=$(diff <(dis "$tmp/rs_c.o") <(dis "$tmp/rs_cxx.o")) && [ -n "$(dis "$tmp/rs_c.o")" ]; then
	ok rcu_read_side_same_code
else
	fail rcu_read_side_same_code "C (<) and C++ (>) differ:"$'\n'"$d"
fi
finish
