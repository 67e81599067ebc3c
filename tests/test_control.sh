#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_control.sh - the session sockets of `lowtrace record` that
# `lowtrace status/stop/snapshot` reach: a recorder killed by SIGKILL
# cannot remove its socket, so the next lowtrace that looks finds it dead
# (nobody listens), removes it and does not call it running; its name can
# be taken again; a live session's name cannot.  The sockets go in a
# directory of this test's own (XDG_RUNTIME_DIR).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
. "$top/tests/lib/harness.sh" lt-test-control
export XDG_RUNTIME_DIR=$tmp/xdg
mkdir -m 700 "$XDG_RUNTIME_DIR"
socks=$XDG_RUNTIME_DIR/lowtrace
pids=()
nap=30.$$ # the sleepers' time, to find them
trap 'kill -9 "${pids[@]}" 2> /dev/null; pkill -9 -f "sleep $nap"; rm -rf "$tmp"' EXIT

# start NAME DIR: a recording of a sleeper, its recorder's pid in $rec once
# `lowtrace status NAME` answers
start() {
	"$LT" record -o "$2" --name "$1" -- sleep "$nap" > "$2.out" 2>&1 &
	rec=$!
	disown "$rec" # killed below: no job message
	pids+=("$rec")
	for _ in $(seq 100); do
		"$LT" status "$1" > /dev/null 2>&1 && return 0
		sleep 0.05
	done
	return 1
}

if ! start stale "$tmp/a"; then
	fail test_session_starts "$(cat "$tmp/a.out")"
	finish
fi
kill -9 "$rec"
while kill -0 "$rec" 2> /dev/null; do sleep 0.05; done
left=$(ls "$socks")
out=$("$LT" status 2>&1)
if [ "$left" = stale.sock ] && [ ! -e "$socks/stale.sock" ] &&
	echo "$out" | grep -q "no session is running"; then
	ok test_killed_recorders_socket_removed_not_listed
else
	fail test_killed_recorders_socket_removed_not_listed "left '$left', status: $out; now $(ls "$socks")"
fi

# the name again: the dead one's socket gone, a new session takes it
start stale2 "$tmp/b" && kill -9 "$rec"
while kill -0 "$rec" 2> /dev/null; do sleep 0.05; done
out=$("$LT" status stale2 2>&1)
if [ $? -ne 0 ] && echo "$out" | grep -q "no session stale2 running" &&
	start stale2 "$tmp/c"; then
	ok test_a_dead_sessions_name_is_taken_again
else
	fail test_a_dead_sessions_name_is_taken_again "$out; $(cat "$tmp/c.out" 2> /dev/null)"
fi

# a live session keeps its name
"$LT" record -o "$tmp/d" --name stale2 -- true > "$tmp/d.out" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q "a session named stale2 is running" "$tmp/d.out" &&
	"$LT" status stale2 > /dev/null 2>&1; then
	ok test_a_live_sessions_name_is_refused
else
	fail test_a_live_sessions_name_is_refused "exit $rc: $(cat "$tmp/d.out")"
fi
"$LT" stop stale2 > /dev/null 2>&1
finish
