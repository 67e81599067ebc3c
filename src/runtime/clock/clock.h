/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the trace clock.
 *
 * Every event's timestamp comes from lt_clock_read(): the CPU's cycle
 * counter where it can be trusted (x86_64 TSC with constant_tsc and
 * nonstop_tsc and the kernel's clocksource on it, aarch64 cntvct_el0),
 * CLOCK_MONOTONIC through the vDSO elsewhere or when
 * LOWTRACE_CLOCK=monotonic.  LOWTRACE_CLOCK=counter takes the TSC even
 * where the kernel chose another clocksource (a VM booted with
 * tsc=unstable whose counter is in fact constant): the user vouches for
 * it, and the calibration still ties it to CLOCK_MONOTONIC.  The reading is inline: no
 * call, no lock.  Readings are raw counts; lt_clock_init() calibrates the
 * counter against CLOCK_MONOTONIC so that lt_clock_to_ns() converts counts
 * to CLOCK_MONOTONIC nanoseconds, and the trace's metadata carries the same
 * frequency and offset so that every reader converts alike.
 */
#ifndef LT_CLOCK_H
#define LT_CLOCK_H

#include <stdint.h>
#include <time.h>

/* LT_ARCH_COUNTER_*: which counter this architecture has */
#include "arch/arch.h"

enum lt_clock_source {
	LT_CLOCK_MONOTONIC = 0, /* clock_gettime(CLOCK_MONOTONIC), in ns */
	LT_CLOCK_TSC = 1, /* x86_64 rdtscp */
	LT_CLOCK_CNTVCT = 2, /* aarch64 virtual counter */
};

/*
 * Calibration: mono_ns(c) = base_ns + ((c - base_cyc) * mult) >> shift.
 * Written once by lt_clock_init() (and lt_clock_refine()) before tracing
 * starts; read-only on the tracing path.
 */
struct lt_clock_calib {
	int source; /* enum lt_clock_source */
	uint64_t freq; /* counts per second */
	uint64_t base_cyc; /* a counter reading ... */
	int64_t base_ns; /* ... and the CLOCK_MONOTONIC time it matched */
	uint32_t mult; /* ns per count, as mult / 2^shift */
	uint32_t shift;
	int64_t realtime_off_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC */
};

extern struct lt_clock_calib lt_clock_calib;

static inline uint64_t lt_clock_read_monotonic(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#if defined(LT_ARCH_COUNTER_TSC)
/*
 * rdtscp waits for every earlier instruction to execute, so a reading taken
 * after a load is later than the store that load observed (the ring
 * buffer's reserve relies on this to keep timestamps in offset order).
 */
static inline uint64_t lt_clock_read_counter(void)
{
	uint32_t lo, hi, aux;
	__asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	(void)aux;
	return ((uint64_t)hi << 32) | lo;
}
#define LT_CLOCK_COUNTER LT_CLOCK_TSC
#elif defined(LT_ARCH_COUNTER_CNTVCT)
static inline uint64_t lt_clock_read_counter(void)
{
	uint64_t v;
	/* isb: the read is not taken ahead of earlier instructions. */
	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
}
#define LT_CLOCK_COUNTER LT_CLOCK_CNTVCT
#else
static inline uint64_t lt_clock_read_counter(void)
{
	return lt_clock_read_monotonic();
}
#define LT_CLOCK_COUNTER LT_CLOCK_MONOTONIC
#endif

/* The counter's frequency as the hardware declares it (aarch64's
 * cntfrq_el0, which the firmware sets), or 0 where none is declared. */
static inline uint64_t lt_clock_counter_hz(void)
{
#if defined(LT_ARCH_COUNTER_CNTVCT)
	uint64_t f;
	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
	return f;
#else
	return 0;
#endif
}

#if defined(LT_ARCH_COUNTER_TSC)
/* rdtsc alone, for a caller that found lt_clock_calib.source to be
 * LT_CLOCK_TSC (lt_clock_read_fast() without its fallback call). */
static inline uint64_t lt_clock_read_tsc(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
#endif

/* The trace clock: counts in lt_clock_calib.freq per second. */
static inline uint64_t lt_clock_read(void)
{
	if (__builtin_expect(lt_clock_calib.source != LT_CLOCK_MONOTONIC, 1))
		return lt_clock_read_counter();
	return lt_clock_read_monotonic();
}

/*
 * The same counter without the wait for earlier instructions (rdtsc, not
 * rdtscp): for callers that order readings themselves, as the ring
 * buffer does by keeping each buffer's timestamps non-decreasing.
 */
static inline uint64_t lt_clock_read_fast(void)
{
#if defined(LT_ARCH_COUNTER_TSC)
	if (__builtin_expect(lt_clock_calib.source == LT_CLOCK_TSC, 1))
		return lt_clock_read_tsc();
#endif
	return lt_clock_read();
}

/* Counts to CLOCK_MONOTONIC nanoseconds, with this process's calibration. */
static inline int64_t lt_clock_to_ns(uint64_t c)
{
	const struct lt_clock_calib *k = &lt_clock_calib;
	__int128 d = (__int128)(int64_t)(c - k->base_cyc) * k->mult;
	return k->base_ns + (int64_t)(d >> k->shift);
}

/*
 * Chooses the source and calibrates (about LOWTRACE_CLOCK_CALIB_MS, default
 * 30 ms, for a counter; nothing for the fallback).  Idempotent and
 * thread-safe; returns 0, or a negative errno.
 */
int lt_clock_init(void);

/*
 * Recomputes the frequency from the first calibration point to now (a longer
 * baseline makes it more precise).  Call before the trace's metadata is
 * written for the last time; readings taken before stay valid.
 */
void lt_clock_refine(void);

/* Why the source was chosen, for the trace's env block and `lowtrace status`. */
const char *lt_clock_source_name(void);
const char *lt_clock_reason(void);

/* Sets a calibration computed elsewhere (the consumer shares its own). */
void lt_clock_set_calib(const struct lt_clock_calib *c);

#endif
