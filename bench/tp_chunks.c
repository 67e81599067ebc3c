/*
 * bench/tp_chunks.c - the cost of one enabled event in chunks, to see it
 * through the noise of a shared machine: the event of bench/tp_lowtrace.c
 * (two 32-bit integers), 4 sub-buffers of 1 MiB per CPU, on one thread
 * pinned to CPU 0; CHUNKS chunks of EVENTS events, each timed alone; the
 * minimum, the 10th percentile and the median chunk, in ns per event.
 * A chunk that the host's other load slowed lands in the upper half and
 * leaves the median alone, while bench/compare-lttng.sh's runs (one
 * timed loop each) take it in.
 *
 *	build/bench/tp_chunks DIR [CHUNKS [EVENTS]]
 *
 * prints, for a flight-recorder session (no consumer I/O) and then for a
 * discard session whose consumer writes DIR/discard:
 *	overwrite min=... p10=... median=... lost=...
 *	discard   min=... p10=... median=... lost=...
 */
#define _GNU_SOURCE
#include <lowtrace/lowtrace.h>
#include <lowtrace/tracepoint.h>

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

LT_EVENT(bench, ev, LT_INFO, LT_ARGS(int32_t, a, int32_t, b),
	 LT_FIELDS(LT_FIELD_INT(a, a) LT_FIELD_INT(b, b)))

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void run(const char *mode, const char *dir, int overwrite, int chunks,
		long events)
{
	struct lt_session_options o = {
		.channel = { .subbuf_size = 1 << 20,
			     .n_subbufs = 4,
			     .overwrite = overwrite },
	};
	int err = 0;
	lt_session_t *s = lt_session_create(dir, &o, &err);
	if (!s || lt_session_enable(s, "bench:ev", NULL, NULL) ||
	    lt_session_start(s)) {
		fprintf(stderr, "tp_chunks: session on %s: %s\n", dir,
			lt_strerror(err ? err : -1));
		exit(1);
	}
	double *r = calloc((size_t)chunks, sizeof(*r));
	if (!r)
		exit(1);
	for (int c = 0; c < chunks; c++) {
		double t0 = now_ns();
		for (long i = 0; i < events; i++) {
			lt_trace(bench, ev, (int32_t)i, (int32_t)(i ^ 0x55));
			__asm__ __volatile__("" ::: "memory");
		}
		r[c] = (now_ns() - t0) / (double)events;
	}
	struct lt_session_stats st;
	lt_session_stop(s);
	lt_session_get_stats(s, &st);
	lt_session_destroy(s);
	qsort(r, (size_t)chunks, sizeof(*r), by_value);
	printf("%-9s min=%.2f p10=%.2f median=%.2f lost=%llu\n", mode, r[0],
	       r[chunks / 10], r[chunks / 2],
	       (unsigned long long)st.events_lost);
	free(r);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: tp_chunks DIR [CHUNKS [EVENTS]]\n");
		return 2;
	}
	int chunks = argc > 2 ? atoi(argv[2]) : 200;
	long events = argc > 3 ? atol(argv[3]) : 50000;
	if (chunks < 1 || events < 1) {
		fprintf(stderr, "tp_chunks: CHUNKS and EVENTS must be > 0\n");
		return 2;
	}
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/overwrite", argv[1]);
	run("overwrite", dir, 1, chunks, events);
	snprintf(dir, sizeof(dir), "%s/discard", argv[1]);
	run("discard", dir, 0, chunks, events);
	return 0;
}
