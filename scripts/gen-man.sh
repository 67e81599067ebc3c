#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gen-man.sh LOWTRACE VERSION - writes lowtrace(1) on stdout, from the
# command's own help: the overview of `lowtrace help`, each verb's usage
# text (`lowtrace help VERB`) and each topic's (`lowtrace help patterns`),
# so that the page says what the command says.  mk/install.mk runs it at
# build time.
set -euo pipefail
lt=$1 version=$2
# roff-safe: backslashes doubled, a leading dot or quote kept literal
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
verbs=$("$lt" help | sed -n 's/^  \([a-z]\+\) .*/\1/p')
topics=$("$lt" help | sed -n 's/^  \([a-z]\+\): .*/\1/p')
cat <<HEAD
.TH LOWTRACE 1 "" "lowtrace $version" "User Commands"
.SH NAME
lowtrace \\- record, view and analyze low-impact traces of Linux programs
.SH SYNOPSIS
.B lowtrace
.I VERB
[\\fIOPTIONS\\fR] [\\fIARGS\\fR]
.SH DESCRIPTION
lowtrace records the static tracepoints (LT_EVENT, lt_tracef; see
.BR lt_trace (3))
of programs linked with liblowtrace, and optionally kernel tracepoints, into
CTF 1.8 traces that
.B lowtrace
and babeltrace2 read.
.PP
.nf
HEAD
"$lt" help | esc
echo ".fi"
for v in $verbs; do
	echo ".SH $(tr a-z A-Z <<< "$v")"
	echo ".nf"
	"$lt" help "$v" | esc
	echo ".fi"
done
for t in $topics; do
	echo ".SH $(tr a-z A-Z <<< "$t")"
	echo ".nf"
	"$lt" help "$t" | esc
	echo ".fi"
done
cat <<TAIL
.SH ENVIRONMENT
.TP
.B LOWTRACE_TRACE=DIR
a program linked with liblowtrace traces itself into DIR, from load to exit
.TP
.B LOWTRACE_EVENTS=PATTERN[,PATTERN...]
the events it records (default all; markers: 'lt_tracef:*',
\\(aqlt_tracef:src/net.c:*\\(aq)
.TP
.B LOWTRACE_LOGLEVEL=LEVEL
that level and more severe only
.SH SEE ALSO
.BR lt_trace (3),
.BR babeltrace2 (1)
TAIL
