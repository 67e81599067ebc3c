/* SPDX-License-Identifier: MIT */
/*
 * lowtrace/tp_seq.h - internals of lowtrace/tracepoint.h: not to be
 * included directly (it stops the build if it is).  Include
 * <lowtrace/tracepoint.h>.
 *
 * The restartable sequence that an enabled call site of a fixed-size
 * event (4 to 16 bytes of payload) runs inline, and the platform
 * condition of every rseq sequence of lowtrace, the call sites' and the
 * library's (LT_HAVE_RSEQ).  The sequence is the common case of
 * lt_probe_emit_words8/4() (src/runtime/probe/probe_x86_64.S, which explains the
 * protocol), without the call and the checks that the registry makes once
 * instead:
 *
 *   - the ring comes from the descriptor's seq field, which the registry
 *     sets only for an event whose only target is an rseq ring with no
 *     filter, a compact id, the trace clock on the TSC, this process
 *     registered for membarrier's rseq command, and a call site compiled
 *     against this layout (the descriptor's layout byte);
 *   - the payload's length is the call site's constant.
 *
 * Where the descriptor names no ring the call site calls
 * lt_probe_emit_words8/4(), which sorts it out; where the sequence
 * declines the record (a sub-buffer to switch, a full buffer, a timestamp
 * too far from the last) or is restarted, lt_probe_emit_words_slow(), the
 * general path's rare cases.  Where a record goes and its compact header
 * are those of src/runtime/ring/record.h and src/runtime/format/event_header.h (lt_ring_try_compact(), lt_ev_compact()).
 * Unlike the out-of-line sequence this one clears the thread's rseq_cs
 * before it leaves: its descriptor is in the caller's image, which dlclose
 * may unmap.
 *
 * The part the assembler can read comes first: the library's .S includes
 * it (src/runtime/probe/probe_x86_64.S).  The library's own sources define
 * LT__SEQ_INTERNALS before including it, as tracepoint.h does.
 */
#ifndef LOWTRACE_TP_SEQ_H
#define LOWTRACE_TP_SEQ_H

#ifndef LT__SEQ_INTERNALS
#error "lowtrace/tp_seq.h is internal to lowtrace/tracepoint.h: include <lowtrace/tracepoint.h>"
#endif

/*
 * The layout version a call site was compiled against, kept in its
 * descriptor's layout byte.  The registry publishes a ring in seq only to
 * a descriptor whose layout byte equals its own; raise it with any change
 * of lowtrace/ring_offsets.h, or of struct lt_event_desc.
 */
#define LT_SEQ_LAYOUT 1

/* LT_SEQ_RING_*, LT_SEQ_CTL_*, LT_SEQ_RSEQ_*, LT_SEQ_TS_*, LT_SEQ_SLACK */
#include <lowtrace/ring_offsets.h>

/* what precedes every abort handler: ud1 with glibc's RSEQ_SIG as its
 * displacement, the signature the kernel checks */
#define LT_SEQ_ABORT_SIG        \
	.byte 0x0f, 0xb9, 0x3d; \
	.long 0x53053053

#define LT__STR(...) LT__STR_(__VA_ARGS__)
#define LT__STR_(...) #__VA_ARGS__

/*
 * LT_HAVE_RSEQ: this platform has lowtrace's restartable sequences, the
 * library's (src/runtime/ring/rseq.h, src/runtime/probe/probe_x86_64.S) and the call
 * sites' below: x86_64 with SSE registers (the commit is a 16-byte
 * store; not under -mgeneral-regs-only) and glibc 2.35 or later (rseq
 * registered for every thread, __rseq_offset exported).  A call site
 * runs the inline sequence where it is defined and the includer has not
 * defined LT_NO_INLINE_SEQ (every call site then calls the library).
 */
#if defined(__x86_64__) && defined(__SSE2__) && defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <features.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 35)
#define LT_HAVE_RSEQ 1
#endif
#endif
#endif

