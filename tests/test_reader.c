/* SPDX-License-Identifier: MIT */
/*
 * test_reader.c - the CTF reader: decoding of every field type, compact
 * timestamp rebuilding, extended headers, merge order, the clock
 * conversion, and each kind of corruption, which must give an error that
 * names the file and the byte offset (and never crash).
 */
#define _GNU_SOURCE
#include "ctf/compound.h"
#include "ctf/header.h"
#include "ctf/reader.h"
#include "ctf/tsdl.h"
#include "format/event_header.h"
#include "format/packet_header.h"

#include "lt_test.h"

#include <math.h>
#include <stddef.h>
#include <sys/stat.h>

static const char meta_head[] =
	"/* CTF 1.8 */\n"
	"// a line comment\n"
	"trace {\n"
	"	major = 1; minor = 8;\n"
	"	uuid = \"2a6422d0-6cee-11e0-8c08-cb07d7b3a564\";\n"
	"	byte_order = le;\n"
	"	some_future_attribute = 3;\n"
	"	packet.header := struct {\n"
	"		integer { size = 32; align = 8; signed = false; base = 16; } "
	"magic;\n"
	"		integer { size = 8; align = 8; signed = false; } uuid[16];\n"
	"		integer { size = 32; align = 8; signed = false; } stream_id;\n"
	"		integer { size = 64; align = 8; signed = false; } "
	"stream_instance_id;\n"
	"	};\n"
	"};\n"
	"env { hostname = \"box\"; vpid = 4242; };\n"
	"clock {\n"
	"	name = \"lowtrace\";\n"
	"	freq = 2596134168; precision = 1;\n"
	"	offset_s = 1764740000; offset = 123456789; absolute = false;\n"
	"};\n";

static const char meta_stream[] =
	"stream {\n"
	"	id = %u;\n"
	"	packet.context := struct {\n"
	"		integer { size = 64; align = 8; signed = false; map = "
	"clock.lowtrace.value; } timestamp_begin;\n"
	"		integer { size = 64; align = 8; signed = false; map = "
	"clock.lowtrace.value; } timestamp_end;\n"
	"		integer { size = 64; align = 8; signed = false; } "
	"content_size;\n"
	"		integer { size = 64; align = 8; signed = false; } "
	"packet_size;\n"
	"		integer { size = 64; align = 8; signed = false; } "
	"packet_seq_num;\n"
	"		integer { size = 64; align = 8; signed = false; } "
	"events_discarded;\n"
	"		integer { size = 32; align = 8; signed = false; } cpu_id;\n"
	"		integer { size = 32; align = 8; signed = false; } pid;\n"
	"	};\n"
	"	event.header := struct {\n"
	"		enum : integer { size = 5; align = 1; signed = false; } { "
	"compact = 0 ... 30, extended = 31 } id;\n"
	"		variant <id> {\n"
	"			struct { integer { size = 27; align = 1; signed = "
	"false; map = clock.lowtrace.value; } timestamp; } compact;\n"
	"			struct { integer { size = 32; align = 8; signed = "
	"false; } id; integer { size = 64; align = 8; signed = false; "
	"map = clock.lowtrace.value; } timestamp; } extended;\n"
	"		} v;\n"
	"	} align(32);\n"
	"};\n";

static const char meta_events[] =
	"event {\n"
	"	name = \"t:ints\"; id = 0; stream_id = 0; loglevel = 6;\n"
	"	fields := struct {\n"
	"		integer { size = 8; align = 8; signed = false; } a;\n"
	"		integer { size = 8; align = 8; signed = true; } b;\n"
	"		integer { size = 16; align = 8; signed = false; } c;\n"
	"		integer { size = 16; align = 8; signed = true; } d;\n"
	"		integer { size = 32; align = 8; signed = false; base = 16; } "
	"x;\n"
	"		integer { size = 32; align = 8; signed = true; } e;\n"
	"		integer { size = 64; align = 8; signed = false; } f;\n"
	"		integer { size = 64; align = 8; signed = true; } g;\n"
	"	};\n"
	"};\n"
	"event {\n"
	"	name = \"t:mix\"; id = 1; stream_id = 0;\n"
	"	fields := struct {\n"
	"		enum : integer { size = 32; align = 8; signed = true; } { "
	"\"IDLE\" = 0, \"BUSY\", \"RANGE\" = 5 ... 9 } st;\n"
	"		floating_point { exp_dig = 8; mant_dig = 24; align = 8; } r;\n"
	"		floating_point { exp_dig = 11; mant_dig = 53; align = 8; } v;\n"
	"		string { encoding = UTF8; } s;\n"
	"		integer { size = 8; align = 8; signed = false; } bytes[3];\n"
	"		integer { size = 32; align = 8; signed = false; } _n_length;\n"
	"		integer { size = 16; align = 8; signed = true; } "
	"n[_n_length];\n"
	"		integer { size = 8; align = 8; signed = true; encoding = UTF8; "
	"} comm[8];\n"
	"	};\n"
	"};\n"
	"event { name = \"t:big\"; id = 40; stream_id = 0; fields := struct {\n"
	"	integer { size = 32; align = 8; signed = false; } x; }; };\n"
	"event { name = \"u:one\"; id = 0; stream_id = 1; fields := struct {\n"
	"	integer { size = 32; align = 8; signed = false; } x; }; };\n";

static const uint8_t uuid[16] = { 0x2a, 0x64, 0x22, 0xd0, 0x6c, 0xee,
				  0x11, 0xe0, 0x8c, 0x08, 0xcb, 0x07,
				  0xd7, 0xb3, 0xa5, 0x64 };

static char *metadata(void)
{
	static char buf[16384];
	int n = snprintf(buf, sizeof(buf), "%s", meta_head);
	n += snprintf(buf + n, sizeof(buf) - (size_t)n, meta_stream, 0u);
	n += snprintf(buf + n, sizeof(buf) - (size_t)n, meta_stream, 1u);
	snprintf(buf + n, sizeof(buf) - (size_t)n, "%s", meta_events);
	return buf;
}

/* A stream file being built: packets appended to buf. */
struct sbuf {
	unsigned char buf[1 << 16];
	size_t len;
	size_t pkt; /* start of the open packet */
	uint64_t ts_begin, last_ts;
	uint32_t stream_id, cpu;
	uint64_t seq;
};

static void pkt_begin(struct sbuf *s, uint32_t stream_id, uint32_t cpu,
		      uint64_t ts_begin)
{
	s->pkt = s->len;
	s->len += LT_PACKET_HDR_SIZE;
	memset(s->buf + s->pkt, 0, LT_PACKET_HDR_SIZE);
	s->ts_begin = s->last_ts = ts_begin;
	s->stream_id = stream_id;
	s->cpu = cpu;
}

static void align4(struct sbuf *s)
{
	while ((s->len - s->pkt) % 4)
		s->buf[s->len++] = 0;
}

static void ev_compact(struct sbuf *s, uint32_t id, uint64_t ts, const void *pl,
		       size_t n)
{
	align4(s);
	uint32_t w = id | (uint32_t)(ts << 5);
	memcpy(s->buf + s->len, &w, 4);
	s->len += 4;
	memcpy(s->buf + s->len, pl, n);
	s->len += n;
	s->last_ts = ts;
}

static void ev_ext(struct sbuf *s, uint32_t id, uint64_t ts, const void *pl,
		   size_t n)
{
	align4(s);
	s->buf[s->len] = 31;
	memcpy(s->buf + s->len + 1, &id, 4);
	memcpy(s->buf + s->len + 5, &ts, 8);
	s->len += 13;
	memcpy(s->buf + s->len, pl, n);
	s->len += n;
	s->last_ts = ts;
}

/* Closes the packet; returns its offset. */
static size_t pkt_end(struct sbuf *s)
{
	struct lt_packet_header h;
	memset(&h, 0, sizeof(h));
	h.magic = LT_PACKET_MAGIC;
	memcpy(h.uuid, uuid, 16);
	h.stream_id = s->stream_id;
	h.stream_instance_id = (uint64_t)4242 << 32 | s->cpu;
	h.timestamp_begin = s->ts_begin;
	h.timestamp_end = s->last_ts;
	h.content_size = h.packet_size = (uint64_t)(s->len - s->pkt) * 8;
	h.packet_seq_num = s->seq++;
	h.cpu_id = s->cpu;
	h.pid = 4242;
	memcpy(s->buf + s->pkt, &h, sizeof(h));
	return s->pkt;
}

/* Header fields of the packet at off (packets need not be aligned). */
#define HDR_GET(s, off, f)                                           \
	({                                                           \
		__typeof__(((struct lt_packet_header *)0)->f) g_;    \
		memcpy(&g_,                                          \
		       (s)->buf + (off) +                            \
			       offsetof(struct lt_packet_header, f), \
		       sizeof(g_));                                  \
		g_;                                                  \
	})
#define HDR_SET(s, off, f, v)                                           \
	do {                                                            \
		__typeof__(((struct lt_packet_header *)0)->f) v_ = (v); \
		memcpy((s)->buf + (off) +                               \
			       offsetof(struct lt_packet_header, f),    \
		       &v_, sizeof(v_));                                \
	} while (0)

static uint32_t u32_pl(uint32_t x)
{
	return x;
}

/* One packet of three t:big events (ids 40: extended headers). */
static size_t simple_packet(struct sbuf *s, uint64_t ts)
{
	pkt_begin(s, 0, 0, ts);
	for (uint32_t i = 0; i < 3; i++) {
		uint32_t x = u32_pl(i);
		ev_ext(s, 40, ts + i * 10, &x, 4);
	}
	return pkt_end(s);
}

static lt_reader_t *open1(struct sbuf *s, const struct lt_reader_opts *o,
			  char *err, size_t errlen, int *rc)
{
	struct lt_mem_stream ms = { .name = "s0",
				    .data = s->buf,
				    .len = s->len };
	lt_reader_t *t = NULL;
	const char *m = metadata();
	*rc = lt_reader_open_mem(m, strlen(m), &ms, 1, o, &t, err, errlen);
	return t;
}

/* Reads everything; returns the event count or the error. */
static long drain(lt_reader_t *t)
{
	const struct lt_event *ev;
	long n = 0;
	int r;
	while ((r = lt_reader_next(t, &ev)) > 0)
		n++;
	return r < 0 ? r : n;
}

/*
 * Expects the trace in s to be rejected, at open or while read, with a
 * message naming "s0" and "offset OFF".
 */
static void expect_bad(struct sbuf *s, unsigned long long off, const char *what)
{
	char err[1024], want[64];
	int rc;
	lt_reader_t *t = open1(s, NULL, err, sizeof(err), &rc);
	const char *msg = err;
	if (rc == 0) {
		long n = drain(t);
		if (n >= 0)
			LT_FAIL("%s: read %ld events, expected an error", what,
				n);
		msg = lt_reader_error(t);
	}
	snprintf(want, sizeof(want), "s0: offset %llu: ", off);
	if (!strstr(msg, want))
		LT_FAIL("%s: message \"%s\" lacks \"%s\"", what, msg, want);
	if (!strstr(msg, what))
		LT_FAIL("message \"%s\" lacks \"%s\"", msg, what);
	lt_reader_close(t);
}

