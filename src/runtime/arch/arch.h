/* SPDX-License-Identifier: MIT */
/*
 * arch.h - what each architecture gets: the one place that says so
 * (docs/portability.md explains the choices).
 *
 *                 x86_64             aarch64               any other
 *   ring writer   rseq, CAS fallback CAS                   CAS
 *   16-byte CAS   cmpxchg16b         libgcc (casp/ldxp)    libatomic
 *   call sites    inline sequence    out-of-line probe     out-of-line probe
 *   clock         TSC                cntvct_el0            CLOCK_MONOTONIC
 *
 * LT_HAVE_RSEQ (the rseq sequences, the ring's and the call sites') is
 * decided in lowtrace/tp_seq.h, since a traced program's call sites
 * compile it; this header takes it from there.  aarch64 has no rseq
 * sequence until one can be tested: qemu-user gives its guests no rseq.
 *
 * The clock's counter: LT_ARCH_COUNTER is its enum lt_clock_source
 * (clock/clock.h), LT_ARCH_CLOCKSOURCE the kernel's clocksource that
 * vouches for it (its name in current_clocksource).
 *
 * Only 64-bit little-endian Linux is supported: the trace's byte order
 * and the ring's layout assume it.
 */
#ifndef LT_ARCH_H
#define LT_ARCH_H

#define LT__SEQ_INTERNALS 1
#include <lowtrace/tp_seq.h>

#if __SIZEOF_POINTER__ != 8 || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "lowtrace supports 64-bit little-endian targets only"
#endif

#if defined(__x86_64__)
#define LT_ARCH_NAME "x86_64"
#define LT_ARCH_CAS16 "cmpxchg16b"
#define LT_ARCH_COUNTER_TSC 1
#define LT_ARCH_CLOCKSOURCE "tsc"
#elif defined(__aarch64__)
#define LT_ARCH_NAME "aarch64"
#define LT_ARCH_CAS16 "libgcc's casp or ldxp/stxp"
#define LT_ARCH_COUNTER_CNTVCT 1
#define LT_ARCH_CLOCKSOURCE "arch_sys_counter"
#else
#define LT_ARCH_NAME "generic"
/* no 16-byte CAS instruction: libatomic's, under a lock of the process
 * (so no two processes write one buffer: docs/portability.md) */
#define LT_ARCH_CAS16 "libatomic"
#define LT_ARCH_CAS16_LOCKED 1
#endif

#ifdef LT_HAVE_RSEQ
#define LT_ARCH_RING "rseq (CAS fallback)"
#if defined(LT_NO_INLINE_SEQ)
#define LT_ARCH_CALL_SITE "out-of-line probe"
#else
#define LT_ARCH_CALL_SITE "inline rseq sequence"
#endif
#else
#define LT_ARCH_RING "CAS"
#define LT_ARCH_CALL_SITE "out-of-line probe"
#endif

#if defined(LT_ARCH_COUNTER_TSC)
#define LT_ARCH_CLOCK "tsc, else CLOCK_MONOTONIC"
#elif defined(LT_ARCH_COUNTER_CNTVCT)
#define LT_ARCH_CLOCK "cntvct_el0, else CLOCK_MONOTONIC"
#else
#define LT_ARCH_CLOCK "CLOCK_MONOTONIC"
#endif

/* one line for `lowtrace version` */
#define LT_ARCH_SUMMARY                                                    \
	LT_ARCH_NAME ": ring " LT_ARCH_RING "; 16-byte CAS " LT_ARCH_CAS16 \
		     "; call sites " LT_ARCH_CALL_SITE                     \
		     "; clock " LT_ARCH_CLOCK

#endif
