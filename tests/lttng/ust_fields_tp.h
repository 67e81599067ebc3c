/* SPDX-License-Identifier: MIT */
/*
 * tests/lttng/ust_fields_tp.h - an LTTng-UST provider with every field
 * type LTTng-UST has, for tests/test_lttng_ust.sh: integers signed and
 * unsigned of each size, in hex, an enum with ranges, floats, strings,
 * char arrays and sequences as text, integer arrays and sequences.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ltt_fields

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./ust_fields_tp.h"

#if !defined(TESTS_UST_FIELDS_TP_H) || \
	defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TESTS_UST_FIELDS_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

LTTNG_UST_TRACEPOINT_ENUM(
	ltt_fields, state,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("IDLE", 0)
			lttng_ust_field_enum_value("BUSY", 1)
				lttng_ust_field_enum_range("RANGE", 5, 9)))

LTTNG_UST_TRACEPOINT_EVENT(
	ltt_fields, ints, LTTNG_UST_TP_ARGS(int, i, uint64_t, u),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int8_t, s8, (int8_t)-i) lttng_ust_field_integer(
			uint8_t, u8,
			(uint8_t)i) lttng_ust_field_integer(int16_t, s16,
							    (int16_t)(-i * 300))
			lttng_ust_field_integer(uint16_t, u16,
						(uint16_t)(i * 300))
				lttng_ust_field_integer(int32_t, s32,
							-i * 100000)
					lttng_ust_field_integer_hex(
						uint32_t, x32,
						(uint32_t)i * 0x10001u)
						lttng_ust_field_integer(
							int64_t, s64,
							-(int64_t)u)
							lttng_ust_field_integer_hex(
								uint64_t, x64,
								u)))

LTTNG_UST_TRACEPOINT_EVENT(
	ltt_fields, mix,
	LTTNG_UST_TP_ARGS(int, i, const char *, s, const int16_t *, v, unsigned,
			  n),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_enum(ltt_fields, state, int, st,
				     i % 10) lttng_ust_field_float(float, f,
								   (float)i / 4)
			lttng_ust_field_float(
				double, d,
				(double)i / 3) lttng_ust_field_string(name, s)
				lttng_ust_field_array_text(char, tag, s, 8)
					lttng_ust_field_sequence_text(
						char, text, s, unsigned, n)
						lttng_ust_field_array(int16_t,
								      arr, v, 3)
							lttng_ust_field_sequence(
								int16_t, seq, v,
								unsigned,
								n % 4)))

#endif

#include <lttng/tracepoint-event.h>
