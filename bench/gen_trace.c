/* SPDX-License-Identifier: MIT */
/*
 * gen_trace.c - writes a synthetic lowtrace CTF trace, fast.
 *
 * usage: gen_trace DIR NEVENTS [--cpus N] [--seed S] [--packet BYTES]
 *                  [--freq HZ] [--mix full|small] [--crash] [--no-empty]
 *                  [--lost]
 *
 * The trace has two stream classes: 0 ("default", one file per CPU, every
 * field type) and 1 ("aux", one file).  Events are spread over the CPUs'
 * streams at random; timestamps grow by random steps with now and then a
 * gap longer than the 27-bit compact range, which forces the extended event
 * header, as does every event whose id is 31 or more.  --mix small leaves
 * out the widest events (for benchmarks of typical traces).  --crash writes
 * the last packet of each stream with timestamp_end = 0, as a buffer
 * recovered after a crash has it.  --no-empty writes no empty strings
 * (babeltrace2 2.0.4 shows an empty string as the previous event's).  --lost
 * makes each packet's events_discarded 3 more than the previous one's.  The metadata is the shape that
 * docs/ctf-layout.md documents.
 */
#define _GNU_SOURCE
#include "format/event_header.h"
#include "format/packet_header.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GEN_PID 4242u
#define GEN_MAX_CPUS 64

static const uint8_t gen_uuid[16] = { 0x2a, 0x64, 0x22, 0xd0, 0x6c, 0xee,
				      0x11, 0xe0, 0x8c, 0x08, 0xcb, 0x07,
				      0xd7, 0xb3, 0xa5, 0x64 };

static const char metadata_head[] =
	"/* CTF 1.8 */\n"
	"\n"
	"trace {\n"
	"\tmajor = 1;\n"
	"\tminor = 8;\n"
	"\tuuid = \"2a6422d0-6cee-11e0-8c08-cb07d7b3a564\";\n"
	"\tbyte_order = le;\n"
	"\tpacket.header := struct {\n"
	"\t\tinteger { size = 32; align = 8; signed = false; base = 16; } "
	"magic;\n"
	"\t\tinteger { size = 8; align = 8; signed = false; } uuid[16];\n"
	"\t\tinteger { size = 32; align = 8; signed = false; } stream_id;\n"
	"\t\tinteger { size = 64; align = 8; signed = false; } "
	"stream_instance_id;\n"
	"\t};\n"
	"};\n"
	"\n"
	"env {\n"
	"\thostname = \"box\";\n"
	"\tdomain = \"ust\";\n"
	"\ttracer_name = \"lowtrace\";\n"
	"\ttracer_major = 0;\n"
	"\ttracer_minor = 1;\n"
	"\ttracer_version = \"0.1.0\";\n"
	"\tprocname = \"frames\";\n"
	"\tvpid = 4242;\n"
	"\tclock_source = \"tsc\";\n"
	"};\n"
	"\n";

static const char metadata_stream[] =
	"stream {\n"
	"\tid = %u;\n"
	"\tpacket.context := struct {\n"
	"\t\tinteger { size = 64; align = 8; signed = false; map = "
	"clock.lowtrace.value; } timestamp_begin;\n"
	"\t\tinteger { size = 64; align = 8; signed = false; map = "
	"clock.lowtrace.value; } timestamp_end;\n"
	"\t\tinteger { size = 64; align = 8; signed = false; } content_size;\n"
	"\t\tinteger { size = 64; align = 8; signed = false; } packet_size;\n"
	"\t\tinteger { size = 64; align = 8; signed = false; } "
	"packet_seq_num;\n"
	"\t\tinteger { size = 64; align = 8; signed = false; } "
	"events_discarded;\n"
	"\t\tinteger { size = 32; align = 8; signed = false; } cpu_id;\n"
	"\t\tinteger { size = 32; align = 8; signed = false; } pid;\n"
	"\t};\n"
	"\tevent.header := struct {\n"
	"\t\tenum : integer { size = 5; align = 1; signed = false; } { "
	"compact = 0 ... 30, extended = 31 } id;\n"
	"\t\tvariant <id> {\n"
	"\t\t\tstruct {\n"
	"\t\t\t\tinteger { size = 27; align = 1; signed = false; map = "
	"clock.lowtrace.value; } timestamp;\n"
	"\t\t\t} compact;\n"
	"\t\t\tstruct {\n"
	"\t\t\t\tinteger { size = 32; align = 8; signed = false; } id;\n"
	"\t\t\t\tinteger { size = 64; align = 8; signed = false; map = "
	"clock.lowtrace.value; } timestamp;\n"
	"\t\t\t} extended;\n"
	"\t\t} v;\n"
	"\t} align(32);\n"
	"};\n"
	"\n";

