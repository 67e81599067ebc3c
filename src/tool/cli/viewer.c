/* SPDX-License-Identifier: MIT */
/*
 * viewer.c - the printing half of `lowtrace view` (viewer.h): one line per
 * event,
 *
 *   [HH:MM:SS.nnnnnnnnn] (+S.nnnnnnnnn) HOST cpu N name: { field = value, ... }
 *
 * built in a large buffer with hand-written number formatting and written
 * with write(2).  The time of day is local time (TZ=UTC for UTC), like
 * babeltrace2's; the delta is to the previous printed event.  An
 * lt_tracef marker's line has its text, its format with its fields,
 * instead of the fields (--fields: the fields, as babeltrace2 prints
 * them).
 */
#define _GNU_SOURCE
#include "cli/viewer.h"
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define OUT_CAP (1u << 20)

void lt_view_flush(struct lt_view *v)
{
	size_t done = 0;
	while (done < v->len && !v->failed) {
		ssize_t n = write(1, v->buf + done, v->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			v->failed = errno ? errno : EIO;
			break;
		}
		done += (size_t)n;
	}
	v->len = 0;
}

/* Room for n more bytes; 0 or -ENOMEM. */
static int reserve(struct lt_view *v, size_t n)
{
	if (v->cap - v->len >= n)
		return 0;
	lt_view_flush(v);
	if (v->cap >= n)
		return 0;
	char *nb = realloc(v->buf, n);
	if (!nb)
		return -ENOMEM;
	v->buf = nb;
	v->cap = n;
	return 0;
}

