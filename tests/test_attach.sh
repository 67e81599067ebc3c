#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_attach.sh - attaching `lowtrace record -p` to programs that link
# liblowtrace and were started the ordinary way (tests/progs/ticker, which
# traces ticker:tick with seq 0, 1, ... every millisecond).
#
# Attaches to a ticker already ticking, records, detaches, attaches
# again: each recording's seq numbers are contiguous, the second's all
# after the first's, and after each the program has no buffer mapped and
# no thread more than before.  Then: -k beside it; `lowtrace stop`; the
# recorder killed by SIGKILL (the program detaches and can be attached
# again); a program that forks and execs while attached; one that exits
# and one killed by SIGKILL while attached; another user refused, the
# program unaffected; two sessions at once, a third refused; `list
# --apps` and `record --all-apps`; buffers shared per user by several
# programs, one killed by SIGKILL mid-burst, and per-process buffers on
# request; LOWTRACE_ATTACH=0 refused with a message naming it.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
LT=$B/lowtrace
TICKER=$B/tests/progs/ticker
. "$top/tests/lib/harness.sh" lt-test-attach
chmod 755 "$tmp"
# programs left running by a case that failed half-way end with the test
trap 'kill $(jobs -p) 2> /dev/null; rm -rf "$tmp"' EXIT

if [ ! -x "$TICKER" ] || [ ! -x "$LT" ]; then
	no_cases "no $TICKER or $LT (make all)"
fi

# the ticker:tick seq numbers of a trace, in order
seqs() { "$LT" view "$1" -e "${2:-ticker:tick}" --no-delta | sed -n 's/.* seq = \([0-9]*\) .*/\1/p'; }
# the seq numbers of one process of a trace: its own streams, or its
# records (by their vpid) in buffers shared per user
pid_seqs() { # DIR PID
	if ! ls "$1" | grep -q '^default_u[0-9]*_'; then
		local d="$1.pid$2"
		mkdir -p "$d"
		cp "$1/metadata" "$d/"
		cp "$1/default_$2_"* "$d/" 2> /dev/null
		seqs "$d"
	else
		seqs "$1" "ticker:tick if vpid == $2"
	fi
}
# the memfd inodes of the buffers a process maps
ring_inodes() { grep 'lowtrace-ring' "/proc/$1/maps" 2> /dev/null | awk '{ print $5 }' | sort -u | tr '\n' ' '; }
# waits up to 10 s for every PID to map buffers (slower under the
# sanitizers), then a little more for events to come
mapped() {
	local p i all
	for i in $(seq 100); do
		all=1
		for p in "$@"; do [ -n "$(ring_inodes $p)" ] || all=0; done
		[ $all = 1 ] && break
		sleep 0.1
	done
	sleep 0.4
}

# "FIRST LAST N" if the numbers on stdin are contiguous, else "gap ..."
contiguous() {
	awk 'NR == 1 { first = $1; prev = $1 - 1 }
		$1 != prev + 1 { print "gap after " prev ": " $1; bad = 1; exit }
		{ prev = $1; n++ }
		END { if (!bad) print (n ? first " " prev " " n : "none") }'
}
# lowtrace's threads in pid (named lt-*: a sanitizer's own may come later)
threads() { cat /proc/"$1"/task/*/comm 2> /dev/null | grep -c '^lt-'; }
buffers() { grep -c 'lowtrace-ring' "/proc/$1/maps" 2> /dev/null; }
# lowtrace's threads of each program before it was attached: the
# rendezvous's
declare -A base
# waits up to 5 s for the program to have detached: no buffer mapped and
# no thread more than before; else says in $left what is left
detached() {
	local i
	for i in $(seq 50); do
		[ "$(buffers "$1")" = 0 ] && [ "$(threads "$1")" = "${base[$1]}" ] && return 0
		sleep 0.1
	done
	left=" process $1 not detached: $(buffers "$1") buffers mapped, threads $(threads "$1") (before: ${base[$1]}): $(cat /proc/$1/task/*/comm 2> /dev/null | tr '\n' ' ');"
	return 1
}
# waits up to 5 s for pid's rendezvous (its socket, and its thread,
# named just after it starts), then counts lowtrace's threads
listening() {
	local i
	for i in $(seq 50); do
		if grep -q "@lowtrace/app/$1\$" /proc/net/unix &&
			[ "$(threads "$1")" -ge 1 ]; then
			base[$1]=$(threads "$1")
			return 0
		fi
		sleep 0.1
	done
	return 1
}
# record DIR SECONDS ARGS...: lowtrace record -o DIR ARGS for SECONDS,
# then SIGINT; its output in DIR.out, its exit status returned
record_for() {
	local dir=$1 secs=$2
	shift 2
	"$LT" record -o "$dir" "$@" > "$dir.out" 2>&1 &
	local r=$!
	sleep "$secs"
	kill -INT $r 2> /dev/null
	wait $r
}

