/* SPDX-License-Identifier: MIT */
/*
 * bench/tp_lowtrace.c - one run of lowtrace's tracepoint, for
 * bench/compare-lttng.sh beside bench/lttng/tp_lttng.c.  Compiled as C
 * here and as C++ by bench/tp_lowtrace_cxx.cpp: the same event and loop
 * from either language.
 *
 * The event has two 32-bit integer fields, like bench_lttng:ev.
 *
 *	tp_lowtrace enabled THREADS N DIR   session on DIR, 4 x 1 MiB
 *					    sub-buffers per CPU, discard;
 *					    "ns=... events=... lost=..."
 *					    (TP_OVERWRITE=1: flight-recorder
 *					    mode, no consumer I/O)
 *	tp_lowtrace disabled 1 N            "disabled=... empty=..."
 *	tp_lowtrace floor 1 N               "rdtsc=..."
 */
#include <lowtrace/lowtrace.h>
#include <lowtrace/tracepoint.h>

/* bench/tp_tracef.c: the same two fields from a marker, lt_tracef */
#ifdef TP_TRACEF
#define TP_HIT(i) lt_tracef("ev %d %d", (int32_t)(i), (int32_t)((i) ^ 0x55))
#define TP_PATTERN "lt_tracef:*"
#else
LT_EVENT(bench, ev, LT_INFO, LT_ARGS(int32_t, a, int32_t, b),
	 LT_FIELDS(LT_FIELD_INT(a, a) LT_FIELD_INT(b, b)))

#define TP_HIT(i) lt_trace(bench, ev, (int32_t)(i), (int32_t)((i) ^ 0x55))
#define TP_PATTERN "bench:ev"
#endif
#include "tp_harness.h"

static void check(int rc, const char *what)
{
	if (rc) {
		fprintf(stderr, "tp_lowtrace: %s: %s\n", what, lt_strerror(rc));
		exit(1);
	}
}

static void run_enabled(int nthreads, long n, const char *dir)
{
	/* assigned, not designated: bench/tp_lowtrace_cxx.cpp is this file
	 * in C++11 */
	struct lt_session_options opts;
	memset(&opts, 0, sizeof(opts));
	opts.channel.subbuf_size = 1 << 20;
	opts.channel.n_subbufs = 4;
	const char *ow = getenv("TP_OVERWRITE");
	opts.channel.overwrite = ow && *ow == '1';
	struct lt_session_stats st;
	int err = 0;

	lt_session_t *s = lt_session_create(dir, &opts, &err);
	if (!s)
		check(err ? err : -1, "lt_session_create");
	check(lt_session_enable(s, TP_PATTERN, NULL, NULL), "enable");
	check(lt_session_start(s), "start");
	double ns = bench_run(nthreads, n);
	check(lt_session_stop(s), "stop");
	check(lt_session_get_stats(s, &st), "stats");
	lt_session_destroy(s);
	printf("ns=%.3f events=%ld lost=%llu bytes=%llu\n", ns, n * nthreads,
	       (unsigned long long)st.events_lost,
	       (unsigned long long)st.bytes_written);
}

int main(int argc, char **argv)
{
	const char *mode;
	int nthreads;
	long n;

	bench_args(argc, argv, &mode, &nthreads, &n);
	if (!strcmp(mode, "enabled")) {
		if (argc < 5) {
			fprintf(stderr, "tp_lowtrace: enabled needs a DIR\n");
			return 2;
		}
		run_enabled(nthreads, n, argv[4]);
	} else if (!strcmp(mode, "disabled")) {
		bench_disabled(n);
	} else {
		bench_floor(n);
	}
	return 0;
}
