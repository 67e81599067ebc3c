/* SPDX-License-Identifier: MIT */
/*
 * reader_decode.c - events decoded in place and the streams merged in time
 * order with a binary heap: lt_stream_next(), lt_reader_next() and
 * lt_reader_rewind() of reader.h.
 *
 * Decoding an event is: read its header (lowtrace's compact or extended
 * one and LTTng's compact one with format/event_header.h, LTTng's large
 * one in place, any other through header.c), rebuild the timestamp, find
 * the class by id, then walk its fields once to note where each one is (a
 * class whose fields all have a fixed size needs only a length check: its
 * offsets are constants).  Values are read only when asked for.  Nothing
 * is allocated per event.  The common event (compact header, class of
 * fixed size) has a fast path, decode_fast(), that the merge calls in
 * line; anything else goes through decode().
 */
#define _GNU_SOURCE
#include "ctf/compound.h"
#include "ctf/reader_index.h"
#include "ctf/reader_merge.h"
#include "ctf/reader_quirks.h"
#include "ctf/load.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
		if (low < prev && !lt_quirk_before_begin(s, low, tspos))
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
	uint32_t id32 = 0;
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
		if (ts < s->prev_ts && !lt_quirk_before_begin(s, ts, tspos))
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
		lt_quirk_after_end(s, ts, tspos);
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
					vsel = lt_var_option(
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
				/* the common tags by the table (an unsigned
				 * value below 64 is the same signed) */
				uint64_t raw =
					fc->nopt_at ?
						ld_uint_bo(b + off[fc->var_tag],
							   tf->size, tf->be) :
						UINT64_MAX;
				if (raw < fc->nopt_at)
					vsel = fc->opt_at[raw] == LT_OPT_NONE ?
						       -1 :
						       fc->opt_at[raw];
				else
					vsel = lt_var_option(
						fc,
						lt_field_int(b,
							     off[fc->var_tag],
							     tf),
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

/* walk_steps() in its two forms, in line in decode_fast(): a call
 * there cost 2% of view --stats on the mixed LTTng layout. */
static inline __attribute__((always_inline)) size_t
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
	int be = 0; /* set where a big-endian header can be */
	__builtin_prefetch(b + s->pos + LT_PREFETCH);
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
		be = 1;
		if (id == LT_EV_ID_EXTENDED)
			goto extended;
	} else {
		/* LTTng's large header: a 16-bit id, a 32-bit timestamp */
		be = s->fast == LT_FAST_LARGE_BE;
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
	ev->ns = __builtin_expect(ts <= s->ns_lim, 1) ?
			 s->base_ns + (int64_t)ts :
			 ctf_clock_ns(s->clock, ts);
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
			if (!s->pk[s->cur].damaged) {
				s->pk[s->cur].damaged = 1;
				lt_reader_skip(
					s->t, "the rest of the packet skipped");
			}
		}
		/* the next packet's first event by the fast path too */
		if (lt_stream_next_packet(s) && decode_fast(s))
			return 1;
	}
	if (s->err) /* the index could not grow */
		return s->err;
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

/* Merged iteration (the heap: reader_merge.h) */

int lt_reader_next(lt_reader_t *t, const struct lt_event **ev)
{
	const struct lt_event *e;
	int r;

	/* the next event of the earliest stream: the common one decoded
	 * here, the rest as below */
	if (__builtin_expect(t->fast_merge, 1)) {
		struct lt_stream *top = t->heap[0];
		if (!top->err) {
			r = decode_fast(top) ? 1 : stream_next_slow(top);
			if (r < 0) {
				t->fast_merge = 0;
				return t->merge_err = r;
			}
			if (!r)
				t->heap[0] = t->heap[--t->nheap];
			heap_fix_top(t);
			if (!t->nheap) {
				t->fast_merge = 0;
				return 0;
			}
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
	/* merging, streams left, no error: the path above from now on */
	t->fast_merge = 1;
	*ev = &t->heap[0]->ev;
	return 1;
}

void lt_reader_rewind(lt_reader_t *t)
{
	for (unsigned i = 0; i < t->nstreams; i++)
		lt_stream_rewind(&t->streams[i]);
	t->merging = 0;
	t->fast_merge = 0;
	t->nheap = 0;
	t->merge_err = 0;
}

/* Opening */
