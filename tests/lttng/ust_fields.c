/* SPDX-License-Identifier: MIT */
/*
 * tests/lttng/ust_fields.c - emits N ltt_fields:ints and ltt_fields:mix
 * events (ust_fields_tp.h) from two threads, for tests/test_lttng_ust.sh.
 *
 * usage: ust_fields N
 */
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "ust_fields_tp.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long n_events;

static void *emit(void *arg)
{
	static const char *const names[] = { "alpha", "beta-gamma", "",
					     "with \"quotes\" and \\" };
	long base = (long)(intptr_t)arg;
	for (long i = 0; i < n_events; i++) {
		int16_t v[4] = { (int16_t)i, (int16_t)-i, 7, -32768 };
		const char *s = names[i % 4];
		unsigned n = 0;
		while (s[n])
			n++;
		lttng_ust_tracepoint(ltt_fields, ints, (int)(i + base),
				     (uint64_t)i * 0x123456789ull);
		lttng_ust_tracepoint(ltt_fields, mix, (int)(i + base), s, v, n);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	n_events = argc > 1 ? atol(argv[1]) : 100;
	if (pthread_create(&th, NULL, emit, (void *)(intptr_t)1000))
		return 1;
	emit(NULL);
	pthread_join(th, NULL);
	return 0;
}
