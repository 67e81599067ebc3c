/* SPDX-License-Identifier: MIT */
/*
 * ticker.c - traces numbered events in a loop, for the tests that attach
 * to a running program (tests/test_attach.sh).
 *	ticker PERIOD_US [COUNT]
 * Traces ticker:tick (seq = 0, 1, ...) every PERIOD_US microseconds, COUNT
 * times or until SIGTERM or SIGINT, then prints "ticks N" (how many it
 * traced) and exits 0.  On SIGUSR1 it forks a child that traces 50
 * ticker:forked events and then execs this program for 1000 ticks.
 */
#include <lowtrace/tracepoint.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

LT_EVENT(ticker, tick, LT_INFO, LT_ARGS(uint64_t, seq),
	 LT_FIELDS(LT_FIELD_INT(seq, seq)))
LT_EVENT(ticker, forked, LT_INFO, LT_ARGS(uint64_t, seq),
	 LT_FIELDS(LT_FIELD_INT(seq, seq)))

static volatile sig_atomic_t stop, fork_now;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	fork_now = 1;
}

static void pause_us(long us)
{
	struct timespec d = { us / 1000000, (us % 1000000) * 1000 };
	nanosleep(&d, NULL);
}

static void child(const char *self, long period)
{
	for (uint64_t i = 0; i < 50; i++) {
		lt_trace(ticker, forked, i);
		pause_us(period);
	}
	char p[32];
	snprintf(p, sizeof(p), "%ld", period);
	execl(self, self, p, "1000", (char *)NULL);
	_exit(127);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long period = strtol(argv[1], NULL, 10);
	uint64_t count = argc > 2 ? strtoull(argv[2], NULL, 10) : UINT64_MAX;
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	signal(SIGUSR1, on_usr1);
	uint64_t i;
	for (i = 0; i < count && !stop; i++) {
		lt_trace(ticker, tick, i);
		if (fork_now) {
			fork_now = 0;
			if (fork() == 0)
				child(argv[0], period);
		}
		pause_us(period);
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	printf("ticks %llu\n", (unsigned long long)i);
	return 0;
}