LT_TEST(test_integers_decode_at_every_size)
{
	static struct sbuf s;
	unsigned char pl[64];
	size_t n = 0;
	uint8_t a = 255;
	int8_t b = -128;
	uint16_t c = 65535;
	int16_t d = -32768;
	uint32_t x = 0xDEADBEEF;
	int32_t e = INT32_MIN;
	uint64_t f = UINT64_MAX;
	int64_t g = INT64_MIN;
	memcpy(pl + n, &a, 1), n += 1;
	memcpy(pl + n, &b, 1), n += 1;
	memcpy(pl + n, &c, 2), n += 2;
	memcpy(pl + n, &d, 2), n += 2;
	memcpy(pl + n, &x, 4), n += 4;
	memcpy(pl + n, &e, 4), n += 4;
	memcpy(pl + n, &f, 8), n += 8;
	memcpy(pl + n, &g, 8), n += 8;
	pkt_begin(&s, 0, 3, 1000);
	ev_compact(&s, 0, 1000, pl, n);
	pkt_end(&s);

	char err[512];
	int rc;
	lt_reader_t *t = open1(&s, NULL, err, sizeof(err), &rc);
	if (rc)
		LT_FAIL("open: %s", err);
	const struct lt_event *ev;
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
	LT_ASSERT_STREQ(ev->cls->name, "t:ints");
	LT_ASSERT_EQ(ev->cpu, 3);
	LT_ASSERT_EQ(ev->pid, 4242);
	LT_ASSERT_EQ(ev->ts, 1000);
	struct lt_value v;
	LT_ASSERT_EQ(lt_event_field(ev, 0, &v), 0);
	LT_ASSERT_EQ(v.u, 255);
	lt_event_field(ev, 1, &v);
	LT_ASSERT_EQ(v.i, -128);
	lt_event_field(ev, 2, &v);
	LT_ASSERT_EQ(v.u, 65535);
	lt_event_field(ev, 3, &v);
	LT_ASSERT_EQ(v.i, -32768);
	lt_event_field_by_name(ev, "x", &v);
	LT_ASSERT_EQ(v.u, 0xDEADBEEF);
	lt_event_field(ev, 5, &v);
	LT_ASSERT_EQ(v.i, INT32_MIN);
	lt_event_field(ev, 6, &v);
	LT_ASSERT_CMP(v.u, ==, UINT64_MAX);
	lt_event_field(ev, 7, &v);
	LT_ASSERT_CMP(v.i, ==, INT64_MIN);
	LT_ASSERT_EQ(lt_event_field_by_name(ev, "nope", &v), -ENOENT);
	LT_ASSERT_EQ(lt_event_field(ev, 8, &v), -EINVAL);

	char out[4096];
	char *end = lt_event_format(ev, out);
	LT_ASSERT_CMP(end - out, <=, (long)lt_event_format_bound(ev));
	*end = 0;
	LT_ASSERT_STREQ(out,
			"{ a = 255, b = -128, c = 65535, d = -32768, "
			"x = 0xDEADBEEF, e = -2147483648, f = "
			"18446744073709551615, g = -9223372036854775808 }");
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 0);
	LT_ASSERT_STREQ(lt_reader_env(t, "hostname"), "box");
	LT_ASSERT_STREQ(lt_reader_env(t, "vpid"), "4242");
	lt_reader_close(t);
}

/* Big-endian integers and floats: each field as lt_event_field() reads it
 * in line (one load ending on the field, the packet's header before it)
 * and as its reading out of line (lt_event_field_any()) reads it. */
LT_TEST(test_big_endian_and_floats_read_in_line_as_out_of_line)
{
	static const char meta_be[] =
		"event { name = \"t:be\"; id = 2; stream_id = 0; "
		"fields := struct {\n"
		"	integer { size = 16; align = 8; signed = false; "
		"byte_order = be; } a;\n"
		"	integer { size = 16; align = 8; signed = true; "
		"byte_order = be; } b;\n"
		"	integer { size = 32; align = 8; signed = true; "
		"byte_order = be; } c;\n"
		"	integer { size = 64; align = 8; signed = false; "
		"byte_order = be; } d;\n"
		"	integer { size = 8; align = 8; signed = true; } e;\n"
		"	floating_point { exp_dig = 8; mant_dig = 24; align = 8; } "
		"r;\n"
		"	floating_point { exp_dig = 11; mant_dig = 53; align = 8; } "
		"v; }; };\n";
	static char meta[20000];
	static struct sbuf s;
	const unsigned char pl[] = { 0x12, 0x34, 0xff, 0xfe, 0xff, 0xfe,
				     0x79, 0x60, 1,    2,    3,	   4,
				     5,	   6,	 7,    8,    0xfb };
	unsigned char buf[64];
	float r = 0.25f;
	double dv = -1.5e300;
	memcpy(buf, pl, sizeof(pl));
	memcpy(buf + sizeof(pl), &r, 4);
	memcpy(buf + sizeof(pl) + 4, &dv, 8);
	snprintf(meta, sizeof(meta), "%s%s", metadata(), meta_be);
	pkt_begin(&s, 0, 0, 1000);
	ev_compact(&s, 2, 1000, buf, sizeof(pl) + 12);
	pkt_end(&s);

	struct lt_mem_stream ms = { .name = "s0", .data = s.buf, .len = s.len };
	lt_reader_t *t = NULL;
	char err[512];
	int rc = lt_reader_open_mem(meta, strlen(meta), &ms, 1, NULL, &t, err,
				    sizeof(err));
	if (rc)
		LT_FAIL("open: %s", err);
	const struct lt_event *ev;
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
	LT_ASSERT_STREQ(ev->cls->name, "t:be");
	LT_ASSERT_EQ(ev->room, 1);
	struct lt_value v, w;
	const uint64_t want[] = { 0x1234, (uint64_t)-2, (uint64_t)-100000,
				  0x0102030405060708ull, (uint64_t)-5 };
	for (unsigned i = 0; i < ev->cls->nfields; i++) {
		LT_ASSERT_EQ(lt_event_field(ev, i, &v), 0);
		LT_ASSERT_EQ(lt_event_field_any(ev, i, &w), 0);
		LT_ASSERT_EQ(v.kind, w.kind);
		LT_ASSERT_CMP(v.u, ==, w.u);
		LT_ASSERT_EQ(v.len, w.len);
		LT_ASSERT(v.fc == w.fc && v.data == w.data && !v.str);
		if (i < 5)
			LT_ASSERT_CMP(v.u, ==, want[i]);
	}
	lt_event_field(ev, 5, &v);
	LT_ASSERT(v.kind == LT_KIND_FLOAT && v.f == 0.25);
	lt_event_field(ev, 6, &v);
	LT_ASSERT(v.f == -1.5e300);
	lt_reader_close(t);
}

static size_t mix_payload(unsigned char *pl, int32_t st, const char *str,
			  uint32_t nn, const char *comm)
{
	size_t n = 0;
	float r = 0.25f;
	double v = -1.5e300;
	memcpy(pl + n, &st, 4), n += 4;
	memcpy(pl + n, &r, 4), n += 4;
	memcpy(pl + n, &v, 8), n += 8;
	memcpy(pl + n, str, strlen(str) + 1), n += strlen(str) + 1;
	pl[n++] = 1;
	pl[n++] = 2;
	pl[n++] = 3;
	memcpy(pl + n, &nn, 4), n += 4;
	for (uint32_t i = 0; i < nn; i++) {
		int16_t x = (int16_t)(-(int)i * 1000);
		memcpy(pl + n, &x, 2), n += 2;
	}
	memset(pl + n, 0, 8);
	memcpy(pl + n, comm, strlen(comm) < 8 ? strlen(comm) : 8);
	return n + 8;
}

/* lt_hdr_bits() against the bits one by one: every offset in a word and
 * every size, either byte order, spans of one to nine bytes. */
LT_TEST(test_bits_read_one_by_one)
{
	unsigned char b[32];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < sizeof(b); i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		b[i] = (unsigned char)x;
	}
	for (int be = 0; be <= 1; be++)
		for (uint64_t bit = 0; bit < 80; bit++)
			for (unsigned size = 1; size <= 64; size++) {
				uint64_t want = 0;
				for (unsigned j = 0; j < size; j++) {
					uint64_t n = bit + j;
					if (be)
						want = want << 1 |
						       ((b[n / 8] >>
							 (7 - n % 8)) &
							1);
					else
						want |= (uint64_t)((b[n / 8] >>
								    (n % 8)) &
								   1)
							<< j;
				}
				uint64_t got = lt_hdr_bits(b, bit, size, be);
				if (got != want)
					LT_FAIL("bit %llu size %u be %d: %llx, "
						"not %llx",
						(unsigned long long)bit, size,
						be, (unsigned long long)got,
						(unsigned long long)want);
				/* a value's reading with room before the
				 * bytes (from b + 8 on) */
				struct lt_field_class fc = {
					.kind = LT_KIND_INT,
					.bitfield = 1,
					.bitsize = (uint8_t)size,
					.be = (uint8_t)be
				};
				struct lt_value v;
				if (!be && size <= 57 && bit >= 64 &&
				    bit + size <= 8 * sizeof(b)) {
					/* LT_VOP_BITS_LE's one load, signed */
					const unsigned sh = 64 - size;
					fc.is_signed = 1;
					lt_value_bits(&fc, b + 8,
						      (uint32_t)(bit - 64), 1,
						      &v);
					fc.is_signed = 0;
					if (v.i != (int64_t)(want << sh) >> sh)
						LT_FAIL("one load: bit %llu "
							"size %u: %llx",
							(unsigned long long)bit,
							size,
							(unsigned long long)
								v.u);
				}
				if (bit >= 64 && bit + size <= 8 * sizeof(b)) {
					lt_value_bitfield_room(
						&fc, b + 8,
						(uint32_t)(bit - 64), 1, &v);
					if (v.u != want)
						LT_FAIL("room: bit %llu size "
							"%u be %d: %llx",
							(unsigned long long)bit,
							size, be,
							(unsigned long long)
								v.u);
				}
			}
}

/* The tables that stand for searches (enum labels, variants' options)
 * give what the searches give, below 64 and past it, and a text array's
 * length found in line is strnlen()'s. */
