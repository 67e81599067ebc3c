/* SPDX-License-Identifier: MIT */
/*
 * metadata.c - writes the TSDL metadata of a trace (see metadata.h).
 *
 * Every type is written inline with its alignment, so that readers need no
 * type aliases; integers are byte-aligned and little endian, matching how
 * the probes pack payloads.
 */
#include "format/metadata.h"
#include "format/marker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "format/event_header.h"
#include "format/packet_header.h"

struct sbuf {
	char *p;
	size_t len, cap;
	int oom;
};

__attribute__((format(printf, 2, 3))) static void
sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	if (b->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		/* (no offset added to the NULL of an empty buffer) */
		int n = vsnprintf(b->p ? b->p + b->len : NULL, b->cap - b->len,
				  fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = 1;
			return;
		}
		if ((size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = (b->cap + (size_t)n + 1) * 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
}

/* A TSDL string literal body: quotes and backslashes escaped. */
static void sb_quoted(struct sbuf *b, const char *s)
{
	sb_printf(b, "\"");
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			sb_printf(b, "\\%c", c);
		else if (c < 0x20)
			sb_printf(b, "\\x%02x", c);
		else
			sb_printf(b, "%c", c);
	}
	sb_printf(b, "\"");
}

/* prefix then s, one quoted literal */
static void sb_quoted_uri(struct sbuf *b, const char *prefix, const char *s)
{
	size_t n = strlen(prefix), m = strlen(s);
	char *t = malloc(n + m + 1);
	if (!t) {
		b->oom = 1;
		return;
	}
	memcpy(t, prefix, n);
	memcpy(t + n, s, m + 1);
	sb_quoted(b, t);
	free(t);
}

void lt_ctf_uuid_str(const uint8_t u[16], char out[37])
{
	snprintf(
		out, 37,
		"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		u[10], u[11], u[12], u[13], u[14], u[15]);
}

void lt_ctf_uuid_make(uint8_t u[16])
{
	if (getrandom(u, 16, 0) != 16) {
		/* no entropy source: time and pid still tell traces apart */
		uint64_t a = lt_clock_read_monotonic(), b = (uint64_t)getpid();
		memcpy(u, &a, 8);
		memcpy(u + 8, &b, 8);
	}
	u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
	u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
}

void lt_ctf_clock_offset(const struct lt_clock_calib *c, int64_t *offset_s,
			 int64_t *offset)
{
	/* epoch ns of counter value 0 */
	__int128 zero = (__int128)c->base_ns + c->realtime_off_ns -
			(__int128)c->base_cyc * 1000000000 / (__int128)c->freq;
	__int128 s = zero / 1000000000;
	__int128 rem = zero - s * 1000000000;
	if (rem < 0) {
		s -= 1;
		rem += 1000000000;
	}
	*offset_s = (int64_t)s;
	*offset = (int64_t)(rem * (__int128)c->freq / 1000000000);
}

/* Field names that are TSDL keywords get the underscore readers drop. */
static const char *field_prefix(const char *name)
{
	static const char *const kw[] = {
		"align",     "callsite",       "const",	   "char",
		"clock",     "double",	       "enum",	   "env",
		"event",     "floating_point", "float",	   "integer",
		"int",	     "long",	       "short",	   "signed",
		"stream",    "string",	       "struct",   "trace",
		"typealias", "typedef",	       "unsigned", "variant",
		"void",	     "_Bool",	       "_Complex", "_Imaginary",
	};
	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (strcmp(name, kw[i]) == 0)
			return "_";
	return name[0] == '_' ? "_" : "";
}

static void int_type(struct sbuf *b, unsigned bytes, int is_signed, int base)
{
	sb_printf(b, "integer { size = %u; align = 8; signed = %s;%s }",
		  bytes * 8, is_signed ? "true" : "false",
		  base == 16 ? " base = 16;" : "");
}

/* room for a field name (the protocol's are shorter) and a suffix */
#define LT_CTF_LENGTH_NAME 300

int lt_ctf_enum_range_ok(unsigned size, int is_signed, int64_t lo, int64_t hi)
{
	if (lo > hi || size < 1 || size > 8)
		return 0;
	if (size == 8)
		return is_signed || lo >= 0;
	int64_t span = (int64_t)1 << (8 * size);
	if (!is_signed)
		return lo >= 0 && hi < span;
	return lo >= -span / 2 && hi < span / 2;
}

int lt_ctf_field_names_ok(const struct lt_field_desc *f, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i + 1; j < n; j++)
			if (strcmp(f[i].name, f[j].name) == 0)
				return 0;
	return 1;
}

/* The names a reader shows for an event's fields, and for the length
 * fields of its sequences (see field_names()). */
struct names {
	char (*field)[LT_CTF_LENGTH_NAME];
	char (*len)[LT_CTF_LENGTH_NAME];
};

/*
 * Is name taken, for field self (is_len: for its length field)?  Names
 * given before are: fields and lengths before self, and self's own name
 * for its length.  The names of the fields after self are kept for them,
 * but for a field its own duplicates (the first one keeps the name).
 */
static int name_taken(const struct lt_field_desc *f, uint32_t n,
		      const struct names *nm, uint32_t self, int is_len,
		      const char *name)
{
	for (uint32_t j = 0; j < n; j++) {
		if (j < self || (j == self && is_len)) {
			if (strcmp(nm->field[j], name) == 0)
				return 1;
			if (j < self && f[j].type == LT_FT_SEQUENCE &&
			    strcmp(nm->len[j], name) == 0)
				return 1;
		} else if (j > self && strcmp(f[j].name, name) == 0 &&
			   (is_len || strcmp(f[j].name, f[self].name) != 0)) {
			return 1;
		}
	}
	return 0;
}

/*
 * Names that no two fields share, so that readers accept the metadata:
 * a field keeps its name unless an earlier one has it ("x", then "x_2");
 * a sequence's length field is "NAME_length", or "NAME_length2", ...
 * when that is taken.  0, or -ENOMEM.
 */
static int field_names(const struct lt_field_desc *f, uint32_t n,
		       struct names *nm)
{
	nm->field = calloc(n ? n : 1, sizeof(*nm->field));
	nm->len = calloc(n ? n : 1, sizeof(*nm->len));
	if (!nm->field || !nm->len)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		char *o = nm->field[i];
		snprintf(o, LT_CTF_LENGTH_NAME, "%s", f[i].name);
		for (unsigned k = 2; k < 10000 && name_taken(f, n, nm, i, 0, o);
		     k++)
			snprintf(o, LT_CTF_LENGTH_NAME, "%s_%u", f[i].name, k);
		if (f[i].type != LT_FT_SEQUENCE)
			continue;
		o = nm->len[i];
		snprintf(o, LT_CTF_LENGTH_NAME, "%s_length", nm->field[i]);
		for (unsigned k = 2; k < 10000 && name_taken(f, n, nm, i, 1, o);
		     k++)
			snprintf(o, LT_CTF_LENGTH_NAME, "%s_length%u",
				 nm->field[i], k);
	}
	return 0;
}

