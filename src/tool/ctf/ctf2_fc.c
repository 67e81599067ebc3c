/* SPDX-License-Identifier: MIT */
/*
 * ctf2_fc.c - CTF 2's field classes as the TSDL grammar's types (struct
 * ty, tsdl_int.h): fixed-length integers, enumerations (2.0's integer
 * mappings and the drafts' enumeration types), bit arrays, booleans,
 * floats, strings, BLOBs, structures, arrays and variants; roles into the
 * CTF 1.8 member names the header compiler knows; field locations into
 * CTF 1.8 paths.  Also the reading of properties that ctf2_json.c
 * shares.  Field classes the decoder has no form for yet are refused
 * with their name.
 */
#include "ctf/ctf2_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* nesting of field classes, as the TSDL grammar allows */
#define MAX_DEPTH 16

static const struct {
	const char *name;
	unsigned bit;
} role_names[] = {
	{ "packet-magic-number", R_MAGIC },
	{ "metadata-stream-uuid", R_UUID },
	{ "data-stream-class-id", R_DSC_ID },
	{ "data-stream-id", R_DS_ID },
	{ "default-clock-timestamp", R_CLOCK_TS },
	{ "packet-end-default-clock-timestamp", R_END_TS },
	{ "packet-content-length", R_CONTENT },
	{ "packet-total-length", R_TOTAL },
	{ "packet-sequence-number", R_SEQ },
	{ "discarded-event-record-counter-snapshot", R_DISC },
	{ "event-record-class-id", R_ERC_ID },
};

__attribute__((noreturn, format(printf, 2, 3))) void
ctf2_fail(struct c2 *c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tsdl_fail(c->ps, c->line, "%s: %s", c->what, buf);
}

const char *ctf2_dup(struct c2 *c, const char *s)
{
	return tsdl_dupn(c->ps, s, strlen(s));
}

/* A property's string; NULL when absent and not required. */
const char *ctf2_str(struct c2 *c, json_t *o, const char *key, int required)
{
	json_t *v = json_object_get(o, key);
	if (!v) {
		if (required)
			ctf2_fail(c, "no \"%s\"", key);
		return NULL;
	}
	if (!json_is_string(v))
		ctf2_fail(c, "\"%s\": expected a string", key);
	return ctf2_dup(c, json_string_value(v));
}

int64_t ctf2_int(struct c2 *c, json_t *v, const char *what)
{
	if (!json_is_integer(v))
		ctf2_fail(c, "%s: expected an integer", what);
	return (int64_t)json_integer_value(v);
}

/* A property's unsigned integer, at most max; def when absent. */
uint64_t ctf2_uint(struct c2 *c, json_t *o, const char *key, uint64_t def,
		   uint64_t max)
{
	json_t *v = json_object_get(o, key);
	if (!v)
		return def;
	int64_t i = ctf2_int(c, v, key);
	if (i < 0 || (uint64_t)i > max)
		ctf2_fail(c, "\"%s\": %lld is out of range (0 to %llu)", key,
			  (long long)i, (unsigned long long)max);
	return (uint64_t)i;
}

unsigned ctf2_align(struct c2 *c, json_t *o, const char *key)
{
	uint64_t al = ctf2_uint(c, o, key, 1, 4096);
	if (!al || (al & (al - 1)))
		ctf2_fail(c, "\"%s\": %llu is not a power of two", key,
			  (unsigned long long)al);
	return (unsigned)al;
}

struct ty *ctf2_new_ty(struct c2 *c, enum ty_kind k)
{
	struct ty *t = tsdl_alloc(c->ps, sizeof(*t));
	t->kind = k;
	t->line = c->line;
	t->base = 10;
	return t;
}

