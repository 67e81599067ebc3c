/* SPDX-License-Identifier: MIT */
/*
 * clock.c - choosing and calibrating the trace clock (see clock.h).
 *
 * Calibration samples (counter, CLOCK_MONOTONIC) pairs for a few tens of
 * milliseconds, each pair bracketed by two counter reads and kept only from
 * the tightest of several tries, and fits a line through them by least
 * squares.  The fit's centroid is the base point; its slope the frequency.
 */
#include "clock/clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lt_clock_calib lt_clock_calib = {
	.source = LT_CLOCK_MONOTONIC,
	.freq = 1000000000ull,
	.mult = 1,
	.shift = 0,
};

static pthread_once_t clock_once = PTHREAD_ONCE_INIT;
static char clock_reason[160] = "not initialised";

const char *lt_clock_source_name(void)
{
	switch (lt_clock_calib.source) {
	case LT_CLOCK_TSC:
		return "tsc";
	case LT_CLOCK_CNTVCT:
		return "cntvct";
	default:
		return "monotonic";
	}
}

const char *lt_clock_reason(void)
{
	return clock_reason;
}

static void set_mult(struct lt_clock_calib *k)
{
	/* ns = counts * 1e9 / freq = counts * mult >> 32 */
	k->shift = 32;
	k->mult = (uint32_t)(((__int128)1000000000ull << 32) / k->freq);
	if (k->freq <= 1000000000ull / 4) {
		/* a slow counter: keep mult within 32 bits */
		k->shift = 24;
		k->mult = (uint32_t)(((__int128)1000000000ull << 24) / k->freq);
	}
}

#ifdef LT_ARCH_CLOCKSOURCE
/* The kernel falls back from its counter's clocksource (tsc,
 * arch_sys_counter) when it finds the counter unreliable. */
static int kernel_trusts_counter(char *why, size_t n)
{
	FILE *f = fopen(
		"/sys/devices/system/clocksource/clocksource0/current_clocksource",
		"r");
	char cs[64] = "";

	if (!f)
		return 1; /* no sysfs: the cpu flags decide */
	if (!fgets(cs, sizeof(cs), f))
		cs[0] = 0;
	fclose(f);
	cs[strcspn(cs, "\n")] = 0;
	if (strcmp(cs, LT_ARCH_CLOCKSOURCE) == 0)
		return 1;
	snprintf(why, n, "kernel clocksource is %s, not " LT_ARCH_CLOCKSOURCE,
		 cs);
	return 0;
}
#endif

#if defined(LT_ARCH_COUNTER_TSC)
/* 1 if /proc/cpuinfo's first "flags" line lists every flag given. */
static int cpu_has_flags(const char *a, const char *b)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[8192];
	int ok = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		char pa[64], pb[64];
		snprintf(pa, sizeof(pa), " %s ", a);
		snprintf(pb, sizeof(pb), " %s ", b);
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = ' ';
		ok = strstr(line, pa) && strstr(line, pb);
		break;
	}
	fclose(f);
	return ok;
}

/* forced: LOWTRACE_CLOCK=counter, the kernel's own choice overruled */
static int counter_usable(char *why, size_t n, int forced)
{
	if (!cpu_has_flags("constant_tsc", "nonstop_tsc")) {
		snprintf(why, n, "cpu lacks constant_tsc or nonstop_tsc");
		return 0;
	}
	return forced || kernel_trusts_counter(why, n);
}
#elif defined(LT_ARCH_COUNTER_CNTVCT)
static int counter_usable(char *why, size_t n, int forced)
{
	if (lt_clock_counter_hz() == 0) {
		snprintf(why, n, "cntfrq_el0 is 0: no counter frequency");
		return 0;
	}
	return forced || kernel_trusts_counter(why, n);
}
#else
static int counter_usable(char *why, size_t n, int forced)
{
	(void)forced;
	snprintf(why, n, "no cycle counter on this architecture");
	return 0;
}
#endif

/* One (counter, monotonic) pair from the tightest of a few brackets. */
static void sample_pair(uint64_t *cyc, int64_t *ns, uint64_t *width)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t c1 = lt_clock_read_counter();
		int64_t m = (int64_t)lt_clock_read_monotonic();
		uint64_t c2 = lt_clock_read_counter();
		if (c2 - c1 < best) {
			best = c2 - c1;
			*cyc = c1 + (c2 - c1) / 2;
			*ns = m;
		}
	}
	if (width)
		*width = best;
}

static int64_t realtime_offset(void)
{
	int64_t best_w = INT64_MAX, off = 0;

	for (int i = 0; i < 9; i++) {
		struct timespec a, r, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &b);
		int64_t na = a.tv_sec * 1000000000ll + a.tv_nsec;
		int64_t nb = b.tv_sec * 1000000000ll + b.tv_nsec;
		int64_t nr = r.tv_sec * 1000000000ll + r.tv_nsec;
		if (nb - na < best_w) {
			best_w = nb - na;
			off = nr - (na + (nb - na) / 2);
		}
	}
	return off;
}

static long calib_ms(void)
{
	const char *v = getenv("LOWTRACE_CLOCK_CALIB_MS");
	long ms = v ? strtol(v, NULL, 10) : 30;
	return ms < 1 ? 1 : ms > 10000 ? 10000 : ms;
}

