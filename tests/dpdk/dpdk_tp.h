/* SPDX-License-Identifier: MIT */
/* dpdk_tp.h - the trace points tests/dpdk/dpdk_trace.c defines with DPDK's
 * rte_trace_point API, one per field type DPDK's tracer emits: integers of
 * every width and sign, int, long, size_t, float, double, a pointer and a
 * bounded string.  Included by dpdk_tp.c to register them and by
 * dpdk_trace.c to emit them. */
#ifndef LT_TESTS_DPDK_TP_H
#define LT_TESTS_DPDK_TP_H

#include <rte_trace_point.h>

RTE_TRACE_POINT(lt_dpdk_trace_ints,
		RTE_TRACE_POINT_ARGS(uint8_t u8v, uint16_t u16v, uint32_t u32v,
				     uint64_t u64v, int8_t i8v, int16_t i16v,
				     int32_t i32v, int64_t i64v),
		rte_trace_point_emit_u8(u8v);
		rte_trace_point_emit_u16(u16v); rte_trace_point_emit_u32(u32v);
		rte_trace_point_emit_u64(u64v); rte_trace_point_emit_i8(i8v);
		rte_trace_point_emit_i16(i16v); rte_trace_point_emit_i32(i32v);
		rte_trace_point_emit_i64(i64v);)

RTE_TRACE_POINT(lt_dpdk_trace_mix,
		RTE_TRACE_POINT_ARGS(int seq, long lv, size_t sz, float fv,
				     double dv, const void *ptr,
				     const char *name),
		rte_trace_point_emit_int(seq);
		rte_trace_point_emit_long(lv); rte_trace_point_emit_size_t(sz);
		rte_trace_point_emit_float(fv); rte_trace_point_emit_double(dv);
		rte_trace_point_emit_ptr(ptr);
		rte_trace_point_emit_string(name);)

#endif