/* An extensions object: any extension is one the reader does not know. */
void ctf2_extensions(struct c2 *c, json_t *o, int declare)
{
	json_t *ext = json_object_get(o, "extensions");
	const char *ns, *name;
	json_t *v, *w;
	if (!ext)
		return;
	if (!json_is_object(ext))
		ctf2_fail(c, "\"extensions\": expected an object");
	json_object_foreach(ext, ns, v)
	{
		if (!json_is_object(v))
			ctf2_fail(c, "extensions \"%s\": expected an object",
				  ns);
		json_object_foreach(v, name, w)
		{
			if (declare)
				ctf2_fail(c,
					  "the trace needs extension \"%s\" of "
					  "\"%s\", which this reader does not "
					  "know",
					  name, ns);
		}
	}
}

unsigned ctf2_roles(struct c2 *c, json_t *o)
{
	json_t *r = json_object_get(o, "roles");
	unsigned mask = 0;
	if (!r)
		return 0;
	if (!json_is_array(r))
		ctf2_fail(c, "\"roles\": expected an array");
	for (size_t i = 0; i < json_array_size(r); i++) {
		json_t *e = json_array_get(r, i);
		if (!json_is_string(e))
			ctf2_fail(c, "\"roles\": expected strings");
		size_t k = 0;
		while (k < sizeof(role_names) / sizeof(role_names[0]) &&
		       strcmp(role_names[k].name, json_string_value(e)))
			k++;
		if (k == sizeof(role_names) / sizeof(role_names[0]))
			ctf2_fail(c, "unknown role \"%s\"",
				  json_string_value(e));
		mask |= role_names[k].bit;
	}
	return mask;
}

/* The CTF 1.8 member name the roles stand for in scope sc: "" for none,
 * NULL to take the member's own name (cpu_id and pid, which no CTF 2
 * role names but the packet index reads). */
const char *ctf2_role_name(unsigned roles, enum scope sc, const char *member)
{
	static const struct {
		enum scope sc;
		unsigned bit;
		const char *name;
	} map[] = {
		{ SC_PKT_HEADER, R_MAGIC, "magic" },
		{ SC_PKT_HEADER, R_UUID, "uuid" },
		{ SC_PKT_HEADER, R_DSC_ID, "stream_id" },
		{ SC_PKT_HEADER, R_DS_ID, "stream_instance_id" },
		{ SC_PKT_CTX, R_CLOCK_TS, "timestamp_begin" },
		{ SC_PKT_CTX, R_END_TS, "timestamp_end" },
		{ SC_PKT_CTX, R_CONTENT, "content_size" },
		{ SC_PKT_CTX, R_TOTAL, "packet_size" },
		{ SC_PKT_CTX, R_SEQ, "packet_seq_num" },
		{ SC_PKT_CTX, R_DISC, "events_discarded" },
		{ SC_EV_HEADER, R_ERC_ID, "id" },
		{ SC_EV_HEADER, R_CLOCK_TS, "timestamp" },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].sc == sc && (roles & map[i].bit))
			return map[i].name;
	if (member && (!strcmp(member, "cpu_id") || !strcmp(member, "pid")))
		return NULL;
	return "";
}

/* A field location as the CTF 1.8 path the resolvers read: an origin's
 * scope prefix, then the names, each after a '_' (the resolvers take one
 * leading '_' off a path's names, as CTF 1.8 allows it; CTF 2's names
 * are exact).  CTF 2's parent steps (null) are left to the resolvers'
 * outward lookup.  Takes both the object form
 * ({"origin", "path"}) and an array whose first element may be the
 * origin. */
