/* SPDX-License-Identifier: MIT */
/*
 * view.c - `lowtrace view`: prints a trace's events as text, one line per
 * event, merged across streams in time order:
 *
 *   [HH:MM:SS.nnnnnnnnn] (+S.nnnnnnnnn) HOST cpu N name: { field = value, ... }
 *
 * The time of day is local time (TZ=UTC for UTC), like babeltrace2's; the
 * delta is to the previous printed event.  Lines are built in a large
 * buffer with hand-written number formatting and written with write(2).
 * An lt_tracef marker's line has its text, its format with its fields,
 * instead of the fields (--fields: the fields, as babeltrace2 prints
 * them).  --stats decodes every event and field without printing them.
 */
#define _GNU_SOURCE
#include "analysis/analysis.h"
#include "cli/cli.h"
#include "ctf/reader.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define VIEW "view"
#define OUT_CAP (1u << 20)

static const char view_usage[] =
	"usage: lowtrace view DIR [-e PATTERN[,PATTERN...]] [--begin TIME] "
	"[--end TIME]\n"
	"                     [--no-delta] [--fields] [--stats] [--skip-bad]\n"
	"\n"
	"Prints the events of the CTF 1.8 trace in DIR in time order, one "
	"line each:\n"
	"  [HH:MM:SS.nnnnnnnnn] (+S.nnnnnnnnn) HOST cpu N name: { field = "
	"value, ... }\n"
	"When DIR holds no metadata file, every trace below it is read (an "
	"LTTng\n"
	"session: kernel/, ust/uid/UID/64-bit/, ust/pid/...) and their events "
	"merged\n"
	"by time since the epoch, each on its own clock.\n"
	"The time of day is local time (set TZ=UTC for UTC); the delta is to "
	"the\n"
	"previous printed event.  HOST is what babeltrace2 prints there: the "
	"env block's\n"
	"hostname, procname and (vpid), those the event's trace has, joined by "
	"':'\n"
	"(host; host:app:(4242) in an LTTng-UST per-process trace; left out "
	"with\n"
	"none).  N is the packet context's cpu_id (0 without one).\n"
	"Then, as babeltrace2 prints them, each in braces: the stream's event "
	"context\n"
	"and the event's context when the trace has them (LTTng's vtid, "
	"procname, ...),\n"
	"then the payload.  Values: integers in their base (hex as 0x..), "
	"enums as\n"
	"( \"LABEL\" : container = N ), floats as %g, strings and char "
	"arrays quoted\n"
	"with escapes, arrays and sequences as [ [0] = v, ... ].\n"
	"A marker (lt_tracef) shows its text instead of its fields:\n"
	"  ... cpu N lt_tracef:FILE:LINE: frame 7 late by 120 us\n"
	"\n"
	"  -e PATTERNS   only events whose name matches one of the patterns "
	"(comma\n"
	"                separated, '*' matches anything: 'myapp:*', "
	"'*:frame_*')\n"
	"  --begin TIME  only events at or after TIME\n"
	"  --end TIME    only events at or before TIME\n"
	"                TIME is nanoseconds since the epoch (an integer), "
	"seconds\n"
	"                since the epoch with a fraction (1764740000.5), or "
	"a local\n"
	"                time of day HH:MM:SS[.frac] on the day the trace "
	"starts\n"
	"  --no-delta    leave out the (+S.nnnnnnnnn) column\n"
	"  --fields      markers' fields instead of their text\n"
	"  --stats       decode every event without printing; print counts\n"
	"  --skip-bad    skip corrupt packets (with a warning) instead of "
	"stopping\n";

struct out {
	char *buf;
	size_t len, cap;
	int failed;
};

static void out_flush(struct out *o)
{
	size_t done = 0;
	while (done < o->len && !o->failed) {
		ssize_t n = write(1, o->buf + done, o->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->failed = errno ? errno : EIO;
			break;
		}
		done += (size_t)n;
	}
	o->len = 0;
}

/* Room for n more bytes; 0 or -ENOMEM. */
static int out_reserve(struct out *o, size_t n)
{
	if (o->cap - o->len >= n)
		return 0;
	out_flush(o);
	if (o->cap >= n)
		return 0;
	char *nb = realloc(o->buf, n);
	if (!nb)
		return -ENOMEM;
	o->buf = nb;
	o->cap = n;
	return 0;
}

