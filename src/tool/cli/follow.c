/* SPDX-License-Identifier: MIT */
/*
 * follow.c - `lowtrace view --follow DIR`: the events of a recording, in
 * time order, as their packets reach the disk, with the lines `lowtrace
 * view` prints of the finished trace (viewer.c); it ends when the
 * recording does.
 *
 * Stream files grow by whole packets, but a read may see a write half
 * done, so each stream keeps in memory the bytes from its first packet
 * not wholly printed: whole packets (lt_reader_packet_size()), then the
 * start of the next.  A round, every ROUND_MS:
 *   - the end: the consumer holds a shared flock() on the directory while
 *     it writes it (consumer.h); when an exclusive one is to be had, what
 *     is on disk is the whole trace (a killed recorder's lock goes with
 *     it), and a last round prints everything;
 *   - the metadata, read again (it is replaced by rename, so whole) and
 *     new stream files;
 *   - a reader over the metadata and the whole packets
 *     (lt_reader_open_mem()) walks them merged in time order and prints
 *     the events up to a watermark: an event at t is on disk by t + the
 *     switch timer (the metadata's switch_timer_ms) + a margin, so the
 *     events before now - switch - margin are all there.  Per stream, the
 *     events of its first packet already printed are skipped, and the
 *     packets before the one of its last printed event are let go.
 * Memory so holds about switch + margin of events, and at most READ_MAX
 * bytes of a stream's backlog at a time (the watermark then stays before
 * what is left to read).
 */
#define _GNU_SOURCE
#include "cli/follow.h"
#include "cli/cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ROUND_MS 100
/* the consumer's pass and write, our reads: beyond the switch timer */
#define MARGIN_MS 300
/* a directory without metadata nor recorder (lowtrace record creates the
 * directory a moment before it locks it) */
#define NO_META_MS 2000
/* a packet the metadata does not describe yet (the recorder writes the
 * packets of new events before their metadata), at most */
#define FAULT_MS 5000
#define READ_MAX (8u << 20)
/* the rounds whose packets' lateness sets the margin, at most MAX_MS */
#define LAT_ROUNDS 50
#define LAT_MAX_MS 10000

struct fstream {
	char *name, *path; /* path: DIR/name, for messages */
	uint64_t file_off; /* of buf[0] */
	unsigned char *buf; /* whole packets, then the start of one */
	size_t len, cap, whole;
	int more; /* the file holds more than READ_MAX let in */
	int caught_up; /* a round read it to its end: new packets are new */
	uint64_t seen; /* the end of its whole packets at the last round */
	uint64_t skip; /* events of buf's first packet printed */
	uint64_t lost; /* the tracer's count of discarded events, seen */
	/* the round's walk */
	uint64_t cur_off; /* packet of the last event handed out, in buf */
	uint64_t in_cur; /* events handed out from it */
	int walked;
};

struct follow {
	struct lt_view *v;
	const char *dir;
	int dfd;
	char *meta;
	size_t meta_len;
	lt_reader_t *mt; /* the metadata alone: cuts packets */
	struct lt_clock clock; /* mt's, for a change of calibration */
	struct fstream **s; /* by name, as the reader orders streams */
	unsigned ns, cap, sorted;
	int64_t switch_ns, margin_ns;
	/* how late the packets of the last LAT_ROUNDS rounds came, past
	 * their end, each round's worst: a slow recorder's margin */
	int64_t lat[LAT_ROUNDS];
	unsigned lat_round;
	int64_t printed_to; /* the last round's watermark */
	struct lt_clock wm_clock; /* the clock it was on */
	int times_done, late_warned;
	/* the clock of the last event handed out, and its counts */
	struct lt_clock last_clock;
	uint64_t last_ts;
	int have_last;
	int64_t clock_shift; /* ns, at most, of the times printed before */
	uint64_t fault_since; /* ms, a fault that may be cured */
	int fault_stream; /* a stream the metadata has not */
	int skipping; /* --skip-bad, and the fault was not cured */
	char fault[1100];
	/* the reader's warnings so far: each packet skipped once */
	char **warned;
	unsigned nwarned;
};

