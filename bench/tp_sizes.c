/* SPDX-License-Identifier: MIT */
/*
 * bench/tp_sizes.c - the cost of an enabled event by the size and kind of
 * its payload, through the tracepoint, in a flight-recorder session (no
 * consumer I/O) with 4 sub-buffers of 1 MiB per CPU, on CPU 0:
 *
 *	two 32-bit integers             8 bytes, in two registers
 *	u32, s64 and a 6-letter string  19 bytes, through memory
 *	four 64-bit integers            32 bytes, through memory
 *
 *	build/bench/tp_sizes DIR [EVENTS [ROUNDS]]
 *
 * prints, per event kind, the best and the median round in ns per event;
 * the rounds of the three kinds alternate.
 */
#define _GNU_SOURCE
#include <lowtrace/lowtrace.h>
#include <lowtrace/tracepoint.h>

#include "bench_util.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

LT_EVENT(bench, ev, LT_INFO, LT_ARGS(int32_t, a, int32_t, b),
	 LT_FIELDS(LT_FIELD_INT(a, a) LT_FIELD_INT(b, b)))
LT_EVENT(bench, frame, LT_INFO,
	 LT_ARGS(uint32_t, id, int64_t, late, const char *, name),
	 LT_FIELDS(LT_FIELD_INT(id, id) LT_FIELD_INT(late, late)
			   LT_FIELD_STRING(name, name)))
LT_EVENT(bench, quad, LT_INFO,
	 LT_ARGS(uint64_t, a, uint64_t, b, uint64_t, c, uint64_t, d),
	 LT_FIELDS(LT_FIELD_INT(a, a) LT_FIELD_INT(b, b) LT_FIELD_INT(c, c)
			   LT_FIELD_INT(d, d)))

static __attribute__((noinline)) void two_ints(long n)
{
	for (long i = 0; i < n; i++)
		lt_trace(bench, ev, (int32_t)i, (int32_t)(i ^ 0x55));
}

static __attribute__((noinline)) void with_string(long n)
{
	for (long i = 0; i < n; i++)
		lt_trace(bench, frame, (uint32_t)i, i * 3, "render");
}

static __attribute__((noinline)) void four_u64(long n)
{
	for (long i = 0; i < n; i++)
		lt_trace(bench, quad, (uint64_t)i, (uint64_t)i + 1,
			 (uint64_t)i + 2, (uint64_t)i + 3);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: tp_sizes DIR [EVENTS [ROUNDS]]\n");
		return 2;
	}
	long events = argc > 2 ? atol(argv[2]) : 2000000;
	int rounds = argc > 3 ? atoi(argv[3]) : 7;
	if (events < 1 || rounds < 1 || rounds > 100) {
		fprintf(stderr, "tp_sizes: EVENTS > 0, ROUNDS 1-100\n");
		return 2;
	}
	bench_pin(0);
	struct lt_session_options o = {
		.channel = { .subbuf_size = 1 << 20,
			     .n_subbufs = 4,
			     .overwrite = 1 },
	};
	int err = 0;
	lt_session_t *s = lt_session_create(argv[1], &o, &err);
	if (!s || lt_session_enable(s, "bench:*", NULL, NULL) ||
	    lt_session_start(s)) {
		fprintf(stderr, "tp_sizes: session on %s: %s\n", argv[1],
			lt_strerror(err ? err : -1));
		return 1;
	}
	static const char *name[] = { "two 32-bit integers (8 bytes)",
				      "u32, s64, string (19 bytes)",
				      "four 64-bit integers (32 bytes)" };
	void (*loop[])(long) = { two_ints, with_string, four_u64 };
	double r[3][100];
	for (int k = 0; k < rounds; k++)
		for (int j = 0; j < 3; j++) {
			double t0 = bench_now_ns();
			loop[j](events);
			r[j][k] = (bench_now_ns() - t0) / (double)events;
		}
	lt_session_stop(s);
	lt_session_destroy(s);
	for (int j = 0; j < 3; j++) {
		qsort(r[j], (size_t)rounds, sizeof(r[j][0]), bench_by_value);
		printf("%-34s min=%.2f median=%.2f ns\n", name[j], r[j][0],
		       r[j][rounds / 2]);
	}
	return 0;
}
