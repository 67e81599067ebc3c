#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_tracef.sh - lt_tracef markers (tests/progs/markers.c): recorded in
# binary, formatted by the reader.
#
# The program prints each marker's text with printf as it records it;
# `lowtrace view` must print the same text (traced from inside with
# LOWTRACE_TRACE, and under `lowtrace record`, whose agent sends the
# formats to the recorder), and babeltrace2 must read the arguments as
# the typed fields `lowtrace view --fields` prints.  Then: selection by
# file and line (LOWTRACE_EVENTS, view -e), anchors by format and by
# place, the registry's refusal of an unsupported conversion, and the
# compilers' refusal of what the markers cannot record (in C as in C++,
# an unsupported conversion, at -O0 as at -O2).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
PROG=$B/tests/progs/markers
PY=/usr/bin/python3
export TZ=UTC
. "$top/tests/lib/harness.sh" lt-test-tracef

if [ ! -x "$LT" ] || [ ! -x "$PROG" ]; then
	fail build "no $LT or $PROG (run make first)"
	finish
fi
rounds=4
# the text of each marker line of `lowtrace view`
text() { sed -n 's/^\[[^]]*\] ([^)]*) \([^ ]* \)\{0,1\}cpu [0-9]* lt_tracef:[^ ]*: //p'; }

# 1. traced from inside; the unsupported marker is reported, not recorded
if ! LOWTRACE_TRACE=$tmp/in "$PROG" $rounds > "$tmp/in.out" 2> "$tmp/in.err"; then
	fail run "$(cat "$tmp/in.err")"
	finish
fi
if grep -q 'marker lt_tracef:tests/progs/markers.c:[0-9]* stays disabled: "hex float %a": conversion at offset 10 not supported' "$tmp/in.err" &&
	[ "$(wc -l < "$tmp/in.err")" -eq 1 ]; then
	ok unsupported_conversion_reported
else
	fail unsupported_conversion_reported "stderr: $(cat "$tmp/in.err")"
fi
"$LT" view "$tmp/in" > "$tmp/in.lt" 2> "$tmp/in.lterr"
if [ -s "$tmp/in.lterr" ]; then
	fail view_text "$(cat "$tmp/in.lterr")"
elif d=$(text < "$tmp/in.lt" | diff "$tmp/in.out" -) && [ "$(wc -l < "$tmp/in.out")" -eq $((10 * rounds + 1)) ]; then
	ok "view_text_as_printf ($(wc -l < "$tmp/in.out") markers)"
else
	fail view_text_as_printf "printf (<) and lowtrace view (>) differ:"$'\n'"$d"
fi
grep -q 'hex float' "$tmp/in.lt" && fail unsupported_not_recorded "in the trace" || ok unsupported_not_recorded

# a trace's format that does not fit its fields (the metadata is not
# the registry's to trust): "?" for each conversion that does not fit
cp -r "$tmp/in" "$tmp/bad"
sed -i 's/lowtrace-format:frame %u late by %lld us (%s)/lowtrace-format:frame %s late by %f us (%d) %d/' \
	"$tmp/bad/metadata"
got=$("$LT" view "$tmp/bad" 2>&1 | grep -c 'frame ? late by ? us (?) $')
[ "$got" -eq $rounds ] && ok misfit_format_in_trace || fail misfit_format_in_trace \
	"$("$LT" view "$tmp/bad" 2>&1 | grep frame | head -3)"

# 2. babeltrace2 reads the arguments as typed fields
if ! command -v babeltrace2 > /dev/null 2>&1 || [ ! -x "$PY" ]; then
	skip babeltrace2 "babeltrace2 or /usr/bin/python3 missing"
elif ! babeltrace2 "$tmp/in" > "$tmp/in.bt" 2> "$tmp/in.bterr" || [ -s "$tmp/in.bterr" ]; then
	fail babeltrace2 "$(head -c 600 "$tmp/in.bterr")"
