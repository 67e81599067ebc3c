/* SPDX-License-Identifier: MIT */
/*
 * event_metadata.h - does the metadata written for one event open in our
 * reader?  Shared by tests/test_proto.c and tests/fuzz/fuzz_control.c.
 */
#ifndef LT_TESTS_EVENT_METADATA_H
#define LT_TESTS_EVENT_METADATA_H

#include "format/metadata.h"
#include "ctf/reader.h"

#include <stdio.h>
#include <stdlib.h>

/* The metadata text of a trace with one stream holding the event, its
 * records led by a vpid context if pid_context (buffers shared per
 * user), malloc'd; aborts when out of memory. */
static inline char *event_metadata_text(uint32_t id, const char *name,
					int loglevel,
					const struct lt_field_desc *fields,
					uint32_t nfields, int pid_context,
					size_t *len)
{
	struct lt_ctf_event ce = { id, name, loglevel, fields, nfields, NULL };
	struct lt_ctf_stream st = { 0, "default", &ce, 1, pid_context, 0 };
	struct lt_ctf_trace t = { .hostname = "host",
				  .procname = "proc",
				  .pid = 1,
				  .clock_source = "tsc",
				  .streams = &st,
				  .nstreams = 1 };
	t.clock.freq = 1000000000;
	char *text = lt_ctf_metadata_text(&t, len);
	if (!text)
		abort();
	return text;
}

/*
 * That metadata, opened with an empty stream file: 0, or -1 with the
 * reader's message and the text in err.
 */
static inline int event_metadata_opens(uint32_t id, const char *name,
				       int loglevel,
				       const struct lt_field_desc *fields,
				       uint32_t nfields, int pid_context,
				       char *err, size_t errlen)
{
	size_t len;
	char *text = event_metadata_text(id, name, loglevel, fields, nfields,
					 pid_context, &len);
	struct lt_mem_stream none = { .name = "default_1_0",
				      .data = "",
				      .len = 0 };
	lt_reader_t *tr;
	char msg[1024];
	int rc = lt_reader_open_mem(text, len, &none, 1, NULL, &tr, msg,
				    sizeof(msg));
	if (rc == 0)
		lt_reader_close(tr);
	else
		snprintf(err, errlen, "%s\n%s", msg, text);
	free(text);
	return rc == 0 ? 0 : -1;
}

#endif
