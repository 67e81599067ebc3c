/* SPDX-License-Identifier: MIT */
/*
 * test_cxx_tp.h - the events of tests/test_cxx.cpp and test_cxx_tu2.cpp:
 * every field kind, defined in C++, one provider header for two
 * translation units.
 */
#ifndef TESTS_TEST_CXX_TP_H
#define TESTS_TEST_CXX_TP_H

#include <cstdio>
#include <lowtrace/tracepoint.h>

enum class cxx_color : uint8_t { red = 0, green = 1, blue = 7 };

LT_ENUM(cxxtp, color,
	LT_ENUM_VALUE("RED", 0) LT_ENUM_VALUE("GREEN", 1)
		LT_ENUM_RANGE("BLUEISH", 5, 9))

LT_EVENT(cxxtp, ints, LT_INFO,
	 LT_ARGS(int8_t, s8, uint8_t, u8, int16_t, s16, uint16_t, u16, int32_t,
		 s32, uint32_t, u32, int64_t, s64, uint64_t, u64),
	 LT_FIELDS(LT_FIELD_INT(s8, s8) LT_FIELD_INT(u8, u8)
			   LT_FIELD_INT(s16, s16) LT_FIELD_HEX(u16, u16)
				   LT_FIELD_INT(s32, s32) LT_FIELD_HEX(u32, u32)
					   LT_FIELD_INT(s64, s64)
						   LT_FIELD_INT(u64, u64)))

/* 12 bytes: the call site's inline sequence where there is one */
LT_EVENT(cxxtp, small, LT_INFO, LT_ARGS(uint32_t, id, int64_t, v),
	 LT_FIELDS(LT_FIELD_INT(id, id) LT_FIELD_INT(v, v)))

LT_EVENT(cxxtp, colored, LT_INFO, LT_ARGS(cxx_color, c, int, n),
	 LT_FIELDS(LT_FIELD_ENUM(cxxtp, color, c, c) LT_FIELD_INT(n, n)))

LT_EVENT(cxxtp, floats, LT_INFO, LT_ARGS(float, f, double, d),
	 LT_FIELDS(LT_FIELD_FLOAT(f, f) LT_FIELD_FLOAT(d, d)))

LT_EVENT(cxxtp, strings, LT_INFO, LT_ARGS(const char *, lit, const char *, s),
	 LT_FIELDS(LT_FIELD_STRING(lit, lit) LT_FIELD_STRING(s, s)))

LT_EVENT(cxxtp, arrays, LT_INFO,
	 LT_ARGS(const uint16_t *, fixed, const int32_t *, seq, uint32_t, n,
		 const char *, comm),
	 LT_FIELDS(LT_FIELD_ARRAY(fixed, fixed, 3)
			   LT_FIELD_SEQUENCE(seq, seq, n)
				   LT_FIELD_CHARS(comm, comm, 8)))

LT_EVENT(cxxtp, where, LT_INFO, LT_ARGS(const char *, from, int, i),
	 LT_FIELDS(LT_FIELD_STRING(from, from) LT_FIELD_INT(i, i)))

/* defined inside a namespace, called there */
namespace cxxns
{
LT_EVENT(cxxns, inner, LT_INFO, LT_ARGS(int, i, double, x),
	 LT_FIELDS(LT_FIELD_INT(i, i) LT_FIELD_FLOAT(x, x)))
}

/* a marker, and its text by printf on stdout: test_cxx.sh compares */
#define CXX_MARK(...)                     \
	do {                              \
		lt_tracef(__VA_ARGS__);   \
		std::printf(__VA_ARGS__); \
		std::putchar('\n');       \
	} while (0)

/* test_cxx_tu2.cpp */
void cxx_tu2_emit(int round);

#endif
