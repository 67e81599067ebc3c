/* SPDX-License-Identifier: MIT */
/*
 * anchor.c - anchors: the events an analysis starts from, given by name
 * (a pattern, probe/pattern.h) or, for lt_tracef's markers, by format
 * ("format:frame * late*"), and an optional condition on their fields in
 * the language of record's filters (probe/filter.h), "demo:tick if
 * late_us > 5000 && name == \"a*\"", tested on the decoded event.
 */
#include "analysis/analysis.h"
#include "analysis/model.h"
#include "ctf/value.h"
#include "probe/filter.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The compiled conditions, one per text, kept until exit: anchors are
 * copied by value and hold no resource of their own, and a command
 * parses a handful of them.
 */
struct cond {
	struct cond *next;
	struct lt_filter *f;
	char text[];
};
static struct cond *conds;
static pthread_mutex_t conds_lock = PTHREAD_MUTEX_INITIALIZER;

static int cond_of(const char *text, const struct lt_filter **out, char *err,
		   size_t errlen)
{
	int rc = 0;
	pthread_mutex_lock(&conds_lock);
	struct cond *c = conds;
	while (c && strcmp(c->text, text) != 0)
		c = c->next;
	if (!c) {
		size_t n = strlen(text) + 1;
		c = malloc(sizeof(*c) + n);
		rc = c ? lt_filter_parse(text, &c->f, err, errlen) : -ENOMEM;
		if (rc) {
			free(c);
			c = NULL;
		} else {
			memcpy(c->text, text, n);
			c->next = conds;
			conds = c;
		}
	}
	*out = c ? c->f : NULL;
	pthread_mutex_unlock(&conds_lock);
	return rc;
}

__attribute__((destructor)) static void free_conds(void)
{
	while (conds) {
		struct cond *c = conds;
		conds = c->next;
		lt_filter_free(c->f);
		free(c);
	}
}

int lt_anchor_parse(const char *spec, struct lt_anchor *a, char *err,
		    size_t errlen)
{
	char why[256];
	const char *cond = strstr(spec, " if ");
	size_t n = cond ? (size_t)(cond - spec) : strlen(spec);
	memset(a, 0, sizeof(*a));
	if (!n || n >= sizeof(a->name)) {
		snprintf(err, errlen, "bad anchor '%s'", spec);
		return -EINVAL;
	}
	memcpy(a->name, spec, n);
	if (!strncmp(a->name, "format:", 7)) {
		a->by_format = 1;
		memmove(a->name, a->name + 7, n - 7 + 1);
	}
	snprintf(a->spec, sizeof(a->spec), "%s", spec);
	if (!cond)
		return 0;
	int rc = cond_of(cond + 4, &a->cond, why, sizeof(why));
	if (rc == -EINVAL)
		snprintf(err, errlen,
			 "bad condition '%s': %s (`lowtrace help conditions`)",
			 cond + 4, why);
	else if (rc)
		snprintf(err, errlen, "%s", strerror(-rc));
	return rc;
}

/* An enum label's range, for lt_filter_eval(). */
static int label_range(const void *ctx, const char *label, size_t len,
		       int64_t *lo, int64_t *hi)
{
	const struct lt_field_class *fc = ctx;
	for (uint32_t i = 0; i < fc->nranges; i++) {
		const struct lt_enum_range *r = &fc->ranges[i];
		if (strlen(r->label) == len &&
		    memcmp(r->label, label, len) == 0) {
			*lo = r->lo;
			*hi = r->hi;
			return 0;
		}
	}
	return -1;
}

/* A decoded event's field by name, for lt_filter_eval(); "tid" is an
 * LTTng-UST event's vtid context, as for lt_event_int(). */
static int field_value(void *arg, const char *name, struct lt_filter_value *out)
{
	const struct lt_event *ev = arg;
	struct lt_value v;
	if (lt_event_field_by_name(ev, name, &v) != 0 &&
	    (strcmp(name, "tid") != 0 ||
	     lt_event_field_by_name(ev, "vtid", &v) != 0))
		return -1;
	out->is_signed = v.fc->is_signed;
	switch (v.kind) {
	case LT_KIND_ENUM:
		out->label = label_range;
		out->ctx = v.fc;
		/* fall through */
	case LT_KIND_INT:
		out->type = v.kind == LT_KIND_ENUM ? LT_FT_ENUM : LT_FT_INT;
		if (out->is_signed)
			out->i = v.i;
		else
			out->u = v.u;
		return 0;
	case LT_KIND_FLOAT:
		out->type = LT_FT_FLOAT;
		out->d = v.f;
		return 0;
	case LT_KIND_STRING:
		out->type = LT_FT_STRING;
		out->str = v.str;
		out->len = v.len;
		return 0;
	case LT_KIND_ARRAY:
	case LT_KIND_SEQUENCE:
		if (v.fc->text) {
			/* a char array: its text up to a NUL */
			out->type = LT_FT_STRING;
			out->str = v.str;
			out->len = strnlen(v.str, v.len);
			return 0;
		}
		break;
	}
	out->type = LT_FT_ARRAY;
	return 0;
}

static int cond_match(const struct lt_anchor *a, const struct lt_event *ev)
{
	return !a->cond || lt_filter_eval(a->cond, field_value, (void *)ev);
}

static int class_match(const struct lt_anchor *a,
		       const struct lt_event_class *c)
{
	if (a->by_format)
		return c->format && lt_pattern_match(a->name, c->format);
	return lt_pattern_match(a->name, c->name);
}

int lt_anchor_match(const struct lt_anchor *a, const struct lt_event *ev)
{
	if (!class_match(a, ev->cls))
		return 0;
	return cond_match(a, ev);
}

int lt_anchor_match_memo(const struct lt_anchor *a, const struct lt_event *ev,
			 uint8_t *memo)
{
	uint8_t *m = &memo[ev->cls->index];
	if (!*m)
		*m = class_match(a, ev->cls) ? 2 : 1;
	return *m == 2 && cond_match(a, ev);
}

int32_t lt_event_tid(const struct lt_event *ev)
{
	int64_t tid;
	if (lt_event_int(ev, "tid", &tid) == 0 ||
	    lt_event_int(ev, "common_tid", &tid) == 0)
		return (int32_t)tid;
	return lt_event_pid(ev);
}

int32_t lt_event_pid(const struct lt_event *ev)
{
	int64_t pid;
	/* a record of buffers shared per user, or an LTTng-UST event with
	 * a vpid context */
	if (lt_event_int(ev, "vpid", &pid) == 0)
		return (int32_t)pid;
	return (int32_t)ev->pid;
}

int64_t lt_parse_duration(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || v < 0)
		return -1;
	if (!*end || strcmp(end, "ms") == 0)
		return (int64_t)(v * 1e6);
	if (strcmp(end, "us") == 0)
		return (int64_t)(v * 1e3);
	if (strcmp(end, "ns") == 0)
		return (int64_t)v;
	if (strcmp(end, "s") == 0)
		return (int64_t)(v * 1e9);
	return -1;
}

uint64_t lt_trace_discarded(lt_reader_t *t)
{
	uint64_t n = 0;
	for (unsigned i = 0; t && i < lt_reader_nstreams(t); i++)
		n += lt_stream_discarded(lt_reader_stream(t, i));
	return n;
}