"$TICKER" 1000 > "$tmp/t1.out" 2> "$tmp/t1.err" &
T=$!
listening $T || fail test_rendezvous "no @lowtrace/app/$T in /proc/net/unix"
sleep 0.3
record_for "$tmp/a1" 1 -p $T
rc1=$?
detached $T
d1=$?
sleep 0.2
"$LT" record -o "$tmp/a2" -p $T > "$tmp/a2.out" 2>&1 &
r=$!
sleep 0.6
inside=$(buffers $T)
sleep 0.4
kill -INT $r
wait $r
rc2=$?
detached $T
d2=$?
s1=$(seqs "$tmp/a1" | contiguous)
s2=$(seqs "$tmp/a2" | contiguous)
read -r f1 l1 n1 <<< "$s1"
read -r f2 l2 n2 <<< "$s2"
if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ $d1 -eq 0 ] && [ $d2 -eq 0 ] &&
	[ "${inside:-0}" -gt 0 ] && [[ $s1 =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]] &&
	[[ $s2 =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]] && [ "$f1" -gt 0 ] &&
	[ "$n1" -gt 50 ] && [ "$n2" -gt 50 ] && [ "$f2" -gt "$l1" ]; then
	ok "test_attach_detach_twice (seq $s1, then $s2)"
else
	fail test_attach_detach_twice "exit $rc1 $rc2, detached $d1 $d2, buffers while attached ${inside:-?}, seq '$s1' then '$s2'"$'\n'"$(cat "$tmp/a1.out" "$tmp/a2.out")"
fi

# -k beside an attached program: the kernel's events of its process
# (needs root: perf_event_open)
if [ "$(id -u)" -ne 0 ]; then
	skip test_attach_with_kernel_events "needs root"
else
	record_for "$tmp/kk" 0.8 -p $T -k sched:sched_switch
	u=$(seqs "$tmp/kk" | contiguous)
	k=$("$LT" view "$tmp/kk" -e 'sched:sched_switch' | grep -c "prev_pid = $T,")
	if [[ $u =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]] && [ "$k" -gt 0 ] && detached $T; then
		ok "test_attach_with_kernel_events ($k switches from it)"
	else
		fail test_attach_with_kernel_events "seq '$u', $k switches: $(cat "$tmp/kk.out")"
	fi
fi

# a filter that does not fit is refused where the user sees it: in the
# recorder's output, not on the program's stderr; the other -e stays
record_for "$tmp/flt" 0.6 -p $T -e 'ticker:tick if nosuch > 3' -e 'ticker:tick if seq > 2'
u=$(seqs "$tmp/flt" | contiguous)
if grep -q "process $T: -e 'ticker:tick if nosuch > 3' refused: unknown field 'nosuch'" "$tmp/flt.out" &&
	! grep -q refused "$tmp/t1.err" && [[ $u =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]] && detached $T; then
	ok test_attach_filter_refused_to_the_recorder
else
	fail test_attach_filter_refused_to_the_recorder "seq '$u'; recorder: $(cat "$tmp/flt.out"); program: $(cat "$tmp/t1.err")"
fi

