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
/* the ring's, rseq's and the event header's: the LT_SEQ_* constants of
 * the inline sequence, which this path shares */
#include <lowtrace/tp_seq.h>

/* struct lt_clock_calib (clock/clock.h) */
#define LT_FAST_CALIB_SOURCE 0x00
#define LT_FAST_CLOCK_TSC 1

#endif
