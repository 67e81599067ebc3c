/* SPDX-License-Identifier: MIT */
/*
 * test_cxx_tu2.cpp - the second translation unit of tests/test_cxx.cpp:
 * the same provider header, so its events have a descriptor here too.
 */
#include <string>

#include "test_cxx_tp.h"

void cxx_tu2_emit(int round)
{
	std::string s = "tu2-" + std::to_string(round);
	lt_trace(cxxtp, where, s.c_str(), round);
	lt_trace(cxxtp, small, 2000u + (uint32_t)round, -(int64_t)round);
	CXX_MARK("tu2 %s round %d", s.c_str(), round);
}
