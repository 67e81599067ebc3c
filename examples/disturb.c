/* SPDX-License-Identifier: MIT */
/*
 * disturb.c - a load that delays examples/periodic, one kind per option:
 *
 *   --hog   threads (named "disturb-hog") pinned to --cpu that spin for
 *           --burst-ms (default 30) every --every-ms (default 100), at
 *           SCHED_FIFO priority 10 when permitted, else at nice -20, else
 *           at normal priority
 *   --io    bursts of writes with fsync() of a file under --dir (default
 *           /tmp) and reads of /proc, every --every-ms
 *
 * A lock held against the timer thread lives inside periodic
 * (periodic --lock-holder), as a lock is shared within one process.
 *
 *	build/examples/disturb --hog --cpu 1 --duration-s 2 &
 *	build/examples/periodic --cpu 1 --duration-s 2
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_MS 1000000ll

static atomic_int done;
static long burst_ms = 30, every_ms = 100;
static int cpu = -1;
static const char *dir = "/tmp";

static const char usage[] =
	"usage: disturb --hog|--io [--cpu N] [--threads N] [--burst-ms N]\n"
	"               [--every-ms N] [--duration-s S] [--dir DIR]\n"
	"  --hog          spin on --cpu (SCHED_FIFO when permitted)\n"
	"  --io           bursts of write+fsync under --dir and /proc reads\n"
	"  --threads N    hog threads (default 1)\n"
	"  --burst-ms N   length of a burst (default 30)\n"
	"  --every-ms N   one burst every N ms (default 100)\n"
	"  --duration-s S run for S seconds (default 2)\n";

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void sleep_until(int64_t ns)
{
	struct timespec t = { ns / 1000000000ll, ns % 1000000000ll };
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
}

/* SCHED_FIFO 10, else nice -20, else as is; returns what it got. */
static const char *raise_priority(void)
{
	struct sched_param sp = { .sched_priority = 10 };
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0)
		return "SCHED_FIFO 10";
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), -20) == 0)
		return "nice -20";
	return "normal priority";
}

static void *hog(void *arg)
{
	(void)arg;
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	const char *prio = raise_priority();
	printf("disturb: hog tid %ld on CPU %d at %s\n", syscall(SYS_gettid),
	       cpu, prio);
	fflush(stdout);
	int64_t next = now_ns();
	while (!atomic_load(&done)) {
		int64_t stop = next + burst_ms * NS_PER_MS;
		while (now_ns() < stop)
			;
		next += every_ms * NS_PER_MS;
		sleep_until(next);
	}
	return NULL;
}

static void *io(void *arg)
{
	char path[512], buf[4096];
	(void)arg;
	snprintf(path, sizeof(path), "%s/disturb-io-%d", dir, (int)getpid());
	memset(buf, 'x', sizeof(buf));
	printf("disturb: io tid %ld writing %s\n", syscall(SYS_gettid), path);
	fflush(stdout);
	int64_t next = now_ns();
	while (!atomic_load(&done)) {
		int64_t stop = next + burst_ms * NS_PER_MS;
		while (now_ns() < stop) {
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (fd < 0) {
				perror("disturb: open");
				return NULL;
			}
			for (int i = 0; i < 64; i++)
				if (write(fd, buf, sizeof(buf)) < 0)
					break;
			fsync(fd);
			close(fd);
			fd = open("/proc/interrupts", O_RDONLY);
			if (fd >= 0) {
				while (read(fd, buf, sizeof(buf)) > 0)
					;
				close(fd);
			}
		}
		next += every_ms * NS_PER_MS;
		sleep_until(next);
	}
	unlink(path);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hog", no_argument, NULL, 'g' },
		{ "io", no_argument, NULL, 'i' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "threads", required_argument, NULL, 'n' },
		{ "burst-ms", required_argument, NULL, 'b' },
		{ "every-ms", required_argument, NULL, 'e' },
		{ "duration-s", required_argument, NULL, 'd' },
		{ "dir", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	void *(*kind)(void *) = NULL;
	const char *kname = NULL;
	double duration_s = 2;
	int nthreads = 1, c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'g':
			kind = hog;
			kname = "disturb-hog";
			break;
		case 'i':
			kind = io;
			kname = "disturb-io";
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'n':
			nthreads = atoi(optarg);
			break;
		case 'b':
			burst_ms = atol(optarg);
			break;
		case 'e':
			every_ms = atol(optarg);
			break;
		case 'd':
			duration_s = atof(optarg);
			break;
		case 'D':
			dir = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (!kind || nthreads < 1 || nthreads > 64 || burst_ms <= 0 ||
	    every_ms <= burst_ms) {
		fputs(usage, stderr);
		return 2;
	}
	pthread_t th[64];
	for (int i = 0; i < nthreads; i++) {
		if (pthread_create(&th[i], NULL, kind, NULL) != 0) {
			fprintf(stderr, "disturb: pthread_create: %s\n",
				strerror(errno));
			return 1;
		}
		pthread_setname_np(th[i], kname);
	}
	struct timespec d = { (time_t)duration_s,
			      (long)((duration_s - (time_t)duration_s) * 1e9) };
	nanosleep(&d, NULL);
	atomic_store(&done, 1);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return 0;
}
