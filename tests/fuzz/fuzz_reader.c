/* SPDX-License-Identifier: MIT */
/*
 * fuzz_reader.c - libFuzzer target for the trace reader.
 *
 * An input is a metadata text, a NUL byte, then the bytes of one stream
 * file (no NUL: all of it is metadata and the stream is empty).  The
 * stream is opened twice over (two streams, so that the merge runs), in
 * strict mode and with LT_READER_SKIP_BAD; every event is decoded, every
 * field and element read, and every event formatted into a buffer of
 * exactly lt_event_format_bound() bytes, so that AddressSanitizer sees a
 * bound that is too small.  Both buffers are copied to allocations of
 * their exact size, for the same reason.  A marker's text (an event
 * whose class has a format) is written into its room too.
 */
#include "ctf/reader.h"
#include "fuzz_input.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_all(lt_reader_t *t)
{
	const struct lt_event *ev;
	struct lt_value v, e;
	long n = 0;

	while (lt_reader_next(t, &ev) > 0 && n++ < 1000000) {
		for (unsigned i = 0; i < ev->cls->nfields; i++) {
			int r = lt_event_field(ev, i, &v);
			/* -ENOENT: a variant's option the event lacks */
			if (r && r != -ENOENT)
				abort();
			if (r)
				continue;
			if (v.kind == LT_KIND_ARRAY ||
			    v.kind == LT_KIND_SEQUENCE)
				for (size_t j = 0; j < v.len; j++)
					if (lt_value_elem(&v, j, &e))
						abort();
		}
		size_t bound = lt_event_format_bound(ev);
		char *buf = malloc(bound);
		if (!buf)
			abort();
		char *end = lt_event_format(ev, buf);
		if ((size_t)(end - buf) > bound)
			abort();
		free(buf);
		if (ev->cls->format) { /* a marker's text, in its room */
			char *text = malloc(LT_MARKER_TEXT_MAX);
			if (!text)
				abort();
			end = lt_event_format_marker(ev, text,
						     LT_MARKER_TEXT_MAX);
			if ((size_t)(end - text) >= LT_MARKER_TEXT_MAX)
				abort();
			free(text);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in;
	char err[1024];

	fuzz_input_split(data, size, &in);
	struct lt_mem_stream ms[2] = {
		{ .name = "a", .data = in.stream, .len = in.slen },
		{ .name = "b", .data = in.stream, .len = in.slen }
	};
	for (int mode = 0; mode < 2; mode++) {
		struct lt_reader_opts o = { .flags = mode ? LT_READER_SKIP_BAD :
							    0 };
		lt_reader_t *t;
		if (lt_reader_open_mem(in.meta, in.mlen, ms, 2, &o, &t, err,
				       sizeof(err)) == 0) {
			read_all(t);
			lt_reader_rewind(t);
			read_all(t);
			lt_reader_close(t);
		}
	}
	fuzz_input_free(&in);
	return 0;
}
