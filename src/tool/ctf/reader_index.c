/* SPDX-License-Identifier: MIT */
/*
 * reader_index.c - a stream's packets (reader_index.h): read and checked
 * at open (headers of any layout, header.c), and the window of the
 * mapping that follows the packet being read: the pages behind it are let
 * go, the next few MiB mapped ahead and the few after those read ahead, so
 * a pass over a trace of any size holds a few MiB of it.
 */
#define _GNU_SOURCE
#include "ctf/reader_index.h"
#include "ctf/load.h"
#include "ctf/reader_quirks.h"
#include "format/packet_header.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* bytes of a packet read for its header and context at open, when the
 * packet before had LT_INDEX_PREAD_MIN bytes or more (where the pages a
 * fault maps around a header would hold no other header) */
#define LT_INDEX_PREAD 512
#define LT_INDEX_PREAD_MIN (32u << 10)

static void set_err(struct lt_reader *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_err(struct lt_reader *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
}

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
	int hr = lt_hdr_read_placed(&m->pkt_header_flat, m->pkt_header, pb,
				    left, bit, h);
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
		hr = lt_hdr_read_placed(&(*sc)->pkt_context_flat,
					(*sc)->pkt_context, pb, left, bit, h);
	}
	return hr == -1 ? PH_SHORT : hr ? PH_VARIANT : PH_OK;
}

/*
 * Checks the packet headers of s from s->ix_off and indexes them, until
 * the index reaches limit bytes and has grown by a packet, or the
 * stream's end.
 * A header that is not sane (magic, packet_size) ends the stream there;
 * one whose content is bad is left out.  Either is an error unless
 * LT_READER_SKIP_BAD.  fd >= 0: large packets' headers by pread().
 * released: the pages before it are let go as the pass goes past them
 * (none when it is the mapping's length).
 */
