/* SPDX-License-Identifier: MIT */
/*
 * bench/filter.c - cost of an event filter on the tracing path.
 *
 * One thread traces an event of five fields (a string among them) into an
 * overwrite ring (nothing drains it), and the figure is ns per lt_trace()
 * call, the median of RUNS runs: with no filter, with a filter on fixed
 * fields that matches (so the event is also written), one that rejects
 * (nothing written), and one on a field after the string (its offset is
 * found by walking the payload).  A last line times lt_filter_match()
 * alone.  Usage: bench/filter [events] [runs]
 */
#include <lowtrace/tracepoint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "probe/filter.h"
#include "probe/probe.h"
#include "ring/ring.h"

LT_EVENT(bench, frame, LT_INFO,
	 LT_ARGS(uint32_t, id, int64_t, late_us, const char *, name, uint32_t,
		 after, double, load),
	 LT_FIELDS(LT_FIELD_INT(id, id) LT_FIELD_INT(late_us, late_us)
			   LT_FIELD_STRING(name, name)
				   LT_FIELD_INT(after, after)
					   LT_FIELD_FLOAT(load, load)))

static long n_events = 2000000;
static int runs = 5;

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median_run(void)
{
	double r[32];
	for (int k = 0; k < runs; k++) {
		double t0 = now_ns();
		for (long i = 0; i < n_events; i++)
			lt_trace(bench, frame, (uint32_t)i, 6000, "render",
				 (uint32_t)i & 7, 0.5);
		r[k] = (now_ns() - t0) / (double)n_events;
	}
	qsort(r, (size_t)runs, sizeof(r[0]), cmp_d);
	return r[runs / 2];
}

int main(int argc, char **argv)
{
	static const struct {
		const char *what, *filter;
	} cases[] = {
		{ "no filter", NULL },
		{ "late_us > 5000 && id != 3 (matches)",
		  "late_us > 5000 && id != 3" },
		{ "late_us < 5000 (rejects)", "late_us < 5000" },
		{ "after == 3 (after a string; 1 in 8)", "after == 3" },
	};
	struct lt_ring_config cfg = { .mode = LT_RING_OVERWRITE,
				      .n_subbufs = 4,
				      .subbuf_size = 1 << 16 };
	struct lt_ring *ring;
	char err[300];

	if (argc > 1)
		n_events = atol(argv[1]);
	if (argc > 2)
		runs = atoi(argv[2]);
	if (runs < 1 || runs > 32)
		runs = 5;
	if (lt_ring_create(&cfg, &ring))
		return 1;
	printf("bench/filter: %ld events per run, median of %d runs\n",
	       n_events, runs);
	/* warm up: the ring's pages, the caches */
	lt_probe_enable(&cfg, "bench:frame", LT_LOGLEVEL_ALL, ring);
	median_run();
	lt_probe_disable(&cfg, NULL);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		if (lt_probe_enable_filter(&cfg, "bench:frame", LT_LOGLEVEL_ALL,
					   ring, cases[c].filter, err,
					   sizeof(err))) {
			fprintf(stderr, "bench/filter: %s\n", err);
			return 1;
		}
		printf("  %-40s %6.1f ns/event\n", cases[c].what, median_run());
		lt_probe_disable(&cfg, NULL);
	}
	/* the evaluation alone, over one payload */
	char buf[64];
	struct lt__writer w = { buf, 0, sizeof(buf), 0 };
	uint32_t id = 7, after = 3;
	int64_t late = 6000;
	double load = 0.5;
	lt__put(&w, &id, 4);
	lt__put(&w, &late, 8);
	lt__put_string(&w, "render");
	lt__put(&w, &after, 4);
	lt__put(&w, &load, 8);
	const struct lt_field_desc *fd = lt__ev_bench__frame.fields();
	struct lt_filter *f;
	if (lt_filter_compile("late_us > 5000 && id != 3 && after == 3",
			      "bench:frame", fd, 5, &f, err, sizeof(err)))
		return 1;
	volatile int sink = 0;
	double t0 = now_ns();
	for (long i = 0; i < n_events; i++)
		sink += lt_filter_match(f, buf, w.off);
	printf("  %-40s %6.1f ns/call\n", "lt_filter_match, 3 comparisons",
	       (now_ns() - t0) / (double)n_events);
	lt_filter_free(f);
	lt_ring_destroy(ring);
	return sink == 0;
}
