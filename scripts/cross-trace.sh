#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cross-trace.sh - a trace recorded by a program of another architecture
# (under qemu-user) read on this one: examples/fields of the cross build
# traces itself in-process (LOWTRACE_TRACE, no recorder, no session
# socket: what qemu-user can run), and this machine's `lowtrace view`
# prints it event for event as babeltrace2 does.
#
#   bash scripts/cross-trace.sh ARCH    (run by scripts/check-cross.sh)
#
# CROSS_BUILD (default build/ARCH) holds the cross build, BUILD (default
# build) this machine's lowtrace.  Prints the harness's lines ("ok ...",
# "lt-test: N passed, ...").
set -u
arch=${1:?usage: $0 ARCH}
top=$(cd "$(dirname "$0")/.." && pwd)
CROSS=${CROSS_BUILD:-build/$arch}
B=${BUILD:-build}
case $CROSS in /*) ;; *) CROSS=$top/$CROSS ;; esac
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
PY=/usr/bin/python3
export TZ=UTC
. "$top/tests/lib/harness.sh" lt-cross-trace
. "$top/tests/lib/compare.sh"

prog=$CROSS/examples/fields
missing=""
[ -x "$prog" ] || missing="$missing $prog (make CC=$arch-linux-gnu-gcc BUILD=${CROSS#"$top"/})"
[ -x "$LT" ] || missing="$missing $LT (make)"
command -v "qemu-$arch" > /dev/null 2>&1 || missing="$missing qemu-$arch"
command -v babeltrace2 > /dev/null 2>&1 || missing="$missing babeltrace2"
[ -x "$PY" ] || missing="$missing $PY"
if [ -n "$missing" ]; then
	skip cross_trace "missing:$missing"
	finish
fi

rounds=25
# no rendezvous thread (see check-cross.sh); the target's libraries
if ! LOWTRACE_TRACE=$tmp/t LOWTRACE_ATTACH=0 timeout 120 \
	"qemu-$arch" -L "/usr/$arch-linux-gnu" "$prog" $rounds \
	> "$tmp/run.out" 2>&1; then
	fail recorded_under_qemu "$(head -c 600 "$tmp/run.out")"
	finish
fi
ok recorded_under_qemu

# the program is the other architecture's: its ELF e_machine (bytes 18-19)
case $arch in
aarch64) want=b700 ;;
riscv64) want=f300 ;;
*) want="" ;;
esac
mach=$(od -An -tx1 -j18 -N2 "$prog" | tr -d ' \n')
if [ -n "$want" ] && [ "$mach" = "$want" ]; then
	ok "program_is_$arch"
else
	fail "program_is_$arch" "e_machine bytes $mach, want ${want:-a known ARCH}"
fi

bt_compare fields "$tmp/t" || finish
# every event of every round, in the order written
n=$(grep -c 'demo:tick' "$tmp/fields.lt")
if [ "$n" -eq "$rounds" ]; then
	ok all_rounds_read
else
	fail all_rounds_read "$n demo:tick events, $rounds written"
fi
# the values of the last round, as the aarch64 program wrote them
if grep -q "demo:integers.*18000000000000000024" "$tmp/fields.lt"; then
	ok values_of_the_last_round
else
	fail values_of_the_last_round "$(grep -m1 'demo:integers' "$tmp/fields.lt")"
fi
finish
