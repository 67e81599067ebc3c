#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_docs.sh - every name the docs and the models' comments give still
# exists in the code.
#
# Reads docs/*.md and README.md (in `backticks`: lt_*, LT_* and LOWTRACE_*
# names, foo(), other identifiers with an underscore; in code blocks the
# lt_*/LT_* names; anywhere, file paths) and the comments of models/*.pml
# (lt_*, LT_*, foo(), identifiers with an underscore, paths). A name exists
# when it is a word of the code: src, include, tests, bench, examples,
# scripts, mk, python, the Makefile and the models' own Promela without their
# comments (a comment cannot keep a name alive). A path under src/,
# include/, tests/, bench/, models/, scripts/, examples/, mk/ or docs/
# exists when the file or folder does (a * in it as a glob), a program's
# when its .c or .sh does. Each name missing is printed with the file and
# line that give it; any makes the one case fail.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/harness.sh" lt-test-docs
cd "$top" || exit 1

# The models without their comments, for the list of words.
strip_comments() { # Promela or C on stdin; comments become blanks
	awk '{
		out = ""; line = $0
		while (line != "") {
			if (inc) {
				e = index(line, "*/")
				if (!e) { line = ""; break }
				line = substr(line, e + 2); inc = 0; continue
			}
			b = index(line, "/*"); s = index(line, "//")
			if (s && (!b || s < b)) { out = out substr(line, 1, s - 1); line = ""; break }
			if (!b) { out = out line; line = ""; break }
			out = out substr(line, 1, b - 1) " "; line = substr(line, b + 2); inc = 1
		}
		print out
	}'
}

# The comments of the models alone, same line numbers.
only_comments() {
	awk '{
		out = ""; line = $0
		while (line != "") {
			if (inc) {
				e = index(line, "*/")
				if (!e) { out = out line; line = ""; break }
				out = out substr(line, 1, e - 1) " "; line = substr(line, e + 2); inc = 0
				continue
			}
			b = index(line, "/*"); s = index(line, "//")
			if (s && (!b || s < b)) { out = out substr(line, s + 2); line = ""; break }
			if (!b) { line = ""; break }
			line = substr(line, b + 2); inc = 1
		}
		print out
	}'
}

# Names from outside the project that the docs give: kernel functions in
# profiles, field names as babeltrace2 prints them.
external="copy_folio_from_iter_atomic finish_task_switch samples_length"

words=$tmp/words
{
	grep -rIhoE '[A-Za-z_][A-Za-z0-9_]*' src include tests bench examples scripts mk python Makefile \
		--exclude=test_docs.sh 2> /dev/null
	for m in models/*.pml; do
		strip_comments < "$m" | grep -oE '[A-Za-z_][A-Za-z0-9_]*'
	done
	grep -hoE '[A-Za-z_][A-Za-z0-9_]*' models/*.sh
} | sort -u > "$words"

# Candidates: KIND NAME FILE:LINE, one a line. Kinds: name (a word of the
# code), prefix (NAME* : some word starts with it), path.
cands=$tmp/cands
names_awk='
function ident(tok, where,   n) {
	# tok: an identifier, maybe followed by "()" or "*"
	if (tok ~ /\*$/) {
		sub(/\*$/, "", tok)
		if (tok ~ /^(lt_|LT_|LOWTRACE_)/ && length(tok) > 3) print "prefix", tok, where
		return
	}
	n = tok; sub(/\(\)$/, "", n)
	if (n ~ /^[0-9]/) return
	if (tok ~ /\(\)$/ || n ~ /^(lt_|LT_|lt__|LT__|LOWTRACE_)/ || n ~ /[a-z0-9]_[a-z0-9]/ && n !~ /^_/)
		print "name", n, where
}
function idents(text, where,   t, pre) {
	while (match(text, /[A-Za-z_][A-Za-z0-9_]*(\(\)|\*)?/)) {
		t = substr(text, RSTART, RLENGTH)
		# a word inside a path, option or address (foo/bar_baz, --a_b, x.y_z) is not a name
		pre = RSTART > 1 ? substr(text, RSTART - 1, 1) : " "
		text = substr(text, RSTART + RLENGTH)
		if (pre !~ /[\/.:=A-Za-z0-9-]/) ident(t, where)
	}
}
function paths(text, where,   p, pre) {
	while (match(text, /(src|include|tests|bench|models|scripts|examples|mk|docs)\/[A-Za-z0-9_.*\/-]*/)) {
		p = substr(text, RSTART, RLENGTH)
		pre = RSTART > 1 ? substr(text, RSTART - 1, 1) : " "
		text = substr(text, RSTART + RLENGTH)
		if (pre ~ /[A-Za-z0-9_.\/-]/) continue
		sub(/[.-]+$/, "", p)
		print "path", p, where
	}
}
'
for f in docs/*.md README.md; do
	awk "$names_awk"'
	/^[ \t]*```/ { fence = !fence; next }
	{
		where = FILENAME ":" FNR
		paths($0, where)
		if (fence) { idents_lt($0, where); next }
		line = $0
		while (match(line, /`[^`]+`/)) {
			span = substr(line, RSTART + 1, RLENGTH - 2)
			line = substr(line, RSTART + RLENGTH)
			idents(span, where)
		}
	}
	# In code blocks (commands, output, C), the lt_/LT_ names only.
	function idents_lt(text, where,   t, pre) {
		while (match(text, /[A-Za-z_][A-Za-z0-9_]*\*?/)) {
			t = substr(text, RSTART, RLENGTH)
			pre = RSTART > 1 ? substr(text, RSTART - 1, 1) : " "
			text = substr(text, RSTART + RLENGTH)
			if (pre !~ /[\/.:=A-Za-z0-9-]/ && t ~ /^(lt_|LT_|lt__|LT__)/) ident(t, where)
		}
	}' "$f"
done > "$cands"
for m in models/*.pml; do
	only_comments < "$m" | awk -v file="$m" "$names_awk"'
	{ where = file ":" NR; paths($0, where); idents($0, where) }'
done >> "$cands"

missing=$tmp/missing
awk -v words="$words" -v external="$external" '
	BEGIN {
		while ((getline w < words) > 0) have[w] = 1
		n = split(external, ext, " ")
		for (i = 1; i <= n; i++) have[ext[i]] = 1
	}
	$1 == "name" && !($2 in have) { print "name", $2, $3 }
	$1 == "prefix" {
		if (!($2 in seen)) {
			seen[$2] = 0
			for (w in have) if (index(w, $2) == 1) { seen[$2] = 1; break }
		}
		if (!seen[$2]) print "name", $2 "*", $3
	}
	$1 == "path" { print }
' "$cands" > "$missing.1"
: > "$missing"
while read -r kind name where; do
	if [ "$kind" = path ]; then
		# shellcheck disable=SC2086
		set -- $name
		# a program is named by its path in the tree without .c or .sh
		[ -e "$1" ] || [ -e "$1.c" ] || [ -e "$1.sh" ] && continue
	fi
	echo "$kind $name $where" >> "$missing"
done < "$missing.1"

n=$(wc -l < "$cands")
if [ -s "$missing" ]; then
	while read -r kind name where; do
		if [ "$kind" = path ]; then
			echo "  $where: $name: no such file"
		else
			echo "  $where: $name: not in the code"
		fi
	done < "$missing"
	fail names "$(wc -l < "$missing") of $n names in docs/, README.md and models/ are not in the code (above)"
else
	ok names
fi
finish
