/* SPDX-License-Identifier: MIT */
/*
 * bench/tp_chunks.c - the cost of one enabled event in chunks, to see it
 * through the noise of a shared machine: the event of bench/tp_lowtrace.c
 * (two 32-bit integers), 4 sub-buffers of 1 MiB per CPU, on one thread
 * pinned to CPU 0; CHUNKS chunks of EVENTS events, each timed alone; the
 * minimum, the 10th percentile and the median chunk, in ns per event.
 * A chunk that the host's other load slowed lands in the upper half and
 * leaves the median alone, while bench/compare-lttng.sh's runs (one
 * timed loop each) take it in.
 *
 *	build/bench/tp_chunks DIR [CHUNKS [EVENTS]]
 *
 * prints, for a flight-recorder session (no consumer I/O) and then for a
 * discard session whose consumer writes DIR/discard:
 *	overwrite min=... p10=... median=... lost=...
 *	discard   min=... p10=... median=... lost=...
 * and, on x86_64 with rseq, the same loop calling the least an out-of-line
 * probe can do: a call, rdtsc, and a restartable sequence that stores the
 * record and commits (offset, timestamp) in a fixed per-CPU area, with no
 * lookup and no check (bench_floor_call below):
 *	floor     min=... p10=... median=...
 */
#define _GNU_SOURCE
#include <lowtrace/lowtrace.h>
#include <lowtrace/tracepoint.h>

#include "bench_util.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

LT_EVENT(bench, ev, LT_INFO, LT_ARGS(int32_t, a, int32_t, b),
	 LT_FIELDS(LT_FIELD_INT(a, a) LT_FIELD_INT(b, b)))

#if defined(__x86_64__) && defined(__has_include)
#if __has_include(<sys/rseq.h>)
#define HAVE_FLOOR 1
/*
 * bench_floor_call(event, lo, hi, len): the record (a 4-byte header, lo,
 * hi at 4 + len - 8) at area[cpu].data + (offset & 4095), then the 16-byte
 * commit; the area: 64 CPUs of a 16-byte (offset, timestamp) pair padded
 * to 64 bytes, then 8 KiB of data each.
 */
__asm__(".text\n"
	".globl bench_floor_call\n"
	".type bench_floor_call, @function\n"
	".p2align 5\n"
	"bench_floor_call:\n"
	"	movq %rdx, %xmm3\n"
	"	mov __rseq_offset@GOTPCREL(%rip), %r9\n"
	"	mov (%r9), %r9\n"
	"	lea 3f(%rip), %rax\n"
	"	mov %rax, %fs:8(%r9)\n"
	"1:	mov %fs:4(%r9), %r8d\n"
	"	and $63, %r8d\n"
	"	rdtsc\n"
	"	shl $32, %rdx\n"
	"	or %rdx, %rax\n"
	"	imul $8256, %r8, %r8\n"
	"	lea bench_floor_area(%rip), %r10\n"
	"	add %r10, %r8\n"
	"	mov (%r8), %rdi\n"
	"	mov %rdi, %r9\n"
	"	and $4095, %r9\n"
	"	lea 64(%r8,%r9), %rdx\n"
	"	lea 4(%rdi,%rcx), %rdi\n"
	"	movq %rdi, %xmm0\n"
	"	movq %rax, %xmm1\n"
	"	punpcklqdq %xmm1, %xmm0\n"
	"	mov %eax, (%rdx)\n"
	"	mov %rsi, 4(%rdx)\n"
	"	movq %xmm3, -4(%rdx,%rcx)\n"
	"	movdqa %xmm0, (%r8)\n"
	"2:	ret\n"
	".size bench_floor_call, .-bench_floor_call\n"
	".pushsection __rseq_failure, \"ax\"\n"
	".byte 0x0f, 0xb9, 0x3d\n"
	".long 0x53053053\n"
	"4:	ret\n"
	".popsection\n"
	".pushsection __rseq_cs, \"aw\"\n"
	".balign 32\n"
	"3:	.long 0, 0\n"
	".quad 1b, (2b - 1b), 4b\n"
	".popsection\n"
	".bss\n"
	".balign 64\n"
	"bench_floor_area: .zero 64 * 8256\n"
	".text\n");
