#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_bpf_ring.sh - bench/bpf_ring_cmp's two per-CPU rings for eBPF
# programs (docs/bench-kernel.md), recording kernel_pingpong:
#
#   ring_a, ring_b   a short run of each verifies: per CPU, packets in
#                    sequence, records whole and in time order, records +
#                    lost = the programs' calls
#   tiny_ring_b      2 sub-buffers of 4 KiB, timer only: records are lost,
#                    each one counted (records + lost = calls), none torn;
#                    with the doorbell too
#   nesting_b        ring B with the nesting stress (-x: programs on
#                    sys_enter and on the interrupts that interrupt it)
#                    under a system call loop: still in time order
#   verifier         a damaged recording fails the check (an unknown event
#                    id; a time before its packet's)
#   cleanup          nothing left behind: no map of the runs, none after a
#                    SIGKILL, nothing in /sys/fs/bpf
#
# Needs root, BTF and a build with LT_BPF=1: skips otherwise (fails under
# LOWTRACE_REQUIRE_ALL=1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
CMP=$B/bench/bpf_ring_cmp
PP=$B/bench/kernel_pingpong
SC=$B/bench/kernel_syscalls
. "$top/tests/lib/harness.sh" lt-test-bpfring

cases="ring_a ring_b tiny_ring_b nesting_b verifier cleanup"
why=
if [ ! -x "$CMP" ]; then
	why="$CMP is not built (a build with LT_BPF=0)"
elif [ "$(id -u)" -ne 0 ]; then
	why="BPF programs need root"
elif [ ! -r /sys/kernel/btf/vmlinux ]; then
	why="the kernel has no BTF"
elif ! command -v bpftool > /dev/null; then
	why="bpftool is missing"
fi
if [ -n "$why" ]; then
	for t in $cases; do skip "test_$t" "$why"; done
	finish
fi

ours() { bpftool map list 2>/dev/null | grep -c 'name br_ring_\.rodata'; }
before=$(ours)
pinned_before=$(ls -A /sys/fs/bpf 2>/dev/null | sort)

# field VALUE-AFTER LINE: the number after the word in the summary line
field() { sed -n "s/^bpf_ring_cmp: mode .* $1 \\([0-9]*\\).*/\\1/p" "$2"; }

# run NAME ARGS...: records 3000 round trips, the output in $tmp/NAME.err
run() {
	local n=$1
	shift
	"$CMP" "$@" -o "$tmp/$n.pk" -- "$PP" 3000 > "$tmp/$n.out" 2> "$tmp/$n.err"
}

for m in a b; do
	run "ring_$m" -m "$m"
	rc=$?
	recs=$(field records "$tmp/ring_$m.err")
	if [ $rc -eq 0 ] && grep -q '^bpf_ring_cmp: verify ok$' "$tmp/ring_$m.err" &&
		[ "${recs:-0}" -ge 6000 ] && grep -q '^round_trips_per_sec' "$tmp/ring_$m.out"; then
		ok "test_ring_$m ($recs records)"
	else
		fail "test_ring_$m" "exit $rc, $recs records:"$'\n'"$(cat "$tmp/ring_$m.err")"
	fi
done

# 2 x 4 KiB a CPU and no doorbell: the 100 ms timer cannot keep up
run tiny -m b -n 2 -s 4096 -W
rc=$?
lost=$(field lost "$tmp/tiny.err")
recs=$(field records "$tmp/tiny.err")
run tinybell -m b -n 2 -s 4096
rc2=$?
if [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ "${lost:-0}" -gt 0 ] && [ "${recs:-0}" -gt 0 ] &&
	grep -q '^bpf_ring_cmp: verify ok$' "$tmp/tiny.err" &&
	grep -q '^bpf_ring_cmp: verify ok$' "$tmp/tinybell.err"; then
	ok "test_tiny_ring_b ($recs records, $lost lost, all counted)"
else
	fail test_tiny_ring_b "exit $rc and $rc2, $recs records, $lost lost:"$'\n'"$(cat "$tmp/tiny.err" "$tmp/tinybell.err")"
fi

# B's records stay in time order however its programs nest (A's may not:
# its time is read after the reservation; bench/bpf_ring.sh counts them)
"$CMP" -m b -x -o "$tmp/nest.pk" -- "$SC" 300000 > "$tmp/nest.out" 2> "$tmp/nest.err"
rc=$?
recs=$(field records "$tmp/nest.err")
retries=$(field retries "$tmp/nest.err")
if [ $rc -eq 0 ] && grep -q '^bpf_ring_cmp: verify ok$' "$tmp/nest.err" &&
	[ "${recs:-0}" -ge 300000 ] && [ "$(field out_of_order "$tmp/nest.err")" = 0 ]; then
	ok "test_nesting_b ($recs records, $retries swaps retried)"
else
	fail test_nesting_b "exit $rc, $recs records:"$'\n'"$(cat "$tmp/nest.err")"
fi

# the first packet's first record: its extended header at byte 40 (after
# the packet's own header): id at 41, time at 45
cp "$tmp/ring_b.pk" "$tmp/bad_id.pk"
printf '\011' | dd of="$tmp/bad_id.pk" bs=1 seek=41 conv=notrunc status=none
cp "$tmp/ring_b.pk" "$tmp/bad_ts.pk"
dd if=/dev/zero of="$tmp/bad_ts.pk" bs=1 seek=45 count=8 conv=notrunc status=none
row 0 'verify ok' "$CMP" -V "$tmp/ring_b.pk"
row 1 'event id 9' "$CMP" -V "$tmp/bad_id.pk"
row 1 'time 0 outside' "$CMP" -V "$tmp/bad_ts.pk"
rows_end test_verifier

# a consumer killed while recording: its descriptors held everything
"$CMP" -m b -o "$tmp/kill.pk" -- "$PP" 100000000 > /dev/null 2>&1 &
rec=$!
maps=0
for _ in $(seq 50); do
	maps=$(bpftool map list 2>/dev/null | grep -c "name brc${rec}_")
	[ "$maps" -gt 0 ] && break
	sleep 0.1
done
children=$(pgrep -P "$rec")
kill -9 "$rec"
wait "$rec" 2> /dev/null
[ -n "$children" ] && kill $children 2> /dev/null
left=1 after=-1
for _ in $(seq 50); do
	left=$(bpftool map list 2>/dev/null | grep -c "name brc${rec}_")
	after=$(ours)
	[ "$left" -eq 0 ] && [ "$after" -eq "$before" ] && break
	sleep 0.1
done
if [ "$maps" -gt 0 ] && [ "$left" -eq 0 ] && [ "$after" -eq "$before" ] &&
	[ "$(ls -A /sys/fs/bpf 2>/dev/null | sort)" = "$pinned_before" ]; then
	ok "test_cleanup ($maps rings while recording, none after the runs and a SIGKILL)"
else
	fail test_cleanup "$maps rings while recording, $left after SIGKILL, objects' data maps $before before, $after after; /sys/fs/bpf: $(ls -A /sys/fs/bpf)"
fi
finish
