/* SPDX-License-Identifier: MIT */
/*
 * analysis_opts.c - the options of analyze, export and report, and the
 * opening of the trace they read (analysis_opts.h).
 */
#include "cli/analysis_opts.h"

#include "analysis/analysis.h"
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* every option, and the mask bit of the verbs that take it */
static const struct {
	struct option opt;
	unsigned mask;
} all_opts[] = {
	{ { "format", required_argument, NULL, 'f' }, LT_AOPT_FORMAT },
	{ { "output", required_argument, NULL, 'o' }, LT_AOPT_OUTPUT },
	{ { "anchor", required_argument, NULL, 'a' }, LT_AOPT_ANCHOR },
	{ { "by", required_argument, NULL, 'b' }, LT_AOPT_ANALYSES },
	{ { "top", required_argument, NULL, 'n' }, LT_AOPT_ANALYSES },
	{ { "event", required_argument, NULL, 'e' }, LT_AOPT_ANALYSES },
	{ { "period", required_argument, NULL, 'p' }, LT_AOPT_ANALYSES },
	{ { "span", required_argument, NULL, 's' },
	  LT_AOPT_ANALYSES | LT_AOPT_SPAN },
	{ { "min", required_argument, NULL, 'm' }, LT_AOPT_ANALYSES },
	{ { "json", no_argument, NULL, 'j' }, LT_AOPT_JSON },
};
#define NOPTS (sizeof(all_opts) / sizeof(all_opts[0]))

int lt_aopts_parse(struct lt_aopts *o, const char *verb, unsigned mask,
		   int argc, char **argv)
{
	struct option opts[NOPTS + 1];
	unsigned n = 0;
	int c;

	for (unsigned i = 0; i < NOPTS; i++)
		if (all_opts[i].mask & mask)
			opts[n++] = all_opts[i].opt;
	memset(&opts[n], 0, sizeof(opts[n]));
	*o = (struct lt_aopts){ .anchor = "demo:late",
				.format = "chrome",
				.event = "demo:tick" };
	/* the options follow the word that says what to run: getopt sees
	 * that word where it expects the program's name */
	if (mask & LT_AOPT_WHAT) {
		o->what = argv[1];
		argc--;
		argv++;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, mask & LT_AOPT_OUTPUT ? "o:" : "",
				opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->format = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'a':
			o->anchor = optarg;
			break;
		case 'b':
			o->by = optarg;
			break;
		case 'n':
			o->top = (unsigned)atoi(optarg);
			break;
		case 'e':
			o->event = optarg;
			break;
		case 'p':
			o->period = optarg;
			break;
		case 's':
			o->span = optarg;
			break;
		case 'm':
			o->min = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		default:
			return lt_cli_error(verb,
					    "bad option (see lowtrace "
					    "help %s)",
					    verb);
		}
	}
	if (optind != argc - 1)
		return lt_cli_error(verb,
				    "one trace directory expected "
				    "(lowtrace %s%s%s DIR%s)",
				    verb, o->what ? " " : "",
				    o->what ? o->what : "",
				    mask & LT_AOPT_OUTPUT ? " -o FILE" : "");
	o->dir = argv[optind];
	return 0;
}

int lt_aopts_anchor(const struct lt_aopts *o, const char *verb,
		    struct lt_anchor *a)
{
	char err[512];
	if (lt_anchor_parse(o->anchor, a, err, sizeof(err)) != 0)
		return lt_cli_error(verb, "--anchor: %s", err);
	return 0;
}

/* The reader's warnings (a tracer's known quirks, read on) */
static void on_warning(void *arg, const char *msg)
{
	fprintf(stderr, "lowtrace: %s: warning: %s\n", (const char *)arg, msg);
}

int lt_cli_open_trace(const char *verb, const char *dir, lt_reader_t **t)
{
	char err[512];
	const struct lt_reader_opts opts = { .flags = LT_READER_SKIP_BAD,
					     .warn = on_warning,
					     .warn_arg = (void *)verb };
	if (lt_reader_open(dir, &opts, t, err, sizeof(err)) < 0)
		return lt_cli_error(verb, "cannot open trace %s: %s", dir, err);
	if (!lt_reader_has_clock(*t)) {
		lt_reader_close(*t);
		*t = NULL;
		return lt_cli_error(verb,
				    "trace %s has no clock: its events have "
				    "no times, which `lowtrace %s` needs "
				    "(`lowtrace view` prints them in stream "
				    "order)",
				    dir, verb);
	}
	return 0;
}

int lt_cli_trace_skipped(const char *verb, lt_reader_t *t)
{
	uint64_t n = lt_reader_skipped_packets(t);
	if (!n)
		return 0;
	return lt_cli_error(verb,
			    "%llu damaged packet%s skipped (said above): what "
			    "is shown leaves %s events out",
			    (unsigned long long)n, n == 1 ? "" : "s",
			    n == 1 ? "its" : "their");
}

int lt_cli_trace_to_file(const char *verb, const char *dir, const char *outp,
			 const struct lt_anchor *a,
			 int (*write)(lt_reader_t *t, const struct lt_anchor *a,
				      FILE *out))
{
	lt_reader_t *t;
	if (lt_cli_open_trace(verb, dir, &t))
		return 1;
	FILE *out = strcmp(outp, "-") == 0 ? stdout : fopen(outp, "w");
	if (!out) {
		lt_reader_close(t);
		return lt_cli_error(verb, "cannot write %s: %s", outp,
				    strerror(errno));
	}
	int ret = write(t, a, out);
	if (ret < 0)
		lt_cli_error(verb, "reading %s: %s", dir,
			     ret == -EIO || ret == -ENOMEM ?
				     strerror(-ret) :
				     lt_reader_error(t));
	if (out != stdout && fclose(out) != 0 && ret >= 0) {
		ret = -errno;
		lt_cli_error(verb, "writing %s: %s", outp, strerror(errno));
	}
	int skipped = ret >= 0 && lt_cli_trace_skipped(verb, t);
	lt_reader_close(t);
	return ret < 0 || skipped ? 1 : 0;
}
