/* SPDX-License-Identifier: MIT */
/*
 * report.c - `lowtrace report DIR -o FILE`: the trace as one
 * self-contained HTML page (analysis/report.h) to open in a browser.
 */
#include "analysis/report.h"
#include "cli/analysis_opts.h"
#include "cli/cli.h"

#define REPORT "report"

static const char report_usage[] =
	"usage: lowtrace report DIR -o FILE [--anchor EVENT]\n"
	"\n"
	"Writes the trace in DIR as one HTML page that needs nothing else (no\n"
	"network): a row per CPU with the thread that ran and its irqs, a row\n"
	"per thread with its state over time, the anchor events (default\n"
	"demo:late; 'EVENT if CONDITION', `lowtrace help conditions`) marked\n"
	"on both and listed with where their time went (as analyze latency\n"
	"says), and a histogram of their lateness.  Zoom with the wheel or +\n"
	"and -, pan by dragging or with the arrow keys, 0 resets.  Record with\n"
	"-k sched,irq --all.\n"
	"  -o FILE   output file (- for stdout)\n";

static int report_run(int argc, char **argv)
{
	struct lt_aopts o;
	struct lt_anchor a;

	if (lt_cli_wants_help(argc, argv)) {
		fputs(report_usage, stdout);
		return 0;
	}
	if (lt_aopts_parse(&o, REPORT, LT_AOPT_OUTPUT | LT_AOPT_ANCHOR, argc,
			   argv))
		return 1;
	if (!o.output)
		return lt_cli_error(REPORT, "no output file (-o FILE, e.g. "
					    "-o report.html)");
	if (lt_aopts_anchor(&o, REPORT, &a))
		return 1;
	return lt_cli_trace_to_file(REPORT, o.dir, o.output, &a,
				    lt_report_html);
}

LT_CLI_VERB(report_verb, .name = REPORT,
	    .summary = "write a trace as a self-contained HTML report",
	    .usage = report_usage, .run = report_run)