static void names_free(struct names *nm)
{
	free(nm->field);
	free(nm->len);
}

/* Field i of an event, with the names field_names() gave. */
static void field(struct sbuf *b, const struct lt_field_desc *all,
		  const struct names *nm, uint32_t i)
{
	const struct lt_field_desc *f = &all[i];
	const char *name = nm->field[i];
	const char *pre = field_prefix(name);
	const char *len_name = nm->len[i];

	sb_printf(b, "\t\t");
	switch (f->type) {
	case LT_FT_INT:
		int_type(b, f->size, f->is_signed, f->base);
		sb_printf(b, " %s%s;\n", pre, name);
		break;
	case LT_FT_ENUM:
		sb_printf(b, "enum : ");
		int_type(b, f->size, f->is_signed, 10);
		sb_printf(b, " {");
		for (uint32_t k = 0, shown = 0; f->enumd && k < f->enumd->n;
		     k++) {
			const struct lt_enum_entry *e = &f->enumd->entries[k];
			if (!lt_ctf_enum_range_ok(f->size, f->is_signed, e->lo,
						  e->hi))
				continue;
			sb_printf(b, "%s ", shown++ ? "," : "");
			sb_quoted(b, e->label);
			if (e->lo == e->hi)
				sb_printf(b, " = %lld", (long long)e->lo);
			else
				sb_printf(b, " = %lld ... %lld",
					  (long long)e->lo, (long long)e->hi);
		}
		sb_printf(b, " } %s%s;\n", pre, name);
		break;
	case LT_FT_FLOAT:
		sb_printf(b,
			  "floating_point { exp_dig = %d; mant_dig = %d; "
			  "align = 8; } %s%s;\n",
			  f->size == 4 ? 8 : 11, f->size == 4 ? 24 : 53, pre,
			  name);
		break;
	case LT_FT_STRING:
		sb_printf(b, "string { encoding = UTF8; } %s%s;\n", pre, name);
		break;
	case LT_FT_ARRAY:
		int_type(b, f->size, f->is_signed, f->base);
		sb_printf(b, " %s%s[%u];\n", pre, name, f->length);
		break;
	case LT_FT_SEQUENCE:
		int_type(b, 4, 0, 10);
		sb_printf(b, " _%s;\n\t\t", len_name);
		int_type(b, f->size, f->is_signed, f->base);
		sb_printf(b, " %s%s[_%s];\n", pre, name, len_name);
		break;
	case LT_FT_CHARS:
		sb_printf(b,
			  "integer { size = 8; align = 8; signed = true; "
			  "encoding = UTF8; } %s%s[%u];\n",
			  pre, name, f->length);
		break;
	}
}

