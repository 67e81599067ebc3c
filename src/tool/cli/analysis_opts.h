/* SPDX-License-Identifier: MIT */
/*
 * analysis_opts.h - what the verbs that read a recorded trace and say
 * something of it (analyze, export, report) share: one parser of their
 * options, so that each option has one spelling, one default and one
 * error in all of them, and opening the trace.
 */
#ifndef LT_CLI_ANALYSIS_OPTS_H
#define LT_CLI_ANALYSIS_OPTS_H

#include <stdio.h>

#include "ctf/reader.h"

struct lt_anchor;

/* Which options a verb takes (a mask for lt_aopts_parse()). */
enum {
	LT_AOPT_ANCHOR = 1 << 0, /* --anchor 'EVENT[ if FIELD OP N]' */
	LT_AOPT_OUTPUT = 1 << 1, /* -o, --output FILE */
	LT_AOPT_FORMAT = 1 << 2, /* --format NAME */
	/* --by FIELD, --top N, --event EVENT, --period DURATION,
	 * --span 'START..END', --min DURATION */
	LT_AOPT_ANALYSES = 1 << 3,
	/* the first word after the verb names what it runs (analyze's
	 * latency, sched, ...) */
	LT_AOPT_WHAT = 1 << 4,
	LT_AOPT_JSON = 1 << 5, /* --json: the results as JSON */
	LT_AOPT_SPAN = 1 << 6, /* --span 'START..END' alone */
};

struct lt_aopts {
	const char *what; /* LT_AOPT_WHAT's word */
	const char *dir; /* the trace directory */
	const char *anchor; /* default demo:late */
	const char *output; /* NULL where none is given */
	const char *format; /* default chrome */
	const char *event; /* default demo:tick */
	const char *by, *period, *span, *min; /* NULL where none is given */
	unsigned top; /* 0 where none is given: the analysis's default */
	int json; /* --json given */
};

/*
 * Parses the options in mask and one trace directory from verb's argv
 * (argv[0] is the verb; with LT_AOPT_WHAT, argc >= 2) into o.  An option
 * not in mask, or not one directory, is an error said as verb's: 1 (an
 * exit status), else 0.
 */
int lt_aopts_parse(struct lt_aopts *o, const char *verb, unsigned mask,
		   int argc, char **argv);

/* Parses o's --anchor into a; 0, or 1 after saying what is wrong. */
int lt_aopts_anchor(const struct lt_aopts *o, const char *verb,
		    struct lt_anchor *a);

/* Opens the trace in dir; 0, or 1 after saying why it cannot.  The
 * reader's warnings (quirks, damaged packets skipped) go to stderr under
 * verb's name: a damaged packet is stepped over, as view does. */
int lt_cli_open_trace(const char *verb, const char *dir, lt_reader_t **t);

/* After a pass over t: 1, after saying so, when damaged packets were
 * skipped (the results leave their events out), else 0. */
int lt_cli_trace_skipped(const char *verb, lt_reader_t *t);

/*
 * Opens the trace in dir and the file outp ("-": stdout), calls
 * write(trace, anchor, file), and reports any failure as verb's; the exit
 * status (0 or 1).
 */
int lt_cli_trace_to_file(const char *verb, const char *dir, const char *outp,
			 const struct lt_anchor *a,
			 int (*write)(lt_reader_t *t, const struct lt_anchor *a,
				      FILE *out));

#endif
