/* SPDX-License-Identifier: MIT */
/*
 * pb.c - the protocol buffers encoder's out-of-line parts (pb.h): the
 * buffer's growth and the length of a nested message longer than 127
 * bytes.
 */
#include "analysis/pb.h"

#include <errno.h>
#include <stdlib.h>

int lt_pb_grow(struct lt_pb *b, size_t n)
{
	if (b->err)
		return -1;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2) {
			b->err = -ENOMEM;
			return -1;
		}
		cap *= 2;
	}
	uint8_t *p = realloc(b->p, cap);
	if (!p) {
		b->err = -ENOMEM;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

void lt_pb_free(struct lt_pb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void lt_pb_end_long(struct lt_pb *b, size_t mark, size_t n)
{
	/* one byte was reserved: move the body to make room for the rest */
	unsigned extra = lt_pb_varint_size(n) - 1;
	if (lt_pb_room(b, extra))
		return;
	memmove(b->p + mark + 1 + extra, b->p + mark + 1, n);
	lt_pb_put_varint(b->p + mark, n);
	b->len += extra;
}