LT_TEST(test_label_and_option_tables_agree_with_the_searches)
{
	static const char meta_tab[] =
		"event { name = \"t:tab\"; id = 9; stream_id = 0; "
		"fields := struct {\n"
		"	enum : integer { size = 8; align = 8; signed = true; } "
		"{ NEG = -3 ... -1, ZERO = 0, LOW = 1 ... 9, MID = 60 ... 70, "
		"TOP = 100 } e;\n"
		"	enum : integer { size = 8; align = 8; signed = false; } "
		"{ A = 0, B = 1 ... 2, C = 65 ... 70 } sel;\n"
		"	variant <sel> { integer { size = 8; align = 8; "
		"signed = false; } A; integer { size = 16; align = 8; "
		"signed = false; } B; integer { size = 32; align = 8; "
		"signed = false; } C; } v;\n"
		"	integer { size = 8; align = 8; signed = false; "
		"encoding = UTF8; } txt[12]; }; };\n";
	static char meta[20000];
	static struct sbuf s;
	/* e MID, sel 66 (C: past the table), C, "abc"; e NEG, sel 2 (B),
	 * B, twelve letters and no 0 */
	const unsigned char p1[] = { 65,  66,  0x78, 0x56, 0x34, 0x12,
				     'a', 'b', 'c',  0,	   'x',	 'y',
				     'z', 0,   0,    0,	   0,	 0 };
	const unsigned char p2[] = {
		0xfe, 2,   0x34, 0x12, 'a', 'b', 'c', 'd',
		'e',  'f', 'g',	 'h',  'i', 'j', 'k', 'l'
	};
	snprintf(meta, sizeof(meta), "%s%s", metadata(), meta_tab);
	pkt_begin(&s, 0, 0, 1000);
	ev_compact(&s, 9, 1000, p1, sizeof(p1));
	ev_compact(&s, 9, 1001, p2, sizeof(p2));
	pkt_end(&s);
	struct lt_mem_stream ms = { .name = "s0", .data = s.buf, .len = s.len };
	lt_reader_t *t = NULL;
	char err[512];
	if (lt_reader_open_mem(meta, strlen(meta), &ms, 1, NULL, &t, err,
			       sizeof(err)))
		LT_FAIL("open: %s", err);
	const struct lt_event *ev;
	struct lt_value v;
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
	const struct lt_event_class *ec = ev->cls;
	const unsigned nf = ec->nfields;
	LT_ASSERT_STREQ(ec->name, "t:tab");
	LT_ASSERT_EQ(lt_event_field(ev, nf - 6, &v), 0);
	LT_ASSERT_STREQ(v.str, "MID");
	LT_ASSERT_EQ(lt_event_field(ev, nf - 5, &v), 0);
	LT_ASSERT_STREQ(v.str, "C");
	LT_ASSERT_EQ(lt_event_field(ev, nf - 4, &v), -ENOENT);
	LT_ASSERT_EQ(lt_event_field(ev, nf - 2, &v), 0);
	LT_ASSERT_CMP(v.u, ==, 0x12345678);
	LT_ASSERT_EQ(lt_event_field(ev, nf - 1, &v), 0);
	LT_ASSERT(v.len == 12 && v.u == 3);
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
	LT_ASSERT_EQ(lt_event_field(ev, nf - 6, &v), 0);
	LT_ASSERT(v.i == -2 && !strcmp(v.str, "NEG"));
	LT_ASSERT_EQ(lt_event_field(ev, nf - 3, &v), 0);
	LT_ASSERT_CMP(v.u, ==, 0x1234);
	LT_ASSERT_EQ(lt_event_field(ev, nf - 2, &v), -ENOENT);
	LT_ASSERT_EQ(lt_event_field(ev, nf - 1, &v), 0);
	LT_ASSERT(v.len == 12 && v.u == 12);
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 0);

	const struct lt_field_class *fe = &ec->fields[nf - 6];
	const struct lt_field_class *fs = &ec->fields[nf - 5];
	const struct lt_field_class *fv = &ec->fields[nf - 4];
	LT_ASSERT(fe->nlabel_at == 64 && fs->nlabel_at == 64);
	LT_ASSERT(fv->var_first && fv->nopt_at == 64);
	for (uint64_t raw = 0; raw < 300; raw++) {
		LT_ASSERT(lt_enum_label(fe, raw) == lt_enum_scan(fe, raw));
		LT_ASSERT(lt_enum_label(fs, raw) == lt_enum_scan(fs, raw));
		int64_t opt = lt_var_option(fv, (int64_t)raw, 0);
		if (raw < fv->nopt_at)
			LT_ASSERT_EQ(fv->opt_at[raw] == LT_OPT_NONE ?
					     -1 :
					     (int64_t)fv->opt_at[raw],
				     opt);
	}
	LT_ASSERT(lt_enum_label(fe, (uint64_t)-2) != NULL);
	lt_reader_close(t);

	/* every length of text, its 0 anywhere or nowhere; with room, the 8
	 * bytes before it 0 and its bytes 1 (a word's subtraction would
	 * borrow from them) or neither */
	unsigned char buf[8 + 100];
	unsigned char *txt = buf + 8;
	for (size_t n = 0; n <= 100; n++)
		for (size_t z = 0; z <= n; z++)
			for (int before = 0; before < 2; before++) {
				memset(buf, before, 8);
				memset(txt, before ? 'a' : 1, 100);
				if (z < n)
					txt[z] = 0;
				const unsigned char *want = memchr(txt, 0, n);
				LT_ASSERT(ld_find_nul(txt, n) == want);
				LT_ASSERT(ld_find_nul_room(txt, n) == want);
			}
}

/*
 * A packet header and context without a variant are read by their flat
 * form as the tree reads them: every role's value and place, and where
 * they end, on random bytes, for bit-fields, big-endian fields, a uuid
 * and nested structs; a context with a variant is not flat, and both read
 * a header cut short as the tree does.
 */
LT_TEST(test_flat_packet_headers_read_as_their_trees)
{
	static const char meta[] =
		"/* CTF 1.8 */\n"
		"typealias integer { size = 8; align = 8; signed = false; } := u8;\n"
		"trace { major = 1; minor = 8; byte_order = le;\n"
		"  packet.header := struct {\n"
		"    integer { size = 32; align = 8; signed = false; } magic;\n"
		"    u8 uuid[16];\n"
		"    integer { size = 3; align = 1; signed = false; } pad3;\n"
		"    integer { size = 13; align = 1; signed = false; } stream_id;\n"
		"    struct { integer { size = 64; align = 16; signed = false;\n"
		"      byte_order = be; } stream_instance_id; } inner;\n"
		"  };\n"
		"};\n"
		"clock { name = c; freq = 1000000000; };\n"
		"stream { id = 0; packet.context := struct {\n"
		"  integer { size = 5; align = 1; signed = false; } cpu_id;\n"
		"  integer { size = 61; align = 1; signed = false;\n"
		"    map = clock.c.value; } timestamp_begin;\n"
		"  integer { size = 64; align = 32; signed = false; byte_order = be;\n"
		"    map = clock.c.value; } timestamp_end;\n"
		"  integer { size = 32; align = 8; signed = false; } content_size;\n"
		"  integer { size = 32; align = 8; signed = false; } packet_size;\n"
		"  u8 other;\n"
		"  integer { size = 20; align = 4; signed = false; } events_discarded;\n"
		"}; };\n"
		"stream { id = 1; packet.context := struct {\n"
		"  enum : u8 { A = 0, B = 1 } sel;\n"
		"  variant <sel> { u8 A; integer { size = 32; align = 8;\n"
		"    signed = false; } B; } v;\n"
		"  integer { size = 32; align = 8; signed = false; } packet_size;\n"
		"}; };\n"
		"event { name = e; id = 0; stream_id = 0; fields := struct { u8 x; }; };\n"
		"event { name = f; id = 0; stream_id = 1; fields := struct { u8 x; }; };\n";
	struct lt_tsdl m;
	char err[256];
	LT_ASSERT_EQ(0, lt_tsdl_parse(meta, sizeof(meta) - 1, "metadata", &m,
				      err, sizeof(err)));
	LT_ASSERT(m.pkt_header_flat.flat);
	LT_ASSERT_EQ(4, m.pkt_header_flat.n);
	const struct lt_stream_class *sc0 = lt_tsdl_stream(&m, 0);
	const struct lt_stream_class *sc1 = lt_tsdl_stream(&m, 1);
	LT_ASSERT(sc0 && sc0->pkt_context_flat.flat);
	LT_ASSERT(sc1 && !sc1->pkt_context_flat.flat);
	unsigned char b[96];
	uint64_t seed = 7;
	for (int round = 0; round < 2000; round++) {
		for (size_t k = 0; k < sizeof(b); k++) {
			seed = seed * 6364136223846793005ull +
			       1442695040888963407ull;
			b[k] = (unsigned char)(seed >> 56);
		}
		/* the whole header, or cut anywhere in it */
		size_t len = round % 4 ? sizeof(b) : (size_t)(round / 4) % 48;
		for (int st = 0; st < 2; st++) {
			const struct lt_stream_class *sc = st ? sc1 : sc0;
			struct lt_hvals t, f;
			memset(&t, 0, sizeof(t));
			memset(&f, 0, sizeof(f));
			uint64_t tb = 0, fb = 0;
			int tr = lt_hdr_read(m.pkt_header, b, len, &tb, &t);
			int fr = lt_hdr_read_placed(&m.pkt_header_flat,
						    m.pkt_header, b, len, &fb,
						    &f);
			LT_ASSERT_EQ(tr, fr);
			if (!tr) {
				tr = lt_hdr_read(sc->pkt_context, b, len, &tb,
						 &t);
				fr = lt_hdr_read_placed(&sc->pkt_context_flat,
							sc->pkt_context, b, len,
							&fb, &f);
				LT_ASSERT_EQ(tr, fr);
			}
			if (tr == -2)
				continue; /* a tag selecting no option */
			if (!tr)
				LT_ASSERT_EQ(tb, fb);
			LT_ASSERT_EQ(t.set, f.set);
			for (int r = 1; r < LT_ROLE_N; r++)
				if (t.set & 1u << r) {
					LT_ASSERT_EQ(t.at[r], f.at[r]);
					if (r != LT_ROLE_UUID)
						LT_ASSERT_EQ(t.v[r], f.v[r]);
				}
		}
	}
	lt_tsdl_free(&m);
}

/* Strings of 16 bytes and more: their ends and escapes found 16 or 32
 * bytes at a time, an escape in the first block, in a later one, none. */
