/* SPDX-License-Identifier: MIT */
/*
 * fuzz_control.c - libFuzzer target for what a traced process sends the
 * recorder and what a user types into a filter: the session protocol's
 * message check and EVENT decoding (src/runtime/session/proto.c), the check a
 * running program's rendezvous makes of an ATTACH request (anyone may
 * send one), the metadata
 * the recorder writes for a decoded event (src/runtime/format/metadata.c), and the
 * filter compiler and matcher (src/runtime/probe/filter.c), and the recorder's
 * side of buffers shared per user (src/tool/recorder/shared.c): an EVENT from
 * one of the user's processes, the id it claims, its description found.
 *
 * The input is: a 2-byte little-endian length L, L bytes of a message, a
 * filter text up to a NUL, then a payload.  The oracle beyond "no crash":
 * an event the decoder accepts gets metadata that our own reader parses
 * (a traced process must not be able to make the recorder write a trace
 * that cannot be read).
 */
#include "../event_metadata.h"
#include "probe/filter.h"
#include "session/proto.h"
#include "recorder/shared.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static const struct lt_field_desc fixed_fields[] = {
	{ "a", LT_FT_INT, 4, 1, 10, 0, NULL },
	{ "b", LT_FT_INT, 8, 0, 16, 0, NULL },
	{ "s", LT_FT_STRING, 1, 0, 10, 0, NULL },
	{ "f", LT_FT_FLOAT, 8, 1, 10, 0, NULL },
	{ NULL, 0, 0, 0, 0, 0, NULL },
};

/* The metadata of one stream with ev in it must parse, a process's own
 * and one shared per user (its records led by a vpid context). */
static void metadata_round_trip(const struct lt_ctf_event *ev)
{
	static char err[65536];
	for (int shared = 0; shared < 2; shared++) {
		if (event_metadata_opens(ev->id, ev->name, ev->loglevel,
					 ev->fields, ev->nfields, shared, err,
					 sizeof(err)) == 0)
			continue;
		fprintf(stderr, "metadata of an accepted event: %s\n", err);
		abort();
	}
}

/* Per-user buffers: the description a process sent, then the id it
 * claims for it, give the recorder that description under that id. */
static void shared_round_trip(const uint8_t *msg, size_t len,
			      const struct lt_ctf_event *ev)
{
	struct lt_shared u;
	int waiting;
	if (lt_shared_init(&u, 1000))
		abort();
	if (lt_shared_describe(&u, msg, len) == 0) {
		uint32_t id = lt_idtab_id(u.ids, lt_proto_event_key(msg, len));
		if (id != 0 || lt_shared_refresh(&u, &waiting) != 1 ||
		    waiting || u.events.n <= id ||
		    strcmp(u.events.ev[id].name, ev->name) != 0 ||
		    u.events.ev[id].nfields != ev->nfields)
			abort(); /* claimed, described, not found */
	}
	lt_shared_free(&u);
}

static void filter(const char *text, const char *event,
		   const struct lt_field_desc *f, uint32_t nf,
		   const uint8_t *payload, size_t plen)
{
	struct lt_filter *flt = NULL;
	char err[256];
	lt_filter_check_syntax(text, err, sizeof(err));
	if (lt_filter_compile(text, event, f, nf, &flt, err, sizeof(err)))
		return;
	lt_filter_match(flt, payload, (uint32_t)plen);
	struct lt_filter *twice = NULL;
	if (lt_filter_compile(text, event, f, nf, &twice, err, sizeof(err)) ==
	    0) {
		if (lt_filter_or(&flt, twice) == 0)
			lt_filter_match(flt, payload, (uint32_t)plen);
		lt_filter_free(twice);
	}
	lt_filter_free(flt);
}

static const struct lt_enum_entry seed_labels[] = { { "OFF", 0, 0 },
						    { "ON", 1, 1 } };
static const struct lt_enum_desc seed_enum = { "onoff", seed_labels, 2 };

/* FUZZ_CONTROL_SEEDS=DIR: writes seed inputs there (an EVENT message of
 * every field type with a filter and a payload) and exits. */
