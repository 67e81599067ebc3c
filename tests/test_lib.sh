#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_lib.sh - liblowtrace.so as a traced program links it: a SONAME,
# only the public API exported (none of RCU's), the registration
# constructor only in the objects that define events, and a program
# built against the shared library (not the static one the other tests
# use) that traces itself into a trace babeltrace2 and `lowtrace view`
# read.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
CC=${CC:-gcc}
. "$top/tests/lib/harness.sh" lt-test-lib

SO=$B/liblowtrace.so
if [ ! -e "$SO" ] || [ ! -x "$B/lowtrace" ]; then
	fail build "no $SO or $B/lowtrace (run make first)"
	finish
fi

soname=$(readelf -d "$SO" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" = liblowtrace.so.0 ] && [ -e "$B/$soname" ]; then
	ok soname_is_major_version
else
	fail soname_is_major_version "SONAME '$soname', or no $B/$soname link"
fi

# every exported symbol is declared in a public header of the runtime:
# RCU's (lowtrace/rcu*.h) are liblowtrace-rcu's, and the runtime's own
# RCU stays inside it
exported=$(nm -D --defined-only "$SO" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }')
headers=$(ls "$top"/include/lowtrace/*.h | grep -v '/rcu[^/]*\.h$')
private=
for s in $exported; do
	grep -qw -- "$s" $headers || private="$private $s"
done
n=$(echo "$exported" | wc -w)
if [ -z "$private" ] && [ "$n" -gt 0 ]; then
	ok "exports_public_api_only ($n symbols)"
else
	fail exports_public_api_only "exported but in no public header of the runtime:$private"
fi
# and what a call site reaches is among them
missing=
for s in lt_probe_emit lt_probe_emit_words_slow lt_probe_register_range \
	lt_session_autostart lt_session_create lt_trigger; do
	echo "$exported" | grep -qx -- "$s" || missing="$missing $s"
done
if [ -z "$missing" ]; then
	ok exports_call_site_api
else
	fail exports_call_site_api "not exported:$missing"
fi

# the registration constructor comes from tracepoint.h: the library's
# own headers do not bring it, and its own events register without it
carriers=$(nm -A "$B/liblowtrace.a" 2> /dev/null | grep -w lt__register_events |
	awk -F: '{ print $2 }' | sort -u | tr '\n' ' ')
if [ -z "$carriers" ]; then
	ok no_registration_constructor_in_library
else
	fail no_registration_constructor_in_library "objects with lt__register_events: $carriers"
fi

# a program built against the shared library traces itself
san=
[ -n "${SANITIZE:-}" ] && san="-fsanitize=$SANITIZE"
prog=$tmp/fields
if ! $CC -std=gnu11 -O2 $san -I"$top/include" -o "$prog" "$top/examples/fields.c" \
	-L"$B" -llowtrace -Wl,-rpath,"$B" > "$tmp/cc.log" 2>&1; then
	fail shared_program_builds "$(head -c 600 "$tmp/cc.log")"
	finish
fi
needed=$(readelf -d "$prog" | sed -n 's/.*(NEEDED).*\[\(liblowtrace[^]]*\)\]/\1/p')
if [ "$needed" = liblowtrace.so.0 ]; then
	ok shared_program_needs_soname
else
	fail shared_program_needs_soname "NEEDED '$needed'"
fi
if ! LOWTRACE_TRACE="$tmp/t" "$prog" 20 > "$tmp/run.log" 2>&1; then
	fail shared_program_traces "exit $?: $(tail -c 600 "$tmp/run.log")"
	finish
fi
"$B/lowtrace" view "$tmp/t" > "$tmp/view.txt" 2> "$tmp/view.err"
ticks=$(grep -c 'demo:tick' "$tmp/view.txt")
if [ "$ticks" -eq 20 ] && [ ! -s "$tmp/view.err" ]; then
	ok shared_program_traces
else
	fail shared_program_traces "$ticks demo:tick events of 20: $(head -c 600 "$tmp/view.err")"
fi
if command -v babeltrace2 > /dev/null 2>&1; then
	n=$(babeltrace2 "$tmp/t" 2> "$tmp/bt.err" | grep -c 'demo:tick')
	if [ "$n" -eq 20 ] && [ ! -s "$tmp/bt.err" ]; then
		ok shared_program_trace_reads_in_babeltrace2
	else
		fail shared_program_trace_reads_in_babeltrace2 "$n ticks: $(head -c 600 "$tmp/bt.err")"
	fi
else
	skip shared_program_trace_reads_in_babeltrace2 "babeltrace2 missing"
fi
finish
