#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pg-lock.sh - why was this query slow?  On a PostgreSQL no one here wrote.
#
# Starts a private PostgreSQL cluster in a temporary directory (initdb as
# the postgres user, a port of its own, removed at the end), records its
# postmaster and every backend it forks with their USDT markers
# (-u 'postgresql:*') and the kernel's scheduling events (-k sched), while
# one session holds a row lock for about 300 ms and a second session's
# UPDATE of that row waits for it; then explains the slowest queries:
#
#   lowtrace analyze latency TRACE \
#       --span 'postgresql:query__start..postgresql:query__done'
#
# The verdict of the slowest says it was blocked in lock__wait__start..done
# until the backend that held the lock committed and woke it.
#
# Usage (as root): examples/pg-lock.sh [TRACE_DIR]   (default ./pg-lock-trace)
# LOWTRACE: the lowtrace command (default build/lowtrace beside this file).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
LT=${LOWTRACE:-$here/build/lowtrace}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
out=${1:-pg-lock-trace}
case $out in /*) ;; *) out=$PWD/$out ;; esac
HOLD=${HOLD:-0.3}

if [ "$(id -u)" -ne 0 ]; then
	echo "pg-lock.sh: run as root (uprobes and kernel events need it)" >&2
	exit 1
fi
for f in "$PGBIN/initdb" "$PGBIN/pg_ctl" "$PGBIN/psql"; do
	[ -x "$f" ] || { echo "pg-lock.sh: no $f (install postgresql)" >&2; exit 1; }
done

tmp=$(mktemp -d /tmp/lt-pg.XXXXXX)
chmod 755 "$tmp"
chown postgres: "$tmp"
as_pg() { runuser -u postgres -- "$@"; }
cleanup() {
	as_pg "$PGBIN/pg_ctl" -D "$tmp/data" -m immediate stop > /dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
# a port of its own: the first free one from 54320
port=54320
while [ -e "/tmp/.s.PGSQL.$port" ] || [ -e "$tmp/.s.PGSQL.$port" ] ||
	(exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null; do
	port=$((port + 1))
done
as_pg "$PGBIN/initdb" -D "$tmp/data" -A trust -U postgres > "$tmp/initdb.log" 2>&1 ||
	{ cat "$tmp/initdb.log" >&2; exit 1; }
as_pg "$PGBIN/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w \
	-o "-p $port -k $tmp -c listen_addresses=''" start > /dev/null
sql() { as_pg "$PGBIN/psql" -X -q -h "$tmp" -p "$port" -U postgres -d postgres "$@"; }
sql -c "CREATE TABLE account (id int PRIMARY KEY, balance int);
	INSERT INTO account VALUES (1, 100);"
postmaster=$(head -n 1 "$tmp/data/postmaster.pid")

# the workload: the holder updates the row in a transaction and keeps it
# open while its client sleeps, then commits; the waiter, connected
# already, sends its UPDATE of the same row as soon as the holder's lock
# is taken (psql's \! runs after the statements before it are done)
cat > "$tmp/workload.sh" << EOW
psql() { runuser -u postgres -- "$PGBIN/psql" -X -q -h "$tmp" -p "$port" -U postgres -d postgres "\$@"; }
{
	echo "BEGIN;"
	echo "UPDATE account SET balance = balance - 10 WHERE id = 1;"
	echo "\\! touch $tmp/locked"
	sleep $HOLD
	echo "COMMIT;"
} | psql &
{
	while [ ! -e $tmp/locked ]; do sleep 0.01; done
	echo "UPDATE account SET balance = balance + 10 WHERE id = 1;"
} | psql
wait
EOW
rm -rf "$out"
"$LT" record -o "$out" -p "$postmaster" -u 'postgresql:*' -k sched -- bash "$tmp/workload.sh"
echo
"$LT" analyze latency "$out" --top 2 \
	--span 'postgresql:query__start..postgresql:query__done'
