#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# verify.sh: run every spin check of models/ring.pml, models/ring_rseq.pml,
# models/rcu.pml, models/probe_seq.pml and models/idtab.pml.
#
# Each check builds its own verifier in $OUT/<check>/ (default build/models/)
# and prints one line: model, variant, property, states stored, seconds,
# peak memory of pan in MiB, PASS/FAIL.  A real model passes when spin finds no error in a complete
# search; a planted-bug variant passes when spin finds the expected error:
# for an assertion, the trail is replayed and the failing line must carry
# the property's tag (a comment such as /* (a) */); for a cycle, pan must
# report that kind of cycle.  Exits 1 if any check fails, 2 if the tools
# are missing.
#
# Usage: bash models/verify.sh [CHECK...]   (no argument: every check;
# CHECK names are the first column of the table at the end of this file)
set -u

cd "$(dirname "$0")/.."
MODELS=$PWD/models
OUT=${OUT:-${BUILD:-build}/models}
TIMEOUT=${TIMEOUT:-300}		# seconds per check
MEMLIM=${MEMLIM:-3072}		# MiB per verifier (pan aborts above it)
DEPTH=100000

for tool in spin gcc timeout awk; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "verify: $tool not found (install it: apt-get install spin gcc coreutils gawk)" >&2
		exit 2
	fi
done

mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
ONLY=("$@")
failed=0
total_start=$(date +%s.%N)

# check NAME MODEL "SPIN-DEFINES" MODE PROPERTY EXPECT
#   MODE    safety | dfs (safety, a planted bug searched depth-first: the
#           first trail found, not a shortest one; for the weak-memory
#           bugs, whose breadth-first search does not fit in MEMLIM)
#           | np (non-progress cycles) | ltl (acceptance, weak fairness)
#           | npfair (non-progress cycles, weak fairness)
#   EXPECT  pass | assert:TAG | cycle
check() {
	local name=$1 model=$2 defs=$3 mode=$4 prop=$5 expect=$6
	local dir=$OUT/$name cc run log states mib errors secs verdict why
	if [ ${#ONLY[@]} -gt 0 ] && [[ " ${ONLY[*]} " != *" $name "* ]]; then
		return
	fi
	rm -rf "$dir" && mkdir -p "$dir"
	cp "$MODELS/$model" "$dir/" || exit 2
	log=$dir/pan.out
	case $mode in
	safety | dfs) cc="-DSAFETY -DCOLLAPSE"; run="-m$DEPTH" ;;
	np) cc="-DNP -DCOLLAPSE"; run="-m$DEPTH -l" ;;
	npfair) cc="-DNP -DCOLLAPSE"; run="-m$DEPTH -l -f" ;;
	ltl) cc="-DCOLLAPSE"; run="-m$DEPTH -a -f" ;;
	esac
	# a bug variant: breadth-first, so the trail is a shortest one
	if [ "$mode" = safety ] && [ "$expect" != pass ]; then
		cc="$cc -DBFS"
		run=""
	fi
	local start end
	start=$(date +%s.%N)
	(
		cd "$dir" &&
		spin $defs -a "$model" >spin.out 2>&1 &&
		gcc -O2 -w $cc -DMEMLIM=$MEMLIM -o pan pan.c >gcc.out 2>&1 &&
		if [ -x /usr/bin/time ]; then
			/usr/bin/time -f %M -o rss.out timeout "$TIMEOUT" ./pan $run >pan.out 2>&1
		else
			timeout "$TIMEOUT" ./pan $run >pan.out 2>&1
		fi
	)
	local rc=$?
	end=$(date +%s.%N)
	secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
	states=$(awk '/states, stored/ { print $1; exit }' "$log" 2>/dev/null)
	mib=$(awk '/^[0-9]+$/ { printf "%d", $1 / 1024 }' "$dir/rss.out" 2>/dev/null)
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$log" 2>/dev/null | head -n 1)
	verdict=FAIL
	why=""
	if [ ! -s "$log" ] || [ -z "$errors" ]; then
		why="spin/gcc/pan did not complete (rc $rc), see $dir"
	elif [ "$expect" = pass ] &&
		grep -q "Search not completed\|reached -DMEMLIM\|out of memory\|max search depth too small" "$log"; then
		why="search incomplete (memory, depth or time), see $log"
	elif [ "$expect" = pass ]; then
		if [ "$errors" = 0 ] && [ "$rc" = 0 ]; then
			verdict=PASS
		else
			why="spin found a violation, see $dir/$model.trail"
		fi
	elif [ "$errors" = 0 ] || [ ! -s "$dir/$model.trail" ]; then
		why="planted bug not caught"
	elif [ "$expect" = cycle ]; then
		if grep -q "non-progress cycle\|acceptance cycle" "$log"; then
			verdict=PASS
		else
			why="expected a cycle, got: $(grep -m1 'pan:1:' "$log")"
		fi
	else
		# assert:TAG: replay the trail, find the line of the failed assertion
		local tag=${expect#assert:} line
		line=$(cd "$dir" && spin -t $defs "$model" 2>&1 |
			sed -n "s/^spin: $model:\([0-9]*\), Error: assertion violated.*/\1/p" | head -n 1)
		if [ -n "$line" ] && sed -n "${line}p" "$MODELS/$model" | grep -qF "/* ($tag) */"; then
			verdict=PASS
		else
			why="expected assertion ($tag), trail fails at line ${line:-?}"
		fi
	fi
	[ "$verdict" = PASS ] || failed=1
	printf '%-5s %-32s %-27s %10s %7s %5s  %s\n' "${model%.pml}" "${defs:-real}" "$prop" \
		"${states:-?}" "$secs" "${mib:-?}" "$verdict"
	[ -z "$why" ] || printf '      %s: %s\n' "$name" "$why"
}

