/* SPDX-License-Identifier: MIT */
/*
 * filter.c - parsing conditions into a small postfix program
 * (filter_prog.h), compiled for one event's fields or kept with its
 * field names; combining and freeing programs (filter.h).  filter_eval.c
 * runs them.
 *
 * The parser is recursive descent and emits postfix code: a comparison
 * pushes one truth value, && and || pop two and push one, ! flips the
 * top.  Compiled for an event, each comparison is resolved against the
 * event's fields: its field's index, type and size, and the constant in
 * the form the evaluation needs (a wide integer, a double, an enum
 * label's range, a string in the filter's own pool), by the rules of
 * lt_filter_fit(); the fields' layout up to the last one referred to
 * goes with it.  Kept by name, a comparison holds its constant as parsed
 * and its field's name in the pool, and is fitted as it is evaluated.
 */
#include "probe/filter.h"
#include "probe/filter_prog.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* short names, for this file */
#define MAX_INSNS LT_FILTER_MAX_INSNS
#define MAX_DEPTH LT_FILTER_MAX_DEPTH
#define MAX_FIELDS LT_FILTER_MAX_FIELDS
#define POOL_MAX LT_FILTER_POOL_MAX
_Static_assert(POOL_MAX == LT_FILTER_MAX_TEXT,
	       "a program's pool holds the constants of a text at its longest");

/* A program as the compiler builds it, at its largest. */
struct prog {
	uint32_t ninsn, depth, pool_len;
	uint32_t nfixed; /* fields with known offsets */
	uint32_t nlayout; /* fields up to the last one referred to */
	uint32_t named; /* fields by name (lt_filter_parse()) */
	struct insn insn[MAX_INSNS];
	struct layout layout[MAX_FIELDS];
	char pool[POOL_MAX];
};

struct parser {
	const char *text, *p;
	const char *event;
	const struct lt_field_desc *fields; /* NULL: syntax only */
	uint32_t nfields;
	int names; /* fields unknown: keep their names in the pool */
	struct prog *f;
	uint32_t pool_len;
	int depth, stack, max_stack, nest;
	char *err;
	size_t errcap;
	int failed;
};

