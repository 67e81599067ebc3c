#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-deps.sh - finds files and modules of src/ that depend on each other
# in a circle.
#
#   scripts/check-deps.sh [--root DIR] [--objs DIR] [--allow FILE]
#                         [--layers FILE]
#
# DIR of --root holds src/ (the checkout's by default).
# A unit is a source file with its own header (src/runtime/ring/ring.c and
# src/runtime/ring/ring.h are the unit src/runtime/ring/ring), with the
# parts it is split into, named X_PART.c or X_PART.h beside X.c
# (ring_write.h, reader_decode.c), and with its architecture's
# assembly (src/runtime/probe/probe_x86_64.S belongs to src/runtime/probe/probe: the
# assembly's fast paths and their C fallbacks are one implementation in
# two languages, each naming the other); a module is the directory that
# holds a file (src/runtime/ring/).  Includes are resolved against src/
# and the folders of src/ that hold modules (src/runtime/, src/tool/),
# as the build's -I options do.  Three graphs are checked:
#   include  unit A includes a header of unit B (#include lines);
#   link     A's object uses a symbol B's object defines (nm of DIR/src/**.o,
#            the objects of a build: a cycle here ties the objects together
#            at link time, even when the declarations sit in a header of
#            neither, such as include/lowtrace/*.h);
#   module   the same two, between modules.
# Each strongly connected component of a graph is printed as one cycle
# through it ("cycle link: a -> b -> a") with its members.
#
# FILE lists the cycles still allowed, one a line: the graph then the
# members ("link src/runtime/probe/registry src/runtime/session/autostart"); '#' starts a
# comment.  A component all of whose members one line names is allowed
# (it may shrink as the cycle is taken apart).  Prints "allowed cycle" for
# those, "cycle" for the others, and "stale" for lines that neither hold
# a component nor lie within one: the cycle they name is gone.
#
# FILE of --layers is the documented layering: the module table of
# docs/ARCHITECTURE.md, rows "| src/runtime/ring/ | concept | clock, format |".
# A row's last cell names the modules it may include, by folder name, all
# in rows above it; or "nothing"; or "everything above".  A module without
# a row is the row of the folder that holds it (src/runtime/ring/gen/ is
# src/runtime/ring/'s).  Every include between modules is checked against
# it: "layer: A -> B (HEADER): ..." for each that the table does not allow.
# Exits 1 when a cycle is not allowed or an include breaks the layering, 2
# on bad usage.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
objs= allow= layers=
while [ $# -gt 0 ]; do
	case $1 in
	--root) top=${2:?}; shift 2 ;;
	--objs) objs=${2:?}; shift 2 ;;
	--allow) allow=${2:?}; shift 2 ;;
	--layers) layers=${2:?}; shift 2 ;;
	*) echo "usage: $0 [--root DIR] [--objs DIR] [--allow FILE] [--layers FILE]" >&2; exit 2 ;;
	esac
done
# the paths given are relative to where we were called from
case $objs in /* | '') ;; *) objs=$PWD/$objs ;; esac
case $allow in /* | '') ;; *) allow=$PWD/$allow ;; esac
case $layers in /* | '') ;; *) layers=$PWD/$layers ;; esac
cd "$top" || exit 2

# the include path's roots: src/, and each folder of src/ that holds
# modules rather than files (src/runtime/, src/tool/)
roots=src
for d in src/*/; do
	d=${d%/}
	[ -n "$(find "$d" -maxdepth 1 -name '*.[chS]' -print -quit)" ] ||
		roots="$roots $d"
done

unit() { # path -> unit: the path without its extension or architecture
	local u=${1%.*} a
	for a in x86_64 aarch64; do
		case $u in
		*_$a) [ -e "${u%_"$a"}.c" ] && u=${u%_"$a"} ;;
		esac
	done
	# a part of a unit: X_PART.c or X_PART.h beside X.c (ring_write.h
	# is the unit ring's, reader_decode.c the unit reader's)
	case $u in
	*_*) [ ! -e "${u%_*}.c" ] || u=${u%_*} ;;
	esac
	printf '%s\n' "$u"
}

