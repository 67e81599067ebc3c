/* SPDX-License-Identifier: MIT */
/*
 * walk.c - record walking for packets in lowtrace's layout (walk.h,
 * docs/ctf-layout.md).
 */
#include "format/walk.h"

#include <string.h>

#include "format/event_header.h"
#include "format/packet_header.h"

long lt_ctf_payload_size(const struct lt_field_desc *f, uint32_t n,
			 const uint8_t *p, size_t avail)
{
	size_t off = 0;

	for (uint32_t i = 0; i < n; i++) {
		size_t need;
		switch (f[i].type) {
		case LT_FT_STRING: {
			const uint8_t *z = memchr(p + off, 0, avail - off);
			if (!z)
				return -1;
			need = (size_t)(z - (p + off)) + 1;
			break;
		}
		case LT_FT_ARRAY:
			need = (size_t)f[i].size * f[i].length;
			break;
		case LT_FT_CHARS:
			need = f[i].length;
			break;
		case LT_FT_SEQUENCE: {
			uint32_t k;
			if (avail - off < 4)
				return -1;
			memcpy(&k, p + off, 4);
			if (k > LT_EVENT_MAX)
				return -1;
			need = 4 + (size_t)k * f[i].size;
			break;
		}
		default:
			need = f[i].size;
		}
		if (need > avail - off)
			return -1;
		off += need;
	}
	return (long)off;
}

size_t lt_ctf_walk_records(const void *pkt, size_t len, size_t ctx,
			   lt_ctf_lookup_fn lookup, void *larg,
			   lt_ctf_record_fn fn, void *arg)
{
	const uint8_t *p = pkt;
	struct lt_packet_header h;
	size_t off = LT_PACKET_HDR_SIZE, good = LT_PACKET_HDR_SIZE;

	if (len < LT_PACKET_HDR_SIZE)
		return 0;
	memcpy(&h, p, sizeof(h));
	uint64_t prev = h.timestamp_begin;
	while (off < len) {
		struct lt_ctf_record r;
		size_t start = off;
		off = (off + LT_EV_ALIGN - 1) & ~(size_t)(LT_EV_ALIGN - 1);
		if (off >= len)
			break;
		int hsz = lt_ev_header_get(p + off, len - off, prev, &r.id,
					   &r.ts);
		if (hsz <= 0)
			break;
		off += (size_t)hsz;
		const struct lt_ctf_event *e = lookup(larg, r.id);
		if (!e || r.ts < prev || ctx > len - off)
			break;
		off += ctx;
		long sz = lt_ctf_payload_size(e->fields, e->nfields, p + off,
					      len - off);
		if (sz < 0)
			break;
		off += (size_t)sz;
		prev = r.ts;
		r.start = start;
		r.end = off;
		good = off;
		if (fn)
			fn(arg, &r);
	}
	return good;
}
