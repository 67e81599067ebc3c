/* SPDX-License-Identifier: MIT */
/*
 * emit.c - a barectf 3 tracer with a platform of its own, for
 * tests/test_barectf.sh: builds with the code `barectf generate` makes
 * of tests/barectf/config.yaml and writes a CTF 1.8 trace's data
 * streams into OUT_DIR (where barectf wrote the metadata).
 *
 *   emit OUT_DIR [ITERATIONS]
 *
 * Three streams: two of the data stream type `main` (main_0, main_1:
 * cpu_id 0 and 1 in their packet context) and one of `aux`.  Each packet
 * that barectf closes is written whole to its stream file.  The clocks
 * read CLOCK_MONOTONIC (sysclk in 3 MHz cycles, fastclk in ns) plus a
 * simulated idle time that grows by 20 s every 61 iterations, so that
 * main's 27-bit timestamps wrap many times (2^27 cycles at 3 MHz is
 * 44.7 s, more than one jump: never two wraps between two events).
 * Every 7th packet of a main stream the back end says it is full for
 * the next 20 tries, so barectf discards event records and counts them
 * in the next packet's context.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bctf.h"

#define MAIN_PACKET 1024 /* bytes: a few dozen events a packet */
#define AUX_PACKET 512
#define FULL_EVERY 7 /* packets between two full back ends */
#define FULL_TRIES 20 /* discarded event records each time */

struct stream {
	union {
		struct bctf_main_ctx main;
		struct bctf_aux_ctx aux;
	} c;
	int is_main;
	uint32_t cpu;
	FILE *f;
	uint8_t *buf;
	unsigned packets, full_for;
};

static uint64_t idle_ns; /* the simulated idle time */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec +
	       idle_ns;
}

static uint64_t sysclk_value(void *data)
{
	(void)data;
	return now_ns() * 3 / 1000;
}

static uint64_t fastclk_value(void *data)
{
	(void)data;
	return now_ns();
}

static int backend_full(void *data)
{
	struct stream *s = data;

	if (s->full_for == 0)
		return 0;
	s->full_for--;
	return 1;
}

static void open_packet(void *data)
{
	struct stream *s = data;

	if (s->is_main)
		/* a board temperature from -40 to 89, flags in hex */
		bctf_main_open_packet(
			&s->c.main, s->cpu,
			(int16_t)((int)(s->packets * 7 % 130) - 40),
			(uint16_t)(0xa500u | (s->packets & 0xff)));
	else
		bctf_aux_open_packet(&s->c.aux);
}

static void close_packet(void *data)
{
	struct stream *s = data;
	void *ctx = &s->c;

	/* barectf closes a packet that did not fit an event before it asks
	 * whether the back end is full: one write a packet */
	if (!bctf_packet_is_open(ctx))
		return;
	if (s->is_main)
		bctf_main_close_packet(&s->c.main);
	else
		bctf_aux_close_packet(&s->c.aux);
	if (fwrite(bctf_packet_buf(ctx), 1, bctf_packet_buf_size(ctx), s->f) !=
	    bctf_packet_buf_size(ctx)) {
		perror("emit: write");
		exit(1);
	}
	s->packets++;
	if (s->is_main && s->packets % FULL_EVERY == 0)
		s->full_for = FULL_TRIES;
}

static void stream_open(struct stream *s, const char *dir, const char *name,
			int is_main, uint32_t cpu)
{
	const struct bctf_platform_callbacks cbs = {
		.fastclk_clock_get_value = fastclk_value,
		.sysclk_clock_get_value = sysclk_value,
		.is_backend_full = backend_full,
		.open_packet = open_packet,
		.close_packet = close_packet,
	};
	uint32_t size = is_main ? MAIN_PACKET : AUX_PACKET;
	char path[4096];

	memset(s, 0, sizeof(*s));
	s->is_main = is_main;
	s->cpu = cpu;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	s->f = fopen(path, "wb");
	s->buf = calloc(1, size);
	if (!s->f || !s->buf) {
		perror(path);
		exit(1);
	}
	bctf_init(&s->c, s->buf, size, cbs, s);
	open_packet(s);
}

static void stream_close(struct stream *s)
{
	if (bctf_packet_is_open(&s->c) && !bctf_packet_is_empty(&s->c))
		close_packet(s);
	if (fclose(s->f) != 0) {
		perror("emit: close");
		exit(1);
	}
	free(s->buf);
}

/* UTF-8, escapes, an empty string (babeltrace2 2.0.4 prints the string
 * before it in its place: compare_babeltrace.py allows for it) */
