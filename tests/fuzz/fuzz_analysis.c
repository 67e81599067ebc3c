/* SPDX-License-Identifier: MIT */
/*
 * fuzz_analysis.c - libFuzzer target for the analyses over a trace that
 * the reader accepts: the model and every `lowtrace analyze`, the Chrome
 * export and the HTML report, on traces whose field values are garbage
 * (negative tids and CPUs, times that jump, exits without entries).
 *
 * The input is fuzz_reader.c's: a metadata text, a NUL byte, then one
 * stream file, opened as two streams.  The trace is opened with
 * LT_READER_SKIP_BAD, so that a damaged packet does not end the run
 * before the analyses see the rest; each analysis rewinds it.  Output
 * goes to /dev/null: text for inputs of even size, the analyses' JSON
 * for odd.
 */
#include "analysis/analysis.h"
#include "analysis/perfetto.h"
#include "analysis/report.h"
#include "analysis/span.h"
#include "ctf/reader.h"
#include "fuzz_input.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink;

/* fmt: text, or the analyses' JSON documents (alternate inputs) */
static void run_all(lt_reader_t *t, enum lt_afmt fmt)
{
	struct lt_anchor a;
	char err[256];

	if (lt_anchor_parse("*:* if late_us > 1000", &a, err, sizeof(err)))
		abort();
	/* the condition language's evaluator on any decoded event */
	struct lt_anchor b;
	if (lt_anchor_parse("* if late_us > 1000 || (name == \"a*\" && "
			    "!(state == \"BUSY\")) || ratio < 1.5",
			    &b, err, sizeof(err)))
		abort();
	struct lt_latency_opts lo = { .anchor = a, .top = 3, .fmt = fmt };
	struct lt_jitter_opts jo = {
		.event = "*", .period_ns = 1000000, .top = 3, .fmt = fmt
	};
	lt_analyze_latency(t, &lo, sink);
	lt_reader_rewind(t);
	lt_analyze_jitter(t, &jo, sink);
	lt_reader_rewind(t);
	lt_analyze_sched(t, 3, fmt, sink);
	lt_reader_rewind(t);
	lt_analyze_cpu(t, 3, fmt, sink);
	lt_reader_rewind(t);
	lt_analyze_syscalls(t, 3, fmt, sink);
	lt_reader_rewind(t);
	lt_analyze_irq(t, 3, fmt, sink);
	lt_reader_rewind(t);
	/* spans: the pairs found by name (irq and softirq entries and
	 * exits), and a given pair explained */
	lt_analyze_spans(t, NULL, 3, sink);
	lt_reader_rewind(t);
	struct lt_latency_opts so = { .top = 3,
				      .span = "*_entry..*_exit",
				      .fmt = fmt };
	lt_analyze_latency(t, &so, sink);
	lt_reader_rewind(t);
	lt_export_chrome(t, &b, sink);
	lt_reader_rewind(t);
	struct lt_span_pair pair = { "*_entry", "*_exit" };
	struct lt_perfetto_opts po = { .anchor = &b, .span = &pair };
	lt_export_perfetto(t, &po, sink);
	lt_reader_rewind(t);
	lt_report_html(t, &a, sink);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in;
	char err[1024];

	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	fuzz_input_split(data, size, &in);
	struct lt_mem_stream ms[2] = {
		{ .name = "a", .data = in.stream, .len = in.slen },
		{ .name = "b", .data = in.stream, .len = in.slen }
	};
	struct lt_reader_opts o = { .flags = LT_READER_SKIP_BAD };
	lt_reader_t *t;
	if (lt_reader_open_mem(in.meta, in.mlen, ms, 2, &o, &t, err,
			       sizeof(err)) == 0) {
		run_all(t, size & 1 ? LT_AFMT_JSON : LT_AFMT_TEXT);
		lt_reader_close(t);
	}
	fuzz_input_free(&in);
	return 0;
}
