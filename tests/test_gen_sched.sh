#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_gen_sched.sh - bench/gen_sched's kernel scheduling traces (those of
# bench/model.sh) and the model pass over them:
#
#   read     the reader takes the whole trace, no packet skipped
#   model    the model infers no switch but each CPU's first (every
#            sched_switch's prev is the CPU's running thread)
#   wakeups  a woken thread next runs through a switch on its target CPU
#   pairs    irq and softirq entries and exits alternate per CPU
#   shape    the event names, ids and the fields the model reads are those
#            of `lowtrace record -k sched,irq --all` (needs root: skips
#            otherwise, fails under LOWTRACE_REQUIRE_ALL=1)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
. "$top/tests/lib/harness.sh" lt-test-gen-sched

N=200000
CPUS=3
THREADS=50
"$B/bench/gen_sched" "$tmp/t" $N --cpus $CPUS --threads $THREADS --seed 5 \
	--packet 16384 2> "$tmp/gen.err"
"$LT" view "$tmp/t" --stats > "$tmp/stats" 2>&1
if grep -qx "events: $N" "$tmp/stats" && grep -qx 'skipped packets: 0' "$tmp/stats" &&
	[ "$(ls "$tmp/t" | grep -c '^kernel_')" -eq $CPUS ]; then
	ok test_trace_is_read_whole
else
	fail test_trace_is_read_whole "$(cat "$tmp/gen.err" "$tmp/stats")"
fi

line=$("$B/bench/model_pass" "$tmp/t" 2>&1)
if echo "$line" | grep -q "^events $N .* threads $THREADS inferred $CPUS "; then
	ok test_model_infers_only_each_cpus_first_switch
else
	fail test_model_infers_only_each_cpus_first_switch "$line"
fi

"$LT" view "$tmp/t" --no-delta > "$tmp/view" 2>&1
# a woken thread's next switch-in is on the CPU its sched_wakeup named
bad=$(awk '
	{ c = 2; if ($2 != "cpu") c = 3 } # after the host, when the trace has one
	{ cpu = $(c + 1); name = $(c + 2); sub(/:$/, "", name) }
	name == "sched:sched_wakeup" {
		match($0, / pid = [0-9]+/); p = substr($0, RSTART + 7, RLENGTH - 7)
		match($0, /target_cpu = [0-9]+/); want[p] = substr($0, RSTART + 13, RLENGTH - 13)
		nwake++
	}
	name == "sched:sched_switch" {
		match($0, /next_pid = [0-9]+/); p = substr($0, RSTART + 11, RLENGTH - 11)
		if (p in want) {
			if (want[p] != cpu) { print "line " NR ": " p " ran on " cpu ", woken to " want[p]; exit }
			delete want[p]; nrun++
		}
	}
	END { if (nwake < 1000 || nrun < nwake - 300) print "wake-ups " nwake ", runs after " nrun }
' "$tmp/view")
if [ -z "$bad" ]; then
	ok test_woken_threads_run_on_their_target_cpu
else
	fail test_woken_threads_run_on_their_target_cpu "$bad"
fi

bad=$(awk '
	{ c = 2; if ($2 != "cpu") c = 3 } # after the host, when the trace has one
	{ cpu = $(c + 1); name = $(c + 2); sub(/:$/, "", name) }
	name == "irq:irq_handler_entry" { if (irq[cpu]) { print "line " NR ": nested irq"; exit } irq[cpu] = 1; n++ }
	name == "irq:irq_handler_exit" { if (!irq[cpu]) { print "line " NR ": exit without entry"; exit } irq[cpu] = 0 }
	name == "irq:softirq_entry" { if (soft[cpu]) { print "line " NR ": nested softirq"; exit } soft[cpu] = 1; n++ }
	name == "irq:softirq_exit" { if (!soft[cpu]) { print "line " NR ": exit without entry"; exit } soft[cpu] = 0 }
	END { if (n < 1000) print "only " n " entries" }
' "$tmp/view")
if [ -z "$bad" ]; then
	ok test_irq_and_softirq_pair_per_cpu
else
	fail test_irq_and_softirq_pair_per_cpu "$bad"
fi

# the event blocks, reduced to names, ids and the fields the model reads
shape() {
	awk '/^event \{/ { ev = 1 } ev && /name = |id = / { print }
	     ev && / (common_tid|common_tgid|prev_comm|prev_pid|prev_state|next_comm|next_pid|comm|pid|target_cpu|irq|vec)(\[[0-9]+\])?;$/ { print }
	     /^};/ { ev = 0 }' "$1"
}
if [ "$(id -u)" -ne 0 ]; then
	skip test_shape_is_a_real_recordings "kernel events need root"
else
	"$LT" record -o "$tmp/real" -k sched,irq --all -- true > "$tmp/rec.out" 2>&1
	shape "$tmp/real/metadata" > "$tmp/real.shape"
	shape "$tmp/t/metadata" > "$tmp/gen.shape"
	if [ -s "$tmp/real.shape" ] && cmp -s "$tmp/real.shape" "$tmp/gen.shape"; then
		ok test_shape_is_a_real_recordings
	else
		fail test_shape_is_a_real_recordings \
			"$(cat "$tmp/rec.out"; diff "$tmp/real.shape" "$tmp/gen.shape")"
	fi
fi

finish
