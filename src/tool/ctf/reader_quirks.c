/* SPDX-License-Identifier: MIT */
/*
 * reader_quirks.c - what the reader lets pass, as babeltrace2 does, with a
 * warning once per stream and kind: the known quirks of real tracers
 * (events a few ns after their packet's end, a packet's first event before
 * its beginning, packets that overlap, timestamp_end 0 after a crash,
 * events_discarded going back), and the damaged packets it steps over.
 */
#include "ctf/reader_quirks.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void lt_quirk(struct lt_stream *s, unsigned kind, uint64_t off, const char *fmt,
	      ...)
{
	struct lt_reader *t = s->t;
	char msg[1024];
	va_list ap;

	if (s->quirks & kind)
		return;
	s->quirks |= kind;
	if (!t->warn)
		return;
	int n = snprintf(msg, sizeof(msg), "%s: offset %llu: ", s->path,
			 (unsigned long long)(s->file_off + off));
	if (n < 0)
		n = 0;
	if ((size_t)n < sizeof(msg)) {
		va_start(ap, fmt);
		vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
		va_end(ap);
	}
	size_t l = strlen(msg);
	snprintf(msg + l, sizeof(msg) - l, " (said once per stream)");
	t->warn(t->warn_arg, msg);
}

void lt_reader_skip(struct lt_reader *t, const char *what)
{
	size_t l = strlen(t->err);
	snprintf(t->err + l, sizeof(t->err) - l, " (%s)", what);
	lt_reader_warn(t);
	t->skipped++;
}

void lt_quirk_after_end(struct lt_stream *s, uint64_t ts, size_t tspos)
{
	lt_quirk(s, LT_QUIRK_AFTER_END, s->pk[s->cur].off + tspos,
		 "event timestamp %llu is %llu after its packet's "
		 "timestamp_end %llu (LTTng-UST before 2.11 and "
		 "lttng-modules before 2.11 wrote so): read at its own time",
		 (unsigned long long)ts, (unsigned long long)(ts - s->ts_end),
		 (unsigned long long)s->ts_end);
}

int lt_quirk_before_begin(struct lt_stream *s, uint64_t ts, size_t tspos)
{
	const struct lt_packet *p = &s->pk[s->cur];
	/* only the packet's first event (s->pos is where it starts) */
	if (s->pos != p->hdr_len || ts >= p->ts_begin)
		return 0;
	lt_quirk(s, LT_QUIRK_BEFORE_BEGIN, p->off + tspos,
		 "the packet's first event, at %llu, is before its "
		 "timestamp_begin %llu (barectf before 2.3.1 wrote so): "
		 "read at its own time",
		 (unsigned long long)ts, (unsigned long long)p->ts_begin);
	return 1;
}
