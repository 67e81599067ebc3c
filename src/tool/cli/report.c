/* SPDX-License-Identifier: MIT */
/*
 * report.c - `lowtrace report DIR -o FILE`: the trace as one
 * self-contained HTML page (analysis/report.h) to open in a browser.
 */
#include "analysis/report.h"
#include "cli/cli.h"
#include "ctf/reader.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define REPORT "report"

static const char report_usage[] =
	"usage: lowtrace report DIR -o FILE [--anchor EVENT]\n"
	"\n"
	"Writes the trace in DIR as one HTML page that needs nothing else (no\n"
	"network): a row per CPU with the thread that ran and its irqs, a row\n"
	"per thread with its state over time, the anchor events (default\n"
	"demo:late; 'EVENT if FIELD OP N') marked on both and listed with\n"
	"where their time went (as analyze latency says), and a histogram of\n"
	"their lateness.  Zoom with the wheel or + and -, pan by dragging or\n"
	"with the arrow keys, 0 resets.  Record with -k sched,irq --all.\n"
	"  -o FILE   output file (- for stdout)\n";

static int report_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "anchor", required_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	const char *outp = NULL, *anchor = "demo:late";
	int c;

	if (lt_cli_wants_help(argc, argv)) {
		fputs(report_usage, stdout);
		return 0;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			outp = optarg;
			break;
		case 'a':
			anchor = optarg;
			break;
		default:
			return lt_cli_error(REPORT, "bad option (see lowtrace "
						    "help report)");
		}
	}
	if (optind != argc - 1)
		return lt_cli_error(REPORT, "one trace directory expected "
					    "(lowtrace report DIR -o FILE)");
	if (!outp)
		return lt_cli_error(REPORT, "no output file (-o FILE, e.g. "
					    "-o report.html)");
	struct lt_anchor a;
	char err[512];
	if (lt_anchor_parse(anchor, &a, err, sizeof(err)) != 0)
		return lt_cli_error(REPORT, "--anchor: %s", err);
	return lt_cli_trace_to_file(REPORT, argv[optind], outp, &a,
				    lt_report_html);
}

LT_CLI_VERB(report_verb, .name = REPORT,
	    .summary = "write a trace as a self-contained HTML report",
	    .usage = report_usage, .run = report_run)
