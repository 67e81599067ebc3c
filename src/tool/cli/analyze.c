/* SPDX-License-Identifier: MIT */
/*
 * analyze.c - `lowtrace analyze latency|jitter|sched|cpu|syscalls|irq
 * DIR ...`: the analyses of
 * src/tool/analysis/ over a recorded trace (docs/analysis.md).
 */
#include "analysis/analysis.h"
#include "analysis/span.h"
#include "cli/analysis_opts.h"
#include "cli/analyze.h"
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ANALYZE "analyze"

static const char analyze_usage[] =
	"usage: lowtrace analyze latency DIR [--anchor 'EVENT[ if "
	"CONDITION]']\n"
	"                                    [--by FIELD] [--top N]\n"
	"       lowtrace analyze latency DIR --span 'START..END' [--min "
	"DURATION]\n"
	"       lowtrace analyze jitter DIR --event EVENT --period DURATION "
	"[--top N]\n"
	"       lowtrace analyze spans DIR [--span 'START..END'] [--top N]\n"
	"       lowtrace analyze sched|cpu|syscalls|irq DIR [--top N]\n"
	"\n"
	"latency: for each of the N worst anchors (default demo:late, ranked "
	"by\n"
	"  --by, default late_us), walks back to when the thread was due and\n"
	"  says where the time went: its wake-up and waker, time runnable and\n"
	"  who ran on its CPU meanwhile, time blocked and who woke it, irq and\n"
	"  softirq time, and a verdict.  Needs kernel events: record with\n"
	"  `lowtrace record -k sched,irq --all -- CMD`.\n"
	"  EVENT is a pattern (`lowtrace help patterns`; markers by place:\n"
	"  'lt_tracef:src/net.c:*') or format:GLOB, markers by format\n"
	"  ('format:frame * late*'); CONDITION as `lowtrace help conditions`.\n"
	"latency --span: pairs START and END events per thread (nesting\n"
	"  respected) and explains the slowest spans from start to end the\n"
	"  same way, with the start's fields and the spans inside (e.g.\n"
	"  postgresql:query__start..postgresql:query__done; --min 100ms).\n"
	"spans: per kind of span (the --span pair, or pairs found by name:\n"
	"  X__start/X__done, X__entry/X__return, ...), count, total, mean,\n"
	"  worst and a histogram; then the longest spans.\n"
	"jitter: ranks the worst expiries of a periodic EVENT (default\n"
	"  demo:tick) by the interval between consecutive events of a thread\n"
	"  less --period (10ms, 500us, 1s).\n"
	"\n"
	"sched: per thread, the wait for a CPU after each wake-up (count, "
	"mean,\n"
	"  worst, histogram by decade), the threads with the worst wait "
	"first.\n"
	"cpu: CPU time per thread (its share of the trace, per CPU) and per "
	"CPU\n"
	"  (busy, idle, irq, softirq, its busiest threads).  Needs -k sched.\n"
	"syscalls: time in system calls per syscall (calls, total, mean, "
	"worst,\n"
	"  histogram), the slowest calls, the threads with the most time, the\n"
	"  calls still open.  Needs -k syscalls.\n"
	"irq: interrupt and softirq handler durations per irq line and vector,\n"
	"  the longest windows and the threads they interrupted.  Needs -k "
	"irq.\n"
	"\n"
	"  --top N   how many to show (default 5 for latency, 10 otherwise)\n"
	"  --json    the results as one JSON document (all but spans; its\n"
	"            schema: docs/analysis-json.md)\n";

/* Figures near lost events can be wrong (a switch missed): says so. */
static void warn_discarded(lt_reader_t *t, const char *dir)
{
	uint64_t n = lt_trace_discarded(t);
	if (n)
		fprintf(stderr,
			"lowtrace: %s: warning: %s: the tracer discarded %llu "
			"events, so figures near the losses may be off; record "
			"with bigger buffers (--channel "
			"kernel:subbufs=16) or fewer events (fewer -k "
			"presets, a process tree rather than --all)\n",
			ANALYZE, dir, (unsigned long long)n);
}

/* `lowtrace analyze` from its argv (argv[0] "analyze"), its results
 * written to out, as JSON where json or --json says so; the exit status. */
