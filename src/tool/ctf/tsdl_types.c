/* SPDX-License-Identifier: MIT */
/*
 * tsdl_types.c - the TSDL type grammar: integer, floating_point, string,
 * enum, struct (with align(N)), variant, arrays and sequences, and the
 * type names that typealias, typedef and named structs, variants and
 * enums declare.  It builds the struct ty that the compilation reads.
 */
#define _GNU_SOURCE /* qsort_r() */
#include "ctf/tsdl_int.h"

#include <stdlib.h>
#include <string.h>

/* Type names */

static struct ty *find_name(const struct parser *ps, const char *name)
{
	for (unsigned i = ps->nnames; i-- > 0;)
		if (!strcmp(ps->names[i].name, name))
			return ps->names[i].type;
	return NULL;
}

/* Whether some type name starts with the words of prefix. */
static int name_prefix(const struct parser *ps, const char *prefix)
{
	size_t n = strlen(prefix);
	for (unsigned i = 0; i < ps->nnames; i++)
		if (!strncmp(ps->names[i].name, prefix, n) &&
		    (ps->names[i].name[n] == 0 || ps->names[i].name[n] == ' '))
			return 1;
	return 0;
}

static void add_name(struct parser *ps, const char *name, struct ty *t)
{
	ps->names = tsdl_grow(ps, ps->names, ps->nnames, &ps->capnames,
			      sizeof(*ps->names));
	ps->names[ps->nnames++] = (struct tname){ name, t };
}

static const char *join2(struct parser *ps, const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *d = tsdl_alloc(ps, na + nb + 2);
	memcpy(d, a, na);
	d[na] = ' ';
	memcpy(d + na + 1, b, nb + 1);
	return d;
}

/* The identifier after the current token, without consuming anything. */
static const char *peek_ident(struct parser *ps)
{
	const char *p = ps->p;
	int line = ps->line;
	struct tok t = ps->t;
	tsdl_next(ps);
	const char *r = ps->t.kind == TK_IDENT ? ps->t.s : NULL;
	ps->p = p;
	ps->line = line;
	ps->t = t;
	return r;
}

/* A type name of one or more words ("uint8_t", "unsigned long"): the
 * longest run of identifiers that names a type. */
static struct ty *named_type(struct parser *ps)
{
	int line = ps->t.line;
	const char *name = ps->t.s;
	for (;;) {
		const char *w = peek_ident(ps);
		if (!w)
			break;
		const char *longer = join2(ps, name, w);
		if (!name_prefix(ps, longer))
			break;
		tsdl_next(ps);
		name = longer;
	}
	struct ty *t = find_name(ps, name);
	if (!t)
		tsdl_fail(ps, line, "unknown type '%s'", name);
	tsdl_next(ps);
	return t;
}

static int parse_base(struct parser *ps, const struct val *v)
{
	if (v->kind == V_NUM && !v->neg &&
	    (v->u == 2 || v->u == 8 || v->u == 10 || v->u == 16))
		return (int)v->u;
	if (v->kind == V_IDENT) {
		static const struct {
			const char *s;
			int b;
		} names[] = { { "decimal", 10 }, { "dec", 10 },
			      { "d", 10 },	 { "i", 10 },
			      { "u", 10 },	 { "hexadecimal", 16 },
			      { "hex", 16 },	 { "x", 16 },
			      { "X", 16 },	 { "p", 16 },
			      { "octal", 8 },	 { "oct", 8 },
			      { "o", 8 },	 { "binary", 2 },
			      { "b", 2 } };
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(v->s, names[i].s))
				return names[i].b;
	}
	tsdl_fail(ps, v->line, "base: expected 2, 8, 10 or 16");
}