/* Stream class 0's events. */
static const char metadata_events0[] =
	"event {\n"
	"\tname = \"myapp:frame_done\";\n"
	"\tid = 0;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 6;\n"
	"\tfields := struct {\n"
	"\t\tinteger { size = 32; align = 8; signed = false; } id;\n"
	"\t\tinteger { size = 64; align = 8; signed = true; } late_us;\n"
	"\t\tinteger { size = 16; align = 8; signed = false; base = 16; } "
	"flags;\n"
	"\t\tenum : integer { size = 32; align = 8; signed = true; } { "
	"\"IDLE\" = 0, \"BUSY\" = 1, \"RANGE\" = 5 ... 9 } state;\n"
	"\t\tfloating_point { exp_dig = 8; mant_dig = 24; align = 8; } "
	"ratio;\n"
	"\t\tfloating_point { exp_dig = 11; mant_dig = 53; align = 8; } "
	"value;\n"
	"\t\tstring { encoding = UTF8; } name;\n"
	"\t\tinteger { size = 8; align = 8; signed = false; } bytes[4];\n"
	"\t\tinteger { size = 32; align = 8; signed = false; } "
	"_samples_length;\n"
	"\t\tinteger { size = 16; align = 8; signed = true; } "
	"samples[_samples_length];\n"
	"\t\tinteger { size = 8; align = 8; signed = true; encoding = UTF8; } "
	"comm[16];\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"myapp:ints\";\n"
	"\tid = 1;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 7;\n"
	"\tfields := struct {\n"
	"\t\tinteger { size = 8; align = 8; signed = false; } u8;\n"
	"\t\tinteger { size = 8; align = 8; signed = true; } s8;\n"
	"\t\tinteger { size = 16; align = 8; signed = false; } u16;\n"
	"\t\tinteger { size = 16; align = 8; signed = true; } s16;\n"
	"\t\tinteger { size = 32; align = 8; signed = false; base = 16; } "
	"x32;\n"
	"\t\tinteger { size = 32; align = 8; signed = true; } s32;\n"
	"\t\tinteger { size = 64; align = 8; signed = false; base = 16; } "
	"x64;\n"
	"\t\tinteger { size = 64; align = 8; signed = true; } s64;\n"
	"\t\tinteger { size = 64; align = 8; signed = false; } u64;\n"
	"\t\tinteger { size = 8; align = 8; signed = false; base = 16; } "
	"x8;\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"myapp:frame_begin\";\n"
	"\tid = 2;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 14;\n"
	"\tfields := struct {\n"
	"\t\tinteger { size = 32; align = 8; signed = false; } id;\n"
	"\t\tinteger { size = 64; align = 8; signed = false; } deadline;\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"myapp:empty\";\n"
	"\tid = 3;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 6;\n"
	"\tfields := struct { };\n"
	"};\n"
	"\n"
	"/* ids from 31 on need the extended event header */\n"
	"event {\n"
	"\tname = \"myapp:rare\";\n"
	"\tid = 40;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 4;\n"
	"\tfields := struct {\n"
	"\t\tstring { encoding = UTF8; } msg;\n"
	"\t\tenum : integer { size = 8; align = 8; signed = false; } { "
	"\"LOW\" = 0, \"HIGH\" = 1 ... 200 } level;\n"
	"\t};\n"
	"};\n"
	"\n";

