/* SPDX-License-Identifier: MIT */
/*
 * filter.h - event filters: `late_us > 5000 && name == "render*"`.
 *
 * A filter is parsed once against one event's field list into a compact
 * program (instructions and a pool of string constants, no pointer into
 * the text or the field list), then evaluated on the tracing path over
 * the serialised payload: no allocation, no lock, time bounded by the
 * program's length and the payload's size.
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
/* 1 if the payload (len bytes, fields byte-packed) matches, else 0. */
int lt_filter_match(const struct lt_filter *f, const void *payload,
		    uint32_t len);
/* *a becomes "*a || b" (both compiled for one event); 0, or -E2BIG or
 * -ENOMEM and *a unchanged. */
int lt_filter_or(struct lt_filter **a, const struct lt_filter *b);
void lt_filter_free(struct lt_filter *f);

#endif
