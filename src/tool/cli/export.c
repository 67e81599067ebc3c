/* SPDX-License-Identifier: MIT */
/*
 * export.c - `lowtrace export DIR --format=chrome -o FILE`: the trace as
 * Chrome trace-event JSON, for ui.perfetto.dev and chrome://tracing.
 */
#include "analysis/analysis.h"
#include "cli/analysis_opts.h"
#include "cli/cli.h"

#include <string.h>

#define EXPORT "export"

static const char export_usage[] =
	"usage: lowtrace export DIR --format=chrome -o FILE [--anchor EVENT]\n"
	"\n"
	"Writes the trace in DIR as Chrome trace-event JSON: a track per "
	"thread\n"
	"with its running slices, a track per CPU with what ran on it, and the\n"
	"anchor events (default demo:late; 'EVENT if CONDITION', `lowtrace\n"
	"help conditions`) as instants.\n"
	"Scheduling comes from kernel events (record with -k sched --all).\n"
	"  -o FILE   output file (- for stdout)\n";

static int export_run(int argc, char **argv)
{
	struct lt_aopts o;
	struct lt_anchor a;

	if (lt_cli_wants_help(argc, argv)) {
		fputs(export_usage, stdout);
		return 0;
	}
	if (lt_aopts_parse(&o, EXPORT,
			   LT_AOPT_FORMAT | LT_AOPT_OUTPUT | LT_AOPT_ANCHOR,
			   argc, argv))
		return 1;
	if (strcmp(o.format, "chrome") != 0)
		return lt_cli_error(EXPORT, "unknown format '%s' (chrome)",
				    o.format);
	if (!o.output)
		return lt_cli_error(EXPORT, "no output file (-o FILE)");
	if (lt_aopts_anchor(&o, EXPORT, &a))
		return 1;
	return lt_cli_trace_to_file(EXPORT, o.dir, o.output, &a,
				    lt_export_chrome);
}

LT_CLI_VERB(export_verb, .name = EXPORT,
	    .summary = "write a trace as Chrome trace-event JSON",
	    .usage = export_usage, .run = export_run)
