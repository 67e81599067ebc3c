/* SPDX-License-Identifier: MIT */
/*
 * filter.h - conditions on events' fields, `late_us > 5000 && name ==
 * "render*"`: the one language of record's and view's `-e 'PATTERN if
 * ...'`, --trigger and the analyses' --anchor (`lowtrace help
 * conditions`).
 *
 * A condition is parsed once into a compact program (instructions and a
 * pool of constants, no pointer into the text).  Compiled against one
 * event's field list (lt_filter_compile()), it is evaluated on the
 * tracing path over the serialised payload: no allocation, no lock, time
 * bounded by the program's length and the payload's size.  Parsed with
 * its field names (lt_filter_parse()), it is evaluated on a decoded
 * event whose fields a reader gives by name (lt_filter_eval()), with the
 * same rules: a field the event lacks, or of a type the constant does
 * not fit, makes the condition false for that event, as compiling it
 * for that event would refuse it.
 *
 * Grammar:
 *	expr    := and ( "||" and )*
 *	and     := unary ( "&&" unary )*
 *	unary   := "!" unary | "(" expr ")" | FIELD OP CONST
 *	OP      := == != < <= > >=
 *	CONST   := integer (decimal, 0x hex, negative) | float | "string"
 * Strings compare with string and char-array fields (a `*` at the end
 * matches any rest, with == and != only); enum fields compare with an
 * integer or with a "LABEL" (a label of a range: == is within it).
 * Array and sequence fields cannot be compared.
 */
#ifndef LT_PROBE_FILTER_H
#define LT_PROBE_FILTER_H

#include <lowtrace/types.h>
#include <stddef.h>
#include <stdint.h>

#define LT_FILTER_MAX_TEXT 512 /* bytes of a filter's text */

struct lt_filter;

/*
 * Compiles text against the fields of event (its name for messages).
 * Returns 0 and *out, or -EINVAL with a message in err ("unknown field
 * 'x' (demo:tick has fields: i, name)"), or -ENOMEM.
 */
int lt_filter_compile(const char *text, const char *event,
		      const struct lt_field_desc *fields, uint32_t nfields,
		      struct lt_filter **out, char *err, size_t errcap);
/* Checks text's syntax alone (no event); 0 or -EINVAL with err. */
int lt_filter_check_syntax(const char *text, char *err, size_t errcap);
/* 1 if the payload (len bytes, fields byte-packed) matches, else 0; f
 * from lt_filter_compile(). */
int lt_filter_match(const struct lt_filter *f, const void *payload,
		    uint32_t len);
/* *a becomes "*a || b" (both compiled for one event); 0, or -E2BIG or
 * -ENOMEM and *a unchanged. */
int lt_filter_or(struct lt_filter **a, const struct lt_filter *b);
void lt_filter_free(struct lt_filter *f);

/* Parses text for lt_filter_eval(), field names kept; 0 and *out, or
 * -EINVAL with a message in err, or -ENOMEM. */
int lt_filter_parse(const char *text, struct lt_filter **out, char *err,
		    size_t errcap);
/*
 * A field's value as a reader gives it: type LT_FT_INT, LT_FT_ENUM,
 * LT_FT_FLOAT or LT_FT_STRING (char arrays too), any other type compares
 * with nothing.  An enum gives label(), which finds a label's range
 * (0, or -1 if the enum has no such label).
 */
struct lt_filter_value {
	uint8_t type; /* enum lt_field_type */
	uint8_t is_signed; /* integers and enums: i, else u */
	union {
		int64_t i;
		uint64_t u;
		double d;
	};
	const char *str; /* string bytes, len of them, no NUL needed */
	size_t len;
	int (*label)(const void *ctx, const char *label, size_t len,
		     int64_t *lo, int64_t *hi);
	const void *ctx;
};
/* Fills v with the value of the field called name; 0, or -1 if none. */
typedef int (*lt_filter_get_fn)(void *arg, const char *name,
				struct lt_filter_value *v);
/* 1 if the event whose fields get(arg, ...) reads matches f (from
 * lt_filter_parse()), else 0. */
int lt_filter_eval(const struct lt_filter *f, lt_filter_get_fn get, void *arg);

#endif
