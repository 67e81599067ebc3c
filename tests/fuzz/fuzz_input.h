/*
 * fuzz_input.h - the input of the trace fuzz targets (fuzz_reader.c,
 * fuzz_analysis.c): a metadata text, a NUL byte, then the bytes of one
 * stream file (no NUL: all of it is metadata and the stream is empty).
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

static inline void fuzz_input_split(const uint8_t *data, size_t size,
				    struct fuzz_input *in)
{
	const uint8_t *z = memchr(data, 0, size);
	in->mlen = z ? (size_t)(z - data) : size;
	in->slen = z ? size - in->mlen - 1 : 0;
	in->meta = malloc(in->mlen ? in->mlen : 1);
	in->stream = malloc(in->slen ? in->slen : 1);
	if (!in->meta || !in->stream)
		abort();
	memcpy(in->meta, data, in->mlen);
	if (in->slen)
		memcpy(in->stream, z + 1, in->slen);
}

static inline void fuzz_input_free(struct fuzz_input *in)
{
	free(in->meta);
	free(in->stream);
}

#endif
