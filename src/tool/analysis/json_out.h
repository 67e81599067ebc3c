/* SPDX-License-Identifier: MIT */
/*
 * json_out.h - the JSON writer of the analyses' --json documents
 * (docs/analysis-json.md): values written one after another as they
 * come, commas and indentation kept here, strings escaped to valid
 * UTF-8 JSON, numbers that JSON cannot hold (NaN, infinities) as null.
 */
#ifndef LT_ANALYSIS_JSON_OUT_H
#define LT_ANALYSIS_JSON_OUT_H

#include "ctf/reader.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The version of the documents' schema (docs/analysis.schema.json):
 * raised when a field changes meaning or goes; new fields keep it. */
#define LT_JSON_SCHEMA_VERSION 1

#define LT_JSON_MAX_DEPTH 16 /* the documents nest 7 deep at most */

struct lt_json {
	FILE *f;
	int depth;
	/* per depth: a value was written there already (a comma is due),
	 * and the bracket that closes it */
	unsigned char more[LT_JSON_MAX_DEPTH];
	char close[LT_JSON_MAX_DEPTH];
};

/*
 * Each call writes one value: as a member named key of the object open,
 * or as the next element of the array open (key NULL), or the document
 * itself (key NULL, nothing open).
 */
void lt_json_obj(struct lt_json *j, const char *key);
void lt_json_arr(struct lt_json *j, const char *key);
void lt_json_end(struct lt_json *j); /* of the object or array open */
void lt_json_int(struct lt_json *j, const char *key, int64_t v);
void lt_json_uint(struct lt_json *j, const char *key, uint64_t v);
void lt_json_num(struct lt_json *j, const char *key, double v);
void lt_json_bool(struct lt_json *j, const char *key, int v);
void lt_json_null(struct lt_json *j, const char *key);
/* s NULL: null. */
void lt_json_str(struct lt_json *j, const char *key, const char *s);

/*
 * Opens the document of analysis what into f: its object with
 * schema_version, analysis, and the events the tracer discarded in t.
 * lt_json_doc_end() closes it and ends the line.
 */
void lt_json_doc_begin(struct lt_json *j, FILE *f, const char *what,
		       lt_reader_t *t);
void lt_json_doc_end(struct lt_json *j);

#endif