/* Any of the patterns ('*' wildcards), as the analyses match names. */
static int any_match(char **pats, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (lt_glob_match(pats[i], name))
			return 1;
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

/* The "[HH:MM:SS." of a second, in local time, cached per second. */
struct tod_cache {
	int64_t sec;
	int valid;
	char text[16];
};

static void tod(struct tod_cache *c, int64_t sec)
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

/* v < 10^9 as exactly nine digits. */
static char *fmt9(char *p, uint64_t v)
{
	uint32_t x = (uint32_t)v;
	p[0] = (char)('0' + x / 100000000);
	lt_fmt_8digits(p + 1, x % 100000000);
	return p + 9;
}

static void on_warning(void *arg, const char *msg)
{
	struct out *o = arg;
	/* keep the order of output and warnings */
	if (o)
		out_flush(o);
	fprintf(stderr, "lowtrace: %s: warning: %s (packet skipped)\n", VIEW,
		msg);
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

/* The tracer's running count of dropped events grew: say so, in order. */
static void warn_lost(struct out *o, const struct lt_event *ev, uint64_t *seen)
{
	uint64_t n = discarded_since(ev->discarded, *seen);
	*seen = ev->discarded;
	out_flush(o);
	fprintf(stderr,
		"lowtrace: %s: warning: %s: the tracer discarded %llu events "
		"before packet %llu (events_discarded %llu)\n",
		VIEW, ev->stream, (unsigned long long)n,
		(unsigned long long)ev->packet_seq,
		(unsigned long long)ev->discarded);
}

struct view_opts {
	const char *dir;
	char *patterns;
	const char *begin, *end;
	int no_delta, fields, stats, skip_bad;
};

static int iter_error(lt_reader_t *t, int r)
{
	if (r == -EBADMSG)
		return lt_cli_error(VIEW,
				    "%s (the trace is corrupt; --skip-bad "
				    "reads past bad packets)",
				    lt_reader_error(t));
	return lt_cli_error(VIEW, "%s (%s)", lt_reader_error(t), strerror(-r));
}

static int run_stats(lt_reader_t *t, const unsigned char *sel, int64_t lo,
		     int64_t hi)
{
	unsigned nc = lt_reader_nclasses(t);
	uint64_t *counts = calloc(nc ? nc : 1, sizeof(*counts));
	uint64_t total = 0, fields = 0, sum = 0;
	int64_t first = 0, last = 0;
	const struct lt_event *ev;
	struct lt_value v;
	struct timespec t0, t1;
	int r;

	if (!counts)
		return lt_cli_error(VIEW, "out of memory");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((r = lt_reader_next(t, &ev)) > 0) {
		if (!sel[ev->cls->index] || ev->ns < lo || ev->ns > hi)
			continue;
		if (!total)
			first = ev->ns;
		last = ev->ns;
		total++;
		counts[ev->cls->index]++;
		/* read every value, as a printer would */
		for (unsigned i = 0; i < ev->cls->nfields; i++) {
			lt_event_field(ev, i, &v);
			sum += v.u + v.len;
			fields++;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (r < 0) {
		free(counts);
		return iter_error(t, r);
	}
	double secs = (double)(t1.tv_sec - t0.tv_sec) +
		      (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("events: %llu\n", (unsigned long long)total);
	printf("fields: %llu\n", (unsigned long long)fields);
	if (total)
		printf("span: %lld .. %lld ns since the epoch\n",
		       (long long)first, (long long)last);
	for (unsigned i = 0; i < nc; i++) {
		const struct lt_event_class *ec = lt_reader_class(t, i);
		if (counts[i])
			printf("  %-32s %12llu  (stream %u, id %llu)\n",
			       ec->name, (unsigned long long)counts[i],
			       ec->stream_id, (unsigned long long)ec->id);
	}
	uint64_t discarded = 0;
	for (unsigned i = 0; i < lt_reader_nstreams(t); i++)
		discarded += lt_stream_discarded(lt_reader_stream(t, i));
	printf("streams: %u\n", lt_reader_nstreams(t));
	printf("discarded by the tracer: %llu\n",
	       (unsigned long long)discarded);
	printf("skipped packets: %llu\n",
	       (unsigned long long)lt_reader_skipped_packets(t));
	printf("decode: %.3f s, %.0f events/s (checksum %llx)\n", secs,
	       secs > 0 ? (double)total / secs : 0.0,
	       (unsigned long long)(sum & 0xffff));
	free(counts);
	return 0;
}

/* A count that grew in packets with no event after (the last ones of a
 * stream, empty when the tracer had to drop all it was given). */
static void warn_lost_at_end(lt_reader_t *t, struct out *o,
			     const uint64_t *seen)
{
	for (unsigned i = 0; i < lt_reader_nstreams(t); i++) {
		lt_stream_t *s = lt_reader_stream(t, i);
		uint64_t d = lt_stream_discarded(s);
		if (d == seen[i])
			continue;
		out_flush(o);
		fprintf(stderr,
			"lowtrace: %s: warning: %s: the tracer discarded %llu "
			"events after its last event (events_discarded "
			"%llu)\n",
			VIEW, lt_stream_name(s),
			(unsigned long long)discarded_since(d, seen[i]),
			(unsigned long long)d);
	}
}

/*
 * What babeltrace2 prints of a trace's env before each event's name, with
 * a space before it: the env's hostname, procname and (vpid), those it
 * has, joined by ':'; "" when it has none.  One per stream, as each stream
 * belongs to one trace of the tree.
 */
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

static void free_hosts(char **host, unsigned n)
{
	for (unsigned i = 0; host && i < n; i++)
		free(host[i]);
	free(host);
}

static int run_print(lt_reader_t *t, const unsigned char *sel, int64_t lo,
		     int64_t hi, int no_delta, int fields, struct out *o)
{
	struct tod_cache tc = { 0 };
	const struct lt_event *ev;
	int64_t prev = 0;
	int have_prev = 0, r;
	unsigned ns = lt_reader_nstreams(t);
	uint64_t *lost = calloc(ns ? ns : 1, sizeof(*lost));
	char **host = calloc(ns ? ns : 1, sizeof(*host));
	size_t *host_len = calloc(ns ? ns : 1, sizeof(*host_len));

	for (unsigned i = 0; host && host_len && i < ns; i++) {
		host[i] = host_text(lt_reader_stream(t, i));
		if (!host[i]) {
			free_hosts(host, ns);
			host = NULL;
			break;
		}
		host_len[i] = strlen(host[i]);
	}
	if (!lost || !host || !host_len) {
		free(lost);
		free_hosts(host, ns);
		free(host_len);
		return lt_cli_error(VIEW, "out of memory");
	}
	while ((r = lt_reader_next(t, &ev)) > 0) {
		if (__builtin_expect(ev->discarded != lost[ev->stream_index],
				     0))
			warn_lost(o, ev, &lost[ev->stream_index]);
		if (!sel[ev->cls->index] || ev->ns < lo || ev->ns > hi)
			continue;
		const char *name = ev->cls->name;
		size_t nl = ev->cls->name_len;
		int text = ev->cls->format && !fields;
		size_t hl = host_len[ev->stream_index];
		size_t need =
			96 + nl + hl +
			(text ? LT_MARKER_TEXT_MAX : lt_event_format_bound(ev));
		if (out_reserve(o, need) < 0) {
			free(lost);
			free_hosts(host, ns);
			free(host_len);
			return lt_cli_error(VIEW, "out of memory");
		}
		char *p = o->buf + o->len;
		int64_t sec = ev->ns / 1000000000, nsec = ev->ns % 1000000000;
		if (nsec < 0) {
			nsec += 1000000000;
			sec--;
		}
		tod(&tc, sec);
		memcpy(p, tc.text, 10);
		p = fmt9(p + 10, (uint64_t)nsec);
		*p++ = ']';
		if (!no_delta) {
			memcpy(p, " (+", 3);
			p += 3;
			if (have_prev) {
				uint64_t d = (uint64_t)ev->ns - (uint64_t)prev;
				p = lt_fmt_u64(p, d / 1000000000);
				*p++ = '.';
				p = fmt9(p, d % 1000000000);
			} else {
				memcpy(p, "?.?????????", 11);
				p += 11;
			}
			*p++ = ')';
		}
		memcpy(p, host[ev->stream_index], hl);
		p += hl;
		memcpy(p, " cpu ", 5);
		p = lt_fmt_u64(p + 5, ev->cpu);
		*p++ = ' ';
		memcpy(p, name, nl);
		p += nl;
		*p++ = ':';
		*p++ = ' ';
		if (text)
			p = lt_event_format_marker(ev, p, LT_MARKER_TEXT_MAX);
		else
			p = lt_event_format(ev, p);
		*p++ = '\n';
		o->len = (size_t)(p - o->buf);
		prev = ev->ns;
		have_prev = 1;
		if (o->failed)
			break;
	}
	if (r == 0 && !o->failed)
		warn_lost_at_end(t, o, lost);
	out_flush(o);
	free(lost);
	free_hosts(host, ns);
	free(host_len);
	if (r < 0)
		return iter_error(t, r);
	if (o->failed)
		return lt_cli_error(VIEW, "writing the output: %s",
				    strerror(o->failed));
	return 0;
}

static int parse_args(int argc, char **argv, struct view_opts *vo)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--no-delta")) {
			vo->no_delta = 1;
		} else if (!strcmp(a, "--fields")) {
			vo->fields = 1;
		} else if (!strcmp(a, "--stats") || !strcmp(a, "--count")) {
			vo->stats = 1;
		} else if (!strcmp(a, "--skip-bad")) {
			vo->skip_bad = 1;
		} else if (!strcmp(a, "-e") || !strcmp(a, "--begin") ||
			   !strcmp(a, "--end")) {
			if (!v)
				return lt_cli_error(VIEW,
						    "%s needs a value (see "
						    "`lowtrace help view`)",
						    a);
			i++;
			if (!strcmp(a, "-e"))
				vo->patterns = argv[i];
			else if (!strcmp(a, "--begin"))
				vo->begin = argv[i];
			else
				vo->end = argv[i];
		} else if (a[0] == '-' && a[1]) {
			return lt_cli_error(VIEW,
					    "unknown option '%s' (see "
					    "`lowtrace help view`)",
					    a);
		} else if (!vo->dir) {
			vo->dir = a;
		} else {
			return lt_cli_error(VIEW,
					    "more than one trace directory "
					    "(give one DIR)");
		}
	}
	if (!vo->dir)
		return lt_cli_error(VIEW, "no trace directory given (usage: "
					  "lowtrace view DIR)");
	return 0;
}

static int view_run(int argc, char **argv)
{
	struct view_opts vo = { 0 };
	struct out o = { 0 };
	char err[1024];
	lt_reader_t *t = NULL;
	char *pats[64];
	unsigned npats = 0;
	unsigned char *sel = NULL;
	int64_t lo = INT64_MIN, hi = INT64_MAX;
	int rc;

	if (parse_args(argc, argv, &vo))
		return 1;
	o.cap = OUT_CAP;
	o.buf = malloc(o.cap);
	if (!o.buf)
		return lt_cli_error(VIEW, "out of memory");
	struct lt_reader_opts to = {
		.flags = vo.skip_bad ? LT_READER_SKIP_BAD : 0,
		.warn = on_warning,
		.warn_arg = &o,
	};
	int r = lt_reader_open(vo.dir, &to, &t, err, sizeof(err));
	if (r < 0) {
		if (r == -EBADMSG)
			rc = lt_cli_error(
				VIEW,
				"%s (the trace is corrupt; --skip-bad "
				"reads past bad packets)",
				err);
		else
			rc = lt_cli_error(VIEW, "%s (is %s a CTF trace?)", err,
					  vo.dir);
		goto out;
	}
	if (vo.patterns) {
		for (char *tok = strtok(vo.patterns, ","); tok;
		     tok = strtok(NULL, ",")) {
			if (npats == 64) {
				rc = lt_cli_error(VIEW,
						  "too many patterns (64 at "
						  "most)");
				goto out;
			}
			pats[npats++] = tok;
		}
	}
	unsigned nc = lt_reader_nclasses(t);
	sel = calloc(nc ? nc : 1, 1);
	if (!sel) {
		rc = lt_cli_error(VIEW, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < nc; i++)
		sel[i] = !npats ||
			 any_match(pats, npats, lt_reader_class(t, i)->name);
	if (vo.begin || vo.end) {
		int64_t first = lt_reader_begin_ns(t);
		if (vo.begin && parse_time(vo.begin, first, &lo) < 0) {
			rc = lt_cli_error(VIEW,
					  "bad --begin time '%s' (give ns, "
					  "SECONDS.FRAC or HH:MM:SS[.frac])",
					  vo.begin);
			goto out;
		}
		if (vo.end && parse_time(vo.end, first, &hi) < 0) {
			rc = lt_cli_error(VIEW,
					  "bad --end time '%s' (give ns, "
					  "SECONDS.FRAC or HH:MM:SS[.frac])",
					  vo.end);
			goto out;
		}
	}
	if (vo.stats)
		rc = run_stats(t, sel, lo, hi);
	else
		rc = run_print(t, sel, lo, hi, vo.no_delta, vo.fields, &o);
out:
	free(sel);
	lt_reader_close(t);
	free(o.buf);
	return rc;
}

LT_CLI_VERB(view_verb, .name = VIEW,
	    .summary = "print a trace's events in time order",
	    .usage = view_usage, .run = view_run)
