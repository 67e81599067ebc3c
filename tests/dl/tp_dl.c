/* SPDX-License-Identifier: MIT */
/*
 * tp_dl.c - a shared library with events of its own, opened with dlopen by
 * tests/test_probe.c.  It also defines demo:tick again with other fields,
 * which the registry must refuse.
 */
#include <lowtrace/tracepoint.h>

LT_EVENT(dl, ping, LT_INFO, LT_ARGS(int, n), LT_FIELDS(LT_FIELD_INT(n, n)))
LT_EVENT(demo, tick, LT_DEBUG_LINE, LT_ARGS(int, n),
	 LT_FIELDS(LT_FIELD_INT(n, n)))

int tp_dl_ping(int n);
int tp_dl_tick_enabled(void);

int tp_dl_ping(int n)
{
	lt_trace(dl, ping, n);
	return lt_trace_enabled(dl, ping) ? 1 : 0;
}

int tp_dl_tick_enabled(void)
{
	return lt_trace_enabled(demo, tick) ? 1 : 0;
}