#if defined(LT_HAVE_RSEQ) && !defined(__ASSEMBLER__)
/*
 * Every restartable sequence in C (here and in src/runtime/ring/rseq.h): the
 * descriptor of the sequence between labels 1 and 2 with its abort
 * handler at 4, and the store that makes it the active one (rax
 * clobbered); then the abort handler, which jumps to label.
 */
#define LT__RSEQ_ENTER(rseq_cs)              \
	".pushsection __rseq_cs, \"aw\"\n\t" \
	".balign 32\n\t"                     \
	"3: .long 0, 0\n\t"                  \
	".quad 1f, (2f - 1f), 4f\n\t"        \
	".popsection\n\t"                    \
	"leaq 3b(%%rip), %%rax\n\t"          \
	"movq %%rax, " rseq_cs "\n\t"
#define LT__RSEQ_ABORT(label)                              \
	".pushsection __rseq_failure, \"ax\"\n\t" LT__STR( \
		LT_SEQ_ABORT_SIG) "\n\t"                   \
				  "4:\n\t"                 \
				  "jmp " label "\n\t"      \
				  ".popsection\n\t"
#endif

#if defined(LT_HAVE_RSEQ) && !defined(LT_NO_INLINE_SEQ) && \
	!defined(__ASSEMBLER__)
#include <stddef.h>
#include <stdint.h>

/* glibc's offset of the thread's struct rseq from the thread pointer
 * (declared as <sys/rseq.h> does, C linkage in C++ too) */
#ifdef __cplusplus
extern "C" const ptrdiff_t __rseq_offset;
#else
extern const ptrdiff_t __rseq_offset;
#endif

/*
 * The sequence, in AT&T syntax, for one call site; STOREX and STOREY
 * store the payload's first and last word at p + 4 and p + len (the last
 * word's end), p the record in r9.  Operands: seq and id the descriptor's
 * fields, lo and hi the words, len the payload's length, off
 * __rseq_offset; lt__call and lt__slow the C labels that call the library.
 *
 * Registers: r10 the ring, r9 the CPU then the CPU's data, r8 its control
 * block, rax the timestamp, rdx the offset, rcx scratch.
 */
