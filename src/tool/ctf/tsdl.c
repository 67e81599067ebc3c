/* SPDX-License-Identifier: MIT */
/*
 * tsdl.c - the metadata parser's entry point: lt_tsdl_parse() reads plain
 * or packetized metadata and parses its blocks (trace, env, clock, stream
 * and event), then checks what they said and compiles it (finish()): the
 * clocks, each stream class's headers (tsdl_header.c), each event's
 * fields (tsdl_event.c) and the event classes by id (tsdl_finish(), which
 * CTF 2's JSON front end, ctf2_json.c, calls too).  Also the lookups of
 * stream and event classes.
 *
 * The parser's other parts: the tokenizer and the arena (tsdl_lex.c), the
 * type grammar (tsdl_types.c), and the compilation of headers
 * (tsdl_header.c), of events' fields (tsdl_event.c, tsdl_field.c), of
 * compound fields' trees (tsdl_compound.c) and of the decoder's plans
 * (tsdl_plan.c); tsdl_int.h is what they share.
 *
 * Unknown attributes are ignored and callsite blocks skipped; anything
 * else unknown or malformed stops the parse with "PATH:LINE: what".
 * Errors unwind with longjmp to lt_tsdl_parse(); every allocation is in
 * the arena, so there is nothing else to free on the way.
 */
#include "ctf/tsdl.h"
#include "ctf/tsdl_int.h"
#include "ctf/clock_ns.h"
#include "format/marker.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Blocks */

enum block { B_TRACE, B_ENV, B_CLOCK, B_STREAM, B_EVENT, B_OTHER };

static void parse_uuid(struct parser *ps, const struct val *v, uint8_t *out)
{
	const char *s = v->kind == V_STR ? v->s : "";
	unsigned n = 0;
	for (const char *q = s; *q; q++) {
		if (*q == '-')
			continue;
		int d = tsdl_digit_val(*q);
		if (d > 15 || n >= 32)
			tsdl_fail(ps, v->line, "uuid: malformed");
		if (n % 2 == 0)
			out[n / 2] = (uint8_t)(d << 4);
		else
			out[n / 2] |= (uint8_t)d;
		n++;
	}
	if (n != 32)
		tsdl_fail(ps, v->line, "uuid: malformed");
}

static const char *val_text(struct parser *ps, const struct val *v)
{
	char buf[32];
	if (v->kind != V_NUM)
		return v->s;
	snprintf(buf, sizeof(buf), "%s%llu", v->neg ? "-" : "",
		 (unsigned long long)v->u);
	return tsdl_dupn(ps, buf, strlen(buf));
}

