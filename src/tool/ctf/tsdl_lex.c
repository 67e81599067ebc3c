/* SPDX-License-Identifier: MIT */
/*
 * tsdl_lex.c - the metadata's tokenizer (identifiers, numbers in decimal,
 * octal and hex, string literals with escapes, comments, line numbers),
 * the tests of the current token and the values of attributes; and the
 * parser's memory and errors: the arena that all it builds lives in
 * (tsdl.h), an error's message and its longjmp to lt_tsdl_parse().
 */
#include "ctf/tsdl.h"
#include "ctf/tsdl_int.h"

#include <ctype.h>
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

void tsdl_fail(struct parser *ps, int line, const char *fmt, ...)
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

void *tsdl_alloc(struct parser *ps, size_t n)
{
	void *p = lt_arena_alloc(ps->a, n);
	if (!p)
		tsdl_fail(ps, ps->line, "out of memory");
	return p;
}

char *tsdl_dupn(struct parser *ps, const char *s, size_t n)
{
	char *d = tsdl_alloc(ps, n + 1);
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

/* Grows a parser-side array of elements of size sz. */
void *tsdl_grow(struct parser *ps, void *arr, unsigned n, unsigned *cap,
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

int tsdl_digit_val(int c)
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

void tsdl_next(struct parser *ps)
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

int tsdl_is_punct(const struct parser *ps, const char *p)
{
	return ps->t.kind == TK_PUNCT && strcmp(ps->t.s, p) == 0;
}

int tsdl_is_ident(const struct parser *ps, const char *id)
{
	return ps->t.kind == TK_IDENT && strcmp(ps->t.s, id) == 0;
}

const char *tsdl_tok_text(const struct parser *ps)
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

void tsdl_expect(struct parser *ps, const char *p)
{
	if (!tsdl_is_punct(ps, p))
		tsdl_fail(ps, ps->t.line, "expected '%s', found '%s'", p,
			  tsdl_tok_text(ps));
	tsdl_next(ps);
}

const char *tsdl_expect_ident(struct parser *ps, const char *what)
{
	if (ps->t.kind != TK_IDENT)
		tsdl_fail(ps, ps->t.line, "expected %s, found '%s'", what,
			  tsdl_tok_text(ps));
	const char *s = ps->t.s;
	tsdl_next(ps);
	return s;
}

const char *tsdl_dotted(struct parser *ps, const char *first)
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

struct val tsdl_parse_value(struct parser *ps)
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

uint64_t tsdl_val_uint(struct parser *ps, const struct val *v, const char *what)
{
	if (v->kind != V_NUM || v->neg)
		tsdl_fail(ps, v->line, "%s: expected a non-negative number",
			  what);
	return v->u;
}

int64_t tsdl_val_int(struct parser *ps, const struct val *v, const char *what)
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

int tsdl_val_bool(struct parser *ps, const struct val *v, const char *what)
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

int tsdl_parse_byte_order(struct parser *ps, const struct val *v)
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
