/* SPDX-License-Identifier: MIT */
/*
 * metadata.c - a recording's metadata: the consumer's stream classes, the
 * kernel's, and the env of the trace (each process's command name, the
 * command lines of the kernel channel's process tree), for the trace and
 * for each snapshot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel/kernel.h"
#include "recorder/rec.h"
#include "recorder/recorder.h"

int rec_write_metadata_to(struct rec *R, const char *dir, int only_overwrite)
{
	char *env_store = calloc((size_t)(R->nprocs + R->ncmds) + 1, 64);
	const char **env =
		calloc((size_t)(R->nprocs + R->ncmds) * 2 + 4, sizeof(*env));
	uint32_t ne = 0;
	int rc = -ENOMEM;

	if (!env_store || !env)
		goto out;
	for (int i = 0; i < R->nprocs; i++) {
		struct rproc *p = R->procs[i];
		if (!p->buf[0].ring && !p->u)
			continue; /* a control client, or not yet joined */
		char *name = env_store + (size_t)i * 64;
		snprintf(name, 64, "process_%d_%d", p->pid, p->gen);
		env[ne * 2] = name;
		env[ne * 2 + 1] = p->comm;
		ne++;
	}
	/* cmdline_PID: what the analyses say of a process besides its
	 * command name */
	for (int i = 0; i < R->ncmds; i++) {
		char *name = env_store + (size_t)(R->nprocs + i) * 64;
		snprintf(name, 64, "cmdline_%d", R->cmds[i].pid);
		env[ne * 2] = name;
		env[ne * 2 + 1] = R->cmds[i].text;
		ne++;
	}
	struct lt_ctf_stream kernel = {
		R->kernel_stream, "kernel", NULL, 0, 0, 0
	};
	if (R->kern) {
		lt_kernel_events(R->kern, &kernel.events, &kernel.nevents);
		kernel.mono_clock = lt_kernel_packets(R->kern);
		/* how they reached the trace: packets written by the eBPF
		 * programs, or records re-encoded by the recorder */
		env[ne * 2] = "kernel_ring";
		env[ne * 2 + 1] =
			lt_kernel_packets(R->kern) ? "packets" : "records";
		ne++;
		/* how the kernel's events were taken: bpf or perf */
		env[ne * 2] = "kernel_backend";
		env[ne * 2 + 1] = lt_kernel_backend(R->kern, NULL);
		ne++;
	}
	struct rproc *first = R->nprocs ? R->procs[0] : NULL;
	struct lt_consumer_meta m = {
		.hostname = R->hostname,
		.procname = first ? first->comm : "none",
		.pid = first ? first->pid : 0,
		.more = &kernel,
		.nmore = R->kern &&
			 (!only_overwrite || R->o->kernel_channel.overwrite),
		.env_extra = env,
		.nenv_extra = ne,
	};
	rc = lt_consumer_write_metadata(&R->cons, dir, only_overwrite, &m);
out:
	free(env_store);
	free(env);
	return rc;
}

int rec_write_metadata(struct rec *R)
{
	R->meta_dirty = 0;
	return rec_write_metadata_to(R, R->o->dir, 0);
}
