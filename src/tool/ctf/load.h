/* SPDX-License-Identifier: MIT */
/*
 * load.h - loads of little-endian integers of 1 to 8 bytes from a trace's
 * bytes, and sign extension: what the decoder, the values and the
 * formatter read fields with.
 */
#ifndef LT_CTF_LOAD_H
#define LT_CTF_LOAD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/* Whether ld_uint_sel() reads a field of size bytes: 1, 2, 4 or 8. */
static inline int ld_sel_size(unsigned size)
{
	return size && size <= 8 && !(size & (size - 1));
}

/*
 * ld_uint() of 1, 2, 4 or 8 bytes without a branch on size: the loads
 * wider than the field read zeros instead (a field's size varies from one
 * field to the next, which a branch would mispredict).
 */
static inline uint64_t ld_uint_sel(const unsigned char *p, unsigned size)
{
	static const unsigned char zero[8];
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	memcpy(&u16, size >= 2 ? p : zero, 2);
	memcpy(&u32, size >= 4 ? p : zero, 4);
	memcpy(&u64, size >= 8 ? p : zero, 8);
	uint64_t u = p[0];
	u = size >= 2 ? u16 : u;
	u = size >= 4 ? u32 : u;
	return size >= 8 ? u64 : u;
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

/* The bytes of x that are 0, each as its top bit: the lowest one set is
 * the first 0 (a borrow sets bits only above a 0 byte). */
static inline uint64_t ld_zero_bytes(uint64_t x)
{
	return (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
}

#ifdef __SSE2__
/* The 0 bytes of the 16 at p, each as a bit (bit i: byte i). */
static inline uint64_t ld_nul_mask16(const unsigned char *p)
{
	const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	return (unsigned)_mm_movemask_epi8(
		_mm_cmpeq_epi8(v, _mm_setzero_si128()));
}
#endif

/*
 * memchr(p, 0, n): the end of a string field or of a text array.  A
 * string of fewer than 64 bytes (the usual) is found in line, in four
 * 16-byte compares made whatever its length (a branch on it would be
 * mispredicted in a mix of lengths), not by a call; so is the text of
 * an array of 16 to 63 bytes (a thread's name, 16) that ends in them, and
 * that of an array of 8 to 15 bytes, by two 8-byte loads within it.
 */
static inline const unsigned char *ld_find_nul(const unsigned char *p, size_t n)
{
	if (n - 8 < 8) {
		const uint64_t a = ld_zero_bytes(ld64(p));
		const uint64_t b = ld_zero_bytes(ld64(p + n - 8));
		if (a)
			return p + __builtin_ctzll(a) / 8;
		return b ? p + n - 8 + __builtin_ctzll(b) / 8 : NULL;
	}
#ifdef __SSE2__
	if (__builtin_expect(n >= 16, 1)) {
		uint64_t m = ld_nul_mask16(p);
		if (__builtin_expect(n >= 64, 1))
			m |= ld_nul_mask16(p + 16) << 16 |
			     ld_nul_mask16(p + 32) << 32 |
			     ld_nul_mask16(p + 48) << 48;
		else if (n >= 32)
			m |= ld_nul_mask16(p + 16) << 16;
		if (__builtin_expect(m != 0, 1))
			return p + __builtin_ctzll(m);
	}
#endif
	return memchr(p, 0, n);
}

/* ld_find_nul() where the 7 bytes before p are readable (lt_event.room):
 * an array of fewer than 8 bytes by the one load that ends on its last
 * byte, not by a call. */
static inline const unsigned char *ld_find_nul_room(const unsigned char *p,
						    size_t n)
{
	if (n - 1 < 7) {
		const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
		const uint64_t x = ld64(p + n - 8);
		/* each 0 byte as its top bit, exactly (no borrow: the bytes
		 * before p may be 0), then the array's bytes alone */
		const uint64_t zb =
			~(((x & lo7) + lo7) | x | lo7) >> (64 - 8 * n);
		return zb ? p + __builtin_ctzll(zb) / 8 : NULL;
	}
	return n ? ld_find_nul(p, n) : NULL;
}

static inline int64_t sext(uint64_t v, unsigned size)
{
	unsigned sh = 64 - 8 * size;
	return (int64_t)(v << sh) >> sh;
}

#endif
