/* SPDX-License-Identifier: MIT */
/*
 * anchor.c - anchors: the events an analysis starts from, given by name
 * (a pattern, probe/pattern.h) or, for lt_tracef's markers, by format
 * ("format:frame * late*"), and an optional integer condition on one
 * field, "demo:tick if late_us > 5000".
 */
#include "analysis/analysis.h"
#include "analysis/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_EQ = 1, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };

int lt_anchor_parse(const char *spec, struct lt_anchor *a, char *err,
		    size_t errlen)
{
	char field[64], op[3];
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
	long long v;
	char tail;
	if (sscanf(cond + 4, " %63[A-Za-z0-9_] %2[=!<>] %lld %c", field, op, &v,
		   &tail) != 3) {
		snprintf(err, errlen,
			 "bad condition '%s' (FIELD OP INTEGER, e.g. "
			 "late_us > 5000)",
			 cond + 4);
		return -EINVAL;
	}
	static const char *const ops[] = {
		"", "==", "!=", "<", "<=", ">", ">="
	};
	for (int i = 1; i <= OP_GE; i++)
		if (strcmp(op, ops[i]) == 0)
			a->op = i;
	if (!a->op) {
		snprintf(err, errlen, "bad operator '%s' (== != < <= > >=)",
			 op);
		return -EINVAL;
	}
	strcpy(a->field, field);
	a->val = v;
	return 0;
}

static int cond_match(const struct lt_anchor *a, const struct lt_event *ev);

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

static int cond_match(const struct lt_anchor *a, const struct lt_event *ev)
{
	if (!a->op)
		return 1;
	int64_t v;
	if (lt_event_int(ev, a->field, &v) != 0)
		return 0;
	switch (a->op) {
	case OP_EQ:
		return v == a->val;
	case OP_NE:
		return v != a->val;
	case OP_LT:
		return v < a->val;
	case OP_LE:
		return v <= a->val;
	case OP_GT:
		return v > a->val;
	default:
		return v >= a->val;
	}
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
