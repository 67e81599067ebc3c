/* SPDX-License-Identifier: MIT */
/*
 * streams.h - appending packets to a trace's stream files.  A write that
 * fails (a full disk) ends that stream: the file is cut back to its last
 * whole packet, so what was written stays readable, and later packets are
 * counted as lost.
 */
#ifndef LT_SESSION_STREAMS_H
#define LT_SESSION_STREAMS_H

#include <stddef.h>
#include <stdint.h>

struct lt_stream_out {
	int fd; /* -1 until the first packet */
	int failed; /* errno of the write that failed */
	uint64_t good; /* bytes of whole packets in the file */
	uint64_t packets, lost;
};

void lt_stream_init(struct lt_stream_out *o);
/* Appends one packet to dir/name; 0, or -errno once the stream failed. */
int lt_stream_write(struct lt_stream_out *o, const char *dir, const char *name,
		    const void *data, size_t len);
/* Closes the file; -errno if the close reported a write error. */
int lt_stream_close(struct lt_stream_out *o);

#endif