static const char *location(struct c2 *c, json_t *loc, const char *what)
{
	static const struct {
		const char *origin, *prefix;
	} origins[] = {
		{ "packet-header", "trace.packet.header." },
		{ "packet-context", "stream.packet.context." },
		{ "event-record-header", "stream.event.header." },
		{ "event-record-common-context", "stream.event.context." },
		{ "event-record-specific-context", "event.context." },
		{ "event-record-payload", "event.fields." },
	};
	json_t *path = loc;
	const char *origin = NULL;
	size_t first = 0;
	char buf[1024];
	size_t n = 0;

	if (json_is_object(loc)) {
		path = json_object_get(loc, "path");
		origin = ctf2_str(c, loc, "origin", 0);
	} else if (json_is_array(loc) && json_array_size(loc) &&
		   json_is_string(json_array_get(loc, 0))) {
		const char *s = json_string_value(json_array_get(loc, 0));
		for (size_t i = 0; i < sizeof(origins) / sizeof(origins[0]);
		     i++)
			if (!strcmp(s, origins[i].origin)) {
				origin = s;
				first = 1;
			}
	}
	if (!json_is_array(path) || json_array_size(path) <= first)
		ctf2_fail(c, "%s: expected a field location with a path", what);
	buf[0] = 0;
	if (origin) {
		size_t i = 0;
		while (i < sizeof(origins) / sizeof(origins[0]) &&
		       strcmp(origin, origins[i].origin))
			i++;
		if (i == sizeof(origins) / sizeof(origins[0]))
			ctf2_fail(c, "%s: unknown origin \"%s\"", what, origin);
		n = (size_t)snprintf(buf, sizeof(buf), "%s", origins[i].prefix);
	}
	for (size_t i = first; i < json_array_size(path); i++) {
		json_t *e = json_array_get(path, i);
		if (json_is_null(e))
			continue;
		if (!json_is_string(e))
			ctf2_fail(c, "%s: a path holds names and nulls", what);
		const char *s = json_string_value(e);
		if (strlen(s) + 3 > sizeof(buf) - n)
			ctf2_fail(c, "%s: path too long", what);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s_%s",
				      n && buf[n - 1] != '.' ? "." : "", s);
	}
	if (!n || buf[n - 1] == '.')
		ctf2_fail(c, "%s: the path names no field", what);
	return ctf2_dup(c, buf);
}

/* An integer range set into ranges labelled label, appended at *n. */
static void range_set(struct c2 *c, json_t *set, const char *what,
		      struct lt_enum_range **out, unsigned *n, unsigned *cap,
		      const char *label)
{
	if (!json_is_array(set) || !json_array_size(set))
		ctf2_fail(c, "%s: expected an integer range set", what);
	for (size_t i = 0; i < json_array_size(set); i++) {
		json_t *r = json_array_get(set, i);
		if (!json_is_array(r) || json_array_size(r) != 2)
			ctf2_fail(c, "%s: a range is [lower, upper]", what);
		int64_t lo = ctf2_int(c, json_array_get(r, 0), what);
		int64_t hi = ctf2_int(c, json_array_get(r, 1), what);
		if (hi < lo)
			ctf2_fail(c, "%s: range [%lld, %lld] is upside down",
				  what, (long long)lo, (long long)hi);
		*out = tsdl_grow(c->ps, *out, *n, cap, sizeof(**out));
		(*out)[(*n)++] = (struct lt_enum_range){ label, lo, hi };
	}
}

/* A string's encoding into t: its code units' bytes (0 for UTF-8) and
 * byte order. */
static void string_encoding(struct c2 *c, json_t *j, const char *what,
			    struct ty *t)
{
	static const struct {
		const char *name;
		int enc, bo;
	} encs[] = {
		{ "utf-8", 0, BO_LE },	  { "utf-16le", 2, BO_LE },
		{ "utf-16be", 2, BO_BE }, { "utf-32le", 4, BO_LE },
		{ "utf-32be", 4, BO_BE },
	};
	const char *enc = ctf2_str(c, j, "encoding", 0);
	for (size_t i = 0; i < sizeof(encs) / sizeof(encs[0]); i++)
		if (!enc || !strcmp(enc, encs[i].name)) {
			t->enc = encs[i].enc;
			t->bo = encs[i].bo;
			return;
		}
	ctf2_fail(c, "%s: unknown string encoding \"%s\"", what, enc);
}