int lt_view_init(struct lt_view *v, const struct lt_view_opts *o)
{
	char err[256];

	memset(v, 0, sizeof(*v));
	v->opts = o;
	v->lo = INT64_MIN;
	v->hi = INT64_MAX;
	if (o->patterns) {
		char *save = NULL;
		for (char *tok = strtok_r(o->patterns, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (v->npats == LT_VIEW_MAX_PATTERNS)
				return lt_cli_error(LT_VIEW,
						    "too many patterns (%d at "
						    "most)",
						    LT_VIEW_MAX_PATTERNS);
			/* "NAME if CONDITION", as the analyses' anchors;
			 * a marker's format is not a name here */
			struct lt_anchor *a = &v->pats[v->npats++];
			if (lt_anchor_parse(tok, a, err, sizeof(err)) < 0)
				return lt_cli_error(LT_VIEW, "-e %s: %s", tok,
						    err);
			if (a->by_format) {
				size_t n = strlen(a->name) + 1;
				memmove(a->name + 7, a->name, n);
				memcpy(a->name, "format:", 7);
				a->by_format = 0;
			}
		}
	}
	v->cap = OUT_CAP;
	v->buf = malloc(v->cap);
	if (!v->buf)
		return lt_cli_error(LT_VIEW, "out of memory");
	return 0;
}

static void free_bind(struct lt_view *v)
{
	for (unsigned i = 0; v->streams && i < v->nstreams; i++)
		free(v->streams[i].host);
	free(v->streams);
	free(v->names);
	v->streams = NULL;
	v->names = NULL;
	v->nstreams = v->nnames = 0;
}

void lt_view_fini(struct lt_view *v)
{
	free(v->buf);
	v->buf = NULL;
	free_bind(v);
}

/* " host:procname:(vpid)", of those s's env has; "" with none. */
static char *host_text(const lt_stream_t *s)
{
	const char *host = lt_stream_env(s, "hostname");
	const char *proc = lt_stream_env(s, "procname");
	const char *vpid = lt_stream_env(s, "vpid");
	size_t n = 1 + (host ? strlen(host) + 1 : 0) +
		   (proc ? strlen(proc) + 1 : 0) +
		   (vpid ? strlen(vpid) + 3 : 0);
	char *b = malloc(n), *p = b;
	if (!b)
		return NULL;
	if (host)
		p += sprintf(p, " %s", host);
	if (proc)
		p += sprintf(p, "%s%s", p == b ? " " : ":", proc);
	if (vpid)
		p += sprintf(p, "%s(%s)", p == b ? " " : ":", vpid);
	*p = 0;
	return b;
}

int lt_view_bind(struct lt_view *v, const lt_reader_t *t)
{
	unsigned n = lt_reader_nstreams(t), nc = lt_reader_nclasses(t);
	free_bind(v);
	v->streams = calloc(n ? n : 1, sizeof(*v->streams));
	v->names = calloc(nc ? nc : 1, sizeof(*v->names));
	if (!v->streams || !v->names) {
		free_bind(v);
		return -ENOMEM;
	}
	v->nstreams = n;
	v->nnames = nc;
	for (unsigned i = 0; i < n; i++) {
		struct lt_view_stream *vs = &v->streams[i];
		/* the reader's streams are not changed by reading their env */
		vs->host = host_text(
			lt_reader_stream((lt_reader_t *)(uintptr_t)t, i));
		if (!vs->host) {
			free_bind(v);
			return -ENOMEM;
		}
		vs->host_len = strlen(vs->host);
		vs->timeless = !lt_stream_has_clock(
			lt_reader_stream((lt_reader_t *)(uintptr_t)t, i));
	}
	for (unsigned i = 0; i < nc; i++) {
		const struct lt_event_class *ec = lt_reader_class(t, i);
		if (ec->name_len + 2 <= LT_VIEW_TEXT) {
			memcpy(v->names[i], ec->name, ec->name_len);
			memcpy(v->names[i] + ec->name_len, ": ", 2);
		}
	}
	return 0;
}

/* Parses TIME into ns since the epoch; a time of day is on first's day. */
static int parse_time(const char *s, int64_t first_ns, int64_t *out)
{
	const char *colon = strchr(s, ':');
	const char *dot = strchr(s, '.');
	char *end;
	int64_t frac = 0;

	if (!*s)
		return -1;
	if (dot) {
		/* up to 9 fraction digits */
		const char *q = dot + 1;
		int n = 0;
		if (!*q)
			return -1;
		while (*q) {
			if (*q < '0' || *q > '9' || n >= 9)
				return -1;
			frac = frac * 10 + (*q - '0');
			n++;
			q++;
		}
		while (n++ < 9)
			frac *= 10;
	}
	if (colon) {
		unsigned h, m, sec;
		char tail;
		int n = sscanf(s, "%u:%u:%u%c", &h, &m, &sec, &tail);
		if (n < 3 || (n == 4 && tail != '.') || h > 23 || m > 59 ||
		    sec > 60)
			return -1;
		time_t t0 = (time_t)(first_ns >= 0 ?
					     first_ns / 1000000000 :
					     (first_ns + 1) / 1000000000 - 1);
		struct tm tm;
		if (!localtime_r(&t0, &tm))
			return -1;
		tm.tm_hour = (int)h;
		tm.tm_min = (int)m;
		tm.tm_sec = (int)sec;
		tm.tm_isdst = -1;
		time_t t = mktime(&tm);
		if (t == (time_t)-1)
			return -1;
		*out = (int64_t)t * 1000000000 + frac;
		return 0;
	}
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || (*end && end != dot) || v < 0)
		return -1;
	if (dot) {
		if (v > INT64_MAX / 1000000000 - 1)
			return -1;
		*out = (int64_t)v * 1000000000 + frac;
	} else {
		*out = v;
	}
	return 0;
}

int lt_view_times(struct lt_view *v, int64_t first_ns)
{
	const struct lt_view_opts *o = v->opts;
	if (o->begin && parse_time(o->begin, first_ns, &v->lo) < 0)
		return lt_cli_error(LT_VIEW,
				    "bad --begin time '%s' (give ns, "
				    "SECONDS.FRAC or HH:MM:SS[.frac])",
				    o->begin);
	if (o->end && parse_time(o->end, first_ns, &v->hi) < 0)
		return lt_cli_error(LT_VIEW,
				    "bad --end time '%s' (give ns, "
				    "SECONDS.FRAC or HH:MM:SS[.frac])",
				    o->end);
	return 0;
}

