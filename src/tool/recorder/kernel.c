/* SPDX-License-Identifier: MIT */
/*
 * kernel.c - a recording's kernel channel (kernel/kernel.h): the
 * tracepoints of -k, the uprobes of -u and --probe and the kprobes it
 * creates (kernel/dynevent.h), its ring a local buffer of the consumer
 * (which writes kernel_CPU as it writes the programs' streams), and,
 * without --all, the command's process tree it keeps (grown from /proc
 * as from sched_process_fork) with each process's command line for the
 * metadata.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/dynevent.h"
#include "kernel/kernel.h"
#include "recorder/apps.h"
#include "recorder/rec.h"
#include "recorder/recorder.h"

/* The kernel channel's ring is full: its consumer takes what is complete. */
static void kernel_full(void *arg, uint32_t cpu)
{
	struct rec *R = arg;
	(void)cpu;
	lt_consumer_drain_buf(&R->cons, &R->kbuf);
}

/* One look through /proc: adds the processes whose parent is kept;
 * returns how many. */
static int add_children(struct rec *R)
{
	int added = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid <= 0 || lt_kernel_has_pid(R->kern, pid))
			continue;
		int ppid = rec_parent_of(pid);
		if (ppid > 0 && lt_kernel_has_pid(R->kern, ppid)) {
			lt_kernel_add_pid(R->kern, pid);
			added++;
		}
	}
	if (d)
		closedir(d);
	return added;
}

/* Reads the command line of each process of the tree, for the metadata;
 * a process gone keeps its last one. */
static void read_cmdlines(struct rec *R)
{
	const pid_t *pids;
	size_t n = lt_kernel_pids(R->kern, &pids);
	for (size_t i = 0; i < n; i++) {
		char buf[160];
		int len;
		if (pids[i] <= 0 ||
		    (len = lt_apps_cmdline(pids[i], buf, sizeof(buf))) < 0)
			continue;
		int k = 0;
		while (k < R->ncmds && R->cmds[k].pid != pids[i])
			k++;
		if (k == R->ncmds) {
			if (R->ncmds == MAX_CMDLINES)
				continue;
			R->ncmds++;
		}
		R->cmds[k].pid = pids[i];
		memcpy(R->cmds[k].text, buf, (size_t)len + 1);
	}
}

/*
 * Without --all the kernel channel keeps the command's process tree:
 * the processes that joined, and now and then those whose parent is kept
 * (found in /proc; a child is missed until the next look).
 */
static void track_tree(struct rec *R)
{
	if (!R->kern || R->o->kernel_all ||
	    rec_now_ms() - R->last_scan_ms < 100)
		return;
	R->last_scan_ms = rec_now_ms();
	for (int round = 0; round < 4 && add_children(R); round++)
		;
	read_cmdlines(R);
}

static void print_err(const char *what, const char *err, int rc)
{
	const char *m = err[0] ? err : strerror(-rc);
	if (strncmp(m, "lowtrace: ", 10) == 0)
		m += 10;
	fprintf(stderr, "lowtrace: record: %s%s\n", what, m);
}

/* 1 if a -k item is a kprobe (a dynamic event), not a tracepoint. */
static int is_kprobe(const char *p)
{
	return strncmp(p, "kprobe:", 7) == 0 ||
	       strncmp(p, "kretprobe:", 10) == 0;
}

/* The uprobes and kprobes, created before the kernel channel reads
 * tracefs's events. */
static int open_dynamic(struct rec *R, const char **kprobes, size_t nk)
{
	char err[1024] = "";
	const struct lt_rec_options *o = R->o;
	struct lt_dyn_spec ds = {
		.usdt = o->usdt,
		.nusdt = (size_t)o->nusdt,
		.funcs = o->probes,
		.nfuncs = (size_t)o->nprobes,
		.kprobes = kprobes,
		.nkprobes = nk,
		.prog = o->argv ? o->argv[0] : NULL,
		.pid = o->attach_pid,
	};
	int rc = lt_dyn_create(&ds, &R->dyn, err, sizeof(err));
	if (rc)
		print_err("", err, rc);
	return rc;
}

int rec_open_kernel(struct rec *R)
{
	char err[512] = "";
	static const pid_t none = -1; /* until the command's pid is known */
	const char *pats[66], *kprobes[64];
	size_t np = 0, nk = 0;
	for (int i = 0; i < R->o->nkernel; i++) {
		if (is_kprobe(R->o->kernel[i]))
			kprobes[nk++] = R->o->kernel[i];
		else
			pats[np++] = R->o->kernel[i];
	}
	int rc = open_dynamic(R, kprobes, nk);
	if (rc)
		return rc;
	if (lt_dyn_pattern(R->dyn))
		pats[np++] = lt_dyn_pattern(R->dyn);
	struct lt_kernel_options ko = {
		.stream_id = R->kernel_stream,
		.pid = (uint32_t)getpid(),
		.n_subbufs = R->o->kernel_channel.n_subbufs,
		.subbuf_size = (uint32_t)R->o->kernel_channel.subbuf_size,
		.overwrite = R->o->kernel_channel.overwrite,
		.flush_ms = R->o->switch_ms,
		.pids = R->o->kernel_all ? NULL : &none,
		.npids = R->o->kernel_all ? 0 : 1,
		.backend = R->o->kernel_backend,
	};
	lt_dyn_aliases(R->dyn, &ko.aliases, &ko.naliases);
	memcpy(ko.uuid, R->uuid, 16);
	rc = lt_kernel_open(pats, np, &ko, &R->kern, err, sizeof(err));
	if (rc) {
		print_err("-k: ", err, rc);
		return rc;
	}
	const char *why;
	lt_kernel_backend(R->kern, &why);
	if (why)
		fprintf(stderr,
			"lowtrace: record: kernel events through perf, not "
			"eBPF: %s\n",
			why);
	if (R->o->attach_pid > 0) {
		/* the process and the children it has now; forks from here
		 * on are followed by the kernel channel */
		lt_kernel_add_pid(R->kern, R->o->attach_pid);
		for (int round = 0; round < 4 && add_children(R); round++)
			;
	}
	R->kbuf = (struct lt_consumer_buf){
		.ring = lt_kernel_ring(R->kern),
		.channel = "kernel",
		.stream_id = R->kernel_stream,
		.overwrite = R->o->kernel_channel.overwrite,
		.local = 1,
		.st = &R->kst,
	};
	return lt_consumer_add(&R->cons, &R->kbuf);
}

void rec_close_kernel(struct rec *R)
{
	if (!R->kern)
		return;
	struct lt_kernel_stats ks;
	lt_kernel_get_stats(R->kern, &ks);
	R->res->kernel_events = ks.events;
	R->res->kernel_lost = lt_kernel_lost(R->kern);
	R->res->kernel_packets = R->kst.packets;
	R->res->kernel_bytes = R->kst.bytes;
	lt_kernel_close(R->kern);
}

void rec_poll_kernel(struct rec *R)
{
	if (!R->kern)
		return;
	lt_kernel_poll(R->kern, kernel_full, R);
	track_tree(R);
}

/* Before a snapshot: the samples the perf rings hold, the open
 * sub-buffers closed, for the consumer to copy. */
void rec_kernel_snapshot(struct rec *R)
{
	lt_kernel_snapshot(R->kern);
}

/* The end: the command lines last seen, what the perf rings still hold
 * into the ring, which the consumer's end then writes. */
void rec_finish_kernel(struct rec *R)
{
	if (!R->o->kernel_all)
		read_cmdlines(R);
	lt_kernel_flush(R->kern, kernel_full, R);
}