static struct ty *byte_elem(struct c2 *c, int text, int base)
{
	struct ty *e = ctf2_new_ty(c, TY_INT);
	e->size = 8;
	e->align = 8;
	e->text = text;
	e->base = base;
	return e;
}

/* An object of labelled range sets (an enumeration's mappings, a bit
 * map's flags; key names it in messages) into t's ranges, each range
 * with its label, a label's ranges together; NULL adds none. */
static void labelled_ranges(struct c2 *c, json_t *maps, const char *key,
			    const char *what, struct ty *t)
{
	unsigned cap = 0;
	const char *label;
	json_t *set;
	if (maps && !json_is_object(maps))
		ctf2_fail(c, "%s: \"%s\": expected an object", what, key);
	json_object_foreach(maps, label, set)
	{
		range_set(c, set, what, &t->ranges, &t->nranges, &cap,
			  ctf2_dup(c, label));
	}
}

/* A selector's range set (a variant's option opt, an optional's) added
 * to t's selector ranges. */
static void selector_ranges(struct c2 *c, json_t *set, const char *what,
			    uint32_t opt, struct ty *t, unsigned *cap)
{
	struct lt_enum_range *r = NULL;
	unsigned nr = 0, rcap = 0;
	range_set(c, set, what, &r, &nr, &rcap, NULL);
	struct lt_var_sel *sel = (struct lt_var_sel *)t->vsel;
	for (unsigned k = 0; k < nr; k++) {
		sel = tsdl_grow(c->ps, sel, t->nvsel, cap, sizeof(*sel));
		sel[t->nvsel++] = (struct lt_var_sel){ r[k].lo, r[k].hi, opt };
	}
	t->vsel = sel;
}

static int display_base(struct c2 *c, json_t *j, const char *what)
{
	uint64_t base = ctf2_uint(c, j, "preferred-display-base", 10, 16);
	if (base != 2 && base != 8 && base != 10 && base != 16)
		ctf2_fail(c, "%s: display base %llu", what,
			  (unsigned long long)base);
	return (int)base;
}

/* A fixed-length bit array and what derives from it: integers,
 * enumerations (CTF 2.0's mappings, or the drafts' enumeration types),
 * booleans, bit maps. */
static struct ty *fixed_int(struct c2 *c, json_t *j, const char *type,
			    const char *what)
{
	struct ty *t = ctf2_new_ty(c, TY_INT);
	uint64_t len = ctf2_uint(c, j, "length", 0, 64);
	const char *bo = ctf2_str(c, j, "byte-order", 1);
	const char *bit_order = ctf2_str(c, j, "bit-order", 0);
	if (!len)
		ctf2_fail(c, "%s: \"length\" of 1 to 64 bits is required",
			  what);
	t->size = (unsigned)len;
	t->align = ctf2_align(c, j, "alignment");
	if (!strcmp(bo, "little-endian") || !strcmp(bo, "le"))
		t->bo = BO_LE;
	else if (!strcmp(bo, "big-endian") || !strcmp(bo, "be"))
		t->bo = BO_BE;
	else
		ctf2_fail(c, "%s: byte order \"%s\"", what, bo);
	if (bit_order && strcmp(bit_order, t->bo == BO_LE ? "first-to-last" :
							    "last-to-first"))
		ctf2_fail(c, "%s: bit order \"%s\" is not supported", what,
			  bit_order);
	t->is_signed = strstr(type, "-signed-") != NULL;
	t->base = display_base(c, j, what);
	if (!strcmp(type, "fixed-length-bit-array") ||
	    !strcmp(type, "fixed-length-bit-map"))
		t->base = 16; /* babeltrace2 prints a bit array in hex */
	if (!strcmp(type, "fixed-length-boolean"))
		t->base = LT_BASE_BOOL;
	int bitmap = !strcmp(type, "fixed-length-bit-map");
	const char *key = bitmap ? "flags" : "mappings";
	json_t *maps = json_object_get(j, key);
	if (!maps) {
		if (bitmap)
			ctf2_fail(c, "%s: a bit map without \"flags\"", what);
		return t;
	}
	struct ty *e = ctf2_new_ty(c, TY_ENUM);
	e->elem = t;
	e->size = t->size;
	e->align = t->align;
	e->is_signed = t->is_signed;
	labelled_ranges(c, maps, key, what, e);
	e->bitmap = bitmap;
	for (unsigned k = 0; bitmap && k < e->nranges; k++)
		if (e->ranges[k].lo < 0 || e->ranges[k].hi >= (int64_t)len)
			ctf2_fail(c, "%s: flag \"%s\": bit %lld of %llu", what,
				  e->ranges[k].label,
				  (long long)e->ranges[k].hi,
				  (unsigned long long)len);
	return e;
}

