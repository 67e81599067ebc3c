/* SPDX-License-Identifier: MIT */
/*
 * ring_decode.h - test-side decoding of ring buffer packets: walks the
 * records of a packet with a caller-given payload size per event id and
 * checks the framing (header, alignment, timestamps within the packet).
 */
#ifndef LT_TEST_RING_DECODE_H
#define LT_TEST_RING_DECODE_H

#include "format/event_header.h"
#include "format/packet_header.h"
#include "ring/ring_consume.h"
#include "ring/ring_write.h"

#include <stdint.h>
#include <string.h>

struct rd_event {
	uint32_t id;
	uint64_t ts;
	const unsigned char *payload;
	size_t len;
};

/* payload size for id, or -1 if the id is unknown */
typedef long (*rd_size_fn)(uint32_t id);
/* returns nonzero to stop with that value */
typedef int (*rd_event_fn)(void *arg, const struct rd_event *ev);

/*
 * Returns 0 when the packet is well formed, else a short static reason
 * through *why and -1.
 */
static inline int rd_walk_packet(const void *pkt, size_t len, rd_size_fn size,
				 rd_event_fn fn, void *arg, const char **why)
{
	const unsigned char *p = pkt;
	struct lt_packet_header h;

	if (len < LT_PACKET_HDR_SIZE) {
		*why = "packet shorter than its header";
		return -1;
	}
	memcpy(&h, p, sizeof(h));
	if (h.magic != LT_PACKET_MAGIC) {
		*why = "bad packet magic";
		return -1;
	}
	if (h.content_size != (uint64_t)len * 8) {
		*why = "content_size disagrees with length";
		return -1;
	}
	uint64_t prev = h.timestamp_begin;
	size_t off = LT_PACKET_HDR_SIZE;
	while (off < len) {
		off = (off + LT_EV_ALIGN - 1) & ~(size_t)(LT_EV_ALIGN - 1);
		struct rd_event ev;
		int hsz = off < len ? lt_ev_header_get(p + off, len - off, prev,
						       &ev.id, &ev.ts) :
				      LT_EV_GET_SHORT;
		if (hsz <= 0) {
			*why = hsz == LT_EV_GET_SHORT ?
				       "record header past content" :
				       "extended header past content";
			return -1;
		}
		off += (size_t)hsz;
		long sz = size(ev.id);
		if (sz < 0 || off + (size_t)sz > len) {
			*why = "unknown id or payload past content";
			return -1;
		}
		if (ev.ts < prev) {
			*why = "timestamp went backwards";
			return -1;
		}
		if (ev.ts > h.timestamp_end) {
			*why = "timestamp after timestamp_end";
			return -1;
		}
		prev = ev.ts;
		ev.payload = p + off;
		ev.len = (size_t)sz;
		off += (size_t)sz;
		if (fn) {
			int rc = fn(arg, &ev);
			if (rc)
				return rc;
		}
	}
	return 0;
}

#endif
