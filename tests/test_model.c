/* SPDX-License-Identifier: MIT */
/*
 * test_model.c - the trace model's per-thread system call state, on a
 * recording of real system calls.
 */
#include "lt_test.h"
#include "lt_tools.h"

#include "analysis/model.h"

/* x86_64 numbers of the calls a `sleep` makes to wait */
#define NR_NANOSLEEP 35
#define NR_CLOCK_NANOSLEEP 230

LT_TEST(test_threads_are_in_the_system_call_they_entered)
{
	if (geteuid() != 0)
		LT_SKIP("kernel tracepoints need root");
	const char *dir = lt_tmpdir("model-sys");
	char cmd[1200];
	int st;
	snprintf(cmd, sizeof(cmd),
		 "%s/lowtrace record -o %s -k sched,syscalls -- sh -c "
		 "'sleep 0.03; sleep 0.03; sleep 0.03' 2>&1",
		 lt_test_build_dir(), dir);
	char *out = lt_run(cmd, &st);
	if (st != 0)
		LT_FAIL("record failed:\n%s", out);
	free(out);

	lt_reader_t *t;
	char err[256];
	LT_ASSERT_EQ(lt_reader_open(dir, NULL, &t, err, sizeof(err)), 0);
	struct lt_model m;
	LT_ASSERT_EQ(lt_model_init(&m, t), 0);
	const struct lt_event *ev;
	int enters = 0, exits_matched = 0, long_sleeps = 0, rc;
	while ((rc = lt_reader_next(t, &ev)) == 1) {
		int64_t tid = -1, id = -1;
		int is_exit =
			strcmp(ev->cls->name, "raw_syscalls:sys_exit") == 0;
		if (is_exit && lt_event_int(ev, "common_tid", &tid) == 0 &&
		    lt_event_int(ev, "id", &id) == 0) {
			/* before the exit: the thread is in that call (the
			 * kernel gives id -1 on the way out of some, such as
			 * rt_sigreturn) */
			struct lt_thread *th =
				lt_model_thread(&m, (int32_t)tid);
			if (th && th->sys_since) {
				if (id >= 0)
					LT_ASSERT_EQ(th->sys_nr, id);
				LT_ASSERT_CMP(th->sys_since, <=, ev->ns);
				exits_matched++;
				if ((id == NR_NANOSLEEP ||
				     id == NR_CLOCK_NANOSLEEP) &&
				    ev->ns - th->sys_since >= 25000000)
					long_sleeps++;
			}
		}
		int kind = lt_model_feed(&m, ev);
		if (kind == LT_KEV_SYS_ENTER) {
			LT_ASSERT_EQ(lt_event_int(ev, "common_tid", &tid), 0);
			LT_ASSERT_EQ(lt_event_int(ev, "id", &id), 0);
			struct lt_thread *th =
				lt_model_thread(&m, (int32_t)tid);
			LT_ASSERT(th != NULL);
			LT_ASSERT_EQ(th->sys_nr, id);
			LT_ASSERT_EQ(th->sys_since, ev->ns);
			enters++;
		} else if (kind == LT_KEV_SYS_EXIT) {
			struct lt_thread *th =
				lt_model_thread(&m, (int32_t)tid);
			LT_ASSERT(th != NULL);
			LT_ASSERT_EQ(th->sys_nr, -1);
		}
	}
	LT_ASSERT_EQ(rc, 0);
	LT_ASSERT_CMP(enters, >, 10);
	LT_ASSERT_CMP(exits_matched, >, 10);
	/* the three sleeps of 30 ms, whichever call sleep(1) makes */
	LT_ASSERT_CMP(long_sleeps, >=, 3);
	lt_model_free(&m);
	lt_reader_close(t);
}
