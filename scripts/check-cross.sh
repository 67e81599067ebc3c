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
unset LOWTRACE_REQUIRE_ALL
# the target's libraries, for the programs the tests fork under qemu too
export QEMU_LD_PREFIX=$sysroot
# no rendezvous thread: a fork after it aborts qemu in the child
export LOWTRACE_ATTACH=0
skiplist=$top/tests/cross-skip.txt
passed=0 failed=0 skipped=0
for t in "${tests[@]}"; do
	name=$(basename "$t")
	out=$(timeout 300 "$qemu" "$t" 2>&1)
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
			else
				failed=$((failed + 1))
			fi ;;
		esac
	done < <(printf '%s\n' "$out" | grep -E '^(ok|skip|FAIL) ')
	if ! printf '%s\n' "$out" | grep -qE '^lt-test: [0-9]+ passed'; then
		echo "[$name] FAIL: no summary line (exit status $rc)"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