static void assign(struct parser *ps, enum block b, const char *lhs,
		   const struct val *v, void *obj)
{
	struct pstream *st = obj;
	struct pevent *ev = obj;
	struct lt_clock *c = obj;

	switch (b) {
	case B_TRACE:
		if (!strcmp(lhs, "major")) {
			if (tsdl_val_uint(ps, v, "major") != 1)
				tsdl_fail(ps, v->line,
					  "major: only CTF 1 is read");
		} else if (!strcmp(lhs, "uuid")) {
			parse_uuid(ps, v, ps->m->uuid);
			ps->m->has_uuid = 1;
		} else if (!strcmp(lhs, "byte_order")) {
			int bo = tsdl_parse_byte_order(ps, v);
			if (bo == BO_NATIVE)
				tsdl_fail(
					ps, v->line,
					"byte_order: the trace's must be le or be");
			ps->trace_bo = bo;
		}
		break;
	case B_ENV:
		ps->env = tsdl_grow(ps, ps->env, ps->nenv, &ps->capenv,
				    sizeof(*ps->env));
		ps->env[ps->nenv++] =
			(struct lt_env_entry){ lhs, val_text(ps, v) };
		break;
	case B_CLOCK:
		if (!strcmp(lhs, "name"))
			c->name = v->s;
		else if (!strcmp(lhs, "freq"))
			c->freq = tsdl_val_uint(ps, v, "freq");
		else if (!strcmp(lhs, "offset_s"))
			c->offset_s = tsdl_val_int(ps, v, "offset_s");
		else if (!strcmp(lhs, "offset"))
			c->offset = tsdl_val_uint(ps, v, "offset");
		break;
	case B_STREAM:
		if (!strcmp(lhs, "id")) {
			uint64_t id = tsdl_val_uint(ps, v, "id");
			if (id > UINT32_MAX)
				tsdl_fail(ps, v->line, "id: too large");
			st->id = (uint32_t)id;
		}
		break;
	case B_EVENT:
		if (!strcmp(lhs, "name")) {
			if (v->kind == V_NUM)
				tsdl_fail(ps, v->line,
					  "name: expected a string");
			ev->name = v->s;
		} else if (!strcmp(lhs, "id")) {
			ev->id = tsdl_val_uint(ps, v, "id");
			ev->has_id = 1;
		} else if (!strcmp(lhs, "stream_id")) {
			uint64_t id = tsdl_val_uint(ps, v, "stream_id");
			if (id > UINT32_MAX)
				tsdl_fail(ps, v->line, "stream_id: too large");
			ev->stream_id = (int64_t)id;
		} else if (!strcmp(lhs, "loglevel")) {
			int64_t l = tsdl_val_int(ps, v, "loglevel");
			if (l < 0 || l > 1000)
				tsdl_fail(ps, v->line,
					  "loglevel: out of range");
			ev->loglevel = (int)l;
		} else if (!strcmp(lhs, "model.emf.uri") && v->kind != V_NUM &&
			   !strncmp(v->s, LT_MARKER_URI,
				    strlen(LT_MARKER_URI))) {
			ev->format = v->s + strlen(LT_MARKER_URI);
		}
		break;
	case B_OTHER:
		break;
	}
}

static void assign_type(struct parser *ps, enum block b, const char *lhs,
			struct ty *t, int line, void *obj)
{
	struct pstream *st = obj;
	struct pevent *ev = obj;

	if (t->kind != TY_STRUCT)
		tsdl_fail(ps, line, "%s: expected a struct", lhs);
	if (b == B_TRACE && !strcmp(lhs, "packet.header")) {
		ps->packet_header = t;
	} else if (b == B_STREAM && !strcmp(lhs, "packet.context")) {
		st->context = t;
	} else if (b == B_STREAM && !strcmp(lhs, "event.header")) {
		st->header = t;
	} else if (b == B_STREAM && !strcmp(lhs, "event.context")) {
		st->event_context = t;
	} else if (b == B_EVENT && !strcmp(lhs, "fields")) {
		ev->fields = t;
	} else if (b == B_EVENT && !strcmp(lhs, "context")) {
		ev->context = t;
	}
}

static void parse_block(struct parser *ps, enum block b)
{
	void *obj = NULL;
	int line = ps->t.line;
	if (b == B_STREAM) {
		ps->streams = tsdl_grow(ps, ps->streams, ps->nstreams,
					&ps->capstreams, sizeof(*ps->streams));
		obj = &ps->streams[ps->nstreams++];
		((struct pstream *)obj)->line = line;
	} else if (b == B_EVENT) {
		ps->events = tsdl_grow(ps, ps->events, ps->nevents,
				       &ps->capevents, sizeof(*ps->events));
		struct pevent *ev = &ps->events[ps->nevents++];
		ev->stream_id = -1;
		ev->loglevel = -1;
		ev->line = line;
		ev->name = "";
		obj = ev;
	} else if (b == B_TRACE) {
		if (ps->have_trace++)
			tsdl_fail(ps, line, "more than one trace block");
	} else if (b == B_CLOCK) {
		ps->clocks = tsdl_grow(ps, ps->clocks, ps->nclocks,
				       &ps->capclocks, sizeof(*ps->clocks));
		obj = &ps->clocks[ps->nclocks++];
	}
	tsdl_next(ps);
	tsdl_expect(ps, "{");
	while (!tsdl_is_punct(ps, "}")) {
		int aline = ps->t.line;
		const char *first = tsdl_expect_ident(ps, "an attribute name");
		const char *lhs = tsdl_dotted(ps, first);
		if (tsdl_is_punct(ps, ":=")) {
			tsdl_next(ps);
			struct ty *t = tsdl_parse_type(ps, 0);
			assign_type(ps, b, lhs, t, aline, obj);
		} else {
			tsdl_expect(ps, "=");
			struct val v = tsdl_parse_value(ps);
			assign(ps, b, lhs, &v, obj);
		}
		tsdl_expect(ps, ";");
	}
	tsdl_next(ps);
	tsdl_expect(ps, ";");
}

