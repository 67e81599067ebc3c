/* SPDX-License-Identifier: MIT */
/*
 * export.c - `lowtrace export DIR --format=chrome -o FILE`: the trace as
 * Chrome trace-event JSON, for ui.perfetto.dev and chrome://tracing.
 */
#include "analysis/analysis.h"
#include "cli/cli.h"
#include "ctf/reader.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT "export"

static const char export_usage[] =
	"usage: lowtrace export DIR --format=chrome -o FILE [--anchor EVENT]\n"
	"\n"
	"Writes the trace in DIR as Chrome trace-event JSON: a track per "
	"thread\n"
	"with its running slices, a track per CPU with what ran on it, and the\n"
	"anchor events (default demo:late; 'EVENT if FIELD OP N') as "
	"instants.\n"
	"Scheduling comes from kernel events (record with -k sched --all).\n"
	"  -o FILE   output file (- for stdout)\n";

static int export_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "anchor", required_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = "chrome", *outp = NULL, *anchor = "demo:late";
	int c;

	if (lt_cli_wants_help(argc, argv)) {
		fputs(export_usage, stdout);
		return 0;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			format = optarg;
			break;
		case 'o':
			outp = optarg;
			break;
		case 'a':
			anchor = optarg;
			break;
		default:
			return lt_cli_error(EXPORT, "bad option (see lowtrace "
						    "help export)");
		}
	}
	if (optind != argc - 1)
		return lt_cli_error(EXPORT, "one trace directory expected "
					    "(lowtrace export DIR -o FILE)");
	if (strcmp(format, "chrome") != 0)
		return lt_cli_error(EXPORT, "unknown format '%s' (chrome)",
				    format);
	if (!outp)
		return lt_cli_error(EXPORT, "no output file (-o FILE)");
	struct lt_anchor a;
	char err[512];
	if (lt_anchor_parse(anchor, &a, err, sizeof(err)) != 0)
		return lt_cli_error(EXPORT, "--anchor: %s", err);
	return lt_cli_trace_to_file(EXPORT, argv[optind], outp, &a,
				    lt_export_chrome);
}

int lt_cli_trace_to_file(const char *verb, const char *dir, const char *outp,
			 const struct lt_anchor *a,
			 int (*write)(lt_reader_t *t, const struct lt_anchor *a,
				      FILE *out))
{
	lt_reader_t *t;
	char err[512];
	if (lt_reader_open(dir, NULL, &t, err, sizeof(err)) < 0)
		return lt_cli_error(verb, "cannot open trace %s: %s", dir, err);
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
	lt_reader_close(t);
	return ret < 0 ? 1 : 0;
}

LT_CLI_VERB(export_verb, .name = EXPORT,
	    .summary = "write a trace as Chrome trace-event JSON",
	    .usage = export_usage, .run = export_run)
