#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_kernel_backends.sh - the kernel channel's two backends (eBPF and
# perf_event_open, docs/kernel.md):
#
#   option      --kernel-backend takes auto, bpf or perf, and nothing else
#   fallback    a kernel without BTF (LOWTRACE_BTF names a missing file):
#               auto records through perf and says why on one line, the
#               trace's env says perf; --kernel-backend bpf is an error;
#               uprobes (-u) go through perf, saying so
#   env/status  an eBPF recording says bpf in the trace's env and in
#               `lowtrace status`; of typed events alone, its env says
#               the programs wrote the packets (kernel_ring = packets)
#   cleanup     a recorder killed with SIGKILL leaves no map of its own
#               behind (its rings, its sub-buffers, which its programs
#               would hold were they left), and nothing in
#               /sys/fs/bpf
#   same        both backends at once, perf system-wide and eBPF on a
#               command: the command's events from its exec on (sched,
#               irq, syscalls, timer) are the same in both traces, names,
#               CPUs and fields (but those perf says it lost)
#   filter      without --all, the command's tree alone: a neighbour's
#               system calls are not in the trace, the forked child's
#               are, and its getppid() count equals strace -c's
#
# The filter case records with the backend LOWTRACE_KERNEL_BACKEND
# selects (tests/run.sh runs this file on each); the others name theirs.
# Needs root: skips otherwise (fails under LOWTRACE_REQUIRE_ALL=1).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
SC=$B/bench/kernel_syscalls
. "$top/tests/lib/harness.sh" lt-test-kbackends

expect_error test_kernel_backend_option_is_checked nonzero \
	'^lowtrace: record: --kernel-backend ebpf: auto, bpf or perf' \
	"$LT" record --kernel-backend ebpf -o "$tmp/bad" -k sched -- true

if [ "$(id -u)" -ne 0 ]; then
	for t in fallback_says_why env_and_status cleanup same_events filter_in_kernel; do
		skip "test_$t" "kernel events need root"
	done
	finish
fi

# the env entry of a trace: its value, or nothing
env_of() { sed -n "s/^[[:space:]]*$2 = \"\\(.*\\)\";/\\1/p" "$1/metadata"; }

# fallback: no BTF
out=$(LOWTRACE_KERNEL_BACKEND=auto LOWTRACE_BTF=/nonexistent "$LT" record -o "$tmp/fb" -k sched -- true 2>&1)
rc=$?
lines=$(printf '%s\n' "$out" | grep -c 'kernel events through perf, not eBPF')
if [ $rc -eq 0 ] && [ "$lines" -eq 1 ] &&
	printf '%s\n' "$out" | grep -q 'the kernel has no BTF (/nonexistent' &&
	[ "$(env_of "$tmp/fb" kernel_backend)" = perf ]; then
	ok test_fallback_says_why
else
	fail test_fallback_says_why "exit $rc, env '$(env_of "$tmp/fb" kernel_backend)':"$'\n'"$out"
fi
row nonzero '^lowtrace: record: -k: the eBPF kernel backend: the kernel has no BTF' \
	env LOWTRACE_BTF=/nonexistent "$LT" record --kernel-backend bpf \
	-o "$tmp/fb2" -k sched -- true
rows_end test_bpf_asked_without_btf_is_an_error
row 0 'kernel events through perf, not eBPF: lowtrace_[0-9]*:bench_hit is a uprobe or kprobe' \
	env LOWTRACE_KERNEL_BACKEND=auto "$LT" record -o "$tmp/up" -u bench:hit -- \
	"$B/bench/usdt_hit" 10
rows_end test_uprobes_go_through_perf

# Is eBPF possible here?  (a build without it, a kernel without BTF)
why=$("$LT" record --kernel-backend bpf -o "$tmp/probe" -k sched:sched_switch -- true 2>&1)
if [ $? -ne 0 ]; then
	skip test_env_and_status "no eBPF backend here: $why"
	skip test_cleanup "no eBPF backend here: $why"