static int parse_encoding(struct parser *ps, const struct val *v)
{
	if (v->kind == V_IDENT) {
		if (!strcmp(v->s, "none"))
			return 0;
		if (!strcmp(v->s, "UTF8") || !strcmp(v->s, "ASCII"))
			return 1;
	}
	tsdl_fail(ps, v->line, "encoding: expected none, UTF8 or ASCII");
}

static struct ty *new_ty(struct parser *ps, enum ty_kind k)
{
	struct ty *t = tsdl_alloc(ps, sizeof(*t));
	t->kind = k;
	t->line = ps->t.line;
	t->base = 10;
	return t;
}

/* "{ name = value; ... }" of integer, floating_point and string. */
static void parse_attrs(struct parser *ps, struct ty *t)
{
	int have_size = 0, have_align = 0;
	tsdl_expect(ps, "{");
	while (!tsdl_is_punct(ps, "}")) {
		int line = ps->t.line;
		const char *name = tsdl_expect_ident(ps, "an attribute name");
		tsdl_expect(ps, "=");
		struct val v = tsdl_parse_value(ps);
		tsdl_expect(ps, ";");
		if (!strcmp(name, "size") && t->kind == TY_INT) {
			uint64_t s = tsdl_val_uint(ps, &v, "size");
			if (s < 1 || s > 64)
				tsdl_fail(ps, line,
					  "size: %llu bits is not in 1-64",
					  (unsigned long long)s);
			t->size = (unsigned)s;
			have_size = 1;
		} else if (!strcmp(name, "align") && t->kind != TY_STRING) {
			uint64_t al = tsdl_val_uint(ps, &v, "align");
			if (al < 1 || al > 4096 || (al & (al - 1)))
				tsdl_fail(ps, line,
					  "align: %llu is not a power of two",
					  (unsigned long long)al);
			t->align = (unsigned)al;
			have_align = 1;
		} else if (!strcmp(name, "signed") && t->kind == TY_INT) {
			t->is_signed = tsdl_val_bool(ps, &v, "signed");
		} else if (!strcmp(name, "base") && t->kind == TY_INT) {
			t->base = parse_base(ps, &v);
		} else if (!strcmp(name, "byte_order")) {
			t->bo = tsdl_parse_byte_order(ps, &v);
		} else if (!strcmp(name, "encoding")) {
			t->text = parse_encoding(ps, &v);
		} else if (!strcmp(name, "map") && t->kind == TY_INT) {
			if (v.kind != V_IDENT || strncmp(v.s, "clock.", 6) != 0)
				tsdl_fail(ps, line,
					  "map: expected clock.NAME.value");
			t->map = v.s;
		} else if (!strcmp(name, "exp_dig") && t->kind == TY_FLOAT) {
			t->exp_dig = (unsigned)tsdl_val_uint(ps, &v, "exp_dig");
		} else if (!strcmp(name, "mant_dig") && t->kind == TY_FLOAT) {
			t->mant_dig =
				(unsigned)tsdl_val_uint(ps, &v, "mant_dig");
		}
		/* anything else: ignored */
	}
	tsdl_next(ps);
	if (t->kind == TY_INT) {
		if (!have_size)
			tsdl_fail(ps, t->line, "integer without a size");
		if (!have_align)
			t->align = t->size % 8 ? 1 : 8;
	} else if (t->kind == TY_FLOAT) {
		if (t->exp_dig == 8 && t->mant_dig == 24)
			t->size = 32;
		else if (t->exp_dig == 11 && t->mant_dig == 53)
			t->size = 64;
		else
			tsdl_fail(
				ps, t->line,
				"floating_point: only exp_dig/mant_dig 8/24 and "
				"11/53 are supported");
		if (!have_align)
			t->align = 8;
	}
}

