/* SPDX-License-Identifier: MIT */
/*
 * load.h - loads of little-endian integers of 1 to 8 bytes from a trace's
 * bytes, and sign extension: what the decoder, the values and the
 * formatter read fields with.
 */
#ifndef LT_CTF_LOAD_H
#define LT_CTF_LOAD_H

#include <stdint.h>
#include <string.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the reader decodes little-endian traces on little-endian hosts"
#endif

static inline uint32_t ld32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t ld64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t ld_uint(const unsigned char *p, unsigned size)
{
	switch (size) {
	case 1:
		return p[0];
	case 2: {
		uint16_t v;
		memcpy(&v, p, 2);
		return v;
	}
	case 4:
		return ld32(p);
	case 8:
		return ld64(p);
	default: {
		uint64_t v = 0;
		for (unsigned i = 0; i < size; i++)
			v |= (uint64_t)p[i] << (8 * i);
		return v;
	}
	}
}

/* A field of size bytes in either byte order (be: big-endian). */
static inline uint64_t ld_uint_bo(const unsigned char *p, unsigned size, int be)
{
	if (__builtin_expect(!be, 1))
		return ld_uint(p, size);
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v = v << 8 | p[i];
	return v;
}

static inline int64_t sext(uint64_t v, unsigned size)
{
	unsigned sh = 64 - 8 * size;
	return (int64_t)(v << sh) >> sh;
}

#endif
