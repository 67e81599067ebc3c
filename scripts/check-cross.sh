#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the C test programs of a cross build under qemu-user:
#
#   bash scripts/check-cross.sh ARCH    (make check-cross ARCH=aarch64)
#
# The programs are $BUILD/tests/test_* (BUILD defaults to build/ARCH),
# run by qemu-ARCH with the target's libraries from /usr/ARCH-linux-gnu.
# Prints each program's lines, then "N passed, N failed, N skipped"; exits
# non-zero if a case failed that the emulator can run.
#
# qemu-user (7.2) cannot run everything a case asks of Linux: it gives a
# guest no perf events, no rseq and no membarrier, it cannot exec a
# program of the guest's architecture (no binfmt handler), and a child
# forked by a threaded guest aborts in it.  The cases that need one of
# those are listed in tests/cross-skip.txt with the reason; their
# failures count as skips, printed with it.  A skip is not a failure here
# (LOWTRACE_REQUIRE_ALL is cleared); every other case must pass.
#
# Then test_rcu again without membarrier (its fallback case cannot re-run
# itself under qemu), ThreadSanitizer's ring torture run if built, and
# scripts/cross-trace.sh: a trace recorded by the target's
# examples/fields under qemu-user, read by this machine's lowtrace (in
# build/, HOST_BUILD overrides) beside babeltrace2.
set -u
arch=${1:?usage: $0 ARCH}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export BUILD=${BUILD:-build/$arch}
qemu=qemu-$arch
command -v "$qemu" >/dev/null || { echo "check-cross: no $qemu (Debian's qemu-user)" >&2; exit 1; }
sysroot=/usr/$arch-linux-gnu
[ -d "$sysroot" ] || { echo "check-cross: no $sysroot (Debian's libc6-dev-*-cross)" >&2; exit 1; }
tests=()
for t in "$BUILD"/tests/test_*; do
	[ -f "$t" ] && [ -x "$t" ] && tests+=("$t")
done
[ ${#tests[@]} -gt 0 ] || { echo "check-cross: no test programs in $BUILD/tests (make CC=$arch-linux-gnu-gcc BUILD=$BUILD)" >&2; exit 1; }
require_all=${LOWTRACE_REQUIRE_ALL:-}
unset LOWTRACE_REQUIRE_ALL
# the target's libraries, for the programs the tests fork under qemu too
export QEMU_LD_PREFIX=$sysroot
# no rendezvous thread: a fork after it aborts qemu in the child
export LOWTRACE_ATTACH=0
skiplist=$top/tests/cross-skip.txt
passed=0 failed=0 skipped=0
# run NAME CMD...: runs a test program's command, counts its cases
run() {
	local name=$1 out rc verdict case why dir
	shift
	out=$(timeout 300 "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed "s|^|[$name] |"
	# each case's verdict; a listed case's failure becomes a skip
	while read -r verdict case _; do
		case $verdict in
		ok) passed=$((passed + 1)) ;;
		skip) skipped=$((skipped + 1)) ;;
		FAIL)
			case=${case%:}
			why=$(awk -v p="$name" -v c="$case" '$1 == p && ($2 == c || $2 == "*") { $1 = $2 = ""; sub(/^ +/, ""); print; exit }' "$skiplist")
			if [ -n "$why" ]; then
				echo "[$name] skip $case under emulation: $why"
				skipped=$((skipped + 1))
				# the harness kept the case's files, as it does
				# for a failure: an expected one leaves none
				dir=$(printf '%s\n' "$out" | sed -n "s|^  $case: its files are kept in \(/.*/lt-case-[A-Za-z0-9]*\)\$|\1|p" | head -n 1)
				[ -n "$dir" ] && [ -d "$dir" ] && rm -rf -- "$dir"
			else
				failed=$((failed + 1))
			fi ;;
		esac
	done < <(printf '%s\n' "$out" | grep -E '^(ok|skip|FAIL) ')
	if ! printf '%s\n' "$out" | grep -qE '^lt-test: [0-9]+ passed'; then
		echo "[$name] FAIL: no summary line (exit status $rc)"
		failed=$((failed + 1))
	fi
}
for t in "${tests[@]}"; do
	run "$(basename "$t")" "$qemu" "$t"
done
# RCU's fence fallback: its case re-runs the program without membarrier,
# which qemu cannot exec; run the program so instead
if [ -x "$BUILD/tests/test_rcu" ]; then
	run test_rcu:fence env LOWTRACE_RCU_NO_MEMBARRIER=1 "$qemu" "$BUILD/tests/test_rcu"
fi
# ThreadSanitizer's run of the ring torture test, from a build of it
# (make CC=ARCH-linux-gnu-gcc SANITIZE=thread BUILD=build/ARCH-tsan
# build/ARCH-tsan/tests/test_ring_torture).  TSan re-executes a program
# whose address space is randomized, which qemu cannot do (no binfmt):
# setarch -R starts qemu without randomization instead.
tsan=${TSAN_BUILD:-build/$arch-tsan}/tests/test_ring_torture
if [ -x "$tsan" ]; then
	run test_ring_torture:tsan env SANITIZE=thread \
		setarch "$(uname -m)" -R "$qemu" "$tsan"
else
	echo "[test_ring_torture:tsan] skip: no $tsan (make CC=$arch-linux-gnu-gcc SANITIZE=thread BUILD=${tsan%/tests/*} $tsan)"
	skipped=$((skipped + 1))
fi
# on this machine: a missing tool fails it under LOWTRACE_REQUIRE_ALL=1
run cross-trace env CROSS_BUILD="$BUILD" BUILD="${HOST_BUILD:-build}" \
	LOWTRACE_REQUIRE_ALL="$require_all" bash "$top/scripts/cross-trace.sh" "$arch"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
