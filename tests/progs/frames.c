/* SPDX-License-Identifier: MIT */
/*
 * frames.c - a traced program for filters and condition triggers: it
 * appends a line to FILE when main() starts (so a test can tell whether,
 * and how often, it ran), then traces N frames and N ticks, and idles
 * IDLE-MS before it ends.
 *	frames FILE N [IDLE-MS]
 * Frame i: seq = i, id = i % 7, late_us = (i % 10) * 1000, state BUSY for
 * odd i, name "render" for i % 3 == 0 else "audio".
 */
#include <lowtrace/tracepoint.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

LT_ENUM(myapp, state, LT_ENUM_VALUE("IDLE", 0) LT_ENUM_VALUE("BUSY", 1))

LT_EVENT(myapp, frame_done, LT_INFO,
	 LT_ARGS(uint32_t, seq, uint32_t, id, int64_t, late_us, int, state,
		 const char *, name),
	 LT_FIELDS(LT_FIELD_INT(seq, seq) LT_FIELD_INT(id, id)
			   LT_FIELD_INT(late_us, late_us)
				   LT_FIELD_ENUM(myapp, state, state, state)
					   LT_FIELD_STRING(name, name)))

LT_EVENT(myapp, tick, LT_INFO, LT_ARGS(uint32_t, seq),
	 LT_FIELDS(LT_FIELD_INT(seq, seq)))

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	FILE *f = fopen(argv[1], "a");
	if (!f)
		return 3;
	fputs("ran\n", f);
	fclose(f);
	uint32_t n = (uint32_t)strtoul(argv[2], NULL, 10);
	long idle = argc > 3 ? atol(argv[3]) : 0;
	for (uint32_t i = 0; i < n; i++) {
		lt_trace(myapp, frame_done, i, i % 7, (int64_t)(i % 10) * 1000,
			 (int)(i & 1), i % 3 == 0 ? "render" : "audio");
		lt_trace(myapp, tick, i);
	}
	struct timespec d = { idle / 1000, (idle % 1000) * 1000000 };
	nanosleep(&d, NULL);
	return 0;
}
