/* SPDX-License-Identifier: MIT */
/*
 * rseq.h - restartable sequences that publish a record in a per-CPU ring
 * buffer without a locked instruction.
 *
 * A restartable sequence (rseq(2)) is a stretch of code that the kernel
 * restarts, at an abort handler, whenever the thread is preempted,
 * migrated or interrupted by a signal inside it.  Run by a thread on the
 * CPU whose buffer it writes, such a sequence is atomic with respect to
 * every other thread (of any process) on that CPU: it either ends with its
 * last instruction, the commit, or has no visible effect but stray bytes
 * beyond the published offset (up to the end of the sub-buffer after the
 * open one), which the next writer overwrites, and which a snapshot
 * reading the oldest sub-buffer must count as touched (lt_ring_snapshot()).
 *
 * Both sequences here check that the thread still runs on the CPU it chose
 * and that the buffer's offset is still the one it read, copy the record,
 * then commit with one 16-byte store of (offset, last timestamp).  One
 * instruction cannot be split by an interrupt, so a writer on the same CPU
 * sees the pair whole; a consumer on another CPU reads the 8-byte offset
 * alone, which x86 stores atomically as part of either half.  Plain stores
 * are ordered on x86: the record's bytes are visible before the offset
 * that publishes them.
 *
 * glibc 2.35 and later registers the rseq area of every thread, with the
 * signature RSEQ_SIG that must precede each abort handler.  The sequences
 * clear the area's rseq_cs pointer when they end, so that no thread keeps
 * a pointer into a library that may be unloaded.
 *
 * x86_64 only: LT_HAVE_RSEQ (lowtrace/tp_seq.h) is undefined elsewhere, and the ring buffer then
 * uses its compare-and-swap path alone.  Model: models/ring_rseq.pml.
 */
#ifndef LT_RING_RSEQ_H
#define LT_RING_RSEQ_H

#include <stdint.h>

/* LT_HAVE_RSEQ, and the sequences' LT__RSEQ_ENTER()/LT__RSEQ_ABORT() */
#include "ring/cpu.h"

#ifdef LT_HAVE_RSEQ
#include <emmintrin.h>
#endif

/* One copy of a published record: len bytes from src to dst. */
struct lt_rseq_copy {
	void *dst;
	const void *src;
	uint64_t len;
};

/*
 * What lt_rseq_publish() does: if the thread runs on cpu and *offset is
 * still old, copy each region in order, then store (new_off, new_ts) into
 * the 16 bytes at offset.
 */
struct lt_rseq_pub {
	uint64_t new_off, new_ts; /* the 16-byte commit, in this order */
	uint64_t old;
	uint64_t n;
	struct lt_rseq_copy c[5];
};

#ifdef LT_HAVE_RSEQ

/* The calling thread's rseq area, or NULL if rseq is not registered. */
static inline struct rseq *lt_rseq_area(void)
{
	if (__builtin_expect(__rseq_size < 16, 0)) /* to rseq_cs */
		return NULL;
	return (struct rseq *)((char *)lt_thread_pointer() + __rseq_offset);
}

/* The sequences below are made of LT__RSEQ_ENTER() and LT__RSEQ_ABORT()
 * (lowtrace/tp_seq.h), which the call sites' sequence uses too. */

/*
 * The common record: a 4-byte compact event header h at p, then a payload
 * of n bytes given as its first and last W bytes (x at p + 4, y at
 * p + 4 + n - W), W = 8 for 8 <= n <= 16 (movq) and W = 4 for 4 <= n < 8
 * (movl); yd is the displacement 4 - W.  commit holds (end, ts), the
 * 16-byte commit.  Returns 0 if published, 1 if the caller must start
 * again.
 */
