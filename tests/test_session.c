/* SPDX-License-Identifier: MIT */
/*
 * test_session.c - in-process sessions write traces that babeltrace2 reads.
 */
#include "lt_test.h"
#include "lt_tools.h"

#include <dirent.h>
#include <lowtrace/lowtrace.h>
#include <lowtrace/tracepoint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "../examples/fields_tp.h"

static lt_session_t *make(const char *dir, unsigned switch_ms)
{
	int err = 0;
	struct lt_session_options o = { .switch_timer_ms = switch_ms };
	lt_session_t *s = lt_session_create(dir, &o, &err);
	if (!s)
		LT_FAIL("lt_session_create: %s", lt_strerror(err));
	return s;
}

static char *babeltrace(const char *dir, int *lines)
{
	char cmd[600];
	lt_need_tool("babeltrace2");
	/* stderr joins stdout: a warning shows as an extra line */
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' 2>&1", dir);
	int st;
	char *out = lt_run(cmd, &st);
	if (st != 0)
		LT_FAIL("babeltrace2 failed (%d):\n%s", st, out);
	if (lines)
		*lines = lt_count_lines(out, NULL);
	return out;
}

static off_t stream_bytes(const char *dir)
{
	DIR *d = opendir(dir);
	off_t total = 0;
	struct dirent *e;
	LT_ASSERT(d != NULL);
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "default_", 8) != 0)
			continue;
		char p[600];
		struct stat st;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (stat(p, &st) == 0)
			total += st.st_size;
	}
	closedir(d);
	return total;
}

LT_TEST(test_session_trace_is_read_by_babeltrace2_without_warnings)
{
	const char *dir = lt_tmpdir("session");
	lt_session_t *s = make(dir, 0);
	LT_ASSERT_EQ(lt_session_enable(s, "demo:*", NULL, NULL), 0);
	LT_ASSERT_EQ(lt_session_start(s), 0);
	for (int i = 0; i < 1000; i++) {
		lt_trace(demo, integers, 1, 2, 3, 4, 5, 6, 7, (uint64_t)i);
		lt_trace(demo, mixed, i & 1, 0.25f, 1.5, "name");
	}
	LT_ASSERT_EQ(lt_session_stop(s), 0);
	int lines;
	char *out = babeltrace(dir, &lines);
	LT_ASSERT_EQ(lines, 2000);
	LT_ASSERT_EQ(lt_count_lines(out, "demo:integers"), 1000);
	LT_ASSERT_CONTAINS(out, "u64 = 999 }");
	LT_ASSERT_CONTAINS(out, "name = \"name\"");
	free(out);
	lt_session_destroy(s);
}

LT_TEST(test_switch_timer_flushes_a_quiet_program)
{
	const char *dir = lt_tmpdir("quiet");
	lt_session_t *s = make(dir, 50);
	LT_ASSERT_EQ(lt_session_enable(s, "demo:tick", NULL, NULL), 0);
	LT_ASSERT_EQ(lt_session_start(s), 0);
	lt_trace(demo, tick);
	/* one event, far from filling a sub-buffer, reaches disk anyway */
	for (int i = 0; i < 100 && stream_bytes(dir) == 0; i++) {
		struct timespec d = { 0, 20000000 };
		nanosleep(&d, NULL);
	}
	LT_ASSERT_CMP(stream_bytes(dir), >, 0);
	LT_ASSERT_EQ(lt_session_stop(s), 0);
	int lines;
	free(babeltrace(dir, &lines));
	LT_ASSERT_EQ(lines, 1);
	lt_session_destroy(s);
}

LT_TEST(test_overwrite_channel_keeps_the_newest_events)
{
	const char *dir = lt_tmpdir("flight");
	lt_session_t *s = make(dir, 0);
	struct lt_channel_options ring = { .subbuf_size = 4096,
					   .n_subbufs = 4,
					   .overwrite = 1 };
	LT_ASSERT_EQ(lt_session_add_channel(s, "flight", &ring), 0);
	LT_ASSERT_EQ(lt_session_enable(s, "demo:integers", NULL, "flight"), 0);
	LT_ASSERT_EQ(lt_session_enable(s, "demo:tick", NULL, NULL), 0);
	LT_ASSERT_EQ(lt_session_start(s), 0);
	for (int i = 0; i < 100000; i++)
		lt_trace(demo, integers, 1, 2, 3, 4, 5, 6, 7, (uint64_t)i);
	lt_trace(demo, tick);
	LT_ASSERT_EQ(lt_session_stop(s), 0);
	int lines;
	char *out = babeltrace(dir, &lines);
	/* far fewer than written, the newest among them, and the tick */
	LT_ASSERT(lines > 50 && lines < 2000);
	LT_ASSERT_CONTAINS(out, "u64 = 99999 }");
	LT_ASSERT_NOT_CONTAINS(out, "u64 = 5 }");
	LT_ASSERT_EQ(lt_count_lines(out, "demo:tick"), 1);
	free(out);
	lt_session_destroy(s);
}