unsigned char *lt_view_select(const struct lt_view *v, const lt_reader_t *t)
{
	unsigned nc = lt_reader_nclasses(t);
	unsigned char *sel = calloc(nc ? nc : 1, 1);
	if (!sel)
		return NULL;
	for (unsigned i = 0; i < nc; i++) {
		const char *name = lt_reader_class(t, i)->name;
		sel[i] = !v->npats;
		for (unsigned k = 0; k < v->npats && sel[i] != 1; k++)
			if (lt_pattern_match(v->pats[k].name, name))
				sel[i] = v->pats[k].cond ? 2 : 1;
	}
	return sel;
}

/* v < 10^9 as exactly nine digits. */
static inline __attribute__((always_inline)) char *fmt9(char *p, uint64_t v)
{
	uint32_t x = (uint32_t)v;
	p[0] = (char)('0' + x / 100000000);
	lt_fmt_8digits(p + 1, x % 100000000);
	return p + 9;
}

static void tod(struct lt_view_tod *c, int64_t sec)
{
	if (c->valid && c->sec == sec)
		return;
	time_t t = (time_t)sec;
	struct tm tm;
	c->sec = sec;
	c->valid = 1;
	if (!localtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	char *p = c->text;
	*p++ = '[';
	*p++ = (char)('0' + tm.tm_hour / 10);
	*p++ = (char)('0' + tm.tm_hour % 10);
	*p++ = ':';
	*p++ = (char)('0' + tm.tm_min / 10);
	*p++ = (char)('0' + tm.tm_min % 10);
	*p++ = ':';
	*p++ = (char)('0' + tm.tm_sec / 10);
	*p++ = (char)('0' + tm.tm_sec % 10);
	*p++ = '.';
}

/* A condition of -e whose name takes ev's class holds. */
static int cond_match(const struct lt_view *v, const struct lt_event *ev)
{
	for (unsigned k = 0; k < v->npats; k++)
		if (v->pats[k].cond && lt_anchor_match(&v->pats[k], ev))
			return 1;
	return 0;
}

static inline __attribute__((always_inline)) int
takes(const struct lt_view *v, const unsigned char *sel,
      const struct lt_event *ev)
{
	unsigned s = sel[ev->cls->index];
	return s && ev->ns >= v->lo && ev->ns <= v->hi &&
	       (s == 1 || cond_match(v, ev));
}

int lt_view_takes(const struct lt_view *v, const unsigned char *sel,
		  const struct lt_event *ev)
{
	return takes(v, sel, ev);
}

/* " HOST cpu N " of vs's events on cpu, of vs->len bytes; in vs->text
 * when it fits (then the line copies it whole). */
static void make_text(struct lt_view_stream *vs, uint32_t cpu)
{
	char num[24]; /* lt_fmt_u64() writes up to 21 */
	size_t n = (size_t)(lt_fmt_u64(num, cpu) - num);
	vs->cpu = cpu;
	vs->len = (uint32_t)(vs->host_len + 5 + n + 1);
	if (vs->len > LT_VIEW_TEXT)
		return;
	char *p = vs->text;
	memcpy(p, vs->host, vs->host_len);
	p += vs->host_len;
	memcpy(p, " cpu ", 5);
	memcpy(p + 5, num, n);
	p[5 + n] = ' ';
}

/* "HOST cpu N " of ev's line in a trace without a clock (babeltrace2
 * prints no time there), at p; where it ends. */
static char *timeless_head(struct lt_view_stream *vs, const struct lt_event *ev,
			   char *p)
{
	if (vs->cpu != ev->cpu || !vs->len)
		make_text(vs, ev->cpu);
	if (vs->len <= LT_VIEW_TEXT) {
		/* the text less its leading space */
		memcpy(p, vs->text + 1, vs->len - 1);
		return p + vs->len - 1;
	}
	if (vs->host_len) {
		memcpy(p, vs->host + 1, vs->host_len - 1);
		p += vs->host_len - 1;
		*p++ = ' ';
	}
	memcpy(p, "cpu ", 4);
	p = lt_fmt_u64(p + 4, ev->cpu);
	*p++ = ' ';
	return p;
}

/* ev's line at the end of the buffer; 0 or -ENOMEM. */
static inline __attribute__((always_inline)) int line(struct lt_view *v,
						      const struct lt_event *ev)
{
	const struct lt_event_class *ec = ev->cls;
	int text = ec->format && !v->opts->fields;
	struct lt_view_stream *vs = ev->stream_index < v->nstreams ?
					    &v->streams[ev->stream_index] :
					    NULL;
	size_t need = 96 + 2 * LT_VIEW_TEXT + ec->name_len +
		      (vs ? vs->host_len : 0) +
		      (text ? LT_MARKER_TEXT_MAX : lt_event_format_bound(ev));
	if (reserve(v, need) < 0)
		return -ENOMEM;
	char *p = v->buf + v->len;
	if (__builtin_expect(vs && vs->timeless, 0)) {
		p = timeless_head(vs, ev, p);
		goto name;
	}
	int64_t sec = ev->ns / 1000000000, nsec = ev->ns % 1000000000;
	if (nsec < 0) {
		nsec += 1000000000;
		sec--;
	}
	tod(&v->tod, sec);
	memcpy(p, v->tod.text, 10);
	p = fmt9(p + 10, (uint64_t)nsec);
	*p++ = ']';
	if (!v->opts->no_delta) {
		*p++ = ' ';
		*p++ = '(';
		if (v->have_prev) {
			/* back in time only when a follower printed an event
			 * that reached the disk late */
			uint64_t d = (uint64_t)ev->ns - (uint64_t)v->prev;
			*p++ = ev->ns < v->prev ? '-' : '+';
			if (ev->ns < v->prev)
				d = (uint64_t)v->prev - (uint64_t)ev->ns;
			if (d < 1000000000) { /* the usual: no call */
				*p++ = '0';
			} else {
				p = lt_fmt_u64(p, d / 1000000000);
				d %= 1000000000;
			}
			*p++ = '.';
			p = fmt9(p, d);
		} else {
			memcpy(p, "+?.?????????", 12);
			p += 12;
		}
		*p++ = ')';
	}
	if (__builtin_expect(vs && (vs->cpu != ev->cpu || !vs->len), 0))
		make_text(vs, ev->cpu);
	if (__builtin_expect(vs && vs->len <= LT_VIEW_TEXT, 1)) {
		memcpy(p, vs->text, LT_VIEW_TEXT);
		p += vs->len;
	} else {
		if (vs) {
			memcpy(p, vs->host, vs->host_len);
			p += vs->host_len;
		}
		memcpy(p, " cpu ", 5);
		p = lt_fmt_u64(p + 5, ev->cpu);
		*p++ = ' ';
	}
name:;
	size_t nl = ec->name_len;
	if (__builtin_expect(ec->index < v->nnames && nl + 2 <= LT_VIEW_TEXT,
			     1)) {
		memcpy(p, v->names[ec->index], LT_VIEW_TEXT);
		p += nl + 2;
	} else {
		memcpy(p, ec->name, nl);
		p += nl;
		*p++ = ':';
		*p++ = ' ';
	}
	if (text)
		p = lt_event_format_marker(ev, p, LT_MARKER_TEXT_MAX);
	else
		p = lt_event_format(ev, p);
	*p++ = '\n';
	v->len = (size_t)(p - v->buf);
	v->prev = ev->ns;
	v->have_prev = 1;
	return 0;
}

int lt_view_event(struct lt_view *v, const unsigned char *sel,
		  const struct lt_event *ev)
{
	return takes(v, sel, ev) ? line(v, ev) : 0;
}

int lt_view_print(struct lt_view *v, lt_reader_t *t, const unsigned char *sel)
{
	const struct lt_event *ev;
	int r;
	unsigned ns = lt_reader_nstreams(t);
	uint64_t *lost = calloc(ns ? ns : 1, sizeof(*lost));

	if (!lost)
		return lt_cli_error(LT_VIEW, "out of memory");
	/* the line in line in this loop: a call per event cost more than
	 * the line's texts */
	while ((r = lt_reader_next(t, &ev)) > 0) {
		if (__builtin_expect(ev->discarded != lost[ev->stream_index],
				     0))
			lt_view_warn_lost(v, ev, &lost[ev->stream_index]);
		if (!takes(v, sel, ev))
			continue;
		if (line(v, ev) < 0) {
			free(lost);
			return lt_cli_error(LT_VIEW, "out of memory");
		}
		if (v->failed)
			break;
	}
	/* a count that grew in packets with no event after (the last ones
	 * of a stream, empty when the tracer had to drop all it was given) */
	for (unsigned i = 0; r == 0 && !v->failed && i < ns; i++) {
		lt_stream_t *s = lt_reader_stream(t, i);
		lt_view_warn_lost_at_end(v, lt_stream_name(s),
					 lt_stream_discarded(s), lost[i]);
	}
	lt_view_flush(v);
	free(lost);
	if (r < 0)
		return lt_view_iter_error(t, r);
	if (v->failed)
		return lt_cli_error(LT_VIEW, "writing the output: %s",
				    strerror(v->failed));
	return 0;
}

void lt_view_on_warning(void *arg, const char *msg)
{
	struct lt_view *v = arg;
	/* keep the order of output and warnings */
	if (v)
		lt_view_flush(v);
	fprintf(stderr, "lowtrace: %s: warning: %s\n", LT_VIEW, msg);
}

/*
 * Events the tracer dropped between two readings of a stream's running
 * count, as babeltrace2 reports them: the unsigned difference, which wraps
 * when the count went back (a tracer that restarted it).
 */
static uint64_t discarded_since(uint64_t now, uint64_t before)
{
	return now - before;
}

void lt_view_warn_lost(struct lt_view *v, const struct lt_event *ev,
		       uint64_t *seen)
{
	uint64_t n = discarded_since(ev->discarded, *seen);
	*seen = ev->discarded;
	lt_view_flush(v);
	fprintf(stderr,
		"lowtrace: %s: warning: %s: the tracer discarded %llu events "
		"before packet %llu (events_discarded %llu)\n",
		LT_VIEW, ev->stream, (unsigned long long)n,
		(unsigned long long)ev->packet_seq,
		(unsigned long long)ev->discarded);
}

void lt_view_warn_lost_at_end(struct lt_view *v, const char *stream,
			      uint64_t now, uint64_t seen)
{
	if (now == seen)
		return;
	lt_view_flush(v);
	fprintf(stderr,
		"lowtrace: %s: warning: %s: the tracer discarded %llu "
		"events after its last event (events_discarded "
		"%llu)\n",
		LT_VIEW, stream, (unsigned long long)discarded_since(now, seen),
		(unsigned long long)now);
}

int lt_view_iter_error(lt_reader_t *t, int r)
{
	if (r == -EBADMSG)
		return lt_cli_error(LT_VIEW,
				    "%s (the trace is corrupt; --skip-bad "
				    "reads past bad packets)",
				    lt_reader_error(t));
	return lt_cli_error(LT_VIEW, "%s (%s)", lt_reader_error(t),
			    strerror(-r));
}