#define LT_RSEQ_WRITE_FN(name, mov, reg, yd)                                            \
	static inline __attribute__((always_inline)) int name(                          \
		struct rseq *rs, uint32_t cpu, void *pair, uint64_t old,                \
		__m128i commit, char *p, uint32_t h, uint64_t x, uint64_t y,            \
		uint64_t n)                                                             \
	{                                                                               \
		__asm__ goto(                                                           \
			LT__RSEQ_ENTER(                                                 \
				"%[rseq_cs]") "1:\n\t"                                  \
					      "cmpl %[cpu], %[cpu_id]\n\t"              \
					      "jnz 4f\n\t"                              \
					      "cmpq %[old], (%[pair])\n\t"              \
					      "jnz 4f\n\t"                              \
					      "movl %[h], (%[p])\n\t" mov               \
					      " %" reg "[x], "                          \
					      "4(%[p])\n\t" mov " %" reg                \
					      "[y], " yd "(%[p],%[n])\n\t"              \
					      "movdqa %[c], (%[pair])\n\t"              \
					      "2:\n\t"                                  \
					      "movq $0, %[rseq_cs]\n\t" LT__RSEQ_ABORT( \
						      "%l[again]")                      \
			:                                                               \
			: [rseq_cs] "m"(rs->rseq_cs),                                   \
			  [cpu_id] "m"(rs->cpu_id), [cpu] "r"(cpu),                     \
			  [pair] "r"(pair), [old] "r"(old), [c] "x"(commit),            \
			  [p] "r"(p), [h] "r"(h), [x] "r"(x), [y] "r"(y),               \
			  [n] "r"(n)                                                    \
			: "rax", "memory", "cc"                                         \
			: again);                                                       \
		return 0;                                                               \
again:                                                                                  \
		__atomic_store_n(&rs->rseq_cs, 0, __ATOMIC_RELAXED);                    \
		return 1;                                                               \
	}

LT_RSEQ_WRITE_FN(lt_rseq_write8, "movq", "q", "-4")
LT_RSEQ_WRITE_FN(lt_rseq_write4, "movl", "k", "0")

/* The largest payload lt_rseq_write_copy() takes. */
#define LT_RSEQ_COPY_MAX 64

/*
 * The common record with a payload in memory of n bytes, 8 <= n <=
 * LT_RSEQ_COPY_MAX: the 4-byte header h at p, then the payload copied from
 * src to p + 4 eight bytes at a time, its last 8 bytes stored last
 * (overlapping), then the commit.  Returns 0 if published, 1 if the caller
 * must start again.
 */
static inline __attribute__((always_inline)) int
lt_rseq_write_copy(struct rseq *rs, uint32_t cpu, void *pair, uint64_t old,
		   __m128i commit, char *p, uint32_t h, const void *src,
		   uint64_t n)
{
	__asm__ goto(
		LT__RSEQ_ENTER(
			"%[rseq_cs]") "1:\n\t"
				      "cmpl %[cpu], %[cpu_id]\n\t"
				      "jnz 4f\n\t"
				      "cmpq %[old], (%[pair])\n\t"
				      "jnz 4f\n\t"
				      "movl %[h], (%[p])\n\t"
				      "xorl %%ecx, %%ecx\n\t"
				      "5:\n\t"
				      "movq (%[src],%%rcx), %%rax\n\t"
				      "movq %%rax, 4(%[p],%%rcx)\n\t"
				      "addq $8, %%rcx\n\t"
				      "leaq 8(%%rcx), %%rax\n\t"
				      "cmpq %[n], %%rax\n\t"
				      "jb 5b\n\t"
				      "movq -8(%[src],%[n]), %%rax\n\t"
				      "movq %%rax, -4(%[p],%[n])\n\t"
				      "movdqa %[c], (%[pair])\n\t"
				      "2:\n\t"
				      "movq $0, %[rseq_cs]\n\t" LT__RSEQ_ABORT(
					      "%l[again]")
		:
		: [rseq_cs] "m"(rs->rseq_cs), [cpu_id] "m"(rs->cpu_id),
		  [cpu] "r"(cpu), [pair] "r"(pair), [old] "r"(old),
		  [c] "x"(commit), [p] "r"(p), [h] "r"(h), [src] "r"(src),
		  [n] "r"(n)
		: "rax", "rcx", "memory", "cc"
		: again);
	return 0;
again:
	__atomic_store_n(&rs->rseq_cs, 0, __ATOMIC_RELAXED);
	return 1;
}

/*
 * Adds 1 to *counter, a counter that only this CPU's sequences write:
 * one add, the commit, if the thread still runs on cpu.  Returns 0 if
 * added, 1 if the caller must start again.
 */