static const char packet_header[] =
	"\tpacket.header := struct {\n"
	"\t\tinteger { size = 32; align = 8; signed = false; base = 16; } magic;\n"
	"\t\tinteger { size = 8; align = 8; signed = false; } uuid[16];\n"
	"\t\tinteger { size = 32; align = 8; signed = false; } stream_id;\n"
	"\t\tinteger { size = 64; align = 8; signed = false; } stream_instance_id;\n"
	"\t};\n";

#define TS_TYPE(bits, align, clk)                                          \
	"integer { size = " #bits "; align = " #align "; signed = false; " \
	"map = clock." clk ".value; }"

/* a stream class's packet context and event header, its times mapped to
 * clock clk */
/* clang-format off */
#define STREAM_LAYOUT(clk)                                                     \
	"\tpacket.context := struct {\n"                                        \
	"\t\t" TS_TYPE(64, 8, clk) " timestamp_begin;\n"                         \
	"\t\t" TS_TYPE(64, 8, clk) " timestamp_end;\n"                           \
	"\t\tinteger { size = 64; align = 8; signed = false; } content_size;\n"  \
	"\t\tinteger { size = 64; align = 8; signed = false; } packet_size;\n"   \
	"\t\tinteger { size = 64; align = 8; signed = false; } packet_seq_num;\n" \
	"\t\tinteger { size = 64; align = 8; signed = false; } events_discarded;\n" \
	"\t\tinteger { size = 32; align = 8; signed = false; } cpu_id;\n"        \
	"\t\tinteger { size = 32; align = 8; signed = false; } pid;\n"           \
	"\t};\n"                                                                \
	"\tevent.header := struct {\n"                                          \
	"\t\tenum : integer { size = 5; align = 1; signed = false; } "         \
	"{ compact = 0 ... 30, extended = 31 } id;\n"                           \
	"\t\tvariant <id> {\n"                                                  \
	"\t\t\tstruct {\n"                                                      \
	"\t\t\t\t" TS_TYPE(27, 1, clk) " timestamp;\n"                          \
	"\t\t\t} compact;\n"                                                    \
	"\t\t\tstruct {\n"                                                      \
	"\t\t\t\tinteger { size = 32; align = 8; signed = false; } id;\n"       \
	"\t\t\t\t" TS_TYPE(64, 8, clk) " timestamp;\n"                          \
	"\t\t\t} extended;\n"                                                   \
	"\t\t} v;\n"                                                            \
	"\t} align(32);\n"
/* clang-format on */

static const char stream_layout[] = STREAM_LAYOUT("lowtrace");
static const char stream_layout_mono[] = STREAM_LAYOUT("lowtrace_mono");

static const char pid_context[] =
	"\tevent.context := struct {\n"
	"\t\tinteger { size = 32; align = 8; signed = true; } vpid;\n"
	"\t};\n";
_Static_assert(LT_CTF_PID_CONTEXT == 4, "pid_context is an int32");

_Static_assert(LT_PACKET_HDR_SIZE == 88 && LT_EV_TS_BITS == 27 &&
		       LT_EV_ID_EXTENDED == 31,
	       "the layout above describes ring.h's");