else
	"$LT" view --fields "$tmp/in" > "$tmp/in.ltf"
	if out=$("$PY" "$top/tests/compare_babeltrace.py" "$tmp/in.bt" "$tmp/in.ltf" 2>&1); then
		ok "babeltrace2_fields ($out)"
	else
		fail babeltrace2_fields "$out"
	fi
fi

# 3. under lowtrace record: the formats cross the agent's protocol
if "$LT" record -o "$tmp/rec" -- "$PROG" $rounds > "$tmp/rec.out" 2> "$tmp/rec.err"; then
	"$LT" view "$tmp/rec" | text > "$tmp/rec.txt"
	if d=$(diff "$tmp/rec.out" "$tmp/rec.txt") && [ -s "$tmp/rec.txt" ]; then
		ok record_view_text
	else
		fail record_view_text "printf (<) and lowtrace view (>) differ:"$'\n'"$d"
	fi
else
	fail record_view_text "lowtrace record failed: $(tail -c 600 "$tmp/rec.err")"
fi

# 4. selection by place: the markers of lines 40-49 only
LOWTRACE_TRACE=$tmp/sel LOWTRACE_EVENTS='lt_tracef:tests/progs/markers.c:4*' \
	"$PROG" $rounds > /dev/null 2>&1
names=$("$LT" view "$tmp/sel" | sed -n 's/.* \(lt_tracef:[^ ]*\): .*/\1/p' | sort -u)
vnames=$("$LT" view "$tmp/in" -e 'lt_tracef:tests/progs/markers.c:4*' |
	sed -n 's/.* \(lt_tracef:[^ ]*\): .*/\1/p' | sort -u)
all=$(sed -n 's/.* \(lt_tracef:[^ ]*\): .*/\1/p' "$tmp/in.lt" | sort -u | wc -l)
if [ -n "$names" ] && [ "$names" = "$vnames" ] && ! grep -qv ':4[0-9]$' <<< "$names" &&
	[ "$(wc -l <<< "$names")" -lt "$all" ]; then
	ok "select_by_place ($(wc -l <<< "$names") of $all markers)"
else
	fail select_by_place "recorded: [$names]; view -e: [$vnames]; all: $all"
fi

# 5. anchors by format and by place
a1=$("$LT" analyze latency "$tmp/in" --anchor 'format:frame * late*' 2>&1 | head -n 1)
a2=$("$LT" analyze latency "$tmp/in" --anchor 'lt_tracef:tests/progs/markers.c:*' 2>&1 | head -n 1)
a3=$("$LT" analyze latency "$tmp/in" --anchor 'format:frame * if arg1 < 0' 2>&1 | head -n 1)
if [[ $a1 == "$rounds anchors "* ]] && [[ $a2 == "$((10 * rounds + 1)) anchors "* ]] &&
	[[ $a3 == "$((rounds - 1)) anchors "* ]]; then
	ok anchors_by_format_and_place
else
	fail anchors_by_format_and_place "[$a1] [$a2] [$a3]"
fi

# 6. what the compilers refuse: row COMPILER FLAGS SOURCE PATTERN
cc_row() {
	local cc=$1 lang=$2 src=$3 pat=$4 out
	command -v "$cc" > /dev/null 2>&1 || { rows_failed="$rows_failed"$'\n'"no $cc"; return; }
	out=$(printf '%s\n' "$src" | "$cc" -x "$lang" -Wall -Wextra -Werror -I"$top/include" \
		-fsyntax-only - 2>&1) && {
		rows_failed="$rows_failed"$'\n'"$cc accepted: $src"
		return
	}
	grep -q -- "$pat" <<< "$out" ||
		rows_failed="$rows_failed"$'\n'"$cc: $src: no '$pat' in: $(head -c 300 <<< "$out")"
}
rows_failed=
inc='#include <lowtrace/tracepoint.h>'
for cxx in g++ clang++; do
	cc_row $cxx c++ "$inc
