/* SPDX-License-Identifier: MIT */
/*
 * test_json_out.c - the analyses' JSON writer (src/tool/analysis/
 * json_out.c): commas and brackets as values come, strings escaped to
 * valid UTF-8 JSON whatever their bytes, numbers that read back as
 * written, and null for what JSON cannot hold.
 */
#include "lt_test.h"

#include "analysis/json_out.h"

#include <math.h>
#include <stdlib.h>

/* The text a writer wrote through f, without its newlines and indents. */
static char *flat(FILE *f, char **buf)
{
	fclose(f);
	char *o = *buf, *w = o;
	int in_str = 0;
	for (char *r = o; *r; r++) {
		if (*r == '"' && (r == o || r[-1] != '\\'))
			in_str = !in_str;
		if (!in_str && (*r == '\n' || *r == ' '))
			continue;
		*w++ = *r;
	}
	*w = 0;
	return o;
}

LT_TEST(test_nesting_commas_and_keys)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct lt_json j;
	lt_json_doc_begin(&j, f, "sched", NULL);
	lt_json_arr(&j, "a");
	lt_json_int(&j, NULL, -3);
	lt_json_uint(&j, NULL, 18446744073709551615ull);
	lt_json_obj(&j, NULL);
	lt_json_end(&j);
	lt_json_arr(&j, NULL);
	lt_json_end(&j);
	lt_json_end(&j);
	lt_json_bool(&j, "t", 1);
	lt_json_null(&j, "n");
	lt_json_str(&j, "s", NULL);
	lt_json_doc_end(&j);
	LT_ASSERT_STREQ(flat(f, &buf),
			"{\"schema_version\":1,\"analysis\":\"sched\","
			"\"discarded_events\":0,\"a\":[-3,"
			"18446744073709551615,{},[]],\"t\":true,\"n\":null,"
			"\"s\":null}");
	LT_ASSERT(len > 0 && buf[len - 1] == '\n');
	free(buf);
}

LT_TEST(test_strings_escaped_to_valid_utf8)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct lt_json j = { .f = f };
	/* quote, backslash, controls, DEL, UTF-8 of 2, 3 and 4 bytes kept;
	 * a lone continuation byte, a cut sequence, an overlong '/', a
	 * surrogate and a byte that starts nothing become U+FFFD */
	lt_json_str(&j, NULL,
		    "q\"b\\n\nt\tc\x01\x1f\x7f"
		    "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
		    "|\x80|\xe2\x82|\xc0\xaf|\xed\xa0\x80|\xff");
	fclose(f);
	LT_ASSERT_STREQ(buf, "\"q\\\"b\\\\n\\nt\\tc\\u0001\\u001f\\u007f"
			     "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
			     "|\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd|"
			     "\\ufffd\\ufffd\\ufffd|\\ufffd\"");
	free(buf);
}

LT_TEST(test_numbers_read_back_and_null_when_not_finite)
{
	static const double v[] = { 0.1,   1.0 / 3.0, 29.771566854112717,
				    1e300, -2.5e-310, 100.0 };
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		struct lt_json j = { .f = f };
		lt_json_num(&j, NULL, v[i]);
		fclose(f);
		LT_ASSERT(strtod(buf, NULL) == v[i]);
		LT_ASSERT(len <= 24);
		free(buf);
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct lt_json j = { .f = f };
	lt_json_arr(&j, NULL);
	lt_json_num(&j, NULL, NAN);
	lt_json_num(&j, NULL, -INFINITY);
	lt_json_num(&j, NULL, 0.1);
	lt_json_end(&j);
	LT_ASSERT_STREQ(flat(f, &buf), "[null,null,0.1]");
	free(buf);
}
