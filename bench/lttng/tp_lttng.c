/* SPDX-License-Identifier: MIT */
/*
 * bench/lttng/tp_lttng.c - one run of LTTng-UST's tracepoint, for
 * bench/compare-lttng.sh beside bench/tp_lowtrace.c.
 *
 *	tp_lttng enabled THREADS N    "ns=... events=..."; the session
 *				      (create, channel, event, start) is
 *				      the script's, made before this runs
 *	tp_lttng disabled 1 N         "disabled=... empty=..."
 *	tp_lttng floor 1 N            "rdtsc=..."
 *
 * Built by the script: cc -I bench -I bench/lttng tp_lttng.c
 * tp_lttng_provider.c -llttng-ust -ldl; with -DTP_TRACEF (tp_lttng_tracef)
 * the event is LTTng-UST's tracef("ev %d %d", ...), beside lowtrace's
 * lt_tracef (bench/tp_tracef.c).
 */
#include "tp_lttng_tp.h"

#ifdef TP_TRACEF
#include <lttng/tracef.h>
#define TP_HIT(i) \
	lttng_ust_tracef("ev %d %d", (int32_t)(i), (int32_t)((i) ^ 0x55))
#define TP_ENABLED() (lttng_ust_tracepoint_lttng_ust_tracef___event.state)
#define TP_NAME "lttng_ust_tracef:event"
#else
#define TP_HIT(i)                                           \
	lttng_ust_tracepoint(bench_lttng, ev, (int32_t)(i), \
			     (int32_t)((i) ^ 0x55))
#define TP_ENABLED() lttng_ust_tracepoint_enabled(bench_lttng, ev)
#define TP_NAME "bench_lttng:ev"
#endif
#include "tp_harness.h"

/*
 * LTTng-UST's constructor waits for the session daemon to register the
 * application and enable its events; wait a little more in case it timed
 * out, then give up rather than time a disabled tracepoint.
 */
static void wait_enabled(void)
{
	for (int k = 0; k < 500; k++) {
		if (TP_ENABLED())
			return;
		struct timespec d = { 0, 10000000 };
		nanosleep(&d, NULL);
	}
	fprintf(stderr, "tp_lttng: " TP_NAME " never got enabled "
			"(is a session started with it?)\n");
	exit(1);
}

int main(int argc, char **argv)
{
	const char *mode;
	int nthreads;
	long n;

	bench_args(argc, argv, &mode, &nthreads, &n);
	if (!strcmp(mode, "enabled")) {
		wait_enabled();
		double ns = bench_run(nthreads, n);
		printf("ns=%.3f events=%ld\n", ns, n * nthreads);
	} else if (!strcmp(mode, "disabled")) {
		if (TP_ENABLED()) {
			fprintf(stderr, "tp_lttng: " TP_NAME " is enabled\n");
			return 1;
		}
		bench_disabled(n);
	} else {
		bench_floor(n);
	}
	return 0;
}
