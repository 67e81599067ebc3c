#!/usr/bin/env bash
# test_lttng_ust.sh - `lowtrace view` beside babeltrace2 on LTTng-UST
# traces that lttng-tools records here: tests/lttng/ust_fields (every
# field type LTTng-UST has, two threads) traced with per-UID buffers and
# the contexts vpid, vtid and procname, then with per-PID buffers and the
# contexts vpid, vtid and ip, each compared event for event
# (tests/compare_babeltrace.py: time, name, CPU, contexts, every value),
# the session's directory given whole (`lowtrace view` finds the trace in
# the tree).
#
# lttng-sessiond runs privately: in a mount namespace of its own (tmpfs
# on /run/lttng and /dev/shm) with LTTNG_HOME in a temporary directory,
# killed and removed at the end.  Needs root, lttng-tools, liblttng-ust-dev
# and babeltrace2 (skips without them, fails under LOWTRACE_REQUIRE_ALL=1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
PY=/usr/bin/python3
export TZ=UTC

if [ -z "${LT_UST_INSIDE:-}" ]; then
	. "$top/tests/lib/harness.sh" lt-test-lttng-ust
	why=
	[ "$(id -u)" -eq 0 ] || why="needs root (lttng-sessiond in a mount namespace)"
	for c in lttng lttng-sessiond babeltrace2 unshare pkg-config; do
		[ -z "$why" ] && ! command -v "$c" > /dev/null 2>&1 && why="no $c"
	done
	[ -z "$why" ] && ! pkg-config --exists lttng-ust && why="no liblttng-ust-dev"
	[ -z "$why" ] && [ ! -x "$PY" ] && why="no $PY"
	if [ -n "$why" ]; then
		skip lttng_ust_traces "$why"
		finish
	fi
	# shellcheck disable=SC2046
	if ! ${CC:-gcc} -O2 -Wall -Wextra -Werror -I"$top/tests/lttng" \
		$(pkg-config --cflags lttng-ust) -o "$tmp/ust_fields" \
		"$top/tests/lttng/ust_fields.c" $(pkg-config --libs lttng-ust) \
		-ldl -lpthread > "$tmp/cc.log" 2>&1; then
		fail build_ust_fields "$(head -c 600 "$tmp/cc.log")"
		finish
	fi
	# /run/lttng must exist to be mounted on: removed after if made here
	made=
	[ -e /run/lttng ] || { mkdir /run/lttng && made=1; }
	LT_UST_INSIDE=1 LT_UST_TMP=$tmp unshare --mount --propagation private \
		bash "$0" > "$tmp/inside.log" 2>&1
	rc=$?
	[ -n "$made" ] && rmdir /run/lttng 2> /dev/null
	if [ $rc -ne 0 ]; then
		fail lttng_record "$(tail -c 1500 "$tmp/inside.log")"
		finish
	fi
	compare() { # name, session directory
		local name=$1 d=$2 rc out
		babeltrace2 "$d" > "$tmp/$name.bt" 2> "$tmp/$name.bt.err"
		rc=$?
		if [ $rc -ne 0 ] || [ -s "$tmp/$name.bt.err" ]; then
			fail "compare_$name" "babeltrace2 exit $rc: $(head -c 600 "$tmp/$name.bt.err")"
			return
		fi
		"$LT" view "$d" > "$tmp/$name.lt" 2> "$tmp/$name.lt.err"
		rc=$?
		if [ $rc -ne 0 ] || [ -s "$tmp/$name.lt.err" ]; then
			fail "compare_$name" "lowtrace view exit $rc: $(head -c 600 "$tmp/$name.lt.err")"
			return
		fi
		if ! grep -q 'procname = "ust_fields"\|vtid = ' "$tmp/$name.lt"; then
			fail "compare_$name" "no context in lowtrace's output: $(head -c 400 "$tmp/$name.lt")"
			return
		fi
		if out=$("$PY" "$top/tests/compare_babeltrace.py" "$tmp/$name.bt" "$tmp/$name.lt" 2>&1); then
			ok "compare_$name ($out)"
		else
			fail "compare_$name" "$out"
		fi
	}
	compare ust_per_uid "$tmp/uid"
	compare ust_per_pid "$tmp/pid"
	n=$(find "$tmp/pid" -name metadata | wc -l)
	if [ "$n" -eq 2 ]; then
		ok "per_pid_session_has_two_traces_merged"
	else
		fail per_pid_session_has_two_traces_merged "$n traces in $(find "$tmp/pid")"
	fi
	finish
fi

# --- inside the private mount namespace -----------------------------------
set -e
tmp=$LT_UST_TMP
mount -t tmpfs lt-test-run /run/lttng
mount -t tmpfs lt-test-shm /dev/shm
export LTTNG_HOME=$tmp/home
mkdir -p "$LTTNG_HOME"
lttng-sessiond --no-kernel > "$tmp/sessiond.log" 2>&1 &
sessiond=$!
trap 'kill $sessiond 2> /dev/null; wait $sessiond 2> /dev/null' EXIT
# it may take a while to start on a loaded machine
for _ in $(seq 600); do
	lttng -n list > /dev/null 2>&1 && break
	kill -0 $sessiond
	sleep 0.1
done
lttng -n list > /dev/null 2>&1 || {
	echo "lttng-sessiond does not answer: $(tail -5 "$tmp/sessiond.log")"
	exit 1
}

record() { # name, buffers option, contexts...
	local s=lt_$1 buf=$2
	shift 2
	lttng -n create "$s" --output="$tmp/${s#lt_}" > /dev/null
	lttng -n enable-channel -u -s "$s" $buf --subbuf-size=256K --num-subbuf=4 ch > /dev/null
	lttng -n enable-event -u -s "$s" -c ch 'ltt_fields:*' > /dev/null
	for c in "$@"; do
		lttng -n add-context -u -s "$s" -c ch -t "$c" > /dev/null
	done
	lttng -n start "$s" > /dev/null
	# two processes at once: per-PID buffers make two traces of them,
	# whose events interleave
	"$tmp/ust_fields" 300 &
	"$tmp/ust_fields" 300
	wait $!
	lttng -n stop "$s" > /dev/null
	lttng -n destroy "$s" > /dev/null
}
record uid --buffers-uid vpid vtid procname
record pid --buffers-pid vpid vtid ip
