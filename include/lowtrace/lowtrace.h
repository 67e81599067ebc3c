/* SPDX-License-Identifier: MIT */
/*
 * lowtrace/lowtrace.h - tracing sessions inside a program.
 *
 * A program that traces itself creates a session on a directory, chooses
 * events, and starts it; a consumer thread of the library then writes the
 * trace (CTF 1.8) as sub-buffers fill, and at stop everything recorded is
 * flushed.  Without any code, setting LOWTRACE_TRACE=DIR (and optionally
 * LOWTRACE_EVENTS=pattern,..., LOWTRACE_LOGLEVEL=LEVEL) in the environment
 * of a program linked with liblowtrace does the same from load to exit.
 *
 * Functions return 0 or a negative errno value; lt_strerror() words it.
 */
#ifndef LOWTRACE_LOWTRACE_H
#define LOWTRACE_LOWTRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* exported by liblowtrace (see lowtrace/types.h) */
#pragma GCC visibility push(default)

typedef struct lt_session lt_session_t;

struct lt_channel_options {
	size_t subbuf_size; /* bytes, power of two; 0: 256 KiB */
	unsigned n_subbufs; /* power of two; 0: 8 */
	int overwrite; /* 1: flight recorder; 0: discard */
};

struct lt_session_options {
	unsigned switch_timer_ms; /* flush partial sub-buffers; 0: 1000 */
	struct lt_channel_options channel; /* the "default" channel */
};

/* Creates DIR (and its parents) and a session with a "default" channel. */
lt_session_t *lt_session_create(const char *dir,
				const struct lt_session_options *opts,
				int *err);
int lt_session_add_channel(lt_session_t *s, const char *name,
			   const struct lt_channel_options *opts);
/*
 * Sends the events matching pattern ("myapp:*", "*:frame_*") at loglevel
 * ("WARNING": that level and more severe; NULL: all) to channel (NULL:
 * "default").  May be called before or during tracing.
 */
int lt_session_enable(lt_session_t *s, const char *pattern,
		      const char *loglevel, const char *channel);
int lt_session_disable(lt_session_t *s, const char *pattern);
int lt_session_start(lt_session_t *s);
/* Stops recording and writes everything recorded; the trace is complete. */
int lt_session_stop(lt_session_t *s);
void lt_session_destroy(lt_session_t *s);

struct lt_session_stats {
	uint64_t packets_written, bytes_written;
	uint64_t events_lost; /* dropped by full buffers */
	uint64_t packets_lost_disk; /* not written: disk full or write error */
};
int lt_session_get_stats(lt_session_t *s, struct lt_session_stats *st);
/* Directory the session writes to. */
const char *lt_session_dir(const lt_session_t *s);

const char *lt_strerror(int err);

/*
 * Marks a moment worth keeping: records a lowtrace:trigger event and, under
 * `lowtrace record`, asks the recorder to act on it (by default a snapshot
 * of the overwrite channels; `--on-trigger NAME=stop` stops recording).
 * Costs a system call; returns 0, -ENOTCONN outside `lowtrace record`, or
 * -EINVAL for an empty name or one of 64 bytes or more.
 */
int lt_trigger(const char *name);

/* Starts the LOWTRACE_TRACE session if the environment asks for one. */
void lt_session_autostart(void);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