static struct ty *structure(struct c2 *c, json_t *j, enum scope sc,
			    const char *what, int depth)
{
	struct ty *t = ctf2_new_ty(c, TY_STRUCT);
	json_t *m = json_object_get(j, "member-classes");
	unsigned cap = 0;
	if (m && !json_is_array(m))
		ctf2_fail(c, "%s: \"member-classes\": expected an array", what);
	for (size_t i = 0; m && i < json_array_size(m); i++) {
		json_t *mc = json_array_get(m, i);
		if (!json_is_object(mc))
			ctf2_fail(c, "%s: a member class is an object", what);
		const char *name = ctf2_str(c, mc, "name", 1);
		json_t *f = json_object_get(mc, "field-class");
		if (!f)
			ctf2_fail(c, "member \"%s\": no \"field-class\"", name);
		ctf2_extensions(c, mc, 0);
		struct ty *ft = ctf2_field_class(c, f, sc, name, depth + 1);
		if (sc != SC_OTHER && ft->role_name && !*ft->role_name)
			ft->role_name = ctf2_role_name(0, sc, name);
		for (unsigned k = 0; k < t->nfields; k++)
			if (!strcmp(t->fields[k].name, name))
				ctf2_fail(c, "%s: two members named \"%s\"",
					  what, name);
		t->fields = tsdl_grow(c->ps, t->fields, t->nfields, &cap,
				      sizeof(*t->fields));
		t->fields[t->nfields++] =
			(struct ty_field){ name, ft, c->line };
	}
	/* aligned as its widest member (TSDL's rule, tsdl_types.c), at
	 * least its minimum alignment */
	t->align = ctf2_align(c, j, "minimum-alignment");
	for (unsigned i = 0; i < t->nfields; i++) {
		const struct ty *f = t->fields[i].type;
		unsigned fa = f->kind == TY_VARIANT ? 1 :
			      f->kind == TY_ARRAY || f->kind == TY_SEQUENCE ?
						      f->elem->align :
						      f->align;
		if (fa > t->align)
			t->align = fa;
	}
	return t;
}

static struct ty *variant(struct c2 *c, json_t *j, enum scope sc,
			  const char *what, int depth)
{
	struct ty *t = ctf2_new_ty(c, TY_VARIANT);
	json_t *opts = json_object_get(j, "options");
	json_t *loc = json_object_get(j, "selector-field-location");
	unsigned cap = 0, scap = 0;

	if (!loc)
		ctf2_fail(c, "%s: no \"selector-field-location\"", what);
	t->length_ref = location(c, loc, what);
	if (!json_is_array(opts) || !json_array_size(opts))
		ctf2_fail(c, "%s: \"options\": expected a non-empty array",
			  what);
	for (size_t i = 0; i < json_array_size(opts); i++) {
		json_t *o = json_array_get(opts, i);
		if (!json_is_object(o))
			ctf2_fail(c, "%s: an option is an object", what);
		const char *name = ctf2_str(c, o, "name", 0);
		json_t *f = json_object_get(o, "field-class");
		json_t *set = json_object_get(o, "selector-field-ranges");
		if (!f)
			ctf2_fail(c, "%s: an option has no \"field-class\"",
				  what);
		if (!name)
			name = "";
		ctf2_extensions(c, o, 0);
		struct ty *ft = ctf2_field_class(c, f, sc, name, depth + 1);
		selector_ranges(c, set, what, (uint32_t)i, t, &scap);
		t->fields = tsdl_grow(c->ps, t->fields, t->nfields, &cap,
				      sizeof(*t->fields));
		t->fields[t->nfields++] =
			(struct ty_field){ name, ft, c->line };
	}
	t->align = 1;
	return t;
}