# include edges: "include FROM TO"
include_edges() {
	local f inc u t r found
	for f in $(find src -name '*.[chS]' | sort); do
		u=$(unit "$f")
		sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^">]+)[">].*/\1/p' "$f" |
			while read -r inc; do
				found=
				for r in $roots; do
					if [ -e "$r/$inc" ]; then
						found=$r/$inc
						break
					fi
				done
				if [ -n "$found" ]; then
					t=$(unit "$found")
				elif [ -e "$(dirname "$f")/$inc" ]; then
					t=$(unit "$(dirname "$f")/$inc")
				else
					continue # system or public (include/) header
				fi
				[ "$t" != "$u" ] && echo "include $u $t $inc"
			done
	done
}

# link edges: "link FROM TO", from the objects' defined and undefined symbols
link_edges() {
	local o
	for o in $(find "$objs/src" -name '*.o' 2>/dev/null | sort); do
		local u=${o#"$objs"/}
		u=${u%.o}
		# an object left behind by a source file that is gone
		[ -e "$u.c" ] || [ -e "$u.S" ] || continue
		u=$(unit "$u.o")
		nm -g --defined-only "$o" | awk -v u="$u" 'NF == 3 { print "D", $3, u }'
		nm -u "$o" | awk -v u="$u" '{ print "U", $NF, u }'
	done | awk '
		$1 == "D" { def[$2] = $3; next }
		{ use[++n] = $2; user[n] = $3 }
		END {
			for (i = 1; i <= n; i++)
				if ((use[i] in def) && def[use[i]] != user[i])
					print "link", user[i], def[use[i]], use[i]
		}'
}

edges() {
	include_edges
	if [ -n "$objs" ]; then
		link_edges
	fi
}

# includes between modules that the table of $layers does not allow
check_layers() {
	include_edges | awk -v layers="$layers" '
	function row(u,   m, best, r) { # the row of unit u: its longest prefix
		best = 0
		for (r = 1; r <= nrow; r++)
			if (index(u "/", path[r] "/") == 1 &&
			    (!best || length(path[r]) > length(path[best])))
				best = r
		return best
	}
	BEGIN {
		while ((getline line < layers) > 0) {
			if (line !~ /^\| *(src|include)\//)
				continue
			k = split(line, cell, "|")
			p = cell[2]
			gsub(/^ +| +\/? *$/, "", p)
			sub(/\/$/, "", p)
			u = cell[k - 1]
			gsub(/^ +| +$/, "", u)
			path[++nrow] = p
			uses[nrow] = u
			n = split(p, part, "/")
			name[nrow] = part[n]
		}
		if (!nrow) {
			print "no module table in " layers
			bad = 1
			exit
		}
	}
	{
		a = row($2); b = row($3)
		if (!a || !b) {
			print "layer: " $2 " -> " $3 " (" $4 "): " \
				(!a ? $2 : $3) " has no row in the module table"
			bad = 1
			next
		}
		if (a == b)
			next
		ok = 0
		if (b < a) {
			if (uses[a] == "everything above")
				ok = 1
			n = split(uses[a], list, /, */)
			for (i = 1; i <= n; i++)
				if (list[i] == name[b])
					ok = 1
		}
		if (!ok) {
			print "layer: " $2 " -> " $3 " (" $4 "): " path[a] \
				" uses " uses[a] (b > a ? "; " path[b] " is below it" : "")
			bad = 1
		}
	}
	END { exit bad }'
}

layer_rc=0
if [ -n "$layers" ]; then
	check_layers
	layer_rc=$?
fi

# module edges from the unit edges, then the components of every graph
edges | sort -u | awk -v allowfile="$allow" '
function module(u,   p) {
	p = u
	sub(/\/[^\/]*$/, "", p)
	return p
}
function add(g, a, b, why) {
	if (a == b || ((g SUBSEP a SUBSEP b) in edge))
		return
	edge[g, a, b] = why
	node[g, a] = 1
	node[g, b] = 1
	nout[g, a]++
	out[g, a, nout[g, a]] = b
}
# Tarjan: the strongly connected components of graph G
function visit(G, v,   i, w, m) {
	idx[v] = low[v] = ++counter
	stack[++sp] = v
	onstack[v] = 1
	for (i = 1; i <= nout[G, v]; i++) {
		w = out[G, v, i]
		if (!(w in idx)) {
			visit(G, w)
			if (low[w] < low[v])
				low[v] = low[w]
		} else if (onstack[w] && idx[w] < low[v]) {
			low[v] = idx[w]
		}
	}
	if (low[v] == idx[v]) {
		m = 0
		do {
			w = stack[sp--]
			onstack[w] = 0
			comp[++m] = w
		} while (w != v)
		if (m > 1)
			report(G, m)
	}
}
function sortcomp(m,   i, j, t) {
	for (i = 2; i <= m; i++)
		for (j = i; j > 1 && comp[j - 1] > comp[j]; j--) {
			t = comp[j]; comp[j] = comp[j - 1]; comp[j - 1] = t
		}
}
# one cycle through the component: breadth-first from its first member
# back to it, inside the component; hops[1..nhops] say why each step
function cycle(G, m,   i, in_c, q, h, t, v, w, par, s, path, nx) {
	for (i = 1; i <= m; i++)
		in_c[comp[i]] = 1
	h = 1; t = 0
	q[++t] = comp[1]
	while (h <= t) {
		v = q[h++]
		for (i = 1; i <= nout[G, v]; i++) {
			w = out[G, v, i]
			if (!(w in in_c))
				continue
			if (w == comp[1]) {
				path = w
				nhops = 0
				nx = w
				for (s = v; ; s = par[s]) {
					hops[++nhops] = "    " s " -> " nx ": " edge[G, s, nx]
					if (s == comp[1])
						break
					path = s " -> " path
					nx = s
				}
				return comp[1] " -> " path
			}
			if (!(w in par)) {
				par[w] = v
				q[++t] = w
			}
		}
	}
	return "?"
}
# 1 when a line names every member of the component; a line is still of
# use while it holds the component or the component holds it
function allowed(G, m,   a, i, cnt, ok) {
	ok = 0
	for (a = 1; a <= nallow; a++) {
		if (agraph[a] != G)
			continue
		cnt = 0
		for (i = 1; i <= m; i++)
			if ((a, comp[i]) in amember)
				cnt++
		if (cnt == m)
			ok = 1
		if (cnt == m || cnt == asize[a])
			used[a] = 1
	}
	return ok
}
function report(G, m,   i, names, c) {
	sortcomp(m)
	names = comp[1]
	for (i = 2; i <= m; i++)
		names = names " " comp[i]
	c = cycle(G, m)
	if (allowed(G, m)) {
		print "allowed cycle " G ": " c
	} else {
		print "cycle " G ": " c
		bad++
	}
	for (i = nhops; i >= 1; i--)
		print hops[i]
	print "  members: " names
}
{
	add($1, $2, $3, $4)
	add("module", module($2), module($3), $2 " -> " $3 " (" $4 ")")
}
END {
	if (allowfile != "") {
		while ((getline line < allowfile) > 0) {
			sub(/#.*/, "", line)
			k = split(line, f, " ")
			if (k < 3)
				continue
			nallow++
			agraph[nallow] = f[1]
			atext[nallow] = line
			asize[nallow] = k - 1
			for (i = 2; i <= k; i++)
				amember[nallow, f[i]] = 1
		}
	}
	ng = split("include link module", graphs, " ")
	for (gi = 1; gi <= ng; gi++) {
		G = graphs[gi]
		split("", idx); split("", low); split("", onstack)
		sp = 0; counter = 0
		for (key in node) {
			split(key, p, SUBSEP)
			if (p[1] == G && !(p[2] in idx))
				visit(G, p[2])
		}
	}
	for (a = 1; a <= nallow; a++)
		if (!(a in used))
			print "stale allow-list line (no such cycle now):" atext[a]
	exit bad > 0
}'
cycle_rc=$?
[ "$cycle_rc" -ne 0 ] && exit "$cycle_rc"
exit "$layer_rc"
