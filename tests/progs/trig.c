/* SPDX-License-Identifier: MIT */
/*
 * trig.c - traces numbered events and calls lt_trigger("boom") once in the
 * middle; with a second argument it then idles, tracing now and then,
 * for a test to drive `lowtrace status/snapshot/stop` meanwhile.  With a
 * third, it first sleeps that many times 1 ms, tracing before each sleep,
 * so that the kernel's scheduling fills a flight recorder before the
 * trigger.
 *	trig EVENTS [IDLE-MS [SLEEPS]]
 */
#include <lowtrace/lowtrace.h>
#include <lowtrace/tracepoint.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

LT_EVENT(trig, step, LT_INFO, LT_ARGS(uint64_t, i),
	 LT_FIELDS(LT_FIELD_INT(i, i)))

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000;
	long idle = argc > 2 ? atol(argv[2]) : 0;
	long sleeps = argc > 3 ? atol(argv[3]) : 0;
	for (long s = 0; s < sleeps; s++) {
		struct timespec d = { 0, 1000000 };
		lt_trace(trig, step, (uint64_t)s);
		nanosleep(&d, NULL);
	}
	for (uint64_t i = 0; i < n; i++) {
		lt_trace(trig, step, i);
		if (i == n / 2 && lt_trigger("boom") != 0)
			return 3;
	}
	for (long t = 0; t < idle; t += 10) {
		struct timespec d = { 0, 10000000 };
		nanosleep(&d, NULL);
		lt_trace(trig, step, n + (uint64_t)t);
	}
	return 0;
}
