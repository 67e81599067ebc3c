/*
 * sleeper.c - traces an event just before and just after each of a few
 * 1 ms nanosleep() calls, for the test that user and kernel events share
 * one timeline.
 */
#include <lowtrace/tracepoint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

LT_EVENT(sleeper, before, LT_INFO, LT_ARGS(int, i, int, tid),
	 LT_FIELDS(LT_FIELD_INT(i, i) LT_FIELD_INT(tid, tid)))
LT_EVENT(sleeper, after, LT_INFO, LT_ARGS(int, i, int, tid),
	 LT_FIELDS(LT_FIELD_INT(i, i) LT_FIELD_INT(tid, tid)))

int main(void)
{
	int tid = (int)syscall(SYS_gettid);
	for (int i = 0; i < 5; i++) {
		struct timespec d = { 0, 1000000 };
		lt_trace(sleeper, before, i, tid);
		syscall(SYS_nanosleep, &d, NULL);
		lt_trace(sleeper, after, i, tid);
	}
	return 0;
}