void f(double d) { lt_tracef(\"%a\", d); }" 'lt_tracef: a conversion that is not supported'
	cc_row $cxx c++ "$inc
void f(int i) { lt_tracef(\"%d %d\", i); }" 'lt_tracef: a conversion that is not supported'
	cc_row $cxx c++ "$inc
void f(int *p) { lt_tracef(\"%n\", p); }" 'lt_tracef: a conversion that is not supported'
	cc_row $cxx c++ "$inc
void f(long double d) { lt_tracef(\"%Lf\", d); }" 'lt_tracef: argument 0 is not'
done
for c in gcc clang; do
	cc_row $c c "$inc
void f(int i); void f(int i) { lt_tracef(\"%s\", i); }" 'format'
	cc_row $c c "$inc
void f(long double d); void f(long double d) { lt_tracef(\"%Lf\", d); }" 'lt__tf_put_ptr\|incompatible'
	cc_row $c c "$inc
struct s { int a; }; void f(struct s v); void f(struct s v) { lt_tracef(\"%d\", v); }" 'lt__tf_put_ptr\|incompatible'
done
# C: the format's grammar at compile time, at every optimisation level
good='void f(int i, long long l, const char *s, double d, void *p);
void f(int i, long long l, const char *s, double d, void *p)
{
	lt_tracef("frame %u late by %lld us (%s)", (unsigned)i, l, s);
	lt_tracef("%-8.3x %#X %o %c %hhd %hu %ld %jd %zu %td %%", (unsigned)i,
		  (unsigned)i, (unsigned)i, i, (signed char)i, (unsigned short)i,
		  (long)i, (intmax_t)i, (size_t)i, (ptrdiff_t)i);
	lt_tracef("%f %.2e %10g %G %+'"'"'d %-5.2s %p %llx %F", d, d, d, d, i, s,
		  p, (unsigned long long)l, d);
	lt_tracef("%E %lli %lo %hhX %zx", d, l, (unsigned long)i, (unsigned char)i,
		  (size_t)i);
	lt_tracef("no conversion, 100%% sure %%%%");
}'
for c in gcc clang; do
	command -v $c > /dev/null 2>&1 || { rows_failed="$rows_failed"$'\n'"no $c"; continue; }
	for o in -O0 -O1 -O2; do
		out=$(printf '%s\n' "$inc" "$good" | $c -x c $o -Wall -Wextra -Werror \
			-I"$top/include" -c -o /dev/null - 2>&1) ||
			rows_failed="$rows_failed"$'\n'"$c $o refused: $(head -c 300 <<< "$out")"
	done
	# each of these refused, all in one compilation
	bad=("$inc")
	for f in '%a' '%A' '%n' '%m' '%ls' '%lc' '%Lf' '%*d' '%.*d' '%1$d' '%lp' \
		'%hhs' '%hld' '%5%' 'trailing %' '%d then %a'; do
		bad+=("void f${#bad[@]}(int i); void f${#bad[@]}(int i) { lt_tracef(\"$f\", i); }")
	done
	lim=-fmax-errors=0
	[ $c = clang ] && lim=-ferror-limit=0
	out=$(printf '%s\n' "${bad[@]}" | $c -x c -Wall -Wextra $lim \
		-I"$top/include" -fsyntax-only - 2>&1)
	got=$(grep -c 'error: .*lt_tracef: a conversion that is not supported' <<< "$out")
	[ "$got" -eq $((${#bad[@]} - 1)) ] ||
		rows_failed="$rows_failed"$'\n'"$c: $got of $((${#bad[@]} - 1)) refused: $(head -c 600 <<< "$out")"
	cc_row $c c "$inc
void f(int i); void f(int i) { lt_tracef(\"%d %d\", i); }" 'lt_tracef: not one argument per conversion'
	cc_row $c c "$inc
void f(int i); void f(int i) { lt_tracef(\"%d\", i, i); }" 'lt_tracef: not one argument per conversion'
	cc_row $c c "$inc
void f(const char *s, int i); void f(const char *s, int i) { lt_tracef(s, i); }" 'lt_tracef: the format is not a string literal'
done
if [ -z "$rows_failed" ]; then
	ok compile_time_refusals
else
	fail compile_time_refusals "rows that failed:$rows_failed"
fi
finish
