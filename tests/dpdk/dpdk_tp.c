/* SPDX-License-Identifier: MIT */
/* dpdk_tp.c - registers tests/dpdk/dpdk_tp.h's trace points with DPDK's
 * trace library: rte_trace_point_register.h, included first, turns the
 * RTE_TRACE_POINT bodies into the field lists DPDK writes into the CTF
 * metadata. */
#include <rte_trace_point_register.h>

#include "dpdk_tp.h"

RTE_TRACE_POINT_REGISTER(lt_dpdk_trace_ints, lt_dpdk.ints)
RTE_TRACE_POINT_REGISTER(lt_dpdk_trace_mix, lt_dpdk.mix)
