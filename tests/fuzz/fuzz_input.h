/* SPDX-License-Identifier: MIT */
/*
 * fuzz_input.h - the input of the trace fuzz targets (fuzz_reader.c,
 * fuzz_analysis.c): a metadata text, a NUL byte, then the bytes of one
 * stream file (no NUL: all of it is metadata and the stream is empty);
 * or packetized metadata (packets from the start, by their magic and
 * packet_size) directly followed by the stream file.
 * Both parts are copied to allocations of their exact size, so that
 * AddressSanitizer sees a read past either.
 */
#ifndef LT_FUZZ_INPUT_H
#define LT_FUZZ_INPUT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct fuzz_input {
	char *meta;
	size_t mlen;
	unsigned char *stream;
	size_t slen;
};

/* Packetized metadata: the bytes of the packets that follow one another
 * from the start (each's packet_size), up to the first that does not. */
static inline size_t fuzz_packetized_len(const uint8_t *d, size_t n)
{
	size_t off = 0;
	while (n - off >= 37) {
		const uint8_t *p = d + off;
		int le = p[0] == 0x57 && p[1] == 0x1d && p[2] == 0xd1 &&
			 p[3] == 0x75;
		int be = p[0] == 0x75 && p[1] == 0xd1 && p[2] == 0x1d &&
			 p[3] == 0x57;
		if (!le && !be)
			break;
		const uint8_t *q = p + 28;
		uint32_t bits =
			be ? (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 |
					(uint32_t)q[2] << 8 | q[3] :
			     (uint32_t)q[3] << 24 | (uint32_t)q[2] << 16 |
					(uint32_t)q[1] << 8 | q[0];
		if (bits / 8 < 37 || bits / 8 > n - off)
			return n; /* a bad packet: all of it is metadata */
		off += bits / 8;
	}
	return off;
}

static inline void fuzz_input_split(const uint8_t *data, size_t size,
				    struct fuzz_input *in)
{
	size_t plen = fuzz_packetized_len(data, size);
	if (plen) {
		/* packetized metadata: the stream follows its last packet */
		in->mlen = plen;
		in->slen = size - plen;
	} else {
		const uint8_t *z = memchr(data, 0, size);
		in->mlen = z ? (size_t)(z - data) : size;
		in->slen = z ? size - in->mlen - 1 : 0;
	}
	in->meta = malloc(in->mlen ? in->mlen : 1);
	in->stream = malloc(in->slen ? in->slen : 1);
	if (!in->meta || !in->stream)
		abort();
	memcpy(in->meta, data, in->mlen);
	if (in->slen)
		memcpy(in->stream, data + size - in->slen, in->slen);
}

static inline void fuzz_input_free(struct fuzz_input *in)
{
	free(in->meta);
	free(in->stream);
}

#endif
