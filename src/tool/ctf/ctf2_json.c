/* SPDX-License-Identifier: MIT */
/*
 * ctf2_json.c - CTF 2's metadata front end: each fragment of the JSON
 * text sequence is parsed with jansson and turned into what the TSDL
 * front end's grammar produces (struct ty trees, stream and event blocks,
 * clocks in struct parser, tsdl_int.h); tsdl_finish() then builds the
 * classes from them as it does for TSDL.  So CTF 2 and CTF 1.8 traces
 * share the type model, the headers' compilation, the decoder and its
 * fast paths.
 *
 * The field classes are ctf2_fc.c's.  Extensions declared in the
 * preamble are refused (the reader knows none, and CTF 2 says a consumer
 * must not read a trace needing one it does not know); attributes are
 * ignored but babeltrace2's log level.
 */
#include "ctf/ctf2.h"
#include "ctf/ctf2_int.h"

#include <errno.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#define RS 0x1e

/* A fragment's scope root: a structure. */
static struct ty *root_struct(struct c2 *c, json_t *frag, const char *key,
			      enum scope sc)
{
	json_t *j = json_object_get(frag, key);
	if (!j)
		return NULL;
	struct ty *t = ctf2_field_class(c, j, sc, key, 0);
	if (t->kind != TY_STRUCT)
		ctf2_fail(c, "\"%s\": expected a structure", key);
	return t;
}

static void uuid_of(struct c2 *c, json_t *u, uint8_t out[16])
{
	if (json_is_string(u))
		return; /* CTF 2.0's "uid": a name, not a UUID */
	if (!json_is_array(u) || json_array_size(u) != 16)
		ctf2_fail(c, "\"uuid\": expected 16 bytes");
	for (size_t i = 0; i < 16; i++) {
		int64_t b = ctf2_int(c, json_array_get(u, i), "uuid");
		if (b < 0 || b > 255)
			ctf2_fail(c, "\"uuid\": %lld is not a byte",
				  (long long)b);
		out[i] = (uint8_t)b;
	}
	c->ps->m->has_uuid = 1;
}

static void preamble(struct c2 *c, json_t *f)
{
	if (c->have_preamble++)
		ctf2_fail(c, "a second preamble");
	if (ctf2_uint(c, f, "version", 0, 255) != 2)
		ctf2_fail(
			c, "version %llu, expected 2",
			(unsigned long long)ctf2_uint(c, f, "version", 0, 255));
	json_t *u = json_object_get(f, "uuid");
	if (u)
		uuid_of(c, u, c->ps->m->uuid);
	ctf2_extensions(c, f, 1);
}

static void alias(struct c2 *c, json_t *f)
{
	const char *name = ctf2_str(c, f, "name", 1);
	json_t *j = json_object_get(f, "field-class");
	if (!j)
		ctf2_fail(c, "no \"field-class\"");
	c->aliases = tsdl_grow(c->ps, c->aliases, c->naliases, &c->capaliases,
			       sizeof(*c->aliases));
	struct ty *t = ctf2_field_class(c, j, SC_OTHER, name, 0);
	c->aliases[c->naliases++] =
		(struct alias){ name, t,
				json_is_object(j) ? ctf2_roles(c, j) : 0 };
}

static void trace_class(struct c2 *c, json_t *f)
{
	struct parser *ps = c->ps;
	if (ps->have_trace++)
		ctf2_fail(c, "a second trace class");
	if (ps->nstreams)
		ctf2_fail(c, "after a data stream class");
	json_t *u = json_object_get(f, "uuid");
	if (u && !ps->m->has_uuid)
		uuid_of(c, u, ps->m->uuid);
	ps->packet_header =
		root_struct(c, f, "packet-header-field-class", SC_PKT_HEADER);
	json_t *env = json_object_get(f, "environment");
	const char *key;
	json_t *v;
	if (env && !json_is_object(env))
		ctf2_fail(c, "\"environment\": expected an object");
	json_object_foreach(env, key, v)
	{
		char buf[32];
		const char *text;
		if (json_is_string(v)) {
			text = ctf2_dup(c, json_string_value(v));
		} else if (json_is_integer(v)) {
			snprintf(buf, sizeof(buf), "%lld",
				 (long long)json_integer_value(v));
			text = ctf2_dup(c, buf);
		} else {
			ctf2_fail(c,
				  "environment \"%s\": expected a string or "
				  "an integer",
				  key);
		}
		ps->env = tsdl_grow(ps, ps->env, ps->nenv, &ps->capenv,
				    sizeof(*ps->env));
		ps->env[ps->nenv++] =
			(struct lt_env_entry){ ctf2_dup(c, key), text };
	}
}

