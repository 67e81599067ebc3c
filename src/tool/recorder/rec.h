/* SPDX-License-Identifier: MIT */
/*
 * rec.h - the state of one `lowtrace record` (recorder.h), shared by the
 * recorder's files, and what each of them gives the others: recorder.c the
 * loop, metadata.c the metadata, control.c the session's socket,
 * buffers.c the buffers of processes and users, launch.c the command and
 * the end of the programs, attach.c running programs found and attached,
 * kernel.c the kernel channel, snapshot.c snapshots and triggers.  Each
 * file calls only files after it in this order: recorder.c; control.c;
 * snapshot.c; metadata.c, buffers.c, kernel.c, launch.c; attach.c.  Not an
 * API: one thread runs all of it.
 */
#ifndef LT_RECORDER_REC_H
#define LT_RECORDER_REC_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/un.h>

#include "clock/clock.h"
#include "recorder/shared.h"
#include "session/consumer.h"
#include "session/proto.h"

struct lt_rec_options;
struct lt_rec_result;

#define MAX_PROCS 1024

struct rproc {
	int fd; /* the connection; -1 once closed */
	int pid, ppid, gen;
	int asked_pid; /* attached through its rendezvous: its pid */
	char comm[16];
	/* its channels' buffers, the consumer's once it joined */
	struct lt_consumer_buf buf[LT_PROTO_MAX_CHANNELS];
	struct lt_event_table events; /* by id, owned; a hole has no name */
	struct lt_shared *u; /* its user's buffers, if shared */
};

/* A process of the kernel channel's tree and its command line, as
 * /proc showed it last (a server may retitle itself: PostgreSQL's
 * backends do). */
struct cmdline {
	int pid;
	char text[160];
};

#define MAX_CMDLINES 1024

struct rec {
	const struct lt_rec_options *o;
	struct lt_rec_result *res;
	uint8_t uuid[16];
	int lsock;
	char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct rproc *procs[MAX_PROCS];
	int nprocs;
	struct lt_consumer cons;
	uint32_t next_stream;
	int meta_dirty;
	char hostname[256];
	int stopped;
	/* recorder.c's: the end of the recording before the command's,
	 * which control requests and triggers ask for (a call would tie
	 * their files to the loop's in a circle) */
	void (*stop)(struct rec *R, const char *why);
	int idle_ms; /* the next wait for something to do */
	struct lt_kernel *kern;
	struct lt_dyn *dyn; /* uprobes and kprobes, removed at the end */
	struct lt_consumer_buf kbuf; /* the kernel channel's, local */
	struct lt_consumer_stats kst;
	uint32_t kernel_stream;
	pid_t child;
	int child_alive;
	uint64_t child_done_ms;
	uint64_t last_scan_ms;
	struct cmdline cmds[MAX_CMDLINES];
	int ncmds;
	struct {
		char name[LT_PROTO_NAME];
		uint64_t last_ms;
	} held[32];
	int nheld;
	/* rendezvous already asked (their inodes), and when last looked */
	uint64_t asked[1024];
	int nasked;
	uint64_t last_apps_ms;
	/* per-user buffers: a set per user that joined */
	int per_user;
	struct lt_shared *users[64];
	int nusers;
};

static inline uint64_t rec_now_ms(void)
{
	return lt_clock_read_monotonic() / 1000000;
}

/* metadata.c: the metadata of the trace (or of a snapshot: its overwrite
 * channels alone) */
int rec_write_metadata_to(struct rec *R, const char *dir, int only_overwrite);
int rec_write_metadata(struct rec *R);

/* control.c: the session's socket; each connection's messages */
int rec_listen(struct rec *R);
void rec_accept_all(struct rec *R);
int rec_serve_processes(struct rec *R);

/* buffers.c: a process that joins, its events, its end */
int rec_on_hello(struct rec *R, struct rproc *p, const struct lt_msg_hello *m);
int rec_on_event(struct rec *R, struct rproc *p, const void *buf, size_t len);
int rec_refresh_users(struct rec *R);
void rec_collect_dead(struct rec *R, struct rproc *p);
void rec_free_proc(struct rproc *p);

/* snapshot.c */
int rec_take_snapshot(struct rec *R, const char *why, const char *trigger,
		      char *out, size_t cap);
void rec_on_trigger(struct rec *R, struct rproc *p,
		    const struct lt_msg_trigger *m);

/* launch.c: the command, the end of the programs, the signals that end
 * a recording */
void rec_catch_signals(int sigint);
int rec_start_command(struct rec *R);
void rec_watch_command(struct rec *R);
void rec_watch_attached(struct rec *R);

/* attach.c: running programs; what /proc says of a process */
int rec_attach_given(struct rec *R);
void rec_track_apps(struct rec *R);
int rec_proc_gone(pid_t pid);
int rec_parent_of(pid_t pid);

/* kernel.c: the kernel channel */
int rec_open_kernel(struct rec *R);
void rec_poll_kernel(struct rec *R);
void rec_kernel_snapshot(struct rec *R);
void rec_finish_kernel(struct rec *R);
void rec_close_kernel(struct rec *R);

#endif