static int cmp_class(const void *a, const void *b)
{
	const struct lt_event_class *x =
		*(const struct lt_event_class *const *)a;
	const struct lt_event_class *y =
		*(const struct lt_event_class *const *)b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Whole seconds of the offset go to offset_s (the reader keeps offset <
 * freq), and base_ns is computed; a clock without freq counts ns, as
 * the spec says. */
static void finish_clock(struct parser *ps, struct lt_clock *c)
{
	if (!c->name)
		c->name = "";
	if (!c->freq)
		c->freq = 1000000000;
	if (c->offset >= c->freq) {
		uint64_t s = c->offset / c->freq;
		if (s > (uint64_t)INT64_MAX / 2 || c->offset_s > INT64_MAX / 2)
			tsdl_fail(ps, ps->line, "clock offset too large");
		c->offset_s += (int64_t)s;
		c->offset %= c->freq;
	}
	if (c->offset_s > INT64_MAX / 1000000000 - 1 ||
	    c->offset_s < INT64_MIN / 1000000000 + 1)
		tsdl_fail(ps, ps->line, "clock offset_s out of range");
	c->base_ns = c->offset_s * 1000000000 +
		     (int64_t)lt_clock_counts_to_ns(c->freq, c->offset);
}

/* The clock an integer of t maps to ("clock.NAME.value"), depth first;
 * NULL when none does. */
static const char *clock_map(const struct ty *t)
{
	if (!t)
		return NULL;
	if (t->kind == TY_INT)
		return t->map;
	if (t->kind == TY_ENUM)
		return clock_map(t->elem);
	if (t->kind != TY_STRUCT && t->kind != TY_VARIANT)
		return NULL;
	for (unsigned i = 0; i < t->nfields; i++) {
		const char *m = clock_map(t->fields[i].type);
		if (m)
			return m;
	}
	return NULL;
}

/* A stream class's clock: the one its event header's timestamp maps to,
 * else its packet context's, else the trace's first clock. */
static const struct lt_clock *stream_clock(struct parser *ps,
					   const struct pstream *st)
{
	const char *map = clock_map(st->header);
	if (!map)
		map = clock_map(st->context);
	if (!map)
		return &ps->clocks[0]; /* in the arena, as lt_tsdl may move */
	size_t n = strlen(map);
	/* "clock." NAME ".value" (checked where map was parsed) */
	if (n > 12 && !strcmp(map + n - 6, ".value")) {
		for (unsigned i = 0; i < ps->nclocks; i++) {
			const char *name = ps->clocks[i].name;
			if (strlen(name) == n - 12 &&
			    !memcmp(name, map + 6, n - 12))
				return &ps->clocks[i];
		}
	}
	tsdl_fail(ps, st->line, "stream %u: %s: no such clock", st->id, map);
	return NULL;
}

/* A header of h's tree holds a timestamp (an event's, a packet's
 * begin or end). */
static int has_times(const struct lt_hnode *h)
{
	if (!h)
		return 0;
	if (h->role == LT_ROLE_TS || h->role == LT_ROLE_TS_BEGIN ||
	    h->role == LT_ROLE_TS_END)
		return 1;
	for (uint32_t i = 0; i < h->nkids; i++)
		if (has_times(&h->kids[i]))
			return 1;
	return 0;
}

void tsdl_finish(struct parser *ps)
{
	struct lt_tsdl *m = ps->m;

	if (!ps->have_trace)
		tsdl_fail(ps, ps->line, "no trace block");
	if (ps->nclocks && !ps->clocks[0].freq)
		tsdl_fail(ps, ps->line, "no clock block with a frequency");
	int no_clock = !ps->nclocks;
	if (no_clock) {
		/* timestamps without a clock count ns from the epoch, as
		 * babeltrace2's default clock; without timestamps either,
		 * the trace is clockless */
		ps->clocks = tsdl_grow(ps, ps->clocks, ps->nclocks,
				       &ps->capclocks, sizeof(*ps->clocks));
		ps->clocks[ps->nclocks++] = (struct lt_clock){ .name = "" };
	}
	if (!ps->nstreams)
		tsdl_fail(ps, ps->line, "no stream block");
	for (unsigned i = 0; i < ps->nclocks; i++)
		finish_clock(ps, &ps->clocks[i]);
	m->clocks = ps->clocks;
	m->nclocks = ps->nclocks;

	m->pkt_header = tsdl_compile_header(ps, ps->packet_header, 0);
	tsdl_flatten_header(ps, m->pkt_header, 0, &m->pkt_header_flat);
	m->nstreams = ps->nstreams;
	m->streams = tsdl_alloc(ps, ps->nstreams * sizeof(*m->streams));
	for (unsigned i = 0; i < ps->nstreams; i++) {
		const struct pstream *st = &ps->streams[i];
		for (unsigned j = 0; j < i; j++)
			if (ps->streams[j].id == st->id)
				tsdl_fail(ps, st->line,
					  "stream id %u declared twice",
					  st->id);
		struct lt_stream_class *sc = &m->streams[i];
		sc->id = st->id;
		sc->own_layout = tsdl_own_packet_layout(ps, st) &&
				 tsdl_own_event_header(ps, st);
		sc->pkt_context = tsdl_compile_header(ps, st->context, 0);
		if (m->pkt_header_flat.flat)
			tsdl_flatten_header(ps, sc->pkt_context,
					    m->pkt_header_flat.end,
					    &sc->pkt_context_flat);
		sc->ev_header = tsdl_compile_header(ps, st->header, 1);
		sc->evh_kind =
			tsdl_lttng_header_kind(sc->ev_header, &sc->evh_be);
		sc->clock = stream_clock(ps, st);
		no_clock &= !has_times(sc->pkt_context) &&
			    !has_times(sc->ev_header);
	}
	m->clockless = no_clock && !has_times(m->pkt_header);

	m->nclasses = ps->nevents;
	m->classes = tsdl_alloc(ps, (ps->nevents ? ps->nevents : 1) *
					    sizeof(*m->classes));
	for (unsigned i = 0; i < ps->nevents; i++) {
		struct pevent *pe = &ps->events[i];
		struct lt_event_class *ec = &m->classes[i];
		if (pe->stream_id < 0) {
			if (ps->nstreams > 1)
				tsdl_fail(ps, pe->line,
					  "event \"%s\" has no stream_id",
					  pe->name);
			pe->stream_id = ps->streams[0].id;
		}
		/* the one event of its stream needs no id: 0 */
		unsigned same = 0;
		for (unsigned j = 0; !pe->has_id && j < ps->nevents; j++)
			same += ps->events[j].stream_id == pe->stream_id ||
				(ps->events[j].stream_id < 0 &&
				 ps->nstreams == 1);
		if (!pe->has_id && same != 1)
			tsdl_fail(ps, pe->line, "event \"%s\" has no id",
				  pe->name);
		if (!lt_tsdl_stream(m, (uint32_t)pe->stream_id))
			tsdl_fail(ps, pe->line, "event \"%s\": no stream %lld",
				  pe->name, (long long)pe->stream_id);
		const struct pstream *pst = NULL;
		for (unsigned j = 0; j < ps->nstreams; j++)
			if (ps->streams[j].id == (uint32_t)pe->stream_id)
				pst = &ps->streams[j];
		tsdl_compile_event(ps, pe, pst, ec);
		ec->stream_id = (uint32_t)pe->stream_id;
		ec->index = i;
		if (ec->nfields > m->max_fields)
			m->max_fields = ec->nfields;
	}

	/* per stream class: the event classes by id */
	for (unsigned s = 0; s < m->nstreams; s++) {
		struct lt_stream_class *sc = &m->streams[s];
		unsigned n = 0;
		uint64_t max = 0;
		for (unsigned i = 0; i < m->nclasses; i++)
			if (m->classes[i].stream_id == sc->id) {
				n++;
				if (m->classes[i].id > max)
					max = m->classes[i].id;
			}
		sc->sorted = tsdl_alloc(ps, (n ? n : 1) * sizeof(*sc->sorted));
		for (unsigned i = 0; i < m->nclasses; i++)
			if (m->classes[i].stream_id == sc->id)
				sc->sorted[sc->nsorted++] = &m->classes[i];
		qsort(sc->sorted, n, sizeof(*sc->sorted), cmp_class);
		for (unsigned i = 1; i < n; i++)
			if (sc->sorted[i]->id == sc->sorted[i - 1]->id)
				tsdl_fail(
					ps,
					ps->events[sc->sorted[i]->index].line,
					"event id %llu declared twice in stream %u",
					(unsigned long long)sc->sorted[i]->id,
					sc->id);
		if (n && max < 65536) {
			sc->table_len = max + 1;
			sc->table = tsdl_alloc(ps, sc->table_len *
							   sizeof(*sc->table));
			for (unsigned i = 0; i < n; i++)
				sc->table[sc->sorted[i]->id] = sc->sorted[i];
		}
	}
	m->env = ps->env;
	m->nenv = ps->nenv;
}

/* The metadata packet header's size in bytes: magic, uuid, checksum,
 * content_size, packet_size, compression, encryption and checksum
 * schemes, major, minor. */
#define META_HDR 37
#define META_MAGIC 0x75d11d57u

static uint32_t ld32_bo(const unsigned char *p, int be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
			       (uint32_t)p[2] << 8 | p[3] :
		    (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
			       (uint32_t)p[1] << 8 | p[0];
}

/*
 * Packetized metadata: the text is the concatenation of the packets'
 * contents, of version major.minor (1.8 for TSDL, 2.0 for CTF 2's JSON).
 * Returns it (in m's arena, *len set) or NULL with err set.
 */
const char *lt_tsdl_unpacketize(const unsigned char *b, size_t *len,
				unsigned major, unsigned minor,
				const char *path, struct lt_tsdl *m, char *err,
				size_t errlen)
{
	size_t n = *len, off = 0, out = 0;
	int be = b[0] == 0x75;
	char *text = lt_arena_alloc(&m->arena, n + 1);
	if (!text) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	while (off < n) {
		const unsigned char *h = b + off;
		if (n - off < META_HDR) {
			snprintf(err, errlen,
				 "%s: offset %zu: truncated metadata packet "
				 "header",
				 path, off);
			return NULL;
		}
		if (ld32_bo(h, be) != META_MAGIC) {
			snprintf(err, errlen,
				 "%s: offset %zu: bad metadata packet magic "
				 "0x%08x",
				 path, off, ld32_bo(h, be));
			return NULL;
		}
		uint32_t content = ld32_bo(h + 24, be);
		uint32_t size = ld32_bo(h + 28, be);
		if (size % 8 || size / 8 < META_HDR || size / 8 > n - off ||
		    content > size || content % 8 || content / 8 < META_HDR) {
			snprintf(err, errlen,
				 "%s: offset %zu: bad metadata packet sizes "
				 "(content %u, packet %u bits, %zu bytes "
				 "left)",
				 path, off, content, size, n - off);
			return NULL;
		}
		if (h[32] || h[33] || h[34]) {
			snprintf(err, errlen,
				 "%s: offset %zu: compressed, encrypted or "
				 "checksummed metadata is not supported",
				 path, off + 32);
			return NULL;
		}
		if (h[35] != major || h[36] != minor) {
			snprintf(err, errlen,
				 "%s: offset %zu: metadata version %u.%u, "
				 "expected %u.%u",
				 path, off + 35, h[35], h[36], major, minor);
			return NULL;
		}
		memcpy(text + out, h + META_HDR, content / 8 - META_HDR);
		out += content / 8 - META_HDR;
		off += size / 8;
	}
	text[out] = 0;
	*len = out;
	return text;
}

int lt_tsdl_packetized(const unsigned char *b, size_t len)
{
	return len >= 4 &&
	       ((b[0] == 0x57 && b[1] == 0x1d && b[2] == 0xd1 &&
		 b[3] == 0x75) ||
		(b[0] == 0x75 && b[1] == 0xd1 && b[2] == 0x1d && b[3] == 0x57));
}

struct parser *tsdl_parser_new(struct lt_tsdl *m, const char *path, char *err,
			       size_t errlen)
{
	struct parser *ps = lt_arena_alloc(&m->arena, sizeof(*ps));
	if (!ps) {
		snprintf(err, errlen, "%s: out of memory", path);
		lt_tsdl_free(m);
		return NULL;
	}
	ps->line = 1;
	ps->path = path;
	ps->m = m;
	ps->err = err;
	ps->errlen = errlen;
	ps->a = &m->arena;
	ps->trace_bo = BO_LE;
	return ps;
}

int lt_tsdl_parse(const char *text, size_t len, const char *path,
		  struct lt_tsdl *m, char *err, size_t errlen)
{
	struct parser *ps;
	static const char magic[] = "/* CTF 1.";
	const unsigned char *b = (const unsigned char *)text;

	memset(m, 0, sizeof(*m));
	if (lt_tsdl_packetized(b, len)) {
		text = lt_tsdl_unpacketize(b, &len, 1, 8, path, m, err, errlen);
		if (!text) {
			lt_tsdl_free(m);
			return -EINVAL;
		}
	} else if (len < sizeof(magic) - 1 ||
		   memcmp(text, magic, sizeof(magic) - 1)) {
		snprintf(err, errlen,
			 "%s:1: does not start with \"/* CTF 1.8 */\"", path);
		return -EINVAL;
	}
	if (memchr(text, 0, len)) {
		snprintf(err, errlen, "%s: NUL byte in the metadata text",
			 path);
		return -EINVAL;
	}
	ps = tsdl_parser_new(m, path, err, errlen);
	if (!ps)
		return -ENOMEM;
	ps->p = text;
	ps->end = text + len;
	if (setjmp(ps->jb)) {
		lt_tsdl_free(m);
		return -EINVAL;
	}
	tsdl_next(ps);
	while (ps->t.kind != TK_EOF) {
		if (ps->t.kind != TK_IDENT)
			tsdl_fail(ps, ps->t.line,
				  "expected a block, found '%s'",
				  tsdl_tok_text(ps));
		if (tsdl_is_ident(ps, "trace"))
			parse_block(ps, B_TRACE);
		else if (tsdl_is_ident(ps, "env"))
			parse_block(ps, B_ENV);
		else if (tsdl_is_ident(ps, "clock"))
			parse_block(ps, B_CLOCK);
		else if (tsdl_is_ident(ps, "stream"))
			parse_block(ps, B_STREAM);
		else if (tsdl_is_ident(ps, "event"))
			parse_block(ps, B_EVENT);
		else if (tsdl_is_ident(ps, "callsite"))
			parse_block(ps, B_OTHER);
		else if (tsdl_is_ident(ps, "typealias") ||
			 tsdl_is_ident(ps, "typedef"))
			tsdl_parse_type_decl(ps);
		else if (tsdl_is_ident(ps, "struct") ||
			 tsdl_is_ident(ps, "variant") ||
			 tsdl_is_ident(ps, "enum")) {
			tsdl_parse_type(ps, 0); /* a named type's declaration */
			tsdl_expect(ps, ";");
		} else
			tsdl_fail(ps, ps->t.line, "unknown block '%s'",
				  ps->t.s);
	}
	tsdl_finish(ps);
	return 0;
}

void lt_tsdl_free(struct lt_tsdl *m)
{
	lt_arena_free(&m->arena);
	memset(m, 0, sizeof(*m));
}

const struct lt_stream_class *lt_tsdl_stream(const struct lt_tsdl *m,
					     uint32_t id)
{
	for (unsigned i = 0; i < m->nstreams; i++)
		if (m->streams[i].id == id)
			return &m->streams[i];
	return NULL;
}

const struct lt_event_class *lt_tsdl_event(const struct lt_stream_class *sc,
					   uint64_t id)
{
	if (sc->table)
		return id < sc->table_len ? sc->table[id] : NULL;
	unsigned lo = 0, hi = sc->nsorted;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (sc->sorted[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sc->nsorted && sc->sorted[lo]->id == id ? sc->sorted[lo] :
							      NULL;
}
