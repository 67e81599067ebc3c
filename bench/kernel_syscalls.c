/* SPDX-License-Identifier: MIT */
/*
 * kernel_syscalls.c - the system call workload of bench/kernel.sh: N
 * getppid() calls in a loop, each a sys_enter and a sys_exit and nothing
 * else, on one CPU (0 unless told otherwise), so that the cost of
 * tracing raw_syscalls shows as fewer calls per second.
 *
 * Usage: kernel_syscalls [CALLS [CPU]]   (defaults 1000000 and 0; CPU -1:
 *        no pinning)
 * Prints "calls_per_sec R" and "cpu_ns_per_call C" (user + system time of
 * this process over the calls) on stdout.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 1000000;
	int cpu = argc > 2 ? atoi(argv[2]) : 0;
	if (calls <= 0) {
		fprintf(stderr, "usage: kernel_syscalls [CALLS [CPU]]\n");
		return 2;
	}
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			perror("kernel_syscalls: sched_setaffinity");
			return 1;
		}
	}
	double c0 = cpu_s(), t0 = now_s();
	for (long i = 0; i < calls; i++)
		syscall(SYS_getppid); /* glibc caches nothing here */
	double t1 = now_s(), c1 = cpu_s();
	printf("calls_per_sec %.0f\n", (double)calls / (t1 - t0));
	printf("cpu_ns_per_call %.0f\n", (c1 - c0) * 1e9 / (double)calls);
	return 0;
}
