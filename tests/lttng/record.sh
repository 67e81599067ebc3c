#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/lttng/record.sh - records an LTTng-UST trace of tests/lttng/ust_fields
# with lttng-tools, privately: lttng-sessiond runs in a mount namespace of
# its own (tmpfs on /run/lttng and /dev/shm), with LTTNG_HOME in a
# temporary directory, and is killed and the directory removed at the end.
# Two ust_fields processes run at once (two threads each, each thread
# emitting NEVENTS ltt_fields:ints and as many ltt_fields:mix).
#
# usage: tests/lttng/record.sh OUT NEVENTS SUBBUF BUFFERS [CONTEXT...]
#   e.g. tests/lttng/record.sh /tmp/t 300 256K --buffers-pid vpid vtid ip
# OUT becomes the session's directory (ust/uid/... or ust/pid/...).
# LT_REC_SNAPSHOT=1 makes it a snapshot session (overwrite mode, one
# `lttng snapshot record` at the end: OUT/snapshot-1-*/ust/...);
# LT_REC_DISCARD=1 asks for discard mode, LT_REC_NUM_SUBBUF=N for N
# sub-buffers (default 4), to lose events with small ones.
# Needs root, unshare, lttng-tools and liblttng-ust-dev; prints why and
# exits non-zero when something fails.  Used by tests/test_lttng_ust.sh
# and bench/view.sh.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

if [ -z "${LT_REC_INSIDE:-}" ]; then
	[ $# -ge 4 ] || { echo "usage: $0 OUT NEVENTS SUBBUF BUFFERS [CONTEXT...]" >&2; exit 2; }
	[ "$(id -u)" -eq 0 ] || { echo "record.sh: needs root" >&2; exit 1; }
	work=$(mktemp -d /tmp/lt-lttng-rec.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	# shellcheck disable=SC2046
	${CC:-gcc} -O2 -Wall -Wextra -Werror -I"$here" \
		$(pkg-config --cflags lttng-ust) -o "$work/ust_fields" \
		"$here/ust_fields.c" $(pkg-config --libs lttng-ust) -ldl -lpthread
	# /run/lttng must exist to be mounted on: removed after if made here
	made=
	[ -e /run/lttng ] || { mkdir /run/lttng && made=1; }
	rc=0
	LT_REC_INSIDE=1 LT_REC_WORK=$work unshare --mount --propagation private \
		bash "$0" "$@" || rc=$?
	[ -n "$made" ] && rmdir /run/lttng 2> /dev/null
	exit $rc
fi

# --- inside the private mount namespace -------------------------------------
out=$1 n=$2 subbuf=$3 buffers=$4
shift 4
work=$LT_REC_WORK
mount -t tmpfs lt-rec-run /run/lttng
mount -t tmpfs lt-rec-shm /dev/shm
export LTTNG_HOME=$work/home
mkdir -p "$LTTNG_HOME"
lttng-sessiond --no-kernel > "$work/sessiond.log" 2>&1 &
sessiond=$!
trap 'kill $sessiond 2> /dev/null; wait $sessiond 2> /dev/null' EXIT
# it may take a while to start on a loaded machine
for _ in $(seq 600); do
	lttng -n list > /dev/null 2>&1 && break
	kill -0 $sessiond
	sleep 0.1
done
lttng -n list > /dev/null 2>&1 || {
	echo "record.sh: lttng-sessiond does not answer: $(tail -5 "$work/sessiond.log")" >&2
	exit 1
}
s=lt_rec
mode=()
if [ -n "${LT_REC_SNAPSHOT:-}" ]; then
	lttng -n create "$s" --snapshot --output="$out" > /dev/null
	mode=(--overwrite)
else
	lttng -n create "$s" --output="$out" > /dev/null
fi
[ -n "${LT_REC_DISCARD:-}" ] && mode=(--discard)
lttng -n enable-channel -u -s "$s" "$buffers" --subbuf-size="$subbuf" \
	--num-subbuf="${LT_REC_NUM_SUBBUF:-4}" "${mode[@]}" ch > /dev/null
lttng -n enable-event -u -s "$s" -c ch 'ltt_fields:*' > /dev/null
for c in "$@"; do
	lttng -n add-context -u -s "$s" -c ch -t "$c" > /dev/null
done
lttng -n start "$s" > /dev/null
# two processes at once: per-PID buffers make two traces of them, whose
# events interleave
"$work/ust_fields" "$n" &
"$work/ust_fields" "$n"
wait $!
[ -n "${LT_REC_SNAPSHOT:-}" ] && lttng -n snapshot record -s "$s" > /dev/null
lttng -n stop "$s" > /dev/null
lttng -n destroy "$s" > /dev/null
