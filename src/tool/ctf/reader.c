/* SPDX-License-Identifier: MIT */
/*
 * reader.c - the trace reader: finds the traces of a directory tree, maps
 * the stream files, indexes and checks their packets at open (headers of
 * any layout, header.c), decodes events in place, and merges the streams
 * in time order with a binary heap.
 *
 * Decoding an event is: read its header (lowtrace's compact or extended
 * one, LTTng's compact or large one in place, any other through
 * header.c), rebuild the timestamp, find the class by id, then walk its
 * fields once
 * to note where each one is (a class whose fields all have a fixed size
 * needs only a length check: its offsets are constants).  Values are read
 * only when asked for.  Nothing is allocated per event.  The common event
 * (compact header, class of fixed size) has a fast path, decode_fast(),
 * that the merge calls in line; anything else goes through decode().
 *
 * A stream's mapping is read through a window (window_at()): the pages
 * behind the packet being read are let go, the next few MiB mapped ahead
 * and the few after those read ahead, so a pass over a trace of any size
 * holds a few MiB of it.
 */
#define _GNU_SOURCE
#include "ctf/reader.h"
#include "ctf/compound.h"
#include "ctf/load.h"
#include "ctf/tsdl.h"
#include "format/event_header.h"
#include "format/packet_header.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* bytes of a stream's mapping walked through at a time (window_at()) */
#define LT_WINDOW (4u << 20)

/* bytes ahead of an event that its decoding asks the cache for */
#define LT_PREFETCH 2048

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

struct lt_packet {
	uint64_t off; /* in the file, bytes */
	uint64_t size, content; /* bytes */
	uint64_t ts_begin, ts_end;
	uint64_t seq, discarded;
	uint32_t cpu, pid;
	uint32_t hdr_len; /* bytes of packet header and context */
	int open_end; /* timestamp_end 0 on the last packet: no upper bound */
};

struct lt_stream {
	struct lt_reader *t;
	const struct lt_tsdl *m; /* its trace's metadata */
	unsigned index;
	/* its place among streams whose events have one time, as
	 * babeltrace2 orders them (set_tie_order()) */
	unsigned order;
	uint64_t instance; /* stream_instance_id, if has_instance */
	int has_instance;
	char *name, *path;
	const unsigned char *data;
	size_t len;
	uint64_t file_off; /* data's offset in the file, for messages */
	size_t map_len; /* nonzero when data is our mapping */
	size_t released; /* the mapping's pages before this are let go */
	size_t populated; /* and those from there to this mapped ahead */
	const struct lt_stream_class *sc;
	const struct lt_clock *clock; /* sc's */
	struct lt_packet *pk;
	size_t npk;
	/* iteration */
	size_t cur; /* packet being read, npk when done */
	const unsigned char *pbase;
	size_t pos, end;
	uint64_t prev_ts, ts_end;
	int open_end;
	int err; /* sticky error */
	struct lt_event ev;
	uint32_t *off, *cnt;
	/* the fast path's event header (LT_FAST_*) and classes: ids below
	 * the compact header's escape whose fields have a fixed size or a
	 * step list (NULL: decode() decides) */
	uint8_t fast;
	const struct lt_event_class *fast_cls[LT_EV_ID_EXTENDED];
	/* the last id past the table that the fast path took, and its
	 * class (ext_cls NULL: none yet) */
	uint64_t ext_id;
	const struct lt_event_class *ext_cls;
};

/* Event headers that decode_fast() reads: none; lowtrace's compact one;
 * LTTng's compact one in either order; LTTng's large one in either order
 * (LTTng's with their extended forms). */
enum {
	LT_FAST_NONE,
	LT_FAST_OWN, /* lowtrace's: its extended header is decode()'s */
	LT_FAST_COMPACT,
	LT_FAST_COMPACT_BE,
	LT_FAST_LARGE,
	LT_FAST_LARGE_BE,
};

/* One trace of the tree lt_reader_open() was given: its metadata. */
struct lt_part {
	struct lt_tsdl m;
	char *meta; /* metadata text we read */
};

struct lt_reader {
	struct lt_part *parts;
	unsigned nparts;
	struct lt_stream *streams;
	unsigned nstreams;
	unsigned flags;
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
	uint64_t skipped;
	char err[1024];
	size_t page; /* the system's page size, for madvise() */
	/* merged iteration */
	struct lt_stream **heap;
	unsigned nheap;
	int merging;
	struct lt_stream *last;
	int merge_err;
};

/* Errors */