static inline int lt_rseq_inc(struct rseq *rs, uint32_t cpu, uint64_t *counter)
{
	__asm__ goto(
		LT__RSEQ_ENTER(
			"%[rseq_cs]") "1:\n\t"
				      "cmpl %[cpu], %[cpu_id]\n\t"
				      "jnz 4f\n\t"
				      "addq $1, %[c]\n\t"
				      "2:\n\t"
				      "movq $0, %[rseq_cs]\n\t" LT__RSEQ_ABORT(
					      "%l[again]")
		:
		: [rseq_cs] "m"(rs->rseq_cs), [cpu_id] "m"(rs->cpu_id),
		  [cpu] "r"(cpu), [c] "m"(*counter)
		: "rax", "memory", "cc"
		: again);
	return 0;
again:
	__atomic_store_n(&rs->rseq_cs, 0, __ATOMIC_RELAXED);
	return 1;
}

/*
 * The general sequence: p's regions copied 8 bytes at a time (the last 8
 * of a region overlapping, a region shorter than 8 byte by byte), then the
 * commit.  Returns 0 if published, 1 if the caller must start again.
 */
static inline int lt_rseq_publish(struct rseq *rs, uint32_t cpu, void *pair,
				  const struct lt_rseq_pub *p)
{
	__asm__ goto(
		LT__RSEQ_ENTER(
			"%[rseq_cs]") "movdqu (%[p]), %%xmm0\n\t"
				      "1:\n\t"
				      "cmpl %[cpu], %[cpu_id]\n\t"
				      "jnz 4f\n\t"
				      "movq 16(%[p]), %%rax\n\t"
				      "cmpq %%rax, (%[pair])\n\t"
				      "jnz 4f\n\t"
				      "movq 24(%[p]), %%r8\n\t" /* regions left */
				      "leaq 32(%[p]), %%r9\n\t" /* the next one */
				      "5:\n\t"
				      "testq %%r8, %%r8\n\t"
				      "jz 9f\n\t"
				      "movq (%%r9), %%rdi\n\t"
				      "movq 8(%%r9), %%rsi\n\t"
				      "movq 16(%%r9), %%rcx\n\t"
				      "cmpq $8, %%rcx\n\t"
				      "jb 7f\n\t"
				      "leaq -8(%%rsi,%%rcx), %%r10\n\t"
				      "leaq -8(%%rdi,%%rcx), %%r11\n\t"
				      "6:\n\t"
				      "movq (%%rsi), %%rax\n\t"
				      "movq %%rax, (%%rdi)\n\t"
				      "addq $8, %%rsi\n\t"
				      "addq $8, %%rdi\n\t"
				      "subq $8, %%rcx\n\t"
				      "cmpq $8, %%rcx\n\t"
				      "jae 6b\n\t"
				      "movq (%%r10), %%rax\n\t"
				      "movq %%rax, (%%r11)\n\t"
				      "jmp 8f\n\t"
				      "7:\n\t"
				      "testq %%rcx, %%rcx\n\t"
				      "jz 8f\n\t"
				      "movb (%%rsi), %%al\n\t"
				      "movb %%al, (%%rdi)\n\t"
				      "incq %%rsi\n\t"
				      "incq %%rdi\n\t"
				      "decq %%rcx\n\t"
				      "jmp 7b\n\t"
				      "8:\n\t"
				      "addq $24, %%r9\n\t"
				      "decq %%r8\n\t"
				      "jmp 5b\n\t"
				      "9:\n\t"
				      "movdqa %%xmm0, (%[pair])\n\t"
				      "2:\n\t"
				      "movq $0, %[rseq_cs]\n\t" LT__RSEQ_ABORT(
					      "%l[again]")
		:
		: [rseq_cs] "m"(rs->rseq_cs), [cpu_id] "m"(rs->cpu_id),
		  [cpu] "r"(cpu), [pair] "r"(pair), [p] "r"(p)
		: "rax", "rcx", "rsi", "rdi", "r8", "r9", "r10", "r11", "xmm0",
		  "memory", "cc"
		: again);
	return 0;
again:
	__atomic_store_n(&rs->rseq_cs, 0, __ATOMIC_RELAXED);
	return 1;
}

#endif /* LT_HAVE_RSEQ */
#endif