static void parse_fields(struct parser *ps, struct ty *t, int depth)
{
	unsigned cap = 0;
	tsdl_expect(ps, "{");
	while (!tsdl_is_punct(ps, "}")) {
		if (tsdl_is_ident(ps, "typealias") ||
		    tsdl_is_ident(ps, "typedef")) {
			tsdl_parse_type_decl(ps);
			continue;
		}
		struct ty *ft = tsdl_parse_type(ps, depth + 1);
		int line = ps->t.line;
		const char *name = tsdl_expect_ident(ps, "a field name");
		/* array and sequence suffixes, innermost last */
		struct ty *outer = NULL, **slot = &outer;
		while (tsdl_is_punct(ps, "[")) {
			tsdl_next(ps);
			struct ty *a = new_ty(ps, TY_ARRAY);
			if (ps->t.kind == TK_INT) {
				a->length = ps->t.u;
				if (a->length > (1u << 28))
					tsdl_fail(ps, ps->t.line,
						  "array length too large");
				tsdl_next(ps);
			} else if (ps->t.kind == TK_IDENT) {
				const char *first = ps->t.s;
				tsdl_next(ps);
				a->kind = TY_SEQUENCE;
				a->length_ref = tsdl_dotted(ps, first);
			} else {
				tsdl_fail(
					ps, ps->t.line,
					"expected an array length, found '%s'",
					tsdl_tok_text(ps));
			}
			tsdl_expect(ps, "]");
			*slot = a;
			slot = &a->elem;
		}
		*slot = ft;
		tsdl_expect(ps, ";");
		t->fields = tsdl_grow(ps, t->fields, t->nfields, &cap,
				      sizeof(*t->fields));
		/* TSDL strips one leading underscore from field names */
		t->fields[t->nfields++] = (struct ty_field){
			.name = name[0] == '_' && name[1] ? name + 1 : name,
			.type = outer,
			.line = line,
		};
	}
	tsdl_next(ps);
}

static int cmp_label_index(const void *a, const void *b, void *arg)
{
	const struct lt_enum_range *r = arg;
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	int c = strcmp(r[x].label, r[y].label);
	return c ? c : (x > y) - (x < y);
}

static int cmp_key_index(const void *a, const void *b, void *arg)
{
	const unsigned *key = arg;
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	if (key[x] != key[y])
		return (key[x] > key[y]) - (key[x] < key[y]);
	return (x > y) - (x < y);
}

/*
 * An enum's ranges grouped by label, the labels in the order they first
 * appear: babeltrace2 makes one mapping of each label, in that order,
 * and prints a value's labels in mapping order, each once (the
 * formatter skips a label equal to the one before it).
 */
static void group_labels(struct parser *ps, struct ty *t)
{
	unsigned n = t->nranges;
	if (n < 2)
		return;
	unsigned *idx = tsdl_alloc(ps, 2 * n * sizeof(*idx)), *key = idx + n;
	for (unsigned i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_label_index, t->ranges);
	int dup = 0;
	for (unsigned i = 0, first = 0; i < n; i++) {
		if (i && strcmp(t->ranges[idx[i]].label,
				t->ranges[idx[i - 1]].label))
			first = idx[i];
		else if (i)
			dup = 1;
		else
			first = idx[0];
		key[idx[i]] = first;
	}
	if (!dup)
		return;
	for (unsigned i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_key_index, key);
	struct lt_enum_range *r = tsdl_alloc(ps, n * sizeof(*r));
	for (unsigned i = 0; i < n; i++)
		r[i] = t->ranges[idx[i]];
	t->ranges = r;
}

