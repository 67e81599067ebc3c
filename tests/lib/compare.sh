# SPDX-License-Identifier: MIT
# compare.sh - sourced by shell tests after harness.sh: one trace read by
# babeltrace2 and by `lowtrace view`, compared event by event with
# tests/compare_babeltrace.py.  Uses $LT, $PY, $top and $tmp.
#
#   bt_compare NAME DIR [BT_ALLOWED [LT_ALLOWED [CHECK]]]
#
# Each tool must exit 0 with an empty stderr, or one whose every line
# matches its ALLOWED grep pattern; CHECK, a function given NAME, runs on
# the two outputs first and returns non-zero after its own fail.  Leaves
# $tmp/NAME.bt, NAME.lt and their .err; says ok or fail compare_NAME.
# Returns 1 when the comparison could not run, else 0.  BT_PACKET_FIELDS,
# when set, names (a comma list) the packet context fields besides cpu_id
# that babeltrace2 prints and lowtrace does not (compare_babeltrace.py's
# --packet-fields).

# stderr_clean FILE PATTERN: FILE is empty, or each line matches PATTERN
stderr_clean() {
	[ ! -s "$1" ] || { [ -n "$2" ] && ! grep -qv -- "$2" "$1"; }
}

bt_compare() {
	local name=$1 d=$2 bt_ok=${3:-} lt_ok=${4:-} check=${5:-} rc out
	babeltrace2 "$d" > "$tmp/$name.bt" 2> "$tmp/$name.bt.err"
	rc=$?
	if [ $rc -ne 0 ] || ! stderr_clean "$tmp/$name.bt.err" "$bt_ok"; then
		fail "compare_$name" "babeltrace2 exit $rc: $(head -c 600 "$tmp/$name.bt.err")"
		return 1
	fi
	"$LT" view "$d" > "$tmp/$name.lt" 2> "$tmp/$name.lt.err"
	rc=$?
	if [ $rc -ne 0 ] || ! stderr_clean "$tmp/$name.lt.err" "$lt_ok"; then
		fail "compare_$name" "lowtrace view exit $rc: $(head -c 600 "$tmp/$name.lt.err")"
		return 1
	fi
	if [ -n "$check" ] && ! "$check" "$name"; then
		return 1
	fi
	if out=$("$PY" "$top/tests/compare_babeltrace.py" \
		${BT_PACKET_FIELDS:+--packet-fields "$BT_PACKET_FIELDS"} \
		"$tmp/$name.bt" "$tmp/$name.lt" 2>&1); then
		ok "compare_$name ($out)"
	else
		fail "compare_$name" "$out"
	fi
	return 0
}