printf '%-5s %-32s %-27s %10s %7s %5s  %s\n' model variant property states seconds MiB result

# The ring buffer: real models.
check ring-discard ring.pml "" safety "(a)(b)(d)(e) safety" pass
check ring-overwrite ring.pml "-DMODE_OVERWRITE" safety "(a)(c)(e) safety" pass
check ring-discard-np ring.pml "" np "(f) no non-progress cycle" pass
# overwrite mode with 2+2+1 events does not fit in MEMLIM under -DNP: 2+1+1
check ring-overwrite-np ring.pml "-DMODE_OVERWRITE -DNEV2=1" np "(f) no non-progress cycle" pass
# The ring buffer: planted bugs, each must be caught.
check ring-nocas ring.pml "-DBUG_NOCAS" safety "(a) caught" assert:a
check ring-nocas-ow ring.pml "-DMODE_OVERWRITE -DBUG_NOCAS" safety "(a) caught" assert:a
check ring-nocommitcheck ring.pml "-DBUG_NOCOMMITCHECK" safety "(b) caught" assert:b
check ring-norecheck ring.pml "-DMODE_OVERWRITE -DBUG_NORECHECK" safety "(c) caught" assert:c
check ring-wait ring.pml "-DBUG_WAIT" npfair "(f) caught (fair cycle)" cycle
# The ring buffer under weak memory: real models, then each barrier that
# aarch64 needs removed in turn, each must be caught.
check ring-w-discard ring.pml "-DWEAK" safety "(a)(b)(d)(e) weak" pass
# overwrite mode with 1+1+1 events: 2+1+1 takes 36 M states and minutes
check ring-w-overwrite ring.pml "-DWEAK -DMODE_OVERWRITE -DNEV1=1 -DNEV2=1" safety "(a)(c)(e) weak" pass
check ring-w-commit ring.pml "-DWEAK -DBUG_RELAXED_COMMIT" dfs "(b) caught" assert:b
check ring-w-get ring.pml "-DWEAK -DBUG_RELAXED_GET" dfs "(b) caught" assert:b
check ring-w-put ring.pml "-DWEAK -DBUG_RELAXED_PUT" dfs "(b) caught" assert:b
check ring-w-ready ring.pml "-DWEAK -DMODE_OVERWRITE -DNEV1=1 -DNEV2=1 -DBUG_RELAXED_READY" dfs "(c) caught" assert:c
check ring-w-fence ring.pml "-DWEAK -DMODE_OVERWRITE -DNEV1=1 -DNEV2=1 -DBUG_NOFENCE" dfs "(c) caught" assert:c
check ring-w-cas ring.pml "-DWEAK -DMODE_OVERWRITE -DNEV1=1 -DNEV2=1 -DBUG_RELAXED_CAS" dfs "(c) caught" assert:c

# RCU: real model.
check rcu rcu.pml "" safety "(s)(w)(e) safety" pass
check rcu-live rcu.pml "-DLIVE" ltl "ltl sync_done, fair" pass
# RCU: planted bugs, each must be caught.
check rcu-nomb1 rcu.pml "-DBUG_NOMB1" safety "(s) caught" assert:s
check rcu-nomb2 rcu.pml "-DBUG_NOMB2" safety "(s) caught" assert:s
check rcu-oneflip rcu.pml "-DBUG_ONEFLIP" safety "(s) caught" assert:s
check rcu-nophase-live rcu.pml "-DLIVE -DBUG_NOPHASE" ltl "sync_done caught (starves)" cycle
check rcu-nowaitmb rcu.pml "-DBUG_NOWAITMB" safety "(w) caught (lost wake-up)" assert:w
check rcu-wakephase rcu.pml "-DBUG_WAKEPHASE" safety "(w) caught (lost wake-up)" assert:w