/* Least-squares fit of counter against monotonic time over the window. */
static void calibrate(struct lt_clock_calib *k)
{
	enum { MAXS = 4096 };
	static uint64_t cs[MAXS];
	static int64_t ns[MAXS];
	int64_t end = (int64_t)lt_clock_read_monotonic() + calib_ms() * 1000000;
	int n = 0;

	while (n < MAXS) {
		sample_pair(&cs[n], &ns[n], NULL);
		n++;
		if (ns[n - 1] >= end)
			break;
		/* spread the samples: about 10 us apart */
		int64_t next = ns[n - 1] + 10000;
		while ((int64_t)lt_clock_read_monotonic() < next)
			;
	}
	long double mc = 0, mn = 0;
	for (int i = 0; i < n; i++) {
		mc += (long double)(cs[i] - cs[0]);
		mn += (long double)(ns[i] - ns[0]);
	}
	mc /= n;
	mn /= n;
	long double sxy = 0, sxx = 0;
	for (int i = 0; i < n; i++) {
		long double x = (long double)(ns[i] - ns[0]) - mn;
		long double y = (long double)(cs[i] - cs[0]) - mc;
		sxy += x * y;
		sxx += x * x;
	}
	long double counts_per_ns = sxx > 0 ? sxy / sxx : 1;
	k->freq = (uint64_t)(counts_per_ns * 1e9L + 0.5L);
	if (k->freq == 0)
		k->freq = 1;
	k->base_cyc = cs[0] + (uint64_t)(mc + 0.5L);
	k->base_ns = ns[0] + (int64_t)(mn + 0.5L);
	set_mult(k);
}

/*
 * Where the hardware declares the counter's frequency, the calibration
 * must find it, within 1%: a counter that runs at another rate (a
 * firmware that set cntfrq_el0 wrong) is not
 * trusted.  The calibrated frequency is kept: it ties the counter to
 * CLOCK_MONOTONIC, as the TSC's does.
 */
static int calib_agrees(const struct lt_clock_calib *k, char *why, size_t n)
{
	uint64_t hz = lt_clock_counter_hz();

	if (hz == 0 || (k->freq > hz ? k->freq - hz : hz - k->freq) <= hz / 100)
		return 1;
	snprintf(why, n, "counter runs at %llu Hz, declared %llu Hz",
		 (unsigned long long)k->freq, (unsigned long long)hz);
	return 0;
}

static int calib_given; /* lt_clock_set_calib() came first */

static void clock_setup(void)
{
	struct lt_clock_calib k = lt_clock_calib;

	if (calib_given)
		return;
	const char *env = getenv("LOWTRACE_CLOCK");
	char why[128] = "";

	k.source = LT_CLOCK_MONOTONIC;
	if (env && strcmp(env, "monotonic") == 0) {
		snprintf(why, sizeof(why), "LOWTRACE_CLOCK=monotonic");
	} else if (LT_CLOCK_COUNTER != LT_CLOCK_MONOTONIC &&
		   counter_usable(why, sizeof(why),
				  env && strcmp(env, "counter") == 0)) {
		k.source = LT_CLOCK_COUNTER;
	}
	if (k.source != LT_CLOCK_MONOTONIC) {
		calibrate(&k);
		if (!calib_agrees(&k, why, sizeof(why)))
			k.source = LT_CLOCK_MONOTONIC;
	}
	if (k.source == LT_CLOCK_MONOTONIC) {
		k.freq = 1000000000ull;
		k.base_cyc = 0;
		k.base_ns = 0;
		k.mult = 1;
		k.shift = 0;
		snprintf(clock_reason, sizeof(clock_reason),
			 "CLOCK_MONOTONIC: %s", why[0] ? why : "fallback");
	} else {
		snprintf(clock_reason, sizeof(clock_reason),
			 "%s calibrated against CLOCK_MONOTONIC over %ld ms: "
			 "%llu Hz",
			 k.source == LT_CLOCK_TSC ? "tsc" : "cntvct",
			 calib_ms(), (unsigned long long)k.freq);
	}
	k.realtime_off_ns = realtime_offset();
	lt_clock_calib = k;
}

int lt_clock_init(void)
{
	int rc = pthread_once(&clock_once, clock_setup);
	return rc ? -rc : 0;
}

void lt_clock_refine(void)
{
	struct lt_clock_calib k = lt_clock_calib;
	uint64_t c;
	int64_t m;

	/* (the second test: nothing to refine where the counter is
	 * CLOCK_MONOTONIC itself, and the code below is not compiled) */
	if (k.source == LT_CLOCK_MONOTONIC ||
	    LT_CLOCK_COUNTER == LT_CLOCK_MONOTONIC)
		return;
	sample_pair(&c, &m, NULL);
	/* Only a baseline well past the first calibration's improves on it. */
	if (m - k.base_ns < 4 * calib_ms() * 1000000)
		return;
	k.freq = (uint64_t)(((__int128)(c - k.base_cyc) * 1000000000ll +
			     (m - k.base_ns) / 2) /
			    (m - k.base_ns));
	set_mult(&k);
	/* the fields that changed alone: writers read source at every
	 * event, and it stays */
	lt_clock_calib.freq = k.freq;
	lt_clock_calib.mult = k.mult;
	lt_clock_calib.shift = k.shift;
}

void lt_clock_set_calib(const struct lt_clock_calib *c)
{
	/* no calibration of our own when one is handed to us */
	calib_given = 1;
	lt_clock_init();
	lt_clock_calib = *c;
	snprintf(clock_reason, sizeof(clock_reason),
		 "%s, calibration shared by the session",
		 lt_clock_source_name());
}
