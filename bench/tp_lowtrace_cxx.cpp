/* SPDX-License-Identifier: MIT */
/*
 * bench/tp_lowtrace_cxx.cpp - bench/tp_lowtrace.c compiled as C++ (the
 * same source, so the same event, session and loop): what an enabled
 * event costs from C++, beside the C build in bench/compare-lttng.sh.
 */
#include "tp_lowtrace.c"
