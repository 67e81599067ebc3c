/* SPDX-License-Identifier: MIT */
/*
 * bench/lttng/tp_lttng_tp.h - the LTTng-UST provider of tp_lttng: one
 * event with two 32-bit integer fields, like bench:ev of tp_lowtrace.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER bench_lttng

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./tp_lttng_tp.h"

#if !defined(BENCH_TP_LTTNG_TP_H) || \
	defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_TP_LTTNG_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(
	bench_lttng, ev, LTTNG_UST_TP_ARGS(int32_t, a, int32_t, b),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int32_t, a, a)
				    lttng_ust_field_integer(int32_t, b, b)))

#endif

#include <lttng/tracepoint-event.h>
