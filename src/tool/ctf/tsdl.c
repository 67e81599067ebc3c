/* SPDX-License-Identifier: MIT */
/*
 * tsdl.c - the metadata parser: a tokenizer, a recursive-descent parser
 * for CTF 1.8's TSDL (trace, env, clock, stream and event blocks;
 * typealias, typedef and named struct, variant and enum; struct, integer,
 * enum, floating_point, string, variant, arrays and sequences), the
 * compiler of packet and event headers (header.h), and the one that turns
 * each event's fields into the flat list of struct lt_field_class the
 * decoder walks (with a tree of struct lt_cnode for a field of compound
 * elements).
 *
 * Unknown attributes are ignored and callsite blocks skipped; anything
 * else unknown or malformed stops the parse with "PATH:LINE: what".
 * Errors unwind with longjmp to lt_tsdl_parse(); every allocation is in
 * the arena, so there is nothing else to free on the way.
 */
#define _GNU_SOURCE /* qsort_r() */
#include "ctf/tsdl.h"
#include "ctf/clock_ns.h"
#include "ctf/compound.h"
#include "ctf/format.h"
#include "format/marker.h"
#include "ctf/value.h"

#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Arena */

struct lt_arena_chunk {
	struct lt_arena_chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

void *lt_arena_alloc(struct lt_arena *a, size_t n)
{
	struct lt_arena_chunk *c = a->head;
	n = (n + 15) & ~(size_t)15;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 16384 ? n : 16384;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = a->head;
		c->used = 0;
		c->cap = cap;
		a->head = c;
	}
	void *p = c->data + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

void lt_arena_free(struct lt_arena *a)
{
	struct lt_arena_chunk *c = a->head;
	while (c) {
		struct lt_arena_chunk *n = c->next;
		free(c);
		c = n;
	}
	a->head = NULL;
}

/* Types as parsed */

enum { BO_NATIVE = 0, BO_LE = 1, BO_BE = 2 };

enum ty_kind {
	TY_INT,
	TY_ENUM,
	TY_FLOAT,
	TY_STRING,
	TY_ARRAY,
	TY_SEQUENCE,
	TY_STRUCT,
	TY_VARIANT,
};

struct ty;

struct ty_field {
	const char *name;
	struct ty *type;
	int line;
};

struct ty {
	enum ty_kind kind;
	int line;
	unsigned size, align; /* bits */
	int is_signed, base, text;
	int bo; /* byte order: BO_NATIVE (the trace's), BO_LE or BO_BE */
	const char *map; /* clock the integer maps to */
	unsigned exp_dig, mant_dig;
	struct lt_enum_range *ranges;
	unsigned nranges;
	struct ty *elem; /* enum container, array/sequence element */
	uint64_t length;
	const char *length_ref;
	struct ty_field *fields;
	unsigned nfields;
};

/* Tokens */

enum tok_kind { TK_EOF, TK_IDENT, TK_INT, TK_STRING, TK_PUNCT };

struct tok {
	enum tok_kind kind;
	int line;
	const char *s; /* identifier, string (unescaped) or punctuation */
	uint64_t u;
};

struct parser {
	const char *p, *end;
	int line;
	struct tok t;
	const char *path;
	struct lt_tsdl *m;
	char *err;
	size_t errlen;
	jmp_buf jb;
	/* what the blocks said */
	struct ty *packet_header;
	int have_trace;
	struct lt_arena *a;
	/* the clock blocks, in order */
	struct lt_clock *clocks;
	unsigned nclocks, capclocks;
	/* streams and events while parsing */
	struct pstream {
		uint32_t id;
		int line;
		struct ty *context, *header, *event_context;
	} * streams;
	unsigned nstreams, capstreams;
	struct pevent {
		const char *name;
		uint64_t id;
		int64_t stream_id; /* -1: not given */
		int loglevel;
		const char *format; /* a marker's (ctf/marker.h) */
		struct ty *fields, *context;
		int line, has_id;
	} * events;
	unsigned nevents, capevents;
	struct lt_env_entry *env;
	unsigned nenv, capenv;
	/* type names: typealias and typedef names, "struct NAME",
	 * "variant NAME" and "enum NAME" */
	struct tname {
		const char *name;
		struct ty *type;
	} * names;
	unsigned nnames, capnames;
	int trace_bo; /* BO_LE or BO_BE */
};

__attribute__((noreturn, format(printf, 3, 4))) static void
tsdl_fail(struct parser *ps, int line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(ps->err, ps->errlen, "%s:%d: ", ps->path, line);
	if (n < 0)
		n = 0;
	if ((size_t)n < ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	longjmp(ps->jb, 1);
}

static void *tsdl_alloc(struct parser *ps, size_t n)
{
	void *p = lt_arena_alloc(ps->a, n);
	if (!p)
		tsdl_fail(ps, ps->line, "out of memory");
	return p;
}

static char *tsdl_dupn(struct parser *ps, const char *s, size_t n)
{
	char *d = tsdl_alloc(ps, n + 1);
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

/* Grows a parser-side array of elements of size sz. */
static void *tsdl_grow(struct parser *ps, void *arr, unsigned n, unsigned *cap,
		       size_t sz)
{
	if (n < *cap)
		return arr;
	unsigned ncap = *cap ? *cap * 2 : 8;
	void *na = tsdl_alloc(ps, ncap * sz);
	if (arr)
		memcpy(na, arr, n * sz);
	*cap = ncap;
	return na;
}

static int is_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident_char(int c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static int tsdl_digit_val(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

static void skip_space(struct parser *ps)
{
	for (;;) {
		while (ps->p < ps->end &&
		       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' ||
			*ps->p == '\r' || *ps->p == '\f' || *ps->p == '\v')) {
			if (*ps->p == '\n')
				ps->line++;
			ps->p++;
		}
		if (ps->end - ps->p >= 2 && ps->p[0] == '/' &&
		    ps->p[1] == '*') {
			int line = ps->line;
			ps->p += 2;
			for (;;) {
				if (ps->end - ps->p < 2)
					tsdl_fail(ps, line,
						  "unterminated comment");
				if (ps->p[0] == '*' && ps->p[1] == '/')
					break;
				if (*ps->p == '\n')
					ps->line++;
				ps->p++;
			}
			ps->p += 2;
			continue;
		}
		if (ps->end - ps->p >= 2 && ps->p[0] == '/' &&
		    ps->p[1] == '/') {
			while (ps->p < ps->end && *ps->p != '\n')
				ps->p++;
			continue;
		}
		return;
	}
}

static void lex_string(struct parser *ps)
{
	const char *q = ps->p + 1;
	size_t n = 0;
	/* the unescaped text is never longer than the literal */
	const char *e = q;
	while (e < ps->end && *e != '"') {
		if (*e == '\\')
			e++;
		if (e < ps->end && *e == '\n')
			tsdl_fail(ps, ps->line, "newline in string literal");
		e++;
	}
	if (e >= ps->end)
		tsdl_fail(ps, ps->line, "unterminated string literal");
	char *d = tsdl_alloc(ps, (size_t)(e - q) + 1);
	while (q < e) {
		char c = *q++;
		if (c == '\\') {
			c = *q++;
			switch (c) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case '0':
				c = 0;
				break;
			case 'x': { /* two hex digits: what the writer escapes */
				int v = 0, k = 0;
				for (; k < 2 && q < e &&
				       isxdigit((unsigned char)*q);
				     k++, q++)
					v = v * 16 +
					    (isdigit((unsigned char)*q) ?
						     *q - '0' :
						     (*q | 32) - 'a' + 10);
				c = k ? (char)v : 'x';
				break;
			}
			default:
				break;
			}
		}
		d[n++] = c;
	}
	d[n] = 0;
	ps->t.kind = TK_STRING;
	ps->t.s = d;
	ps->p = e + 1;
}

static void lex_number(struct parser *ps)
{
	const char *q = ps->p;
	unsigned base = 10;
	uint64_t v = 0;
	if (q[0] == '0' && ps->end - q > 1 && (q[1] == 'x' || q[1] == 'X')) {
		base = 16;
		q += 2;
	} else if (q[0] == '0' && ps->end - q > 1 && q[1] >= '0' &&
		   q[1] <= '7') {
		base = 8;
		q++;
	}
	const char *start = q;
	while (q < ps->end && tsdl_digit_val(*q) < (int)base) {
		unsigned d = (unsigned)tsdl_digit_val(*q);
		if (v > (UINT64_MAX - d) / base)
			tsdl_fail(ps, ps->line, "number too large");
		v = v * base + d;
		q++;
	}
	if (q == start)
		tsdl_fail(ps, ps->line, "malformed number");
	while (q < ps->end &&
	       (*q == 'u' || *q == 'U' || *q == 'l' || *q == 'L'))
		q++;
	if (q < ps->end && is_ident_char(*q))
		tsdl_fail(ps, ps->line, "malformed number");
	ps->t.kind = TK_INT;
	ps->t.u = v;
	ps->p = q;
}

static void tsdl_next(struct parser *ps)
{
	skip_space(ps);
	ps->t.line = ps->line;
	ps->t.s = NULL;
	if (ps->p >= ps->end) {
		ps->t.kind = TK_EOF;
		ps->t.s = "end of metadata";
		return;
	}
	char c = *ps->p;
	if (is_ident_start(c)) {
		const char *q = ps->p;
		while (q < ps->end && is_ident_char(*q))
			q++;
		ps->t.kind = TK_IDENT;
		ps->t.s = tsdl_dupn(ps, ps->p, (size_t)(q - ps->p));
		ps->p = q;
		return;
	}
	if (c >= '0' && c <= '9') {
		lex_number(ps);
		return;
	}
	if (c == '"') {
		lex_string(ps);
		return;
	}
	static const char *const puncts[] = { "...", ":=", "{", "}", ";", "=",
					      "[",   "]",  "<", ">", ",", "(",
					      ")",   ":",  ".", "-", "+", "*" };
	for (size_t i = 0; i < sizeof(puncts) / sizeof(puncts[0]); i++) {
		size_t n = strlen(puncts[i]);
		if ((size_t)(ps->end - ps->p) >= n &&
		    memcmp(ps->p, puncts[i], n) == 0) {
			ps->t.kind = TK_PUNCT;
			ps->t.s = puncts[i];
			ps->p += n;
			return;
		}
	}
	if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
		tsdl_fail(ps, ps->line, "unexpected byte 0x%02x",
			  (unsigned)(unsigned char)c);
	tsdl_fail(ps, ps->line, "unexpected character '%c'", c);
}

static int tsdl_is_punct(const struct parser *ps, const char *p)
{
	return ps->t.kind == TK_PUNCT && strcmp(ps->t.s, p) == 0;
}

static int tsdl_is_ident(const struct parser *ps, const char *id)
{
	return ps->t.kind == TK_IDENT && strcmp(ps->t.s, id) == 0;
}

static const char *tsdl_tok_text(const struct parser *ps)
{
	switch (ps->t.kind) {
	case TK_EOF:
		return "end of metadata";
	case TK_INT:
		return "a number";
	case TK_STRING:
		return "a string";
	default:
		return ps->t.s;
	}
}

static void tsdl_expect(struct parser *ps, const char *p)
{
	if (!tsdl_is_punct(ps, p))
		tsdl_fail(ps, ps->t.line, "expected '%s', found '%s'", p,
			  tsdl_tok_text(ps));
	tsdl_next(ps);
}

static const char *tsdl_expect_ident(struct parser *ps, const char *what)
{
	if (ps->t.kind != TK_IDENT)
		tsdl_fail(ps, ps->t.line, "expected %s, found '%s'", what,
			  tsdl_tok_text(ps));
	const char *s = ps->t.s;
	tsdl_next(ps);
	return s;
}

/* Values of attributes: a number, a string or a (dotted) identifier. */
struct val {
	enum { V_NUM, V_STR, V_IDENT } kind;
	int neg;
	uint64_t u;
	const char *s;
	int line;
};

static const char *tsdl_dotted(struct parser *ps, const char *first)
{
	char buf[256];
	size_t n = strlen(first);
	if (n >= sizeof(buf))
		tsdl_fail(ps, ps->t.line, "identifier too long");
	memcpy(buf, first, n + 1);
	while (tsdl_is_punct(ps, ".")) {
		tsdl_next(ps);
		if (ps->t.kind != TK_IDENT)
			tsdl_fail(ps, ps->t.line, "expected a name after '.'");
		size_t k = strlen(ps->t.s);
		if (n + 1 + k >= sizeof(buf))
			tsdl_fail(ps, ps->t.line, "identifier too long");
		buf[n++] = '.';
		memcpy(buf + n, ps->t.s, k + 1);
		n += k;
		tsdl_next(ps);
	}
	return tsdl_dupn(ps, buf, n);
}

static struct val tsdl_parse_value(struct parser *ps)
{
	struct val v = { .line = ps->t.line };
	if (tsdl_is_punct(ps, "-") || tsdl_is_punct(ps, "+")) {
		v.neg = tsdl_is_punct(ps, "-");
		tsdl_next(ps);
		if (ps->t.kind != TK_INT)
			tsdl_fail(ps, ps->t.line,
				  "expected a number after the sign");
	}
	switch (ps->t.kind) {
	case TK_INT:
		v.kind = V_NUM;
		v.u = ps->t.u;
		tsdl_next(ps);
		return v;
	case TK_STRING:
		v.kind = V_STR;
		v.s = ps->t.s;
		tsdl_next(ps);
		return v;
	case TK_IDENT: {
		const char *first = ps->t.s;
		tsdl_next(ps);
		v.kind = V_IDENT;
		v.s = tsdl_dotted(ps, first);
		return v;
	}
	default:
		tsdl_fail(ps, ps->t.line, "expected a value, found '%s'",
			  tsdl_tok_text(ps));
	}
}

static uint64_t tsdl_val_uint(struct parser *ps, const struct val *v,
			      const char *what)
{
	if (v->kind != V_NUM || v->neg)
		tsdl_fail(ps, v->line, "%s: expected a non-negative number",
			  what);
	return v->u;
}

static int64_t tsdl_val_int(struct parser *ps, const struct val *v,
			    const char *what)
{
	if (v->kind != V_NUM)
		tsdl_fail(ps, v->line, "%s: expected a number", what);
	if (v->neg) {
		if (v->u > (uint64_t)INT64_MAX + 1)
			tsdl_fail(ps, v->line, "%s: number too small", what);
		return v->u == (uint64_t)INT64_MAX + 1 ? INT64_MIN :
							 -(int64_t)v->u;
	}
	if (v->u > (uint64_t)INT64_MAX)
		tsdl_fail(ps, v->line, "%s: number too large", what);
	return (int64_t)v->u;
}

static int tsdl_val_bool(struct parser *ps, const struct val *v,
			 const char *what)
{
	if (v->kind == V_NUM && !v->neg && v->u <= 1)
		return (int)v->u;
	if (v->kind == V_IDENT) {
		if (!strcmp(v->s, "true") || !strcmp(v->s, "TRUE"))
			return 1;
		if (!strcmp(v->s, "false") || !strcmp(v->s, "FALSE"))
			return 0;
	}
	tsdl_fail(ps, v->line, "%s: expected true or false", what);
}

static int tsdl_parse_byte_order(struct parser *ps, const struct val *v)
{
	if (v->kind == V_IDENT && !strcmp(v->s, "le"))
		return BO_LE;
	if (v->kind == V_IDENT &&
	    (!strcmp(v->s, "be") || !strcmp(v->s, "network")))
		return BO_BE;
	if (v->kind == V_IDENT && !strcmp(v->s, "native"))
		return BO_NATIVE;
	tsdl_fail(ps, v->line,
		  "byte_order: expected le, be, network or native");
}

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

static struct ty *tsdl_parse_type(struct parser *ps, int depth);
static void tsdl_parse_type_decl(struct parser *ps);

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

static struct ty *tsdl_parse_type(struct parser *ps, int depth)
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
static void tsdl_parse_type_decl(struct parser *ps)
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

/* Checks and compilation */

struct flat {
	const char *name;
	unsigned off, size; /* bits */
};

/* Lays out a header struct's scalar fields from bit offset *off: the
 * count of fields, or LAYOUT_NOT_FLAT when some is not an integer or a
 * byte array, or there are more than max. */
#define LAYOUT_NOT_FLAT 0xffffffffu
static unsigned layout(struct parser *ps, const struct ty *t, unsigned off,
		       struct flat *out, unsigned n, unsigned max)
{
	(void)ps;
	if (!t || t->kind != TY_STRUCT)
		return LAYOUT_NOT_FLAT;
	off = (off + t->align - 1) & ~(t->align - 1);
	for (unsigned i = 0; i < t->nfields; i++) {
		const struct ty *f = t->fields[i].type;
		unsigned size, align;
		if (f->kind == TY_INT) {
			size = f->size;
			align = f->align;
		} else if (f->kind == TY_ARRAY && f->elem->kind == TY_INT &&
			   f->elem->size == 8) {
			size = 8 * (unsigned)f->length;
			align = f->elem->align;
		} else {
			return LAYOUT_NOT_FLAT;
		}
		off = (off + align - 1) & ~(align - 1);
		if (n >= max)
			return LAYOUT_NOT_FLAT;
		out[n++] = (struct flat){ t->fields[i].name, off, size };
		off += size;
	}
	return n;
}

/* Whether st's packet header and context have lowtrace's layout. */
static int tsdl_own_packet_layout(struct parser *ps, const struct pstream *st)
{
	static const struct flat want[] = {
		{ "magic", 0, 32 },
		{ "uuid", 32, 128 },
		{ "stream_id", 160, 32 },
		{ "stream_instance_id", 192, 64 },
		{ "timestamp_begin", 256, 64 },
		{ "timestamp_end", 320, 64 },
		{ "content_size", 384, 64 },
		{ "packet_size", 448, 64 },
		{ "packet_seq_num", 512, 64 },
		{ "events_discarded", 576, 64 },
		{ "cpu_id", 640, 32 },
		{ "pid", 672, 32 },
	};
	enum { NW = sizeof(want) / sizeof(want[0]) };
	struct flat got[NW];
	unsigned n = layout(ps, ps->packet_header, 0, got, 0, NW);
	if (n == LAYOUT_NOT_FLAT || n == 0)
		return 0;
	unsigned hend = got[n - 1].off + got[n - 1].size;
	n = layout(ps, st->context, hend, got, n, NW);
	if (n == LAYOUT_NOT_FLAT)
		return 0;
	for (unsigned i = 0; i < NW; i++)
		if (i >= n || strcmp(got[i].name, want[i].name) ||
		    got[i].off != want[i].off || got[i].size != want[i].size)
			return 0;
	return 1;
}

/* Whether st's event header is lowtrace's compact/extended one. */
static int tsdl_own_event_header(struct parser *ps, const struct pstream *st)
{
	const struct ty *h = st->header;
	if (!h || h->nfields != 2 || h->fields[0].type->kind != TY_ENUM ||
	    h->fields[0].type->size != 5 || strcmp(h->fields[0].name, "id") ||
	    h->fields[1].type->kind != TY_VARIANT ||
	    h->fields[1].type->nfields != 2 ||
	    strcmp(h->fields[1].type->fields[0].name, "compact") ||
	    strcmp(h->fields[1].type->fields[1].name, "extended"))
		return 0;
	const struct ty *c = h->fields[1].type->fields[0].type;
	const struct ty *e = h->fields[1].type->fields[1].type;
	struct flat got[2];
	if (h->align != 32 || c->nfields != 1 ||
	    c->fields[0].type->kind != TY_INT ||
	    c->fields[0].type->size != 27 || c->fields[0].type->align != 1 ||
	    layout(ps, e, 8, got, 0, 2) != 2 || strcmp(got[0].name, "id") ||
	    got[0].off != 8 || got[0].size != 32 ||
	    strcmp(got[1].name, "timestamp") || got[1].off != 40 ||
	    got[1].size != 64)
		return 0;
	(void)ps;
	return 1;
}

/* Header compilation (header.h) */

struct hcomp {
	struct parser *ps;
	int event; /* an event header: roles id and timestamp */
	unsigned nregs;
	const char *reg_name[LT_HDR_REGS];
	const struct ty *reg_type[LT_HDR_REGS];
};

static uint8_t role_of(const char *name, int event)
{
	static const struct {
		const char *name;
		uint8_t role;
	} pkt[] = {
		{ "magic", LT_ROLE_MAGIC },
		{ "uuid", LT_ROLE_UUID },
		{ "stream_id", LT_ROLE_STREAM_ID },
		{ "stream_instance_id", LT_ROLE_STREAM_INSTANCE_ID },
		{ "timestamp_begin", LT_ROLE_TS_BEGIN },
		{ "timestamp_end", LT_ROLE_TS_END },
		{ "content_size", LT_ROLE_CONTENT_SIZE },
		{ "packet_size", LT_ROLE_PACKET_SIZE },
		{ "packet_seq_num", LT_ROLE_SEQ },
		{ "events_discarded", LT_ROLE_DISCARDED },
		{ "cpu_id", LT_ROLE_CPU },
		{ "pid", LT_ROLE_PID },
	};
	if (!name)
		return LT_ROLE_NONE;
	if (event)
		return !strcmp(name, "id")	  ? LT_ROLE_ID :
		       !strcmp(name, "timestamp") ? LT_ROLE_TS :
						    LT_ROLE_NONE;
	for (size_t i = 0; i < sizeof(pkt) / sizeof(pkt[0]); i++)
		if (!strcmp(name, pkt[i].name))
			return pkt[i].role;
	return LT_ROLE_NONE;
}

static void compile_hnode(struct hcomp *hc, const struct ty *t,
			  const char *name, int line, struct lt_hnode *out)
{
	struct parser *ps = hc->ps;
	out->align = t->align ? t->align : 1;
	switch (t->kind) {
	case TY_INT:
	case TY_ENUM: {
		const struct ty *it = t->kind == TY_ENUM ? t->elem : t;
		int bo = it->bo ? it->bo : ps->trace_bo;
		if (hc->nregs >= LT_HDR_REGS)
			tsdl_fail(ps, line, "header has too many fields");
		out->kind = LT_HN_INT;
		out->size = (uint8_t)it->size;
		out->be = bo == BO_BE;
		out->tag_signed = (uint8_t)it->is_signed;
		out->role = role_of(name, hc->event);
		out->reg = (uint8_t)hc->nregs;
		hc->reg_name[hc->nregs] = name ? name : "";
		hc->reg_type[hc->nregs++] = t;
		return;
	}
	case TY_ARRAY:
		if (t->elem->kind != TY_INT || t->elem->size != 8)
			break;
		out->kind = LT_HN_BYTES;
		out->align = t->elem->align;
		out->length = (uint32_t)t->length;
		out->role = name && !strcmp(name, "uuid") && t->length == 16 ?
				    LT_ROLE_UUID :
				    LT_ROLE_NONE;
		return;
	case TY_STRUCT: {
		struct lt_hnode *kids = tsdl_alloc(
			ps, (t->nfields ? t->nfields : 1) * sizeof(*kids));
		for (unsigned i = 0; i < t->nfields; i++)
			compile_hnode(hc, t->fields[i].type, t->fields[i].name,
				      t->fields[i].line, &kids[i]);
		out->kind = LT_HN_STRUCT;
		out->kids = kids;
		out->nkids = t->nfields;
		return;
	}
	case TY_VARIANT: {
		const char *ref = t->length_ref, *dot;
		if (!ref)
			tsdl_fail(ps, line, "header variant '%s' has no tag",
				  name ? name : "");
		dot = strrchr(ref, '.');
		if (dot)
			ref = dot + 1;
		if (ref[0] == '_' && ref[1])
			ref++;
		int reg = -1;
		for (unsigned i = hc->nregs; i-- > 0;)
			if (!strcmp(hc->reg_name[i], ref)) {
				reg = (int)i;
				break;
			}
		if (reg < 0 || hc->reg_type[reg]->kind != TY_ENUM)
			tsdl_fail(
				ps, line,
				"variant '%s': tag '%s' is not an earlier enum",
				name ? name : "", t->length_ref);
		const struct ty *tag = hc->reg_type[reg];
		struct lt_hnode *kids = tsdl_alloc(
			ps, (t->nfields ? t->nfields : 1) * sizeof(*kids));
		struct lt_hsel *sel = tsdl_alloc(
			ps, (tag->nranges ? tag->nranges : 1) * sizeof(*sel));
		unsigned nsel = 0;
		for (unsigned i = 0; i < t->nfields; i++) {
			compile_hnode(hc, t->fields[i].type, t->fields[i].name,
				      t->fields[i].line, &kids[i]);
			for (unsigned j = 0; j < tag->nranges; j++)
				if (!strcmp(tag->ranges[j].label,
					    t->fields[i].name))
					sel[nsel++] = (struct lt_hsel){
						(uint64_t)tag->ranges[j].lo,
						(uint64_t)tag->ranges[j].hi, i
					};
		}
		out->kind = LT_HN_VARIANT;
		out->align = 1; /* the option's own alignment applies */
		out->reg = (uint8_t)reg;
		out->tag_signed = (uint8_t)tag->is_signed;
		out->kids = kids;
		out->nkids = t->nfields;
		out->sel = sel;
		out->nsel = nsel;
		return;
	}
	default:
		break;
	}
	tsdl_fail(
		ps, line,
		"header field '%s': only integers, enums, byte arrays, structs "
		"and variants are supported in headers",
		name ? name : "");
}

static int hint(const struct lt_hnode *n, uint8_t role, unsigned size,
		unsigned align, int be)
{
	return n->kind == LT_HN_INT && n->role == role && n->size == size &&
	       n->align == align && n->be == be;
}

/*
 * LT_EVH_COMPACT or LT_EVH_LARGE when h is LTTng's compact (5-bit id,
 * 27-bit timestamp) or large (16-bit id, 32-bit timestamp) event header,
 * with its extended form (32-bit id, 64-bit timestamp), in either byte
 * order; else LT_EVH_ANY.
 */
static uint8_t tsdl_lttng_header_kind(const struct lt_hnode *h, uint8_t *be)
{
	if (h->kind != LT_HN_STRUCT || h->nkids != 2)
		return LT_EVH_ANY;
	const struct lt_hnode *id = &h->kids[0], *v = &h->kids[1];
	int b = id->be;
	int compact = hint(id, LT_ROLE_ID, 5, 1, b) && h->align == 32;
	int large = hint(id, LT_ROLE_ID, 16, 16, b) && h->align == 16;
	uint64_t esc = compact ? 31 : 65535;
	if ((!compact && !large) || v->kind != LT_HN_VARIANT ||
	    v->reg != id->reg || v->nkids != 2 || v->nsel != 2 ||
	    v->sel[0].lo != 0 || v->sel[0].hi != esc - 1 ||
	    v->sel[1].lo != esc || v->sel[1].hi != esc)
		return LT_EVH_ANY;
	const struct lt_hnode *c = &v->kids[v->sel[0].kid];
	const struct lt_hnode *e = &v->kids[v->sel[1].kid];
	if (c->kind != LT_HN_STRUCT || c->nkids != 1 ||
	    !hint(&c->kids[0], LT_ROLE_TS, compact ? 27 : 32, compact ? 1 : 32,
		  b) ||
	    e->kind != LT_HN_STRUCT || e->nkids != 2 || e->align != 64 ||
	    !hint(&e->kids[0], LT_ROLE_ID, 32, 32, b) ||
	    !hint(&e->kids[1], LT_ROLE_TS, 64, 64, b))
		return LT_EVH_ANY;
	*be = (uint8_t)b;
	return compact ? LT_EVH_COMPACT : LT_EVH_LARGE;
}

static const struct lt_hnode *tsdl_compile_header(struct parser *ps,
						  const struct ty *t, int event)
{
	struct hcomp hc = { .ps = ps, .event = event };
	struct lt_hnode *n = tsdl_alloc(ps, sizeof(*n));
	if (!t) {
		n->kind = LT_HN_STRUCT;
		n->align = 1;
		return n;
	}
	compile_hnode(&hc, t, NULL, t->line, n);
	return n;
}

/* Fills a field class's scalar part from an integer, enum or float type. */
static void tsdl_scalar(struct parser *ps, const struct ty *t, int line,
			const char *name, struct lt_field_class *fc,
			uint8_t *kind)
{
	const struct ty *it = t->kind == TY_ENUM ? t->elem : t;
	switch (t->kind) {
	case TY_INT:
		*kind = LT_KIND_INT;
		break;
	case TY_ENUM:
		*kind = LT_KIND_ENUM;
		fc->ranges = t->ranges;
		fc->nranges = t->nranges;
		break;
	case TY_FLOAT:
		*kind = LT_KIND_FLOAT;
		break;
	default:
		tsdl_fail(ps, line,
			  "field '%s': arrays of this type are not supported",
			  name);
	}
	int bo = it->bo ? it->bo : ps->trace_bo;
	fc->be = bo == BO_BE && it->size > 8;
	if ((it->size % 8 || it->align % 8) && t->kind != TY_FLOAT &&
	    it->align <= 1024) {
		/* a bit-field: read where it is, by bits */
		fc->bitfield = 1;
		fc->bitsize = (uint8_t)it->size;
		fc->bitalign = (uint16_t)it->align;
		fc->be = bo == BO_BE;
		fc->size = (uint8_t)((it->size + 7) / 8);
		fc->align = 1;
		fc->is_signed = (uint8_t)it->is_signed;
		fc->base = (uint8_t)it->base;
		return;
	}
	if (it->size % 8 || it->align % 8 || it->align > 1024)
		tsdl_fail(
			ps, line,
			"field '%s': only byte-sized fields aligned on 1 to 128 "
			"bytes are supported in event payloads",
			name);
	fc->size = (uint8_t)(it->size / 8);
	fc->align = (uint8_t)(it->align / 8);
	fc->is_signed = (uint8_t)it->is_signed;
	fc->base = (uint8_t)it->base;
}

/* The section a sequence's length path names (absolute paths), or -1
 * for a relative one; *name is set to the field's name in it. */
static int tsdl_length_section(const char *ref, const char **name)
{
	static const char *const pre[LT_NSECTIONS] = { "stream.event.context.",
						       "event.context.",
						       "event.fields." };
	for (int s = 0; s < LT_NSECTIONS; s++)
		if (!strncmp(ref, pre[s], strlen(pre[s]))) {
			*name = ref + strlen(pre[s]);
			return s;
		}
	*name = ref;
	return -1;
}

/* A field of an event's flattened structs and variants (flatten()). */
struct flatf {
	const struct ty_field *f;
	const char *open; /* ", NAME = {" of the structs opened before f */
	uint32_t open_len;
	uint8_t closes; /* structs closed after f */
	unsigned align; /* bits: what the structs opened before f impose */
	unsigned parent; /* the struct holding f, numbered */
	const struct ty *variant; /* f is in an option of this variant */
	unsigned opt; /* which option */
	uint8_t var_first; /* the variant's first field */
	uint8_t noname; /* an option that is not a struct: no "NAME = " */
	/* its names from its section's root, dotted (a variant's option by
	 * its name): what a length or tag path names (tsdl_resolve_ref()) */
	const char *path;
	/* an option's field: the length of path's part that names the
	 * struct holding its variant (where the tag's lookup starts) */
	unsigned vbase;
};

/* pfx then name, and a dot after when dot is set. */
static const char *path_join(struct parser *ps, const char *pfx,
			     const char *name, int dot)
{
	size_t pl = strlen(pfx), nl = strlen(name);
	char *t = tsdl_alloc(ps, pl + nl + 2);
	memcpy(t, pfx, pl);
	memcpy(t + pl, name, nl);
	t[pl + nl] = dot ? '.' : 0;
	t[pl + nl + 1] = 0;
	return t;
}

/* o, then " NAME = {" (", NAME = {" when o is empty), or " {" without a
 * name: the text that opens a nested struct or a variant. */
static const char *open_text(struct parser *ps, const char *o, const char *name)
{
	size_t ol = strlen(o), nl = name ? strlen(name) : 0;
	char *t = tsdl_alloc(ps, ol + nl + 8 + 16);
	memcpy(t, o, ol);
	if (!name) {
		memcpy(t + ol, " {", 3);
		return t;
	}
	memcpy(t + ol, ol ? " " : ", ", ol ? 1 : 2);
	ol += ol ? 1 : 2;
	memcpy(t + ol, name, nl);
	memcpy(t + ol + nl, " = {", 5);
	return t;
}

static void push_flat(struct parser *ps, struct flatf **out, unsigned *n,
		      unsigned *cap, struct flatf f)
{
	*out = tsdl_grow(ps, *out, *n, cap, sizeof(**out));
	(*out)[(*n)++] = f;
}

/*
 * The fields of st, nested structs' fields in their place (a struct in a
 * struct is printed as "NAME = { ... }" and aligned as its widest field,
 * its first field's alignment carrying that), and each option of a
 * variant in its place, as babeltrace2 prints a variant: "NAME = { VALUE }"
 * (var: the variant whose option st is, opt which).
 */
static void flatten(struct parser *ps, const struct ty *st, const char *open,
		    const char *pfx, unsigned align, int depth,
		    struct flatf **out, unsigned *n, unsigned *cap,
		    unsigned *nparents, const struct ty *var, unsigned opt,
		    unsigned vbase)
{
	unsigned me = (*nparents)++;
	if (depth > 8)
		tsdl_fail(ps, st->line, "structs nested too deeply");
	if (!st->nfields && depth)
		tsdl_fail(ps, st->line,
			  "an empty struct in an event is not supported");
	for (unsigned fi = 0; fi < st->nfields; fi++) {
		const struct ty_field *f = &st->fields[fi];
		const char *o = fi == 0 ? open : "";
		unsigned al = fi == 0 && st->align > align ? st->align :
			      fi == 0			   ? align :
							     0;
		if (f->type->kind == TY_STRUCT) {
			flatten(ps, f->type, open_text(ps, o, f->name),
				path_join(ps, pfx, f->name, 1), al, depth + 1,
				out, n, cap, nparents, var, opt, vbase);
			continue;
		}
		/* a variant in a variant is one field: a tree */
		if (f->type->kind != TY_VARIANT || var) {
			push_flat(
				ps, out, n, cap,
				(struct flatf){
					.f = f,
					.open = o,
					.open_len = (uint32_t)strlen(o),
					.align = al,
					.parent = me,
					.variant = var,
					.opt = opt,
					.path = path_join(ps, pfx, f->name, 0),
					.vbase = vbase });
			continue;
		}
		const struct ty *vt = f->type;
		const char *vo = open_text(ps, o, f->name);
		const char *vpfx = path_join(ps, pfx, f->name, 1);
		unsigned first = *n;
		for (unsigned k = 0; k < vt->nfields; k++) {
			const struct ty_field *of = &vt->fields[k];
			if (of->type->kind == TY_STRUCT) {
				flatten(ps, of->type, open_text(ps, vo, NULL),
					path_join(ps, vpfx, of->name, 1), al,
					depth + 1, out, n, cap, nparents, vt, k,
					(unsigned)strlen(pfx));
			} else {
				push_flat(
					ps, out, n, cap,
					(struct flatf){
						.f = of,
						.open = vo,
						.open_len =
							(uint32_t)strlen(vo),
						.align = al,
						.parent = (*nparents)++,
						.variant = vt,
						.opt = k,
						.noname = 1,
						.path = path_join(ps, vpfx,
								  of->name, 0),
						.vbase = (unsigned)strlen(
							pfx) });
			}
			(*out)[*n - 1].closes++; /* the variant's brace */
		}
		if (*n == first)
			tsdl_fail(ps, f->line, "variant '%s' has no option",
				  f->name);
		(*out)[first].var_first = 1;
	}
	if (depth && *n)
		(*out)[*n - 1].closes++;
}

/* The event's fields as a length's or tag's path names them: each
 * field's path (flatf.path), each section's first field and count (those
 * of the sections before the one being compiled are complete). */
struct refs {
	const char *const *paths;
	const unsigned *sec_first;
	const uint32_t *nsec;
};

/* path (of names the parser keeps: without one leading '_') names the
 * first n bytes of pfx (a path of such names) then ref, a path as the
 * metadata writes it, each of its names with or without that '_'. */
static int path_eq(const char *path, const char *pfx, size_t n, const char *ref)
{
	if (strncmp(path, pfx, n))
		return 0;
	const char *a = path + n, *b = ref;
	for (;;) {
		if (*b == '_' && b[1] && b[1] != '.')
			b++;
		while (*a && *a != '.' && *a == *b) {
			a++;
			b++;
		}
		if (*a != *b)
			return 0;
		if (!*a)
			return 1;
		a++;
		b++;
	}
}

/* name (as the parser keeps it) is the len bytes of ref, with or without
 * one leading '_'. */
static int tsdl_name_eq(const char *name, const char *ref, size_t len)
{
	if (len > 1 && ref[0] == '_') {
		ref++;
		len--;
	}
	return strlen(name) == len && !strncmp(name, ref, len);
}

/* The field of [lo, hi) whose path is pfx's n bytes then ref, or -1. */
static int find_path(const struct refs *r, unsigned lo, unsigned hi,
		     const char *pfx, size_t n, const char *ref)
{
	for (unsigned j = hi; j-- > lo;)
		if (path_eq(r->paths[j], pfx, n, ref))
			return (int)j;
	return -1;
}

/*
 * The field a length's or tag's path ref names from the field i of the
 * section sec, by the lookup of CTF 1.8 (section 7.3.2), as babeltrace2
 * does it: an absolute path (event.fields.a.b, event.context.x,
 * stream.event.context.n) in its section; a relative one first in the
 * struct holding field i, then in each struct holding that one, outwards,
 * among the fields declared before, then from the roots of the sections
 * before.  -1 when none.
 */
static int tsdl_resolve_from(const struct refs *r, int sec, unsigned i,
			     size_t n, const char *ref);

static int tsdl_resolve_ref(const struct refs *r, int sec, unsigned i,
			    const char *ref)
{
	const char *dot = strrchr(r->paths[i], '.');
	return tsdl_resolve_from(
		r, sec, i, dot ? (size_t)(dot - r->paths[i]) + 1 : 0, ref);
}

/* tsdl_resolve_ref() with the lookup starting in the struct whose path is the
 * first n bytes of field i's. */
static int tsdl_resolve_from(const struct refs *r, int sec, unsigned i,
			     size_t n, const char *ref)
{
	const char *name;
	int ls = tsdl_length_section(ref, &name);
	if (ls >= 0) {
		if (ls > sec)
			return -1;
		unsigned lo = r->sec_first[ls];
		return find_path(r, lo, ls == sec ? i : lo + r->nsec[ls], "", 0,
				 name);
	}
	const char *own = r->paths[i];
	int j;
	for (;;) {
		j = find_path(r, r->sec_first[sec], i, own, n, ref);
		if (j >= 0 || !n)
			break;
		/* the struct holding this one: drop a name */
		n--;
		while (n && own[n - 1] != '.')
			n--;
	}
	for (int s2 = sec; j < 0 && s2-- > 0;)
		j = find_path(r, r->sec_first[s2],
			      r->sec_first[s2] + r->nsec[s2], "", 0, ref);
	return j;
}

/* Which values of tag (an enum) select each option of the variant vt (by
 * the enum's labels); *nsel is set to their count. */
static const struct lt_var_sel *
tsdl_variant_sel(struct parser *ps, const struct ty *vt,
		 const struct lt_field_class *tag, uint32_t *nsel)
{
	struct lt_var_sel *sel = tsdl_alloc(
		ps, (tag->nranges ? tag->nranges : 1) * sizeof(*sel));
	unsigned n = 0;
	for (unsigned k = 0; k < vt->nfields; k++)
		for (unsigned r = 0; r < tag->nranges; r++)
			if (!strcmp(tag->ranges[r].label, vt->fields[k].name))
				sel[n++] = (struct lt_var_sel){
					tag->ranges[r].lo, tag->ranges[r].hi, k
				};
	*nsel = n;
	return sel;
}

/* Resolves the variant of ff (the field i of fcs) to its tag, an earlier
 * enum, and on the variant's first field, which tag values select each
 * option (by the enum's labels). */
static void compile_variant(struct parser *ps, const struct flatf *ff,
			    struct lt_field_class *fcs, unsigned i,
			    const struct refs *r, int sec)
{
	struct lt_field_class *fc = &fcs[i];
	const struct ty *vt = ff->variant;
	const char *ref = vt->length_ref ? vt->length_ref : "";
	/* looked up from the struct holding the variant */
	int j = tsdl_resolve_from(r, sec, i, ff->vbase, ref);
	fc->var_tag =
		j >= 0 && fcs[j].var_tag < 0 && fcs[j].kind == LT_KIND_ENUM ?
			j :
			-1;
	if (fc->var_tag < 0)
		tsdl_fail(ps, ff->f->line,
			  "variant of '%s': tag '%s' is not an earlier enum",
			  ff->f->name, vt->length_ref ? vt->length_ref : "");
	fc->var_opt = (uint16_t)ff->opt;
	if (!ff->var_first)
		return;
	fc->var_first = 1;
	fc->var_sel =
		tsdl_variant_sel(ps, vt, &fcs[fc->var_tag], &fc->nvar_sel);
}

/* A struct or variant of a compound field's tree being compiled: its
 * type, its kids so far and which one is being compiled. */
struct cframe {
	const struct ty *t;
	struct lt_cnode *kids;
	unsigned cur;
};

/* A compound field's tree being compiled (compile_cnode()). */
struct ccomp {
	struct parser *ps;
	const struct lt_field_class *fcs; /* the event's fields before it */
	unsigned nfcs; /* its index */
	const struct refs *refs;
	int sec;
	/* the structs and variants holding the node being compiled */
	struct cframe frames[24];
	unsigned nframes;
	unsigned nregs;
};

/* The node the names ref (dotted) reach from n, of type t: through
 * structs and variants' options, not arrays; NULL when none. */
static struct lt_cnode *cnode_path(struct lt_cnode *n, const struct ty *t,
				   const char *ref)
{
	while (*ref) {
		const char *dot = strchr(ref, '.');
		size_t len = dot ? (size_t)(dot - ref) : strlen(ref);
		if (n->kind != LT_CN_STRUCT && n->kind != LT_CN_VARIANT)
			return NULL;
		unsigned k = 0;
		while (k < t->nfields &&
		       !tsdl_name_eq(t->fields[k].name, ref, len))
			k++;
		if (k == t->nfields)
			return NULL;
		n = (struct lt_cnode *)&n->kids[k];
		t = t->fields[k].type;
		ref += len + (dot != NULL);
	}
	return n;
}

/* The integer a variant's tag or a sequence's length (ref) names, by the
 * lookup of CTF 1.8 (tsdl_resolve_ref()): the structs and variants of the tree
 * holding the node, innermost first, among the fields declared before;
 * then the event's fields, from the compound field's place.  Sets n's
 * reference; returns its class. */
static const struct lt_field_class *cnode_ref(struct ccomp *cc, int line,
					      const char *ref, int want_enum,
					      struct lt_cnode *n)
{
	const char *full = ref ? ref : "";
	const char *name;
	n->ref_reg = n->ref_field = -1;
	for (unsigned f = cc->nframes;
	     tsdl_length_section(full, &name) < 0 && f-- > 0;) {
		const struct cframe *fr = &cc->frames[f];
		const char *dot = strchr(full, '.');
		size_t len = dot ? (size_t)(dot - full) : strlen(full);
		for (unsigned j = 0; j < fr->cur; j++) {
			if (!tsdl_name_eq(fr->t->fields[j].name, full, len))
				continue;
			struct lt_cnode *k =
				dot ? cnode_path(&fr->kids[j],
						 fr->t->fields[j].type,
						 dot + 1) :
				      &fr->kids[j];
			if (!k || k->kind != LT_CN_SCALAR ||
			    (k->sc->kind == LT_KIND_ENUM) != want_enum ||
			    (!want_enum && k->sc->kind != LT_KIND_INT))
				continue;
			if (k->reg < 0) {
				if (cc->nregs >= LT_CN_REGS)
					tsdl_fail(
						cc->ps, line,
						"too many tags and lengths in one "
						"field");
				k->reg = (int32_t)cc->nregs++;
			}
			n->ref_reg = k->reg;
			return k->sc;
		}
	}
	int j = tsdl_resolve_ref(cc->refs, cc->sec, cc->nfcs, full);
	if (j >= 0 && (cc->fcs[j].kind == LT_KIND_ENUM) == want_enum &&
	    (want_enum || cc->fcs[j].kind == LT_KIND_INT)) {
		n->ref_field = j;
		return &cc->fcs[j];
	}
	tsdl_fail(cc->ps, line, "'%s' is not an earlier %s", full,
		  want_enum ? "enum" : "integer");
	return NULL;
}

/* Enters the struct or variant t, whose kids are being compiled. */
static struct cframe *push_frame(struct ccomp *cc, const struct ty *t,
				 struct lt_cnode *kids, int line)
{
	if (cc->nframes >= sizeof(cc->frames) / sizeof(cc->frames[0]))
		tsdl_fail(cc->ps, line, "types nested too deeply");
	struct cframe *fr = &cc->frames[cc->nframes++];
	*fr = (struct cframe){ .t = t, .kids = kids };
	return fr;
}

/*
 * Compiles t (a field called name, NULL for an element or a variant's
 * option) into the tree node out; *min_bits is the fewest bits a value of
 * it takes.
 */
static void compile_cnode(struct ccomp *cc, const struct ty *t,
			  const char *name, int line, int depth,
			  struct lt_cnode *out, uint64_t *min_bits)
{
	struct parser *ps = cc->ps;
	if (depth > 16)
		tsdl_fail(ps, line, "field '%s': types nested too deeply",
			  name ? name : "");
	out->name = name ? name : "";
	out->name_len = (uint32_t)strlen(out->name);
	out->align = t->align ? t->align : 1;
	out->reg = -1;
	out->ref_reg = out->ref_field = -1;
	out->bound = out->name_len + 8;
	switch (t->kind) {
	case TY_INT:
	case TY_ENUM:
	case TY_FLOAT: {
		struct lt_field_class *sc = tsdl_alloc(ps, sizeof(*sc));
		const struct ty *it = t->kind == TY_ENUM ? t->elem : t;
		sc->name = out->name;
		if (t->kind == TY_FLOAT && (it->size % 8 || it->align % 8))
			tsdl_fail(ps, line, "field '%s': a float of %u bits",
				  out->name, it->size);
		tsdl_scalar(ps, t, line, out->name, sc, &sc->kind);
		if (t->kind != TY_FLOAT) {
			/* read by bits wherever it is */
			int bo = it->bo ? it->bo : ps->trace_bo;
			sc->bitfield = 1;
			sc->bitsize = (uint8_t)it->size;
			sc->be = bo == BO_BE;
		}
		out->kind = LT_CN_SCALAR;
		out->sc = sc;
		out->bound += (uint32_t)lt_format_bound_fixed(sc, 1);
		*min_bits = it->size;
		return;
	}
	case TY_STRING:
		out->kind = LT_CN_STRING;
		out->align = 8;
		*min_bits = 8;
		return;
	case TY_STRUCT: {
		if (!t->nfields)
			tsdl_fail(ps, line, "field '%s': an empty struct",
				  out->name);
		struct lt_cnode *kids =
			tsdl_alloc(ps, t->nfields * sizeof(*kids));
		struct cframe *fr = push_frame(cc, t, kids, line);
		*min_bits = 0;
		for (unsigned i = 0; i < t->nfields; i++) {
			uint64_t mb;
			fr->cur = i;
			compile_cnode(cc, t->fields[i].type, t->fields[i].name,
				      t->fields[i].line, depth + 1, &kids[i],
				      &mb);
			*min_bits += mb;
		}
		cc->nframes--;
		out->kind = LT_CN_STRUCT;
		out->kids = kids;
		out->nkids = t->nfields;
		return;
	}
	case TY_VARIANT: {
		if (!t->nfields)
			tsdl_fail(ps, line, "variant '%s' has no option",
				  out->name);
		struct lt_cnode *kids =
			tsdl_alloc(ps, t->nfields * sizeof(*kids));
		const struct lt_field_class *tag =
			cnode_ref(cc, line, t->length_ref, 1, out);
		out->kind = LT_CN_VARIANT;
		out->align = 1; /* the option's own alignment applies */
		out->ref_signed = tag->is_signed;
		out->sel = tsdl_variant_sel(ps, t, tag, &out->nsel);
		*min_bits = UINT64_MAX;
		struct cframe *fr = push_frame(cc, t, kids, line);
		for (unsigned i = 0; i < t->nfields; i++) {
			uint64_t mb;
			fr->cur = i;
			compile_cnode(cc, t->fields[i].type, NULL,
				      t->fields[i].line, depth + 1, &kids[i],
				      &mb);
			if (mb < *min_bits)
				*min_bits = mb;
		}
		cc->nframes--;
		out->kids = kids;
		out->nkids = t->nfields;
		return;
	}
	case TY_ARRAY:
	case TY_SEQUENCE: {
		struct lt_cnode *e = tsdl_alloc(ps, sizeof(*e));
		uint64_t mb;
		if (t->kind == TY_SEQUENCE) {
			const struct lt_field_class *lf =
				cnode_ref(cc, line, t->length_ref, 0, out);
			if (lf->is_signed)
				tsdl_fail(ps, line,
					  "field '%s': length '%s' is not an "
					  "unsigned integer",
					  out->name, t->length_ref);
		}
		compile_cnode(cc, t->elem, NULL, line, depth + 1, e, &mb);
		/* an element of no bits: a long sequence would not end */
		if (!mb)
			tsdl_fail(ps, line, "field '%s': elements of no bits",
				  out->name);
		out->kind = t->kind == TY_ARRAY ? LT_CN_ARRAY : LT_CN_SEQUENCE;
		out->text = (uint8_t)(t->elem->kind == TY_INT &&
				      t->elem->size == 8 &&
				      t->elem->align % 8 == 0 && t->elem->text);
		out->align = e->align;
		out->length = (uint32_t)t->length;
		out->kids = e;
		out->nkids = 1;
		*min_bits = t->kind == TY_ARRAY ? mb * t->length : 0;
		return;
	}
	default:
		tsdl_fail(ps, line, "field '%s': a type not allowed here",
			  out->name);
	}
}

/* The tree of the field fc (the event's field i, of type t). */
static void tsdl_compile_compound(struct parser *ps, const struct ty *t,
				  int line, struct lt_field_class *fc,
				  const struct lt_field_class *fcs, unsigned i,
				  const struct refs *refs, int sec)
{
	struct ccomp cc = {
		.ps = ps, .fcs = fcs, .nfcs = i, .refs = refs, .sec = sec
	};
	struct lt_cnode *n = tsdl_alloc(ps, sizeof(*n));
	uint64_t mb;
	compile_cnode(&cc, t, NULL, line, 0, n, &mb);
	fc->kind = LT_KIND_COMPOUND;
	fc->tree = n;
	fc->align = 1; /* the tree's, and what the parents impose on it */
}

/* An array's element the flat field list holds: a scalar of whole bytes. */
static int flat_elem(const struct ty *e)
{
	const struct ty *it = e->kind == TY_ENUM ? e->elem : e;
	return (e->kind == TY_INT || e->kind == TY_ENUM ||
		e->kind == TY_FLOAT) &&
	       !(it->size % 8) && !(it->align % 8) && it->align <= 1024 &&
	       it->size / 8 % (it->align / 8) == 0;
}

/*
 * Compiles an event's fields: the stream's event context, the event's
 * context and its payload, in that order, into one list (ec->nsec says
 * how many fields each section has).
 */
/* the most phases a class of fixed size gets plans for (ctf/types.h) */
#define LT_MAX_PHASES 16

/*
 * The plans of n fields that all have a fixed size and byte alignment,
 * widest align: for each place the first may start at modulo align
 * (multiples of its alignment), the offsets the decoder's walk would
 * note, from an origin aligned as align.  NULL when they have too many
 * phases or are too large for a plan.
 */
static const struct lt_fixed_plan *phase_plans(struct parser *ps,
					       const struct lt_field_class *fcs,
					       unsigned n, unsigned align)
{
	unsigned first = n ? fcs[0].align : 1, np = align / first;
	if (np > LT_MAX_PHASES)
		return NULL;
	struct lt_fixed_plan *pl = tsdl_alloc(ps, np * sizeof(*pl));
	for (unsigned k = 0; k < np; k++) {
		/* a whole number of LT_RUN_LANES: the decoder copies a run's
		 * offsets by as many at a time */
		unsigned room = (n + LT_RUN_LANES - 1) & ~(LT_RUN_LANES - 1);
		uint32_t *off =
			tsdl_alloc(ps, (room ? room : 1) * sizeof(*off));
		uint64_t at = (uint64_t)k * first;
		for (unsigned j = 0; j < n; j++) {
			const struct lt_field_class *fc = &fcs[j];
			at = (at + fc->align - 1) & ~(uint64_t)(fc->align - 1);
			off[j] = (uint32_t)at;
			at += fc->kind == LT_KIND_ARRAY ?
				      (uint64_t)fc->size * fc->length :
				      fc->size;
			if (at > INT32_MAX)
				return NULL;
		}
		pl[k].off = off;
		pl[k].end = (uint32_t)at;
	}
	return pl;
}

/* A class's plans (phase_plans()), or 0 when it cannot have them. */
static int tsdl_fixed_plans(struct parser *ps, struct lt_event_class *ec,
			    const struct lt_field_class *fcs, unsigned n,
			    unsigned align)
{
	unsigned first = n ? fcs[0].align : 1;
	ec->plan = phase_plans(ps, fcs, n, align);
	if (!ec->plan)
		return 0;
	ec->fixed_align = (uint8_t)align;
	ec->fixed_first = (uint8_t)first;
	ec->fixed_shift = (uint8_t)__builtin_ctz(first);
	return 1;
}

/* A field of fixed size and byte alignment, not a variant's option: one
 * of a run of such fields (LT_STEP_RUN) that a plan places at once. */
static int run_field(const struct lt_field_class *fc)
{
	return fc->var_tag < 0 && !fc->bitfield &&
	       (fc->kind == LT_KIND_INT || fc->kind == LT_KIND_ENUM ||
		fc->kind == LT_KIND_FLOAT ||
		(fc->kind == LT_KIND_ARRAY &&
		 (uint64_t)fc->size * fc->length <= INT32_MAX));
}

/*
 * The step list of a class of n fields (ctf/types.h) into ec, or 0 when a
 * field needs the decoder's general walk: runs of two fields or more of
 * fixed size placed by plans, the others one step each.
 */
static int tsdl_compile_steps(struct parser *ps, struct lt_event_class *ec,
			      const struct lt_field_class *fcs, unsigned n)
{
	struct lt_step *steps = tsdl_alloc(ps, (n ? n : 1) * sizeof(*steps));
	unsigned ns = 0;
	int plain = 1;
	for (unsigned i = 0; i < n; i++) {
		const struct lt_field_class *fc = &fcs[i];
		struct lt_step *st = &steps[ns++];
		if (fc->kind == LT_KIND_COMPOUND)
			return 0;
		st->field = i;
		st->align = fc->align;
		st->size = fc->size;
		st->variant = fc->var_tag >= 0;
		unsigned k = 0, widest = 1;
		while (i + k < n && run_field(&fcs[i + k])) {
			if (fcs[i + k].align > widest)
				widest = fcs[i + k].align;
			k++;
		}
		if (k >= 2) {
			st->plan = phase_plans(ps, fc, k, widest);
			if (st->plan) {
				st->op = LT_STEP_RUN;
				st->size = k;
				st->run_align = (uint8_t)widest;
				st->run_shift =
					(uint8_t)__builtin_ctz(fc->align);
				i += k - 1;
				continue;
			}
		}
		if (st->variant)
			plain = 0;
		if (fc->bitfield) {
			st->op = LT_STEP_BITS;
			st->size = fc->bitsize;
			st->bitalign = fc->bitalign;
			plain = 0;
			continue;
		}
		switch (fc->kind) {
		case LT_KIND_STRING:
			st->op = LT_STEP_STRING;
			break;
		case LT_KIND_ARRAY: {
			uint64_t b = (uint64_t)fc->size * fc->length;
			if (b > UINT32_MAX)
				return 0;
			st->op = LT_STEP_FIXED;
			st->size = (uint32_t)b;
			break;
		}
		case LT_KIND_SEQUENCE: {
			const struct lt_field_class *lf =
				&fcs[fc->length_field];
			if (lf->bitfield || !fc->size)
				return 0;
			st->op = LT_STEP_SEQUENCE;
			st->lfield = (uint32_t)fc->length_field;
			st->lsize = lf->size;
			st->lbe = lf->be;
			break;
		}
		default:
			st->op = LT_STEP_FIXED;
			break;
		}
	}
	ec->steps = steps;
	ec->nsteps = ns;
	ec->steps_plain = (uint8_t)plain;
	return 1;
}

static void tsdl_compile_event(struct parser *ps, const struct pevent *pe,
			       const struct pstream *pst,
			       struct lt_event_class *ec)
{
	const struct ty *secs[LT_NSECTIONS] = { pst->event_context, pe->context,
						pe->fields };
	unsigned n = 0;
	struct flatf *flat[LT_NSECTIONS] = { NULL };
	unsigned nflat[LT_NSECTIONS] = { 0 };
	for (int sec = 0; sec < LT_NSECTIONS; sec++) {
		unsigned cap = 0, nparents = 0;
		if (secs[sec] && secs[sec]->kind != TY_STRUCT)
			tsdl_fail(ps, pe->line,
				  "event \"%s\": a context is not a struct",
				  pe->name);
		if (secs[sec])
			flatten(ps, secs[sec], "", "", 0, 0, &flat[sec],
				&nflat[sec], &cap, &nparents, NULL, 0, 0);
		n += nflat[sec];
	}
	struct lt_field_class *fcs = tsdl_alloc(ps, (n ? n : 1) * sizeof(*fcs));
	unsigned sec_first[LT_NSECTIONS] = { 0 };
	const char **paths = tsdl_alloc(ps, (n ? n : 1) * sizeof(*paths));
	for (unsigned sec = 0, k = 0; sec < LT_NSECTIONS; sec++)
		for (unsigned fi = 0; fi < nflat[sec]; fi++)
			paths[k++] = flat[sec][fi].path;
	const struct refs refs = { paths, sec_first, ec->nsec };
	int fixed = 1;
	uint8_t fixed_align = 1;
	unsigned i = 0;

	for (int sec = 0; sec < LT_NSECTIONS; sec++) {
		const struct ty *st = secs[sec];
		unsigned first = i;
		sec_first[sec] = i;
		ec->nsec[sec] = nflat[sec];
		for (unsigned fi = 0; fi < nflat[sec]; fi++, i++) {
			const struct flatf *ff = &flat[sec][fi];
			const struct ty_field *f = ff->f;
			const struct ty *t = f->type;
			struct lt_field_class *fc = &fcs[i];
			fc->name = f->name;
			fc->name_len = (uint32_t)strlen(f->name);
			fc->prefix_len = fc->name_len + 5;
			char *pre = tsdl_alloc(ps, fc->prefix_len + 16);
			memcpy(pre, ", ", 2);
			memcpy(pre + 2, f->name, fc->name_len);
			memcpy(pre + 2 + fc->name_len, " = ", 3);
			fc->prefix = pre;
			fc->length_field = -1;
			fc->sec_first = fi == 0;
			fc->open = ff->open;
			fc->open_len = ff->open_len;
			fc->closes = ff->closes;
			fc->sec = (uint8_t)sec;
			fc->var_tag = -1;
			if (ff->noname)
				fc->prefix_len = 2; /* ", " and the value */
			for (unsigned j = first; j < i; j++)
				if (flat[sec][j - first].parent == ff->parent &&
				    !strcmp(fcs[j].name, f->name))
					tsdl_fail(ps, f->line,
						  "field '%s' declared twice",
						  f->name);
			if (t->kind == TY_STRING) {
				fc->kind = LT_KIND_STRING;
				fc->align = 1;
				fixed = 0;
			} else if (t->kind == TY_ARRAY ||
				   t->kind == TY_SEQUENCE) {
				if (!flat_elem(t->elem)) {
					/* elements of their own structure */
					tsdl_compile_compound(ps, t, f->line,
							      fc, fcs, i, &refs,
							      sec);
					fixed = 0;
					goto placed;
				}
				tsdl_scalar(ps, t->elem, f->line, f->name, fc,
					    &fc->elem_kind);
				fc->kind = t->kind == TY_ARRAY ?
						   LT_KIND_ARRAY :
						   LT_KIND_SEQUENCE;
				fc->text = (uint8_t)(t->elem->kind == TY_INT &&
						     t->elem->size == 8 &&
						     t->elem->text);
				if (fc->size % fc->align)
					tsdl_fail(
						ps, f->line,
						"field '%s': element size is not a "
						"multiple of its alignment",
						f->name);
				if (t->kind == TY_ARRAY) {
					fc->length = (uint32_t)t->length;
				} else {
					fc->length_field = tsdl_resolve_ref(
						&refs, sec, i, t->length_ref);
					if (fc->length_field < 0)
						tsdl_fail(
							ps, f->line,
							"field '%s': length '%s' is not "
							"an earlier field",
							f->name, t->length_ref);
					const struct lt_field_class *lf =
						&fcs[fc->length_field];
					if (lf->var_tag >= 0) {
						/* a length that may be absent:
						 * read as a tree */
						tsdl_compile_compound(
							ps, t, f->line, fc, fcs,
							i, &refs, sec);
						goto placed;
					}
					if (lf->kind != LT_KIND_INT ||
					    lf->is_signed)
						tsdl_fail(
							ps, f->line,
							"field '%s': length '%s' is not "
							"an unsigned integer",
							f->name, t->length_ref);
					fixed = 0;
				}
			} else if (t->kind == TY_STRUCT ||
				   t->kind == TY_VARIANT) {
				/* a variant in a variant */
				tsdl_compile_compound(ps, t, f->line, fc, fcs,
						      i, &refs, sec);
				fixed = 0;
			} else {
				tsdl_scalar(ps, t, f->line, f->name, fc,
					    &fc->kind);
			}
placed:
			if (fc->kind == LT_KIND_COMPOUND)
				fixed = 0; /* its size is the walk's */
			/* a struct is aligned as its widest field: its first
			 * field starts there */
			if (ff->align / 8 > fc->align) {
				if (ff->align > 1024)
					tsdl_fail(
						ps, st->line,
						"event \"%s\": alignment too large",
						pe->name);
				fc->align = (uint8_t)(ff->align / 8);
			}
			if (fc->tree && 8u * fc->align > fc->tree->align)
				((struct lt_cnode *)fc->tree)->align =
					8u * fc->align;
			if (fc->bitfield)
				fixed = 0;
			if (ff->variant) {
				compile_variant(ps, ff, fcs, i, &refs, sec);
				fixed = 0;
			}
			if (fc->align > fixed_align)
				fixed_align = fc->align;
		}
	}
	ec->name = pe->name;
	ec->name_len = (uint32_t)strlen(pe->name);
	ec->fmt_bound = (uint32_t)lt_format_bound_fixed(fcs, n);
	struct lt_bound_var *bv = tsdl_alloc(ps, (n ? n : 1) * sizeof(*bv));
	ec->nfmt_var = lt_format_bound_vars(fcs, n, bv);
	ec->fmt_var = bv;
	ec->id = pe->id;
	ec->loglevel = pe->loglevel;
	ec->format = pe->format;
	ec->nfields = n;
	ec->fields = fcs;
	if (fixed)
		fixed = tsdl_fixed_plans(ps, ec, fcs, n, fixed_align);
	ec->fixed_size = fixed ? (int32_t)ec->plan[0].end : -1;
	if (!fixed)
		tsdl_compile_steps(ps, ec, fcs, n);
	ec->fmt_plain = 1;
	ec->no_payload = !pe->fields;
	uint8_t *vop = tsdl_alloc(ps, n ? n : 1);
	for (unsigned j = 0; j < n; j++)
		vop[j] = lt_value_op(&fcs[j]);
	ec->vop = vop;
	for (unsigned j = 0; j < n; j++)
		if (fcs[j].sec != LT_SEC_PAYLOAD || fcs[j].open_len ||
		    fcs[j].closes || fcs[j].var_tag >= 0 || fcs[j].bitfield)
			ec->fmt_plain = 0;
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

static void finish(struct parser *ps)
{
	struct lt_tsdl *m = ps->m;

	if (!ps->have_trace)
		tsdl_fail(ps, ps->line, "no trace block");
	if (!ps->nclocks || !ps->clocks[0].freq)
		tsdl_fail(ps, ps->line, "no clock block with a frequency");
	if (!ps->nstreams)
		tsdl_fail(ps, ps->line, "no stream block");
	for (unsigned i = 0; i < ps->nclocks; i++)
		finish_clock(ps, &ps->clocks[i]);
	m->clocks = ps->clocks;
	m->nclocks = ps->nclocks;

	m->pkt_header = tsdl_compile_header(ps, ps->packet_header, 0);
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
		sc->ev_header = tsdl_compile_header(ps, st->header, 1);
		sc->evh_kind =
			tsdl_lttng_header_kind(sc->ev_header, &sc->evh_be);
		sc->clock = stream_clock(ps, st);
	}

	m->nclasses = ps->nevents;
	m->classes = tsdl_alloc(ps, (ps->nevents ? ps->nevents : 1) *
					    sizeof(*m->classes));
	for (unsigned i = 0; i < ps->nevents; i++) {
		struct pevent *pe = &ps->events[i];
		struct lt_event_class *ec = &m->classes[i];
		if (!pe->has_id)
			tsdl_fail(ps, pe->line, "event \"%s\" has no id",
				  pe->name);
		if (pe->stream_id < 0) {
			if (ps->nstreams > 1)
				tsdl_fail(ps, pe->line,
					  "event \"%s\" has no stream_id",
					  pe->name);
			pe->stream_id = ps->streams[0].id;
		}
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
 * contents.  Returns it (in m's arena, *len set) or NULL with err set.
 */
static const char *unpacketize(const unsigned char *b, size_t *len,
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
		if (h[35] != 1 || h[36] != 8) {
			snprintf(err, errlen,
				 "%s: offset %zu: metadata version %u.%u, "
				 "expected 1.8",
				 path, off + 35, h[35], h[36]);
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

int lt_tsdl_parse(const char *text, size_t len, const char *path,
		  struct lt_tsdl *m, char *err, size_t errlen)
{
	struct parser *ps;
	static const char magic[] = "/* CTF 1.";
	const unsigned char *b = (const unsigned char *)text;

	memset(m, 0, sizeof(*m));
	if (len >= 4 &&
	    ((b[0] == 0x57 && b[1] == 0x1d && b[2] == 0xd1 && b[3] == 0x75) ||
	     (b[0] == 0x75 && b[1] == 0xd1 && b[2] == 0x1d && b[3] == 0x57))) {
		text = unpacketize(b, &len, path, m, err, errlen);
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
	ps = lt_arena_alloc(&m->arena, sizeof(*ps));
	if (!ps) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	ps->p = text;
	ps->end = text + len;
	ps->line = 1;
	ps->path = path;
	ps->m = m;
	ps->err = err;
	ps->errlen = errlen;
	ps->a = &m->arena;
	ps->trace_bo = BO_LE;
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
	finish(ps);
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