static long thread_faults(void)
{
	struct rusage u;
	getrusage(RUSAGE_THREAD, &u);
	return u.ru_minflt + u.ru_majflt;
}

/*
 * The buffers are in memory before the session starts: the first lap
 * through them (4 sub-buffers of 64 KiB, 16 pages a sub-buffer) costs
 * the traced thread no page fault.  Under AddressSanitizer its shadow
 * memory faults in as the ring is written: a bound instead.
 */
LT_TEST(test_first_lap_takes_no_page_fault)
{
	const char *dir = lt_tmpdir("faults");
	lt_session_t *s = make(dir, 0);
	struct lt_channel_options ring = { .subbuf_size = 65536,
					   .n_subbufs = 4 };
	LT_ASSERT_EQ(lt_session_add_channel(s, "lap", &ring), 0);
	LT_ASSERT_EQ(lt_session_enable(s, "demo:integers", NULL, "lap"), 0);
	LT_ASSERT_EQ(lt_session_start(s), 0);
	lt_trace(demo, integers, 1, 2, 3, 4, 5, 6, 7, 0);
	long f0 = thread_faults();
	/* about 48 bytes an event: 5000 events fill most of the first lap */
	for (int i = 1; i < 5000; i++)
		lt_trace(demo, integers, 1, 2, 3, 4, 5, 6, 7, (uint64_t)i);
	long faults = thread_faults() - f0;
	LT_ASSERT_EQ(lt_session_stop(s), 0);
	lt_session_destroy(s);
#if defined(__SANITIZE_THREAD__)
	/* ThreadSanitizer's shadow is larger than the ring it shadows */
	fprintf(stderr, "  %ld faults, not checked under ThreadSanitizer\n",
		faults);
#elif defined(__SANITIZE_ADDRESS__)
	fprintf(stderr, "  %ld faults (AddressSanitizer's shadow memory)\n",
		faults);
	LT_ASSERT_CMP(faults, <, 64);
#else
	LT_ASSERT_EQ(faults, 0);
#endif
}

LT_TEST(test_full_buffers_count_lost_events)
{
	const char *dir = lt_tmpdir("lossy");
	int err;
	struct lt_session_options o = { .channel = { .subbuf_size = 4096,
						     .n_subbufs = 2 } };
	lt_session_t *s = lt_session_create(dir, &o, &err);
	LT_ASSERT(s != NULL);
	LT_ASSERT_EQ(lt_session_enable(s, "demo:integers", NULL, NULL), 0);
	LT_ASSERT_EQ(lt_session_start(s), 0);
	for (int i = 0; i < 200000; i++)
		lt_trace(demo, integers, 1, 2, 3, 4, 5, 6, 7, (uint64_t)i);
	LT_ASSERT_EQ(lt_session_stop(s), 0);
	struct lt_session_stats st;
	lt_session_get_stats(s, &st);
	LT_ASSERT_CMP(st.events_lost, >, 0);
	char *out = babeltrace(dir, NULL);
	/* babeltrace2 reports the loss the packets record */
	LT_ASSERT_CONTAINS(out, "discarded");
	free(out);
	/* and counting its events needs stdout alone */
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' 2>/dev/null", dir);
	out = lt_run(cmd, NULL);
	int events = lt_count_lines(out, "demo:integers");
	if ((uint64_t)events + st.events_lost != 200000)
		LT_FAIL("%d read + %llu lost != 200000", events,
			(unsigned long long)st.events_lost);
	free(out);
	lt_session_destroy(s);
}

LT_TEST(test_lowtrace_trace_environment_traces_a_program)
{
	const char *dir = lt_tmpdir("env");
	char cmd[700];
	snprintf(cmd, sizeof(cmd),
		 "LOWTRACE_TRACE='%s' LOWTRACE_EVENTS='demo:integers,*:tick' "
		 "%s/examples/fields 5 2>&1",
		 dir, lt_test_build_dir());
	int st;
	char *out = lt_run(cmd, &st);
	LT_ASSERT_RESULT(st, 0, out, "emitted 5 rounds");
	free(out);
	int lines;
	out = babeltrace(dir, &lines);
	LT_ASSERT_EQ(lines, 10);
	LT_ASSERT_EQ(lt_count_lines(out, "demo:tick"), 5);
	free(out);
}

LT_TEST(test_bad_directory_is_an_error)
{
	int err = 0;
	LT_ASSERT(lt_session_create("/proc/no/such/dir", NULL, &err) == NULL);
	LT_ASSERT_CMP(err, <, 0);
	char cmd[700];
	snprintf(cmd, sizeof(cmd),
		 "LOWTRACE_TRACE=/proc/nope %s/examples/fields 1 2>&1",
		 lt_test_build_dir());
	int st;
	char *out = lt_run(cmd, &st);
	/* the program runs on, and says why it is not traced */
	LT_ASSERT_RESULT(st, 0, out, "LOWTRACE_TRACE=/proc/nope");
	free(out);
}
