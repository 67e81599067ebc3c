/* SPDX-License-Identifier: MIT */
/*
 * perfetto.h - the export to Perfetto's protobuf trace format
 * (perfetto.c, docs/perfetto.md).
 */
#ifndef LT_ANALYSIS_PERFETTO_H
#define LT_ANALYSIS_PERFETTO_H

#include "ctf/reader.h"

#include <stdio.h>

struct lt_anchor;
struct lt_span_pair;

struct lt_perfetto_opts {
	/* events marked as anchors (category "anchor"); NULL: none */
	const struct lt_anchor *anchor;
	/* a span pair given (--span), besides those found by name; NULL:
	 * those found by name only */
	const struct lt_span_pair *span;
};

/*
 * Writes the trace as a stream of TracePackets, packet by packet, in one
 * pass of the reader; memory is bounded by the trace's threads, CPUs,
 * streams and event classes, not its events.  0, or a negative errno
 * (-EIO: writing out failed, errno says why; otherwise the reader's,
 * lt_reader_error()).
 */
int lt_export_perfetto(lt_reader_t *t, const struct lt_perfetto_opts *o,
		       FILE *out);

#endif
