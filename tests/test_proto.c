/* SPDX-License-Identifier: MIT */
/*
 * test_proto.c - the session protocol's EVENT messages: what the encoder
 * writes the decoder gives back, and the decoder refuses what would make
 * the recorder write metadata no reader accepts (the cases
 * tests/fuzz/fuzz_control.c found): an enum label outside its integer,
 * two fields of one name; and a field named like a sequence's length
 * makes the length field take another name.  The metadata of a stream
 * shared per user declares its vpid context.
 */
#include "format/metadata.h"
#include "event_metadata.h"
#include "lt_test.h"
#include "session/proto.h"

#include <string.h>

static const struct lt_enum_entry labels[] = { { "LOW", -3, -1 },
					       { "HIGH", 1, 100 } };
static const struct lt_enum_desc signed_enum = { "level", labels, 2 };

static int round_trip(const struct lt_field_desc *f, uint32_t n,
		      struct lt_ctf_event *ev)
{
	static unsigned char buf[8192];
	const struct lt_ctf_event in = { 7, "test:event", 4, f, n, NULL };
	ssize_t len = lt_proto_event_encode(buf, sizeof(buf), &in);
	LT_ASSERT_CMP(len, >, 0);
	enum lt_msg_type type;
	LT_ASSERT_EQ(lt_proto_check(buf, (size_t)len, &type), 0);
	LT_ASSERT_EQ(type, LT_MSG_EVENT);
	return lt_proto_event_decode(buf, (size_t)len, ev);
}

LT_TEST(test_event_round_trip)
{
	const struct lt_field_desc f[] = {
		{ "a", LT_FT_INT, 4, 1, 10, 0, NULL },
		{ "level", LT_FT_ENUM, 1, 1, 10, 0, &signed_enum },
		{ "seq", LT_FT_SEQUENCE, 2, 0, 16, 0, NULL },
		{ "align", LT_FT_STRING, 1, 0, 10, 0, NULL },
	};
	struct lt_ctf_event ev;
	LT_ASSERT_EQ(round_trip(f, 4, &ev), 0);
	LT_ASSERT_EQ(ev.id, 7);
	LT_ASSERT_STREQ(ev.name, "test:event");
	LT_ASSERT_EQ(ev.nfields, 4);
	LT_ASSERT_STREQ(ev.fields[2].name, "seq");
	LT_ASSERT_EQ(ev.fields[1].enumd->n, 2);
	LT_ASSERT_EQ(ev.fields[1].enumd->entries[0].lo, -3);
	/* the metadata written for it parses */
	char err[8192];
	if (event_metadata_opens(ev.id, ev.name, ev.loglevel, ev.fields,
				 ev.nfields, 0, err, sizeof(err)))
		LT_FAIL("metadata refused: %s", err);
	lt_proto_event_free(&ev);
}

LT_TEST(test_enum_label_outside_its_integer_is_refused)
{
	/* -3..-1 does not fit an unsigned integer; 1..300 not 8 bits */
	const struct lt_field_desc u[] = {
		{ "level", LT_FT_ENUM, 4, 0, 10, 0, &signed_enum },
	};
	const struct lt_enum_entry big[] = { { "BIG", 1, 300 } };
	const struct lt_enum_desc big_enum = { "big", big, 1 };
	const struct lt_field_desc b[] = {
		{ "level", LT_FT_ENUM, 1, 1, 10, 0, &big_enum },
	};
	struct lt_ctf_event ev;
	LT_ASSERT_EQ(round_trip(u, 1, &ev), -EPROTO);
	LT_ASSERT_EQ(round_trip(b, 1, &ev), -EPROTO);
	LT_ASSERT(lt_ctf_enum_range_ok(1, 1, -128, 127));
	LT_ASSERT(!lt_ctf_enum_range_ok(1, 1, -129, 0));
	LT_ASSERT(lt_ctf_enum_range_ok(2, 0, 0, 65535));
	LT_ASSERT(!lt_ctf_enum_range_ok(2, 0, 0, 65536));
	LT_ASSERT(lt_ctf_enum_range_ok(8, 1, INT64_MIN, INT64_MAX));
	LT_ASSERT(!lt_ctf_enum_range_ok(8, 0, -1, 0));
	LT_ASSERT(!lt_ctf_enum_range_ok(4, 1, 5, 4));
}