/* Stream class 1's events. */
static const char metadata_events1[] =
	"event {\n"
	"\tname = \"aux:sample\";\n"
	"\tid = 0;\n"
	"\tstream_id = 1;\n"
	"\tloglevel = 6;\n"
	"\tfields := struct {\n"
	"\t\tinteger { size = 32; align = 8; signed = true; } v;\n"
	"\t\tfloating_point { exp_dig = 11; mant_dig = 53; align = 8; } d;\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"myapp:frame_begin\";\n"
	"\tid = 1;\n"
	"\tstream_id = 1;\n"
	"\tloglevel = 14;\n"
	"\tfields := struct {\n"
	"\t\tinteger { size = 32; align = 8; signed = false; } id;\n"
	"\t\tinteger { size = 64; align = 8; signed = false; } deadline;\n"
	"\t};\n"
	"};\n";

struct gen_opts {
	unsigned cpus;
	uint64_t seed;
	size_t packet;
	uint64_t freq;
	int small;
	int crash;
};

/* One stream file being written. */
struct gen_stream {
	FILE *f;
	uint32_t stream_id, cpu;
	unsigned char *buf;
	size_t used;
	uint64_t seq, first_ts, last_ts, prev_ts;
	int open;
};

static uint64_t rng_state;
/* babeltrace2 2.0.4 prints an empty string as the one before it */
static int no_empty;
static int lost; /* events_discarded grows by 3 a packet */

static inline uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

static void put(unsigned char *p, size_t *off, const void *v, size_t n)
{
	memcpy(p + *off, v, n);
	*off += n;
}

static void flush_packet(struct gen_stream *s, int last, int crash)
{
	struct lt_packet_header h;

	if (!s->open)
		return;
	memset(&h, 0, sizeof(h));
	h.magic = LT_PACKET_MAGIC;
	memcpy(h.uuid, gen_uuid, 16);
	h.stream_id = s->stream_id;
	h.stream_instance_id = (uint64_t)GEN_PID << 32 | s->cpu;
	h.timestamp_begin = s->first_ts;
	h.timestamp_end = (last && crash) ? 0 : s->last_ts;
	h.content_size = (uint64_t)s->used * 8;
	h.packet_size = h.content_size;
	h.packet_seq_num = s->seq++;
	h.events_discarded = lost ? 3 * h.packet_seq_num : 0;
	h.cpu_id = s->cpu;
	h.pid = GEN_PID;
	memcpy(s->buf, &h, sizeof(h));
	if (fwrite(s->buf, 1, s->used, s->f) != s->used) {
		perror("gen_trace: write");
		exit(1);
	}
	s->open = 0;
}

static const char *const names[] = {
	"alpha",     "", "a somewhat longer name", "quote\"back\\slash",
	"tab\there", "x"
};

static const char *pick_name(uint64_t r)
{
	const char *nm = names[r % 6];
	return (no_empty && !*nm) ? "-" : nm;
}

