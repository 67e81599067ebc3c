/* SPDX-License-Identifier: MIT */
/*
 * report.c - `lowtrace report DIR -o FILE`: the trace as one
 * self-contained HTML page (analysis/report.h) to open in a browser.
 */
#include "analysis/report.h"
#include "cli/analysis_opts.h"
#include "cli/cli.h"

#include <ftw.h>
#include <stdint.h>
#include <string.h>

#define REPORT "report"

/* The page draws about a million events well; past that, Perfetto's UI
 * (lowtrace export --format perfetto) shows them all.  Events are
 * counted from the streams' size, at about 40 bytes each. */
#define REPORT_EVENTS_MAX 1000000ull
#define BYTES_PER_EVENT 40u

static uint64_t stream_bytes;

static int add_stream(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	const char *base = path + ftw->base;
	if (type == FTW_F && strcmp(base, "metadata") != 0 &&
	    !strstr(path, "/index/") && base[0] != '.')
		stream_bytes += (uint64_t)st->st_size;
	return 0;
}

/* Says on stderr which view suits a trace too large for the page. */
static void advise(const char *dir)
{
	stream_bytes = 0;
	if (nftw(dir, add_stream, 16, FTW_PHYS) != 0)
		return;
	uint64_t n = stream_bytes / BYTES_PER_EVENT;
	if (n <= REPORT_EVENTS_MAX)
		return;
	fprintf(stderr,
		"lowtrace: report: %s holds about %llu million events "
		"(%llu MiB): the page shows about a million well; for all of "
		"them: lowtrace export --format perfetto %s -o trace.pftrace, "
		"opened in ui.perfetto.dev\n",
		dir, (unsigned long long)(n / 1000000),
		(unsigned long long)(stream_bytes >> 20), dir);
}

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
	"-k sched,irq --all.  For a trace of more than about a million events\n"
	"it says so, and that Perfetto's UI shows them all (lowtrace export\n"
	"--format perfetto).\n"
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
	int rc = lt_cli_trace_to_file(REPORT, o.dir, o.output, &a,
				      lt_report_html);
	if (!rc)
		advise(o.dir);
	return rc;
}

LT_CLI_VERB(report_verb, .name = REPORT,
	    .summary = "write a trace as a self-contained HTML report",
	    .usage = report_usage, .run = report_run)
