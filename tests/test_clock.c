/* SPDX-License-Identifier: MIT */
/*
 * test_clock.c - the trace clock agrees with CLOCK_MONOTONIC and never goes
 * backwards across CPUs.
 */
#define _GNU_SOURCE
#include "clock/clock.h"
#include "lt_test.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

/* |trace clock - CLOCK_MONOTONIC| in ns, from the tightest of a few tries. */
static int64_t clock_error_ns(void)
{
	int64_t best_w = INT64_MAX, err = 0;

	for (int i = 0; i < 20; i++) {
		uint64_t c1 = lt_clock_read();
		int64_t m = (int64_t)lt_clock_read_monotonic();
		uint64_t c2 = lt_clock_read();
		int64_t a = lt_clock_to_ns(c1), b = lt_clock_to_ns(c2);
		if (b - a < best_w) {
			best_w = b - a;
			err = m - (a + (b - a) / 2);
		}
	}
	return err < 0 ? -err : err;
}

LT_TEST(test_clock_agrees_with_monotonic_within_1us)
{
	LT_ASSERT_EQ(lt_clock_init(), 0);
	int64_t worst = 0;
	/* 2 s window, checked every 100 ms. */
	for (int i = 0; i < 20; i++) {
		struct timespec ts = { 0, 100000000 };
		nanosleep(&ts, NULL);
		int64_t e = clock_error_ns();
		if (e > worst)
			worst = e;
	}
	printf("  source %s (%s), worst error %lld ns over 2 s\n",
	       lt_clock_source_name(), lt_clock_reason(), (long long)worst);
	LT_ASSERT_CMP(worst, <, 1000);
}

/* Where the CPU's counter is constant but the kernel chose another
 * clocksource, LOWTRACE_CLOCK=counter takes it, calibrated as well. */
LT_TEST(test_clock_counter_forced_agrees_with_monotonic)
{
	setenv("LOWTRACE_CLOCK", "counter", 1);
	LT_ASSERT_EQ(lt_clock_init(), 0);
#if defined(__x86_64__) || defined(__aarch64__)
	if (strcmp(lt_clock_source_name(), "monotonic") == 0)
		LT_SKIP("no usable cycle counter: %s", lt_clock_reason());
	LT_ASSERT_CMP(lt_clock_calib.freq, >, 1000000);
	int64_t worst = 0;
	for (int i = 0; i < 10; i++) {
		struct timespec ts = { 0, 100000000 };
		nanosleep(&ts, NULL);
		int64_t e = clock_error_ns();
		if (e > worst)
			worst = e;
	}
	printf("  source %s (%s), worst error %lld ns over 1 s\n",
	       lt_clock_source_name(), lt_clock_reason(), (long long)worst);
	LT_ASSERT_CMP(worst, <, 1000);
#else
	LT_ASSERT_STREQ(lt_clock_source_name(), "monotonic");
#endif
}

/* The counter's declared frequency (aarch64's cntfrq_el0) is the one the
 * calibration finds: a forced counter is kept only then, and runs at it. */
LT_TEST(test_clock_counter_runs_at_its_declared_frequency)
{
	setenv("LOWTRACE_CLOCK", "counter", 1);
	LT_ASSERT_EQ(lt_clock_init(), 0);
	uint64_t hz = lt_clock_counter_hz();
#if defined(LT_ARCH_COUNTER_CNTVCT)
	LT_ASSERT_CMP(hz, >, 0);
	LT_ASSERT_STREQ(lt_clock_source_name(), "cntvct");
	uint64_t f = lt_clock_calib.freq;
	printf("  cntfrq_el0 %llu Hz, calibrated %llu Hz\n",
	       (unsigned long long)hz, (unsigned long long)f);
	LT_ASSERT_CMP(f > hz ? f - hz : hz - f, <=, hz / 100);
#else
	/* nothing declared: the calibration alone decides */
	LT_ASSERT_EQ(hz, 0);
#endif
}

LT_TEST(test_clock_fallback_is_monotonic_ns)
{
	setenv("LOWTRACE_CLOCK", "monotonic", 1);
	LT_ASSERT_EQ(lt_clock_init(), 0);
	LT_ASSERT_STREQ(lt_clock_source_name(), "monotonic");
	LT_ASSERT_EQ(lt_clock_calib.freq, 1000000000);
	uint64_t a = lt_clock_read();
	int64_t m = (int64_t)lt_clock_read_monotonic();
	uint64_t b = lt_clock_read();
	LT_ASSERT(lt_clock_to_ns(a) <= m && m <= lt_clock_to_ns(b));
}

LT_TEST(test_clock_refine_keeps_agreement)
{
	setenv("LOWTRACE_CLOCK_CALIB_MS", "5", 1);
	LT_ASSERT_EQ(lt_clock_init(), 0);
	struct timespec ts = { 0, 300000000 };
	nanosleep(&ts, NULL);
	lt_clock_refine();
	LT_ASSERT_CMP(clock_error_ns(), <, 1000);
}

static atomic_uint_fast64_t shared_stamp;
static atomic_int stop_flag;
static atomic_int backwards;

/*
 * Each thread, pinned to its CPU, reads the clock and publishes the reading
 * with a CAS that only moves the shared value forward; a reading lower than
 * the value it observed before reading is a clock that went backwards.
 */
static void *pinned_reader(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (!atomic_load(&stop_flag)) {
		uint64_t seen = atomic_load(&shared_stamp);
		uint64_t now = lt_clock_read();
		if (now < seen) {
			atomic_fetch_add(&backwards, 1);
			continue;
		}
		while (seen < now &&
		       !atomic_compare_exchange_weak(&shared_stamp, &seen, now))
			;
	}
	return NULL;
}

LT_TEST(test_clock_never_backwards_across_cpus)
{
	LT_ASSERT_EQ(lt_clock_init(), 0);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 2)
		ncpu = 2; /* still two threads, on one CPU */
	if (ncpu > 8)
		ncpu = 8;
	pthread_t th[8];
	for (long i = 0; i < ncpu; i++)
		pthread_create(
			&th[i], NULL, pinned_reader,
			(void *)(intptr_t)(i % sysconf(_SC_NPROCESSORS_ONLN)));
	struct timespec ts = { 0, 500000000 };
	nanosleep(&ts, NULL);
	atomic_store(&stop_flag, 1);
	for (long i = 0; i < ncpu; i++)
		pthread_join(th[i], NULL);
	LT_ASSERT_EQ(atomic_load(&backwards), 0);
	LT_ASSERT_CMP(atomic_load(&shared_stamp), >, 0);
}