/* clang-format off */
#define LT__SEQ_RSEQ_CS "%%fs:" LT__STR(LT_SEQ_RSEQ_CS) "(%[off])"
#define LT__SEQ_ASM(STOREX, STOREY)                                          \
	LT__RSEQ_ENTER(LT__SEQ_RSEQ_CS)                                      \
	"1:	mov %[seq], %%r10\n"                                          \
	"	test %%r10, %%r10\n"                                          \
	"	jz 6f\n"                                                      \
	"	mov %%fs:" LT__STR(LT_SEQ_RSEQ_CPU_ID) "(%[off]), %%r9d\n"    \
	"	cmp " LT__STR(LT_SEQ_RING_NCPUS) "(%%r10), %%r9d\n"           \
	"	jae 5f\n"                                                     \
	"	rdtsc\n"                                                      \
	"	shl $32, %%rdx\n"                                             \
	"	or %%rdx, %%rax\n"                                            \
	"	shl $" LT__STR(LT_SEQ_RING_CPU_SHIFT) ", %%r9\n"              \
	"	mov " LT__STR(LT_SEQ_RING_CPU) "(%%r10,%%r9), %%r8\n"         \
	"	mov " LT__STR(LT_SEQ_RING_CPU_DATA) "(%%r10,%%r9), %%r9\n"    \
	"	mov (%%r8), %%rdx\n"                                          \
	/* not the sub-buffer's start, and room after the record */          \
	"	mov " LT__STR(LT_SEQ_RING_SUBBUF_MASK) "(%%r10), %%rcx\n"     \
	"	and %%rdx, %%rcx\n"                                           \
	"	jz 5f\n"                                                      \
	"	lea " LT__STR(LT_SEQ_SLACK) "(%%rcx,%[len]), %%rcx\n"         \
	"	cmp " LT__STR(LT_SEQ_RING_SUBBUF_MASK) "(%%r10), %%rcx\n"     \
	"	ja 5f\n"                                                      \
	/* no earlier than the last timestamp, and close enough to it for \
	 * the compact header: one unsigned comparison */                    \
	"	mov %%rax, %%rcx\n"                                           \
	"	sub " LT__STR(LT_SEQ_CTL_LAST) "(%%r8), %%rcx\n"              \
	"	cmp $" LT__STR(LT_SEQ_TS_LIMIT) ", %%rcx\n"                   \
	"	ja 5f\n"                                                      \
	"	mov %%eax, %%ecx\n"                                           \
	"	shl $" LT__STR(LT_SEQ_TS_SHIFT) ", %%ecx\n"                   \
	"	or %[id], %%ecx\n"                                            \
	"	add $3, %%rdx\n"                                              \
	"	and $-4, %%rdx\n"                                             \
	"	mov " LT__STR(LT_SEQ_RING_BUF_MASK) "(%%r10), %%r10\n"        \
	"	and %%rdx, %%r10\n"                                           \
	"	add %%r10, %%r9\n"                                            \
	"	lea 4(%%rdx,%[len]), %%rdx\n"                                 \
	"	movq %%rdx, %%xmm0\n"                                         \
	"	movq %%rax, %%xmm1\n"                                         \
	"	punpcklqdq %%xmm1, %%xmm0\n"                                  \
	"	mov %%ecx, (%%r9)\n"                                          \
	"	" STOREX "\n"                                                 \
	"	" STOREY "\n"                                                 \
	"	movdqa %%xmm0, (%%r8)\n"                                      \
	"2:	movq $0, " LT__SEQ_RSEQ_CS "\n"                              \
	LT__RSEQ_ABORT("%l[lt__slow]")                                       \
	"	.pushsection __rseq_failure, \"ax\"\n"                        \
	/* declined: rseq_cs cleared, as on the way out above */             \
	"5:	movq $0, " LT__SEQ_RSEQ_CS "\n"                              \
	"	jmp %l[lt__slow]\n"                                           \
	/* no ring for the sequence: the library's entry, all of it */       \
	"6:	movq $0, " LT__SEQ_RSEQ_CS "\n"                              \
	"	jmp %l[lt__call]\n"                                           \
	"	.popsection\n"
/* clang-format on */

/* (macro parameters in capitals: the operands' names are lower case) */
#define LT__SEQ_OPERANDS(D, LO, HI, LEN)                                    \
	: : [seq] "m"((D)->seq), [id] "m"((D)->id), [lo] "r"(LO),           \
	  [hi] "r"(HI), [len] "r"((uint64_t)(LEN)),                         \
	  [off] "r"((long)__rseq_offset)                                    \
	: "rax", "rdx", "rcx", "r8", "r9", "r10", "xmm0", "xmm1", "memory", \
	  "cc"

/*
 * The call site's sequence: CALL(D, LO, HI, LEN) where the descriptor
 * names no ring; lt_probe_emit_words_slow() where the sequence declined
 * the record or was restarted (the clock already read here: a dropped
 * event must not read it twice).
 */
#define LT__SEQ_EMIT(D, LO, HI, LEN, STOREX, STOREY, CALL)            \
	do {                                                          \
		__label__ lt__call, lt__slow;                         \
		__asm__ goto(LT__SEQ_ASM(STOREX, STOREY)              \
				     LT__SEQ_OPERANDS(D, LO, HI, LEN) \
			     : lt__call, lt__slow);                   \
		if (0) {                                              \
lt__call:                                                             \
			CALL(D, LO, HI, LEN);                         \
		}                                                     \
		if (0) {                                              \
lt__slow:                                                             \
			lt_probe_emit_words_slow(D, LO, HI, LEN);     \
		}                                                     \
	} while (0)

#endif /* LT_HAVE_RSEQ && !LT_NO_INLINE_SEQ && !__ASSEMBLER__ */

#endif
