#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_deps.sh - no file or module of src/ depends on another in a circle
# (scripts/check-deps.sh), but for the cycles tests/deps-allow.txt still
# lists, and every include between modules goes the way the module table
# of docs/ARCHITECTURE.md says.  First checks that the checker finds a cycle of each kind in a
# small tree made for it, and that an allow-list line lets it pass.  The
# link graph needs the build's objects ($BUILD/obj, `make` first).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
CHECK=$top/scripts/check-deps.sh
. "$top/tests/lib/harness.sh" lt-test-deps

# expect NAME WANT_RC TEXT... -- CHECK-ARGS: runs the checker, passes when
# it exits WANT_RC and its output holds every TEXT as a line
expect() {
	local name=$1 want=$2 out rc t
	shift 2
	local texts=()
	while [ "$1" != -- ]; do
		texts+=("$1")
		shift
	done
	shift
	out=$(bash "$CHECK" "$@" 2>&1)
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "$name" "exit status $rc, not $want; output:"$'\n'"$out"
		return
	fi
	for t in "${texts[@]}"; do
		if ! printf '%s\n' "$out" | grep -qxF -- "$t"; then
			fail "$name" "no line '$t' in:"$'\n'"$out"
			return
		fi
	done
	ok "$name"
}

# src/a/x.c includes b/y.h, src/b/y.c includes a/x.h, and each calls the
# other's function; src/c/z.c, which only a/x.c uses, is in no cycle
t=$tmp/tree
mkdir -p "$t/src/a" "$t/src/b" "$t/src/c" "$t/obj/src/a" "$t/obj/src/b" \
	"$t/obj/src/c"
printf 'int x(void);\n' > "$t/src/a/x.h"
printf 'int y(void);\n' > "$t/src/b/y.h"
printf 'int z(void);\n' > "$t/src/c/z.h"
printf '#include "a/x.h"\n#include "b/y.h"\n#include "c/z.h"\nint x(void) { return y() + z(); }\n' \
	> "$t/src/a/x.c"
printf '#include "b/y.h"\n#include "a/x.h"\nint y(void) { return x(); }\n' \
	> "$t/src/b/y.c"
printf '#include "c/z.h"\nint z(void) { return 1; }\n' > "$t/src/c/z.c"
built=1
for f in a/x b/y c/z; do
	${CC:-cc} -I"$t/src" -c "$t/src/$f.c" -o "$t/obj/src/$f.o" 2> "$tmp/cc.err" || built=0
done

expect finds_an_include_cycle 1 \
	"cycle include: src/a/x -> src/b/y -> src/a/x" \
	"    src/a/x -> src/b/y: b/y.h" \
	"    src/b/y -> src/a/x: a/x.h" \
	"  members: src/a/x src/b/y" \
	"cycle module: src/a -> src/b -> src/a" \
	-- --root "$t"

if [ $built -eq 1 ]; then
	expect finds_a_link_cycle 1 \
		"cycle link: src/a/x -> src/b/y -> src/a/x" \
		"    src/a/x -> src/b/y: y" \
		"    src/b/y -> src/a/x: x" \
		-- --root "$t" --objs "$t/obj"
else
	fail finds_a_link_cycle "cc failed: $(cat "$tmp/cc.err")"
fi

printf '# the cycle of the test tree\ninclude src/a/x src/b/y\nmodule src/a src/b\nlink src/a/x src/b/y\n' \
	> "$tmp/allow"
expect allow_list_lets_its_cycles_pass 0 \
	"allowed cycle include: src/a/x -> src/b/y -> src/a/x" \
	"allowed cycle module: src/a -> src/b -> src/a" \
	-- --root "$t" --allow "$tmp/allow"

# a line naming only part of a component does not let it pass
printf 'include src/a/x src/c/z\nmodule src/a src/b\n' > "$tmp/allow2"
expect allow_list_line_must_hold_the_cycle 1 \
	"cycle include: src/a/x -> src/b/y -> src/a/x" \
	"allowed cycle module: src/a -> src/b -> src/a" \
	"stale allow-list line (no such cycle now):include src/a/x src/c/z" \
	-- --root "$t" --allow "$tmp/allow2"

# layering: high may include low, not the other way; a module needs a row
l=$tmp/layers
mkdir -p "$l/src/low" "$l/src/high"
printf 'int lo(void);\n' > "$l/src/low/l.h"
printf '#include "low/l.h"\nint lo(void) { return 1; }\n' > "$l/src/low/l.c"
printf 'int hi(void);\n' > "$l/src/high/h.h"
printf '#include "high/h.h"\n#include "low/l.h"\nint hi(void) { return lo(); }\n' \
	> "$l/src/high/h.c"
printf '| module | concept | uses |\n| --- | --- | --- |\n| src/low/ | below | nothing |\n| src/high/ | above | low |\n' \
	> "$tmp/table.md"
expect layers_allow_what_the_table_says 0 -- --root "$l" --layers "$tmp/table.md"
printf '#include "high/h.h"\n' > "$l/src/low/up.c"
expect layers_refuse_an_include_upwards 1 \
	"layer: src/low/up -> src/high/h (high/h.h): src/low uses nothing; src/high is below it" \
	-- --root "$l" --layers "$tmp/table.md"
rm "$l/src/low/up.c"
mkdir -p "$l/src/side"
printf '#include "low/l.h"\n' > "$l/src/side/s.c"
expect layers_need_a_row_for_every_module 1 \
	"layer: src/side/s -> src/low/l (low/l.h): src/side/s has no row in the module table" \
	-- --root "$l" --layers "$tmp/table.md"

if [ -d "$B/obj/src" ]; then
	out=$(bash "$CHECK" --objs "$B/obj" --allow "$top/tests/deps-allow.txt" \
		--layers "$top/docs/ARCHITECTURE.md" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	if [ $rc -eq 0 ]; then
		ok src_has_no_cycles_but_the_allowed
	else
		fail src_has_no_cycles_but_the_allowed \
			"scripts/check-deps.sh exit $rc: a cycle above is not in tests/deps-allow.txt, or an include breaks docs/ARCHITECTURE.md's table"
	fi
else
	skip src_has_no_cycles_but_the_allowed "no $B/obj/src (run make first)"
fi
finish
