#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_install.sh - `make install` into a temporary DESTDIR with a PREFIX,
# then, with only what was installed: an out-of-tree C program built with
# pkg-config and a C++ program built with CMake (find_package(lowtrace),
# lowtrace::lowtrace), each recorded with the installed `lowtrace` and
# its trace read back; a program of liblowtrace-rcu built each way
# (lowtrace-rcu, lowtrace::rcu); the man pages, the bash completion;
# the Python package imported from where the prefix's python3 looks; then
# `make uninstall` leaves nothing behind.  Needs cmake, g++ and
# pkg-config (skips without them, fails under LOWTRACE_REQUIRE_ALL=1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
. "$top/tests/lib/harness.sh" lt-test-install

prefix=/opt/lowtrace-test
dest=$tmp/dest
P=$dest$prefix
# a sanitizer build's library needs its runtime in what links it
san=
[ -n "${SANITIZE:-}" ] && san="-fsanitize=$SANITIZE"

if ! out=$(make -s -C "$top" BUILD="$B" SANITIZE="${SANITIZE:-}" DESTDIR="$dest" \
	PREFIX="$prefix" install 2>&1); then
	fail install "$out"
	finish
fi
missing=
for f in bin/lowtrace lib/liblowtrace.so.0.1.0 lib/liblowtrace.so.0 lib/liblowtrace.so \
	lib/liblowtrace.a include/lowtrace/tracepoint.h include/lowtrace/types.h \
	include/lowtrace/tp_seq.h include/lowtrace/tracef.h include/lowtrace/ring_offsets.h \
	include/lowtrace/lowtrace.h \
	lib/liblowtrace-rcu.so.0.1.0 lib/liblowtrace-rcu.so.0 lib/liblowtrace-rcu.so \
	lib/liblowtrace-rcu.a include/lowtrace/rcu.h include/lowtrace/rcu_call.h \
	include/lowtrace/rcu_list.h include/lowtrace/rcu_hash.h lib/pkgconfig/lowtrace-rcu.pc \
	lib/pkgconfig/lowtrace.pc lib/cmake/lowtrace/lowtraceConfig.cmake \
	lib/cmake/lowtrace/lowtraceConfigVersion.cmake share/man/man1/lowtrace.1 \
	share/man/man3/lt_trace.3 share/man/man3/lt_tracef.3 \
	share/bash-completion/completions/lowtrace; do
	[ -e "$P/$f" ] || missing="$missing $f"
done
links="$(readlink "$P/lib/liblowtrace.so") $(readlink "$P/lib/liblowtrace.so.0")"
links="$links $(readlink "$P/lib/liblowtrace-rcu.so") $(readlink "$P/lib/liblowtrace-rcu.so.0")"
if [ -z "$missing" ] && [ "$links" = "liblowtrace.so.0 liblowtrace.so.0.1.0 liblowtrace-rcu.so.0 liblowtrace-rcu.so.0.1.0" ]; then
	ok installed_files
else
	fail installed_files "missing:$missing; links: $links"
fi

# the parts of tracepoint.h stop a build that includes them on their own
miss=
for h in tp_seq.h tracef.h; do
	if out=$(printf '#include <lowtrace/%s>\n' "$h" |
		cc -std=gnu11 -fsyntax-only -I"$P/include" -x c - 2>&1) ||
		! grep -q 'include <lowtrace/tracepoint.h>' <<< "$out"; then
		miss="$miss $h"
	fi
done
if [ -z "$miss" ]; then
	ok internal_headers
else
	fail internal_headers "included on their own without an error:$miss"
fi

# the programs: an event, a marker, from C and from C++
cat > "$tmp/app.h" <<'SRC'
#include <lowtrace/tracepoint.h>
LT_EVENT(outside, hello, LT_INFO, LT_ARGS(int, n, const char *, who),
	 LT_FIELDS(LT_FIELD_INT(n, n) LT_FIELD_STRING(who, who)))
