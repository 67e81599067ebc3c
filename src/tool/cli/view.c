/* SPDX-License-Identifier: MIT */
/*
 * view.c - `lowtrace view`: prints a trace's events as text, one line per
 * event (viewer.c), merged across streams in time order; --follow prints
 * those of a recording as it is written (follow.c).  --stats decodes
 * every event and field without printing them.
 */
#define _GNU_SOURCE
#include "cli/cli.h"
#include "cli/follow.h"
#include "cli/viewer.h"
#include "ctf/reader.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define VIEW LT_VIEW

static const char view_usage[] =
	"usage: lowtrace view DIR [-e PATTERN[,PATTERN...]] [--begin TIME] "
	"[--end TIME]\n"
	"                     [--no-delta] [--fields] [--stats] [--skip-bad]\n"
	"                     [--follow]\n"
	"\n"
	"Prints the events of the CTF 1.8 trace in DIR in time order, one "
	"line each:\n"
	"  [HH:MM:SS.nnnnnnnnn] (+S.nnnnnnnnn) HOST cpu N name: { field = "
	"value, ... }\n"
	"When DIR holds no metadata file, every trace below it is read (an "
	"LTTng\n"
	"session: kernel/, ust/uid/UID/64-bit/, ust/pid/...) and their events "
	"merged\n"
	"by time since the epoch, each on its own clock.  Traces of one uuid "
	"are one\n"
	"trace, as babeltrace2 reads them: all are read with the metadata "
	"(clock,\n"
	"events) of the one with the most classes, the first on a tie.\n"
	"The time of day is local time (set TZ=UTC for UTC); the delta is to "
	"the\n"
	"previous printed event.  HOST is what babeltrace2 prints there: the "
	"env block's\n"
	"hostname, procname and (vpid), those the event's trace has, joined by "
	"':'\n"
	"(host; host:app:(4242) in an LTTng-UST per-process trace; left out "
	"with\n"
	"none).  N is the packet context's cpu_id (0 without one).\n"
	"Then, as babeltrace2 prints them, each in braces: the stream's event "
	"context\n"
	"and the event's context when the trace has them (LTTng's vtid, "
	"procname, ...),\n"
	"then the payload.  Values: integers in their base (hex as 0x..), "
	"enums as\n"
	"( \"LABEL\" : container = N ), floats as %g, strings and char "
	"arrays quoted\n"
	"with escapes, arrays and sequences as [ [0] = v, ... ].\n"
	"A marker (lt_tracef) shows its text instead of its fields:\n"
	"  ... cpu N lt_tracef:FILE:LINE: frame 7 late by 120 us\n"
	"\n"
	"  -e PATTERNS   only events whose name matches one of the patterns "
	"(comma\n"
	"                separated, `lowtrace help patterns`: 'myapp:*', "
	"'*:frame_*'),\n"
	"                each with an optional condition on its fields, as "
	"record's -e\n"
	"                and the analyses' anchors (`lowtrace help "
	"conditions`):\n"
	"                'myapp:frame if late_us > 5000 && name == \"a*\"'\n"
	"  --begin TIME  only events at or after TIME\n"
	"  --end TIME    only events at or before TIME\n"
	"                TIME is nanoseconds since the epoch (an integer), "
	"seconds\n"
	"                since the epoch with a fraction (1764740000.5), or "
	"a local\n"
	"                time of day HH:MM:SS[.frac] on the day the trace "
	"starts\n"
	"  --no-delta    leave out the (+S.nnnnnnnnn) column\n"
	"  --fields      markers' fields instead of their text\n"
	"  --stats       decode every event without printing; print counts\n"
	"  --skip-bad    a damaged packet is skipped, with a warning naming "
	"its file\n"
	"                and offset, and the exit status is then 1: the "
	"default, but\n"
	"                with --follow, which stops at one without it\n"
	"  -f, --follow  DIR is being recorded (lowtrace record -o DIR, or "
	"LOWTRACE_TRACE):\n"
	"                print its events in time order as their packets "
	"reach the\n"
	"                disk, a second or so behind (the recording's "
	"switch timer,\n"
	"                --switch-timer of lowtrace record, plus 300 ms), "
	"and end when\n"
	"                the recording ends, having printed the lines "
	"`lowtrace view DIR`\n"
	"                prints of the finished trace.  A DIR not there yet "
	"is waited\n"
	"                for; a recording already over is printed whole.  The "
	"times\n"
	"                printed before the end may differ by some ns from "
	"the finished\n"
	"                trace's when the recorder calibrates its clock "
	"again at the end\n"
	"                (a note says by how much).\n";