static const char *const words[] = {
	"alpha",     "beta",	 "gamma", "", "h\xc3\xa9llo w\xc3\xb6rld",
	"tab\there", "quote\"d",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

/* zeros of both signs, the extremes, a subnormal, long fractions */
static const double specials[] = {
	0.0, -0.0, 1e300, -2.5e-300, 5e-324, 1.0 / 3, -123456.789,
};
#define NSPECIALS (sizeof(specials) / sizeof(specials[0]))

/* one main event of the kind i % 9, its values from i */
static void emit_main(struct bctf_main_ctx *m, uint32_t i)
{
	uint8_t core = (uint8_t)(i & 3);
	const char *task = words[i % NWORDS];

	switch (i % 9) {
	case 0:
		bctf_main_trace_ints(
			m, core, task, (uint8_t)(i * 37), (int8_t)(i * 13),
			(uint16_t)(i * 1031), (int16_t)(-(int32_t)i * 97),
			i * 0x9e3779b9u,
			i % 16 == 0 ? INT32_MIN + (int32_t)i :
				      -(int32_t)i * 12345,
			i % 24 == 0 ? UINT64_MAX : i * 0x9e3779b97f4a7c15u,
			i % 40 == 0 ? INT64_MIN : -(int64_t)i * 1000000000000);
		break;
	case 1:
		bctf_main_trace_bitfields(
			m, core, task, (uint8_t)(i & 1), (uint8_t)(i % 8),
			(int8_t)((int)(i % 32) - 16),
			(uint16_t)((i * 77) & 0x1fff), -(int64_t)i * 1000003,
			~(uint64_t)i << 3,
			i / 9 % 3 ? INT64_MIN + i : -(int64_t)i,
			(uint8_t)(i % 128));
		break;
	case 2:
		/* 20 to 23 are no label's, 4 and 5 two labels', 1500 no level's */
		bctf_main_trace_enums(
			m, core, task, (uint8_t)(i % 30 == 26 ? 250 : i % 24),
			(int16_t)(i % 11 == 2 ? 1500 :
						((int)(i % 5) - 2) * 300),
			(uint8_t)(i % 64));
		break;
	case 3:
		bctf_main_trace_reals(m, core, task, (float)i / 7.0f - 50.0f,
				      (uint64_t)i * 1001,
				      i / 9 % 3 ? specials[i / 9 % NSPECIALS] :
						  i * 3.14159e-3);
		break;
	case 4: {
		const char *names[3] = { words[i % NWORDS],
					 words[(i + 1) % NWORDS], "third" };
		const char *dyn[3] = { "one", words[(i + 2) % NWORDS],
				       "three" };

		bctf_main_trace_strings(m, core, task, words[(i / 8) % NWORDS],
					names, i % 4, dyn, "end");
		break;
	}
	case 5: {
		uint16_t hexes[4] = { (uint16_t)i, 0xbeef, (uint16_t)(i * 3),
				      0 };
		int32_t values[4] = { -(int32_t)i, (int32_t)i * 1000, INT32_MAX,
				      -1 };
		uint8_t row0[3] = { 1, 2, (uint8_t)i },
			row1[3] = { (uint8_t)(i >> 8), 5, 6 };
		const uint8_t *grid[2] = { row0, row1 };
		uint8_t nibbles[5] = { (uint8_t)(i & 15), 15, 0, 9,
				       (uint8_t)((i >> 4) & 15) };
		uint8_t states[2] = { (uint8_t)(i % 24), 1 };
		uint8_t none[1] = { 0 };
		uint16_t pair0[2] = { (uint16_t)i, 0xffff },
			 pair1[2] = { 0, 7 };
		const uint16_t *pairs[2] = { pair0, pair1 };

		bctf_main_trace_arrays(m, core, task, hexes, i % 5, values,
				       grid, i % 6, nibbles, states, none,
				       i % 3, pairs);
		break;
	}
	case 6:
		bctf_main_trace_with_context(m, core, task, i,
					     i % 2 ? "net" : "disk", i * 0.5);
		break;
	case 7:
		bctf_main_trace_context_only(m, core, task, (uint8_t)(i * 5));
		break;
	default:
		bctf_main_trace_no_payload(m, core, task);
	}
}

int main(int argc, char **argv)
{
	struct stream s[3];
	uint32_t i, n;

	if (argc < 2) {
		fprintf(stderr, "usage: emit OUT_DIR [ITERATIONS]\n");
		return 2;
	}
	n = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 3000;
	stream_open(&s[0], argv[1], "main_0", 1, 0);
	stream_open(&s[1], argv[1], "main_1", 1, 1);
	stream_open(&s[2], argv[1], "aux", 0, 0);
	for (i = 0; i < n; i++) {
		if (i % 61 == 60)
			idle_ns += 20000000000u;
		emit_main(&s[i & 1].c.main, i >> 1);
		if (i % 3 == 0) {
			switch (i / 3 % 6) {
			case 0:
			case 2:
				bctf_aux_trace_tick(&s[2].c.aux, i,
						    (uint8_t)(i % 21));
				break;
			case 4:
				bctf_aux_trace_empty(&s[2].c.aux);
				break;
			case 5:
				bctf_aux_trace_empty_struct(&s[2].c.aux);
				break;
			default:
				bctf_aux_trace_note(&s[2].c.aux,
						    words[i % NWORDS],
						    (float)i / 3);
			}
		}
	}
	for (i = 0; i < 3; i++)
		stream_close(&s[i]);
	return 0;
}