LT_TEST(test_long_strings_ended_and_escaped)
{
	static const char *strs[] = {
		"0123456789abcdefghijklmnopqrstuvwxyz0123456789",
		"0123456789abcdefghij\"klmnopqrstuvwxyz\t",
		"0123456789abcdef",
		"0123456789abcdefghijklmnopqrstu",
		"q\"23456789abcdefghijklmnopqrstuvwxyz",
	};
	static const char *want[] = {
		"0123456789abcdefghijklmnopqrstuvwxyz0123456789",
		"0123456789abcdefghij\\\"klmnopqrstuvwxyz\\t",
		"0123456789abcdef",
		"0123456789abcdefghijklmnopqrstu",
		"q\\\"23456789abcdefghijklmnopqrstuvwxyz",
	};
	static struct sbuf s;
	unsigned char pl[256];
	size_t n;
	pkt_begin(&s, 0, 0, 50);
	for (int k = 0; k < 5; k++) {
		n = mix_payload(pl, 7, strs[k], 0, "c");
		ev_compact(&s, 1, 60 + (uint64_t)k, pl, n);
	}
	pkt_end(&s);

	char err[512], out[4096], line[512];
	int rc;
	lt_reader_t *t = open1(&s, NULL, err, sizeof(err), &rc);
	if (rc)
		LT_FAIL("open: %s", err);
	const struct lt_event *ev;
	struct lt_value v;
	for (int k = 0; k < 5; k++) {
		LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
		lt_event_field(ev, 3, &v);
		LT_ASSERT_EQ(v.len, strlen(strs[k]));
		LT_ASSERT(memcmp(v.str, strs[k], v.len) == 0);
		char *end = lt_event_format(ev, out);
		LT_ASSERT_CMP(end - out, <=, (long)lt_event_format_bound(ev));
		*end = 0;
		snprintf(line, sizeof(line),
			 "{ st = ( \"RANGE\" : container = 7 ), r = 0.25, v = "
			 "-1.5e+300, s = \"%s\", bytes = [ [0] = 1, [1] = 2, "
			 "[2] = 3 ], n_length = 0, n = [ ], comm = \"c\" }",
			 want[k]);
		LT_ASSERT_STREQ(out, line);
	}
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 0);
	lt_reader_close(t);
}

LT_TEST(test_enum_float_string_array_sequence_text_decode)
{
	static struct sbuf s;
	unsigned char pl[256];
	size_t n;
	pkt_begin(&s, 0, 0, 50);
	n = mix_payload(pl, 7, "q\"b\\t\tz", 3, "frames");
	ev_compact(&s, 1, 60, pl, n);
	n = mix_payload(pl, 2, "", 0, "12345678");
	ev_compact(&s, 1, 70, pl, n);
	n = mix_payload(pl, 1, "x", 1, "");
	ev_compact(&s, 1, 80, pl, n);
	pkt_end(&s);

	char err[512], out[4096];
	int rc;
	lt_reader_t *t = open1(&s, NULL, err, sizeof(err), &rc);
	if (rc)
		LT_FAIL("open: %s", err);
	const struct lt_event *ev;
	struct lt_value v, e;
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
	lt_event_field(ev, 0, &v);
	LT_ASSERT_EQ(v.kind, LT_KIND_ENUM);
	LT_ASSERT_EQ(v.i, 7);
	LT_ASSERT_STREQ(v.str, "RANGE");
	lt_event_field(ev, 1, &v);
	LT_ASSERT_CMP(v.f, ==, 0.25);
	lt_event_field(ev, 2, &v);
	LT_ASSERT_CMP(v.f, ==, -1.5e300);
	lt_event_field(ev, 3, &v);
	LT_ASSERT_EQ(v.len, 7);
	LT_ASSERT(memcmp(v.str, "q\"b\\t\tz", 7) == 0);
	lt_event_field(ev, 4, &v);
	LT_ASSERT_EQ(v.len, 3);
	LT_ASSERT_EQ(lt_value_elem(&v, 2, &e), 0);
	LT_ASSERT_EQ(e.u, 3);
	LT_ASSERT_EQ(lt_value_elem(&v, 3, &e), -EINVAL);
	lt_event_field_by_name(ev, "n", &v);
	LT_ASSERT_EQ(v.kind, LT_KIND_SEQUENCE);
	LT_ASSERT_EQ(v.len, 3);
	lt_value_elem(&v, 2, &e);
	LT_ASSERT_EQ(e.i, -2000);
	char *end = lt_event_format(ev, out);
	LT_ASSERT_CMP(end - out, <=, (long)lt_event_format_bound(ev));
	*end = 0;
	LT_ASSERT_STREQ(
		out, "{ st = ( \"RANGE\" : container = 7 ), r = 0.25, v = "
		     "-1.5e+300, s = \"q\\\"b\\\\t\\tz\", bytes = [ [0] = 1, "
		     "[1] = 2, [2] = 3 ], n_length = 3, n = [ [0] = 0, [1] "
		     "= -1000, [2] = -2000 ], comm = \"frames\" }");

	LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
	*lt_event_format(ev, out) = 0;
	LT_ASSERT_STREQ(out,
			"{ st = ( <unknown> : container = 2 ), r = 0.25, v = "
			"-1.5e+300, s = \"\", bytes = [ [0] = 1, [1] = 2, [2] "
			"= 3 ], n_length = 0, n = [ ], comm = \"12345678\" }");
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
	lt_event_field(ev, 0, &v);
	LT_ASSERT_STREQ(v.str, "BUSY"); /* no '=': the previous value + 1 */
	lt_event_field(ev, 7, &v);
	LT_ASSERT_EQ(v.u, 0); /* text length up to the NUL */
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 0);
	lt_reader_close(t);
}

LT_TEST(test_compact_timestamp_wraps_27_bits)
{
	static struct sbuf s;
	const uint64_t w = 1ull << 27;
	uint64_t ts[] = { 5 * w - 10, 5 * w + 3, 6 * w - 1, 6 * w + w - 2 };
	/* u:one (stream class 1, id 0) has one 32-bit field */
	pkt_begin(&s, 1, 0, 5 * w - 20);
	for (unsigned i = 0; i < 4; i++) {
		uint32_t x = i;
		ev_compact(&s, 0, ts[i], &x, 4);
	}
	pkt_end(&s);
	char err[512];
	int rc;
	lt_reader_t *t = open1(&s, NULL, err, sizeof(err), &rc);
	if (rc)
		LT_FAIL("open: %s", err);
	const struct lt_event *ev;
	for (unsigned i = 0; i < 4; i++) {
		LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
		LT_ASSERT_EQ(ev->ts, ts[i]);
		LT_ASSERT_EQ(ev->ns, lt_clock_ns(lt_reader_clock(t), ts[i]));
	}
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 0);
	lt_reader_close(t);
}

LT_TEST(test_extended_header_carries_long_gap_and_big_id)
{
	static struct sbuf s;
	uint32_t x = 77;
	uint64_t far = 1000 + (1ull << 40);
	pkt_begin(&s, 0, 0, 1000);
	ev_ext(&s, 40, 1000, &x, 4);
	ev_ext(&s, 40, far, &x, 4);
	ev_compact(&s, 0, far + 5, (unsigned char[32]){ 0 }, 32);
	pkt_end(&s);
	char err[512];
	int rc;
	lt_reader_t *t = open1(&s, NULL, err, sizeof(err), &rc);
	if (rc)
		LT_FAIL("open: %s", err);
	const struct lt_event *ev;
	struct lt_value v;
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
	LT_ASSERT_STREQ(ev->cls->name, "t:big");
	LT_ASSERT_EQ(ev->cls->id, 40);
	lt_event_field(ev, 0, &v);
	LT_ASSERT_EQ(v.u, 77);
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
	LT_ASSERT_EQ(ev->ts, far);
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
	LT_ASSERT_EQ(ev->ts, far + 5);
	LT_ASSERT_STREQ(ev->cls->name, "t:ints");
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 0);
	lt_reader_close(t);
}

LT_TEST(test_merge_orders_streams_by_time)
{
	static struct sbuf a, b, c;
	uint32_t x;
	/* a: 10, 30, 50 ...; b: 20, 30, 40 ...; c (stream class 1): 35 */
	pkt_begin(&a, 0, 0, 10);
	pkt_begin(&b, 0, 1, 20);
	for (uint32_t i = 0; i < 100; i++) {
		x = i;
		ev_ext(&a, 40, 10 + 20 * i, &x, 4);
		ev_ext(&b, 40, 20 + 10 * i, &x, 4);
	}
	pkt_end(&a);
	pkt_end(&b);
	pkt_begin(&c, 1, 0, 35);
	x = 9;
	ev_compact(&c, 0, 35, &x, 4);
	pkt_end(&c);
	struct lt_mem_stream ms[3] = {
		{ .name = "a", .data = a.buf, .len = a.len },
		{ .name = "b", .data = b.buf, .len = b.len },
		{ .name = "c", .data = c.buf, .len = c.len }
	};
	lt_reader_t *t;
	char err[512];
	const char *m = metadata();
	if (lt_reader_open_mem(m, strlen(m), ms, 3, NULL, &t, err, sizeof(err)))
		LT_FAIL("open: %s", err);
	const struct lt_event *ev;
	uint64_t prev = 0;
	unsigned prev_stream = 0, n = 0, nc = 0;
	while (lt_reader_next(t, &ev) > 0) {
		LT_ASSERT_CMP(ev->ts, >=, prev);
		if (ev->ts == prev)
			LT_ASSERT_CMP(ev->stream_index, >, prev_stream);
		if (ev->stream_index == 2) {
			LT_ASSERT_STREQ(ev->stream, "c");
			LT_ASSERT_STREQ(ev->cls->name, "u:one");
			nc++;
		}
		prev = ev->ts;
		prev_stream = ev->stream_index;
		n++;
	}
	LT_ASSERT_EQ(n, 201);
	LT_ASSERT_EQ(nc, 1);
	/* per stream, after a rewind */
	lt_reader_rewind(t);
	n = 0;
	while (lt_stream_next(lt_reader_stream(t, 1), &ev) > 0)
		n++;
	LT_ASSERT_EQ(n, 100);
	LT_ASSERT_STREQ(lt_stream_name(lt_reader_stream(t, 1)), "b");
	lt_reader_close(t);
}

/* The conversion rounds as babeltrace2's does (through a double), so the
 * two print the same nanosecond; for counts of days at GHz rates that is
 * within a nanosecond of the exact value. */
LT_TEST(test_clock_ns_rounds_as_babeltrace2_and_stays_within_1ns)
{
	struct lt_clock c = { .freq = 2596134168ull,
			      .offset_s = 1764740000,
			      .offset = 123456789 };
	c.base_ns = c.offset_s * 1000000000 +
		    (int64_t)lt_clock_counts_to_ns(c.freq, c.offset);
	uint64_t vals[] = {
		0, 1, c.freq - 1, c.freq, 123456789012345ull, 1ull << 50
	};
	for (unsigned i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint64_t bt =
			(uint64_t)(1e9 * (double)vals[i] / (double)c.freq);
		LT_ASSERT_CMP(lt_clock_ns(&c, vals[i]), ==,
			      c.base_ns + (int64_t)bt);
		unsigned __int128 exact =
			(unsigned __int128)vals[i] * 1000000000u / c.freq;
		int64_t d = (int64_t)bt - (int64_t)exact;
		LT_ASSERT(d >= -1 && d <= 1);
	}
	/* a 1 GHz clock whose counts pass the year 2262 saturates */
	struct lt_clock far = { .freq = 1000000000, .offset_s = 1764740000 };
	far.base_ns = far.offset_s * 1000000000;
	LT_ASSERT_EQ(lt_clock_ns(&far, UINT64_MAX), INT64_MAX);
	struct lt_clock ghz = { .freq = 1000000000, .offset_s = 5 };
	ghz.base_ns = 5000000000;
	LT_ASSERT_EQ(lt_clock_ns(&ghz, 7), 5000000007);
}