/*
 * Reads every value of ev, as a printer would: lt_event_field() with the
 * event's places kept in registers (ev a copy whose address is not taken,
 * not loaded again after each field).  Returns the sum of the values and
 * lengths, which keeps the reads from being left out.
 */
static inline __attribute__((always_inline)) uint64_t
sum_fields(const struct lt_event *ev, const int room)
{
	const struct lt_event_class *ec = ev->cls;
	const struct lt_field_class *fcs = ec->fields;
	const uint8_t *vop = ec->vop;
	const unsigned char *base = ev->base;
	const uint32_t *off = ev->off, *cnt = ev->count;
	const unsigned n = ec->nfields;
	struct lt_value v = { 0 };
	uint64_t sum = 0;
	for (unsigned i = 0; i < n; i++) {
		lt_field_read(ev, i, &fcs[i], vop[i], base, off, cnt, room, &v);
		sum += v.u + v.len;
	}
	return sum;
}

/*
 * The --stats pass from ev, an event taken, to the trace's end: counts
 * the events taken by class, sums their values (sum_fields()) and keeps
 * the last one's time.  all: every event is taken (then no call per
 * event to ask).  Returns 0 or lt_reader_next()'s error.
 */
static inline __attribute__((always_inline)) int
stats_loop(lt_reader_t *t, const struct lt_view *vw, const unsigned char *sel,
	   const int all, const struct lt_event *ev, uint64_t *counts,
	   uint64_t *sum, int64_t *last)
{
	uint64_t acc = 0;
	int64_t ns;
	int r;
	do {
		ns = ev->ns;
		counts[ev->cls->index]++;
		/* the field loop made twice, room known in each: no test
		 * of it per field */
		acc += ev->room ? sum_fields(ev, 1) : sum_fields(ev, 0);
		while ((r = lt_reader_next(t, &ev)) > 0 && !all &&
		       !lt_view_takes(vw, sel, ev))
			;
	} while (r > 0);
	*sum = acc;
	*last = ns;
	return r;
}

static int run_stats(lt_reader_t *t, const struct lt_view *vw,
		     const unsigned char *sel)
{
	unsigned nc = lt_reader_nclasses(t);
	uint64_t *counts = calloc(nc ? nc : 1, sizeof(*counts));
	uint64_t total = 0, fields = 0, sum = 0;
	int64_t first = 0, last = 0;
	const struct lt_event *ev;
	struct timespec t0, t1;
	int r;

	if (!counts)
		return lt_cli_error(VIEW, "out of memory");
	/* every event taken: no call per event to ask */
	int all = vw->lo == INT64_MIN && vw->hi == INT64_MAX;
	for (unsigned i = 0; i < nc; i++)
		all &= sel[i] == 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* the first event taken, then the others by a loop made for all
	 * taken or not */
	while ((r = lt_reader_next(t, &ev)) > 0 && !all &&
	       !lt_view_takes(vw, sel, ev))
		;
	if (r > 0) {
		first = ev->ns;
		r = all ? stats_loop(t, vw, sel, 1, ev, counts, &sum, &last) :
			  stats_loop(t, vw, sel, 0, ev, counts, &sum, &last);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (r < 0) {
		free(counts);
		return lt_view_iter_error(t, r);
	}
	/* the events and fields by class, not counts more per event */
	for (unsigned i = 0; i < nc; i++) {
		total += counts[i];
		fields += counts[i] * lt_reader_class(t, i)->nfields;
	}
	double secs = (double)(t1.tv_sec - t0.tv_sec) +
		      (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("events: %llu\n", (unsigned long long)total);
	printf("fields: %llu\n", (unsigned long long)fields);
	if (total)
		printf("span: %lld .. %lld ns since the epoch\n",
		       (long long)first, (long long)last);
	for (unsigned i = 0; i < nc; i++) {
		const struct lt_event_class *ec = lt_reader_class(t, i);
		if (counts[i])
			printf("  %-32s %12llu  (stream %u, id %llu)\n",
			       ec->name, (unsigned long long)counts[i],
			       ec->stream_id, (unsigned long long)ec->id);
	}
	uint64_t discarded = 0;
	for (unsigned i = 0; i < lt_reader_nstreams(t); i++)
		discarded += lt_stream_discarded(lt_reader_stream(t, i));
	printf("streams: %u\n", lt_reader_nstreams(t));
	printf("discarded by the tracer: %llu\n",
	       (unsigned long long)discarded);
	printf("skipped packets: %llu\n",
	       (unsigned long long)lt_reader_skipped_packets(t));
	printf("decode: %.3f s, %.0f events/s (checksum %llx)\n", secs,
	       secs > 0 ? (double)total / secs : 0.0,
	       (unsigned long long)(sum & 0xffff));
	free(counts);
	return 0;
}

static int parse_args(int argc, char **argv, struct lt_view_opts *vo)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--no-delta")) {
			vo->no_delta = 1;
		} else if (!strcmp(a, "--fields")) {
			vo->fields = 1;
		} else if (!strcmp(a, "--stats") || !strcmp(a, "--count")) {
			vo->stats = 1;
		} else if (!strcmp(a, "--skip-bad")) {
			vo->skip_bad = 1;
		} else if (!strcmp(a, "--follow") || !strcmp(a, "-f")) {
			vo->follow = 1;

		} else if (!strcmp(a, "-e") || !strcmp(a, "--begin") ||
			   !strcmp(a, "--end")) {
			if (!v)
				return lt_cli_error(VIEW,
						    "%s needs a value (see "
						    "`lowtrace help view`)",
						    a);
			i++;
			if (!strcmp(a, "-e"))
				vo->patterns = argv[i];
			else if (!strcmp(a, "--begin"))
				vo->begin = argv[i];
			else
				vo->end = argv[i];
		} else if (a[0] == '-' && a[1]) {
			return lt_cli_error(VIEW,
					    "unknown option '%s' (see "
					    "`lowtrace help view`)",
					    a);
		} else if (!vo->dir) {
			vo->dir = a;
		} else {
			return lt_cli_error(VIEW,
					    "more than one trace directory "
					    "(give one DIR)");
		}
	}
	if (!vo->dir)
		return lt_cli_error(VIEW, "no trace directory given (usage: "
					  "lowtrace view DIR)");
	if (vo->follow && vo->stats)
		return lt_cli_error(VIEW, "--follow prints events: it does "
					  "not take --stats");
	return 0;
}

