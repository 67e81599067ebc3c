/*
 * fast.h - what probe_x86_64.S (the call-free path of lt_probe_emit_words8/4)
 * knows of the C structures: field offsets and constants, checked against
 * the structures by static assertions in probe.c.  Preprocessor only, so
 * that the assembler can include it.
 */
#ifndef LT_PROBE_FAST_H
#define LT_PROBE_FAST_H

/* the ring's, rseq's and the event header's: the LT_SEQ_* constants of
 * the inline sequence, which this path shares */
#include <lowtrace/tp_seq.h>

/*
 * LT_PROBE_FAST_ASM: x86_64 with glibc 2.35 or later (rseq registered for
 * every thread, __rseq_offset exported), the same condition as
 * LT_RING_HAVE_RSEQ in ring/rseq.h.
 */
#ifdef LT__X86_RSEQ
#define LT_PROBE_FAST_ASM 1
#endif

/* struct lt_event_desc (include/lowtrace/tracepoint.h) */
#define LT_FAST_DESC_TARGETS 0x30
/* struct lt_targets (probe/targets.h) */
#define LT_FAST_TARGETS_ID 0x00
#define LT_FAST_TARGETS_SEQ 0x18

#endif