static void clock_class(struct c2 *c, json_t *f)
{
	struct parser *ps = c->ps;
	const char *id = ctf2_str(c, f, "id", 0);
	if (!id)
		id = ctf2_str(c, f, "name", 1);
	for (unsigned i = 0; i < ps->nclocks; i++)
		if (!strcmp(ps->clocks[i].name, id))
			ctf2_fail(c, "clock class \"%s\" declared twice", id);
	ps->clocks = tsdl_grow(ps, ps->clocks, ps->nclocks, &ps->capclocks,
			       sizeof(*ps->clocks));
	struct lt_clock *k = &ps->clocks[ps->nclocks++];
	k->name = id;
	k->freq = ctf2_uint(c, f, "frequency", 0, UINT64_MAX >> 1);
	if (!k->freq)
		ctf2_fail(c, "clock class \"%s\": no frequency", id);
	json_t *off = json_object_get(f, "offset-from-origin");
	if (!off)
		off = json_object_get(f, "offset");
	if (off) {
		if (!json_is_object(off))
			ctf2_fail(c, "clock offset: expected an object");
		json_t *s = json_object_get(off, "seconds");
		k->offset_s = s ? ctf2_int(c, s, "seconds") : 0;
		k->offset = ctf2_uint(c, off, "cycles", 0, UINT64_MAX >> 1);
	}
	ctf2_uint(c, f, "precision", 0, UINT64_MAX >> 1);
	ctf2_uint(c, f, "accuracy", 0, UINT64_MAX >> 1);
}

static void stream_class(struct c2 *c, json_t *f)
{
	struct parser *ps = c->ps;
	uint64_t id = ctf2_uint(c, f, "id", 0, UINT32_MAX);
	const char *clk = ctf2_str(c, f, "default-clock-class-id", 0);
	if (!clk)
		clk = ctf2_str(c, f, "default-clock-class-name", 0);
	c->clock_map = NULL;
	if (clk) {
		unsigned i = 0;
		while (i < ps->nclocks && strcmp(ps->clocks[i].name, clk))
			i++;
		if (i == ps->nclocks)
			ctf2_fail(c, "no clock class \"%s\" before it", clk);
		char buf[512];
		snprintf(buf, sizeof(buf), "clock.%s.value", clk);
		c->clock_map = ctf2_dup(c, buf);
	}
	ps->streams = tsdl_grow(ps, ps->streams, ps->nstreams, &ps->capstreams,
				sizeof(*ps->streams));
	struct pstream *st = &ps->streams[ps->nstreams++];
	st->id = (uint32_t)id;
	st->line = c->line;
	st->context =
		root_struct(c, f, "packet-context-field-class", SC_PKT_CTX);
	st->header = root_struct(c, f, "event-record-header-field-class",
				 SC_EV_HEADER);
	st->event_context = root_struct(
		c, f, "event-record-common-context-field-class", SC_OTHER);
	c->clock_map = NULL;
}

/* babeltrace2's log level names, as LTTng numbers them. */
static int log_level(struct c2 *c, json_t *f)
{
	static const char *const names[] = {
		"emergency",	  "alert",	  "critical",
		"error",	  "warning",	  "notice",
		"info",		  "debug:system", "debug:program",
		"debug:process",  "debug:module", "debug:unit",
		"debug:function", "debug:line",	  "debug",
	};
	json_t *a = json_object_get(f, "attributes");
	if (!a)
		a = json_object_get(f, "user-attributes");
	json_t *bt = json_object_get(a, "babeltrace.org,2020");
	json_t *l = json_object_get(bt, "log-level");
	(void)c;
	if (!json_is_string(l))
		return -1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(json_string_value(l), names[i]))
			return (int)i;
	return -1;
}

static void event_class(struct c2 *c, json_t *f)
{
	struct parser *ps = c->ps;
	ps->events = tsdl_grow(ps, ps->events, ps->nevents, &ps->capevents,
			       sizeof(*ps->events));
	struct pevent *ev = &ps->events[ps->nevents++];
	memset(ev, 0, sizeof(*ev));
	ev->line = c->line;
	ev->name = ctf2_str(c, f, "name", 0);
	if (!ev->name)
		ev->name = "";
	ev->id = ctf2_uint(c, f, "id", 0, UINT64_MAX >> 1);
	ev->has_id = 1;
	ev->stream_id =
		(int64_t)ctf2_uint(c, f, "data-stream-class-id", 0, UINT32_MAX);
	ev->loglevel = log_level(c, f);
	ev->context =
		root_struct(c, f, "specific-context-field-class", SC_OTHER);
	ev->fields = root_struct(c, f, "payload-field-class", SC_OTHER);
}

