/* SPDX-License-Identifier: MIT */
/*
 * sleeper.c - traces an event just before and just after each of a few
 * 1 ms nanosleep() calls, for the test that user and kernel events share
 * one timeline.  A low-priority thread spins on the same CPU meanwhile, so
 * that the CPU is never idle: the kernel does not always report the
 * switch from the idle task back to the sleeper, and from a busy thread
 * it does.
 */
#define _GNU_SOURCE
#include <lowtrace/tracepoint.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

LT_EVENT(sleeper, before, LT_INFO, LT_ARGS(int, i, int, tid),
	 LT_FIELDS(LT_FIELD_INT(i, i) LT_FIELD_INT(tid, tid)))
LT_EVENT(sleeper, after, LT_INFO, LT_ARGS(int, i, int, tid),
	 LT_FIELDS(LT_FIELD_INT(i, i) LT_FIELD_INT(tid, tid)))

static atomic_int done;

static void pin0(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *spin(void *arg)
{
	(void)arg;
	pin0();
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	while (!atomic_load_explicit(&done, memory_order_relaxed))
		;
	return NULL;
}

int main(void)
{
	int tid = (int)syscall(SYS_gettid);
	pthread_t t;
	pin0();
	pthread_create(&t, NULL, spin, NULL);
	for (int i = 0; i < 5; i++) {
		struct timespec d = { 0, 1000000 };
		lt_trace(sleeper, before, i, tid);
		syscall(SYS_nanosleep, &d, NULL);
		lt_trace(sleeper, after, i, tid);
	}
	atomic_store(&done, 1);
	pthread_join(t, NULL);
	return 0;
}
