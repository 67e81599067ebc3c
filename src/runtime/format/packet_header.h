/* SPDX-License-Identifier: MIT */
/*
 * packet_header.h - the packet header and context that open every packet
 * of lowtrace's layout (docs/ctf-layout.md; metadata.c describes them to
 * readers).  The ring writes a packet per sub-buffer and calls these to
 * begin and end one; readers check a packet against them.  Nothing here
 * knows where the bytes live.
 */
#ifndef LT_FORMAT_PACKET_HEADER_H
#define LT_FORMAT_PACKET_HEADER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define LT_PACKET_MAGIC 0xC1FC1FC1u
#define LT_PACKET_HDR_SIZE 88

/* Packet header and context, in this order at the start of a packet. */
struct lt_packet_header {
	uint32_t magic;
	uint8_t uuid[16];
	uint32_t stream_id;
	uint64_t stream_instance_id; /* pid << 32 | cpu */
	uint64_t timestamp_begin;
	uint64_t timestamp_end;
	uint64_t content_size; /* bits, headers included */
	uint64_t packet_size; /* bits; what the stream file holds */
	uint64_t packet_seq_num;
	uint64_t events_discarded; /* free-running count at close */
	uint32_t cpu_id;
	uint32_t pid;
};
_Static_assert(sizeof(struct lt_packet_header) == LT_PACKET_HDR_SIZE,
	       "packet header layout");

/*
 * The fields that begin packet seq of cpu at time ts, from tmpl, the
 * stream's constant fields (magic, uuid, stream_id, pid).  The others
 * belong to whoever ends the packet, who may be another writer at the
 * same moment.
 */
static inline void lt_packet_begin(struct lt_packet_header *h,
				   const struct lt_packet_header *tmpl,
				   uint32_t cpu, uint64_t seq, uint64_t ts)
{
	h->magic = tmpl->magic;
	memcpy(h->uuid, tmpl->uuid, 16);
	h->stream_id = tmpl->stream_id;
	h->stream_instance_id = (uint64_t)tmpl->pid << 32 | cpu;
	h->timestamp_begin = ts;
	h->packet_seq_num = seq;
	h->cpu_id = cpu;
	h->pid = tmpl->pid;
}

/*
 * The fields that end a packet, contiguous in header order from
 * timestamp_end (packet_seq_num, the beginner's, written again as it
 * is), for a writer that copies them as one block.
 */
struct lt_packet_end {
	uint64_t timestamp_end, content_size, packet_size, packet_seq_num,
		events_discarded;
};
#define LT_PACKET_END_AT offsetof(struct lt_packet_header, timestamp_end)
_Static_assert(offsetof(struct lt_packet_header, events_discarded) -
			       LT_PACKET_END_AT + 8 ==
		       sizeof(struct lt_packet_end),
	       "ending fields in header order");

/* Packet seq ends at time ts with used bytes (headers included) and
 * lost events counted so far; packets are stored whole (packet_size is
 * content_size). */
static inline void lt_packet_end_fill(struct lt_packet_end *e, uint64_t ts,
				      uint64_t used, uint64_t seq,
				      uint64_t lost)
{
	e->timestamp_end = ts;
	e->content_size = e->packet_size = used * 8;
	e->packet_seq_num = seq;
	e->events_discarded = lost;
}

/* lt_packet_end_fill() in place, leaving packet_seq_num as it is. */
static inline void lt_packet_end(struct lt_packet_header *h, uint64_t ts,
				 uint64_t used, uint64_t lost)
{
	h->timestamp_end = ts;
	h->content_size = h->packet_size = used * 8;
	h->events_discarded = lost;
}

/*
 * The bytes a packet of at most max bytes holds, headers included, if h
 * is an ended packet of sequence number seq; else 0.
 */
static inline uint64_t lt_packet_content(const struct lt_packet_header *h,
					 uint64_t seq, uint64_t max)
{
	uint64_t n = h->content_size / 8;
	if (h->magic != LT_PACKET_MAGIC || h->packet_seq_num != seq ||
	    n < LT_PACKET_HDR_SIZE || n > max)
		return 0;
	return n;
}

#endif