static void set_err(struct lt_reader *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_err(struct lt_reader *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
}

static void warn(struct lt_reader *t)
{
	if (t->warn)
		t->warn(t->warn_arg, t->err);
}

/* Packet index */

enum { PH_OK, PH_MAGIC, PH_STREAM, PH_SHORT, PH_VARIANT };

/*
 * Reads the packet header and context at pb (left bytes) into h, bit past
 * them; *sc the packet's stream class, *sid its id.  PH_OK, PH_MAGIC (a
 * wrong magic), PH_STREAM (a stream id the metadata has not), PH_SHORT
 * (they go past left) or PH_VARIANT (a tag selects no option).
 */
static int read_pkt_header(const struct lt_tsdl *m, const unsigned char *pb,
			   uint64_t left, struct lt_hvals *h, uint64_t *bit,
			   const struct lt_stream_class **sc, uint64_t *sid)
{
	h->set = 0;
	int hr = lt_hdr_read(m->pkt_header, pb, left, bit, h);
	if (hr == 0 && (h->set & 1u << LT_ROLE_MAGIC) &&
	    h->v[LT_ROLE_MAGIC] != LT_PACKET_MAGIC)
		return PH_MAGIC;
	*sid = h->set & 1u << LT_ROLE_STREAM_ID ? h->v[LT_ROLE_STREAM_ID] :
						  m->streams[0].id;
	if (hr == 0) {
		*sc = *sid <= UINT32_MAX ? lt_tsdl_stream(m, (uint32_t)*sid) :
					   NULL;
		if (!*sc)
			return PH_STREAM;
		hr = lt_hdr_read((*sc)->pkt_context, pb, left, bit, h);
	}
	return hr == -1 ? PH_SHORT : hr ? PH_VARIANT : PH_OK;
}

/*
 * Checks the packet headers of s and indexes them.  A header that is not
 * sane (magic, packet_size) ends the stream there; one whose content is
 * bad is left out.  Either is an error unless LT_READER_SKIP_BAD.
 */
static int index_stream(struct lt_reader *t, struct lt_stream *s)
{
	size_t cap = 0, released = 0;
	uint64_t off = 0, prev_end = 0;
	const int skip = t->flags & LT_READER_SKIP_BAD;

	while (off < s->len) {
		struct lt_hvals h;
		uint64_t left = s->len - off, bit = 0;
		const unsigned char *pb = s->data + off;
		if (s->map_len && off >= released + LT_WINDOW) {
			/* only the headers are read here: their pages go */
			size_t lo = (size_t)off & ~(t->page - 1);
			madvise((void *)(s->data + released), lo - released,
				MADV_DONTNEED);
			released = lo;
		}
		const struct lt_stream_class *sc = NULL;
		uint64_t sid;
		int hr = read_pkt_header(s->m, pb, left, &h, &bit, &sc, &sid);
		if (hr == PH_MAGIC) {
			set_err(t,
				"%s: offset %llu: bad packet magic 0x%08llx "
				"(expected 0x%08x)",
				s->path,
				(unsigned long long)(s->file_off + off),
				(unsigned long long)h.v[LT_ROLE_MAGIC],
				LT_PACKET_MAGIC);
			goto fatal;
		}
		if (hr == PH_STREAM) {
			/* the packet's size is unknown: stop here */
			set_err(t,
				"%s: offset %llu: stream_id %llu is not "
				"in the metadata",
				s->path,
				(unsigned long long)(s->file_off + off +
						     h.at[LT_ROLE_STREAM_ID] /
							     8),
				(unsigned long long)sid);
			goto fatal;
		}
		if (hr == PH_SHORT) {
			set_err(t,
				"%s: offset %llu: truncated packet header "
				"(%llu bytes left)",
				s->path,
				(unsigned long long)(s->file_off + off),
				(unsigned long long)left);
			goto fatal;
		}
		if (hr) {
			set_err(t,
				"%s: offset %llu: packet header: a variant's "
				"tag selects no option",
				s->path,
				(unsigned long long)(s->file_off + off +
						     bit / 8));
			goto fatal;
		}
		uint64_t hdr_len = (bit + 7) / 8;
		uint64_t psize = h.set & 1u << LT_ROLE_PACKET_SIZE ?
					 h.v[LT_ROLE_PACKET_SIZE] :
					 8 * left;
		uint64_t csize = h.set & 1u << LT_ROLE_CONTENT_SIZE ?
					 h.v[LT_ROLE_CONTENT_SIZE] :
					 psize;
		if (psize == 0 || psize % 8 || psize / 8 < hdr_len) {
			set_err(t, "%s: offset %llu: bad packet_size %llu bits",
				s->path,
				(unsigned long long)(s->file_off + off),
				(unsigned long long)psize);
			goto fatal;
		}
		if (psize / 8 > left) {
			set_err(t,
				"%s: offset %llu: packet_size %llu bytes goes "
				"past the end of the file (%llu bytes left)",
				s->path,
				(unsigned long long)(s->file_off + off),
				(unsigned long long)(psize / 8),
				(unsigned long long)left);
			goto fatal;
		}
		/* the header is sane: a bad packet can be stepped over */
		uint64_t size = psize / 8;
		if (size > UINT32_MAX) {
			set_err(t,
				"%s: offset %llu: packets of 4 GiB or more are "
				"not supported",
				s->path,
				(unsigned long long)(s->file_off + off));
			goto fatal;
		}
		int last = off + size == s->len;
		if (csize > psize) {
			set_err(t,
				"%s: offset %llu: content_size %llu bits is "
				"more than packet_size %llu bits",
				s->path,
				(unsigned long long)(s->file_off + off),
				(unsigned long long)csize,
				(unsigned long long)psize);
			goto bad;
		}
		if (csize < 8 * hdr_len) {
			set_err(t,
				"%s: offset %llu: bad content_size %llu bits",
				s->path,
				(unsigned long long)(s->file_off + off),
				(unsigned long long)csize);
			goto bad;
		}
		if (s->m->has_uuid && (h.set & 1u << LT_ROLE_UUID) &&
		    memcmp(pb + h.at[LT_ROLE_UUID] / 8, s->m->uuid, 16)) {
			set_err(t,
				"%s: offset %llu: packet uuid differs from "
				"the metadata's",
				s->path,
				(unsigned long long)(s->file_off + off +
						     h.at[LT_ROLE_UUID] / 8));
			goto bad;
		}
		if (s->sc && sc != s->sc) {
			set_err(t,
				"%s: offset %llu: stream_id %llu differs from "
				"the stream's %u",
				s->path,
				(unsigned long long)(s->file_off + off +
						     h.at[LT_ROLE_STREAM_ID] /
							     8),
				(unsigned long long)sid, s->sc->id);
			goto bad;
		}
		int has_begin = !!(h.set & 1u << LT_ROLE_TS_BEGIN);
		int has_end = !!(h.set & 1u << LT_ROLE_TS_END);
		uint64_t ts_begin =
			has_begin ? h.v[LT_ROLE_TS_BEGIN] : prev_end;
		uint64_t ts_end = has_end ? h.v[LT_ROLE_TS_END] : 0;
		int open_end = !has_end || (ts_end == 0 && last);
		if (!open_end && ts_end < ts_begin) {
			set_err(t,
				"%s: offset %llu: timestamp_end %llu is before "
				"timestamp_begin %llu",
				s->path,
				(unsigned long long)(s->file_off + off +
						     h.at[LT_ROLE_TS_END] / 8),
				(unsigned long long)ts_end,
				(unsigned long long)ts_begin);
			goto bad;
		}
		if (ts_begin < prev_end) {
			set_err(t,
				"%s: offset %llu: timestamp_begin %llu is "
				"before the previous packet's end %llu",
				s->path,
				(unsigned long long)(s->file_off + off +
						     h.at[LT_ROLE_TS_BEGIN] /
							     8),
				(unsigned long long)ts_begin,
				(unsigned long long)prev_end);
			goto bad;
		}
		if (s->npk == cap) {
			cap = cap ? cap * 2 : 16;
			struct lt_packet *n = realloc(s->pk, cap * sizeof(*n));
			if (!n) {
				set_err(t, "%s: out of memory", s->path);
				return -ENOMEM;
			}
			s->pk = n;
		}
		s->sc = sc;
		s->clock = sc->clock;
		s->pk[s->npk++] = (struct lt_packet){
			.off = off,
			.size = size,
			/* bytes, the last one partly when the content ends
			 * inside it (after a bit-field) */
			.content = (csize + 7) / 8,
			.hdr_len = (uint32_t)hdr_len,
			.ts_begin = ts_begin,
			.ts_end = ts_end,
			.seq = h.set & 1u << LT_ROLE_SEQ ? h.v[LT_ROLE_SEQ] :
							   s->npk,
			.discarded = h.set & 1u << LT_ROLE_DISCARDED ?
					     h.v[LT_ROLE_DISCARDED] :
					     0,
			.cpu = h.set & 1u << LT_ROLE_CPU ?
				       (uint32_t)h.v[LT_ROLE_CPU] :
				       0,
			.pid = h.set & 1u << LT_ROLE_PID ?
				       (uint32_t)h.v[LT_ROLE_PID] :
				       0,
			.open_end = open_end,
		};
		if (has_end && !open_end)
			prev_end = ts_end;
		if (!s->has_instance &&
		    h.set & 1u << LT_ROLE_STREAM_INSTANCE_ID) {
			s->instance = h.v[LT_ROLE_STREAM_INSTANCE_ID];
			s->has_instance = 1;
		}
		off += size;
		continue;
bad:
		if (!skip)
			return -EBADMSG;
		warn(t);
		t->skipped++;
		off += size;
		continue;
fatal:
		if (!skip)
			return -EBADMSG;
		warn(t);
		t->skipped++;
		break;
	}
	return 0;
}

/* Whole packets of a growing file */

int lt_reader_packet_size(lt_reader_t *t, const void *data, size_t len,
			  uint64_t *size)
{
	const struct lt_stream_class *sc = NULL;
	struct lt_hvals h;
	uint64_t bit = 0, sid;

	switch (read_pkt_header(&t->parts[0].m, data, len, &h, &bit, &sc,
				&sid)) {
	case PH_SHORT:
		return 0; /* the header is not all there yet */
	case PH_MAGIC:
		set_err(t, "bad packet magic 0x%08llx (expected 0x%08x)",
			(unsigned long long)h.v[LT_ROLE_MAGIC],
			LT_PACKET_MAGIC);
		return -EBADMSG;
	case PH_STREAM:
		set_err(t, "stream_id %llu is not in the metadata",
			(unsigned long long)sid);
		return -ENOENT;
	case PH_VARIANT:
		set_err(t, "packet header: a variant's tag selects no option");
		return -EBADMSG;
	}
	if (!(h.set & 1u << LT_ROLE_PACKET_SIZE)) {
		set_err(t, "packets without packet_size cannot be told apart "
			   "in a growing file");
		return -EBADMSG;
	}
	uint64_t psize = h.v[LT_ROLE_PACKET_SIZE];
	if (psize == 0 || psize % 8 || psize / 8 < (bit + 7) / 8) {
		set_err(t, "bad packet_size %llu bits",
			(unsigned long long)psize);
		return -EBADMSG;
	}
	if (psize / 8 > len)
		return 0;
	*size = psize / 8;
	return 1;
}

/* Event decoding */

/*
 * The mapping is walked through a window: the pages before the packet
 * being read are let go (a read-only file mapping: touched again, they
 * come back from the page cache), so that the memory a pass holds does
 * not grow with the trace, and the next LT_WINDOW bytes are mapped in one
 * call ahead of the reads (where the kernel has MADV_POPULATE_READ),
 * which is cheaper than a page fault every few pages.  Advice only: a
 * failure changes nothing but speed.
 */
static void window_at(struct lt_stream *s, size_t off, size_t need)
{
	const size_t page = s->t->page;
	if (!s->map_len)
		return;
	size_t lo = off & ~(page - 1);
	if (lo >= s->released + LT_WINDOW) {
		madvise((void *)(s->data + s->released), lo - s->released,
			MADV_DONTNEED);
		s->released = lo;
	}
	if (off + need > s->populated && s->populated < s->map_len) {
		size_t a = s->populated > lo ? s->populated : lo;
		size_t b = (off + need + LT_WINDOW + page - 1) & ~(page - 1);
		if (b > s->map_len)
			b = s->map_len;
		madvise((void *)(s->data + a), b - a, MADV_POPULATE_READ);
		s->populated = b;
		/* and the window after it read from disk meanwhile, if it
		 * is not in the page cache */
		if (b < s->map_len)
			madvise((void *)(s->data + b),
				s->map_len - b < LT_WINDOW ? s->map_len - b :
							     LT_WINDOW,
				MADV_WILLNEED);
	}
}

/* Points the stream's cursor at the first event of packet p. */
static void enter_packet(struct lt_stream *s, const struct lt_packet *p)
{
	s->pbase = s->data + p->off;
	s->pos = p->hdr_len;
	s->end = p->content;
	s->prev_ts = p->ts_begin;
	s->ts_end = p->ts_end;
	s->open_end = p->open_end;
	s->ev.cpu = p->cpu;
	s->ev.pid = p->pid;
	s->ev.packet_seq = p->seq;
	s->ev.packet_off = p->off;
	s->ev.discarded = p->discarded;
}

static void stream_rewind(struct lt_stream *s)
{
	s->cur = 0;
	s->pbase = NULL;
	s->pos = s->end = 0;
	s->err = 0;
	s->released = s->populated = 0;
	if (s->npk) {
		window_at(s, s->pk[0].off, s->pk[0].content);
		enter_packet(s, &s->pk[0]);
	}
}

static int next_packet(struct lt_stream *s)
{
	if (++s->cur >= s->npk) {
		s->cur = s->npk;
		window_at(s, s->map_len, 0);
		return 0;
	}
	window_at(s, s->pk[s->cur].off, s->pk[s->cur].content);
	enter_packet(s, &s->pk[s->cur]);
	return 1;
}

/* Reports a fault at byte pos of the current packet. */
static int ev_fault(struct lt_stream *s, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int ev_fault(struct lt_stream *s, size_t pos, const char *fmt, ...)
{
	struct lt_reader *t = s->t;
	va_list ap;
	int n = snprintf(
		t->err, sizeof(t->err), "%s: offset %llu: ", s->path,
		(unsigned long long)(s->file_off + s->pk[s->cur].off + pos));
	if (n < 0)
		n = 0;
	if ((size_t)n < sizeof(t->err)) {
		va_start(ap, fmt);
		vsnprintf(t->err + n, sizeof(t->err) - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

/*
 * Reads an event header of any layout (the stream class's compiled one) at
 * s->pos: 1 with *pos after it and id and timestamp set, 0 at the packet's
 * end, or -EBADMSG.
 */
/*
 * The timestamp of an event header's field of the given bits: 64 bits are
 * the timestamp; fewer are the low bits of a clock that wrapped at most
 * once since the previous event.  1, or -EBADMSG.
 */
static inline int ts_rebuild(struct lt_stream *s, uint64_t low, unsigned bits,
			     size_t tspos, uint64_t *ts)
{
	uint64_t prev = s->prev_ts;
	if (bits == 64) {
		*ts = low;
		if (low < prev)
			return ev_fault(s, tspos,
					"timestamp %llu is before the "
					"previous %llu",
					(unsigned long long)low,
					(unsigned long long)prev);
		return 1;
	}
	*ts = lt_ev_ts_rebuild(prev, low, (1ull << bits) - 1);
	if (*ts < prev)
		return ev_fault(s, tspos, "timestamp wraps past 2^64");
	return 1;
}

/* A 32- or 16-bit field at p in the byte order be. */
static inline uint32_t ld32_bo(const unsigned char *p, int be)
{
	uint32_t v = ld32(p);
	return be ? __builtin_bswap32(v) : v;
}

static inline uint16_t ld16_bo(const unsigned char *p, int be)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return be ? __builtin_bswap16(v) : v;
}

/*
 * LTTng's compact and large event headers (lt_stream_class.evh_kind),
 * read in place: 1 with *id, the timestamp's bits in *low and their count
 * in *bits, 0 when the header goes past the content (header_any() then
 * says why).
 */
static inline int header_lttng(const struct lt_stream *s, size_t *pos,
			       uint64_t *id, uint64_t *low, unsigned *bits,
			       size_t *idpos, size_t *tspos)
{
	const unsigned char *b = s->pbase;
	const int be = s->sc->evh_be;
	size_t p = *pos, end = s->end;
	uint64_t escape;
	if (s->sc->evh_kind == LT_EVH_COMPACT) {
		p = (p + 3) & ~(size_t)3;
		if (p >= end || end - p < 4)
			return 0;
		lt_ev_compact_split(ld32_bo(b + p, be), be, id, low);
		*bits = LT_EV_TS_BITS;
		*idpos = *tspos = p;
		p += 4;
		escape = LT_EV_ID_EXTENDED;
	} else {
		p = (p + 1) & ~(size_t)1;
		if (p >= end || end - p < 2)
			return 0;
		*id = ld16_bo(b + p, be);
		*idpos = p;
		p += 2;
		escape = 65535;
		if (*id != escape) {
			p = (p + 3) & ~(size_t)3;
			if (p > end || end - p < 4)
				return 0;
			*low = ld32_bo(b + p, be);
			*bits = 32;
			*tspos = p;
			p += 4;
		}
	}
	if (*id == escape) {
		/* the extended struct, aligned as its 64-bit timestamp */
		p = (p + 7) & ~(size_t)7;
		if (p > end || end - p < 16)
			return 0;
		*id = ld32_bo(b + p, be);
		uint64_t t = ld64(b + p + 8);
		*low = be ? __builtin_bswap64(t) : t;
		*bits = 64;
		*idpos = p;
		*tspos = p + 8;
		p += 16;
	}
	*pos = p;
	return 1;
}

static int header_any(struct lt_stream *s, size_t *pos, uint64_t *id,
		      uint64_t *ts, size_t *idpos, size_t *tspos)
{
	uint64_t low;
	unsigned bits;
	if (s->sc->evh_kind && s->pos < s->end &&
	    header_lttng(s, pos, id, &low, &bits, idpos, tspos))
		return ts_rebuild(s, low, bits, *tspos, ts);
	struct lt_hvals h;
	uint64_t bit = 8 * (uint64_t)s->pos;
	if (s->pos >= s->end)
		return 0;
	h.set = 0;
	int r = lt_hdr_read(s->sc->ev_header, s->pbase, s->end, &bit, &h);
	if (r == -1) {
		/* padding after the last event up to the header's
		 * alignment is the packet's end, not a fault */
		if (bit >= 8 * (uint64_t)s->end)
			return 0;
		return ev_fault(s, (size_t)(bit / 8),
				"event header past the content end");
	}
	if (r)
		return ev_fault(s, (size_t)(bit / 8),
				"event header: a variant's tag selects no "
				"option");
	*id = h.set & 1u << LT_ROLE_ID ? h.v[LT_ROLE_ID] : 0;
	*idpos = h.set & 1u << LT_ROLE_ID ? (size_t)(h.at[LT_ROLE_ID] / 8) :
					    s->pos;
	*tspos = h.set & 1u << LT_ROLE_TS ? (size_t)(h.at[LT_ROLE_TS] / 8) :
					    s->pos;
	*pos = (size_t)((bit + 7) / 8);
	if (!(h.set & 1u << LT_ROLE_TS)) {
		*ts = s->prev_ts;
		return 1;
	}
	return ts_rebuild(s, h.v[LT_ROLE_TS], h.ts_bits, *tspos, ts);
}

/* The option of a variant (its first field fc) that tag selects, or -1;
 * the ranges compare as the tag's sign says. */
static int64_t select_option(const struct lt_field_class *fc, int64_t tag,
			     int is_signed)
{
	for (uint32_t k = 0; k < fc->nvar_sel; k++) {
		const struct lt_var_sel *v = &fc->var_sel[k];
		int in = is_signed ? tag >= v->lo && tag <= v->hi :
				     (uint64_t)tag >= (uint64_t)v->lo &&
					     (uint64_t)tag <= (uint64_t)v->hi;
		if (in)
			return v->opt;
	}
	return -1;
}

/*
 * The plan of a class of fixed size for its first field at *pos (aligned
 * there): *ph is that start's phase, its offset from the plan's origin.
 */
static inline const struct lt_fixed_plan *
fixed_plan(const struct lt_event_class *ec, size_t *pos, size_t *ph)
{
	size_t p =
		(*pos + ec->fixed_first - 1) & ~(size_t)(ec->fixed_first - 1);
	*pos = p;
	*ph = p & (size_t)(ec->fixed_align - 1);
	return &ec->plan[*ph >> ec->fixed_shift];
}

/* Decodes the event at s->pos: 1, 0 at the packet's end, or -EBADMSG. */
static int decode(struct lt_stream *s)
{
	const unsigned char *b = s->pbase;
	size_t pos = (s->pos + LT_EV_ALIGN - 1) & ~(size_t)(LT_EV_ALIGN - 1);
	const size_t end = s->end;
	uint64_t id = 0, ts = 0; /* set by either header path */
	size_t idpos = pos, tspos = pos; /* for messages */
	size_t start = pos; /* an event of no bytes would never end */

	if (!s->sc->own_layout) {
		pos = s->pos;
		int r = header_any(s, &pos, &id, &ts, &idpos, &tspos);
		if (r <= 0)
			return r;
		start = s->pos;
		goto payload;
	}
	if (pos >= end)
		return 0;
	if (end - pos < LT_EV_HDR_COMPACT)
		return ev_fault(s, pos, "event header past the content end");
	uint32_t id32;
	int hsz = lt_ev_header_get(b + pos, end - pos, s->prev_ts, &id32, &ts);
	if (hsz == LT_EV_GET_SHORT_EXT)
		return ev_fault(s, pos,
				"extended event header past the content end");
	if (hsz == LT_EV_GET_BAD)
		return ev_fault(s, pos, "malformed extended header");
	id = id32;
	if (hsz == LT_EV_HDR_EXTENDED) {
		idpos = pos + 1;
		tspos = pos + 5;
		if (ts < s->prev_ts)
			return ev_fault(s, tspos,
					"timestamp %llu is before the "
					"previous %llu",
					(unsigned long long)ts,
					(unsigned long long)s->prev_ts);
	} else if (ts < s->prev_ts) {
		return ev_fault(s, pos, "timestamp wraps past 2^64");
	}
	pos += (size_t)hsz;
payload:
	if (ts > s->ts_end && !s->open_end)
		return ev_fault(s, tspos,
				"timestamp %llu is after the packet's "
				"timestamp_end %llu",
				(unsigned long long)ts,
				(unsigned long long)s->ts_end);
	const struct lt_event_class *ec = lt_tsdl_event(s->sc, id);
	if (!ec)
		return ev_fault(s, idpos, "unknown event id %llu",
				(unsigned long long)id);

	struct lt_event *ev = &s->ev;
	ev->cls = ec;
	ev->ts = ts;
	ev->base = b;
	if (ec->fixed_size >= 0) {
		size_t ph;
		const struct lt_fixed_plan *pl = fixed_plan(ec, &pos, &ph);
		if (pos > end || pl->end - ph > end - pos)
			return ev_fault(s, pos,
					"event %s: payload past the content "
					"end",
					ec->name);
		ev->base = b + pos - ph;
		ev->off = pl->off;
		pos += pl->end - ph;
	} else {
		uint32_t *off = s->off, *cnt = s->cnt;
		unsigned sub = 0; /* bits into pos after a bit-field */
		int64_t vsel = -1; /* the option of the variant being read */
		for (uint32_t i = 0; i < ec->nfields; i++) {
			const struct lt_field_class *fc = &ec->fields[i];
			size_t need;
			if (__builtin_expect(fc->var_tag >= 0, 0)) {
				if (fc->var_first) {
					int64_t tag = lt_field_int(
						b, off[fc->var_tag],
						&ec->fields[fc->var_tag]);
					vsel = select_option(
						fc, tag,
						ec->fields[fc->var_tag]
							.is_signed);
					if (vsel < 0)
						return ev_fault(
							s, pos,
							"event %s: variant "
							"tag %lld selects no "
							"option",
							ec->name,
							(long long)tag);
				}
				if (fc->var_opt != vsel) {
					off[i] = LT_OFF_ABSENT;
					cnt[i] = 0;
					continue;
				}
			}
			if (__builtin_expect(fc->kind == LT_KIND_COMPOUND, 0)) {
				/* by bits, as a tree: its offset in bits from
				 * b, its count the bound of its text */
				struct lt_cwalk cw = { .b = b,
						       .end = end,
						       .fields = ec->fields,
						       .off = off };
				uint64_t bit = 8 * (uint64_t)pos + sub;
				uint64_t at = (bit + fc->tree->align - 1) &
					      ~(uint64_t)(fc->tree->align - 1);
				if (lt_cnode_walk(fc->tree, &cw, &bit))
					return ev_fault(s, (size_t)(bit / 8),
							"event %s: field '%s': "
							"%s",
							ec->name, fc->name,
							cw.why);
				if (bit > UINT32_MAX || cw.bound > UINT32_MAX)
					return ev_fault(s, pos,
							"event %s: field '%s' "
							"too large",
							ec->name, fc->name);
				off[i] = (uint32_t)at;
				cnt[i] = (uint32_t)cw.bound;
				pos = (size_t)(bit / 8);
				sub = (unsigned)(bit % 8);
				continue;
			}
			if (__builtin_expect(fc->bitfield, 0)) {
				/* by bits; its offset in bits from b */
				uint64_t bit = 8 * (uint64_t)pos + sub;
				bit = (bit + fc->bitalign - 1) &
				      ~(uint64_t)(fc->bitalign - 1);
				if (bit + fc->bitsize > 8 * (uint64_t)end) {
					pos = (size_t)(bit / 8);
					goto past;
				}
				if (bit > UINT32_MAX)
					return ev_fault(s, pos,
							"event %s: bit-field "
							"'%s' past 512 MiB "
							"in its packet",
							ec->name, fc->name);
				off[i] = (uint32_t)bit;
				bit += fc->bitsize;
				pos = (size_t)(bit / 8);
				sub = (unsigned)(bit % 8);
				continue;
			}
			if (sub) {
				pos++;
				sub = 0;
			}
			if (fc->align > 1)
				pos = (pos + fc->align - 1) &
				      ~(size_t)(fc->align - 1);
			if (pos > end)
				goto past;
			off[i] = (uint32_t)pos;
			switch (fc->kind) {
			case LT_KIND_STRING: {
				const unsigned char *z =
					memchr(b + pos, 0, end - pos);
				if (!z)
					return ev_fault(
						s, pos,
						"event %s: string '%s' has "
						"no end before the content "
						"end",
						ec->name, fc->name);
				cnt[i] = (uint32_t)(z - (b + pos));
				need = cnt[i] + 1;
				break;
			}
			case LT_KIND_ARRAY:
				need = (size_t)fc->length * fc->size;
				break;
			case LT_KIND_SEQUENCE: {
				const struct lt_field_class *lf =
					&ec->fields[fc->length_field];
				uint64_t n =
					lf->bitfield ?
						lt_hdr_bits(
							b,
							off[fc->length_field],
							lf->bitsize, lf->be) :
						ld_uint_bo(
							b + off[fc->length_field],
							lf->size, lf->be);
				if (n > (end - pos) / fc->size)
					return ev_fault(
						s, off[fc->length_field],
						"event %s: sequence '%s' of "
						"%llu elements goes past the "
						"content end",
						ec->name, fc->name,
						(unsigned long long)n);
				cnt[i] = (uint32_t)n;
				need = (size_t)n * fc->size;
				break;
			}
			default:
				need = fc->size;
				break;
			}
			if (need > end - pos) {
past:
				return ev_fault(s, pos,
						"event %s: field '%s' past the "
						"content end",
						ec->name, fc->name);
			}
			pos += need;
		}
		if (sub)
			pos++; /* the next event starts on a byte */
		ev->off = off;
		ev->count = cnt;
	}
	if (pos == start)
		return ev_fault(s, pos, "event %s of no bytes", ec->name);
	s->prev_ts = ts;
	s->pos = pos;
	ev->ns = ctf_clock_ns(s->clock, ts);
	return 1;
}

/*
 * The fields of an event of class ec (its step list) from pos: where the
 * event ends, or 0 to leave the event to decode(), which says what is
 * wrong.  plain: the class has no bit-fields and no variants (its steps
 * take the short loop).
 */
static inline __attribute__((always_inline)) size_t
walk_steps(struct lt_stream *s, const struct lt_event_class *ec, size_t pos,
	   const int plain)
{
	const unsigned char *b = s->pbase;
	const size_t end = s->end;
	uint32_t *off = s->off, *cnt = s->cnt;
	const struct lt_step *st = ec->steps, *se = st + ec->nsteps;
	unsigned sub = 0; /* bits into pos after a bit-field */
	int64_t vsel = -1; /* the option of the variant being read */
	for (; st < se; st++) {
		const uint32_t i = st->field;
		if (!plain && __builtin_expect(st->variant, 0)) {
			const struct lt_field_class *fc = &ec->fields[i];
			if (fc->var_first) {
				const struct lt_field_class *tf =
					&ec->fields[fc->var_tag];
				vsel = select_option(
					fc,
					lt_field_int(b, off[fc->var_tag], tf),
					tf->is_signed);
				if (vsel < 0)
					return 0;
			}
			if (fc->var_opt != vsel) {
				off[i] = LT_OFF_ABSENT;
				cnt[i] = 0;
				continue;
			}
		}
		if (!plain && st->op == LT_STEP_BITS) {
			uint64_t bit = 8 * (uint64_t)pos + sub;
			bit = (bit + st->bitalign - 1) &
			      ~(uint64_t)(st->bitalign - 1);
			if (bit + st->size > 8 * (uint64_t)end ||
			    bit > UINT32_MAX)
				return 0;
			off[i] = (uint32_t)bit;
			bit += st->size;
			pos = (size_t)(bit / 8);
			sub = (unsigned)(bit % 8);
			continue;
		}
		if (!plain && sub) {
			pos++;
			sub = 0;
		}
		pos = (pos + st->align - 1) & ~(size_t)(st->align - 1);
		if (__builtin_expect(pos > end, 0))
			return 0;
		if (st->op == LT_STEP_RUN) {
			size_t ph = pos & (size_t)(st->run_align - 1);
			const struct lt_fixed_plan *pl =
				&st->plan[ph >> st->run_shift];
			if (pl->end - ph > end - pos)
				return 0;
			const uint32_t base = (uint32_t)(pos - ph);
			/* LT_RUN_LANES at a time: the lanes past the run
			 * land on the next fields' offsets, which their own
			 * steps write after */
			typedef uint32_t lanes
				__attribute__((vector_size(4 * LT_RUN_LANES)));
			const lanes vb = { base, base, base, base };
			for (uint32_t j = 0; j < st->size; j += LT_RUN_LANES) {
				lanes v;
				memcpy(&v, pl->off + j, sizeof(v));
				v += vb;
				memcpy(off + i + j, &v, sizeof(v));
			}
			pos += pl->end - ph;
			continue;
		}
		size_t need = st->size;
		off[i] = (uint32_t)pos;
		if (st->op == LT_STEP_STRING) {
			const unsigned char *z =
				ld_find_nul(b + pos, end - pos);
			if (!z)
				return 0;
			cnt[i] = (uint32_t)(z - (b + pos));
			need = cnt[i] + 1;
		} else if (st->op == LT_STEP_SEQUENCE) {
			uint64_t n = ld_uint_bo(b + off[st->lfield], st->lsize,
						st->lbe);
			/* without a division: n * size within the content */
			if (__builtin_mul_overflow(n, (uint64_t)st->size,
						   &need) ||
			    need > UINT32_MAX)
				return 0;
			cnt[i] = (uint32_t)n;
		}
		if (__builtin_expect(need > end - pos, 0))
			return 0;
		pos += need;
	}
	return sub ? pos + 1 : pos; /* the next event starts on a byte */
}

/* walk_steps() in its two forms. */
static __attribute__((noinline)) size_t
decode_steps(struct lt_stream *s, const struct lt_event_class *ec, size_t pos)
{
	if (ec->steps_plain)
		return walk_steps(s, ec, pos, 1);
	return walk_steps(s, ec, pos, 0);
}

/*
 * decode() for the common event, with every check decode() makes: a
 * compact header (lowtrace's, LTTng's) or LTTng's large one, LTTng's with
 * their extended forms, and a class with plans or a step list.  Returns 1,
 * or 0 to leave the event (or the packet's end, or a fault) to decode().
 */
static inline __attribute__((always_inline)) int
decode_fast(struct lt_stream *s)
{
	const unsigned char *b = s->pbase;
	const size_t end = s->end;
	size_t pos;
	uint64_t id, low, mask;
	__builtin_prefetch(b + s->pos + LT_PREFETCH);
	const int be =
		s->fast == LT_FAST_COMPACT_BE || s->fast == LT_FAST_LARGE_BE;
	if (__builtin_expect(s->fast <= LT_FAST_COMPACT, 1)) {
		pos = (s->pos + 3) & ~(size_t)3;
		if (__builtin_expect(pos + 4 > end || !s->fast, 0))
			return 0;
		lt_ev_compact_split(ld32(b + pos), 0, &id, &low);
		mask = LT_EV_TS_MASK;
		pos += 4;
		if (__builtin_expect(id == LT_EV_ID_EXTENDED, 0)) {
			if (s->fast == LT_FAST_OWN)
				return 0; /* lowtrace's: decode() reads it */
			goto extended;
		}
	} else if (s->fast == LT_FAST_COMPACT_BE) {
		pos = (s->pos + 3) & ~(size_t)3;
		if (pos + 4 > end)
			return 0;
		lt_ev_compact_split(__builtin_bswap32(ld32(b + pos)), 1, &id,
				    &low);
		mask = LT_EV_TS_MASK;
		pos += 4;
		if (id == LT_EV_ID_EXTENDED)
			goto extended;
	} else {
		/* LTTng's large header: a 16-bit id, a 32-bit timestamp */
		pos = (s->pos + 1) & ~(size_t)1;
		if (pos + 2 > end)
			return 0;
		id = ld16_bo(b + pos, be);
		pos += 2;
		if (id == 65535)
			goto extended;
		pos = (pos + 3) & ~(size_t)3;
		if (pos + 4 > end)
			return 0;
		low = ld32_bo(b + pos, be);
		mask = UINT32_MAX;
		pos += 4;
	}
	if (0) {
extended:
		/* LTTng's extended header: a 32-bit id and a 64-bit
		 * timestamp, aligned as the timestamp */
		pos = (pos + 7) & ~(size_t)7;
		if (pos + 16 > end)
			return 0;
		id = ld32_bo(b + pos, be);
		low = ld64(b + pos + 8);
		if (be)
			low = __builtin_bswap64(low);
		mask = UINT64_MAX;
		pos += 16;
	}
	const struct lt_event_class *ec;
	if (__builtin_expect(id < LT_EV_ID_EXTENDED, 1)) {
		ec = s->fast_cls[id];
		if (__builtin_expect(!ec, 0))
			return 0;
	} else if (id == s->ext_id) {
		ec = s->ext_cls; /* the last large id's class, again */
	} else {
		ec = lt_tsdl_event(s->sc, id);
		if (!ec || (ec->fixed_size < 0 && !ec->steps))
			return 0;
		s->ext_id = id;
		s->ext_cls = ec;
	}
	uint64_t prev = s->prev_ts;
	/* a 64-bit timestamp is low itself: then ts < prev is a fault */
	uint64_t ts = lt_ev_ts_rebuild(prev, low, mask);
	if (__builtin_expect(ts < prev || (ts > s->ts_end && !s->open_end), 0))
		return 0;
	struct lt_event *ev = &s->ev;
	if (__builtin_expect(ec->fixed_size >= 0, 1)) {
		size_t ph;
		const struct lt_fixed_plan *pl = fixed_plan(ec, &pos, &ph);
		if (__builtin_expect(pos > end || pl->end - ph > end - pos, 0))
			return 0;
		ev->base = b + pos - ph;
		ev->off = pl->off;
		pos += pl->end - ph;
	} else {
		pos = decode_steps(s, ec, pos);
		if (!pos)
			return 0;
		ev->base = b;
		ev->off = s->off;
		ev->count = s->cnt;
	}
	ev->cls = ec;
	ev->ts = ts;
	s->prev_ts = ts;
	s->pos = pos;
	ev->ns = ctf_clock_ns(s->clock, ts);
	return 1;
}

/* The next event of s through decode(), past packets' ends: 1, 0 at the
 * stream's end, or -EBADMSG (then sticky). */
static int stream_next_slow(struct lt_stream *s)
{
	while (s->cur < s->npk) {
		int r = decode(s);
		if (r == 1)
			return 1;
		if (r < 0) {
			if (!(s->t->flags & LT_READER_SKIP_BAD)) {
				s->err = r;
				return r;
			}
			warn(s->t);
			s->t->skipped++;
		}
		/* the next packet's first event by the fast path too */
		if (next_packet(s) && decode_fast(s))
			return 1;
	}
	return 0;
}

int lt_stream_next(lt_stream_t *s, const struct lt_event **ev)
{
	if (s->err)
		return s->err;
	int r = (__builtin_expect(s->cur < s->npk, 1) && decode_fast(s)) ?
			1 :
			stream_next_slow(s);
	if (r == 1)
		*ev = &s->ev;
	return r;
}

/* Merged iteration: a min-heap of streams keyed by (ns, order). */

static inline int heap_less(const struct lt_stream *a,
			    const struct lt_stream *b)
{
	/* by time since the epoch, as babeltrace2 merges (two clock counts
	 * may make one ns: then the streams' order decides, not the
	 * counts) */
	return a->ev.ns < b->ev.ns ||
	       (a->ev.ns == b->ev.ns && a->order < b->order);
}
static void sift_down(struct lt_reader *t, unsigned i)
{
	struct lt_stream **h = t->heap;
	unsigned n = t->nheap;
	struct lt_stream *x = h[i];
	for (;;) {
		unsigned c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && heap_less(h[c + 1], h[c]))
			c++;
		if (!heap_less(h[c], x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/* The top stream's event changed: restores the heap (the common case,
 * the top still the earliest or two streams, without a call). */
static inline __attribute__((always_inline)) void
heap_fix_top(struct lt_reader *t)
{
	struct lt_stream **h = t->heap;
	if (t->nheap == 2) {
		/* without a branch: which stream is next is a coin toss */
		struct lt_stream *a = h[0], *b = h[1];
		uintptr_t sw = -(uintptr_t)heap_less(b, a);
		uintptr_t x = ((uintptr_t)a ^ (uintptr_t)b) & sw;
		h[0] = (struct lt_stream *)((uintptr_t)a ^ x);
		h[1] = (struct lt_stream *)((uintptr_t)b ^ x);
		return;
	}
	if (t->nheap == 3) {
		/* a CPU's stream against the two others, in line */
		unsigned c = heap_less(h[2], h[1]) ? 2 : 1;
		if (heap_less(h[c], h[0])) {
			struct lt_stream *x = h[0];
			h[0] = h[c];
			h[c] = x;
		}
		return;
	}
	if (t->nheap > 3)
		sift_down(t, 0);
}

int lt_reader_next(lt_reader_t *t, const struct lt_event **ev)
{
	const struct lt_event *e;
	int r;

	/* the next event of the earliest stream: the common one decoded
	 * here, the rest as below */
	if (__builtin_expect(t->nheap && t->merging && !t->merge_err, 1)) {
		struct lt_stream *top = t->heap[0];
		if (!top->err && top->cur < top->npk) {
			r = decode_fast(top) ? 1 : stream_next_slow(top);
			if (r < 0)
				return t->merge_err = r;
			if (!r)
				t->heap[0] = t->heap[--t->nheap];
			heap_fix_top(t);
			if (!t->nheap)
				return 0;
			*ev = &t->heap[0]->ev;
			return 1;
		}
	}
	if (t->merge_err)
		return t->merge_err;
	if (!t->merging) {
		t->merging = 1;
		t->nheap = 0;
		for (unsigned i = 0; i < t->nstreams; i++) {
			r = lt_stream_next(&t->streams[i], &e);
			if (r < 0)
				return t->merge_err = r;
			if (r)
				t->heap[t->nheap++] = &t->streams[i];
		}
		for (unsigned i = t->nheap / 2; i-- > 0;)
			sift_down(t, i);
	} else if (t->nheap) {
		r = lt_stream_next(t->heap[0], &e);
		if (r < 0)
			return t->merge_err = r;
		if (!r)
			t->heap[0] = t->heap[--t->nheap];
		heap_fix_top(t);
	}
	if (!t->nheap)
		return 0;
	*ev = &t->heap[0]->ev;
	return 1;
}

void lt_reader_rewind(lt_reader_t *t)
{
	for (unsigned i = 0; i < t->nstreams; i++)
		stream_rewind(&t->streams[i]);
	t->merging = 0;
	t->nheap = 0;
	t->merge_err = 0;
}

/* Opening */

/* The event header decode_fast() reads in a stream of class sc. */
static uint8_t fast_kind(const struct lt_stream_class *sc)
{
	if (!sc)
		return LT_FAST_NONE;
	if (sc->own_layout)
		return LT_FAST_OWN;
	switch (sc->evh_kind) {
	case LT_EVH_COMPACT:
		return sc->evh_be ? LT_FAST_COMPACT_BE : LT_FAST_COMPACT;
	case LT_EVH_LARGE:
		return sc->evh_be ? LT_FAST_LARGE_BE : LT_FAST_LARGE;
	default:
		return LT_FAST_NONE;
	}
}

/* Streams whose events have one time come in babeltrace2's order: by
 * trace (its uuid), stream class id, stream instance id, then as
 * found. */
static int part_of(const struct lt_reader *t, const struct lt_tsdl *m)
{
	for (unsigned i = 0; i < t->nparts; i++)
		if (&t->parts[i].m == m)
			return (int)i;
	return 0;
}
static int cmp_tie(const void *pa, const void *pb, void *arg)
{
	const struct lt_reader *t = arg;
	const struct lt_stream *a = &t->streams[*(const unsigned *)pa];
	const struct lt_stream *b = &t->streams[*(const unsigned *)pb];
	if (a->m != b->m) {
		int c = a->m->has_uuid && b->m->has_uuid ?
				memcmp(a->m->uuid, b->m->uuid, 16) :
				0;
		if (c)
			return c;
		return part_of(t, a->m) - part_of(t, b->m);
	}
	uint64_t ca = a->sc ? a->sc->id : 0, cb = b->sc ? b->sc->id : 0;
	if (ca != cb)
		return ca < cb ? -1 : 1;
	if (a->has_instance && b->has_instance && a->instance != b->instance)
		return a->instance < b->instance ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}
static int set_tie_order(struct lt_reader *t)
{
	unsigned *ix = malloc((t->nstreams ? t->nstreams : 1) * sizeof(*ix));
	if (!ix)
		return -ENOMEM;
	for (unsigned i = 0; i < t->nstreams; i++)
		ix[i] = i;
	qsort_r(ix, t->nstreams, sizeof(*ix), cmp_tie, t);
	for (unsigned i = 0; i < t->nstreams; i++)
		t->streams[ix[i]].order = i;
	free(ix);
	return 0;
}

static int setup_streams(struct lt_reader *t, char *err, size_t errlen)
{
	uint32_t nf = 1;
	for (unsigned i = 0; i < t->nparts; i++)
		if (t->parts[i].m.max_fields > nf)
			nf = t->parts[i].m.max_fields;
	t->heap = calloc(t->nstreams ? t->nstreams : 1, sizeof(*t->heap));
	if (!t->heap)
		goto nomem;
	for (unsigned i = 0; i < t->nstreams; i++) {
		struct lt_stream *s = &t->streams[i];
		s->t = t;
		s->index = i;
		s->ev.stream = s->name;
		s->ev.stream_index = i;
		s->off = calloc(nf + LT_RUN_LANES, sizeof(*s->off));
		s->cnt = calloc(nf, sizeof(*s->cnt));
		if (!s->off || !s->cnt)
			goto nomem;
		int r = index_stream(t, s);
		if (r < 0) {
			snprintf(err, errlen, "%s", t->err);
			return r;
		}
		/* the packet headers' pages: read again as the pass goes */
		if (s->map_len > LT_WINDOW)
			madvise((void *)s->data, s->map_len, MADV_DONTNEED);
		s->fast = fast_kind(s->sc);
		for (uint32_t id = 0; s->fast && id < LT_EV_ID_EXTENDED; id++) {
			const struct lt_event_class *ec =
				lt_tsdl_event(s->sc, id);
			s->fast_cls[id] =
				ec && (ec->fixed_size >= 0 || ec->steps) ? ec :
									   NULL;
		}
	}
	if (set_tie_order(t) < 0)
		goto nomem;
	lt_reader_rewind(t);
	t->err[0] = 0;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

static struct lt_reader *trace_new(const struct lt_reader_opts *opts)
{
	struct lt_reader *t = calloc(1, sizeof(*t));
	if (t) {
		long pg = sysconf(_SC_PAGESIZE);
		t->page = pg > 0 && !(pg & (pg - 1)) ? (size_t)pg : 4096;
	}
	if (t && opts) {
		t->flags = opts->flags;
		t->warn = opts->warn;
		t->warn_arg = opts->warn_arg;
	}
	return t;
}

int lt_reader_open_mem(const char *metadata, size_t metadata_len,
		       const struct lt_mem_stream *streams, unsigned nstreams,
		       const struct lt_reader_opts *opts, lt_reader_t **out,
		       char *err, size_t errlen)
{
	struct lt_reader *t = trace_new(opts);
	int r;

	*out = NULL;
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	t->parts = calloc(1, sizeof(*t->parts));
	if (!t->parts) {
		r = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	t->nparts = 1;
	r = lt_tsdl_parse(metadata, metadata_len, "metadata", &t->parts[0].m,
			  err, errlen);
	if (r < 0)
		goto fail;
	t->streams = calloc(nstreams ? nstreams : 1, sizeof(*t->streams));
	if (!t->streams) {
		r = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	t->nstreams = nstreams;
	for (unsigned i = 0; i < nstreams; i++) {
		struct lt_stream *s = &t->streams[i];
		s->m = &t->parts[0].m;
		s->name = strdup(streams[i].name);
		s->path = strdup(streams[i].path ? streams[i].path :
						   streams[i].name);
		s->file_off = streams[i].file_off;
		s->data = streams[i].data;
		s->len = streams[i].len;
		if (!s->name || !s->path) {
			r = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
	}
	r = setup_streams(t, err, errlen);
	if (r < 0)
		goto fail;
	*out = t;
	return 0;
fail:
	lt_reader_close(t);
	return r;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int read_metadata(struct lt_part *t, const char *dir, char *err,
			 size_t errlen)
{
	char path[4200];
	struct stat st;
	int r = 0;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return r;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > (1 << 30)) {
		snprintf(err, errlen, "%s: not a readable metadata file", path);
		close(fd);
		return -EINVAL;
	}
	t->meta = malloc((size_t)st.st_size + 1);
	if (!t->meta) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, t->meta + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			snprintf(err, errlen, "%s: read failed", path);
			close(fd);
			return r;
		}
		got += (size_t)n;
	}
	close(fd);
	t->meta[got] = 0;
	return lt_tsdl_parse(t->meta, got, path, &t->m, err, errlen);
}

static int map_stream(struct lt_stream *s, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", s->path, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	s->len = (size_t)st.st_size;
	if (s->len) {
		void *p = mmap(NULL, s->len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			int e = errno;
			snprintf(err, errlen, "%s: mmap: %s", s->path,
				 strerror(e));
			close(fd);
			return -e;
		}
		madvise(p, s->len, MADV_SEQUENTIAL);
		s->data = p;
		s->map_len = s->len;
	}
	close(fd);
	return 0;
}

/* Appends a copy of str to the list. */
static int push_str(char ***list, unsigned *n, unsigned *cap, const char *str)
{
	if (*n == *cap) {
		unsigned nc = *cap ? *cap * 2 : 16;
		char **nl = realloc(*list, nc * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		*list = nl;
		*cap = nc;
	}
	if (!((*list)[*n] = strdup(str)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

static void free_strs(char **list, unsigned n)
{
	for (unsigned i = 0; list && i < n; i++)
		free(list[i]);
	free(list);
}

/*
 * The traces under dir: dir itself when it holds a metadata file, else
 * every directory below it that does (an LTTng session: kernel/,
 * ust/uid/UID/64-bit/, ust/pid/...), not descending into a trace nor
 * through symbolic links.
 */
static int find_traces(const char *dir, int depth, char ***list, unsigned *n,
		       unsigned *cap)
{
	char path[4200];
	struct stat st;
	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return push_str(list, n, cap, dir);
	if (depth >= 8)
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return depth ? 0 : -errno;
	char **subs = NULL;
	unsigned ns = 0, cs = 0;
	int r = 0;
	struct dirent *de;
	while (r == 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			r = push_str(&subs, &ns, &cs, path);
	}
	closedir(d);
	if (ns)
		qsort(subs, ns, sizeof(*subs), cmp_name);
	for (unsigned i = 0; r == 0 && i < ns; i++)
		r = find_traces(subs[i], depth + 1, list, n, cap);
	free_strs(subs, ns);
	return r;
}

/* The stream files of the trace in dir (regular files but the metadata,
 * not starting with '.'), sorted. */
static int list_streams(const char *dir, char ***names, unsigned *n, char *err,
			size_t errlen)
{
	unsigned cap = 0;
	DIR *d = opendir(dir);
	if (!d) {
		int r = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return r;
	}
	struct dirent *de;
	int r = 0;
	while (r == 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		char path[4200];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		r = push_str(names, n, &cap, de->d_name);
	}
	closedir(d);
	if (r < 0) {
		snprintf(err, errlen, "out of memory");
		return r;
	}
	if (*n)
		qsort(*names, *n, sizeof(**names), cmp_name);
	return 0;
}

/*
 * Traces of one uuid are one trace to babeltrace2 (the runs of a DPDK
 * application, whose uuid depends only on its trace points; LTTng's
 * rotated chunks): it reads the streams of all of them with the metadata
 * (clock, classes, env) of the one with the most stream and event
 * classes, the first in path order on a tie.  The others' metadata keep
 * their classes, which then have no events.
 */
static void join_same_uuid(struct lt_reader *t)
{
	for (unsigned k = 0; k < t->nparts; k++) {
		const struct lt_tsdl *m = &t->parts[k].m, *w = NULL;
		if (!m->has_uuid)
			continue;
		for (unsigned j = 0; j < t->nparts; j++) {
			const struct lt_tsdl *o = &t->parts[j].m;
			if (!o->has_uuid || memcmp(o->uuid, m->uuid, 16))
				continue;
			if (!w || o->nstreams + o->nclasses >
					  w->nstreams + w->nclasses)
				w = o;
		}
		for (unsigned i = 0; w != m && i < t->nstreams; i++)
			if (t->streams[i].m == m)
				t->streams[i].m = w;
	}
}

int lt_reader_open(const char *dir, const struct lt_reader_opts *opts,
		   lt_reader_t **out, char *err, size_t errlen)
{
	struct lt_reader *t = trace_new(opts);
	char **tdirs = NULL;
	unsigned ntd = 0, tcap = 0;
	int r;

	*out = NULL;
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* "DIR/" names its files "DIR/FILE" */
	char dbuf[3072];
	size_t dl = strlen(dir);
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	if (dl >= sizeof(dbuf)) {
		lt_reader_close(t);
		snprintf(err, errlen, "%s: path too long", dir);
		return -ENAMETOOLONG;
	}
	memcpy(dbuf, dir, dl);
	dbuf[dl] = 0;
	dir = dbuf;
	r = find_traces(dir, 0, &tdirs, &ntd, &tcap);
	if (r == -ENOMEM)
		goto nomem;
	if (r < 0 || !ntd) {
		/* no trace in the tree: the error of the top's metadata */
		r = r < 0 ? r : -ENOENT;
		snprintf(err, errlen, "%s/metadata: %s", dir, strerror(-r));
		goto fail;
	}
	t->parts = calloc(ntd, sizeof(*t->parts));
	if (!t->parts)
		goto nomem;
	t->nparts = ntd;
	unsigned base = 0; /* classes of the traces before */
	for (unsigned k = 0; k < ntd; k++) {
		struct lt_part *pt = &t->parts[k];
		r = read_metadata(pt, tdirs[k], err, errlen);
		if (r < 0)
			goto fail;
		for (unsigned i = 0; i < pt->m.nclasses; i++)
			pt->m.classes[i].index += base;
		base += pt->m.nclasses;
		char **files = NULL;
		unsigned nf = 0;
		r = list_streams(tdirs[k], &files, &nf, err, errlen);
		if (r < 0)
			goto fail;
		struct lt_stream *ns = realloc(
			t->streams, (t->nstreams + nf + 1) * sizeof(*ns));
		if (!ns) {
			free_strs(files, nf);
			goto nomem;
		}
		t->streams = ns;
		memset(ns + t->nstreams, 0, (nf + 1) * sizeof(*ns));
		for (unsigned i = 0; i < nf; i++) {
			struct lt_stream *s = &t->streams[t->nstreams++];
			/* in a tree, a stream is named by its path in it */
			const char *rel = tdirs[k] + dl;
			rel += *rel == '/';
			size_t pl = strlen(tdirs[k]) + strlen(files[i]) + 2;
			size_t nl = strlen(rel) + strlen(files[i]) + 2;
			s->m = &pt->m;
			s->path = malloc(pl);
			s->name = malloc(nl);
			if (!s->path || !s->name) {
				free_strs(files, nf);
				goto nomem;
			}
			snprintf(s->path, pl, "%s/%s", tdirs[k], files[i]);
			if (ntd == 1 || !*rel)
				snprintf(s->name, nl, "%s", files[i]);
			else
				snprintf(s->name, nl, "%s/%s", rel, files[i]);
			r = map_stream(s, err, errlen);
			if (r < 0) {
				free_strs(files, nf);
				goto fail;
			}
		}
		free_strs(files, nf);
	}
	if (!t->streams && !(t->streams = calloc(1, sizeof(*t->streams))))
		goto nomem;
	join_same_uuid(t);
	r = setup_streams(t, err, errlen);
	if (r < 0)
		goto fail;
	free_strs(tdirs, ntd);
	*out = t;
	return 0;
nomem:
	r = -ENOMEM;
	snprintf(err, errlen, "out of memory");
fail:
	free_strs(tdirs, ntd);
	lt_reader_close(t);
	return r;
}

void lt_reader_close(lt_reader_t *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < t->nstreams; i++) {
		struct lt_stream *s = &t->streams[i];
		if (s->map_len)
			munmap((void *)s->data, s->map_len);
		free(s->name);
		free(s->path);
		free(s->pk);
		free(s->off);
		free(s->cnt);
	}
	free(t->streams);
	free(t->heap);
	for (unsigned i = 0; i < t->nparts; i++) {
		free(t->parts[i].meta);
		lt_tsdl_free(&t->parts[i].m);
	}
	free(t->parts);
	free(t);
}

/* Accessors */

const char *lt_reader_error(const lt_reader_t *t)
{
	return t->err;
}

uint64_t lt_reader_skipped_packets(const lt_reader_t *t)
{
	return t->skipped;
}

unsigned lt_reader_nstreams(const lt_reader_t *t)
{
	return t->nstreams;
}

lt_stream_t *lt_reader_stream(lt_reader_t *t, unsigned i)
{
	return i < t->nstreams ? &t->streams[i] : NULL;
}

const char *lt_stream_name(const lt_stream_t *s)
{
	return s->name;
}

uint64_t lt_stream_npackets(const lt_stream_t *s)
{
	return s->npk;
}

int64_t lt_reader_begin_ns(const lt_reader_t *t)
{
	int64_t min = INT64_MAX;
	for (unsigned i = 0; i < t->nstreams; i++) {
		const struct lt_stream *s = &t->streams[i];
		if (!s->npk)
			continue;
		int64_t ns = lt_clock_ns(s->clock, s->pk[0].ts_begin);
		if (ns < min)
			min = ns;
	}
	return min == INT64_MAX ? 0 : min;
}

int64_t lt_stream_end_ns(const lt_stream_t *s)
{
	if (!s->npk)
		return INT64_MIN;
	const struct lt_packet *p = &s->pk[s->npk - 1];
	return p->open_end ? INT64_MAX : lt_clock_ns(s->clock, p->ts_end);
}

uint64_t lt_stream_discarded(const lt_stream_t *s)
{
	return s->npk ? s->pk[s->npk - 1].discarded : 0;
}

unsigned lt_reader_nclasses(const lt_reader_t *t)
{
	unsigned n = 0;
	for (unsigned i = 0; i < t->nparts; i++)
		n += t->parts[i].m.nclasses;
	return n;
}

const struct lt_event_class *lt_reader_class(const lt_reader_t *t, unsigned i)
{
	for (unsigned p = 0; p < t->nparts; p++) {
		if (i < t->parts[p].m.nclasses)
			return &t->parts[p].m.classes[i];
		i -= t->parts[p].m.nclasses;
	}
	return NULL;
}

const struct lt_clock *lt_reader_clock(const lt_reader_t *t)
{
	return &t->parts[0].m.clocks[0];
}

/* The value of key in m's env block: the last given, as babeltrace2
 * keeps it. */
static const char *tsdl_env(const struct lt_tsdl *m, const char *key)
{
	for (unsigned i = m->nenv; i-- > 0;)
		if (!strcmp(m->env[i].key, key))
			return m->env[i].value;
	return NULL;
}

const char *lt_reader_env(const lt_reader_t *t, const char *key)
{
	for (unsigned p = 0; p < t->nparts; p++) {
		const char *v = tsdl_env(&t->parts[p].m, key);
		if (v)
			return v;
	}
	return NULL;
}

const char *lt_stream_env(const lt_stream_t *s, const char *key)
{
	return tsdl_env(s->m, key);
}