void bench_floor_call(const void *ev, uint64_t lo, uint64_t hi, uint32_t len);
#endif
#endif

static void run(const char *mode, const char *dir, int overwrite, int chunks,
		long events)
{
	struct lt_session_options o = {
		.channel = { .subbuf_size = 1 << 20,
			     .n_subbufs = 4,
			     .overwrite = overwrite },
	};
	int err = 0;
	lt_session_t *s = lt_session_create(dir, &o, &err);
	if (!s || lt_session_enable(s, "bench:ev", NULL, NULL) ||
	    lt_session_start(s)) {
		fprintf(stderr, "tp_chunks: session on %s: %s\n", dir,
			lt_strerror(err ? err : -1));
		exit(1);
	}
	double *r = calloc((size_t)chunks, sizeof(*r));
	if (!r)
		exit(1);
	for (int c = 0; c < chunks; c++) {
		double t0 = bench_now_ns();
		for (long i = 0; i < events; i++) {
			lt_trace(bench, ev, (int32_t)i, (int32_t)(i ^ 0x55));
			__asm__ __volatile__("" ::: "memory");
		}
		r[c] = (bench_now_ns() - t0) / (double)events;
	}
	struct lt_session_stats st;
	lt_session_stop(s);
	lt_session_get_stats(s, &st);
	lt_session_destroy(s);
	qsort(r, (size_t)chunks, sizeof(*r), bench_by_value);
	printf("%-9s min=%.2f p10=%.2f median=%.2f lost=%llu\n", mode, r[0],
	       r[chunks / 10], r[chunks / 2],
	       (unsigned long long)st.events_lost);
	free(r);
}

#ifdef HAVE_FLOOR
/* The floor, in chunks as run() times the tracepoint: the same call site
 * (the descriptor's byte, the two words) calling bench_floor_call(). */
static void run_floor(int chunks, long events)
{
	double *r = calloc((size_t)chunks, sizeof(*r));
	if (!r)
		exit(1);
	/* the tracepoint's descriptor, enabled, as its call site reads it */
	lt__ev_bench__ev.enabled = 1;
	for (int c = 0; c < chunks; c++) {
		double t0 = bench_now_ns();
		for (long i = 0; i < events; i++) {
			if (__builtin_expect(lt__ev_bench__ev.enabled, 0)) {
				uint64_t w = (uint32_t)i |
					     (uint64_t)(uint32_t)(i ^ 0x55)
						     << 32;
				bench_floor_call(&lt__ev_bench__ev, w, w, 8);
			}
			__asm__ __volatile__("" ::: "memory");
		}
		r[c] = (bench_now_ns() - t0) / (double)events;
	}
	lt__ev_bench__ev.enabled = 0;
	qsort(r, (size_t)chunks, sizeof(*r), bench_by_value);
	printf("%-9s min=%.2f p10=%.2f median=%.2f\n", "floor", r[0],
	       r[chunks / 10], r[chunks / 2]);
	free(r);
}
#endif

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: tp_chunks DIR [CHUNKS [EVENTS]]\n");
		return 2;
	}
	int chunks = argc > 2 ? atoi(argv[2]) : 200;
	long events = argc > 3 ? atol(argv[3]) : 50000;
	if (chunks < 1 || events < 1) {
		fprintf(stderr, "tp_chunks: CHUNKS and EVENTS must be > 0\n");
		return 2;
	}
	bench_pin(0);
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/overwrite", argv[1]);
	run("overwrite", dir, 1, chunks, events);
	snprintf(dir, sizeof(dir), "%s/discard", argv[1]);
	run("discard", dir, 0, chunks, events);
#ifdef HAVE_FLOOR
	run_floor(chunks, events);
#endif
	return 0;
}