LT_TEST(test_format_g_matches_printf)
{
	uint64_t st = 88172645463325252ull;
	for (long i = 0; i < 200000; i++) {
		st ^= st << 13;
		st ^= st >> 7;
		st ^= st << 17;
		double d;
		if (i % 3 == 0)
			memcpy(&d, &st, 8);
		else if (i % 3 == 1)
			d = (double)(int64_t)(st >> (st & 63)) /
			    (double)((st >> 8) % 1000 + 1);
		else
			d = (double)(st % 2000000) /
			    (double)(1 << (st >> 50 & 15));
		char a[64], b[64];
		snprintf(a, sizeof(a), "%g", d);
		*lt_fmt_g(b, d) = 0;
		if (strcmp(a, b))
			LT_FAIL("%.17g: printf %s, lt_fmt_g %s", d, a, b);
	}
}

/* One value through the integer formatters, against printf. */
static void check_ints(uint64_t u)
{
	char a[64], b[64];
	snprintf(a, sizeof(a), "%llu", (unsigned long long)u);
	*lt_fmt_u64(b, u) = 0;
	if (strcmp(a, b))
		LT_FAIL("%s: lt_fmt_u64 %s", a, b);
	snprintf(a, sizeof(a), "%lld", (long long)u);
	*lt_fmt_i64(b, (int64_t)u) = 0;
	if (strcmp(a, b))
		LT_FAIL("%s: lt_fmt_i64 %s", a, b);
	snprintf(a, sizeof(a), "0x%llX", (unsigned long long)u);
	*lt_fmt_hex(b, u) = 0;
	if (strcmp(a, b))
		LT_FAIL("%s: lt_fmt_hex %s", a, b);
	snprintf(a, sizeof(a), "%08llu", (unsigned long long)(u % 100000000));
	lt_fmt_8digits(b, (uint32_t)(u % 100000000));
	b[8] = 0;
	if (strcmp(a, b))
		LT_FAIL("%s: lt_fmt_8digits %s", a, b);
}

LT_TEST(test_format_ints_match_printf)
{
	/* every number of digits and its edges, in both bases */
	for (uint64_t p10 = 1;; p10 *= 10) {
		for (int d = -2; d <= 2; d++)
			check_ints(p10 + (uint64_t)d);
		if (p10 > UINT64_MAX / 10)
			break;
	}
	for (unsigned sh = 0; sh < 64; sh++)
		for (int d = -1; d <= 1; d++)
			check_ints((1ull << sh) + (uint64_t)d);
	check_ints(UINT64_MAX);
	check_ints((uint64_t)INT64_MIN);
	uint64_t st = 88172645463325252ull;
	for (long i = 0; i < 200000; i++) {
		st ^= st << 13;
		st ^= st >> 7;
		st ^= st << 17;
		check_ints(st >> (st & 63)); /* every magnitude */
	}
}

LT_TEST(test_bad_magic_names_file_and_offset)
{
	static struct sbuf s;
	simple_packet(&s, 100);
	size_t off = simple_packet(&s, 200);
	HDR_SET(&s, off, magic, 0x12345678);
	expect_bad(&s, off, "bad packet magic");
}

LT_TEST(test_packet_size_zero_is_rejected)
{
	static struct sbuf s;
	size_t off = simple_packet(&s, 100);
	HDR_SET(&s, off, packet_size, 0);
	expect_bad(&s, off, "bad packet_size");
}

LT_TEST(test_packet_size_beyond_file_is_rejected)
{
	static struct sbuf s;
	simple_packet(&s, 100);
	size_t off = simple_packet(&s, 200);
	HDR_SET(&s, off, packet_size, HDR_GET(&s, off, packet_size) + 8 * 64);
	expect_bad(&s, off, "past the end of the file");
}

LT_TEST(test_content_size_over_packet_size_is_rejected)
{
	static struct sbuf s;
	size_t off = simple_packet(&s, 100);
	HDR_SET(&s, off, content_size, HDR_GET(&s, off, content_size) + 8);
	expect_bad(&s, off, "more than packet_size");
}

LT_TEST(test_truncated_file_is_rejected)
{
	static struct sbuf s;
	simple_packet(&s, 100);
	size_t off = simple_packet(&s, 200);
	s.len = off + 40;
	expect_bad(&s, off, "truncated packet header");
	s.len = off + 100; /* header whole, packet cut */
	expect_bad(&s, off, "past the end of the file");
}

LT_TEST(test_events_know_their_packet_and_streams_their_end)
{
	static struct sbuf s;
	char err[1024];
	int rc;
	const struct lt_event *ev;
	simple_packet(&s, 100);
	size_t off = simple_packet(&s, 200);
	lt_reader_t *t = open1(&s, NULL, err, sizeof(err), &rc);
	LT_ASSERT_EQ(rc, 0);
	for (int i = 0; i < 6; i++) {
		LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
		LT_ASSERT_EQ(ev->packet_off, i < 3 ? 0 : off);
	}
	/* the last packet ends at its last event, 200 + 2 * 10 */
	lt_stream_t *st = lt_reader_stream(t, 0);
	LT_ASSERT_EQ(lt_stream_end_ns(st), ev->ns);
	LT_ASSERT_EQ(lt_stream_end_ns(st),
		     lt_clock_ns(lt_reader_clock(t), 220));
	lt_reader_close(t);
}

LT_TEST(test_stream_from_the_middle_of_a_file_names_file_offsets)
{
	static struct sbuf s;
	char err[1024];
	lt_reader_t *t = NULL;
	const char *m = metadata();
	simple_packet(&s, 100);
	size_t off = simple_packet(&s, 200);
	HDR_SET(&s, off, magic, 0x12345678);
	/* the bytes held from offset 4096 of DIR/s0 */
	struct lt_mem_stream ms = { .name = "s0",
				    .data = s.buf,
				    .len = s.len,
				    .path = "DIR/s0",
				    .file_off = 4096 };
	LT_ASSERT(lt_reader_open_mem(m, strlen(m), &ms, 1, NULL, &t, err,
				     sizeof(err)) < 0);
	char want[64];
	snprintf(want, sizeof(want), "DIR/s0: offset %zu: bad packet magic",
		 4096 + off);
	LT_ASSERT_CONTAINS(err, want);
}

LT_TEST(test_packet_size_cuts_a_growing_file_into_whole_packets)
{
	static struct sbuf s;
	char err[1024];
	lt_reader_t *t = NULL;
	const char *m = metadata();
	uint64_t size = 0;
	simple_packet(&s, 100);
	size_t off = simple_packet(&s, 200);
	LT_ASSERT_EQ(lt_reader_open_mem(m, strlen(m), NULL, 0, NULL, &t, err,
					sizeof(err)),
		     0);
	/* every prefix of a packet is not whole yet, the packet is */
	for (size_t n = 0; n < s.len - off; n++)
		LT_ASSERT_EQ(lt_reader_packet_size(t, s.buf + off, n, &size),
			     0);
	LT_ASSERT_EQ(lt_reader_packet_size(t, s.buf, s.len, &size), 1);
	LT_ASSERT_EQ(size, off);
	LT_ASSERT_EQ(lt_reader_packet_size(t, s.buf + off, s.len - off, &size),
		     1);
	LT_ASSERT_EQ(size, s.len - off);
	HDR_SET(&s, off, magic, 0x12345678);
	LT_ASSERT_EQ(lt_reader_packet_size(t, s.buf + off, s.len - off, &size),
		     -EBADMSG);
	LT_ASSERT_CONTAINS(lt_reader_error(t), "bad packet magic");
	HDR_SET(&s, off, magic, LT_PACKET_MAGIC);
	HDR_SET(&s, off, stream_id, 77);
	LT_ASSERT_EQ(lt_reader_packet_size(t, s.buf + off, s.len - off, &size),
		     -ENOENT);
	LT_ASSERT_CONTAINS(lt_reader_error(t), "stream_id 77");
	HDR_SET(&s, off, stream_id, 0);
	HDR_SET(&s, off, packet_size, 12);
	LT_ASSERT_EQ(lt_reader_packet_size(t, s.buf + off, s.len - off, &size),
		     -EBADMSG);
	LT_ASSERT_CONTAINS(lt_reader_error(t), "bad packet_size");
	lt_reader_close(t);
}

LT_TEST(test_unknown_event_id_is_rejected)
{
	static struct sbuf s;
	uint32_t x = 1;
	pkt_begin(&s, 0, 0, 100);
	ev_ext(&s, 40, 100, &x, 4);
	size_t at = s.len + 3; /* after padding to 4 */
	at &= ~(size_t)3;
	ev_ext(&s, 12345, 110, &x, 4);
	pkt_end(&s);
	expect_bad(&s, at + 1, "unknown event id 12345");
}

LT_TEST(test_field_past_content_end_is_rejected)
{
	static struct sbuf s;
	unsigned char pl[64] = { 0 };
	pkt_begin(&s, 0, 0, 100);
	ev_compact(&s, 0, 100, pl, 30);
	size_t off = pkt_end(&s);
	/* the last 2 bytes of the 30-byte payload are cut off */
	HDR_SET(&s, off, content_size, HDR_GET(&s, off, content_size) - 16);
	HDR_SET(&s, off, packet_size, HDR_GET(&s, off, packet_size) - 16);
	s.len -= 2;
	expect_bad(&s, LT_PACKET_HDR_SIZE + 4, "payload past the content end");
}

LT_TEST(test_unterminated_string_and_huge_sequence_are_rejected)
{
	static struct sbuf s;
	unsigned char pl[256];
	size_t n = mix_payload(pl, 0, "abc", 0, "x");
	pkt_begin(&s, 0, 0, 100);
	ev_compact(&s, 1, 100, pl, 19); /* ends inside the string */
	pkt_end(&s);
	expect_bad(&s, LT_PACKET_HDR_SIZE + 4 + 16, "has no end");

	memset(&s, 0, sizeof(s));
	n = mix_payload(pl, 0, "abc", 0, "x");
	uint32_t huge = 0x40000000;
	memcpy(pl + 16 + 4 + 3, &huge, 4); /* n_length */
	pkt_begin(&s, 0, 0, 100);
	ev_compact(&s, 1, 100, pl, n);
	pkt_end(&s);
	expect_bad(&s, LT_PACKET_HDR_SIZE + 4 + 16 + 4 + 3,
		   "sequence 'n' of 1073741824 elements");
}

