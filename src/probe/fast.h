/*
 * fast.h - what probe_x86_64.S (the call-free path of lt_probe_emit_words8/4)
 * knows of the C structures: field offsets and constants, checked against
 * the structures by static assertions in probe.c.  Preprocessor only, so
 * that the assembler can include it.
 */
#ifndef LT_PROBE_FAST_H
#define LT_PROBE_FAST_H

/*
 * LT_PROBE_FAST_ASM: x86_64 with glibc 2.35 or later (rseq registered for
 * every thread, __rseq_offset exported), the same condition as
 * LT_RING_HAVE_RSEQ in ring/rseq.h.
 */
#if defined(__x86_64__) && defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <features.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 35)
#define LT_PROBE_FAST_ASM 1
#endif
#endif
#endif

/* struct lt_event_desc (include/lowtrace/tracepoint.h) */
#define LT_FAST_DESC_TARGETS 0x30
/* struct lt_targets (probe/targets.h) */
#define LT_FAST_TARGETS_ID 0x00
#define LT_FAST_TARGETS_SEQ 0x18
/* struct lt_ring (ring/ring.h) */
#define LT_FAST_RING_NCPUS 0x20
#define LT_FAST_RING_SUBBUF_MASK 0x50
#define LT_FAST_RING_BUF_MASK 0x58
#define LT_FAST_RING_CPU 0x60 /* cpu[0].ctl; cpu[0].data 8 bytes on */
#define LT_FAST_RING_CPU_SHIFT 4 /* log2 sizeof(struct lt_ring_cpu) */
/* struct lt_ring_ctl: offset, then last_tsc */
#define LT_FAST_CTL_LAST 0x08
/* struct lt_clock_calib (clock/clock.h) */
#define LT_FAST_CALIB_SOURCE 0x00
#define LT_FAST_CLOCK_TSC 1
/* struct rseq (linux/rseq.h) */
#define LT_FAST_RSEQ_CPU_ID 0x04
#define LT_FAST_RSEQ_CS 0x08
/* the compact event header (ring/ring.h): id | timestamp << 5 */
#define LT_FAST_TS_SHIFT 5
#define LT_FAST_TS_LIMIT 0x7ffffff /* 2^LT_EV_TS_BITS - 1 */
/* a record's worst case beyond the sub-buffer offset: alignment (3) and
 * the compact header (4) */
#define LT_FAST_SLACK 7

#endif
