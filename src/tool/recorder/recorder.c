/* SPDX-License-Identifier: MIT */
/*
 * recorder.c - the `lowtrace record` process (recorder.h): the recording
 * opened, its loop, its metadata and its end.
 *
 * It listens on a unix socket (control.c), starts the command with
 * LOWTRACE_SESSION_SOCK naming it (launch.c), and gives every process that
 * joins (agent.c) ring buffers of its own: one memfd per channel, created
 * here (buffers.c), so that what a process committed is still here after
 * it dies.  One thread polls the socket and every process's buffers, each
 * a buffer of the consumer (consumer.h): complete sub-buffers of discard
 * channels go to stream files as they fill, a switch timer flushes partial
 * ones, new event descriptions rewrite the metadata.  When a process's
 * socket closes (exit, crash, exec), the consumer collects its buffers,
 * keeping the whole records a writer that died mid-record left.  Overwrite
 * channels are written at the end, and copied by snapshots (snapshot.c).
 *
 * With -p or --all-apps, running programs that link liblowtrace are
 * attached through their rendezvous (attach.c, apps.h): the connection a
 * JOIN leaves is served like one made to the session's socket, and its
 * closing, at the end, is what detaches the program.  A look at
 * /proc/net/unix every 100 ms attaches the programs they fork or exec (or,
 * with --all-apps, any of the user's that starts).
 *
 * Each process's channel is a stream class of its own (its event ids are
 * its own), streams named CHANNEL_PID_CPU (CHANNEL_PID.N_CPU for the N-th
 * program a pid exec()s).  With per-user buffers (shared.h) the processes
 * of one user share one buffer per channel instead, a stream class
 * CHANNEL_uUID_CPU whose records carry their writer's pid.  The kernel
 * channel (kernel.c) is one more stream class, kernel_CPU.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/metadata.h"
#include "kernel/dynevent.h"
#include "kernel/kernel.h"
#include "recorder/rec.h"
#include "recorder/recorder.h"
#include "ring/ring.h"

/*
 * Per-user buffers: the ids claimed whose descriptions came.  A
 * description sent before a claim seen is in its process's socket: the
 * connections are read, and the ids looked at once more.
 */
static void refresh_users(struct rec *R)
{
	if (rec_refresh_users(R)) {
		rec_serve_processes(R);
		rec_refresh_users(R);
	}
}

/* The end of the recording: what the buffers hold, the final metadata. */
static void finish(struct rec *R)
{
	if (R->kern)
		rec_finish_kernel(R);
	refresh_users(R);
	lt_consumer_finish(&R->cons);
	lt_clock_refine();
	rec_write_metadata(R);
}

/* R->stop: the end of the recording before the command's. */
static void stop_recording(struct rec *R, const char *why)
{
	if (R->stopped)
		return;
	finish(R);
	R->stopped = 1;
	R->res->stopped = 1;
	fprintf(stderr,
		"lowtrace: recording stopped (%s); the trace in %s is "
		"complete, %s\n",
		why, R->o->dir,
		R->o->argv ? "the command runs on untraced" :
			     "the programs attached run on, detached");
}

/* Everything the recording needs before the command starts; 0, or
 * -errno after a message. */
static int open_recording(struct rec *R, const struct lt_rec_options *o,
			  struct lt_rec_result *res)
{
	memset(R, 0, sizeof(*R));
	memset(res, 0, sizeof(*res));
	R->o = o;
	R->res = res;
	R->lsock = -1;
	R->idle_ms = 1;
	R->stop = stop_recording;
	res->patterns_unmatched =
		o->nrules >= 64 ? ~0ull : ((1ull << o->nrules) - 1);
	lt_ctf_uuid_make(R->uuid);
	if (gethostname(R->hostname, sizeof(R->hostname) - 1) < 0)
		snprintf(R->hostname, sizeof(R->hostname), "unknown");
	lt_consumer_init(&R->cons, o->dir, R->uuid, o->switch_ms);
	R->cons.count_events = 1;
	R->cons.who = "record: ";
	R->per_user = o->buffers == LT_BUFFERS_PER_USER ||
		      (o->buffers == LT_BUFFERS_DEFAULT &&
		       (o->all_apps || o->npids > 1));
	if (R->per_user && !lt_ring_rseq_usable()) {
		fprintf(stderr,
			"lowtrace: record: buffers shared per user need rseq "
			"(x86_64, glibc 2.35 or later, LOWTRACE_RING_SYNC "
			"not \"atomic\"); each process gets buffers of its "
			"own\n");
		R->per_user = 0;
	}
	res->per_user = R->per_user;
	int rc = lt_clock_init();
	if (rc)
		return rc;
	rc = rec_listen(R);
	if (rc == -EADDRINUSE) {
		fprintf(stderr,
			"lowtrace: record: a session named %s is running "
			"(`lowtrace status %s`); give this one another "
			"--name\n",
			o->session_name, o->session_name);
		return rc;
	}
	if (rc) {
		fprintf(stderr,
			"lowtrace: record: cannot listen on %s: %s (check "
			"$XDG_RUNTIME_DIR or /tmp)\n",
			R->sock_path[0] ? R->sock_path : "the session socket",
			strerror(-rc));
		return rc;
	}
	if (o->nkernel || o->nusdt || o->nprobes) {
		R->kernel_stream = R->next_stream++;
		rc = rec_open_kernel(R);
		if (rc)
			return rc;
		res->kernel_channel = 1;
	}
	rec_write_metadata(R);
	return 0;
}

