/* SPDX-License-Identifier: MIT */
/*
 * usdt_hit.c - a USDT marker with two integer arguments and a string,
 * guarded by a semaphore, hit N times in a loop: the program that
 * bench/probes.sh times untraced, under `lowtrace record -u` and under
 * `perf record` (perf probe).  Prints "usdt_hit: N hits, X ns per
 * iteration, Y cpu ns per iteration, semaphore S": wall time, and the
 * thread's CPU time (the uprobe's trap and handler run in the thread, and
 * the CPU time does not count the waits of a loaded machine).  `usdt_hit N bare` runs the same loop without
 * the marker, for the cost of a marker whose semaphore is off.
 *
 * The SDT note is written here as <sys/sdt.h> writes it (systemtap-sdt-dev
 * is not needed): a nop at the probe point, the note (NT_STAPSDT 3: the
 * nop's address, .stapsdt.base's, the semaphore's, then provider, name and
 * the argument specs), and the .stapsdt.base section prelink adjusts by.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* the semaphore: raised by the kernel while a probe with its
 * ref_ctr_offset exists */
__attribute__((section(".probes"),
	       used)) volatile unsigned short bench_hit_semaphore;

/* the argument specs' register operands: a 4-byte and an 8-byte
 * register's name, as <sys/sdt.h> writes them on each architecture */
#if defined(__x86_64__)
#define BENCH_R4 "%k"
#define BENCH_R8 "%q"
#elif defined(__aarch64__)
#define BENCH_R4 "%w"
#define BENCH_R8 "%x"
#else
#define BENCH_R4 "%"
#define BENCH_R8 "%"
#endif

#define BENCH_HIT(a, b, s)                                                      \
	__asm__ __volatile__(                                                   \
		"990: nop\n"                                                    \
		".pushsection .note.stapsdt,\"\",\"note\"\n"                    \
		".balign 4\n"                                                   \
		".4byte 992f-991f, 994f-993f, 3\n"                              \
		"991: .asciz \"stapsdt\"\n"                                     \
		"992: .balign 4\n"                                              \
		"993: .8byte 990b\n"                                            \
		".8byte _.stapsdt.base\n"                                       \
		".8byte bench_hit_semaphore\n"                                  \
		".asciz \"bench\"\n"                                            \
		".asciz \"hit\"\n"                                              \
		".asciz \"-4@" BENCH_R4 "[a0] -4@" BENCH_R4 "[a1] 8@" BENCH_R8  \
		"[a2]\"\n"                                                      \
		"994: .balign 4\n"                                              \
		".popsection\n"                                                 \
		".ifndef _.stapsdt.base\n"                                      \
		".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base," \
		"comdat\n"                                                      \
		".weak _.stapsdt.base\n"                                        \
		".hidden _.stapsdt.base\n"                                      \
		"_.stapsdt.base: .space 1\n"                                    \
		".size _.stapsdt.base, 1\n"                                     \
		".popsection\n"                                                 \
		".endif\n" ::[a0] "r"(a),                                       \
		[a1] "r"(b), [a2] "r"(s))

static double now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int bare = argc > 2 && argv[2][0] == 'b';
	static const char *const words[] = { "select", "update", "commit" };
	/* the loop's own work, kept by the compiler in both versions */
	volatile long sink = 0;
	double t0 = now_ns(CLOCK_MONOTONIC);
	double c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	if (bare) {
		for (long i = 0; i < n; i++)
			sink += i;
	} else {
		for (long i = 0; i < n; i++) {
			int a = (int)i, b = (int)(i * 3);
			sink += i;
			if (bench_hit_semaphore)
				BENCH_HIT(a, b, words[i % 3]);
		}
	}
	double c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	double t1 = now_ns(CLOCK_MONOTONIC);
	double d = (double)(n ? n : 1);
	printf("usdt_hit: %ld hits, %.1f ns per iteration, %.1f cpu ns per "
	       "iteration, semaphore %u\n",
	       n, (t1 - t0) / d, (c1 - c0) / d, bench_hit_semaphore);
	return sink == -1;
}