SRC
cat > "$tmp/app.c" <<'SRC'
#include "app.h"
int main(void)
{
	for (int i = 0; i < 3; i++) {
		lt_trace(outside, hello, i, "c");
		lt_tracef("from C: %d of %s", i, "three");
	}
	return 0;
}
SRC
mkdir -p "$tmp/cxx"
sed -e 's/"c"/"c++"/' -e 's/from C:/from C++:/' "$tmp/app.c" > "$tmp/cxx/app.cpp"
cp "$tmp/app.h" "$tmp/cxx/"
# liblowtrace-rcu's: a read-side section and a call_rcu callback
cat > "$tmp/rcuapp.c" <<'SRC'
#include <lowtrace/rcu.h>
#include <lowtrace/rcu_call.h>
#include <stdio.h>
static struct lt_rcu_head head;
static int ran;
static void done(struct lt_rcu_head *h)
{
	ran += h == &head;
}
int main(void)
{
	lt_rcu_read_lock();
	lt_rcu_read_unlock();
	lt_call_rcu(&head, done);
	lt_rcu_barrier();
	printf("call_rcu ran %d\n", ran);
	return 0;
}
SRC
cp "$tmp/rcuapp.c" "$tmp/cxx/rcuapp.cpp"
cat > "$tmp/cxx/CMakeLists.txt" <<'SRC'
cmake_minimum_required(VERSION 3.13)
project(outside CXX)
find_package(lowtrace 0.1 REQUIRED)
add_executable(app app.cpp)
target_link_libraries(app PRIVATE lowtrace::lowtrace)
add_executable(rcuapp rcuapp.cpp)
target_link_libraries(rcuapp PRIVATE lowtrace::rcu)
SRC

# record APP NAME WANT...: records APP with the installed lowtrace, and
# finds each WANT in the installed lowtrace's view of its trace
record() {
	local app=$1 name=$2 out
	shift 2
	if ! out=$(LD_LIBRARY_PATH=$P/lib "$P/bin/lowtrace" record -o "$tmp/$name.trace" -- "$app" 2>&1); then
		fail "$name" "lowtrace record: $out"
		return
	fi
	out=$(LD_LIBRARY_PATH=$P/lib "$P/bin/lowtrace" view "$tmp/$name.trace" 2>&1)
	local w miss=
	for w in "$@"; do
		grep -q -- "$w" <<< "$out" || miss="$miss [$w]"
	done
	if [ -n "$miss" ]; then
		fail "$name" "not in the trace:$miss"$'\n'"$out"
	elif ! readelf -d "$app" | grep -q 'NEEDED.*\[liblowtrace\.so\.0\]'; then
		fail "$name" "not linked with liblowtrace.so.0: $(readelf -d "$app" | grep NEEDED)"
	else
		ok "$name"
	fi
}

# rcu_run APP NAME: APP runs its callback and needs liblowtrace-rcu alone
rcu_run() {
	local out needed
	out=$(LD_LIBRARY_PATH=$P/lib "$1" 2>&1)
	needed=$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(liblowtrace[^]]*\)\]/\1/p' | tr '\n' ' ')
	if [ "$out" = "call_rcu ran 1" ] && [ "$needed" = "liblowtrace-rcu.so.0 " ]; then
		ok "$2"
	else
		fail "$2" "printed '$out', NEEDED '$needed'"
	fi
}

if ! command -v pkg-config > /dev/null 2>&1; then
	skip c_with_pkg_config "pkg-config missing"
	skip rcu_c_with_pkg_config "pkg-config missing"
else
	pc="pkg-config --define-variable=prefix=$P"
	if out=$(PKG_CONFIG_PATH=$P/lib/pkgconfig; export PKG_CONFIG_PATH
		cc -std=gnu11 -Wall -Wextra -Werror $san -o "$tmp/app" "$tmp/app.c" \
			$($pc --cflags --libs lowtrace) 2>&1); then
		record "$tmp/app" c_with_pkg_config 'outside:hello: { n = 2, who = "c" }' \
			'lt_tracef:[^ ]*app.c:6: from C: 2 of three'
	else
		fail c_with_pkg_config "$out"
	fi
	if out=$(PKG_CONFIG_PATH=$P/lib/pkgconfig; export PKG_CONFIG_PATH
		cc -std=gnu11 -Wall -Wextra -Werror $san -o "$tmp/rcuapp" "$tmp/rcuapp.c" \
			$($pc --cflags --libs lowtrace-rcu) 2>&1); then
		rcu_run "$tmp/rcuapp" rcu_c_with_pkg_config
	else
		fail rcu_c_with_pkg_config "$out"
	fi
