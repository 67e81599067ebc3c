/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ctf2.c - libFuzzer target for CTF 2's metadata front end
 * (ctf/ctf2.h): an input is as fuzz_reader's (fuzz_input.h), its metadata
 * parsed as CTF 2 whatever its first bytes (so that the JSON, the
 * fragments and the field classes are what the mutations reach, not the
 * TSDL parser).  Metadata it accepts must hold what the decoder counts on
 * (every event class of a stream class found by its id, no class with
 * more fields than max_fields); then the reader opens it over the stream
 * part and every event is formatted into exactly lt_event_format_bound()
 * bytes, as fuzz_reader does.
 */
#include "ctf/ctf2.h"
#include "ctf/reader.h"
#include "fuzz_input.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_classes(const struct lt_tsdl *m)
{
	for (uint32_t i = 0; i < m->nclasses; i++) {
		const struct lt_event_class *ec = &m->classes[i];
		const struct lt_stream_class *sc =
			lt_tsdl_stream(m, ec->stream_id);
		if (!sc || lt_tsdl_event(sc, ec->id) != ec ||
		    ec->nfields > m->max_fields)
			abort();
	}
}

static void read_events(const struct fuzz_input *in)
{
	struct lt_mem_stream ms = { .name = "s",
				    .data = in->stream,
				    .len = in->slen };
	struct lt_reader_opts o = { .flags = LT_READER_SKIP_BAD };
	const struct lt_event *ev;
	lt_reader_t *t;
	char err[1024];
	long n = 0;

	if (lt_reader_open_mem(in->meta, in->mlen, &ms, 1, &o, &t, err,
			       sizeof(err)) < 0)
		return;
	while (lt_reader_next(t, &ev) > 0 && n++ < 100000) {
		size_t bound = lt_event_format_bound(ev);
		char *buf = malloc(bound);
		if (!buf)
			abort();
		if ((size_t)(lt_event_format(ev, buf) - buf) > bound)
			abort();
		free(buf);
	}
	lt_reader_close(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in;
	struct lt_tsdl m;
	char err[1024];

	fuzz_input_split(data, size, &in);
	if (lt_ctf2_parse(in.meta, in.mlen, "metadata", &m, err, sizeof(err)) ==
	    0) {
		check_classes(&m);
		lt_tsdl_free(&m);
		if (lt_ctf2_is_ctf2(in.meta, in.mlen))
			read_events(&in);
	} else if (!strstr(err, "metadata")) {
		abort(); /* a message names where */
	}
	fuzz_input_free(&in);
	return 0;
}