static void write_seeds(const char *dir)
{
	static const struct lt_field_desc f[] = {
		{ "i8", LT_FT_INT, 1, 1, 10, 0, NULL },
		{ "u64", LT_FT_INT, 8, 0, 16, 0, NULL },
		{ "state", LT_FT_ENUM, 4, 0, 10, 0, &seed_enum },
		{ "d", LT_FT_FLOAT, 8, 1, 10, 0, NULL },
		{ "s", LT_FT_STRING, 1, 0, 10, 0, NULL },
		{ "arr", LT_FT_ARRAY, 2, 1, 10, 3, NULL },
		{ "seq", LT_FT_SEQUENCE, 4, 0, 10, 0, NULL },
		{ "c", LT_FT_CHARS, 1, 0, 10, 8, NULL },
	};
	static const char *const filters[] = {
		"i8 > 3 && u64 != 0x10",
		"s == \"abc*\" || state == 1",
		"d < 2.5",
		"!(i8 <= -1) && seq[0] == 7",
	};
	uint8_t msg[4096], payload[64];
	for (unsigned i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 37 + 1);
	const struct lt_ctf_event ev = { 3, "fuzz:every_type", 4, f, 8, NULL };
	ssize_t n = lt_proto_event_encode(msg, sizeof(msg), &ev);
	if (n < 0)
		exit(1);
	/* a rendezvous's request */
	struct lt_msg_attach am;
	memset(&am, 0, sizeof(am));
	lt_proto_init(&am.h, LT_MSG_ATTACH, sizeof(am));
	am.op = LT_ATTACH_JOIN;
	snprintf(am.session, sizeof(am.session), "fuzz");
	snprintf(am.sock, sizeof(am.sock), "/tmp/lowtrace-0/fuzz.sock");
	char apath[512];
	snprintf(apath, sizeof(apath), "%s/control_attach", dir);
	FILE *ao = fopen(apath, "wb");
	if (!ao)
		exit(1);
	uint8_t al[2] = { (uint8_t)sizeof(am), (uint8_t)(sizeof(am) >> 8) };
	fwrite(al, 1, 2, ao);
	fwrite(&am, 1, sizeof(am), ao);
	fwrite("", 1, 1, ao);
	fclose(ao);
	for (unsigned k = 0; k < 4; k++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/control_%u", dir, k);
		FILE *o = fopen(path, "wb");
		if (!o)
			exit(1);
		uint8_t l[2] = { (uint8_t)n, (uint8_t)(n >> 8) };
		fwrite(l, 1, 2, o);
		fwrite(msg, 1, (size_t)n, o);
		fwrite(filters[k], 1, strlen(filters[k]) + 1, o);
		fwrite(payload, 1, sizeof(payload), o);
		fclose(o);
	}
	exit(0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *dir = getenv("FUZZ_CONTROL_SEEDS");
	if (dir)
		write_seeds(dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t mlen = (size_t)data[0] | (size_t)data[1] << 8;
	if (mlen > size - 2)
		mlen = size - 2;
	/* copies of exact size, so that a read past either shows */
	uint8_t *msg = malloc(mlen ? mlen : 1);
	const uint8_t *rest = data + 2 + mlen;
	size_t rlen = size - 2 - mlen;
	const uint8_t *z = memchr(rest, 0, rlen);
	size_t tlen = z ? (size_t)(z - rest) : rlen;
	char *text = malloc(tlen + 1);
	size_t plen = z ? rlen - tlen - 1 : 0;
	uint8_t *payload = malloc(plen ? plen : 1);
	if (!msg || !text || !payload)
		abort();
	memcpy(msg, data + 2, mlen);
	memcpy(text, rest, tlen);
	text[tlen] = 0;
	if (plen)
		memcpy(payload, z + 1, plen);

	enum lt_msg_type type;
	struct lt_ctf_event ev;
	int decoded = 0;
	if (lt_proto_check(msg, mlen, &type) == 0 && type == LT_MSG_EVENT &&
	    lt_proto_event_decode(msg, mlen, &ev) == 0) {
		decoded = 1;
		metadata_round_trip(&ev);
	}
	if (decoded)
		shared_round_trip(msg, mlen, &ev);
	struct lt_msg_attach am;
	if (lt_proto_attach_check(msg, mlen, &am) == 0 &&
	    (strlen(am.session) >= sizeof(am.session) ||
	     strlen(am.sock) >= sizeof(am.sock)))
		abort(); /* accepted a name without its NUL */
	if (decoded)
		filter(text, ev.name, ev.fields, ev.nfields, payload, plen);
	else
		filter(text, "fuzz:event", fixed_fields, 4, payload, plen);
	if (decoded)
		lt_proto_event_free(&ev);
	free(msg);
	free(text);
	free(payload);
	return 0;
}