# lowtrace stop ends a recording without a command
"$LT" record -o "$tmp/st" --name attach-stop-$$ -p $T > "$tmp/st.out" 2>&1 &
r=$!
sleep 0.5
"$LT" stop attach-stop-$$ > "$tmp/stop.out" 2>&1
for i in $(seq 50); do kill -0 $r 2> /dev/null || break; sleep 0.1; done
if ! kill -0 $r 2> /dev/null && wait $r && detached $T &&
	[[ $(seqs "$tmp/st" | contiguous) =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]]; then
	ok test_attach_stop
else
	kill -INT $r 2> /dev/null
	fail test_attach_stop "$(cat "$tmp/st.out" "$tmp/stop.out")"
fi

# a recorder killed by SIGKILL: the program sees its socket close, detaches
"$LT" record -o "$tmp/k" -p $T > "$tmp/k.out" 2>&1 &
r=$!
sleep 0.5
before=$(buffers $T)
kill -KILL $r
wait $r 2> /dev/null
if [ "${before:-0}" -gt 0 ] && detached $T; then
	record_for "$tmp/k2" 0.5 -p $T
	if [[ $(seqs "$tmp/k2" | contiguous) =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]] && detached $T; then
		ok test_attach_recorder_killed
	else
		fail test_attach_recorder_killed "not attached again: $(cat "$tmp/k2.out")"
	fi
else
	fail test_attach_recorder_killed "buffers ${before:-?} while attached; after SIGKILL: $(buffers $T) buffers, $(threads $T) threads"
fi

# a fork while attached: the child joins at once (ticker:forked 0..49),
# the program it execs is attached when its rendezvous appears
"$LT" record -o "$tmp/fx" -p $T > "$tmp/fx.out" 2>&1 &
r=$!
sleep 0.4
kill -USR1 $T
sleep 1.2
kill -INT $r
wait $r
fk=$(seqs "$tmp/fx" ticker:forked | contiguous)
mkdir -p "$tmp/fx-exec"
cp "$tmp/fx/metadata" "$tmp/fx-exec/"
cp "$tmp"/fx/default_*.1_* "$tmp/fx-exec/" 2> /dev/null
ex=$(seqs "$tmp/fx-exec" | contiguous)
if [ "$fk" = "0 49 50" ] && [[ $ex =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]]; then
	ok "test_attach_fork_exec (exec'd program: $ex)"
else
	fail test_attach_fork_exec "forked '$fk', exec'd '$ex'; $(ls "$tmp/fx")"$'\n'"$(cat "$tmp/fx.out")"
fi

# another user: refused with a message saying whose it is; the program
# goes on; root may attach it
id lttest > /dev/null 2>&1 || useradd -M -s /usr/sbin/nologin lttest > /dev/null 2>&1
if ! id lttest > /dev/null 2>&1 || [ "$(id -u)" -ne 0 ]; then
	skip test_attach_other_user "needs root and a user lttest"
