/* SPDX-License-Identifier: MIT */
/*
 * out_thread.h - an output file written by a thread of its own: the pass
 * that encodes fills one buffer while the thread writes the other, so the
 * kernel's copy of the output (a large part of an export's time: the
 * bytes written are a quarter of the trace read) runs beside the pass on
 * a second CPU instead of after it.  Two buffers, swapped: memory stays
 * flat.  Without a thread (pthread_create failing) the writes are made
 * in the caller, as plain fwrite().
 */
#ifndef LT_ANALYSIS_OUT_THREAD_H
#define LT_ANALYSIS_OUT_THREAD_H

#include "analysis/pb.h"

#include <pthread.h>
#include <stdio.h>

struct lt_out_thread {
	FILE *f;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct lt_pb spare; /* the thread's buffer */
	size_t len; /* bytes of spare to write; 0: the thread is idle */
	int err; /* the first write error (-EIO), sticky */
	int errnum; /* its errno */
	uint8_t started, stop;
};

/* Starts the thread that writes to f. */
void lt_out_thread_start(struct lt_out_thread *o, FILE *f);

/* Hands b's bytes to the thread (after it is done with the last ones)
 * and gives b the other buffer, empty; the first write error, or 0. */
int lt_out_thread_write(struct lt_out_thread *o, struct lt_pb *b);

/* Waits for the last write, stops the thread, frees its buffer; the
 * first write error (-EIO, with errno set to the write's), or 0. */
int lt_out_thread_finish(struct lt_out_thread *o);

#endif