# The ring buffer on rseq channels: real models (writers 2+1 events, handler 1).
check rseq-discard ring_rseq.pml "" safety "(a)(b)(d)(e) safety" pass
check rseq-overwrite ring_rseq.pml "-DMODE_OVERWRITE" safety "(a)(c)(e) safety" pass
# progress under a budget of 2 preemptions, events 1+1+1
check rseq-discard-np ring_rseq.pml "-DBUDGET=2 -DNEV1=1" np "(f) no non-progress cycle" pass
check rseq-overwrite-np ring_rseq.pml "-DMODE_OVERWRITE -DBUDGET=2 -DNEV1=1" np "(f) no non-progress cycle" pass
# without a budget a sequence may abort forever (migrated, preempted): (f) needs it
check rseq-nobudget-np ring_rseq.pml "-DNEV1=1" np "(f) cycle without budget" cycle
# The ring buffer on rseq channels: planted bugs, each must be caught.
check rseq-norestart ring_rseq.pml "-DBUG_NORESTART" safety "(a) caught" assert:a
check rseq-nocmp ring_rseq.pml "-DBUG_NOCMP" safety "(a) caught" assert:a
check rseq-norecheck ring_rseq.pml "-DMODE_OVERWRITE -DBUG_NORECHECK -DNEV2=0" safety "(c) caught" assert:c
# the re-check lt_ring_snapshot has today (offset > b + N*S): see docs/models.md
check rseq-casrecheck ring_rseq.pml "-DMODE_OVERWRITE -DBUG_CASRECHECK -DNEV2=0" safety "(c) caught" assert:c
# The rseq ring under x86-TSO, its only target: stale loads of consumed.
check rseq-w-discard ring_rseq.pml "-DWEAK" safety "(a)(b)(d)(e) TSO" pass

# The one-sequence probe path and its reclamation by membarrier: real models.
check seq-replace probe_seq.pml "" safety "(u)(a)(e) safety" pass
check seq-disable probe_seq.pml "-DDISABLE" safety "(u)(a)(e) safety" pass
# The one-sequence probe path: planted bugs, each must be caught.
check seq-nomembarrier probe_seq.pml "-DBUG_NOMEMBARRIER" safety "(u) caught" assert:u
check seq-mbfirst probe_seq.pml "-DBUG_MB_FIRST" safety "(u) caught" assert:u
check seq-readoutside probe_seq.pml "-DBUG_READ_OUTSIDE" safety "(u) caught" assert:u
check seq-offsetoutside probe_seq.pml "-DBUG_OFFSET_OUTSIDE" safety "(a) caught" assert:a
# The one-sequence probe path under weak memory: real models, and the
# release of the list's address removed.
check seq-w-replace probe_seq.pml "-DWEAK" safety "(u)(a)(i)(e) weak" pass
check seq-w-disable probe_seq.pml "-DWEAK -DDISABLE" safety "(u)(a)(i)(e) weak" pass
check seq-w-publish probe_seq.pml "-DWEAK -DBUG_RELAXED_PUBLISH" safety "(i) caught" assert:i

# The shared id table: real models (3 claimers of 2 keys each, any may die).
check idtab idtab.pml "" safety "(a)(b)(c)(d)(e) safety" pass
# 2 slots for 3 keys: a lookup finds the table full
check idtab-full idtab.pml "-DCAP=2" safety "(a)(b)(c)(d)(e) safety" pass
# The shared id table: planted bugs, each must be caught.
check idtab-norecheck idtab.pml "-DBUG_NO_RECHECK" safety "(a) caught" assert:a
check idtab-returnloser idtab.pml "-DBUG_RETURN_LOSER" safety "(d) caught" assert:d
check idtab-plainstore idtab.pml "-DBUG_PLAIN_STORE" safety "(a) caught" assert:a
check idtab-splitstore idtab.pml "-DBUG_SPLIT_STORE" safety "(c) caught" assert:c
check idtab-hashed idtab.pml "-DBUG_HASHED" safety "(b) caught" assert:b
# The shared id table under weak memory: stale loads of a slot.
check idtab-w idtab.pml "-DWEAK" safety "(a)(b)(c)(d)(e) weak" pass
check idtab-w-full idtab.pml "-DWEAK -DCAP=2" safety "(a)(b)(c)(d)(e) weak" pass

total=$(awk -v a="$total_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
if [ "$failed" = 0 ]; then
	echo "verify: all checks passed in $total s (output in $OUT)"
else
	echo "verify: FAILED (output in $OUT)" >&2
fi
exit $failed
