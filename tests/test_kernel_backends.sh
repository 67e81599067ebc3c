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
#               `lowtrace status`
#   cleanup     a recorder killed with SIGKILL leaves no map of its own
#               behind, and nothing in /sys/fs/bpf
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
	for t in fallback_says_why env_and_status cleanup filter_in_kernel; do
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
	# a recording that lasts, for status and for the kill
	"$LT" record --kernel-backend bpf -o "$tmp/run" -k sched -- sleep 30 \
		> "$tmp/run.out" 2>&1 &
	rec=$!
	maps=
	for _ in $(seq 50); do
		maps=$(bpftool map list 2>/dev/null | grep -c "name ltk${rec}_")
		[ "$maps" -gt 0 ] && break
		sleep 0.1
	done
	st=$("$LT" status "run-$rec" 2>&1)
	if [ "$(env_of "$tmp/probe" kernel_backend)" = bpf ] &&
		printf '%s\n' "$st" | grep -q 'kernel events through bpf'; then
		ok test_env_and_status
	else
		fail test_env_and_status "env '$(env_of "$tmp/probe" kernel_backend)', status: $st"
	fi
	pinned_before=$(ls -A /sys/fs/bpf 2>/dev/null | sort)
	children=$(pgrep -P "$rec")
	kill -9 "$rec"
	wait "$rec" 2>/dev/null
	[ -n "$children" ] && kill $children 2>/dev/null
	left=1
	for _ in $(seq 50); do
		left=$(bpftool map list 2>/dev/null | grep -c "name ltk${rec}_")
		[ "$left" -eq 0 ] && break
		sleep 0.1
	done
	if ! command -v bpftool > /dev/null; then
		skip test_cleanup "bpftool is missing"
	elif [ "$maps" -gt 0 ] && [ "$left" -eq 0 ] &&
		[ "$(ls -A /sys/fs/bpf 2>/dev/null | sort)" = "$pinned_before" ]; then
		ok "test_cleanup ($maps rings while recording, none after SIGKILL)"
	else
		fail test_cleanup "$maps rings while recording, $left after SIGKILL; /sys/fs/bpf: $(ls -A /sys/fs/bpf)"
	fi
fi

# filter: a neighbour shell runs sleeps in a loop while the command (a
# shell that forks a loop of 1000 getppid() calls) is recorded without
# --all
sh -c 'while :; do sleep 0.005; done' > /dev/null 2>&1 &
nb=$!
cmd=(sh -c "$SC 1000 -1; true")
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