static void parse_enum_body(struct parser *ps, struct ty *t)
{
	unsigned cap = 0;
	int64_t nextv = 0;
	tsdl_expect(ps, "{");
	while (!tsdl_is_punct(ps, "}")) {
		const char *label;
		if (ps->t.kind == TK_STRING || ps->t.kind == TK_IDENT)
			label = ps->t.s;
		else
			tsdl_fail(ps, ps->t.line,
				  "expected an enum label, found '%s'",
				  tsdl_tok_text(ps));
		tsdl_next(ps);
		int64_t lo = nextv, hi;
		if (tsdl_is_punct(ps, "=")) {
			tsdl_next(ps);
			struct val v = tsdl_parse_value(ps);
			lo = t->elem->is_signed ?
				     tsdl_val_int(ps, &v, "enum value") :
				     (int64_t)tsdl_val_uint(ps, &v,
							    "enum value");
			hi = lo;
			if (tsdl_is_punct(ps, "...")) {
				tsdl_next(ps);
				v = tsdl_parse_value(ps);
				hi = t->elem->is_signed ?
					     tsdl_val_int(ps, &v,
							  "enum value") :
					     (int64_t)tsdl_val_uint(
						     ps, &v, "enum value");
			}
		} else {
			hi = lo;
		}
		int bad = t->elem->is_signed ? hi < lo :
					       (uint64_t)hi < (uint64_t)lo;
		if (bad)
			tsdl_fail(ps, ps->t.line,
				  "enum range of \"%s\" is reversed", label);
		nextv = (int64_t)((uint64_t)hi + 1);
		t->ranges = tsdl_grow(ps, t->ranges, t->nranges, &cap,
				      sizeof(*t->ranges));
		t->ranges[t->nranges++] = (struct lt_enum_range){
			.label = label, .lo = lo, .hi = hi
		};
		if (tsdl_is_punct(ps, ","))
			tsdl_next(ps);
		else if (!tsdl_is_punct(ps, "}"))
			tsdl_fail(ps, ps->t.line,
				  "expected ',' or '}', found '%s'",
				  tsdl_tok_text(ps));
	}
	tsdl_next(ps);
	group_labels(ps, t);
}