static struct ty *array(struct c2 *c, json_t *j, enum scope sc,
			const char *what, int depth, int dynamic)
{
	struct ty *t = ctf2_new_ty(c, dynamic ? TY_SEQUENCE : TY_ARRAY);
	json_t *e = json_object_get(j, "element-field-class");
	if (!e)
		ctf2_fail(c, "%s: no \"element-field-class\"", what);
	if (dynamic)
		t->length_ref = location(
			c, json_object_get(j, "length-field-location"), what);
	else
		t->length = ctf2_uint(c, j, "length", 0, 1u << 28);
	t->elem = ctf2_field_class(c, e, sc, what, depth + 1);
	t->align = t->elem->align;
	if (ctf2_align(c, j, "minimum-alignment") > t->align)
		ctf2_fail(c,
			  "%s: an array aligned more than its elements is not "
			  "supported",
			  what);
	return t;
}

/* A variable-length (LEB128) integer, or enumeration (2.0's mappings or
 * the drafts' enumeration types). */
static struct ty *vl_int(struct c2 *c, json_t *j, const char *type,
			 const char *what)
{
	struct ty *t = ctf2_new_ty(c, TY_VLINT);
	if (strcmp(type, "variable-length-unsigned-integer") &&
	    strcmp(type, "variable-length-signed-integer") &&
	    strcmp(type, "variable-length-unsigned-enumeration") &&
	    strcmp(type, "variable-length-signed-enumeration"))
		ctf2_fail(c, "%s: unknown field class type \"%s\"", what, type);
	t->is_signed = strstr(type, "-signed-") != NULL;
	t->size = 64;
	t->align = 8;
	t->base = display_base(c, j, what);
	labelled_ranges(c, json_object_get(j, "mappings"), "mappings", what, t);
	return t;
}

/* An optional: its field, present as its selector (a boolean, or an
 * integer in the selector ranges) says. */
static struct ty *optional(struct c2 *c, json_t *j, enum scope sc,
			   const char *what, int depth)
{
	struct ty *t = ctf2_new_ty(c, TY_OPTIONAL);
	json_t *f = json_object_get(j, "field-class");
	json_t *set = json_object_get(j, "selector-field-ranges");
	unsigned cap = 0;
	if (!f)
		ctf2_fail(c, "%s: no \"field-class\"", what);
	t->length_ref = location(
		c, json_object_get(j, "selector-field-location"), what);
	t->elem = ctf2_field_class(c, f, sc, what, depth + 1);
	if (set)
		selector_ranges(c, set, what, 0, t, &cap);
	t->align = 1;
	return t;
}

/* A string or BLOB: bytes, static or dynamic length. */
static struct ty *bytes(struct c2 *c, json_t *j, const char *what, int dynamic,
			int text)
{
	struct ty *t = ctf2_new_ty(c, dynamic ? TY_SEQUENCE : TY_ARRAY);
	if (text)
		string_encoding(c, j, what, t);
	if (dynamic)
		t->length_ref = location(
			c, json_object_get(j, "length-field-location"), what);
	else
		t->length = ctf2_uint(c, j, "length", 0, 1u << 28);
	t->elem = byte_elem(c, text, text ? 10 : 16);
	t->blob = !text;
	t->align = 8;
	return t;
}

