/* SPDX-License-Identifier: MIT */
/*
 * reader.c - the trace reader: finds the traces of a directory tree, reads
 * their metadata, maps the stream files and has their packets indexed
 * (reader_index.c), sets the streams up for decoding and the merge
 * (reader_decode.c), and answers for the trace (its streams, classes,
 * clock, environment).
 */
#define _GNU_SOURCE
#include "ctf/reader.h"
#include "ctf/reader_index.h"

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
		int r = lt_stream_index(t, s);
		if (r < 0) {
			snprintf(err, errlen, "%s", t->err);
			return r;
		}
		/* the packet headers' pages, when indexed whole: read again
		 * as the pass goes */
		if (s->map_len > LT_WINDOW && s->ix_done)
			madvise((void *)s->data, s->map_len, MADV_DONTNEED);
		if (s->clock) {
			/* the conversion of decode_fast(): see ns_lim */
			s->base_ns = s->clock->base_ns;
			if (s->clock->freq != 1000000000u)
				s->ns_lim = 0;
			else if (s->base_ns > 0)
				s->ns_lim = (uint64_t)(INT64_MAX - s->base_ns);
			else
				s->ns_lim = (uint64_t)INT64_MAX;
		}
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
	r = lt_metadata_parse(metadata, metadata_len, "metadata",
			      &t->parts[0].m, err, errlen);
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
	return lt_metadata_parse(t->meta, got, path, &t->m, err, errlen);
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

/* The index of s made whole, for what only the whole index tells (a
 * cache: s is the same stream to the caller after). */
static const struct lt_stream *whole(const struct lt_stream *s)
{
	struct lt_stream *w = (struct lt_stream *)s;
	int r = lt_stream_index_whole(w);
	if (r < 0 && !w->err)
		w->err = r;
	return s;
}

uint64_t lt_reader_skipped_packets(const lt_reader_t *t)
{
	for (unsigned i = 0; i < t->nstreams; i++)
		whole(&t->streams[i]);
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
	return whole(s)->npk;
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
	if (!whole(s)->npk)
		return INT64_MIN;
	const struct lt_packet *p = &s->pk[s->npk - 1];
	return p->open_end ? INT64_MAX : lt_clock_ns(s->clock, p->ts_end);
}

int lt_stream_has_clock(const lt_stream_t *s)
{
	return !s->m->clockless;
}

int lt_reader_has_clock(const lt_reader_t *t)
{
	for (unsigned i = 0; i < t->nstreams; i++)
		if (lt_stream_has_clock(&t->streams[i]))
			return 1;
	return !t->nstreams && !t->parts[0].m.clockless;
}

uint64_t lt_stream_discarded(const lt_stream_t *s)
{
	return whole(s)->npk ? s->pk[s->npk - 1].discarded : 0;
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

const char *lt_stream_env_at(const lt_stream_t *s, unsigned i, const char **key)
{
	if (i >= s->m->nenv)
		return NULL;
	*key = s->m->env[i].key;
	return s->m->env[i].value;
}

const struct lt_clock *lt_stream_clock(const lt_stream_t *s)
{
	return s->clock;
}

const char *lt_stream_path(const lt_stream_t *s)
{
	return s->path;
}