/* The message of a fault that is not to be cured. */
static void corrupt(const struct follow *f)
{
	lt_cli_error(LT_VIEW,
		     "%s (the trace is corrupt; --skip-bad reads past bad "
		     "packets)",
		     f->fault);
}

/* The reader's warnings, each once although rounds read a packet again. */
static void on_warning(void *arg, const char *msg)
{
	struct follow *f = arg;
	for (unsigned i = 0; i < f->nwarned; i++)
		if (!strcmp(f->warned[i], msg))
			return;
	char **n = realloc(f->warned, (f->nwarned + 1) * sizeof(*n));
	if (n) {
		f->warned = n;
		if ((n[f->nwarned] = strdup(msg)))
			f->nwarned++;
	}
	lt_view_on_warning(f->v, msg);
}

static int same_clock(const struct lt_clock *a, const struct lt_clock *b)
{
	return a->freq == b->freq && a->offset_s == b->offset_s &&
	       a->offset == b->offset;
}

/* The clock was calibrated again since the last event handed out: the
 * events printed before are off by the change at that event's counts, at
 * least 1 ns (under a ns still moves a truncated time, and the order of
 * two streams' events of one ns). */
static void clock_moved(struct follow *f)
{
	if (!f->have_last || same_clock(&f->last_clock, &f->clock))
		return;
	int64_t d = lt_clock_ns(&f->clock, f->last_ts) -
		    lt_clock_ns(&f->last_clock, f->last_ts);
	d = d < 0 ? -d : d;
	if (d < 1)
		d = 1;
	if (d > f->clock_shift)
		f->clock_shift = d;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* 1 when no consumer holds the directory: the recording has ended. */
static int recording_ended(int dfd)
{
	if (flock(dfd, LOCK_EX | LOCK_NB) < 0)
		return 0;
	flock(dfd, LOCK_UN);
	return 1;
}

/*
 * Reads the metadata again; 1 read (changed or not), 0 none yet, or -1
 * after a message.  A metadata the reader refuses while the recording
 * goes on is not yet one (lowtrace record's first has no stream): the
 * one before stays, until the end.
 */
static int read_metadata(struct follow *f, int ended)
{
	int fd = openat(f->dfd, "metadata", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		lt_cli_error(LT_VIEW, "%s/metadata: %s", f->dir,
			     strerror(errno));
		return -1;
	}
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	if (fstat(fd, &st) == 0) {
		text = malloc((size_t)st.st_size + 1);
		while (text && len < (size_t)st.st_size) {
			ssize_t n =
				read(fd, text + len, (size_t)st.st_size - len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			len += (size_t)n;
		}
	}
	close(fd);
	if (!text) {
		lt_cli_error(LT_VIEW, "%s/metadata: out of memory", f->dir);
		return -1;
	}
	if (f->mt && len == f->meta_len && !memcmp(text, f->meta, len)) {
		free(text);
		return 1;
	}
	char err[1024];
	lt_reader_t *mt;
	if (lt_reader_open_mem(text, len, NULL, 0, NULL, &mt, err,
			       sizeof(err)) < 0) {
		free(text);
		if (!ended)
			return f->mt ? 1 : 0;
		lt_cli_error(LT_VIEW, "%s/%s (is %s a CTF trace?)", f->dir, err,
			     f->dir);
		return -1;
	}
	lt_reader_close(f->mt);
	free(f->meta);
	f->mt = mt;
	f->meta = text;
	f->meta_len = len;
	f->clock = *lt_reader_clock(mt);
	const char *sw = lt_reader_env(mt, "switch_timer_ms");
	long ms = sw ? strtol(sw, NULL, 10) : 0;
	/* a trace not of lowtrace: its tracer's usual timer */
	f->switch_ns = (ms > 0 ? ms : 1000) * 1000000ll;
	return 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct fstream *const *)a)->name,
		      (*(struct fstream *const *)b)->name);
}

/* Notes the stream files that appeared (regular files but the metadata,
 * not starting with '.': the reader's); 0 or -ENOMEM. */