static int view_run(int argc, char **argv)
{
	struct lt_view_opts vo = { 0 };
	struct lt_view v;
	char err[1024];
	lt_reader_t *t = NULL;
	unsigned char *sel = NULL;
	int rc;

	if (parse_args(argc, argv, &vo))
		return 1;
	if (lt_view_init(&v, &vo)) {
		lt_view_fini(&v);
		return 1;
	}
	if (vo.follow) {
		rc = lt_view_follow(&v);
		lt_view_fini(&v);
		return rc;
	}
	/* a damaged packet is stepped over, said, and makes the exit
	 * status 1 once every event that can be read is printed */
	struct lt_reader_opts to = {
		.flags = LT_READER_SKIP_BAD,
		.warn = lt_view_on_warning,
		.warn_arg = &v,
	};
	int r = lt_reader_open(vo.dir, &to, &t, err, sizeof(err));
	if (r < 0) {
		rc = lt_cli_error(VIEW, "%s (is %s a CTF trace?)", err, vo.dir);
		goto out;
	}
	sel = lt_view_select(&v, t);
	if (!sel || lt_view_bind(&v, t) < 0) {
		rc = lt_cli_error(VIEW, "out of memory");
		goto out;
	}
	if ((vo.begin || vo.end) && !lt_reader_has_clock(t)) {
		rc = lt_cli_error(VIEW,
				  "%s has no clock: its events have no times "
				  "for --begin and --end",
				  vo.dir);
		goto out;
	}
	if ((vo.begin || vo.end) && lt_view_times(&v, lt_reader_begin_ns(t))) {
		rc = 1;
		goto out;
	}
	if (vo.stats)
		rc = run_stats(t, &v, sel);
	else
		rc = lt_view_print(&v, t, sel);
	uint64_t skipped = lt_reader_skipped_packets(t);
	if (skipped && !rc)
		rc = lt_cli_error(VIEW,
				  "%llu damaged packet%s skipped (said above); "
				  "the events before and after %s are printed",
				  (unsigned long long)skipped,
				  skipped == 1 ? "" : "s",
				  skipped == 1 ? "it" : "them");
out:
	free(sel);
	lt_reader_close(t);
	lt_view_fini(&v);
	return rc;
}

LT_CLI_VERB(view_verb, .name = VIEW,
	    .summary = "print a trace's events in time order",
	    .usage = view_usage, .run = view_run)