char *lt_ctf_metadata_text(const struct lt_ctf_trace *t, size_t *len)
{
	struct sbuf b = { 0 };
	char uuid[37];
	int64_t off_s, off;

	lt_ctf_uuid_str(t->uuid, uuid);
	lt_ctf_clock_offset(&t->clock, &off_s, &off);
	sb_printf(&b,
		  "/* CTF 1.8 */\n\ntrace {\n\tmajor = 1;\n\tminor = 8;\n"
		  "\tuuid = \"%s\";\n\tbyte_order = le;\n%s};\n\n",
		  uuid, packet_header);
	sb_printf(&b, "env {\n\thostname = ");
	sb_quoted(&b, t->hostname ? t->hostname : "unknown");
	sb_printf(&b,
		  ";\n\tdomain = \"ust\";\n\ttracer_name = \"lowtrace\";\n"
		  "\ttracer_major = 0;\n\ttracer_minor = 1;\n"
		  "\ttracer_version = \"%s\";\n\tprocname = ",
		  LT_VERSION);
	sb_quoted(&b, t->procname ? t->procname : "unknown");
	sb_printf(&b, ";\n\tvpid = %d;\n\tclock_source = ", t->pid);
	sb_quoted(&b, t->clock_source);
	sb_printf(&b, ";\n");
	for (uint32_t i = 0; i + 1 < t->nenv_extra * 2; i += 2) {
		sb_printf(&b, "\t%s = ", t->env_extra[i]);
		sb_quoted(&b, t->env_extra[i + 1]);
		sb_printf(&b, ";\n");
	}
	sb_printf(&b, "};\n\n");
	sb_printf(&b,
		  "clock {\n\tname = \"lowtrace\";\n\tuuid = \"%s\";\n"
		  "\tdescription = \"lowtrace trace clock (%s, calibrated "
		  "against CLOCK_MONOTONIC)\";\n"
		  "\tfreq = %llu;\n\tprecision = 1;\n\toffset_s = %lld;\n"
		  "\toffset = %lld;\n\tabsolute = false;\n};\n\n",
		  uuid, t->clock_source, (unsigned long long)t->clock.freq,
		  (long long)off_s, (long long)off);
	/* CLOCK_MONOTONIC ns, for the streams whose writers cannot read the
	 * trace clock (the kernel's eBPF programs): on the same timeline,
	 * with the same UUID */
	int mono = 0;
	for (uint32_t s = 0; s < t->nstreams; s++)
		mono |= t->streams[s].mono_clock;
	if (mono) {
		struct lt_clock_calib m = { .freq = 1000000000,
					    .realtime_off_ns =
						    t->clock.realtime_off_ns };
		lt_ctf_clock_offset(&m, &off_s, &off);
		sb_printf(&b,
			  "clock {\n\tname = \"lowtrace_mono\";\n"
			  "\tuuid = \"%s\";\n"
			  "\tdescription = \"CLOCK_MONOTONIC\";\n"
			  "\tfreq = 1000000000;\n\tprecision = 1;\n"
			  "\toffset_s = %lld;\n\toffset = %lld;\n"
			  "\tabsolute = false;\n};\n\n",
			  uuid, (long long)off_s, (long long)off);
	}
	for (uint32_t s = 0; s < t->nstreams; s++)
		sb_printf(&b, "stream {\n\tid = %u;\n%s%s};\n\n",
			  t->streams[s].id,
			  t->streams[s].mono_clock ? stream_layout_mono :
						     stream_layout,
			  t->streams[s].pid_context ? pid_context : "");
	for (uint32_t s = 0; s < t->nstreams; s++) {
		for (uint32_t i = 0; i < t->streams[s].nevents; i++) {
			const struct lt_ctf_event *e = &t->streams[s].events[i];
			if (!e->name)
				continue; /* a hole of a table by id */
			sb_printf(&b, "event {\n\tname = ");
			sb_quoted(&b, e->name);
			sb_printf(&b,
				  ";\n\tid = %u;\n\tstream_id = %u;\n"
				  "\tloglevel = %d;\n",
				  e->id, t->streams[s].id, e->loglevel);
			if (e->format) {
				/* babeltrace2 takes the attribute quietly */
				sb_printf(&b, "\tmodel.emf.uri = ");
				sb_quoted_uri(&b, LT_MARKER_URI, e->format);
				sb_printf(&b, ";\n");
			}
			sb_printf(&b, "\tfields := struct {\n");
			struct names nm;
			if (field_names(e->fields, e->nfields, &nm))
				b.oom = 1;
			for (uint32_t f = 0; !b.oom && f < e->nfields; f++)
				field(&b, e->fields, &nm, f);
			names_free(&nm);
			sb_printf(&b, "\t};\n};\n\n");
		}
	}
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	*len = b.len;
	return b.p;
}

int lt_ctf_metadata_write(const char *dir, const struct lt_ctf_trace *t)
{
	char tmp[4096], path[4096];
	size_t len;
	int rc = 0;

	if (snprintf(tmp, sizeof(tmp), "%s/.metadata.tmp", dir) >=
		    (int)sizeof(tmp) ||
	    snprintf(path, sizeof(path), "%s/metadata", dir) >=
		    (int)sizeof(path))
		return -ENAMETOOLONG;
	char *text = lt_ctf_metadata_text(t, &len);
	if (!text)
		return -ENOMEM;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	for (size_t done = 0; done < len;) {
		ssize_t n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
	}
	if (close(fd) < 0 && !rc)
		rc = -errno;
	/* the old metadata stays until the new one is whole */
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
out:
	free(text);
	return rc;
}
