/* SPDX-License-Identifier: MIT */
/*
 * bench/tp_drop.c - the cost of an enabled event that a full discard
 * channel drops, through the tracepoint: run under `lowtrace record`, it
 * stops the recorder (its parent, SIGSTOP) so that nothing is consumed,
 * fills the buffers, times ROUNDS rounds of EVENTS events (the event and
 * loop of bench/tp_lowtrace.c, two 32-bit integers) on CPU 0, lets the recorder
 * go on (SIGCONT) and prints the best round after the first:
 *
 *	build/lowtrace record -o DIR -e 'bench:*' -- build/bench/tp_drop [EVENTS [ROUNDS]]
 *	tp_drop: a dropped event: min=... median=... ns (N rounds of M)
 *
 * The recorder's summary then counts the drops.  Refuses to run unless
 * its parent is the lowtrace command.
 */
#define _GNU_SOURCE
#include <lowtrace/tracepoint.h>

#include <signal.h>

LT_EVENT(bench, ev, LT_INFO, LT_ARGS(int32_t, a, int32_t, b),
	 LT_FIELDS(LT_FIELD_INT(a, a) LT_FIELD_INT(b, b)))

/* the loop of bench/compare-lttng.sh */
#define TP_HIT(i) lt_trace(bench, ev, (int32_t)(i), (int32_t)((i) ^ 0x55))
#include "tp_harness.h"

/* 1 if the parent process is the lowtrace command. */
static int parent_is_lowtrace(void)
{
	char path[64], comm[64] = "";
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)getppid());
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	return strcmp(comm, "lowtrace\n") == 0;
}

int main(int argc, char **argv)
{
	long events = argc > 1 ? atol(argv[1]) : 1000000;
	int rounds = argc > 2 ? atoi(argv[2]) : 7;
	if (events < 1 || rounds < 2 || rounds > 100) {
		fprintf(stderr, "usage: tp_drop [EVENTS [ROUNDS (2-100)]]\n");
		return 2;
	}
	if (!parent_is_lowtrace() || !lt_trace_enabled(bench, ev)) {
		fprintf(stderr, "tp_drop: run it as `lowtrace record -o DIR -e "
				"'bench:*' -- tp_drop`: it stops its parent\n");
		return 2;
	}
	bench_pin(0);
	pid_t recorder = getppid();
	if (kill(recorder, SIGSTOP) != 0) {
		perror("tp_drop: stopping the recorder");
		return 1;
	}
	double r[100];
	for (int k = 0; k < rounds; k++) {
		double t0 = bench_now_ns();
		bench_traced_loop(events);
		r[k] = (bench_now_ns() - t0) / (double)events;
	}
	kill(recorder, SIGCONT);
	/* the first round fills the buffers */
	qsort(r + 1, (size_t)(rounds - 1), sizeof(r[0]), bench_by_value);
	printf("tp_drop: a dropped event: min=%.2f median=%.2f ns (%d rounds "
	       "of %ld)\n",
	       r[1], r[1 + (rounds - 1) / 2], rounds - 1, events);
	return 0;
}
