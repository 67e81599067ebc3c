/* SPDX-License-Identifier: MIT */
/*
 * periodic_tp.h - the events of examples/periodic.c: one per timer
 * expiry, an anchor for the late ones, and the lock holder's hold.
 */
#ifndef EXAMPLES_PERIODIC_TP_H
#define EXAMPLES_PERIODIC_TP_H

#include <lowtrace/tracepoint.h>

/* Every wake-up of the timer thread: how late it ran, in microseconds. */
LT_EVENT(demo, tick, LT_INFO,
	 LT_ARGS(uint32_t, seq, int64_t, late_us, int32_t, tid),
	 LT_FIELDS(LT_FIELD_INT(seq, seq) LT_FIELD_INT(late_us, late_us)
			   LT_FIELD_INT(tid, tid)))

/* The anchor: a wake-up later than the threshold. */
LT_EVENT(demo, late, LT_WARNING,
	 LT_ARGS(uint32_t, seq, int64_t, late_us, int32_t, tid),
	 LT_FIELDS(LT_FIELD_INT(seq, seq) LT_FIELD_INT(late_us, late_us)
			   LT_FIELD_INT(tid, tid)))

/* The lock holder took the lock for hold_us. */
LT_EVENT(demo, hold, LT_INFO, LT_ARGS(int64_t, hold_us, int32_t, tid),
	 LT_FIELDS(LT_FIELD_INT(hold_us, hold_us) LT_FIELD_INT(tid, tid)))

#endif
