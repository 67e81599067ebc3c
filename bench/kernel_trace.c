/* SPDX-License-Identifier: MIT */
/*
 * kernel_trace.c - records kernel events while a command runs, the way the
 * recorder drives src/tool/kernel/kernel.h: open the kernel channel, give
 * its ring to a consumer (a local buffer), start the command, wait, poll
 * and drain until it exits, flush, write the metadata.  The trace
 * directory then holds metadata and kernel_CPU files that babeltrace2
 * reads.  bench/kernel.sh uses it to measure tracing's cost.
 *
 * Usage: kernel_trace [-p] [-e PATTERN]... DIR CMD [ARGS...]
 *        (default pattern: the sched preset; -p: only the command's
 *        processes, as `lowtrace record` without --all; the backend:
 *        LOWTRACE_KERNEL_BACKEND, as for lowtrace record)
 * Prints the channel's counts on stderr; exits with the command's status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock/clock.h"
#include "format/metadata.h"
#include "kernel/kernel.h"
#include "session/consumer.h"

#define MAX_PATTERNS 64

struct out {
	struct lt_consumer cons;
	struct lt_consumer_buf buf;
	struct lt_consumer_stats st;
};

/* The ring is full: the consumer takes its complete sub-buffers. */
static void take_full(void *arg, uint32_t cpu)
{
	struct out *o = arg;
	(void)cpu;
	lt_consumer_drain_buf(&o->cons, &o->buf);
}

static int usage(void)
{
	fprintf(stderr,
		"usage: kernel_trace [-p] [-e PATTERN]... DIR CMD [ARGS...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *pats[MAX_PATTERNS];
	size_t npats = 0;
	int i = 1, rc, status = 0, only_cmd = 0, go[2];
	char err[512];
	struct lt_kernel *k;
	static struct out o;

	if (i < argc && strcmp(argv[i], "-p") == 0) {
		only_cmd = 1;
		i++;
	}
	for (; i + 1 < argc && strcmp(argv[i], "-e") == 0; i += 2)
		if (npats < MAX_PATTERNS)
			pats[npats++] = argv[i + 1];
	if (argc - i < 2)
		return usage();
	if (!npats)
		pats[npats++] = "sched";
	const char *dir = argv[i];
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "lowtrace: cannot create %s: %s\n", dir,
			strerror(errno));
		return 1;
	}
	struct lt_kernel_options opt = { .stream_id = 0, .flush_ms = 1000 };
	static const pid_t none = -1; /* until the command's pid is known */
	if (only_cmd) {
		opt.pids = &none;
		opt.npids = 1;
	}
	lt_ctf_uuid_make(opt.uuid);
	rc = lt_kernel_open(pats, npats, &opt, &k, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	lt_consumer_init(&o.cons, dir, opt.uuid, 0);
	o.buf = (struct lt_consumer_buf){ .ring = lt_kernel_ring(k),
					  .channel = "kernel",
					  .stream_id = opt.stream_id,
					  .local = 1,
					  .st = &o.st };
	if (lt_consumer_add(&o.cons, &o.buf)) {
		fprintf(stderr, "lowtrace: out of memory\n");
		return 1;
	}
	/* the command starts once its pid is in the filter */
	if (pipe(go) < 0) {
		perror("lowtrace: pipe");
		return 1;
	}
	pid_t child = fork();
	if (child < 0) {
		perror("lowtrace: fork");
		return 1;
	}
	if (child == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) < 0)
			_exit(127);
		close(go[0]);
		execvp(argv[i + 1], argv + i + 1);
		fprintf(stderr, "lowtrace: cannot run %s: %s\n", argv[i + 1],
			strerror(errno));
		_exit(127);
	}
	close(go[0]);
	if (only_cmd)
		lt_kernel_add_pid(k, child);
	close(go[1]);
	for (;;) {
		pid_t w = waitpid(child, &status, WNOHANG);
		if (w == child)
			break;
		lt_kernel_wait(k, 100);
		rc = lt_kernel_poll(k, take_full, &o);
		if (rc < 0) {
			fprintf(stderr,
				"lowtrace: reading the perf rings: %s\n",
				strerror(-rc));
			break;
		}
		lt_consumer_drain(&o.cons);
	}
	if (waitpid(child, &status, 0) < 0 && errno != ECHILD)
		perror("lowtrace: waitpid");
	rc = lt_kernel_flush(k, take_full, &o);
	if (rc < 0)
		fprintf(stderr, "lowtrace: reading the perf rings: %s\n",
			strerror(-rc));
	lt_consumer_finish(&o.cons);

	struct lt_ctf_stream s = {
		0, "kernel", NULL, 0, 0, lt_kernel_packets(k)
	};
	lt_kernel_events(k, &s.events, &s.nevents);
	struct lt_ctf_trace t = {
		.hostname = "localhost",
		.procname = "kernel_trace",
		.pid = (int)getpid(),
		.clock = lt_clock_calib,
		.clock_source = lt_clock_source_name(),
		.streams = &s,
		.nstreams = 1,
	};
	memcpy(t.uuid, opt.uuid, 16);
	rc = lt_ctf_metadata_write(dir, &t);
	if (rc)
		fprintf(stderr, "lowtrace: cannot write %s/metadata: %s\n", dir,
			strerror(-rc));
	struct lt_kernel_stats st;
	struct rusage ru;
	lt_kernel_get_stats(k, &st);
	getrusage(RUSAGE_SELF, &ru); /* this process only: the consumer */
	double cpu_s =
		(double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
		((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) *
			1e-6;
	fprintf(stderr,
		"kernel_trace: %s (%s), %llu samples, %llu events, %llu lost in "
		"perf, %llu lost in the ring, %llu clamped, %llu packets, %llu "
		"bytes, consumer %.3f s of CPU (%.0f ns an event)\n",
		lt_kernel_backend(k, NULL),
		lt_kernel_packets(k) ? "packets" : "records",
		(unsigned long long)st.samples, (unsigned long long)st.events,
		(unsigned long long)st.lost_perf,
		(unsigned long long)st.lost_ring,
		(unsigned long long)st.clamped,
		(unsigned long long)o.st.packets,
		(unsigned long long)o.st.bytes, cpu_s,
		st.events ? cpu_s * 1e9 / (double)st.events : 0.0);
	lt_consumer_destroy(&o.cons);
	lt_kernel_close(k);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
