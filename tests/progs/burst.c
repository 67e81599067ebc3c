/* SPDX-License-Identifier: MIT */
/*
 * burst.c - traces numbered events in bursts and publishes, after each
 * lt_trace() returns, the last number committed, in a shared file, so that
 * a test can kill it at any moment and know what must be in the trace.
 *	burst FILE [EVENTS]
 * The file holds: pid, then the last committed sequence number + 1.
 */
#include <fcntl.h>
#include <lowtrace/tracepoint.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

LT_EVENT(burst, seq, LT_INFO, LT_ARGS(uint64_t, seq, const char *, pad),
	 LT_FIELDS(LT_FIELD_INT(seq, seq) LT_FIELD_STRING(pad, pad)))

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	uint64_t limit = argc > 2 ? strtoull(argv[2], NULL, 10) : UINT64_MAX;
	int fd = open(argv[1], O_RDWR | O_CREAT, 0644);
	if (fd < 0 || ftruncate(fd, 16) < 0)
		return 3;
	volatile uint64_t *shared =
		mmap(NULL, 16, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shared == MAP_FAILED)
		return 4;
	shared[0] = (uint64_t)getpid();
	for (uint64_t i = 0; i < limit; i++) {
		lt_trace(burst, seq, i, i % 7 ? "x" : "a longer string");
		shared[1] = i + 1; /* committed: lt_trace has returned */
		if (i % 1000 == 999) {
			struct timespec d = { 0, 1000000 };
			nanosleep(&d, NULL);
		}
	}
	return 0;
}