/* Writes the payload of event id (class cls) at p + *off; returns 0. */
static void payload(unsigned cls, uint32_t id, unsigned char *p, size_t *off,
		    uint64_t n)
{
	uint64_t r = rnd();
	if (cls == 1) {
		if (id == 0) {
			int32_t v = (int32_t)r;
			double d = (double)(int64_t)(r >> 20) / 1024.0;
			put(p, off, &v, 4);
			put(p, off, &d, 8);
		} else {
			uint32_t fid = (uint32_t)n;
			uint64_t dl = r;
			put(p, off, &fid, 4);
			put(p, off, &dl, 8);
		}
		return;
	}
	switch (id) {
	case 0: {
		uint32_t fid = (uint32_t)n;
		int64_t late = (int64_t)r >> (r & 63);
		uint16_t flags = (uint16_t)(r >> 8);
		int32_t state = (int32_t)(r % 12);
		float ratio = (float)(r % 1000) / 8.0f;
		double value = (double)(int64_t)r / 3.0e6;
		const char *nm = pick_name(r);
		uint32_t ns = (uint32_t)(r >> 40) % 5;
		put(p, off, &fid, 4);
		put(p, off, &late, 8);
		put(p, off, &flags, 2);
		put(p, off, &state, 4);
		put(p, off, &ratio, 4);
		put(p, off, &value, 8);
		put(p, off, nm, strlen(nm) + 1);
		for (int i = 0; i < 4; i++)
			p[(*off)++] = (unsigned char)(r >> (8 * i));
		put(p, off, &ns, 4);
		for (uint32_t i = 0; i < ns; i++) {
			int16_t sv = (int16_t)(r >> (i * 7));
			put(p, off, &sv, 2);
		}
		char comm[16];
		memset(comm, 0, sizeof(comm));
		snprintf(comm, sizeof(comm), "%s",
			 (r & 1) ? "frames" : "w0rk3r-thread-1");
		put(p, off, comm, 16);
		break;
	}
	case 1: {
		uint8_t u8 = (uint8_t)r;
		int8_t s8 = (int8_t)(r >> 8);
		uint16_t u16 = (uint16_t)(r >> 16);
		int16_t s16 = (int16_t)(r >> 24);
		uint32_t x32 = (uint32_t)(r >> 3);
		int32_t s32 = (int32_t)(r >> 29);
		uint64_t x64 = r;
		int64_t s64 = (int64_t)(r * 0x9E3779B97F4A7C15ull);
		uint64_t u64 = (r & 4) ? UINT64_MAX : r >> 1;
		uint8_t x8 = (uint8_t)(r >> 50);
		if ((n & 7) == 0) {
			s64 = INT64_MIN;
			s8 = INT8_MIN;
		}
		put(p, off, &u8, 1);
		put(p, off, &s8, 1);
		put(p, off, &u16, 2);
		put(p, off, &s16, 2);
		put(p, off, &x32, 4);
		put(p, off, &s32, 4);
		put(p, off, &x64, 8);
		put(p, off, &s64, 8);
		put(p, off, &u64, 8);
		put(p, off, &x8, 1);
		break;
	}
	case 2: {
		uint32_t fid = (uint32_t)n;
		uint64_t dl = r >> 4;
		put(p, off, &fid, 4);
		put(p, off, &dl, 8);
		break;
	}
	case 3:
		break;
	case 40: {
		const char *nm = pick_name(r);
		uint8_t lvl = (uint8_t)(r >> 16);
		put(p, off, nm, strlen(nm) + 1);
		put(p, off, &lvl, 1);
		break;
	}
	}
}

static int usage(void)
{
	fprintf(stderr,
		"usage: gen_trace DIR NEVENTS [--cpus N] [--seed S] "
		"[--packet BYTES] [--freq HZ] [--mix full|small] [--crash] [--no-empty] [--lost]\n");
	return 2;
}

static int write_metadata(const char *dir, const struct gen_opts *o)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/metadata", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	fputs(metadata_head, f);
	fprintf(f,
		"clock {\n"
		"\tname = \"lowtrace\";\n"
		"\tuuid = \"2a6422d0-6cee-11e0-8c08-cb07d7b3a564\";\n"
		"\tdescription = \"lowtrace trace clock (tsc calibrated "
		"against CLOCK_MONOTONIC)\";\n"
		"\tfreq = %" PRIu64 ";\n"
		"\tprecision = 1;\n"
		"\toffset_s = 1764740000;\n"
		"\toffset = 123456789;\n"
		"\tabsolute = false;\n"
		"};\n\n",
		o->freq);
	fprintf(f, metadata_stream, 0u);
	fprintf(f, metadata_stream, 1u);
	fputs(metadata_events0, f);
	fputs(metadata_events1, f);
	return fclose(f);
}

