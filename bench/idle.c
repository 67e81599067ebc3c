/* SPDX-License-Identifier: MIT */
/*
 * idle.c - a program that links liblowtrace, registers an event and then
 * does nothing: what being attachable costs a program nobody attaches
 * (bench/attach_idle.sh, docs/bench-attach.md).
 *	idle SECONDS
 * Traces its event once (disabled: nobody is attached), sleeps SECONDS
 * in one nanosleep() and exits.  Built with -DIDLE_PLAIN it does the same
 * without liblowtrace, for comparison.
 */
#include <stdlib.h>
#include <time.h>

#ifndef IDLE_PLAIN
#include <lowtrace/tracepoint.h>

LT_EVENT(idle, started, LT_INFO, LT_ARGS(int, argc),
	 LT_FIELDS(LT_FIELD_INT(argc, argc)))
#endif

int main(int argc, char **argv)
{
	double s = argc > 1 ? atof(argv[1]) : 0;
#ifndef IDLE_PLAIN
	lt_trace(idle, started, argc);
#endif
	struct timespec d = { (time_t)s,
			      (long)((s - (double)(time_t)s) * 1e9) };
	nanosleep(&d, NULL);
	return 0;
}
