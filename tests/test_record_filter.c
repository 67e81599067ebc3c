/* SPDX-License-Identifier: MIT */
/*
 * test_record_filter.c - `lowtrace record` with event filters and
 * condition triggers: a filter records exactly the matching events, a
 * filter that does not fit is refused before the command runs, and a
 * burst of matching events triggers one snapshot.
 */
#include "lt_test.h"
#include "lt_tools.h"

#include <sys/stat.h>

static char *record(const char *args, int *status)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "%s/lowtrace record %s 2>&1",
		 lt_test_build_dir(), args);
	return lt_run(cmd, status);
}

static char *bt(const char *dir)
{
	char cmd[600];
	lt_need_tool("babeltrace2");
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' 2>&1", dir);
	int st;
	char *out = lt_run(cmd, &st);
	if (st)
		LT_FAIL("babeltrace2 %s failed:\n%s", dir, out);
	return out;
}

/* The seq values of the lines with event, in order, as "a,b,c". */
static void seqs(const char *out, const char *event, char *buf, size_t cap)
{
	size_t n = 0;
	buf[0] = 0;
	for (const char *l = out; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		const char *s = memmem(l, len, "seq = ", 6);
		if (memmem(l, len, event, strlen(event)) && s && n < cap)
			n += (size_t)snprintf(buf + n, cap - n, "%s%lu",
					      n ? "," : "",
					      strtoul(s + 6, NULL, 10));
		l += len + (e ? 1 : 0);
	}
}

static int runs_of(const char *file)
{
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "cat '%s' 2>/dev/null", file);
	char *out = lt_run(cmd, NULL);
	int n = lt_count_lines(out, "ran");
	free(out);
	return n;
}

LT_TEST(test_record_filter_keeps_exactly_the_matching_events)
{
	const char *dir = lt_tmpdir("filt");
	char args[1024], ran[300], got[1024];
	int st;
	snprintf(ran, sizeof(ran), "%s.ran", dir);
	snprintf(args, sizeof(args),
		 "-o %s -e 'myapp:frame_done if late_us > 5000 && id != 3' "
		 "-e myapp:tick -- %s/tests/progs/frames %s 20",
		 dir, lt_test_build_dir(), ran);
	char *out = record(args, &st);
	LT_ASSERT_EQ(st, 0);
	free(out);
	/* the pre-flight ended before main: the program ran once */
	LT_ASSERT_EQ(runs_of(ran), 1);
	out = bt(dir);
	/* late_us = (i % 10) * 1000 > 5000, id = i % 7 != 3 */
	seqs(out, "myapp:frame_done", got, sizeof(got));
	LT_ASSERT_STREQ(got, "6,7,8,9,16,18,19");
	LT_ASSERT_EQ(lt_count_lines(out, "myapp:tick"), 20);
	free(out);
}

LT_TEST(test_record_filter_strings_enums_and_wildcards)
{
	const char *dir = lt_tmpdir("filt2");
	char args[1024], ran[300], got[1024];
	int st;
	snprintf(ran, sizeof(ran), "%s.ran", dir);
	/* myapp:tick has no state field: the wildcard rule skips it */
	snprintf(args, sizeof(args),
		 "-o %s -e 'myapp:* if (state == \"BUSY\" && name == \"ren*\") "
		 "|| seq == 0' -- %s/tests/progs/frames %s 20",
		 dir, lt_test_build_dir(), ran);
	char *out = record(args, &st);
	LT_ASSERT_EQ(st, 0);
	free(out);
	out = bt(dir);
	seqs(out, "myapp:frame_done", got, sizeof(got));
	LT_ASSERT_STREQ(got, "0,3,9,15");
	LT_ASSERT_EQ(lt_count_lines(out, "myapp:tick"), 0);
	free(out);
}

