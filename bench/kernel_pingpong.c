/* SPDX-License-Identifier: MIT */
/*
 * kernel_pingpong.c - the workload of bench/kernel.sh: two threads pass one
 * byte back and forth through a pair of pipes, N round trips.  Every trip
 * blocks and wakes each thread once, so it is dense in scheduler events
 * (sched_switch, sched_waking, sched_wakeup): the cost of tracing them
 * shows as fewer round trips per second.
 *
 * Both threads run on one CPU (CPU 0 unless told otherwise): each trip is
 * then exactly two context switches and two wakeups on that CPU, and the
 * rate does not swing with where the scheduler happens to place the
 * threads.  A tracer's consumer runs on the other CPUs.
 *
 * Usage: kernel_pingpong [ROUND_TRIPS [CPU]]   (defaults 200000 and 0;
 *        CPU -1: no pinning)
 * With PINGPONG_GO=FILE in the environment, the trips start once FILE
 * exists (a recorder attaching with -p PID is ready by then).
 * Prints "round_trips_per_sec R" and "cpu_ns_per_trip C" (user + system
 * time of this process over the trips, which other load on the machine
 * disturbs less than the wall clock) on stdout.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];
static long trips;

static void xread(int fd, char *c)
{
	while (read(fd, c, 1) != 1) {
		if (errno != EINTR) {
			perror("kernel_pingpong: read");
			exit(1);
		}
	}
}

static void xwrite(int fd, const char *c)
{
	while (write(fd, c, 1) != 1) {
		if (errno != EINTR) {
			perror("kernel_pingpong: write");
			exit(1);
		}
	}
}

static void *echo_main(void *arg)
{
	char c;
	(void)arg;
	for (long i = 0; i < trips; i++) {
		xread(ping[0], &c);
		xwrite(pong[1], &c);
	}
	return NULL;
}

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
	pthread_t th;
	char c = 'x';

	trips = argc > 1 ? atol(argv[1]) : 200000;
	int cpu = argc > 2 ? atoi(argv[2]) : 0;
	if (trips <= 0 || pipe(ping) < 0 || pipe(pong) < 0) {
		fprintf(stderr, "usage: kernel_pingpong [ROUND_TRIPS [CPU]]\n");
		return 2;
	}
	if (cpu >= 0) {
		/* the thread created below inherits the mask */
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			perror("kernel_pingpong: sched_setaffinity");
			return 1;
		}
	}
	if (pthread_create(&th, NULL, echo_main, NULL) != 0) {
		fprintf(stderr, "kernel_pingpong: cannot create a thread\n");
		return 1;
	}
	const char *go = getenv("PINGPONG_GO");
	while (go && access(go, F_OK) != 0)
		usleep(10000);
	double c0 = cpu_s(), t0 = now_s();
	for (long i = 0; i < trips; i++) {
		xwrite(ping[1], &c);
		xread(pong[0], &c);
	}
	double t1 = now_s();
	pthread_join(th, NULL);
	double c1 = cpu_s();
	printf("round_trips_per_sec %.0f\n", (double)trips / (t1 - t0));
	printf("cpu_ns_per_trip %.0f\n", (c1 - c0) * 1e9 / (double)trips);
	return 0;
}