static void fragment(struct c2 *c, json_t *f, unsigned index)
{
	static char what[96];
	if (!json_is_object(f))
		ctf2_fail(c, "fragment %u is not a JSON object", index);
	const char *type = ctf2_str(c, f, "type", 1);
	const char *name = ctf2_str(c, f, "name", 0);
	snprintf(what, sizeof(what), "%s%s%s%s", type, name ? " \"" : "",
		 name ? name : "", name ? "\"" : "");
	c->what = ctf2_dup(c, what);
	if (!c->have_preamble && strcmp(type, "preamble"))
		ctf2_fail(c, "the first fragment must be the preamble");
	if (!strcmp(type, "preamble"))
		return preamble(c, f);
	ctf2_extensions(c, f, 0);
	if (!strcmp(type, "field-class-alias"))
		alias(c, f);
	else if (!strcmp(type, "trace-class"))
		trace_class(c, f);
	else if (!strcmp(type, "clock-class"))
		clock_class(c, f);
	else if (!strcmp(type, "data-stream-class"))
		stream_class(c, f);
	else if (!strcmp(type, "event-record-class"))
		event_class(c, f);
	else
		ctf2_fail(c, "unknown fragment type");
}

/* Each fragment of the JSON text sequence, in order; returns the line
 * after the last. */
static void read_fragments(struct c2 *c, const char *text, size_t len)
{
	struct parser *ps = c->ps;
	const char *p = text, *end = text + len;
	int line = 1;
	unsigned index = 0;
	/* before the first record separator: blanks only */
	while (p < end && *p != RS) {
		if (*p == '\n')
			line++;
		else if (*p != ' ' && *p != '\t' && *p != '\r')
			tsdl_fail(ps, line,
				  "CTF 2 metadata: text before the first "
				  "record separator (0x1E)");
		p++;
	}
	while (p < end) {
		const char *q = memchr(p + 1, RS, (size_t)(end - p - 1));
		json_error_t je;
		if (!q)
			q = end;
		c->line = ps->line = line;
		c->what = "metadata";
		c->root = json_loadb(p + 1, (size_t)(q - p - 1), 0, &je);
		if (!c->root)
			tsdl_fail(ps, line + je.line - 1,
				  "fragment %u: invalid JSON: %s", index,
				  je.text);
		fragment(c, c->root, index++);
		json_decref(c->root);
		c->root = NULL;
		for (; p < q; p++)
			line += *p == '\n';
	}
	c->line = ps->line = line;
}

/* The text (unpacketized) parsed into m; errors unwind here. */
static int parse_text(const char *text, size_t len, const char *path,
		      struct lt_tsdl *m, char *err, size_t errlen)
{
	struct parser *ps = tsdl_parser_new(m, path, err, errlen);
	if (!ps)
		return -ENOMEM;
	struct c2 *c = lt_arena_alloc(&m->arena, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "%s: out of memory", path);
		lt_tsdl_free(m);
		return -ENOMEM;
	}
	c->ps = ps;
	c->what = "metadata";
	if (setjmp(ps->jb)) {
		json_decref(c->root);
		lt_tsdl_free(m);
		return -EINVAL;
	}
	read_fragments(c, text, len);
	c->what = "metadata";
	if (!c->have_preamble)
		tsdl_fail(ps, ps->line, "CTF 2 metadata without a preamble");
	if (!ps->nstreams)
		tsdl_fail(ps, ps->line, "no data stream class");
	ps->have_trace = 1; /* the trace class is optional in CTF 2 */
	tsdl_finish(ps);
	return 0;
}

int lt_ctf2_parse(const char *text, size_t len, const char *path,
		  struct lt_tsdl *m, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	if (lt_tsdl_packetized((const unsigned char *)text, len)) {
		text = lt_tsdl_unpacketize((const unsigned char *)text, &len, 2,
					   0, path, m, err, errlen);
		if (!text) {
			lt_tsdl_free(m);
			return -EINVAL;
		}
	}
	if (memchr(text, 0, len)) {
		snprintf(err, errlen, "%s: NUL byte in the metadata text",
			 path);
		lt_tsdl_free(m);
		return -EINVAL;
	}
	return parse_text(text, len, path, m, err, errlen);
}
