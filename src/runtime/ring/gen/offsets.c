/* SPDX-License-Identifier: MIT */
/*
 * offsets.c - the layout the restartable sequences written in assembly
 * read (the call sites' inline sequence in lowtrace/tp_seq.h,
 * src/runtime/probe/probe_x86_64.S), in the kernel's asm-offsets style: compiled
 * with -S only, never linked; each LT_OFFSET() leaves a line
 * "->NAME VALUE" in the assembly, which mk/asm-offsets.mk turns into
 * include/lowtrace/ring_offsets.h.  In a directory of its own, out of the
 * library's sources (one directory below src/).
 */
#define LT__SEQ_INTERNALS 1
#include <stddef.h>

#include "probe/targets.h"
#include "ring/ring_write.h"

#include <lowtrace/tracepoint.h>
#ifndef LT_HAVE_RSEQ
/* the same header on every architecture: the kernel's layout of the
 * rseq area, which is the same everywhere */
#include <linux/rseq.h>
#endif

/* an immediate operand as a bare number: %c where the compiler has it,
 * %0 where it prints a constant bare anyway (riscv64) */
#if defined(__x86_64__) || defined(__aarch64__)
#define LT_OFFSET_OP "%c0"
#else
#define LT_OFFSET_OP "%0"
#endif

#define LT_OFFSET(name, value)                                                \
	__asm__ volatile("\n.ascii \"->" #name " " LT_OFFSET_OP " /* " #value \
			 " */\"" ::"i"((long)(value)))

/* what the sequences assume without a constant of their own */
_Static_assert(offsetof(struct lt_ring_cpu, ctl) == 0,
	       "a CPU's control block first");
_Static_assert((sizeof(struct lt_ring_cpu) &
		(sizeof(struct lt_ring_cpu) - 1)) == 0,
	       "struct lt_ring_cpu: a power of two (a shift indexes it)");
_Static_assert(offsetof(struct lt_ring_ctl, offset) == 0 &&
		       offsetof(struct lt_ring_ctl, last_tsc) == 8,
	       "the 16-byte commit stores (offset, last_tsc)");
_Static_assert(LT_EV_HDR_COMPACT == 4 && LT_EV_ALIGN == 4,
	       "a 32-bit compact header, 4-byte aligned");

void lt_ring_offsets(void);
void lt_ring_offsets(void)
{
	/* struct lt_ring (src/runtime/ring/ring.h) */
	LT_OFFSET(LT_SEQ_RING_NCPUS, offsetof(struct lt_ring, n_cpus));
	LT_OFFSET(LT_SEQ_RING_SUBBUF_MASK,
		  offsetof(struct lt_ring, subbuf_mask));
	LT_OFFSET(LT_SEQ_RING_BUF_MASK, offsetof(struct lt_ring, buf_mask));
	LT_OFFSET(LT_SEQ_RING_CPU, offsetof(struct lt_ring, cpu[0].ctl));
	LT_OFFSET(LT_SEQ_RING_CPU_DATA, offsetof(struct lt_ring, cpu[0].data));
	LT_OFFSET(LT_SEQ_RING_CPU_SHIFT,
		  __builtin_ctz(sizeof(struct lt_ring_cpu)));
	/* struct lt_ring_ctl: offset at 0, then */
	LT_OFFSET(LT_SEQ_CTL_LAST, offsetof(struct lt_ring_ctl, last_tsc));
	/* struct rseq (linux/rseq.h) */
	LT_OFFSET(LT_SEQ_RSEQ_CPU_ID, offsetof(struct rseq, cpu_id));
	LT_OFFSET(LT_SEQ_RSEQ_CS, offsetof(struct rseq, rseq_cs));
	/* the compact event header (src/runtime/format/event_header.h) */
	LT_OFFSET(LT_SEQ_TS_SHIFT, LT_EV_ID_BITS);
	LT_OFFSET(LT_SEQ_TS_LIMIT, (1ul << LT_EV_TS_BITS) - 1);
	LT_OFFSET(LT_SEQ_SLACK, LT_EV_SLACK);
	/* struct lt_event_desc (lowtrace/tracepoint.h) and struct
	 * lt_targets (src/runtime/probe/targets.h), for probe_x86_64.S */
	LT_OFFSET(LT_SEQ_DESC_TARGETS, offsetof(struct lt_event_desc, targets));
	LT_OFFSET(LT_SEQ_TARGETS_ID, offsetof(struct lt_targets, id));
	LT_OFFSET(LT_SEQ_TARGETS_SEQ, offsetof(struct lt_targets, seq));
}
