/* SPDX-License-Identifier: MIT */
/*
 * probe_x86_64.S - lt_probe_emit_words8() and lt_probe_emit_words4(): an
 * enabled event of a fixed payload of 4 to 16 bytes, given in two
 * registers, written into its channel in one restartable sequence that
 * starts before the event's target list is read.
 *
 * The sequence reads the list, its ring and the ring's control block, the
 * clock, then stores the record and commits (offset, timestamp) with one
 * 16-byte store.  The kernel restarts it, at the abort handler, if the
 * thread is preempted, migrated or signalled inside it: so no other writer
 * of this CPU's buffer runs between its reads and its commit, and what it
 * read is still current when it commits.  The same property stands in for
 * an RCU read-side section: a list or ring that the registry unpublishes
 * is freed only after lt_probe_sync() has issued
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ), which restarts every
 * sequence in flight in the process, and a sequence started after it
 * reads the new list.  The path reads targets->seq, set only once this
 * process registered for that command (lt_probe_seq_usable()) and while
 * the trace clock is the TSC (a change of clock rebuilds the lists).
 *
 * Any other case goes to C with the arguments it was given, nothing
 * published: where the list names no ring for the sequence, to
 * lt_probe__words8/4_general(), which tries the C
 * call-free path first; where the sequence declined the record (a
 * sub-buffer to switch or close, a full buffer, a timestamp too far from
 * the last for the compact header, a thread without rseq) or was
 * restarted, to lt_probe__words_slow(), the general path's rare cases.
 * Offsets and constants: lowtrace/ring_offsets.h, generated.
 *
 * The thread's rseq_cs is left pointing at the descriptor when the path
 * returns, as the kernel allows: one store fewer.  The kernel reads that
 * descriptor at the thread's next preemption, so it must outlive the
 * code: the sequence names a copy on the heap, never freed, made when the
 * library is loaded (lt_probe_seq_init() in probe.c), and a liblowtrace.a
 * linked into a shared object that is later unloaded leaves no thread
 * pointing at unmapped memory.  (liblowtrace.so is linked -z nodelete
 * besides.)
 *
 * A call site compiled with include/lowtrace/tp_seq.h runs the same
 * sequence inline, from the ring the registry puts in the descriptor, and
 * calls these where it declines: here the target list is read again, and
 * what the call site could not do goes on to C.
 *
 * Registers: rdi the event, rsi the first word, rdx the last, ecx the
 * payload's length.  The path saves no register: the event waits in the
 * red zone, the last word in xmm3 (rdtsc writes rdx).
 */
/* LT_HAVE_RSEQ, LT_SEQ_* (lowtrace/ring_offsets.h), LT_SEQ_ABORT_SIG */
#define LT__SEQ_INTERNALS 1
#include <lowtrace/tp_seq.h>

#ifdef LT_HAVE_RSEQ

/*
 * name: the entry point; general: its C path; minlen, span: the lengths
 * it takes, minlen to minlen + span; x, y: the two stores of the payload,
 * at p + 4 and at p + 4 + len - W (p in rdx, len in rcx).
 */
.macro LT_FAST_EMIT name, general, cs, minlen, span, storex, storey
	.text
	.globl \name
	.type \name, @function
	.p2align 5
\name:
	.cfi_startproc
	mov %ecx, %ecx
	lea -\minlen(%rcx), %eax
	cmp $\span, %eax
	ja 9f
	/* no ring can be named for the sequence in this process (no
	 * membarrier rseq command: Linux before 5.10): straight to C */
	cmpb $1, lt_probe__seq_state(%rip)
	jne 9f
	movq %rdx, %xmm3
	mov %rdi, -8(%rsp)
	mov __rseq_offset@GOTPCREL(%rip), %r9
	mov (%r9), %r9
	mov \cs(%rip), %rax
	mov %rax, %fs:LT_SEQ_RSEQ_CS(%r9)