int main(int argc, char **argv)
{
	struct gen_opts o = {
		.cpus = 2, .seed = 1, .packet = 65536, .freq = 2596134168ull
	};
	struct gen_stream st[GEN_MAX_CPUS + 1];
	char path[4096];

	if (argc < 3)
		return usage();
	const char *dir = argv[1];
	uint64_t nev = strtoull(argv[2], NULL, 0);
	for (int i = 3; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--crash") == 0) {
			o.crash = 1;
			continue;
		}
		if (strcmp(a, "--lost") == 0) {
			lost = 1;
			continue;
		}
		if (strcmp(a, "--no-empty") == 0) {
			no_empty = 1;
			continue;
		}
		if (!v)
			return usage();
		i++;
		if (strcmp(a, "--cpus") == 0)
			o.cpus = (unsigned)strtoul(v, NULL, 0);
		else if (strcmp(a, "--seed") == 0)
			o.seed = strtoull(v, NULL, 0);
		else if (strcmp(a, "--packet") == 0)
			o.packet = strtoull(v, NULL, 0);
		else if (strcmp(a, "--freq") == 0)
			o.freq = strtoull(v, NULL, 0);
		else if (strcmp(a, "--mix") == 0)
			o.small = strcmp(v, "small") == 0;
		else
			return usage();
	}
	if (o.cpus < 1 || o.cpus > GEN_MAX_CPUS || o.packet < 512 ||
	    o.freq == 0)
		return usage();
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		perror(dir);
		return 1;
	}
	if (write_metadata(dir, &o) < 0)
		return 1;
	rng_state = o.seed * 0x9E3779B97F4A7C15ull + 1;

	unsigned nst = o.cpus + 1;
	for (unsigned i = 0; i < nst; i++) {
		struct gen_stream *s = &st[i];
		memset(s, 0, sizeof(*s));
		s->stream_id = i < o.cpus ? 0 : 1;
		s->cpu = i < o.cpus ? i : 0;
		if (i < o.cpus)
			snprintf(path, sizeof(path), "%s/default_%u_%u", dir,
				 GEN_PID, i);
		else
			snprintf(path, sizeof(path), "%s/aux_%u_0", dir,
				 GEN_PID);
		s->f = fopen(path, "wb");
		if (!s->f) {
			perror(path);
			return 1;
		}
		s->buf = malloc(o.packet);
		if (!s->buf)
			return 1;
		s->prev_ts = 1000000 + i * 7;
	}

	/* a global clock that every stream follows, so streams interleave */
	uint64_t now = 5000000;
	for (uint64_t n = 0; n < nev; n++) {
		uint64_t r = rnd();
		unsigned si = (unsigned)(r % nst);
		struct gen_stream *s = &st[si];
		uint64_t step = 1 + ((r >> 8) & 4095);
		if (((r >> 24) & 0x3ff) == 7)
			step = (1ull << 27) +
			       ((r >> 40) & 0xffffff); /* long gap */
		now += step;
		uint64_t ts = now;

		uint32_t id;
		unsigned k = (unsigned)((r >> 32) % 64);
		if (s->stream_id == 1)
			id = k < 40 ? 0 : 1;
		else if (o.small)
			id = k < 32 ? 2 : (k < 56 ? 1 : (k < 63 ? 3 : 40));
		else
			id = k < 20 ?
				     0 :
				     (k < 40 ?
					      1 :
					      (k < 56 ? 2 : (k < 62 ? 3 : 40)));

		/* worst case event: extended header and the widest payload */
		if (s->open &&
		    (s->used + 3 + LT_EV_HDR_EXTENDED + 160 > o.packet))
			flush_packet(s, 0, 0);
		if (!s->open) {
			s->open = 1;
			s->used = LT_PACKET_HDR_SIZE;
			/* no earlier than the previous packet's end */
			s->first_ts = ts - (r >> 50 & 255);
			if (s->first_ts < s->last_ts)
				s->first_ts = s->last_ts;
			s->prev_ts = s->first_ts;
		}
		size_t off = (s->used + LT_EV_ALIGN - 1) &
			     ~(size_t)(LT_EV_ALIGN - 1);
		memset(s->buf + s->used, 0, off - s->used);
		uint32_t hsz = id < LT_EV_ID_EXTENDED &&
					       ts - s->prev_ts <
						       (1ull << LT_EV_TS_BITS) ?
				       LT_EV_HDR_COMPACT :
				       LT_EV_HDR_EXTENDED;
		lt_ev_header_put(s->buf + off, hsz, id, ts);
		off += hsz;
		payload(s->stream_id, id, s->buf, &off, n);
		s->used = off;
		s->prev_ts = ts;
		s->last_ts = ts;
	}
	for (unsigned i = 0; i < nst; i++) {
		flush_packet(&st[i], 1, o.crash);
		if (fclose(st[i].f) != 0) {
			perror("gen_trace: close");
			return 1;
		}
		free(st[i].buf);
	}
	return 0;
}
