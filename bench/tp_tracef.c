/* SPDX-License-Identifier: MIT */
/*
 * bench/tp_tracef.c - bench/tp_lowtrace.c with its event a marker,
 * lt_tracef("ev %d %d", ...), the same two 32-bit integers: what a
 * marker costs beside the LT_EVENT, and beside LTTng-UST's tracef() with
 * the same format and arguments (bench/compare-lttng.sh).
 */
#define TP_TRACEF 1
#include "tp_lowtrace.c"