1:
	mov LT_SEQ_DESC_TARGETS(%rdi), %r10
	test %r10, %r10
	jz 7f
	mov LT_SEQ_TARGETS_ID(%r10), %r11d
	mov LT_SEQ_TARGETS_SEQ(%r10), %r10
	test %r10, %r10
	jz 6f
	/* cpu_id: negative (so too large) in a thread without rseq */
	mov %fs:LT_SEQ_RSEQ_CPU_ID(%r9), %r9d
	cmp LT_SEQ_RING_NCPUS(%r10), %r9d
	jae 8f
	rdtsc
	shl $32, %rdx
	or %rdx, %rax
	shl $LT_SEQ_RING_CPU_SHIFT, %r9
	mov LT_SEQ_RING_CPU(%r10,%r9), %r8
	mov (%r8), %rdi
	/* not the sub-buffer's start, and room to spare after the record
	 * whatever its alignment (off + 3 + 4 + len < S).  The clock was
	 * read first: its latency overlaps the loads (0.6-0.8 ns an event
	 * less than reading it here, bench/tp_chunks) */
	mov LT_SEQ_RING_SUBBUF_MASK(%r10), %rdx
	and %rdi, %rdx
	jz 8f
	lea LT_SEQ_SLACK(%rdx,%rcx), %rdx
	cmp LT_SEQ_RING_SUBBUF_MASK(%r10), %rdx
	ja 8f
	mov LT_SEQ_RING_CPU_DATA(%r10,%r9), %rdx
	/* the timestamp: no earlier than the last one, and close enough to
	 * it for the compact header */
	cmp LT_SEQ_CTL_LAST(%r8), %rax
	cmovb LT_SEQ_CTL_LAST(%r8), %rax
	mov %rax, %r9
	sub LT_SEQ_CTL_LAST(%r8), %r9
	cmp $LT_SEQ_TS_LIMIT, %r9
	ja 8f
	mov %eax, %r9d
	shl $LT_SEQ_TS_SHIFT, %r9d
	or %r9d, %r11d
	add $3, %rdi
	and $-4, %rdi
	mov LT_SEQ_RING_BUF_MASK(%r10), %r9
	and %rdi, %r9
	add %r9, %rdx
	lea 4(%rdi,%rcx), %rdi
	movq %rdi, %xmm0
	movq %rax, %xmm1
	punpcklqdq %xmm1, %xmm0
	mov %r11d, (%rdx)
	\storex
	\storey
	movdqa %xmm0, (%r8)
2:
	/* rseq_cs left set: the kernel clears it at the next preemption
	 * outside the sequence; its descriptor is never freed */
	ret
7:	/* disabled since the call site looked */
	ret
	/* leaving the sequence early, rseq_cs left set as on the way out
	 * above (a restart has cleared it already): the arguments back */
6:	/* no ring for the sequence: the C path, its own fast path first */
	mov -8(%rsp), %rdi
	movq %xmm3, %rdx
9:
	jmp \general
8:	/* declined here, or restarted: the general path's rare cases */
	mov -8(%rsp), %rdi
	movq %xmm3, %rdx
	jmp lt_probe__words_slow
	.cfi_endproc
	.size \name, .-\name

	/* the abort handler, after the signature the kernel checks */
	.pushsection __rseq_failure, "ax"
	.cfi_startproc
	LT_SEQ_ABORT_SIG
4:
	jmp 8b
	.cfi_endproc
	.popsection

	/* the sequence's descriptor: from 1 to 2, abort at 4 */
	.pushsection __rseq_cs, "aw"
	.balign 32
3:
	.long 0, 0
	.quad 1b, (2b - 1b), 4b
	.popsection

	/* the descriptor the sequence names: this one until
	 * lt_probe_seq_init() points it at a copy that is never freed */
	.pushsection .data, "aw"
	.balign 8
	.globl \cs
	.hidden \cs
	.type \cs, @object
\cs:
	.quad 3b
	.size \cs, 8
	.popsection
.endm

	.hidden lt_probe__words8_general
	.hidden lt_probe__words4_general
	.hidden lt_probe__words_slow
	.hidden lt_probe__seq_state

LT_FAST_EMIT lt_probe_emit_words8, lt_probe__words8_general, lt_probe__seq_cs8, 8, 8, \
	"mov %rsi, 4(%rdx)", "movq %xmm3, -4(%rdx,%rcx)"
LT_FAST_EMIT lt_probe_emit_words4, lt_probe__words4_general, lt_probe__seq_cs4, 4, 3, \
	"mov %esi, 4(%rdx)", "movd %xmm3, (%rdx,%rcx)"

#endif

	.section .note.GNU-stack, "", @progbits