/* metadata() with an event of a sequence of structs (id 41, stream 0) */
static const char *metadata_compound(void)
{
	static char buf[20000];
	snprintf(
		buf, sizeof(buf), "%s%s", metadata(),
		"event { name = \"t:cmp\"; id = 41; stream_id = 0; fields := "
		"struct {\n"
		"	integer { size = 8; align = 8; signed = false; } n;\n"
		"	struct { integer { size = 16; align = 8; signed = false; "
		"} a; string s; } e[n];\n"
		"	integer { size = 8; align = 8; signed = false; } z;\n"
		"}; };\n");
	return buf;
}

LT_TEST(test_sequence_of_structs_reads_and_prints_as_babeltrace2)
{
	static struct sbuf s;
	static const unsigned char pl[] = { 2, 1,   0,	 'x', 0, 2,
					    0, 'y', 'z', 0,   9 };
	pkt_begin(&s, 0, 0, 100);
	ev_ext(&s, 41, 100, pl, sizeof(pl));
	pkt_end(&s);
	struct lt_mem_stream ms = { .name = "s0", .data = s.buf, .len = s.len };
	lt_reader_t *t = NULL;
	char err[512], text[4096];
	const char *m = metadata_compound();
	LT_ASSERT_EQ(lt_reader_open_mem(m, strlen(m), &ms, 1, NULL, &t, err,
					sizeof(err)),
		     0);
	const struct lt_event *ev;
	struct lt_value v, e;
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
	LT_ASSERT(lt_event_format_bound(ev) < sizeof(text));
	*lt_event_format(ev, text) = 0;
	LT_ASSERT_STREQ(text, "{ n = 2, e = [ [0] = { a = 1, s = \"x\" }, "
			      "[1] = { a = 2, s = \"yz\" } ], z = 9 }");
	/* the field after it is where the walk ended */
	LT_ASSERT_EQ(lt_event_field_by_name(ev, "z", &v), 0);
	LT_ASSERT_EQ(v.u, 9);
	/* a compound field: its text is the formatter's, no elements */
	LT_ASSERT_EQ(lt_event_field_by_name(ev, "e", &v), 0);
	LT_ASSERT_EQ(v.kind, LT_KIND_COMPOUND);
	LT_ASSERT_EQ(lt_value_elem(&v, 0, &e), -EINVAL);
	lt_reader_close(t);

	/* 200 elements: the walk stops at the content's end, naming it */
	static struct sbuf b;
	unsigned char bad[sizeof(pl)];
	memcpy(bad, pl, sizeof(pl));
	bad[0] = 200;
	pkt_begin(&b, 0, 0, 100);
	ev_ext(&b, 41, 100, bad, sizeof(bad));
	pkt_end(&b);
	ms.data = b.buf;
	ms.len = b.len;
	LT_ASSERT_EQ(lt_reader_open_mem(m, strlen(m), &ms, 1, NULL, &t, err,
					sizeof(err)),
		     0);
	LT_ASSERT(lt_reader_next(t, &ev) < 0);
	LT_ASSERT_CONTAINS(lt_reader_error(t), "field 'e'");
	lt_reader_close(t);

	/* elements of no bits would make a long sequence never end */
	char buf[20000];
	snprintf(buf, sizeof(buf), "%s%s", metadata(),
		 "event { name = \"t:z\"; id = 42; stream_id = 0; fields := "
		 "struct { integer { size = 8; align = 8; signed = false; } n; "
		 "integer { size = 8; align = 8; signed = false; } q[n][0]; "
		 "}; };\n");
	LT_ASSERT(lt_reader_open_mem(buf, strlen(buf), &ms, 1, NULL, &t, err,
				     sizeof(err)) < 0);
	LT_ASSERT_CONTAINS(err, "elements of no bits");
}

/* The warnings of a reader, for the tests: how many, the last. */
static int nquirk;
static char last_quirk[1024];

static void keep_warn(void *arg, const char *msg)
{
	(void)arg;
	nquirk++;
	snprintf(last_quirk, sizeof(last_quirk), "%s", msg);
}

/* Reads s, whose quirk is said once, at offset off, with what. */
static void expect_quirk(struct sbuf *s, long events, unsigned long long off,
			 const char *what)
{
	struct lt_reader_opts o = { .warn = keep_warn };
	char err[1024], want[64];
	int rc;
	nquirk = 0;
	lt_reader_t *t = open1(s, &o, err, sizeof(err), &rc);
	if (rc)
		LT_FAIL("%s: open: %s", what, err);
	LT_ASSERT_EQ(drain(t), events);
	lt_reader_rewind(t);
	LT_ASSERT_EQ(drain(t), events);
	lt_reader_close(t);
	LT_ASSERT_EQ(nquirk, 1); /* once per stream, not per pass */
	snprintf(want, sizeof(want), "s0: offset %llu: ", off);
	LT_ASSERT_CONTAINS(last_quirk, want);
	LT_ASSERT_CONTAINS(last_quirk, what);
}

LT_TEST(test_timestamp_outside_packet_range)
{
	static struct sbuf s;
	uint32_t x = 1;
	/* tracers' quirks: an event after its packet's end (LTTng-UST
	 * before 2.11), a first event before its packet's beginning
	 * (barectf before 2.3.1), read at their own time */
	pkt_begin(&s, 0, 0, 100);
	ev_ext(&s, 40, 100, &x, 4);
	ev_ext(&s, 40, 500, &x, 4);
	ev_ext(&s, 40, 501, &x, 4);
	size_t off = pkt_end(&s);
	HDR_SET(&s, off, timestamp_end, 400);
	expect_quirk(&s, 3, LT_PACKET_HDR_SIZE + 20 + 5,
		     "is 100 after its packet's timestamp_end 400");

	memset(&s, 0, sizeof(s));
	simple_packet(&s, 100);
	off = simple_packet(&s, 200);
	HDR_SET(&s, off, timestamp_begin, 205);
	expect_quirk(&s, 6, off + LT_PACKET_HDR_SIZE + 5,
		     "first event, at 200, is before its timestamp_begin 205");

	memset(&s, 0, sizeof(s));
	pkt_begin(&s, 0, 0, 100);
	ev_ext(&s, 40, 100, &x, 4);
	ev_ext(&s, 40, 50, &x, 4);
	s.last_ts = 100;
	pkt_end(&s);
	expect_bad(&s, LT_PACKET_HDR_SIZE + 20 + 5, "is before the previous");

	memset(&s, 0, sizeof(s));
	off = simple_packet(&s, 100);
	HDR_SET(&s, off, timestamp_begin, 1000); /* after its end */
	expect_bad(&s, off + 40, "before timestamp_begin");
}

LT_TEST(test_uuid_and_stream_id_mismatch_are_rejected)
{
	static struct sbuf s;
	size_t off = simple_packet(&s, 100);
	s.buf[off + 4 + 3] ^= 1;
	expect_bad(&s, off + 4, "uuid differs");
	memset(&s, 0, sizeof(s));
	off = simple_packet(&s, 100);
	HDR_SET(&s, off, stream_id, 9);
	expect_bad(&s, off + 20, "stream_id 9 is not in the metadata");
}

LT_TEST(test_bad_metadata_gives_line_number)
{
	static struct sbuf s;
	simple_packet(&s, 100);
	struct lt_mem_stream ms = { .name = "s0", .data = s.buf, .len = s.len };
	lt_reader_t *t;
	char err[512];
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "hello", "metadata:1: does not start with" },
		{ "/* CTF 1.8 */\ntrace {\n major = 1\n};\n",
		  "metadata:4: expected ';'" },
		{ "/* CTF 1.8 */\n\nfoo { };",
		  "metadata:3: unknown block 'foo'" },
		{ "/* CTF 1.8 */\n/* open",
		  "metadata:2: unterminated comment" },
		{ "/* CTF 1.8 */\ntrace { byte_order = middle; };",
		  "metadata:2: byte_order: expected" },
		{ "/* CTF 1.8 */\n\ntypealias integer { size = 8; } := ;",
		  "metadata:3: expected a type name" },
		{ "/* CTF 1.8 */\nstruct s { unsigned nosuch x; };",
		  "metadata:2: unknown type 'unsigned'" },
		{ "/* CTF 1.8 */\ntrace { x := struct { integer { size = 99; } "
		  "a; }; };",
		  "metadata:2: size: 99 bits" },
		{ "/* CTF 1.8 */\nevent { name = \"unterminated; };",
		  "metadata:2: unterminated string" },
		{ "/* CTF 1.8 */\n", "no trace block" },
	};
	int failed = 0;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = 0;
		int rc =
			lt_reader_open_mem(cases[i].text, strlen(cases[i].text),
					   &ms, 1, NULL, &t, err, sizeof(err));
		LT_ASSERT(t == NULL);
		/* refused: any rc < 0 (shown as -1) */
		failed += !LT_CHECK_ROW(cases[i].text, rc < 0 ? -1 : rc, -1,
					err, cases[i].want);
	}
	LT_ASSERT_ROWS(failed, sizeof(cases) / sizeof(cases[0]));
	/* a metadata with the event ids of a stream declared twice */
	char buf[20000];
	snprintf(buf, sizeof(buf), "%s%s", metadata(),
		 "event { name = \"dup\"; id = 1; stream_id = 0; fields := "
		 "struct { }; };\n");
	LT_ASSERT(lt_reader_open_mem(buf, strlen(buf), &ms, 1, NULL, &t, err,
				     sizeof(err)) < 0);
	LT_ASSERT_CONTAINS(err, "event id 1 declared twice");
}

static int nwarn;

static void count_warn(void *arg, const char *msg)
{
	(void)arg;
	LT_ASSERT_CONTAINS(msg, "s0: offset ");
	nwarn++;
}