fi

if ! command -v cmake > /dev/null 2>&1 || ! command -v g++ > /dev/null 2>&1; then
	skip cxx_with_cmake "cmake or g++ missing"
	skip rcu_cxx_with_cmake "cmake or g++ missing"
elif out=$(cmake -S "$tmp/cxx" -B "$tmp/cxx/build" -DCMAKE_PREFIX_PATH="$P" \
	-DCMAKE_CXX_COMPILER=g++ -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror $san" \
	-DCMAKE_EXE_LINKER_FLAGS="$san" 2>&1 &&
	cmake --build "$tmp/cxx/build" 2>&1); then
	record "$tmp/cxx/build/app" cxx_with_cmake 'outside:hello: { n = 2, who = "c++" }' \
		'lt_tracef:[^ ]*app.cpp:6: from C++: 2 of three'
	rcu_run "$tmp/cxx/build/rcuapp" rcu_cxx_with_cmake
else
	fail cxx_with_cmake "$out"
	fail rcu_cxx_with_cmake "$out"
fi

# lowtrace(1) has every verb; the completion offers verbs and options
verbs=$("$P/bin/lowtrace" help | sed -n 's/^  \([a-z]\+\) .*/\1/p')
miss=
for v in $verbs; do
	grep -q "^\.SH $(tr a-z A-Z <<< "$v")\$" "$P/share/man/man1/lowtrace.1" || miss="$miss $v"
done
if [ -n "$verbs" ] && [ -z "$miss" ] && grep -q 'lt_tracef' "$P/share/man/man3/lt_trace.3"; then
	ok man_pages
else
	fail man_pages "verbs without a section:$miss"
fi
comp=$(bash -c '. "$1"; COMP_WORDS=(lowtrace vi); COMP_CWORD=1; _lowtrace; echo "${COMPREPLY[*]}";
	COMP_WORDS=(lowtrace view --fi); COMP_CWORD=2; _lowtrace; echo "${COMPREPLY[*]}"' \
	_ "$P/share/bash-completion/completions/lowtrace" 2>&1)
if [ "$comp" = $'view\n--fields' ]; then
	ok bash_completion
else
	fail bash_completion "got: $comp"
fi

# the Python package (not built under a sanitizer): imported from where
# the prefix's python3 looks, reading a trace
PY=/usr/bin/python3
if [ -n "${SANITIZE:-}" ]; then
	echo "skip python_package: a sanitizer build does not build it"
elif ! ls "$B"/python/lowtrace/_reader*.so > /dev/null 2>&1; then
	skip python_package "not built (python3-dev missing)"
else
	pydir=$P/lib/python$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')/dist-packages
	"$PY" "$top/tests/gen_ctf.py" "$tmp/pytrace" --events 50 --seed 1 > /dev/null 2>&1
	if out=$(cd "$tmp" && PYTHONPATH=$pydir "$PY" -c '
import sys, lowtrace
assert lowtrace.__file__.startswith(sys.argv[1]), lowtrace.__file__
import lowtrace._emit, lowtrace.analyze
# the analyses run the command of the prefix
assert lowtrace.analyze.command() == sys.argv[4], lowtrace.analyze.command()
# the installed liblowtrace.so, beside the package in the prefix
maps = [l.split()[-1] for l in open("/proc/self/maps") if "liblowtrace.so" in l]
assert maps and all(m.startswith(sys.argv[3]) for m in maps), maps
print(sum(1 for _ in lowtrace.open(sys.argv[2]).events()))' "$pydir" "$tmp/pytrace" "$P/lib" "$P/bin/lowtrace" 2>&1) &&
		[ "$out" -gt 0 ] 2> /dev/null; then
		ok python_package
	else
		fail python_package "$out"
	fi
fi

if ! out=$(make -s -C "$top" BUILD="$B" SANITIZE="${SANITIZE:-}" DESTDIR="$dest" \
	PREFIX="$prefix" uninstall 2>&1); then
	fail uninstall "$out"
elif left=$(find "$dest" -type f -o -type l) && [ -n "$left" ]; then
	fail uninstall "left behind: $left"
else
	ok uninstall
fi
finish