struct ty *tsdl_parse_type(struct parser *ps, int depth)
{
	struct ty *t;
	if (depth > 16)
		tsdl_fail(ps, ps->t.line, "types nested too deeply");
	if (ps->t.kind != TK_IDENT)
		tsdl_fail(ps, ps->t.line, "expected a type, found '%s'",
			  tsdl_tok_text(ps));
	if (tsdl_is_ident(ps, "integer")) {
		t = new_ty(ps, TY_INT);
		tsdl_next(ps);
		parse_attrs(ps, t);
		return t;
	}
	if (tsdl_is_ident(ps, "floating_point")) {
		t = new_ty(ps, TY_FLOAT);
		tsdl_next(ps);
		parse_attrs(ps, t);
		return t;
	}
	if (tsdl_is_ident(ps, "string")) {
		t = new_ty(ps, TY_STRING);
		t->align = 8;
		tsdl_next(ps);
		if (tsdl_is_punct(ps, "{"))
			parse_attrs(ps, t);
		return t;
	}
	if (tsdl_is_ident(ps, "enum")) {
		int line = ps->t.line;
		tsdl_next(ps);
		const char *name = NULL;
		if (ps->t.kind == TK_IDENT) {
			name = join2(ps, "enum", ps->t.s);
			tsdl_next(ps);
			if (!tsdl_is_punct(ps, ":") &&
			    !tsdl_is_punct(ps, "{")) {
				struct ty *nt = find_name(ps, name);
				if (!nt)
					tsdl_fail(ps, line, "unknown type '%s'",
						  name);
				return nt;
			}
		}
		t = new_ty(ps, TY_ENUM);
		t->line = line;
		if (tsdl_is_punct(ps, ":")) {
			tsdl_next(ps);
			t->elem = tsdl_parse_type(ps, depth + 1);
		} else {
			t->elem = find_name(ps, "int");
			if (!t->elem)
				tsdl_fail(
					ps, line,
					"enum without a container type and no "
					"'int' type declared");
		}
		if (t->elem->kind != TY_INT)
			tsdl_fail(ps, t->line,
				  "enum container is not an integer");
		t->size = t->elem->size;
		t->align = t->elem->align;
		t->is_signed = t->elem->is_signed;
		parse_enum_body(ps, t);
		if (name)
			add_name(ps, name, t);
		return t;
	}
	if (tsdl_is_ident(ps, "struct") || tsdl_is_ident(ps, "variant")) {
		int variant = tsdl_is_ident(ps, "variant");
		int line = ps->t.line;
		const char *name = NULL, *tag = NULL;
		tsdl_next(ps);
		if (ps->t.kind == TK_IDENT) {
			name = join2(ps, variant ? "variant" : "struct",
				     ps->t.s);
			tsdl_next(ps);
		}
		if (variant && tsdl_is_punct(ps, "<")) {
			tsdl_next(ps);
			const char *first = tsdl_expect_ident(ps, "a tag name");
			tag = tsdl_dotted(ps, first);
			tsdl_expect(ps, ">");
		}
		if (name && !tsdl_is_punct(ps, "{")) {
			struct ty *nt = find_name(ps, name);
			if (!nt)
				tsdl_fail(ps, line, "unknown type '%s'", name);
			if (!tag)
				return nt;
			/* a named variant given its tag where it is used */
			t = tsdl_alloc(ps, sizeof(*t));
			*t = *nt;
			t->length_ref = tag;
			return t;
		}
		t = new_ty(ps, variant ? TY_VARIANT : TY_STRUCT);
		t->line = line;
		t->length_ref = tag;
		parse_fields(ps, t, depth);
		/* bits: the widest field's alignment; a variant is aligned
		 * as the option it holds, so a struct or variant holding
		 * one is not aligned by it */
		t->align = 1;
		for (unsigned i = 0; i < t->nfields && !variant; i++) {
			unsigned fa = t->fields[i].type->align;
			if (t->fields[i].type->kind == TY_VARIANT)
				fa = 1;
			if (t->fields[i].type->kind == TY_ARRAY ||
			    t->fields[i].type->kind == TY_SEQUENCE)
				fa = t->fields[i].type->elem ?
					     t->fields[i].type->elem->align :
					     8;
			if (fa > t->align)
				t->align = fa;
		}
		if (!variant && tsdl_is_ident(ps, "align")) {
			tsdl_next(ps);
			tsdl_expect(ps, "(");
			struct val v = tsdl_parse_value(ps);
			uint64_t al = tsdl_val_uint(ps, &v, "align");
			if (al < 1 || al > 4096 || (al & (al - 1)))
				tsdl_fail(ps, v.line,
					  "align: not a power of two");
			if (al > t->align)
				t->align = (unsigned)al;
			tsdl_expect(ps, ")");
		}
		if (name)
			add_name(ps, name, t);
		return t;
	}
	if (tsdl_is_ident(ps, "typealias") || tsdl_is_ident(ps, "typedef"))
		tsdl_fail(ps, ps->t.line, "%s where a type is expected",
			  ps->t.s);
	return named_type(ps);
}

/*
 * "typealias TYPE := NAME;" or "typedef TYPE NAME;", NAME of one or more
 * words, at the top level or in a struct's body.
 */
void tsdl_parse_type_decl(struct parser *ps)
{
	int alias = tsdl_is_ident(ps, "typealias");
	int line = ps->t.line;
	tsdl_next(ps);
	struct ty *t = tsdl_parse_type(ps, 0);
	if (alias)
		tsdl_expect(ps, ":=");
	if (ps->t.kind != TK_IDENT)
		tsdl_fail(ps, ps->t.line, "expected a type name, found '%s'",
			  tsdl_tok_text(ps));
	const char *name = ps->t.s;
	tsdl_next(ps);
	while (ps->t.kind == TK_IDENT) {
		name = join2(ps, name, ps->t.s);
		tsdl_next(ps);
	}
	if (tsdl_is_punct(ps, "*"))
		tsdl_fail(ps, line, "pointer type names are not supported");
	tsdl_expect(ps, ";");
	add_name(ps, name, t);
}
