/* SPDX-License-Identifier: MIT */
/*
 * recorder.h - `lowtrace record`: runs a command with tracing set up and
 * consumes its buffers from this process.
 */
#ifndef LT_SESSION_RECORDER_H
#define LT_SESSION_RECORDER_H

#include <stdint.h>

#include "session/consumer.h"
#include "session/proto.h"

struct lt_rec_channel {
	char name[LT_PROTO_NAME];
	uint64_t subbuf_size;
	uint32_t n_subbufs;
	int overwrite;
	int given; /* by --channel */
};

struct lt_rec_options {
	const char *dir;
	const char *session_name;
	struct lt_rec_channel channels[LT_PROTO_MAX_CHANNELS]; /* [0] default */
	int nchannels;
	struct lt_proto_rule rules[LT_PROTO_MAX_RULES];
	int nrules;
	unsigned switch_ms;
	char *const *argv; /* the command */
	/* what lt_trigger("NAME") does: "NAME=snapshot" or "NAME=stop";
	 * a trigger not listed takes a snapshot */
	char on_trigger[16][LT_PROTO_NAME + 16];
	int non_trigger;
	unsigned trigger_holdoff_ms; /* between two actions of one trigger */
	/* kernel tracepoints (patterns, presets), system-wide if kernel_all,
	 * else only of the command's process tree */
	const char *kernel[64];
	int nkernel;
	int kernel_all;
	int kernel_backend; /* enum lt_kernel_backend (kernel/kernel.h) */
	/* the kernel channel's geometry and mode (`--channel kernel:...`);
	 * 0 sizes: 4 sub-buffers of 256 KiB per CPU */
	struct lt_rec_channel kernel_channel;
	/* uprobes: USDT markers (-u) and functions (--probe); they go to
	 * the kernel channel */
	const char *usdt[64];
	int nusdt;
	const char *probes[64];
	int nprobes;
	/* -p: a running process, and what it forks from then on; argv may
	 * then be NULL (recording until it exits or SIGINT) */
	int attach_pid;
	/* called after each snapshot is written, with its directory and the
	 * trigger that took it (NULL: `lowtrace snapshot`) */
	void (*on_snapshot)(void *arg, const char *dir, const char *trigger);
	void *on_snapshot_arg;
	/* -p PID,...: every one given (attach_pid is the first); those that
	 * link liblowtrace are attached (apps.h), with the programs they
	 * fork or exec from then on; all_apps: every such program of the
	 * user, running or starting while it records */
	int pids[64];
	int npids;
	int all_apps;
	/* buffers per user (shared by the processes of one user, shared.h)
	 * or per process; by default per user with --all-apps or several
	 * -p pids, else per process */
	enum {
		LT_BUFFERS_DEFAULT,
		LT_BUFFERS_PER_PROCESS,
		LT_BUFFERS_PER_USER
	} buffers;
};

struct lt_rec_result {
	int exit_status; /* the command's, as a shell gives it */
	int processes; /* that joined the session */
	int crashed; /* of them, ended by a signal or left records torn */
	struct lt_consumer_stats ch[LT_PROTO_MAX_CHANNELS];
	uint64_t patterns_unmatched; /* bit i: rule i matched no event */
	int snapshots; /* taken into DIR/snapshot-N */
	int triggers, triggers_held; /* received; ignored in a hold-off */
	int stopped; /* by `lowtrace stop` or a trigger */
	uint64_t kernel_events, kernel_lost, kernel_packets, kernel_bytes;
	int attached_exited; /* the -p process ended before the recording */
	int attached; /* running programs attached */
	int kernel_channel; /* whether the kernel channel was recorded */
	int per_user; /* the buffers were shared per user */
	int users; /* sets of per-user buffers */
};

/* Runs the command and records it; 0 or -errno (the trace may be partial). */
int lt_record_run(const struct lt_rec_options *o, struct lt_rec_result *res);

#endif
