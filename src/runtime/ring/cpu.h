/* SPDX-License-Identifier: MIT */
/*
 * cpu.h - the current CPU, for choosing a per-CPU buffer.
 *
 * glibc 2.35 and later registers an rseq area for every thread; its cpu_id
 * field is kept current by the kernel and costs one load from the thread
 * pointer.  Where rseq is not registered (__rseq_size == 0, or an older
 * libc) sched_getcpu() gives the same answer for the price of a vDSO call.
 * Either way the answer can be stale by the time it is used: the ring
 * buffer stays correct on any buffer, the CPU only chooses which.
 */
#ifndef LT_CPU_H
#define LT_CPU_H

#include <sched.h>
#include <stdint.h>

/* LT_HAVE_RSEQ: the platform condition of every rseq sequence */
#define LT__SEQ_INTERNALS 1
#include <lowtrace/tp_seq.h>
#ifdef LT_HAVE_RSEQ
#include <sys/rseq.h>
#else
/* named by the writers' signatures alone (lt_ring__try_rseq()) */
struct rseq;
#endif

static inline void *lt_thread_pointer(void)
{
#if defined(__x86_64__)
	void *tp;
	__asm__("mov %%fs:0, %0" : "=r"(tp));
	return tp;
#else
	return __builtin_thread_pointer();
#endif
}

static inline int lt_cpu_current(void)
{
#ifdef LT_HAVE_RSEQ
	if (__builtin_expect(__rseq_size != 0, 1)) {
		struct rseq *rs = (struct rseq *)((char *)lt_thread_pointer() +
						  __rseq_offset);
		int cpu = (int)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);
		if (__builtin_expect(cpu >= 0, 1))
			return cpu;
	}
#endif
	int cpu = sched_getcpu();
	return cpu < 0 ? 0 : cpu;
}

#endif
