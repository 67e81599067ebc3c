/* SPDX-License-Identifier: MIT */
/*
 * model_pass.c - the trace model's pass alone, for bench/model.sh: opens
 * a trace, feeds every event in time order to lt_model_feed(), then
 * lt_model_finish(), and prints what it saw, its time and its peak memory.
 *
 * usage: model_pass DIR [--decode-only]
 *
 * --decode-only reads the events (lt_reader_next()) without the model, to
 * tell the reader's share from the model's.  Output, one line:
 *   events N sched N slices N threads N inferred N wall S cpu S
 *   rss_max_kib N rss_anon_kib N rss_file_kib N
 * rss_max is getrusage's peak; the anon and file parts are /proc's
 * RssAnon and RssFile at the end (the mapped trace counts as file).
 */
#include "analysis/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static uint64_t nslices;

static void on_slice(void *arg, unsigned cpu, const struct lt_cslice *s)
{
	(void)arg;
	(void)cpu;
	(void)s;
	nslices++;
}

static double now_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* RssAnon and RssFile of /proc/self/status, in KiB. */
static void rss_split(long *anon, long *file)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	*anon = *file = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "RssAnon:", 8))
			*anon = strtol(line + 8, NULL, 10);
		else if (!strncmp(line, "RssFile:", 8))
			*file = strtol(line + 8, NULL, 10);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	char err[1024];
	lt_reader_t *t;
	struct lt_model m;
	const struct lt_event *ev;
	uint64_t n = 0;
	int decode_only = argc == 3 && !strcmp(argv[2], "--decode-only");

	if (argc < 2 || argc > 3 || (argc == 3 && !decode_only)) {
		fprintf(stderr, "usage: model_pass DIR [--decode-only]\n");
		return 2;
	}
	double w0 = now_s(CLOCK_MONOTONIC),
	       c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	int r = lt_reader_open(argv[1], NULL, &t, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "model_pass: %s\n", err);
		return 1;
	}
	if (lt_model_init(&m, t) != 0) {
		fprintf(stderr, "model_pass: out of memory\n");
		return 1;
	}
	m.on_slice = on_slice;
	if (decode_only) {
		while ((r = lt_reader_next(t, &ev)) > 0)
			n++;
	} else {
		while ((r = lt_reader_next(t, &ev)) > 0)
			lt_model_feed(&m, ev);
		lt_model_finish(&m);
		n = m.nevents;
	}
	if (r < 0) {
		fprintf(stderr, "model_pass: %s\n", lt_reader_error(t));
		return 1;
	}
	double w1 = now_s(CLOCK_MONOTONIC),
	       c1 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	uint64_t inferred = 0;
	for (unsigned i = 0; i < m.ncpus; i++)
		inferred += m.cpus[i].ninferred;
	struct rusage ru;
	long anon, file;
	getrusage(RUSAGE_SELF, &ru);
	rss_split(&anon, &file);
	printf("events %llu sched %llu slices %llu threads %u inferred %llu "
	       "wall %.3f cpu %.3f rss_max_kib %ld rss_anon_kib %ld "
	       "rss_file_kib %ld\n",
	       (unsigned long long)n, (unsigned long long)m.nsched,
	       (unsigned long long)nslices, m.nthreads,
	       (unsigned long long)inferred, w1 - w0, c1 - c0, ru.ru_maxrss,
	       anon, file);
	lt_model_free(&m);
	lt_reader_close(t);
	return 0;
}