static int index_packets(struct lt_reader *t, struct lt_stream *s, int fd,
			 uint64_t limit, size_t released)
{
	unsigned char hb[LT_INDEX_PREAD];
	uint64_t prev_size = s->ix_prev_size; /* the packet before's bytes */
	uint64_t off = s->ix_off, prev_end = s->ix_prev_end;
	const int skip = t->flags & LT_READER_SKIP_BAD;
	const size_t npk0 = s->npk;

	while (off < s->len && (off < limit || s->npk == npk0)) {
		struct lt_hvals h;
		uint64_t left = s->len - off, bit = 0;
		const unsigned char *pb = s->data + off;
		if (released < s->map_len && off >= released + LT_WINDOW) {
			/* only the headers are read here: their pages go */
			size_t lo = (size_t)off & ~(t->page - 1);
			madvise((void *)(s->data + released), lo - released,
				MADV_DONTNEED);
			released = lo;
		}
		const struct lt_stream_class *sc = NULL;
		uint64_t sid;
		int hr = PH_SHORT;
		size_t want = left < sizeof(hb) ? (size_t)left : sizeof(hb);
		if (fd >= 0 && prev_size >= LT_INDEX_PREAD_MIN &&
		    pread(fd, hb, want, (off_t)off) == (ssize_t)want)
			hr = read_pkt_header(s->m, hb, want, &h, &bit, &sc,
					     &sid);
		if (hr == PH_SHORT) {
			/* no file, or a header longer than the bytes read */
			bit = 0;
			hr = read_pkt_header(s->m, pb, left, &h, &bit, &sc,
					     &sid);
		} else {
			pb = hb;
		}
		s->ix_off = off; /* this packet is next, whatever comes */
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
		/* timestamp_end 0: a buffer recovered after a crash
		 * (lttng-crash), read with no upper bound as babeltrace2
		 * reads it */
		int zero_end = has_end && ts_end == 0 && (last || ts_begin);
		int open_end = !has_end || zero_end;
		if (zero_end)
			lt_quirk(s, LT_QUIRK_ZERO_END,
				 off + h.at[LT_ROLE_TS_END] / 8,
				 "timestamp_end is 0 (a buffer lttng-crash "
				 "recovered): the packet's events are read "
				 "with no upper bound");
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
		if (ts_begin < prev_end)
			lt_quirk(s, LT_QUIRK_OVERLAP,
				 off + h.at[LT_ROLE_TS_BEGIN] / 8,
				 "timestamp_begin %llu is %llu before the "
				 "previous packet's end %llu (LTTng before 2.8 "
				 "wrote so): read as is",
				 (unsigned long long)ts_begin,
				 (unsigned long long)(prev_end - ts_begin),
				 (unsigned long long)prev_end);
		if (s->npk && h.set & 1u << LT_ROLE_DISCARDED &&
		    h.v[LT_ROLE_DISCARDED] < s->pk[s->npk - 1].discarded)
			lt_quirk(s, LT_QUIRK_DISCARDED_BACK,
				 off + h.at[LT_ROLE_DISCARDED] / 8,
				 "events_discarded %llu is less than the "
				 "previous packet's %llu: the count of events "
				 "lost wraps, as babeltrace2 counts it",
				 (unsigned long long)h.v[LT_ROLE_DISCARDED],
				 (unsigned long long)s->pk[s->npk - 1]
					 .discarded);
		if (s->npk == s->pkcap) {
			size_t cap = s->pkcap ? s->pkcap * 2 : 16;
			struct lt_packet *n = realloc(s->pk, cap * sizeof(*n));
			if (!n) {
				set_err(t, "%s: out of memory", s->path);
				return -ENOMEM;
			}
			s->pk = n;
			s->pkcap = cap;
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
		prev_size = size;
		s->ix_off = off;
		s->ix_prev_end = prev_end;
		s->ix_prev_size = prev_size;
		continue;
bad:
		if (!skip)
			return -EBADMSG;
		lt_reader_skip(t, "packet skipped");
		off += size;
		s->ix_off = off;
		continue;
fatal:
		if (!skip)
			return -EBADMSG;
		lt_reader_skip(t, "the rest of the stream skipped");
		s->ix_done = 1;
		return 0;
	}
	if (off >= s->len)
		s->ix_done = 1;
	return 0;
}

/*
 * The headers of a mapped file of large packets are read by pread(), not
 * through the mapping: a page fault on a header maps the 64 KiB around
 * it, unmapped again behind the pass and mapped once more by the
 * decoding.  Packets of a few pages are read through the mapping: a
 * pread() for each costs more than mapping their pages.
 */
static int index_all(struct lt_reader *t, struct lt_stream *s, size_t released)
{
	if (s->ix_done)
		return 0;
	int fd = s->map_len ? open(s->path, O_RDONLY | O_CLOEXEC) : -1;
	int r = index_packets(t, s, fd, s->len, released);
	if (fd >= 0)
		close(fd);
	return r;
}

/*
 * A mapped stream read on past bad packets is indexed lazily: at open up
 * to its first packet and LT_WINDOW bytes, then, as the decoding reaches
 * the index's end (lt_stream_next_packet()), as far as the decoding's
 * window has mapped the stream (a packet at least).  A trace of small packets, one
 * a page, has its pages mapped once, not once for the index and again
 * for the decoding.  Strictly read (an error is one at open) or in
 * memory, the index is built whole at open.
 */
int lt_stream_index(struct lt_reader *t, struct lt_stream *s)
{
	if (s->map_len && (t->flags & LT_READER_SKIP_BAD))
		return index_packets(t, s, -1, LT_WINDOW, s->map_len);
	return index_all(t, s, 0);
}

int lt_stream_index_whole(struct lt_stream *s)
{
	/* the pages from the decoding's window on are let go behind */
	size_t page = s->t->page;
	size_t from = (size_t)s->ix_off & ~(page - 1);
	return index_all(s->t, s, from > s->populated ? from : s->populated);
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
void lt_stream_window(struct lt_stream *s, size_t off, size_t need)
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
	s->ev.room = p->off + p->hdr_len >= 8;
}

void lt_stream_rewind(struct lt_stream *s)
{
	s->cur = 0;
	s->pbase = NULL;
	s->pos = s->end = 0;
	s->err = 0;
	s->released = s->populated = 0;
	if (s->npk) {
		lt_stream_window(s, s->pk[0].off, s->pk[0].content);
		enter_packet(s, &s->pk[0]);
	}
}

int lt_stream_next_packet(struct lt_stream *s)
{
	while (s->cur + 1 >= s->npk && !s->ix_done) {
		/* as far as the window has mapped */
		int r = index_packets(s->t, s, -1, s->populated, s->map_len);
		if (r < 0) {
			s->err = r;
			return 0;
		}
	}
	if (++s->cur >= s->npk) {
		s->cur = s->npk;
		lt_stream_window(s, s->map_len, 0);
		return 0;
	}
	lt_stream_window(s, s->pk[s->cur].off, s->pk[s->cur].content);
	enter_packet(s, &s->pk[s->cur]);
	return 1;
}
