/* SPDX-License-Identifier: MIT */
/*
 * json_out.c - the JSON writer of the analyses' --json documents
 * (json_out.h): two-space indentation, one member or element a line.
 */
#include "analysis/json_out.h"

#include "analysis/analysis.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s (n bytes left), else 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp, min;
	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, cp = s[0] & 0x1f, min = 0x80;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f, min = 0x800;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, cp = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and beyond U+10FFFF are not UTF-8 */
	if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* A string as JSON: a byte that is not UTF-8 becomes U+FFFD, so that
 * any field of a trace gives a valid document. */
static void write_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str);
	fputc('"', f);
	while (n) {
		size_t len = utf8_len(s, n);
		if (!len) {
			fputs("\\ufffd", f);
			s++, n--;
			continue;
		}
		if (len > 1) {
			fwrite(s, 1, len, f);
		} else if (*s == '"' || *s == '\\') {
			fprintf(f, "\\%c", *s);
		} else if (*s == '\n') {
			fputs("\\n", f);
		} else if (*s == '\t') {
			fputs("\\t", f);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s);
		} else {
			fputc(*s, f);
		}
		s += len, n -= len;
	}
	fputc('"', f);
}

static void indent(struct lt_json *j)
{
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* The slot of the container open (depths past the last share it: the
 * documents never nest that deep). */
static int slot(const struct lt_json *j)
{
	return j->depth < LT_JSON_MAX_DEPTH ? j->depth : LT_JSON_MAX_DEPTH - 1;
}

/* Before a value: the comma and line of the container open, its key. */
static void next(struct lt_json *j, const char *key)
{
	if (j->depth == 0)
		return;
	if (j->more[slot(j)])
		fputc(',', j->f);
	j->more[slot(j)] = 1;
	indent(j);
	if (key) {
		write_str(j->f, key);
		fputs(": ", j->f);
	}
}

static void open_container(struct lt_json *j, const char *key, char open,
			   char close)
{
	next(j, key);
	fputc(open, j->f);
	j->depth++;
	j->more[slot(j)] = 0;
	j->close[slot(j)] = close;
}

void lt_json_obj(struct lt_json *j, const char *key)
{
	open_container(j, key, '{', '}');
}

void lt_json_arr(struct lt_json *j, const char *key)
{
	open_container(j, key, '[', ']');
}

void lt_json_end(struct lt_json *j)
{
	if (j->depth == 0)
		return;
	char close = j->close[slot(j)];
	int empty = !j->more[slot(j)];
	j->depth--;
	if (!empty)
		indent(j);
	fputc(close, j->f);
}

void lt_json_int(struct lt_json *j, const char *key, int64_t v)
{
	next(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void lt_json_uint(struct lt_json *j, const char *key, uint64_t v)
{
	next(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

/* The shortest of %.15g, %.16g and %.17g that reads back as v. */
void lt_json_num(struct lt_json *j, const char *key, double v)
{
	char buf[40];
	next(j, key);
	if (!isfinite(v)) {
		fputs("null", j->f);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, j->f);
}

void lt_json_bool(struct lt_json *j, const char *key, int v)
{
	next(j, key);
	fputs(v ? "true" : "false", j->f);
}

void lt_json_null(struct lt_json *j, const char *key)
{
	next(j, key);
	fputs("null", j->f);
}

void lt_json_str(struct lt_json *j, const char *key, const char *s)
{
	next(j, key);
	if (s)
		write_str(j->f, s);
	else
		fputs("null", j->f);
}

void lt_json_doc_begin(struct lt_json *j, FILE *f, const char *what,
		       lt_reader_t *t)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	lt_json_obj(j, NULL);
	lt_json_int(j, "schema_version", LT_JSON_SCHEMA_VERSION);
	lt_json_str(j, "analysis", what);
	lt_json_uint(j, "discarded_events", lt_trace_discarded(t));
}

void lt_json_doc_end(struct lt_json *j)
{
	while (j->depth)
		lt_json_end(j);
	fputc('\n', j->f);
}