LT_TEST(test_record_unknown_field_is_refused_before_the_command_runs)
{
	const char *dir = lt_tmpdir("filtbad");
	char unknown[1024], type[1024], ran[300], prefix[300];
	struct stat sb;
	snprintf(ran, sizeof(ran), "%s.ran", dir);
	unlink(ran);
	snprintf(unknown, sizeof(unknown),
		 "-o %s/trace -e 'myapp:frame_done if latency > 5000' -- "
		 "%s/tests/progs/frames %s 20",
		 dir, lt_test_build_dir(), ran);
	/* a type that does not fit, and a trigger's filter, too */
	snprintf(type, sizeof(type),
		 "-o %s/trace --trigger 'myapp:* if name > 3 -> stop' -- "
		 "%s/tests/progs/frames %s 20",
		 dir, lt_test_build_dir(), ran);
	const struct lt_run_row bad[] = {
		{ unknown, 2,
		  "lowtrace: record: -e 'myapp:frame_done if latency > 5000': "
		  "unknown field 'latency' (myapp:frame_done has fields: seq, "
		  "id, late_us, state, name)" },
		{ type, 2,
		  "--trigger 'myapp:* if name > 3': field 'name' is a string" },
		/* bad syntax needs no program at all */
		{ "-e 'a:b if x ==' -- /no/such/program", 2,
		  "expected a number" },
	};
	snprintf(prefix, sizeof(prefix), "%s/lowtrace record",
		 lt_test_build_dir());
	LT_ASSERT_RUN_ROWS(prefix, bad);
	LT_ASSERT(stat(ran, &sb) != 0); /* main() never ran */
	snprintf(prefix, sizeof(prefix), "%s/trace", dir);
	LT_ASSERT(stat(prefix, &sb) != 0);
}

LT_TEST(test_record_condition_trigger_snapshots_once_per_burst)
{
	const char *dir = lt_tmpdir("ctrig");
	char args[1024], ran[300], snap[400];
	int st;
	snprintf(ran, sizeof(ran), "%s.ran", dir);
	/* 800 of the 2000 frames match, in bursts */
	snprintf(args, sizeof(args),
		 "-o %s --channel ring:subbuf-size=4K,subbufs=4,mode=overwrite "
		 "-e 'myapp:*@ring' --trigger-holdoff 60000 "
		 "--trigger 'myapp:frame_done if late_us > 5000 -> snapshot' "
		 "-- %s/tests/progs/frames %s 2000 300",
		 dir, lt_test_build_dir(), ran);
	char *out = record(args, &st);
	LT_ASSERT_RESULT(st, 0, out, "1 snapshots, 1 triggers (0 held off)");
	free(out);
	snprintf(snap, sizeof(snap), "%s/snapshot-0", dir);
	out = bt(snap);
	/* taken after the first matching frame (seq 6), asynchronously: it
	 * ends with that frame or a later one */
	char got[65536];
	seqs(out, "myapp:frame_done", got, sizeof(got));
	const char *last = strrchr(got, ',');
	LT_ASSERT(last && strtoul(last + 1, NULL, 10) >= 6);
	free(out);
	snprintf(snap, sizeof(snap), "%s/snapshot-1", dir);
	struct stat sb;
	LT_ASSERT(stat(snap, &sb) != 0);
	/* the matching events are recorded too, and the trigger's event */
	out = bt(dir);
	LT_ASSERT_CONTAINS(out, "seq = 1999, id = 4, late_us = 9000");
	LT_ASSERT_EQ(lt_count_lines(out, "lowtrace:trigger"), 1);
	free(out);
}

LT_TEST(test_record_condition_trigger_can_stop)
{
	const char *dir = lt_tmpdir("ctrigstop");
	char args[1024], ran[300];
	int st;
	snprintf(ran, sizeof(ran), "%s.ran", dir);
	snprintf(args, sizeof(args),
		 "-o %s --trigger 'myapp:tick if seq == 100 -> stop' -- "
		 "%s/tests/progs/frames %s 200 300",
		 dir, lt_test_build_dir(), ran);
	char *out = record(args, &st);
	LT_ASSERT_RESULT(st, 0, out, "recording stopped (trigger myapp:tick");
	free(out);
	out = bt(dir);
	LT_ASSERT_CONTAINS(out, "myapp:tick: { cpu_id = ");
	LT_ASSERT_CONTAINS(out, "seq = 100 }");
	free(out);
}