static int fail(struct parser *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	if (ps->failed)
		return -EINVAL;
	ps->failed = 1;
	if (ps->err && ps->errcap) {
		va_start(ap, fmt);
		vsnprintf(ps->err, ps->errcap, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static void skip_space(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n')
		ps->p++;
}

/* Where the parser is, for messages: "at 'rest'" or "at the end". */
static const char *where(struct parser *ps, char *buf, size_t cap)
{
	if (!*ps->p)
		snprintf(buf, cap, "at the end");
	else
		snprintf(buf, cap, "at '%.20s'", ps->p);
	return buf;
}

static int emit(struct parser *ps, const struct insn *in)
{
	if (ps->f->ninsn >= MAX_INSNS)
		return fail(ps, "filter too long (at most %d comparisons)",
			    MAX_INSNS / 2);
	ps->f->insn[ps->f->ninsn++] = *in;
	if (in->op == OP_CMP && ++ps->stack > ps->max_stack)
		ps->max_stack = ps->stack;
	if (in->op == OP_AND || in->op == OP_OR)
		ps->stack--;
	if (ps->max_stack > MAX_DEPTH)
		return fail(ps, "filter nested too deeply (at most %d)",
			    MAX_DEPTH);
	return 0;
}

static int is_ident0(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_ident(char c)
{
	return is_ident0(c) || (c >= '0' && c <= '9');
}

static void list_fields(struct parser *ps, char *out, size_t cap)
{
	size_t n = 0;
	out[0] = 0;
	if (!ps->nfields) {
		snprintf(out, cap, "%s has no fields", ps->event);
		return;
	}
	n = (size_t)snprintf(out, cap, "%s has fields:", ps->event);
	for (uint32_t i = 0; i < ps->nfields && n < cap; i++)
		n += (size_t)snprintf(out + n, cap - n, "%s %s", i ? "," : "",
				      ps->fields[i].name);
}

static const char *type_name(uint8_t t)
{
	switch (t) {
	case LT_FT_INT:
		return "an integer";
	case LT_FT_ENUM:
		return "an enum";
	case LT_FT_FLOAT:
		return "a float";
	case LT_FT_STRING:
		return "a string";
	case LT_FT_ARRAY:
		return "an array";
	case LT_FT_SEQUENCE:
		return "a sequence";
	case LT_FT_CHARS:
		return "a char array";
	}
	return "of an unknown type";
}

static int parse_op(struct parser *ps, uint8_t *cmp)
{
	static const struct {
		const char *s;
		uint8_t c;
	} ops[] = { { "==", C_EQ }, { "!=", C_NE }, { "<=", C_LE },
		    { ">=", C_GE }, { "<", C_LT },  { ">", C_GT } };
	char w[40];
	skip_space(ps);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].s);
		if (strncmp(ps->p, ops[i].s, n) == 0) {
			*cmp = ops[i].c;
			ps->p += n;
			return 0;
		}
	}
	return fail(ps, "expected == != < <= > or >= %s",
		    where(ps, w, sizeof(w)));
}

/* "text", with \" and \\; an unescaped * at the end makes a prefix. */
static int parse_string(struct parser *ps, struct insn *in)
{
	char buf[POOL_MAX];
	size_t n = 0;
	int prefix = 0;
	ps->p++;
	for (;;) {
		char c = *ps->p;
		if (!c)
			return fail(ps, "string constant without its "
					"closing '\"'");
		ps->p++;
		if (c == '"')
			break;
		if (prefix)
			return fail(ps, "'*' is allowed only at the end of a "
					"string constant");
		if (c == '\\' &&
		    (*ps->p == '"' || *ps->p == '\\' || *ps->p == '*'))
			c = *ps->p++;
		else if (c == '*') {
			prefix = 1;
			continue;
		}
		if (n + 1 >= sizeof(buf) || ps->pool_len + n + 1 > POOL_MAX)
			return fail(ps, "string constants too long");
		buf[n++] = c;
	}
	memcpy(ps->f->pool + ps->pool_len, buf, n);
	in->soff = ps->pool_len;
	in->slen = (uint16_t)n;
	in->prefix = (uint8_t)prefix;
	ps->pool_len += (uint32_t)n;
	return 0;
}

/* An integer (decimal, 0x hex, negative) or a float. */
static int parse_number(struct parser *ps, struct insn *in, int *is_float)
{
	const char *s = ps->p;
	int neg = *s == '-';
	const char *d = s + neg;
	char *end;
	char w[40];

	errno = 0;
	if (d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
		unsigned long long v = strtoull(d + 2, &end, 16);
		if (end == d + 2)
			return fail(ps, "bad hexadecimal constant %s",
				    where(ps, w, sizeof(w)));
		*is_float = 0;
		if (errno == ERANGE || (neg && v > (1ull << 63)))
			return fail(ps, "integer constant out of range %s",
				    where(ps, w, sizeof(w)));
		in->a.i = neg ? (int64_t)(0 - v) : (int64_t)v;
		in->ubig = !neg && v > INT64_MAX;
		ps->p = end;
	} else {
		const char *q = d;
		while (*q >= '0' && *q <= '9')
			q++;
		if (*q == '.' || *q == 'e' || *q == 'E') {
			double v = strtod(s, &end);
			if (end == s || errno == ERANGE)
				return fail(ps, "bad float constant %s",
					    where(ps, w, sizeof(w)));
			*is_float = 1;
			in->a.d = v;
			ps->p = end;
		} else {
			if (q == d)
				return fail(ps,
					    "expected a number or a \"string\" "
					    "%s",
					    where(ps, w, sizeof(w)));
			unsigned long long v = strtoull(d, &end, 10);
			if (errno == ERANGE || (neg && v > (1ull << 63)))
				return fail(ps,
					    "integer constant out of range %s",
					    where(ps, w, sizeof(w)));
			*is_float = 0;
			in->a.i = neg ? (int64_t)(0 - v) : (int64_t)v;
			in->ubig = !neg && v > INT64_MAX;
			ps->p = end;
		}
	}
	if (is_ident(*ps->p) || *ps->p == '.')
		return fail(ps, "bad number %s", where(ps, w, sizeof(w)));
	return 0;
}

static int find_field(struct parser *ps, const char *name, size_t n)
{
	for (uint32_t i = 0; i < ps->nfields; i++)
		if (strlen(ps->fields[i].name) == n &&
		    memcmp(ps->fields[i].name, name, n) == 0)
			return (int)i;
	return -1;
}

/* An enum label's range, or an error listing the labels. */
static int resolve_label(struct parser *ps, const struct lt_field_desc *fd,
			 struct insn *in)
{
	const struct lt_enum_desc *e = fd->enumd;
	const char *s = ps->f->pool + in->soff;
	char labels[300];
	size_t n = 0;

	if (in->prefix)
		return fail(ps,
			    "field '%s' is an enum: its labels take no "
			    "'*'",
			    fd->name);
	for (uint32_t k = 0; e && k < e->n; k++) {
		if (strlen(e->entries[k].label) == in->slen &&
		    memcmp(e->entries[k].label, s, in->slen) == 0) {
			in->kind = K_RANGE;
			in->a.i = e->entries[k].lo;
			in->hi = e->entries[k].hi;
			return 0;
		}
	}
	labels[0] = 0;
	for (uint32_t k = 0; e && k < e->n && n < sizeof(labels); k++)
		n += (size_t)snprintf(labels + n, sizeof(labels) - n, "%s%s",
				      k ? ", " : "", e->entries[k].label);
	return fail(ps, "field '%s' has no label \"%.*s\" (labels: %s)",
		    fd->name, (int)in->slen, s, labels);
}

/* The field's name, NUL-terminated in the pool: in->field is where. */
static int keep_name(struct parser *ps, const char *name, size_t n,
		     struct insn *in)
{
	if (ps->pool_len + n + 1 > POOL_MAX)
		return fail(ps, "field names and string constants too long");
	memcpy(ps->f->pool + ps->pool_len, name, n);
	ps->f->pool[ps->pool_len + n] = 0;
	in->field = (uint16_t)ps->pool_len;
	ps->pool_len += (uint32_t)n + 1;
	return 0;
}

/* Resolves in (its constant parsed) against the event's field i. */
static int fit_field(struct parser *ps, int i, struct insn *in)
{
	const struct lt_field_desc *fd = &ps->fields[i];
	in->field = (uint16_t)i;
	in->ftype = fd->type;
	in->fsize = fd->size;
	in->fsigned = fd->is_signed;
	int k = lt_filter_fit(in, fd->type);
	switch (k) {
	case FIT_NOT_STR:
		return fail(ps,
			    "field '%s' is %s: compare it with a number, not a "
			    "string",
			    fd->name, type_name(fd->type));
	case FIT_WANT_STR:
		return fail(ps,
			    "field '%s' is %s: compare it with a \"string\"",
			    fd->name, type_name(fd->type));
	case FIT_PREFIX_OP:
		return fail(ps,
			    "field '%s': a \"prefix*\" compares with == or != "
			    "only",
			    fd->name);
	case FIT_LABEL_PREFIX:
	case K_RANGE:
		return resolve_label(ps, fd, in);
	case FIT_NEVER:
		return fail(ps,
			    "field '%s' is %s: arrays and sequences cannot be "
			    "filtered on",
			    fd->name, type_name(fd->type));
	}
	if (k == K_FLOAT && in->kind == K_INT)
		in->a.d = lt_filter_const_double(in);
	in->kind = (uint8_t)k;
	return 0;
}

static int parse_cmp(struct parser *ps)
{
	struct insn in;
	char w[40], list[600];
	int is_float = 0;

	memset(&in, 0, sizeof(in));
	in.op = OP_CMP;
	skip_space(ps);
	const char *name = ps->p;
	if (!is_ident0(*ps->p))
		return fail(ps, "expected a field name %s",
			    where(ps, w, sizeof(w)));
	while (is_ident(*ps->p))
		ps->p++;
	size_t nlen = (size_t)(ps->p - name);
	if (parse_op(ps, &in.cmp))
		return -EINVAL;
	skip_space(ps);
	if (*ps->p == '"') {
		in.kind = K_STR;
		if (parse_string(ps, &in))
			return -EINVAL;
	} else if (parse_number(ps, &in, &is_float)) {
		return -EINVAL;
	} else {
		in.kind = is_float ? K_FLOAT : K_INT;
	}
	if (ps->names && in.prefix && in.cmp != C_EQ && in.cmp != C_NE)
		return fail(ps, "a \"prefix*\" compares with == or != only");
	if (ps->names && keep_name(ps, name, nlen, &in))
		return -EINVAL;
	if (!ps->fields)
		return emit(ps, &in);
	int i = find_field(ps, name, nlen);
	if (i < 0) {
		list_fields(ps, list, sizeof(list));
		return fail(ps, "unknown field '%.*s' (%s)", (int)nlen, name,
			    list);
	}
	if (fit_field(ps, i, &in))
		return -EINVAL;
	return emit(ps, &in);
}

static int parse_or(struct parser *ps);

static int parse_unary(struct parser *ps)
{
	char w[40];
	skip_space(ps);
	if (++ps->nest > MAX_DEPTH)
		return fail(ps, "filter nested too deeply (at most %d)",
			    MAX_DEPTH);
	int rc;
	if (*ps->p == '!' && ps->p[1] != '=') {
		ps->p++;
		rc = parse_unary(ps);
		if (!rc)
			rc = emit(ps, &(struct insn){ .op = OP_NOT });
	} else if (*ps->p == '(') {
		ps->p++;
		rc = parse_or(ps);
		skip_space(ps);
		if (!rc && *ps->p != ')')
			rc = fail(ps, "expected ')' %s",
				  where(ps, w, sizeof(w)));
		if (!rc)
			ps->p++;
	} else {
		rc = parse_cmp(ps);
	}
	ps->nest--;
	return rc;
}

static int parse_and(struct parser *ps)
{
	int rc = parse_unary(ps);
	for (;;) {
		skip_space(ps);
		if (rc || strncmp(ps->p, "&&", 2) != 0)
			return rc;
		ps->p += 2;
		rc = parse_unary(ps);
		if (!rc)
			rc = emit(ps, &(struct insn){ .op = OP_AND });
	}
}

static int parse_or(struct parser *ps)
{
	int rc = parse_and(ps);
	for (;;) {
		skip_space(ps);
		if (rc || strncmp(ps->p, "||", 2) != 0)
			return rc;
		ps->p += 2;
		rc = parse_and(ps);
		if (!rc)
			rc = emit(ps, &(struct insn){ .op = OP_OR });
	}
}

/* The layout of the fields up to the last one the program refers to. */
static void build_layout(struct prog *f, const struct lt_field_desc *fd,
			 uint32_t nfields)
{
	uint32_t last = 0, off = 0;
	for (uint32_t i = 0; i < f->ninsn; i++)
		if (f->insn[i].op == OP_CMP && f->insn[i].field > last)
			last = f->insn[i].field;
	f->nlayout = nfields ? last + 1 : 0;
	f->nfixed = f->nlayout;
	for (uint32_t i = 0; i < f->nlayout; i++) {
		struct layout *l = &f->layout[i];
		l->type = fd[i].type;
		l->size = fd[i].size;
		l->length = fd[i].length;
		l->off = off;
		if (f->nfixed == f->nlayout &&
		    (l->type == LT_FT_STRING || l->type == LT_FT_SEQUENCE))
			f->nfixed = i + 1; /* this one's offset is known */
		if (l->type == LT_FT_ARRAY)
			off += (uint32_t)l->size * l->length;
		else if (l->type == LT_FT_CHARS)
			off += l->length;
		else
			off += l->size;
	}
}

static int compile(const char *text, const char *event,
		   const struct lt_field_desc *fields, uint32_t nfields,
		   int names, struct prog *f, char *err, size_t errcap)
{
	struct parser ps = { .text = text,
			     .p = text,
			     .event = event ? event : "the event",
			     .fields = fields,
			     .nfields = nfields,
			     .names = names,
			     .f = f,
			     .err = err,
			     .errcap = errcap };
	char w[40];

	if (err && errcap)
		err[0] = 0;
	if (strlen(text) >= LT_FILTER_MAX_TEXT)
		return fail(&ps, "filter longer than %d bytes",
			    LT_FILTER_MAX_TEXT - 1);
	if (nfields > MAX_FIELDS)
		return fail(&ps, "%s has more than %d fields", ps.event,
			    MAX_FIELDS);
	if (parse_or(&ps))
		return -EINVAL;
	skip_space(&ps);
	if (*ps.p)
		return fail(&ps, "expected && || or the end %s",
			    where(&ps, w, sizeof(w)));
	if (fields)
		build_layout(f, fields, nfields);
	f->depth = (uint32_t)ps.max_stack;
	f->pool_len = ps.pool_len;
	f->named = (uint32_t)names;
	return 0;
}

static struct lt_filter *pack(const struct prog *pr)
{
	size_t ni = pr->ninsn * sizeof(struct insn);
	size_t nl = pr->nlayout * sizeof(struct layout);
	struct lt_filter *f = malloc(sizeof(*f) + ni + nl + pr->pool_len);
	if (!f)
		return NULL;
	char *p = (char *)(f + 1);
	f->ninsn = pr->ninsn;
	f->depth = pr->depth;
	f->pool_len = pr->pool_len;
	f->nfixed = pr->nfixed;
	f->nlayout = pr->nlayout;
	f->named = pr->named;
	f->insn = memcpy(p, pr->insn, ni);
	f->layout = memcpy(p + ni, pr->layout, nl);
	f->pool = memcpy(p + ni + nl, pr->pool, pr->pool_len);
	return f;
}

static void unpack(const struct lt_filter *f, struct prog *pr)
{
	pr->ninsn = f->ninsn;
	pr->depth = f->depth;
	pr->pool_len = f->pool_len;
	pr->nfixed = f->nfixed;
	pr->nlayout = f->nlayout;
	memcpy(pr->insn, f->insn, f->ninsn * sizeof(struct insn));
	memcpy(pr->layout, f->layout, f->nlayout * sizeof(struct layout));
	memcpy(pr->pool, f->pool, f->pool_len);
}

int lt_filter_compile(const char *text, const char *event,
		      const struct lt_field_desc *fields, uint32_t nfields,
		      struct lt_filter **out, char *err, size_t errcap)
{
	static const struct lt_field_desc none[1];
	struct prog *pr = calloc(1, sizeof(*pr));
	if (!pr)
		return -ENOMEM;
	int rc = compile(text, event, fields ? fields : none, nfields, 0, pr,
			 err, errcap);
	if (!rc) {
		*out = pack(pr);
		rc = *out ? 0 : -ENOMEM;
	}
	free(pr);
	return rc;
}

int lt_filter_check_syntax(const char *text, char *err, size_t errcap)
{
	struct prog *pr = calloc(1, sizeof(*pr));
	if (!pr)
		return -ENOMEM;
	int rc = compile(text, NULL, NULL, 0, 0, pr, err, errcap);
	free(pr);
	return rc;
}

int lt_filter_parse(const char *text, struct lt_filter **out, char *err,
		    size_t errcap)
{
	struct prog *pr = calloc(1, sizeof(*pr));
	if (!pr)
		return -ENOMEM;
	int rc = compile(text, NULL, NULL, 0, 1, pr, err, errcap);
	if (!rc) {
		*out = pack(pr);
		rc = *out ? 0 : -ENOMEM;
	}
	free(pr);
	return rc;
}

int lt_filter_or(struct lt_filter **pa, const struct lt_filter *b)
{
	const struct lt_filter *a = *pa;
	if (a->named || b->named)
		return -EINVAL;
	uint32_t depth = b->depth + 1 > a->depth ? b->depth + 1 : a->depth;
	if (a->ninsn + b->ninsn + 1 > MAX_INSNS || depth > MAX_DEPTH ||
	    a->pool_len + b->pool_len > POOL_MAX)
		return -E2BIG;
	struct prog *pr = calloc(1, sizeof(*pr));
	if (!pr)
		return -ENOMEM;
	unpack(a, pr);
	for (uint32_t i = 0; i < b->ninsn; i++) {
		struct insn in = b->insn[i];
		in.soff += a->pool_len;
		pr->insn[pr->ninsn++] = in;
	}
	pr->insn[pr->ninsn++] = (struct insn){ .op = OP_OR };
	memcpy(pr->pool + pr->pool_len, b->pool, b->pool_len);
	pr->pool_len += b->pool_len;
	pr->depth = depth;
	if (b->nlayout > a->nlayout) {
		/* one event's fields: the longer layout holds the shorter */
		memcpy(pr->layout, b->layout,
		       b->nlayout * sizeof(struct layout));
		pr->nlayout = b->nlayout;
		pr->nfixed = b->nfixed;
	}
	struct lt_filter *f = pack(pr);
	free(pr);
	if (!f)
		return -ENOMEM;
	free(*pa);
	*pa = f;
	return 0;
}

void lt_filter_free(struct lt_filter *f)
{
	free(f);
}
