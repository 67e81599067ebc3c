/* SPDX-License-Identifier: MIT */
/*
 * test_record_kernel.c - `lowtrace record -k`: kernel tracepoints on the
 * same timeline as the program's own events.
 */
#include "lt_test.h"
#include "lt_tools.h"

#include <sys/stat.h>
#include <sys/syscall.h>

static void need_root(void)
{
	if (geteuid() != 0)
		LT_SKIP("kernel tracepoints need root");
}

#define MAX_LINES 20000

/* Cuts out into its lines, in place; how many (at most MAX_LINES). */
static int split_lines(char *out, char **lines)
{
	int n = 0;
	for (char *save = NULL, *l = strtok_r(out, "\n", &save);
	     l && n < MAX_LINES; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	return n;
}

/* The line index of the first line at or after from containing all of a
 * and b, or -1. */
static int find_line(char **lines, int n, int from, const char *a,
		     const char *b)
{
	for (int i = from < 0 ? n : from; i < n; i++)
		if (strstr(lines[i], a) && (!b || strstr(lines[i], b)))
			return i;
	return -1;
}

/*
 * The sleeper's sleeps, recorded with the system calls as the events
 * syscalls:sys_{enter,exit}_nanosleep or, raw, as raw_syscalls (which the
 * eBPF backend's typed programs write as packets at CLOCK_MONOTONIC ns):
 * each sleep's events in order among the user-space events around it.
 */
static void sleeps_in_order(int raw)
{
	need_root();
	lt_need_tool("babeltrace2");
	const char *dir = lt_tmpdir(raw ? "ktimeraw" : "ktime");
	char cmd[1200];
	int st;
	snprintf(
		cmd, sizeof(cmd),
		"%s/lowtrace record -o %s -k sched:sched_switch,%s "
		"-- %s/tests/progs/sleeper 2>&1",
		lt_test_build_dir(), dir,
		raw ? "raw_syscalls:sys_enter,raw_syscalls:sys_exit" :
		      "syscalls:sys_enter_nanosleep,syscalls:sys_exit_nanosleep",
		lt_test_build_dir());
	char *out = lt_run(cmd, &st);
	if (st != 0)
		LT_FAIL("record failed:\n%s", out);
	LT_ASSERT_CONTAINS(out, "Channel kernel (discard, 4 x 256K per CPU):");
	free(out);
	/* which path wrote the kernel's events: the eBPF programs' packets
	 * for typed events alone, the recorder's records otherwise */
	snprintf(cmd, sizeof(cmd),
		 "grep -E 'kernel_(backend|ring) =' %s/metadata", dir);
	out = lt_run(cmd, &st);
	if (strstr(out, "kernel_backend = \"bpf\"") && raw) {
		LT_ASSERT_CONTAINS(out, "kernel_ring = \"packets\"");
		free(out);
		/* the stream's times on the monotonic clock's block */
		snprintf(
			cmd, sizeof(cmd),
			"grep -c 'map = clock.lowtrace_mono.value' %s/metadata",
			dir);
		out = lt_run(cmd, &st);
		LT_ASSERT_CONTAINS(out, "4\n");
		free(out);
	} else {
		LT_ASSERT_CONTAINS(out, "kernel_ring = \"records\"");
		free(out);
	}
	snprintf(cmd, sizeof(cmd), "babeltrace2 %s 2>&1", dir);
	out = lt_run(cmd, &st);
	LT_ASSERT_EQ(st, 0);
	char *lines[MAX_LINES];
	int n = split_lines(out, lines);
	/* nothing but events: no warning */
	for (int i = 0; i < n; i++)
		if (lines[i][0] != '[')
			LT_FAIL("babeltrace2 printed more than events: %s",
				lines[i]);
	int at = find_line(lines, n, 0, "sleeper:before", NULL);
	LT_ASSERT_CMP(at, >=, 0);
	char tidf[64], prev[64], next[64];
	const char *t = strstr(lines[at], "tid = ");
	LT_ASSERT(t != NULL);
	int tid = atoi(t + 6);
	/* raw: the nanosleep among the system calls */
	if (raw)
		snprintf(tidf, sizeof(tidf),
			 "common_tid = %d, common_tgid = %d, id = %d,", tid,
			 tid, (int)SYS_nanosleep);
	else
		snprintf(tidf, sizeof(tidf), "common_tid = %d,", tid);
	snprintf(prev, sizeof(prev), "prev_pid = %d,", tid);
	snprintf(next, sizeof(next), "next_pid = %d,", tid);
	for (int i = 0; i < 5; i++) {
		char bi[64], ai[64];
		snprintf(bi, sizeof(bi), "i = %d,", i);
		snprintf(ai, sizeof(ai), "i = %d,", i);
		int b = find_line(lines, n, 0, "sleeper:before", bi);
		int e = find_line(lines, n, b,
				  raw ? "sys_enter:" : "sys_enter_nanosleep",
				  tidf);
		int so = find_line(lines, n, e, "sched_switch", prev);
		int x = find_line(lines, n, so,
				  raw ? "sys_exit:" : "sys_exit_nanosleep",
				  tidf);
		int a = find_line(lines, n, 0, "sleeper:after", ai);
		/* the switch back in, when recorded: a switch is recorded as
		 * the event of the task it leaves, so one from a task outside
		 * the process (the spinner keeps the CPU for it, but another
		 * task can come between) is not in the trace */
		int si = find_line(lines, n, so, "sched_switch", next);
		if (si > x)
			si = -1;
		if (b < 0 || e < 0 || so < 0 || x < 0 || a < 0 ||
		    !(b < e && e < so && so < x && x < a) ||
		    (si >= 0 && !(so < si && si < x)))
			LT_FAIL("sleep %d out of order: before %d, enter %d, "
				"switch out %d, in %d, exit %d, after %d",
				i, b, e, so, si, x, a);
	}
	free(out);
}

LT_TEST(test_user_and_kernel_events_share_one_timeline)
{
	sleeps_in_order(0);
}

LT_TEST(test_kernel_packets_share_the_user_events_timeline)
{
	sleeps_in_order(1);
}

LT_TEST(test_unknown_kernel_event_is_an_error_with_a_suggestion)
{
	need_root();
	char cmd[600], dir[400];
	int st;
	snprintf(dir, sizeof(dir), "%s/kbad", lt_tmpdir("kbad"));
	snprintf(cmd, sizeof(cmd),
		 "%s/lowtrace record -o %s -k sched:sched_swich -- true 2>&1",
		 lt_test_build_dir(), dir);
	char *out = lt_run(cmd, &st);
	LT_ASSERT_RESULT(st, LT_NONZERO, out,
			 "did you mean sched:sched_switch");
	free(out);
	/* refused before anything was recorded: no empty directory left */
	LT_ASSERT(access(dir, F_OK) != 0);
}

LT_TEST(test_list_kernel_tracepoints)
{
	need_root();
	char cmd[600];
	int st;
	snprintf(cmd, sizeof(cmd), "%s/lowtrace list --kernel 'sched:*' 2>&1",
		 lt_test_build_dir());
	char *out = lt_run(cmd, &st);
	LT_ASSERT_RESULT(st, 0, out, "sched:sched_switch\n");
	LT_ASSERT_NOT_CONTAINS(out, "irq:");
	free(out);
}

LT_TEST(test_kernel_flight_recorder_snapshot_holds_the_newest_scheduling)
{
	need_root();
	lt_need_tool("babeltrace2");
	const char *dir = lt_tmpdir("kfr");
	char cmd[1200], snap[400];
	int st;
	/* 300 sleeps of 1 ms before the trigger: far more scheduling than
	 * 4 x 4K per CPU holds; the program's events (and the trigger's) in
	 * a flight recorder that holds them all */
	snprintf(cmd, sizeof(cmd),
		 "%s/lowtrace record -o %s -k sched "
		 "--channel kernel:mode=overwrite,subbuf-size=4K,subbufs=4 "
		 "--channel default:mode=overwrite,subbuf-size=64K,subbufs=4 "
		 "-- %s/tests/progs/trig 1 0 300 2>&1",
		 lt_test_build_dir(), dir, lt_test_build_dir());
	char *out = lt_run(cmd, &st);
	LT_ASSERT_RESULT(st, 0, out,
			 "Channel kernel (overwrite, 4 x 4K per CPU)");
	LT_ASSERT_CONTAINS(out, "1 snapshots, 1 triggers");
	free(out);
	snprintf(snap, sizeof(snap), "%s/snapshot-0", dir);
	/* only the newest sub-buffers: at most 4 x 4K a CPU */
	for (int cpu = 0; cpu < 64; cpu++) {
		char f[500];
		struct stat sb;
		snprintf(f, sizeof(f), "%s/kernel_%d", snap, cpu);
		if (stat(f, &sb) == 0)
			LT_ASSERT_CMP((long long)sb.st_size, <=, 4 * 4096LL);
	}
	snprintf(cmd, sizeof(cmd), "babeltrace2 %s > /dev/null 2>&1", snap);
	out = lt_run(cmd, &st);
	LT_ASSERT_EQ(st, 0);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s/lowtrace view %s 2>&1",
		 lt_test_build_dir(), snap);
	out = lt_run(cmd, &st);
	LT_ASSERT_EQ(st, 0);
	/* the last sleep's step, the program's switch out in that sleep,
	 * then the trigger */
	char *lines[MAX_LINES];
	int n = split_lines(out, lines);
	int trig = find_line(lines, n, 0, "lowtrace:trigger", NULL);
	LT_ASSERT_CMP(trig, >, 0);
	int step = find_line(lines, n, 0, "trig:step", "i = 299 }");
	LT_ASSERT_CMP(step, >=, 0);
	LT_ASSERT_CMP(step, <, trig);
	int sw = find_line(lines, n, step, "sched:sched_switch",
			   "prev_comm = \"trig\"");
	LT_ASSERT_CMP(sw, >, step);
	LT_ASSERT_CMP(sw, <, trig);
	/* and not from the start: of the 300 sleeps' switches (far more
	 * than 4 x 4K a CPU), the oldest were overwritten */
	int switches = 0;
	for (int i = 0; i < n; i++)
		switches += strstr(lines[i], "sched:sched_switch") &&
			    strstr(lines[i], "prev_comm = \"trig\"");
	LT_ASSERT_CMP(switches, >, 0);
	LT_ASSERT_CMP(switches, <, 300);
	free(out);
	/* the whole trace holds every step, and the kernel channel's
	 * newest sub-buffers at the end */
	snprintf(cmd, sizeof(cmd), "%s/lowtrace view %s 2>&1",
		 lt_test_build_dir(), dir);
	out = lt_run(cmd, &st);
	LT_ASSERT_EQ(st, 0);
	LT_ASSERT_CONTAINS(out, "trig:step: { i = 0 }");
	LT_ASSERT_CONTAINS(out, "sched:sched_switch");
	free(out);
}

LT_TEST(test_channel_that_nothing_uses_is_refused)
{
	need_root();
	char prefix[600];
	snprintf(prefix, sizeof(prefix), "%s/lowtrace record -o %s",
		 lt_test_build_dir(), lt_tmpdir("kchan"));
	const struct lt_run_row rows[] = {
		{ "--channel ring:mode=overwrite -- true", LT_NONZERO,
		  "--channel ring: no -e sends events to it" },
		{ "--channel kernel:mode=overwrite -- true", LT_NONZERO,
		  "--channel kernel: this recording has no kernel events" },
		{ "-e 'a:*@kernel' -k sched -- true", LT_NONZERO,
		  "the kernel channel holds the kernel's events" },
	};
	LT_ASSERT_RUN_ROWS(prefix, rows);
}