LT_TEST(test_two_fields_of_one_name_are_refused)
{
	const struct lt_field_desc twice[] = {
		{ "x", LT_FT_INT, 4, 1, 10, 0, NULL },
		{ "x", LT_FT_INT, 8, 1, 10, 0, NULL },
	};
	struct lt_ctf_event ev;
	LT_ASSERT_EQ(round_trip(twice, 2, &ev), -EPROTO);
}

/* A sequence's length field is "NAME_length" unless a field has that
 * name (or an earlier sequence's length does): then it takes a suffix. */
LT_TEST(test_sequence_length_names_avoid_the_fields)
{
	const struct lt_field_desc f[] = {
		{ "v", LT_FT_SEQUENCE, 4, 1, 10, 0, NULL },
		{ "v_length", LT_FT_INT, 4, 0, 10, 0, NULL },
		{ "v_length2", LT_FT_SEQUENCE, 1, 0, 10, 0, NULL },
		{ "_v", LT_FT_INT, 4, 0, 10, 0, NULL },
	};
	struct lt_ctf_event ev;
	LT_ASSERT_EQ(round_trip(f, 4, &ev), 0);
	char err[8192];
	if (event_metadata_opens(ev.id, ev.name, ev.loglevel, ev.fields,
				 ev.nfields, 0, err, sizeof(err)))
		LT_FAIL("metadata refused: %s", err);
	size_t len;
	char *text = event_metadata_text(1, "t:e", 4, f, 4, 0, &len);
	LT_ASSERT_CONTAINS(text, " _v_length3;");
	LT_ASSERT_CONTAINS(text, " v[_v_length3];");
	LT_ASSERT_CONTAINS(text, " _v_length2_length;");
	free(text);
	lt_proto_event_free(&ev);
}

/* The protocol refuses two fields of one name, but an event compiled into
 * a program can have them: the writer renames the later ones, keeping
 * every name that another field has, so the trace stays readable. */
LT_TEST(test_duplicate_field_names_are_renamed_in_the_metadata)
{
	const struct lt_field_desc f[] = {
		{ "x", LT_FT_INT, 4, 1, 10, 0, NULL },
		{ "x", LT_FT_INT, 4, 1, 10, 0, NULL },
		{ "x_2", LT_FT_SEQUENCE, 4, 1, 10, 0, NULL },
	};
	char err[8192];
	if (event_metadata_opens(1, "t:dup", 4, f, 3, 0, err, sizeof(err)))
		LT_FAIL("metadata refused: %s", err);
	size_t len;
	char *text = event_metadata_text(1, "t:dup", 4, f, 3, 0, &len);
	LT_ASSERT_CONTAINS(text, " x;");
	LT_ASSERT_CONTAINS(text, " x_3;");
	LT_ASSERT_CONTAINS(text, " x_2[_x_2_length];");
	free(text);
}

/* A stream shared per user declares each record's writer, a vpid event
 * context, and our reader takes it. */
LT_TEST(test_shared_stream_metadata)
{
	const struct lt_field_desc f[] = { { "seq", LT_FT_INT, 8, 0, 10, 0,
					     NULL } };
	char err[4096];
	size_t len;
	if (event_metadata_opens(2, "t:shared", 4, f, 1, 1, err, sizeof(err)))
		LT_FAIL("metadata refused: %s", err);
	char *text = event_metadata_text(2, "t:shared", 4, f, 1, 1, &len);
	LT_ASSERT_CONTAINS(text, "event.context := struct {");
	LT_ASSERT_CONTAINS(text, "signed = true; } vpid;");
	free(text);
	text = event_metadata_text(2, "t:own", 4, f, 1, 0, &len);
	LT_ASSERT(strstr(text, "vpid;") == NULL);
	free(text);
}