static void close_recording(struct rec *R)
{
	if (R->lsock >= 0) {
		close(R->lsock);
		unlink(R->sock_path);
	}
	lt_consumer_destroy(&R->cons);
	for (int i = 0; i < R->nprocs; i++)
		rec_free_proc(R->procs[i]);
	for (int i = 0; i < R->nusers; i++) {
		lt_shared_free(R->users[i]);
		free(R->users[i]);
	}
	if (R->kern) {
		rec_close_kernel(R);
	}
	/* after the perf events on them are closed */
	lt_dyn_destroy(R->dyn);
}

/* Waits up to idle_ms for a connection or a message. */
static void wait_for_work(struct rec *R)
{
	struct pollfd pf[MAX_PROCS + 1];
	int n = 0;
	pf[n++] = (struct pollfd){ R->lsock, POLLIN, 0 };
	for (int i = 0; i < R->nprocs; i++)
		if (R->procs[i]->fd >= 0)
			pf[n++] = (struct pollfd){ R->procs[i]->fd, POLLIN, 0 };
	poll(pf, (nfds_t)n, R->idle_ms);
}

/* Packets written so far, the kernel's too. */
static uint64_t packets_written(const struct rec *R)
{
	uint64_t n = R->kst.packets;
	for (int ch = 0; ch < R->o->nchannels; ch++)
		n += R->res->ch[ch].packets;
	return n;
}

/* A round that wrote nothing doubles the next wait, up to 8 ms: the
 * default buffers hold far more than that at 10 M events/s. */
static void pace(struct rec *R, uint64_t before)
{
	if (packets_written(R) != before)
		R->idle_ms = 1;
	else if (R->idle_ms < 8)
		R->idle_ms *= 2;
}

/* The consumer's pass: complete sub-buffers, new event descriptions, the
 * switch timer. */
static void consume(struct rec *R)
{
	if (R->stopped)
		return;
	refresh_users(R);
	lt_consumer_drain(&R->cons);
	if (R->meta_dirty)
		rec_write_metadata(R);
	lt_consumer_switch_timer(&R->cons);
}

/* Done when the command and every process that joined are, or a little
 * after the command if orphans live on. */
static int recording_done(const struct rec *R, int alive)
{
	return !R->child_alive &&
	       (!alive || rec_now_ms() - R->child_done_ms > 2000);
}

static void record_until_done(struct rec *R)
{
	for (;;) {
		wait_for_work(R);
		uint64_t before = packets_written(R);
		rec_accept_all(R);
		rec_poll_kernel(R);
		int alive = rec_serve_processes(R);
		consume(R);
		pace(R, before);
		rec_watch_command(R);
		rec_track_apps(R);
		rec_watch_attached(R);
		if (recording_done(R, alive))
			break;
	}
}

int lt_record_run(const struct lt_rec_options *o, struct lt_rec_result *res)
{
	static struct rec R;
	/* before the probes exist; exec gives the command the default
	 * actions back */
	rec_catch_signals(0);
	int rc = open_recording(&R, o, res);
	if (!rc)
		rc = rec_attach_given(&R);
	if (!rc && !o->argv) {
		rec_catch_signals(1);
		R.child_alive = 1;
	} else if (!rc) {
		rc = rec_start_command(&R);
	}
	if (!rc) {
		record_until_done(&R);
		if (!R.stopped)
			finish(&R);
	}
	close_recording(&R);
	return rc;
}
