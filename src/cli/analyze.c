/*
 * analyze.c - `lowtrace analyze latency|jitter DIR ...`: the analyses of
 * src/analysis/ over a recorded trace (docs/analysis.md).
 */
#include "analysis/analysis.h"
#include "cli/cli.h"
#include "ctf/reader.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define ANALYZE "analyze"

static const char analyze_usage[] =
	"usage: lowtrace analyze latency DIR [--anchor 'EVENT[ if FIELD OP "
	"N]']\n"
	"                                    [--by FIELD] [--top N]\n"
	"       lowtrace analyze jitter DIR --event EVENT --period DURATION "
	"[--top N]\n"
	"       lowtrace analyze sched DIR [--top N]\n"
	"\n"
	"latency: for each of the N worst anchors (default demo:late, ranked "
	"by\n"
	"  --by, default late_us), walks back to when the thread was due and\n"
	"  says where the time went: its wake-up and waker, time runnable and\n"
	"  who ran on its CPU meanwhile, time blocked and who woke it, irq and\n"
	"  softirq time, and a verdict.  Needs kernel events: record with\n"
	"  `lowtrace record -k sched,irq --all -- CMD`.\n"
	"jitter: ranks the worst expiries of a periodic EVENT (default\n"
	"  demo:tick) by the interval between consecutive events of a thread\n"
	"  less --period (10ms, 500us, 1s).\n"
	"\n"
	"sched: per thread, the wait for a CPU after each wake-up (count, "
	"mean,\n"
	"  worst, histogram by decade), the threads with the worst wait "
	"first.\n"
	"\n"
	"  --top N   how many to show (default 5 for latency, 10 otherwise)\n";

static int open_trace(const char *dir, lt_trace_t **t)
{
	char err[512];
	if (lt_trace_open(dir, NULL, t, err, sizeof(err)) < 0)
		return lt_cli_error(ANALYZE, "cannot open trace %s: %s", dir,
				    err);
	return 0;
}

static int analyze_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "anchor", required_argument, NULL, 'a' },
		{ "by", required_argument, NULL, 'b' },
		{ "top", required_argument, NULL, 'n' },
		{ "event", required_argument, NULL, 'e' },
		{ "period", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	const char *anchor = "demo:late", *by = NULL, *event = "demo:tick";
	const char *period = NULL;
	unsigned top = 0;
	int c;

	if (lt_cli_wants_help(argc, argv) || argc < 2) {
		fputs(analyze_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	const char *what = argv[1];
	optind = 1;
	while ((c = getopt_long(argc - 1, argv + 1, "", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			anchor = optarg;
			break;
		case 'b':
			by = optarg;
			break;
		case 'n':
			top = (unsigned)atoi(optarg);
			break;
		case 'e':
			event = optarg;
			break;
		case 'p':
			period = optarg;
			break;
		default:
			return lt_cli_error(ANALYZE, "bad option (see lowtrace "
						     "help analyze)");
		}
	}
	if (optind != argc - 2)
		return lt_cli_error(ANALYZE,
				    "one trace directory expected "
				    "(lowtrace analyze %s DIR)",
				    what);
	const char *dir = argv[1 + optind];
	lt_trace_t *t;
	int ret;
	if (strcmp(what, "latency") == 0) {
		struct lt_latency_opts o = { .by = by, .top = top };
		char err[256];
		if (lt_anchor_parse(anchor, &o.anchor, err, sizeof(err)) != 0)
			return lt_cli_error(ANALYZE, "--anchor: %s", err);
		if (open_trace(dir, &t))
			return 1;
		ret = lt_analyze_latency(t, &o, stdout);
	} else if (strcmp(what, "jitter") == 0) {
		struct lt_jitter_opts o = { .event = event, .top = top };
		o.period_ns = period ? lt_parse_duration(period) : 10000000;
		if (o.period_ns <= 0)
			return lt_cli_error(ANALYZE,
					    "bad --period '%s' (e.g. 10ms)",
					    period);
		if (open_trace(dir, &t))
			return 1;
		ret = lt_analyze_jitter(t, &o, stdout);
	} else if (strcmp(what, "sched") == 0) {
		if (open_trace(dir, &t))
			return 1;
		ret = lt_analyze_sched(t, top ? top : 10, stdout);
	} else {
		return lt_cli_error(ANALYZE,
				    "unknown analysis '%s' (latency, jitter or "
				    "sched)",
				    what);
	}
	if (ret < 0)
		lt_cli_error(ANALYZE, "reading %s: %s", dir, lt_trace_error(t));
	lt_trace_close(t);
	return ret < 0 ? 1 : 0;
}

LT_CLI_VERB(analyze_verb, .name = ANALYZE,
	    .summary = "explain latencies in a trace (latency, jitter, sched)",
	    .usage = analyze_usage, .run = analyze_run)
