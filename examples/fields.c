/* SPDX-License-Identifier: MIT */
/*
 * fields.c - emits one event of every field type, a few times over.
 *
 *	LOWTRACE_TRACE=/tmp/t build/examples/fields && babeltrace2 /tmp/t
 */
#include <stdio.h>
#include <stdlib.h>

#include "fields_tp.h"

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	for (int i = 0; i < rounds; i++) {
		lt_trace(demo, integers, (int8_t)(-100 + i), (uint8_t)(200 + i),
			 (int16_t)(-30000 + i), (uint16_t)(0xbeef + i),
			 -2000000000 + i, 0xdeadbeefu + (uint32_t)i,
			 -9000000000000000000ll + i,
			 18000000000000000000ull + (uint64_t)i);
		lt_trace(demo, mixed, i % 2 ? 1 : 7, 0.5f + (float)i,
			 3.141592653589793 * i,
			 i % 2 ? "odd" : "even \"quoted\"");
		uint8_t bytes[4] = { 1, 2, 3, (uint8_t)i };
		int16_t samples[5] = { -1, 2, -3, 4, -5 };
		char comm[16] = "worker";
		comm[6] = (char)('0' + i % 10);
		lt_trace(demo, arrays, bytes, samples, (uint32_t)(i % 6), comm);
		lt_trace(demo, tick);
	}
	printf("fields: emitted %d rounds of 4 events\n", rounds);
	return 0;
}