else
	mkdir -m 777 "$tmp/other"
	setpriv --reuid=lttest --regid=lttest --clear-groups "$TICKER" 1000 > /dev/null &
	U=$!
	listening $U
	out=$(cd "$tmp/other" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env -u XDG_RUNTIME_DIR "$LT" record -o "$tmp/other/t" -p $U 2>&1)
	rc=$?
	# root attaches it, and the child it forks, which cannot reach
	# root's socket and is attached through its own rendezvous
	"$LT" record -o "$tmp/root" -p $U > "$tmp/root.out" 2>&1 &
	r=$!
	sleep 0.4
	kill -USR1 $U
	sleep 1.2
	kill -INT $r
	wait $r
	s=$(pid_seqs "$tmp/root" $U | contiguous)
	# its child's streams (its fork's or the program it execs)
	fk=$(ls "$tmp/root" | grep '^default_' | grep -v "^default_${U}_")
	if [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q "process $U belongs to user lttest: only lttest or root can attach" &&
		[[ $s =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]] && [ -n "$fk" ] && detached $U; then
		ok test_attach_other_user
	else
		fail test_attach_other_user "exit $rc: $out; as root: '$s', its child's streams '$fk' $(cat "$tmp/root.out")"
	fi
	kill -TERM $U
	wait $U
fi

# two sessions at once: a flight recorder left on and an ad hoc
# recording, each with its own rules and channels; a third is refused
# with the names of the two
"$LT" record -o "$tmp/fl" --name flight-$$ -p $T -e 'ticker:tick@fr' \
	--channel fr:mode=overwrite,subbufs=4,subbuf-size=16K > "$tmp/fl.out" 2>&1 &
fr=$!
sleep 0.4
"$LT" record -o "$tmp/adhoc" --name adhoc-$$ -p $T -e 'ticker:*' > "$tmp/adhoc.out" 2>&1 &
ad=$!
sleep 0.4
both=$(buffers $T)
third=$("$LT" record -o "$tmp/third" -p $T 2>&1)
rc3=$?
sleep 0.4
kill -INT $ad
wait $ad
sleep 0.3
one=$(buffers $T)
"$LT" snapshot flight-$$ > "$tmp/snap.out" 2>&1
sleep 0.3
"$LT" stop flight-$$ >> "$tmp/snap.out" 2>&1
wait $fr
sa=$(seqs "$tmp/adhoc" | contiguous)
sf=$(seqs "$tmp/fl" | contiguous)
ss=$(seqs "$tmp/fl/snapshot-0" | contiguous)
pat='^[0-9]+ [0-9]+ [0-9]+$'
if [ "$both" = 3 ] && [ "$one" = 2 ] && [ $rc3 -ne 0 ] &&
	printf '%s\n' "$third" | grep -q "process $T is already recorded by sessions flight-$$ and adhoc-$$ (2 at most)" &&
	[[ $sa =~ $pat ]] && [[ $sf =~ $pat ]] && [[ $ss =~ $pat ]] &&
	! ls "$tmp/adhoc" | grep -q '^fr_' && ! ls "$tmp/fl" | grep -q '^default_' && detached $T; then
	ok "test_attach_two_sessions (ad hoc $sa, flight recorder $sf)"
else
	fail test_attach_two_sessions "buffers with both $both, then $one; third: exit $rc3: $third; ad hoc '$sa', flight '$sf', snapshot '$ss'"$'\n'"$(cat "$tmp/fl.out" "$tmp/adhoc.out" "$tmp/snap.out")"
fi

kill -TERM $T
wait $T
t1=$?
if [ $t1 -eq 0 ] && grep -q '^ticks [0-9]' "$tmp/t1.out"; then
	ok test_attach_program_unaffected
else
	fail test_attach_program_unaffected "exit $t1: $(cat "$tmp/t1.out" "$tmp/t1.err")"
fi

# a program that exits while attached: the recording ends with it, every
# event it traced in the trace
"$TICKER" 1000 800 > /dev/null &
T=$!
listening $T
"$LT" record -o "$tmp/ex" -p $T > "$tmp/ex.out" 2>&1
rc=$?
wait $T
s=$(seqs "$tmp/ex" | contiguous)
if [ $rc -eq 0 ] && [[ $s =~ ^[0-9]+\ 799\ [0-9]+$ ]] && grep -q "process $T exited" "$tmp/ex.out"; then
	ok "test_attach_program_exits ($s)"
else
	fail test_attach_program_exits "exit $rc, seq '$s': $(cat "$tmp/ex.out")"
fi

# a program killed while attached: what it committed is collected
"$TICKER" 1000 > /dev/null &
T=$!
listening $T
"$LT" record -o "$tmp/kl" -p $T > "$tmp/kl.out" 2>&1 &
r=$!
sleep 0.6
kill -KILL $T
wait $T 2> /dev/null
wait $r
rc=$?
s=$(seqs "$tmp/kl" | contiguous)
if [ $rc -eq 0 ] && [[ $s =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]] && [ "$(echo "$s" | cut -d' ' -f3)" -gt 20 ]; then
	ok "test_attach_program_killed ($s)"
else
	fail test_attach_program_killed "exit $rc, seq '$s': $(cat "$tmp/kl.out")"
fi

# list --apps and --all-apps, as a user of their own (other tests' programs
# are root's): two programs running, a third started while recording; a
# root program beside them is neither listed nor recorded
if ! id lttest > /dev/null 2>&1 || [ "$(id -u)" -ne 0 ]; then
	skip test_list_apps "needs root and a user lttest"
	skip test_record_all_apps "needs root and a user lttest"
else
	# a command, not a function: $! is then the program's pid
	as_lttest="setpriv --reuid=lttest --regid=lttest --clear-groups env -u XDG_RUNTIME_DIR"
	"$TICKER" 1000 > /dev/null &
	R0=$!
	$as_lttest "$TICKER" 1000 > /dev/null &
	A1=$!
	$as_lttest "$TICKER" 1000 > /dev/null &
	A2=$!
	listening $R0 && listening $A1 && listening $A2
	mine=$(cd "$tmp/other" && $as_lttest "$LT" list --apps 2>&1)
	all=$("$LT" list --apps 2>&1)
	if printf '%s\n' "$mine" | grep -q "^$A1 *3 *- *$TICKER 1000\$" &&
		printf '%s\n' "$mine" | grep -q "^$A2 *3 *- " &&
		! printf '%s\n' "$mine" | grep -q "^$R0 " &&
		printf '%s\n' "$all" | grep -q "^$R0 *3 *- "; then
		ok test_list_apps
	else
		fail test_list_apps "as lttest:"$'\n'"$mine"$'\n'"as root:"$'\n'"$all"
	fi
	(cd "$tmp/other" && exec setpriv --reuid=lttest --regid=lttest --clear-groups \
		env -u XDG_RUNTIME_DIR "$LT" record -o "$tmp/other/all" --all-apps --name all-apps-$$) \
		> "$tmp/all.out" 2>&1 &
	r=$!
	sleep 0.6
	listed=$(cd "$tmp/other" && $as_lttest "$LT" list --apps 2>&1)
	$as_lttest "$TICKER" 1000 > /dev/null &
	A3=$!
	base[$A3]=${base[$A1]} # it may be attached before it is seen alone
	sleep 0.8
	kill -INT $r
	wait $r
	rc=$?
	bad=
	for p in $A1 $A2 $A3; do
		s=$(pid_seqs "$tmp/other/all" $p | contiguous)
		[[ $s =~ ^[0-9]+\ [0-9]+\ ([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" -gt 20 ] || bad="$bad $p: '$s';"
	done
	[ -n "$(pid_seqs "$tmp/other/all" $R0)" ] && bad="$bad root's $R0 recorded;"
	# one set of buffers, the user's
	ls "$tmp/other/all" | grep -q "^default_u$(id -u lttest)_" || bad="$bad no per-user streams: $(ls "$tmp/other/all");"
	printf '%s\n' "$listed" | grep -q "^$A1 *3 *all-apps-$$ " || bad="$bad list while recording: $listed;"
	if [ $rc -eq 0 ] && [ -z "$bad" ] && detached $A1 && detached $A3; then
		ok test_record_all_apps
	else
		fail test_record_all_apps "exit $rc:$bad"$'\n'"$(cat "$tmp/all.out")"
	fi
	# root records programs of two users: a set of buffers for each, so
	# that no user's program maps another's records
	"$LT" record -o "$tmp/two" -p $R0,$A1 > "$tmp/two.out" 2>&1 &
	r=$!
	mapped $R0 $A1
	i0=$(ring_inodes $R0)
	i1=$(ring_inodes $A1)
	kill -INT $r
	wait $r
	rc=$?
	s0=$(pid_seqs "$tmp/two" $R0 | contiguous)
	s1=$(pid_seqs "$tmp/two" $A1 | contiguous)
	if [ $rc -eq 0 ] && grep -q "Buffers per user: 2 sets" "$tmp/two.out" &&
		[ -n "$i0" ] && [ -n "$i1" ] && [ "$i0" != "$i1" ] &&
		ls "$tmp/two" | grep -q "^default_u0_" && ls "$tmp/two" | grep -q "^default_u$(id -u lttest)_" &&
		[[ $s0 =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]] && [[ $s1 =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]]; then
		ok test_per_user_buffers_two_users
	else
		fail test_per_user_buffers_two_users "exit $rc: buffers '$i0' '$i1', '$s0' '$s1'; $(ls "$tmp/two")"$'\n'"$(cat "$tmp/two.out")"
	fi
	kill -TERM $R0 $A1 $A2 $A3
	wait $R0 $A1 $A2 $A3
fi

# Buffers shared per user: three programs ticking as fast as they can,
# attached with -p (several pids: per-user by default) into one buffer
# set; one is killed by SIGKILL in the middle of its burst.  Every
# survivor's seq numbers are contiguous, the killed one's a contiguous
# run up to its death, all three mapped the same buffers, babeltrace2
# reads the same events (writer and values) as view, and --buffers
# per-process gives each its own streams again.  A child forked meanwhile
# writes its records, with its pid, into the same buffers; the analyses
# name each event's process.  A flight recorder in shared buffers
# snapshots them, read alike by view and babeltrace2.  (Root recording
# programs of two users: a set of buffers for each, above.)
for i in 1 2 3; do
	"$TICKER" 0 > /dev/null &
	eval S$i=$!
done
listening $S1 && listening $S2 && listening $S3
"$LT" record -o "$tmp/user" -p $S1,$S2,$S3 --channel default:subbuf-size=1M,subbufs=8 \
	> "$tmp/user.out" 2>&1 &
r=$!
mapped $S1 $S2 $S3
inodes="$(ring_inodes $S1)|$(ring_inodes $S2)|$(ring_inodes $S3)"
kill -USR1 $S1 # forks a child: 50 ticker:forked, then it execs
# its 50 events are traced once it has exec'd (or ended): a fork under a
# sanitizer on a loaded machine can take longer than the sleep below
for _ in $(seq 200); do
	c=$(pgrep -P $S1 | head -1)
	[ -n "$c" ] && { grep -q 1000 "/proc/$c/cmdline" 2> /dev/null ||
		grep -q '^State:.*Z' "/proc/$c/status" 2> /dev/null; } && break
	sleep 0.05
done
{ kill -KILL $S2; sleep 0.4; wait $S2; } 2> /dev/null
kill -INT $r
wait $r
rc=$?
bad=
for p in $S1 $S2 $S3; do
	s=$(pid_seqs "$tmp/user" $p | contiguous)
	[[ $s =~ ^[0-9]+\ [0-9]+\ ([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" -gt 100 ] || bad="$bad $p: '$s';"
done
i1=${inodes%%|*}
[ -n "$i1" ] && [ "$inodes" = "$i1|$i1|$i1" ] || bad="$bad buffers mapped: '$inodes';"
ls "$tmp/user" | grep -q "^default_u$(id -u)_" || bad="$bad streams: $(ls "$tmp/user");"
lost=$(sed -n 's/.* \([0-9]*\) lost in full buffers.*/\1/p' "$tmp/user.out")
# the child's records carry its own pid
fk=$("$LT" view "$tmp/user" -e ticker:forked | sed -n 's/.*{ vpid = \([0-9]*\) }.*/\1/p' | sort | uniq -c)
[[ $fk =~ ^\ *50\ ([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" != $S1 ] || bad="$bad forked: '$fk';"
# the analyses take each event's thread from its vpid
"$LT" analyze latency "$tmp/user" --anchor "ticker:tick if vpid == $S3" 2>&1 | grep -q "tick at .* tid $S3 " ||
	bad="$bad analyze: $("$LT" analyze latency "$tmp/user" --anchor "ticker:tick if vpid == $S3" 2>&1 | head -3);"
# babeltrace2 reads the same events, writers and values
pairs() { sed -n 's/.*{ vpid = \([0-9]*\) }, { seq = \([0-9]*\) }.*/\1 \2/p'; }
"$LT" view "$tmp/user" | pairs > "$tmp/user.view"
babeltrace2 "$tmp/user" 2> /dev/null | pairs > "$tmp/user.bt"
nv=$(wc -l < "$tmp/user.view")
[ "$nv" -gt 300 ] && cmp -s "$tmp/user.view" "$tmp/user.bt" ||
	bad="$bad view $nv events, babeltrace2 $(wc -l < "$tmp/user.bt"), first difference: $(diff "$tmp/user.view" "$tmp/user.bt" | head -3 | tr '\n' ' ');"
left=
if [ $rc -eq 0 ] && [ -z "$bad" ] && [ -z "$lost" ] && grep -q "Buffers per user: 1 set" "$tmp/user.out" &&
	detached $S1 && detached $S3; then
	ok test_per_user_buffers
else
	fail test_per_user_buffers "exit $rc:$bad lost '$lost'$left"$'\n'"$(cat "$tmp/user.out")"
fi
"$LT" record -o "$tmp/proc" -p $S1,$S3 --buffers per-process > "$tmp/proc.out" 2>&1 &
r=$!
mapped $S1 $S3
kill -INT $r
wait $r
rc=$?
s1=$(pid_seqs "$tmp/proc" $S1 | contiguous)
s3=$(pid_seqs "$tmp/proc" $S3 | contiguous)
if [ $rc -eq 0 ] && [[ $s1 =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]] && [[ $s3 =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]] &&
	ls "$tmp/proc" | grep -q "^default_${S1}_" && ! ls "$tmp/proc" | grep -q "^default_u"; then
	ok test_per_process_buffers
else
	fail test_per_process_buffers "exit $rc: '$s1' '$s3' $(ls "$tmp/proc")"$'\n'"$(cat "$tmp/proc.out")"
fi
kill -TERM $S1 $S3
wait $S1 $S3
# a flight recorder in buffers shared per user, and its snapshot: two
# programs ticking every 0.5 ms, whose events since attaching the
# buffers hold whole, whatever the load
"$TICKER" 500 > /dev/null &
F1=$!
"$TICKER" 500 > /dev/null &
F2=$!
listening $F1 && listening $F2
"$LT" record -o "$tmp/fr" -p $F1,$F2 --channel default:mode=overwrite,subbuf-size=64K,subbufs=4 \
	--name ufr$$ > "$tmp/fr.out" 2>&1 &
r=$!
mapped $F1 $F2
"$LT" snapshot ufr$$ > /dev/null 2>&1
kill -INT $r
wait $r
rc=$?
"$LT" view "$tmp/fr/snapshot-0" | pairs > "$tmp/fr.view"
babeltrace2 "$tmp/fr/snapshot-0" 2> /dev/null | pairs > "$tmp/fr.bt"
n1=$(awk -v p=$F1 '$1 == p' "$tmp/fr.view" | wc -l)
n2=$(awk -v p=$F2 '$1 == p' "$tmp/fr.view" | wc -l)
if [ $rc -eq 0 ] && [ "$n1" -gt 10 ] && [ "$n2" -gt 10 ] && cmp -s "$tmp/fr.view" "$tmp/fr.bt" &&
	ls "$tmp/fr/snapshot-0" | grep -q "^default_u$(id -u)_"; then
	ok test_per_user_flight_recorder
else
	fail test_per_user_flight_recorder "exit $rc: $n1 and $n2 events of $F1 and $F2; $(ls "$tmp/fr/snapshot-0")"$'\n'"$(cat "$tmp/fr.out")"
fi
kill -TERM $F1 $F2
wait $F1 $F2

# LOWTRACE_ATTACH=0: no rendezvous, and a message that names it
LOWTRACE_ATTACH=0 "$TICKER" 1000 > /dev/null &
T=$!
sleep 0.3
expect_error test_attach_refused_by_env nonzero "process $T was started with LOWTRACE_ATTACH=0" \
	"$LT" record -o "$tmp/env" -p $T
kill -TERM $T
wait $T

# a program of a `lowtrace record` is in that recording: it says so
"$LT" record -o "$tmp/cmd" -- "$TICKER" 1000 > /dev/null 2>&1 &
r=$!
# (the command, not its pre-flight run, which lists its events and exits)
for i in $(seq 50); do
	for T in $(pgrep -P $r -f "$TICKER"); do
		tr '\0' '\n' < "/proc/$T/environ" 2> /dev/null | grep -q '^LOWTRACE_SESSION_SOCK=' && break 2
	done
	sleep 0.1
done
expect_error test_attach_refused_under_record nonzero "process $T was started under .lowtrace record." \
	"$LT" record -o "$tmp/cmd2" -p "$T"
kill -TERM "$T"
wait $r

finish
