/* SPDX-License-Identifier: MIT */
/*
 * fields_tp.h - the events of examples/fields.c: one of every field type.
 */
#ifndef EXAMPLES_FIELDS_TP_H
#define EXAMPLES_FIELDS_TP_H

#include <lowtrace/tracepoint.h>

LT_ENUM(demo, state,
	LT_ENUM_VALUE("IDLE", 0) LT_ENUM_VALUE("BUSY", 1)
		LT_ENUM_RANGE("WAITING", 5, 9))

LT_EVENT(demo, integers, LT_INFO,
	 LT_ARGS(int8_t, s8, uint8_t, u8, int16_t, s16, uint16_t, u16, int32_t,
		 s32, uint32_t, u32, int64_t, s64, uint64_t, u64),
	 LT_FIELDS(LT_FIELD_INT(s8, s8) LT_FIELD_INT(u8, u8)
			   LT_FIELD_INT(s16, s16) LT_FIELD_HEX(u16, u16)
				   LT_FIELD_INT(s32, s32) LT_FIELD_HEX(u32, u32)
					   LT_FIELD_INT(s64, s64)
						   LT_FIELD_INT(u64, u64)))

LT_EVENT(demo, mixed, LT_WARNING,
	 LT_ARGS(int, state, float, ratio, double, value, const char *, name),
	 LT_FIELDS(LT_FIELD_ENUM(demo, state, state, state)
			   LT_FIELD_FLOAT(ratio, ratio)
				   LT_FIELD_FLOAT(value, value)
					   LT_FIELD_STRING(name, name)))

LT_EVENT(demo, arrays, LT_DEBUG,
	 LT_ARGS(const uint8_t *, bytes, const int16_t *, samples, uint32_t, n,
		 const char *, comm),
	 LT_FIELDS(LT_FIELD_ARRAY(bytes, bytes, 4)
			   LT_FIELD_SEQUENCE(samples, samples, n)
				   LT_FIELD_CHARS(comm, comm, 16)))

LT_EVENT_NOARGS(demo, tick, LT_DEBUG_LINE)

#endif
