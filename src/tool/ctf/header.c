/* SPDX-License-Identifier: MIT */
/*
 * header.c - reading a compiled header (header.h): integers of any size,
 * alignment and byte order, structs, and variants by their tag.
 */
#include "ctf/header.h"
#include "ctf/load.h"

#include <string.h>

uint64_t lt_hdr_bits_any(const unsigned char *b, uint64_t bit, unsigned size,
			 int be)
{
	const unsigned char *p = b + bit / 8;
	if (!(bit % 8) && !(size % 8)) {
		/* whole bytes, the common case: a load and a swap */
		uint64_t v = 0;
		unsigned n = size / 8;
		if (!be)
			return ld_uint(p, n); /* in line, not a memcpy() call */
		for (unsigned i = 0; i < n; i++)
			v = v << 8 | p[i];
		return v;
	}
	uint64_t first = bit / 8, last = (bit + size - 1) / 8;
	unsigned sh = (unsigned)(bit % 8);
	/* (the word that ends on its last byte: lt_hdr_bits()) */
	if (!be && last - first < 8) {
		/* the bytes holding it fit a word: the common bit-field */
		uint64_t w = 0;
		for (uint64_t i = last + 1; i-- > first;)
			w = w << 8 | b[i];
		w >>= sh;
		return size == 64 ? w : w & ((1ull << size) - 1);
	}
	if (!be && last - first == 8) {
		/* nine bytes (a 64-bit field not on a byte, or nearly):
		 * a word and the byte after it */
		uint64_t w = ld64(b + first) >> sh | (uint64_t)b[last]
							     << (64 - sh);
		return size == 64 ? w : w & ((1ull << size) - 1);
	}
	unsigned __int128 acc = 0;
	if (!be) {
		for (uint64_t i = last + 1; i-- > first;)
			acc = acc << 8 | b[i];
		acc >>= sh;
	} else {
		for (uint64_t i = first; i <= last; i++)
			acc = acc << 8 | b[i];
		acc >>= 8 * (last - first + 1) - sh - size;
	}
	return size == 64 ? (uint64_t)acc :
			    (uint64_t)acc & ((1ull << size) - 1);
}

int lt_hdr_read_placed(const struct lt_hflat *f, const struct lt_hnode *n,
		       const unsigned char *b, size_t end, uint64_t *bit,
		       struct lt_hvals *out)
{
	if (!f->flat || *bit != f->start || f->end > 8 * (uint64_t)end)
		return lt_hdr_read(n, b, end, bit, out);
	for (uint32_t i = 0; i < f->n; i++) {
		const struct lt_hflat_item *it = &f->items[i];
		if (it->size) {
			out->v[it->role] =
				lt_hdr_bits(b, it->at, it->size, it->be);
			if (it->role == LT_ROLE_TS)
				out->ts_bits = it->size;
		}
		out->at[it->role] = it->at;
		out->set |= 1u << it->role;
	}
	*bit = f->end;
	return 0;
}

int lt_hdr_read(const struct lt_hnode *n, const unsigned char *b, size_t end,
		uint64_t *bit, struct lt_hvals *out)
{
	/* alignments are powers of two (the parser checks) */
	uint64_t at = (*bit + n->align - 1) & ~(uint64_t)(n->align - 1);
	switch (n->kind) {
	case LT_HN_INT: {
		if (at + n->size > 8 * (uint64_t)end) {
			*bit = at;
			return -1;
		}
		uint64_t v = lt_hdr_bits(b, at, n->size, n->be);
		/* a signed tag compares as signed: its register holds it
		 * sign-extended (roles are unsigned) */
		out->regs[n->reg] = n->tag_signed && n->size < 64 &&
						    (v >> (n->size - 1)) & 1 ?
					    v | ~((1ull << n->size) - 1) :
					    v;
		if (n->role) {
			out->v[n->role] = v;
			out->at[n->role] = at;
			out->set |= 1u << n->role;
			if (n->role == LT_ROLE_TS)
				out->ts_bits = n->size;
		}
		*bit = at + n->size;
		return 0;
	}
	case LT_HN_BYTES:
		if (at + 8 * (uint64_t)n->length > 8 * (uint64_t)end) {
			*bit = at;
			return -1;
		}
		if (n->role) {
			out->at[n->role] = at;
			out->set |= 1u << n->role;
		}
		*bit = at + 8 * (uint64_t)n->length;
		return 0;
	case LT_HN_STRUCT:
		*bit = at;
		for (uint32_t i = 0; i < n->nkids; i++) {
			int r = lt_hdr_read(&n->kids[i], b, end, bit, out);
			if (r)
				return r;
		}
		return 0;
	default: {
		uint64_t tag = out->regs[n->reg];
		for (uint32_t i = 0; i < n->nsel; i++) {
			const struct lt_hsel *s = &n->sel[i];
			int in = n->tag_signed ?
					 ((int64_t)tag >= (int64_t)s->lo &&
					  (int64_t)tag <= (int64_t)s->hi) :
					 (tag >= s->lo && tag <= s->hi);
			if (in) {
				*bit = at;
				return lt_hdr_read(&n->kids[s->kid], b, end,
						   bit, out);
			}
		}
		*bit = at;
		return -2;
	}
	}
}
