#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_report.sh - `lowtrace report` on a recording of examples/periodic
# beside disturb --hog on its CPU:
#
#   self_contained  the page fetches nothing (no http(s)://, no <script src)
#   renders         headless Chromium runs its script: the timeline canvas
#                   has painted pixels, and the anchors it lists are as
#                   many as `analyze latency` counts (and at least one)
#   screenshot      a screenshot of the page, written under $BUILD and
#                   its path printed
#   errors          no -o, a directory that is no trace, an unwritable
#                   output: non-zero exit and a message
#
# Kernel events need root and the page needs chromium: skips otherwise
# (fails under LOWTRACE_REQUIRE_ALL=1).  The recording lasts about 1.5 s.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
EX=$B/examples
CHROMIUM=${CHROMIUM:-chromium}
. "$top/tests/lib/harness.sh" lt-test-report
# errors that need no recording
expect_error test_report_needs_output nonzero '^lowtrace: report: no output file (-o FILE' \
	"$LT" report "$tmp"
expect_error test_report_bad_dir_is_an_error nonzero '^lowtrace: report: cannot open trace' \
	"$LT" report "$tmp/none" -o "$tmp/none.html"
expect_error test_report_needs_one_dir nonzero '^lowtrace: report: one trace directory expected' \
	"$LT" report -o "$tmp/x.html"
expect_error test_report_bad_anchor_is_an_error nonzero '^lowtrace: report: --anchor: bad condition' \
	"$LT" report "$tmp" -o "$tmp/x.html" --anchor 'demo:tick if late_us >'

if [ "$(id -u)" -ne 0 ]; then
	for t in report_unwritable_output report_self_contained report_renders report_screenshot; do
		skip "test_$t" "kernel events need root"
	done
	finish
fi
cpu=$(($(nproc) - 1))
"$LT" record -o "$tmp/hog" -k sched,irq --all -- sh -c \
	"$EX/disturb --hog --cpu $cpu --duration-s 2 & $EX/periodic --cpu $cpu --duration-s 1.5; wait" \
	> "$tmp/hog.out" 2>&1

expect_error test_report_unwritable_output nonzero '^lowtrace: report: cannot write' \
	"$LT" report "$tmp/hog" -o "$tmp/no/such/dir/r.html"

mkdir -p "$B"
page=$B/report.html
rm -f "$page"
if "$LT" report "$tmp/hog" -o "$page" > "$tmp/rep.out" 2>&1 && [ -s "$page" ] &&
	! grep -qiE 'https?://|<script[^>]*src' "$page"; then
	ok test_report_self_contained
else
	fail test_report_self_contained "$(cat "$tmp/rep.out"; grep -oiE '.{0,40}(https?://|<script[^>]*src).{0,40}' "$page" 2>/dev/null | head -3)"
fi

if ! command -v "$CHROMIUM" > /dev/null 2>&1; then
	skip test_report_renders "no $CHROMIUM (apt-get install chromium)"
	skip test_report_screenshot "no $CHROMIUM"
	finish
fi
chrome() {
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$(mktemp -d "$tmp/profile.XXXXXX")" "$@" 2>> "$tmp/chromium.err"
}
url=file://$page
chrome --virtual-time-budget=5000 --dump-dom "$url" > "$tmp/dom.html"
painted=$(sed -n 's/.*<body[^>]*data-painted="\([0-9]*\)".*/\1/p' "$tmp/dom.html" | head -n 1)
listed=$(sed -n 's/.*id="anchor-count"[^>]*>\([0-9]*\)<.*/\1/p' "$tmp/dom.html" | head -n 1)
"$LT" analyze latency "$tmp/hog" --top 1 > "$tmp/lat.txt" 2>&1
found=$(sed -n 's/^\([0-9]*\) anchors .*/\1/p' "$tmp/lat.txt")
if [ -n "$painted" ] && [ "$painted" -gt 0 ] && [ -n "$listed" ] && [ -n "$found" ] &&
	[ "$listed" -ge 1 ] && [ "$listed" -eq "$found" ]; then
	ok "test_report_renders ($painted pixels sampled, $listed anchors)"
else
	fail test_report_renders "painted '$painted', listed '$listed', analyze latency '$found': $(head -c 2000 "$tmp/dom.html"; tail -5 "$tmp/chromium.err")"
fi

shot=$B/report-screenshot.png
rm -f "$shot"
chrome --screenshot="$shot" --window-size=1400,900 --virtual-time-budget=5000 "$url" > /dev/null
size=$(stat -c %s "$shot" 2>/dev/null || echo 0)
if [ "$size" -gt 10240 ]; then
	ok test_report_screenshot
	echo "report screenshot: $shot ($size bytes)"
else
	fail test_report_screenshot "no screenshot $shot, or only $size bytes: $(tail -5 "$tmp/chromium.err")"
fi
finish