else
	# the ids of the sub-buffer maps made after id $1 (map ids grow)
	sb_maps() {
		bpftool map list 2>/dev/null |
			awk -v from="$1" -F'[: ]+' '$1 > from && / name sb_(data|ctl) / { print $1 }'
	}
	last_map=$(bpftool map list 2>/dev/null | sed -n 's/^\([0-9]*\):.*/\1/p' | sort -n | tail -n 1)
	# a recording that lasts, for status and for the kill
	"$LT" record --kernel-backend bpf -o "$tmp/run" -k sched -- sleep 30 \
		> "$tmp/run.out" 2>&1 &
	rec=$!
	# the loader makes the rings before the skeleton's maps: wait for both
	maps=
	sbs=
	for _ in $(seq 50); do
		maps=$(bpftool map list 2>/dev/null | grep -c "name ltk${rec}_")
		sbs=$(sb_maps "${last_map:-0}")
		[ "$maps" -gt 0 ] && [ "$(printf '%s\n' $sbs | grep -c .)" -ge 2 ] && break
		sleep 0.1
	done
	st=$("$LT" status "run-$rec" 2>&1)
	if [ "$(env_of "$tmp/probe" kernel_backend)" = bpf ] &&
		[ "$(env_of "$tmp/probe" kernel_ring)" = packets ] &&
		printf '%s\n' "$st" | grep -q 'kernel events through bpf'; then
		ok test_env_and_status
	else
		fail test_env_and_status "env '$(env_of "$tmp/probe" kernel_backend)' '$(env_of "$tmp/probe" kernel_ring)', status: $st"
	fi
	pinned_before=$(ls -A /sys/fs/bpf 2>/dev/null | sort)
	children=$(pgrep -P "$rec")
	kill -9 "$rec"
	wait "$rec" 2>/dev/null
	[ -n "$children" ] && kill $children 2>/dev/null
	left=1
	sb_left=
	for _ in $(seq 50); do
		left=$(bpftool map list 2>/dev/null | grep -c "name ltk${rec}_")
		sb_left=
		for id in $sbs; do
			bpftool map show id "$id" > /dev/null 2>&1 && sb_left="$sb_left $id"
		done
		[ "$left" -eq 0 ] && [ -z "$sb_left" ] && break
		sleep 0.1
	done
	nsb=$(printf '%s\n' $sbs | grep -c .)
	if ! command -v bpftool > /dev/null; then
		skip test_cleanup "bpftool is missing"
	elif [ "$maps" -gt 0 ] && [ "$left" -eq 0 ] && [ "$nsb" -eq 2 ] &&
		[ -z "$sb_left" ] &&
		[ "$(ls -A /sys/fs/bpf 2>/dev/null | sort)" = "$pinned_before" ]; then
		ok "test_cleanup ($maps rings and $nsb sub-buffer maps while recording, none after SIGKILL)"
	else
		fail test_cleanup "$maps rings and $nsb sub-buffer maps ($sbs) while recording, $left rings and maps$sb_left after SIGKILL; /sys/fs/bpf: $(ls -A /sys/fs/bpf)"
	fi
fi

# same: perf records everything while eBPF records the sleeper; the
# sleeper's events (its tgid's, from its exec on) in each, without the
# time and the recorder's pid: event name, CPU, fields.  Not common_tid:
# perf says -1 for the thread of a dying thread's last switch (its pid
# is detached by then), where eBPF has the task's id.
same_lines() { # TRACE TGID
	babeltrace2 "$1" 2> "$1.err" |
		sed -n 's/^.*) \([a-z_]*:[a-z_0-9]*\): { cpu_id = \([0-9]*\), [^}]*}, { common_tid = -*[0-9]*, \(common_tgid = '"$2"', .*\)$/\1 cpu \2 \3/p' |
		sed -n '/^sched:sched_process_exec /,$p' | sort
	[ ! -s "$1.err" ]
}
if ! "$LT" record --kernel-backend bpf -o "$tmp/probe2" -k sched:sched_switch -- true > /dev/null 2>&1; then
	skip test_same_events "no eBPF backend here"
elif ! command -v babeltrace2 > /dev/null; then
	skip test_same_events "babeltrace2 is missing"