static int scan_streams(struct follow *f)
{
	int dup_fd = dup(f->dfd);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *de;
	int added = 0, r = 0;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return 0;
	}
	rewinddir(d);
	while (r == 0 && (de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		struct fstream key = { .name = de->d_name }, *kp = &key;
		/* (sorted by name up to f->sorted) */
		if (f->sorted &&
		    bsearch(&kp, f->s, f->sorted, sizeof(*f->s), by_name))
			continue;
		if (fstatat(f->dfd, de->d_name, &st, 0) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (f->ns == f->cap) {
			unsigned cap = f->cap ? f->cap * 2 : 16;
			void *n = realloc(f->s, cap * sizeof(*f->s));
			if (!n) {
				r = -ENOMEM;
				break;
			}
			f->s = n;
			f->cap = cap;
		}
		struct fstream *s = calloc(1, sizeof(*s));
		if (!s || !(s->name = strdup(de->d_name)) ||
		    asprintf(&s->path, "%s/%s", f->dir, de->d_name) < 0) {
			if (s)
				free(s->name);
			free(s);
			r = -ENOMEM;
			break;
		}
		f->s[f->ns++] = s;
		added = 1;
	}
	closedir(d);
	if (added)
		qsort(f->s, f->ns, sizeof(*f->s), by_name);
	f->sorted = f->ns;
	return r;
}

/*
 * Reads what the file gained, up to READ_MAX bytes held, and cuts whole
 * packets; 0, -ENOMEM, or a fault of a packet header (its message in
 * f->fault): -ENOENT a stream the metadata has not yet, -EBADMSG.
 */
static int read_stream(struct follow *f, struct fstream *s)
{
	size_t limit = READ_MAX;
	struct stat st;
	int fd = -1;

	/* a file is opened only when it grew: a recording of many processes
	 * leaves many files that do not */
	if (fstatat(f->dfd, s->name, &st, 0) < 0)
		st.st_size = 0;
	for (;;) {
		uint64_t end = s->file_off + s->len;
		s->more = 0;
		if ((uint64_t)st.st_size > end && s->len < limit) {
			size_t want = (uint64_t)st.st_size - end;
			if (want > limit - s->len) {
				want = limit - s->len;
				s->more = 1;
			}
			if (s->cap - s->len < want) {
				size_t cap = s->len + want;
				unsigned char *n = realloc(s->buf, cap);
				if (!n)
					goto nomem;
				s->buf = n;
				s->cap = cap;
			}
			if (fd < 0)
				fd = openat(f->dfd, s->name,
					    O_RDONLY | O_CLOEXEC);
			size_t got = 0;
			while (fd >= 0 && got < want) {
				ssize_t n =
					pread(fd, s->buf + s->len + got,
					      want - got, (off_t)(end + got));
				if (n < 0 && errno == EINTR)
					continue;
				if (n <= 0)
					break;
				got += (size_t)n;
			}
			s->len += got;
		} else if ((uint64_t)st.st_size > end) {
			s->more = 1;
		}
		uint64_t size;
		int r = 0;
		while (s->len > s->whole &&
		       (r = lt_reader_packet_size(f->mt, s->buf + s->whole,
						  s->len - s->whole, &size)) >
			       0)
			s->whole += size;
		if (r < 0) {
			snprintf(f->fault, sizeof(f->fault),
				 "%s: offset %llu: %s", s->path,
				 (unsigned long long)(s->file_off + s->whole),
				 lt_reader_error(f->mt));
			if (fd >= 0)
				close(fd);
			return r;
		}
		if (s->whole || !s->more)
			break;
		limit *= 2; /* a packet larger than the limit: let it in */
	}
	if (fd >= 0)
		close(fd);
	return 0;
nomem:
	if (fd >= 0)
		close(fd);
	return -ENOMEM;
}

/* Lets go of the packets before off, the first of buf from then on. */
static void drop_before(struct fstream *s, size_t off)
{
	if (!off)
		return;
	memmove(s->buf, s->buf + off, s->len - off);
	s->len -= off;
	s->whole -= off;
	s->file_off += off;
	/* a backlog read through: keep no more than what is held */
	if (s->cap > (1u << 20) && s->cap > 4 * s->len) {
		unsigned char *n = realloc(s->buf, s->len ? s->len : 1);
		if (n) {
			s->buf = n;
			s->cap = s->len ? s->len : 1;
		}
	}
}

/* The events of the walk: printed up to wm (those after on a later
 * round); 0, or an error from the reader or the output. */
static int walk(struct follow *f, lt_reader_t *t, struct fstream **map,
		int64_t wm)
{
	struct lt_view *v = f->v;
	const struct lt_event *ev;
	unsigned char *sel = lt_view_select(v, t);
	int r;

	if (!sel || lt_view_bind(v, t) < 0) {
		free(sel);
		return -ENOMEM;
	}
	while ((r = lt_reader_next(t, &ev)) > 0) {
		if (ev->ns > wm)
			break;
		struct fstream *s = map[ev->stream_index];
		if (!s->walked || ev->packet_off != s->cur_off) {
			s->walked = 1;
			s->cur_off = ev->packet_off;
			s->in_cur = 0;
		}
		if (s->in_cur++ < s->skip && s->cur_off == 0)
			continue; /* printed by an earlier round */
		clock_moved(f);
		f->last_clock = f->clock;
		f->last_ts = ev->ts;
		f->have_last = 1;
		if (ev->ns < f->printed_to && !f->late_warned &&
		    same_clock(&f->wm_clock, &f->clock)) {
			lt_view_flush(v);
			fprintf(stderr,
				"lowtrace: %s: warning: %s: events reached the "
				"disk later than the switch timer allows; "
				"they are printed out of order\n",
				LT_VIEW, f->dir);
			f->late_warned = 1;
			f->margin_ns *= 4;
		}
		if (ev->discarded != s->lost)
			lt_view_warn_lost(v, ev, &s->lost);
		if (lt_view_event(v, sel, ev) < 0) {
			r = -ENOMEM;
			break;
		}
		if (v->failed)
			break;
	}
	free(sel);
	if (r < 0)
		lt_view_flush(v); /* the events before the fault, first */
	return r < 0 ? r : 0;
}

/*
 * The margin past the switch timer: MARGIN_MS, or more when the packets
 * of the last rounds reached the disk later than that after their end
 * (the moment the timer or a full sub-buffer closed them: a recorder
 * slowed down by the load of the machine), up to LAT_MAX_MS.  A packet's
 * lateness is from its end to the round that first saw it, in a stream
 * read to its end before (not the backlog of a trace followed late).
 */
static int64_t margin(struct follow *f, lt_reader_t *t, struct fstream **map,
		      unsigned n, int64_t now_ns)
{
	int64_t worst = 0, m = f->margin_ns;
	for (unsigned i = 0; t && i < n; i++) {
		struct fstream *s = map[i];
		if (s->caught_up && s->file_off + s->whole != s->seen) {
			int64_t end = lt_stream_end_ns(lt_reader_stream(t, i));
			if (end != INT64_MAX && now_ns - end > worst)
				worst = now_ns - end;
		}
		s->caught_up = !s->more;
		s->seen = s->file_off + s->whole;
	}
	f->lat[f->lat_round++ % LAT_ROUNDS] = worst;
	for (unsigned i = 0; i < LAT_ROUNDS; i++)
		if (f->lat[i] > m)
			m = f->lat[i];
	return m < LAT_MAX_MS * 1000000ll ? m : LAT_MAX_MS * 1000000ll;
}

/*
 * One round: new bytes, then the events up to the watermark (everything
 * when final); 1 when a stream has more to read at once, 0, or an exit
 * status after a message (-1).
 */
static int follow_round(struct follow *f, int final)
{
	struct lt_view *v = f->v;
	struct lt_mem_stream *ms = NULL;
	struct fstream **map = NULL;
	lt_reader_t *t = NULL;
	char err[1024];
	unsigned n = 0;
	int more = 0, fault = 0, rc = -1;

	if (scan_streams(f) < 0)
		goto nomem;
	f->fault_stream = 0;
	for (unsigned i = 0; i < f->ns; i++) {
		int r = read_stream(f, f->s[i]);
		if (r == -ENOMEM)
			goto nomem;
		if (r < 0 && (final || r != -ENOENT)) {
			corrupt(f);
			goto out;
		}
		f->fault_stream |= r < 0;
		fault |= r < 0;
		more |= f->s[i]->more;
	}
	/* a stream the metadata does not name yet holds events of any time:
	 * wait for the metadata */
	if (fault)
		goto wait;
	ms = calloc(f->ns + 1, sizeof(*ms));
	map = calloc(f->ns + 1, sizeof(*map));
	if (!ms || !map)
		goto nomem;
	for (unsigned i = 0; i < f->ns; i++) {
		struct fstream *s = f->s[i];
		s->walked = 0;
		if (!s->whole)
			continue;
		ms[n] = (struct lt_mem_stream){ s->name, s->buf, s->whole,
						s->path, s->file_off };
		map[n++] = s;
	}
	/* a packet the reader refuses may be one whose events the metadata
	 * names later: --skip-bad steps over it once that is not so */
	struct lt_reader_opts to = {
		.flags = v->opts->skip_bad && (final || f->skipping) ?
				 LT_READER_SKIP_BAD :
				 0,
		.warn = on_warning,
		.warn_arg = f,
	};
	int r = lt_reader_open_mem(f->meta, f->meta_len, ms, n, &to, &t, err,
				   sizeof(err));
	if (r == -ENOMEM)
		goto nomem;
	if (r < 0) {
		snprintf(f->fault, sizeof(f->fault), "%s", err);
		if (final) {
			corrupt(f);
			goto out;
		}
		fault = 1;
		t = NULL;
	}
	if (t && !f->times_done && n) {
		if (lt_view_times(v, lt_reader_begin_ns(t)))
			goto out;
		f->times_done = 1;
	}
	/* events before wm are on disk, and before what is left to read */
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t now_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	int64_t wm =
		final ? INT64_MAX :
			now_ns - f->switch_ns - margin(f, t, map, n, now_ns);
	for (unsigned i = 0; t && i < n; i++)
		if (map[i]->more) {
			int64_t end = lt_stream_end_ns(lt_reader_stream(t, i));
			if (end - 1 < wm)
				wm = end - 1;
		}
	if (t && (r = walk(f, t, map, wm)) < 0) {
		if (r == -ENOMEM)
			goto nomem;
		if (final || r != -EBADMSG) {
			lt_view_iter_error(t, r);
			goto out;
		}
		snprintf(f->fault, sizeof(f->fault), "%s", lt_reader_error(t));
		fault = 1;
	}
	if (v->failed) {
		lt_cli_error(LT_VIEW, "writing the output: %s",
			     strerror(v->failed));
		goto out;
	}
	if (t && !fault && wm > f->printed_to) {
		f->printed_to = wm;
		f->wm_clock = f->clock;
	}
	for (unsigned i = 0; i < n; i++) {
		struct fstream *s = map[i];
		if (!s->walked)
			continue;
		if (s->cur_off == 0)
			s->skip = s->in_cur > s->skip ? s->in_cur : s->skip;
		else
			s->skip = s->in_cur;
		/* a last packet that ends by wm was printed whole: a quiet
		 * stream then holds nothing */
		uint64_t size, drop = s->cur_off;
		if (!fault &&
		    lt_reader_packet_size(f->mt, s->buf + s->cur_off,
					  s->whole - s->cur_off, &size) == 1 &&
		    s->cur_off + size == s->whole &&
		    lt_stream_end_ns(lt_reader_stream(t, i)) <= wm) {
			drop = s->whole;
			s->skip = 0;
		}
		drop_before(s, drop);
	}
	if (final && !more && !fault) {
		/* counts that grew after a stream's last event */
		for (unsigned i = 0; i < n; i++)
			lt_view_warn_lost_at_end(
				v, map[i]->name,
				lt_stream_discarded(lt_reader_stream(t, i)),
				map[i]->lost);
	}
	lt_view_flush(v);
wait:
	if (fault) {
		if (!f->fault_since)
			f->fault_since = now_ms();
		else if (now_ms() - f->fault_since > FAULT_MS &&
			 !(v->opts->skip_bad && f->skipping)) {
			if (!v->opts->skip_bad || f->fault_stream) {
				corrupt(f);
				goto out;
			}
			/* a bad packet, not one to come: step over it */
			f->skipping = 1;
		}
	} else {
		f->fault_since = 0;
	}
	rc = more;
	goto out;
nomem:
	lt_cli_error(LT_VIEW, "out of memory");
out:
	lt_reader_close(t);
	free(ms);
	free(map);
	return rc;
}

/* Waits for the directory; its descriptor, or -1 after a message. */
static int open_dir(const char *dir)
{
	int said = 0;
	for (;;) {
		int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		if (errno != ENOENT) {
			lt_cli_error(LT_VIEW, "%s: %s", dir, strerror(errno));
			return -1;
		}
		if (!said) {
			fprintf(stderr,
				"lowtrace: %s: waiting for %s to be created\n",
				LT_VIEW, dir);
			said = 1;
		}
		sleep_ms(ROUND_MS);
	}
}

/* The times printed before the last metadata were on an earlier
 * calibration of the clock (the recorder refines it at the end): say by
 * how much they differ from the finished trace's. */
static void note_clock_change(struct follow *f)
{
	/* the last metadata's calibration, if no event came after it */
	clock_moved(f);
	if (!f->clock_shift)
		return;
	fprintf(stderr,
		"lowtrace: %s: note: the recording's clock was calibrated "
		"again at its end: the times printed before differ from "
		"`lowtrace view %s` by up to %lld ns\n",
		LT_VIEW, f->dir, (long long)f->clock_shift);
}

int lt_view_follow(struct lt_view *v)
{
	struct follow f = {
		.v = v,
		.dir = v->opts->dir,
		.margin_ns = MARGIN_MS * 1000000ll,
		.printed_to = INT64_MIN,
	};
	uint64_t no_meta_since = 0;
	int rc = 1;

	f.dfd = open_dir(f.dir);
	if (f.dfd < 0)
		return 1;
	for (;;) {
		/* before the reads: what they see then is all there is */
		int ended = recording_ended(f.dfd);
		int m = read_metadata(&f, ended);
		if (m < 0)
			goto out;
		if (m == 0) {
			if (!ended) {
				no_meta_since = 0;
			} else if (!no_meta_since) {
				no_meta_since = now_ms();
			} else if (now_ms() - no_meta_since > NO_META_MS) {
				lt_cli_error(LT_VIEW,
					     "%s/metadata: %s (is %s a CTF "
					     "trace, or a recording that "
					     "ended before writing one?)",
					     f.dir, strerror(ENOENT), f.dir);
				goto out;
			}
			sleep_ms(ROUND_MS);
			continue;
		}
		int r = follow_round(&f, ended);
		if (r < 0)
			goto out;
		if (ended && r == 0)
			break;
		if (r == 0)
			sleep_ms(ROUND_MS);
	}
	rc = 0;
	/* a file that ends inside a packet: a recording cut short */
	for (unsigned i = 0; i < f.ns; i++) {
		struct fstream *s = f.s[i];
		if (s->len > s->whole) {
			rc = lt_cli_error(
				LT_VIEW,
				"%s/%s: offset %llu: the file ends inside a "
				"packet (%llu bytes of it)",
				f.dir, s->name,
				(unsigned long long)(s->file_off + s->whole),
				(unsigned long long)(s->len - s->whole));
		}
	}
	note_clock_change(&f);
out:
	for (unsigned i = 0; i < f.ns; i++) {
		free(f.s[i]->buf);
		free(f.s[i]->name);
		free(f.s[i]->path);
		free(f.s[i]);
	}
	free(f.s);
	for (unsigned i = 0; i < f.nwarned; i++)
		free(f.warned[i]);
	free(f.warned);
	free(f.meta);
	lt_reader_close(f.mt);
	close(f.dfd);
	return rc;
}
