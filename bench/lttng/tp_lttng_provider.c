/* SPDX-License-Identifier: MIT */
/*
 * bench/lttng/tp_lttng_provider.c - the probes and definitions of the
 * bench_lttng provider, built into tp_lttng.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "tp_lttng_tp.h"