LT_TEST(test_skip_bad_keeps_the_good_packets)
{
	static struct sbuf s;
	uint32_t x = 1;
	simple_packet(&s, 100);
	/* packet 2: its first event has an unknown id */
	pkt_begin(&s, 0, 0, 200);
	ev_ext(&s, 999, 200, &x, 4);
	ev_ext(&s, 40, 210, &x, 4);
	pkt_end(&s);
	/* packet 3: content_size > packet_size, header otherwise sane */
	size_t off3 = simple_packet(&s, 300);
	HDR_SET(&s, off3, content_size, HDR_GET(&s, off3, content_size) + 64);
	simple_packet(&s, 400);

	char err[512];
	int rc;
	lt_reader_t *t = open1(&s, NULL, err, sizeof(err), &rc);
	LT_ASSERT_CMP(rc, <, 0); /* strict: packet 3 fails the index */
	LT_ASSERT_CONTAINS(err, "more than packet_size");

	struct lt_reader_opts o = { .flags = LT_READER_SKIP_BAD,
				    .warn = count_warn };
	t = open1(&s, &o, err, sizeof(err), &rc);
	if (rc)
		LT_FAIL("open: %s", err);
	const struct lt_event *ev;
	uint64_t seen[8];
	unsigned n = 0;
	while (lt_reader_next(t, &ev) > 0 && n < 8)
		seen[n++] = ev->ts;
	LT_ASSERT_EQ(n, 6);
	LT_ASSERT_EQ(seen[0], 100);
	LT_ASSERT_EQ(seen[3], 400);
	LT_ASSERT_EQ(seen[5], 420);
	LT_ASSERT_EQ(lt_reader_skipped_packets(t), 2);
	LT_ASSERT_EQ(nwarn, 2);
	lt_reader_close(t);

	/* a bad magic ends the stream: the packets before it stay */
	memset(&s, 0, sizeof(s));
	simple_packet(&s, 100);
	size_t off = simple_packet(&s, 200);
	HDR_SET(&s, off, magic, 0);
	simple_packet(&s, 300);
	t = open1(&s, &o, err, sizeof(err), &rc);
	if (rc)
		LT_FAIL("open: %s", err);
	LT_ASSERT_EQ(drain(t), 3);
	lt_reader_close(t);
}

LT_TEST(test_trailing_packet_with_zero_end_is_read)
{
	static struct sbuf s;
	simple_packet(&s, 100);
	size_t off = simple_packet(&s, 200);
	HDR_SET(&s, off, timestamp_end, 0);
	char err[512];
	int rc;
	lt_reader_t *t = open1(&s, NULL, err, sizeof(err), &rc);
	if (rc)
		LT_FAIL("open: %s", err);
	LT_ASSERT_EQ(drain(t), 6);
	lt_reader_close(t);
	/* in the middle of a stream too, as babeltrace2 reads LTTng's
	 * (lttng-crash), with a warning */
	memset(&s, 0, sizeof(s));
	off = simple_packet(&s, 100);
	simple_packet(&s, 200);
	HDR_SET(&s, off, timestamp_end, 0);
	expect_quirk(&s, 6, off + 40, "timestamp_end is 0");
	/* a packet that begins before the previous one ended (LTTng
	 * before 2.8), events_discarded that goes back */
	memset(&s, 0, sizeof(s));
	simple_packet(&s, 100);
	off = simple_packet(&s, 200);
	HDR_SET(&s, off, timestamp_begin, 110);
	expect_quirk(&s, 6, off + 32, "before the previous packet's end 120");
}

/*
 * A trace directory made from the template dir (mkdtemp) with metadata()
 * written; its stream file's path in path, the file open for writing.
 */
static FILE *open_trace_dir(char *dir, char *path, size_t cap)
{
	LT_ASSERT(mkdtemp(dir) != NULL);
	snprintf(path, cap, "%s/metadata", dir);
	FILE *f = fopen(path, "w");
	LT_ASSERT(f != NULL);
	fputs(metadata(), f);
	fclose(f);
	snprintf(path, cap, "%s/chan_1_0", dir);
	f = fopen(path, "wb");
	LT_ASSERT(f != NULL);
	return f;
}