static int analyze(int argc, char **argv, int json, FILE *out)
{
	struct lt_aopts opt;

	if (lt_aopts_parse(&opt, ANALYZE,
			   LT_AOPT_WHAT | LT_AOPT_ANCHOR | LT_AOPT_ANALYSES |
				   LT_AOPT_JSON,
			   argc, argv))
		return 1;
	const char *what = opt.what, *dir = opt.dir, *span = opt.span;
	unsigned top = opt.top;
	enum lt_afmt fmt = json || opt.json ? LT_AFMT_JSON : LT_AFMT_TEXT;
	lt_reader_t *t;
	int ret;
	if (strcmp(what, "latency") == 0) {
		struct lt_latency_opts o = {
			.by = opt.by, .top = top, .span = span, .fmt = fmt
		};
		char err[256];
		struct lt_span_pair pair;
		if (lt_aopts_anchor(&opt, ANALYZE, &o.anchor))
			return 1;
		if (span && lt_span_parse(span, &pair, err, sizeof(err)))
			return lt_cli_error(ANALYZE, "--span: %s", err);
		o.min_ns = opt.min ? lt_parse_duration(opt.min) : 0;
		if (o.min_ns < 0)
			return lt_cli_error(ANALYZE,
					    "bad --min '%s' (e.g. 100ms)",
					    opt.min);
		if (lt_cli_open_trace(ANALYZE, dir, &t))
			return 1;
		ret = lt_analyze_latency(t, &o, out);
	} else if (strcmp(what, "spans") == 0) {
		if (fmt == LT_AFMT_JSON)
			return lt_cli_error(ANALYZE,
					    "spans has no --json form (latency "
					    "--span explains spans in JSON)");
		char err[256];
		struct lt_span_pair pair;
		if (span && lt_span_parse(span, &pair, err, sizeof(err)))
			return lt_cli_error(ANALYZE, "--span: %s", err);
		if (lt_cli_open_trace(ANALYZE, dir, &t))
			return 1;
		ret = lt_analyze_spans(t, span, top ? top : 10, out);
		if (ret == -ENODATA) {
			lt_cli_error(ANALYZE,
				     "%s has no spans%s%s (start and end "
				     "events on one thread: record USDT "
				     "markers with `lowtrace record -u`)",
				     dir, span ? " " : "", span ? span : "");
			lt_reader_close(t);
			return 1;
		}
	} else if (strcmp(what, "jitter") == 0) {
		struct lt_jitter_opts o = { .event = opt.event,
					    .top = top,
					    .fmt = fmt };
		o.period_ns =
			opt.period ? lt_parse_duration(opt.period) : 10000000;
		if (o.period_ns <= 0)
			return lt_cli_error(ANALYZE,
					    "bad --period '%s' (e.g. 10ms)",
					    opt.period);
		if (lt_cli_open_trace(ANALYZE, dir, &t))
			return 1;
		ret = lt_analyze_jitter(t, &o, out);
	} else {
		static const struct {
			const char *name, *needs;
			int (*fn)(lt_reader_t *, unsigned, enum lt_afmt,
				  FILE *);
		} simple[] = {
			{ "sched", "sched", lt_analyze_sched },
			{ "cpu", "sched", lt_analyze_cpu },
			{ "syscalls", "syscalls", lt_analyze_syscalls },
			{ "irq", "irq", lt_analyze_irq },
		};
		unsigned i = 0, n = sizeof(simple) / sizeof(simple[0]);
		while (i < n && strcmp(what, simple[i].name) != 0)
			i++;
		if (i == n)
			return lt_cli_error(ANALYZE,
					    "unknown analysis '%s' (latency, "
					    "spans, jitter, sched, cpu, "
					    "syscalls or irq)",
					    what);
		if (lt_cli_open_trace(ANALYZE, dir, &t))
			return 1;
		ret = simple[i].fn(t, top ? top : 10, fmt, out);
		if (ret == -ENODATA) {
			lt_cli_error(ANALYZE,
				     "%s has no %s events for `analyze %s`: "
				     "record with `lowtrace record -k %s`",
				     dir, simple[i].needs, what,
				     simple[i].needs);
			lt_reader_close(t);
			return 1;
		}
	}
	int skipped = 0;
	if (ret < 0)
		lt_cli_error(ANALYZE, "reading %s: %s", dir,
			     lt_reader_error(t));
	else
		warn_discarded(t, dir);
	if (ret >= 0)
		skipped = lt_cli_trace_skipped(ANALYZE, t);
	lt_reader_close(t);
	return ret < 0 || skipped ? 1 : 0;
}

static int analyze_run(int argc, char **argv)
{
	if (lt_cli_wants_help(argc, argv) || argc < 2) {
		fputs(analyze_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	return analyze(argc, argv, 0, stdout);
}

int lt_analyze_json(const char *trace, int argc, char **argv, FILE *out)
{
	if (argc < 1 || !trace)
		return lt_cli_error(ANALYZE, "no analysis or no trace given");
	char **av = calloc((size_t)argc + 3, sizeof(*av));
	if (!av)
		return lt_cli_error(ANALYZE, "out of memory");
	/* as `lowtrace analyze WHAT OPTIONS... TRACE` */
	av[0] = ANALYZE;
	for (int i = 0; i < argc; i++)
		av[i + 1] = argv[i];
	av[argc + 1] = (char *)trace;
	int ret = analyze(argc + 2, av, 1, out);
	free(av);
	return ret;
}

LT_CLI_VERB(analyze_verb, .name = ANALYZE,
	    .summary = "explain latencies in a trace (latency, jitter, sched, "
		       "cpu, syscalls, irq)",
	    .usage = analyze_usage, .run = analyze_run)