else
	ks=sched,irq,syscalls,timer
	"$LT" record --kernel-backend perf --all -o "$tmp/sp" -k $ks -- sleep 1.5 \
		> "$tmp/sp.out" 2>&1 &
	sp=$!
	sleep 0.5
	"$LT" record --kernel-backend bpf -o "$tmp/sb" -k $ks -- "$B/tests/progs/sleeper" \
		> "$tmp/sb.out" 2>&1
	wait "$sp"
	w=$(sed -n 's/.*common_tid = \([0-9]*\), common_tgid = \1, filename = "[^"]*sleeper".*/\1/p' \
		<(babeltrace2 "$tmp/sb" 2> /dev/null) | head -n 1)
	same_lines "$tmp/sp" "$w" > "$tmp/same.perf"; e1=$?
	same_lines "$tmp/sb" "$w" > "$tmp/same.bpf"; e2=$?
	n=$(wc -l < "$tmp/same.bpf")
	only_perf=$(comm -23 "$tmp/same.perf" "$tmp/same.bpf" | wc -l)
	only_bpf=$(comm -13 "$tmp/same.perf" "$tmp/same.bpf" | wc -l)
	# perf, recording the whole machine, may lose some (and says so)
	lost=$(sed -n 's/.*, \([0-9]*\) lost (.*/\1/p' "$tmp/sp.out")
	# (babeltrace2 warns of the events a trace lost)
	if [ -n "$w" ] && [ $e2 -eq 0 ] && [ "$n" -gt 20 ] && [ "$only_perf" -eq 0 ] &&
		{ [ "${lost:-0}" -gt 0 ] || { [ $e1 -eq 0 ] && [ "$only_bpf" -eq 0 ]; }; }; then
		ok "test_same_events ($n events of the sleeper $w, $only_bpf of them lost by perf)"
	else
		fail test_same_events "sleeper '$w', $n events, babeltrace2 status $e1 $e2, $only_perf only in perf, $only_bpf only in eBPF, perf lost '$lost':"$'\n'"$(diff "$tmp/same.perf" "$tmp/same.bpf" | head -40)"$'\n'"$(cat "$tmp/sp.out" "$tmp/sb.out" "$tmp/sp.err" "$tmp/sb.err" | head -20)"
	fi
fi

# filter: a neighbour shell runs sleeps in a loop while the command (a
# shell that forks a loop of 1000 getppid() calls) is recorded without
# --all
sh -c 'while :; do sleep 0.005; done' > /dev/null 2>&1 &
nb=$!
# (LeakSanitizer's exit, in a sanitizer build, calls getppid() too, but
# not under strace's ptrace: it is off in both)
cmd=(env ASAN_OPTIONS=detect_leaks=0 sh -c "$SC 1000 -1; true")
"$LT" record -o "$tmp/filt" -k syscalls -- "${cmd[@]}" > "$tmp/filt.out" 2>&1
rc=$?
kill "$nb" 2>/dev/null
wait "$nb" 2>/dev/null
if ! command -v strace > /dev/null; then
	skip test_filter_in_kernel "strace is missing"
elif ! command -v babeltrace2 > /dev/null; then
	skip test_filter_in_kernel "babeltrace2 is missing"
else
	strace -f -c -e trace=getppid -o "$tmp/strace" "${cmd[@]}" > /dev/null 2>&1
	want=$(awk '$NF == "getppid" {print $(NF-1)}' "$tmp/strace")
	got=$("$LT" analyze syscalls "$tmp/filt" 2>&1 | awk '$1 == "getppid" {print $2}')
	babeltrace2 "$tmp/filt" > "$tmp/filt.txt" 2> "$tmp/bt.err"
	theirs=$(grep -c "common_tgid = $nb," "$tmp/filt.txt")
	if [ $rc -eq 0 ] && [ -n "$want" ] && [ "$got" = "$want" ] &&
		[ "$theirs" -eq 0 ] && [ ! -s "$tmp/bt.err" ]; then
		ok "test_filter_in_kernel (getppid $got calls, strace $want; $(env_of "$tmp/filt" kernel_backend))"
	else
		fail test_filter_in_kernel "exit $rc, getppid $got calls, strace '$want', $theirs events of the neighbour $nb"$'\n'"$(cat "$tmp/filt.out" "$tmp/bt.err")"
	fi
fi
finish