LT_TEST(test_open_dir_reads_files_and_names_them_in_errors)
{
	static struct sbuf s;
	char dir[] = "/tmp/lt-test-reader.XXXXXX", path[256];
	simple_packet(&s, 100);
	size_t off = simple_packet(&s, 200);
	FILE *f = open_trace_dir(dir, path, sizeof(path));
	fwrite(s.buf, 1, s.len, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/.hidden", dir);
	f = fopen(path, "w");
	fputs("ignored", f);
	fclose(f);

	lt_reader_t *t;
	char err[512];
	if (lt_reader_open(dir, NULL, &t, err, sizeof(err)))
		LT_FAIL("open: %s", err);
	LT_ASSERT_EQ(lt_reader_nstreams(t), 1);
	LT_ASSERT_EQ(drain(t), 6);
	lt_reader_close(t);

	HDR_SET(&s, off, magic, 1);
	snprintf(path, sizeof(path), "%s/chan_1_0", dir);
	f = fopen(path, "wb");
	fwrite(s.buf, 1, s.len, f);
	fclose(f);
	LT_ASSERT(lt_reader_open(dir, NULL, &t, err, sizeof(err)) < 0);
	char want[300];
	snprintf(want, sizeof(want), "%s: offset %zu: bad packet magic", path,
		 off);
	if (!strstr(err, want))
		LT_FAIL("\"%s\" lacks \"%s\"", err, want);

	unlink(path);
	snprintf(path, sizeof(path), "%s/.hidden", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	unlink(path);
	LT_ASSERT(lt_reader_open(dir, NULL, &t, err, sizeof(err)) < 0);
	LT_ASSERT_CONTAINS(err, "metadata");
	rmdir(dir);
}

/*
 * Two stream files of 15 MB each, more than the reader's window: every
 * event comes out in order with its own payload, twice over a rewind.
 * Their counts interleave one apart, finer than a ns: events of one ns
 * come by stream.
 */
LT_TEST(test_big_files_read_whole_through_the_window_and_after_rewind)
{
	static struct sbuf s;
	char dir[] = "/tmp/lt-test-reader.XXXXXX", path[256];
	const uint32_t per_pkt = 2500, npk = 300;
	LT_ASSERT(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	FILE *f = fopen(path, "w");
	fputs(metadata(), f);
	fclose(f);
	for (uint32_t cpu = 0; cpu < 2; cpu++) {
		snprintf(path, sizeof(path), "%s/chan_1_%u", dir, cpu);
		f = fopen(path, "wb");
		LT_ASSERT(f != NULL);
		s.seq = 0;
		for (uint32_t p = 0; p < npk; p++) {
			s.len = 0;
			uint64_t ts = 1000 + (uint64_t)p * per_pkt * 2 + cpu;
			pkt_begin(&s, 0, cpu, ts);
			for (uint32_t i = 0; i < per_pkt; i++) {
				uint32_t x = p * per_pkt + i;
				ev_ext(&s, 40, ts + 2 * i, &x, 4);
			}
			pkt_end(&s);
			LT_ASSERT_EQ(fwrite(s.buf, 1, s.len, f), s.len);
		}
		fclose(f);
	}
	lt_reader_t *t;
	char err[512];
	if (lt_reader_open(dir, NULL, &t, err, sizeof(err)))
		LT_FAIL("open: %s", err);
	for (int pass = 0; pass < 2; pass++) {
		const struct lt_event *ev;
		struct lt_value v;
		uint64_t n = 0, next[2] = { 0, 0 };
		int64_t prev_ns = 0;
		uint32_t prev_cpu = 0;
		int r;
		while ((r = lt_reader_next(t, &ev)) > 0) {
			/* each stream's events in its order (x = 0, 1, ...);
			 * the two merged by time, those of one ns (the
			 * clock's counts are finer) by stream, as
			 * babeltrace2 does */
			LT_ASSERT_CMP(ev->cpu, <, 2);
			LT_ASSERT(n == 0 || ev->ns > prev_ns ||
				  (ev->ns == prev_ns && ev->cpu >= prev_cpu));
			LT_ASSERT_EQ(lt_event_field(ev, 0, &v), 0);
			if (v.u != next[ev->cpu]++)
				LT_FAIL("event %llu: x = %llu on cpu %u",
					(unsigned long long)n,
					(unsigned long long)v.u, ev->cpu);
			prev_ns = ev->ns;
			prev_cpu = ev->cpu;
			n++;
		}
		LT_ASSERT_EQ(r, 0);
		LT_ASSERT_EQ(n, 2ull * npk * per_pkt);
		lt_reader_rewind(t);
	}
	lt_reader_close(t);
	for (uint32_t cpu = 0; cpu < 2; cpu++) {
		snprintf(path, sizeof(path), "%s/chan_1_%u", dir, cpu);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/metadata", dir);
	unlink(path);
	rmdir(dir);
}

static int nwarn_any;

static void count_any_warn(void *arg, const char *msg)
{
	(void)arg;
	LT_ASSERT_CONTAINS(msg, "chan_1_0: offset ");
	nwarn_any++;
}

/*
 * A stream file of 7 MB, more than the reader's window, read on past a
 * bad packet and a quirk after the first window (its index then grows as
 * the decoding goes): the same events, counts and warnings as a whole
 * index gives, whether the packet count is asked before the pass (the
 * index made whole at once) or after it, and again after a rewind.
 */
LT_TEST(test_index_grows_with_the_pass_past_bad_packets)
{
	static struct sbuf s;
	char dir[] = "/tmp/lt-test-reader.XXXXXX", path[256];
	const uint32_t per_pkt = 1000, npk = 400, bad = 300, back = 351;
	FILE *f = open_trace_dir(dir, path, sizeof(path));
	s.seq = 0;
	uint64_t last_end = 0;
	for (uint32_t p = 0; p < npk; p++) {
		s.len = 0;
		uint64_t ts = 1000 + (uint64_t)p * per_pkt * 2;
		pkt_begin(&s, 0, 0, ts);
		for (uint32_t i = 0; i < per_pkt; i++) {
			uint32_t x = p * per_pkt + i;
			ev_ext(&s, 40, ts + 2 * i, &x, 4);
		}
		pkt_end(&s);
		last_end = HDR_GET(&s, 0, timestamp_end);
		/* content past the packet: the packet is skipped */
		if (p == bad)
			HDR_SET(&s, 0, content_size,
				HDR_GET(&s, 0, packet_size) + 8);
		/* the count of events lost goes back once: a warning */
		HDR_SET(&s, 0, events_discarded, p == back ? 0 : p);
		LT_ASSERT_EQ(fwrite(s.buf, 1, s.len, f), s.len);
	}
	fclose(f);
	LT_ASSERT_CMP(s.len * bad, >, 4u << 20);

	lt_reader_t *t;
	char err[512];
	/* strict: the bad packet is an error at open */
	LT_ASSERT(lt_reader_open(dir, NULL, &t, err, sizeof(err)) < 0);
	LT_ASSERT_CONTAINS(err, "more than packet_size");

	const struct lt_reader_opts o = { .flags = LT_READER_SKIP_BAD,
					  .warn = count_any_warn };
	for (int ask_first = 0; ask_first < 2; ask_first++) {
		nwarn_any = 0;
		if (lt_reader_open(dir, &o, &t, err, sizeof(err)))
			LT_FAIL("open: %s", err);
		lt_stream_t *st = lt_reader_stream(t, 0);
		if (ask_first) {
			LT_ASSERT_EQ(lt_stream_npackets(st), npk - 1);
			LT_ASSERT_EQ(lt_reader_skipped_packets(t), 1);
			LT_ASSERT_EQ(nwarn_any, 2);
		}
		for (int pass = 0; pass < 2; pass++) {
			const struct lt_event *ev;
			struct lt_value v;
			uint64_t n = 0, next = 0;
			int r;
			while ((r = lt_reader_next(t, &ev)) > 0) {
				if (next == (uint64_t)bad * per_pkt)
					next += per_pkt; /* skipped */
				LT_ASSERT_EQ(lt_event_field(ev, 0, &v), 0);
				if (v.u != next++)
					LT_FAIL("event %llu: x = %llu",
						(unsigned long long)n,
						(unsigned long long)v.u);
				n++;
			}
			LT_ASSERT_EQ(r, 0);
			LT_ASSERT_EQ(n, (uint64_t)(npk - 1) * per_pkt);
			lt_reader_rewind(t);
		}
		LT_ASSERT_EQ(lt_stream_npackets(st), npk - 1);
		LT_ASSERT_EQ(lt_reader_skipped_packets(t), 1);
		LT_ASSERT_EQ(lt_stream_discarded(st), npk - 1);
		LT_ASSERT_EQ(lt_stream_end_ns(st),
			     lt_clock_ns(lt_stream_clock(st), last_end));
		LT_ASSERT_EQ(nwarn_any, 2); /* said once, not on each pass */
		lt_reader_close(t);
	}
	unlink(path);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	unlink(path);
	rmdir(dir);
}

LT_TEST(test_events_discarded_is_reported_per_packet)
{
	static struct sbuf s;
	size_t off1 = simple_packet(&s, 100);
	size_t off2 = simple_packet(&s, 200);
	HDR_SET(&s, off1, events_discarded, 5);
	HDR_SET(&s, off2, events_discarded, 12);
	char err[512];
	int rc;
	lt_reader_t *t = open1(&s, NULL, err, sizeof(err), &rc);
	if (rc)
		LT_FAIL("open: %s", err);
	const struct lt_event *ev;
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
	LT_ASSERT_EQ(ev->discarded, 5);
	LT_ASSERT_EQ(ev->packet_seq, 0);
	for (int i = 0; i < 3; i++)
		LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
	LT_ASSERT_EQ(ev->discarded, 12);
	LT_ASSERT_EQ(ev->packet_seq, 1);
	LT_ASSERT_EQ(lt_stream_discarded(lt_reader_stream(t, 0)), 12);
	LT_ASSERT_EQ(lt_stream_npackets(lt_reader_stream(t, 0)), 2);
	lt_reader_close(t);
}

/* Replaces every "from" in text (in place, buffer of cap bytes). */
static void replace_all(char *text, size_t cap, const char *from,
			const char *to)
{
	size_t nf = strlen(from), nt = strlen(to);
	char *p;
	while ((p = strstr(text, from))) {
		size_t rest = strlen(p + nf);
		LT_ASSERT(strlen(text) - nf + nt < cap);
		memmove(p + nt, p + nf, rest + 1);
		memcpy(p, to, nt);
	}
}

/* text cut into metadata packets of at most chunk bytes of content. */
static size_t packetize(const char *text, size_t chunk, unsigned char *out)
{
	size_t n = strlen(text), o = 0;
	for (size_t off = 0; off < n; off += chunk) {
		size_t c = n - off < chunk ? n - off : chunk;
		uint32_t magic = 0x75d11d57, content = (uint32_t)(37 + c) * 8,
			 size = content + 8 * 3; /* 3 bytes of padding */
		memset(out + o, 0, size / 8);
		memcpy(out + o, &magic, 4);
		memcpy(out + o + 4, uuid, 16);
		memcpy(out + o + 24, &content, 4);
		memcpy(out + o + 28, &size, 4);
		out[o + 35] = 1;
		out[o + 36] = 8;
		memcpy(out + o + 37, text + off, c);
		o += size / 8;
	}
	return o;
}

LT_TEST(test_packetized_metadata_with_type_names_reads)
{
	static char text[32768];
	static unsigned char pk[65536];
	static struct sbuf s;
	simple_packet(&s, 100);
	/* the same trace as metadata() with its types named once */
	snprintf(text, sizeof(text),
		 "typealias integer { size = 32; align = 8; signed = false; } "
		 ":= unsigned int;\n"
		 "typedef integer { size = 64; align = 8; signed = false; } "
		 "u64;\n"
		 "struct hdr { unsigned int magic; };\n"
		 "enum kind : unsigned int { A, B };\n%s",
		 metadata());
	replace_all(text, sizeof(text),
		    "integer { size = 32; align = 8; signed = false; } x;",
		    "unsigned int x;");
	replace_all(text, sizeof(text),
		    "integer { size = 64; align = 8; signed = false; } "
		    "stream_instance_id;",
		    "u64 stream_instance_id;");
	size_t len = packetize(text, 300, pk);
	struct lt_mem_stream ms = { .name = "s0", .data = s.buf, .len = s.len };
	lt_reader_t *t;
	char err[512];
	int rc = lt_reader_open_mem((const char *)pk, len, &ms, 1, NULL, &t,
				    err, sizeof(err));
	if (rc)
		LT_FAIL("open: %s", err);
	const struct lt_event *ev;
	struct lt_value v;
	for (uint64_t i = 0; i < 3; i++) {
		LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
		LT_ASSERT_STREQ(ev->cls->name, "t:big");
		LT_ASSERT_EQ(lt_event_field_by_name(ev, "x", &v), 0);
		LT_ASSERT_EQ(v.u, i);
	}
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 0);
	lt_reader_close(t);

	/* a packet whose sizes go past the file: the offset is named */
	uint32_t big = 1u << 30;
	memcpy(pk + 28, &big, 4);
	rc = lt_reader_open_mem((const char *)pk, len, &ms, 1, NULL, &t, err,
				sizeof(err));
	LT_ASSERT(rc < 0);
	LT_ASSERT_CONTAINS(err, "offset 0: bad metadata packet sizes");
}

/* Each stream class counts on the clock its timestamps map to: stream
 * class 1 on a 1 kHz clock, declared second; a map to no clock block is
 * an error. */
LT_TEST(test_stream_classes_read_their_own_clocks)
{
	static char text[32768], s1[4096];
	static struct sbuf a, c;
	uint32_t x = 7;
	pkt_begin(&a, 0, 0, 2596134168u);
	ev_ext(&a, 40, 2596134168u, &x, 4);
	pkt_end(&a);
	pkt_begin(&c, 1, 0, 500);
	ev_compact(&c, 0, 500, &x, 4);
	pkt_end(&c);
	snprintf(s1, sizeof(s1), meta_stream, 1u);
	replace_all(s1, sizeof(s1), "clock.lowtrace.value", "clock.slow.value");
	snprintf(
		text, sizeof(text), "%s%s", meta_head,
		"clock { name = slow; freq = 1000; offset_s = 1764740000; };\n");
	size_t n = strlen(text);
	snprintf(text + n, sizeof(text) - n, meta_stream, 0u);
	n = strlen(text);
	snprintf(text + n, sizeof(text) - n, "%s%s", s1, meta_events);
	struct lt_mem_stream ms[2] = {
		{ .name = "a", .data = a.buf, .len = a.len },
		{ .name = "c", .data = c.buf, .len = c.len },
	};
	lt_reader_t *t;
	char err[512];
	if (lt_reader_open_mem(text, strlen(text), ms, 2, NULL, &t, err,
			       sizeof(err)))
		LT_FAIL("open: %s", err);
	const struct lt_event *ev;
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
	LT_ASSERT_STREQ(ev->cls->name, "u:one");
	LT_ASSERT_EQ(ev->ns, 1764740000500000000);
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
	LT_ASSERT_STREQ(ev->cls->name, "t:big");
	LT_ASSERT_EQ(ev->ns, lt_clock_ns(lt_reader_clock(t), 2596134168u));
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 0);
	lt_reader_close(t);

	replace_all(text, sizeof(text), "clock.slow.value", "clock.none.value");
	LT_ASSERT(lt_reader_open_mem(text, strlen(text), ms, 2, NULL, &t, err,
				     sizeof(err)) < 0);
	LT_ASSERT_CONTAINS(err, "clock.none.value: no such clock");
}

/* What babeltrace2 2.0.4 prints: an enum value's labels once each, in the
 * order the labels first appear in the enum, without braces; a binary
 * integer with all its bits; nothing for an event without a fields block,
 * "{ }" for an empty one. */
LT_TEST(test_enum_labels_binary_and_no_payload_print_as_babeltrace2)
{
	static char text[32768], out[1024];
	static struct sbuf s;
	snprintf(
		text, sizeof(text), "%s%s", metadata(),
		"event { name = \"t:fmt\"; id = 41; stream_id = 0; "
		"fields := struct {\n"
		"	enum : integer { size = 8; align = 8; signed = false; } "
		"{ \"A\" = 0 ... 1, \"B\" = 4 ... 9, \"A\" = 3 ... 5, "
		"\"A\" = 4, \"C\" = 4 } v;\n"
		"	integer { size = 8; align = 8; signed = false; base = 2; } "
		"b8;\n"
		"	integer { size = 16; align = 8; signed = true; base = 2; } "
		"b16; }; };\n"
		"event { name = \"t:none\"; id = 42; stream_id = 0; };\n"
		"event { name = \"t:empty\"; id = 43; stream_id = 0; "
		"fields := struct { }; };\n");
	pkt_begin(&s, 0, 0, 100);
	const uint8_t pl[2][4] = { { 4, 5, 0xfd, 0xff }, { 1, 0, 0, 0 } };
	ev_ext(&s, 41, 100, pl[0], 4);
	ev_ext(&s, 41, 101, pl[1], 4);
	ev_ext(&s, 42, 102, pl[1], 0);
	ev_ext(&s, 43, 103, pl[1], 0);
	pkt_end(&s);
	struct lt_mem_stream ms = { .name = "s0", .data = s.buf, .len = s.len };
	lt_reader_t *t;
	char err[512];
	if (lt_reader_open_mem(text, strlen(text), &ms, 1, NULL, &t, err,
			       sizeof(err)))
		LT_FAIL("open: %s", err);
	static const char *const want[] = {
		"{ v = ( \"A\", \"B\", \"C\" : container = 4 ), b8 = 0b00000101, "
		"b16 = 0b1111111111111101 }",
		"{ v = ( \"A\" : container = 1 ), b8 = 0b00000000, "
		"b16 = 0b0000000000000000 }",
		"",
		"{ }",
	};
	const struct lt_event *ev;
	for (unsigned i = 0; i < 4; i++) {
		LT_ASSERT_EQ(lt_reader_next(t, &ev), 1);
		LT_ASSERT(lt_event_format_bound(ev) < sizeof(out));
		*lt_event_format(ev, out) = 0;
		LT_ASSERT_STREQ(out, want[i]);
	}
	LT_ASSERT_EQ(lt_reader_next(t, &ev), 0);
	lt_reader_close(t);
}