struct ty *ctf2_field_class(struct c2 *c, json_t *j, enum scope sc,
			    const char *what, int depth)
{
	struct ty *t;
	if (depth > MAX_DEPTH)
		ctf2_fail(c, "%s: field classes nested too deep", what);
	if (json_is_string(j)) {
		const char *name = json_string_value(j);
		for (unsigned i = c->naliases; i-- > 0;)
			if (!strcmp(c->aliases[i].name, name)) {
				if (!c->aliases[i].roles)
					return c->aliases[i].t;
				t = tsdl_alloc(c->ps, sizeof(*t));
				*t = *c->aliases[i].t;
				t->role_name = ctf2_role_name(
					c->aliases[i].roles, sc, what);
				return t;
			}
		ctf2_fail(c, "%s: no field class alias \"%s\"", what, name);
	}
	if (!json_is_object(j))
		ctf2_fail(c, "%s: a field class is an object or an alias name",
			  what);
	const char *type = ctf2_str(c, j, "type", 1);
	ctf2_extensions(c, j, 0);
	if (!strncmp(type, "fixed-length-", 13) &&
	    strcmp(type, "fixed-length-floating-point-number")) {
		if (strcmp(type, "fixed-length-bit-array") &&
		    strcmp(type, "fixed-length-bit-map") &&
		    strcmp(type, "fixed-length-boolean") &&
		    strcmp(type, "fixed-length-unsigned-integer") &&
		    strcmp(type, "fixed-length-signed-integer") &&
		    strcmp(type, "fixed-length-unsigned-enumeration") &&
		    strcmp(type, "fixed-length-signed-enumeration"))
			ctf2_fail(c, "%s: unknown field class type \"%s\"",
				  what, type);
		t = fixed_int(c, j, type, what);
	} else if (!strcmp(type, "fixed-length-floating-point-number")) {
		t = ctf2_new_ty(c, TY_FLOAT);
		uint64_t len = ctf2_uint(c, j, "length", 0, 64);
		const char *bo = ctf2_str(c, j, "byte-order", 1);
		if (len != 32 && len != 64)
			ctf2_fail(c, "%s: floats of %llu bits", what,
				  (unsigned long long)len);
		t->size = (unsigned)len;
		t->align = ctf2_align(c, j, "alignment");
		t->bo = !strcmp(bo, "big-endian") ? BO_BE : BO_LE;
	} else if (!strcmp(type, "null-terminated-string")) {
		t = ctf2_new_ty(c, TY_STRING);
		string_encoding(c, j, what, t);
		t->align = 8;
	} else if (!strcmp(type, "static-length-string")) {
		t = bytes(c, j, what, 0, 1);
	} else if (!strcmp(type, "dynamic-length-string")) {
		t = bytes(c, j, what, 1, 1);
	} else if (!strcmp(type, "static-length-blob")) {
		t = bytes(c, j, what, 0, 0);
	} else if (!strcmp(type, "dynamic-length-blob")) {
		t = bytes(c, j, what, 1, 0);
	} else if (!strcmp(type, "structure")) {
		t = structure(c, j, sc, what, depth);
	} else if (!strcmp(type, "static-length-array")) {
		t = array(c, j, sc, what, depth, 0);
	} else if (!strcmp(type, "dynamic-length-array")) {
		t = array(c, j, sc, what, depth, 1);
	} else if (!strcmp(type, "variant")) {
		t = variant(c, j, sc, what, depth);
	} else if (!strncmp(type, "variable-length-", 16)) {
		t = vl_int(c, j, type, what);
	} else if (!strcmp(type, "optional")) {
		t = optional(c, j, sc, what, depth);
	} else {
		ctf2_fail(c, "%s: unknown field class type \"%s\"", what, type);
	}
	unsigned roles = ctf2_roles(c, j);
	t->role_name = sc == SC_OTHER ? NULL : ctf2_role_name(roles, sc, what);
	if (roles & (R_CLOCK_TS | R_END_TS) && t->kind == TY_INT)
		t->map = c->clock_map;
	return t;
}
