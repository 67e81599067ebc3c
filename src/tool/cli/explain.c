/* SPDX-License-Identifier: MIT */
/*
 * explain.c - `lowtrace record --explain`: the verdict for the anchor that
 * fired a trigger, printed as soon as the trigger's snapshot is written.
 *
 * The anchor of a condition trigger ('PATTERN if CONDITION -> snapshot')
 * is the last event of the snapshot that matches it (the snapshot ends with
 * the event that fired it); a trigger without a condition of its own
 * (lt_trigger() in the code, `lowtrace snapshot`) is explained by the
 * --anchor given, else by its lowtrace:trigger event.  The analysis is
 * `lowtrace analyze latency`'s, of the last anchor, and runs in a child
 * process: the recorder goes on draining the buffers meanwhile.  Each
 * explanation is written to stdout in one piece, so that two never mix.
 */
#include "cli/explain.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "ctf/reader.h"

#define MAX_KIDS 16

struct lt_explain {
	const struct lt_rec_options *o;
	const char *anchor; /* --anchor, or NULL */
	pid_t kids[MAX_KIDS];
	int nkids;
};

struct lt_explain *lt_explain_new(const struct lt_rec_options *o,
				  const char *anchor)
{
	struct lt_explain *e = calloc(1, sizeof(*e));
	if (e) {
		e->o = o;
		e->anchor = anchor;
	}
	return e;
}

/* The anchor of trigger NAME: its pattern and condition (one language
 * for both, probe/filter.h); its pattern alone if they do not parse as
 * an anchor. */
static void anchor_of(const struct lt_explain *e, const char *trigger,
		      char *out, size_t cap)
{
	const struct lt_rec_options *o = e->o;
	for (int i = 0; trigger && i < o->nrules; i++) {
		const struct lt_proto_rule *r = &o->rules[i];
		if (strcmp(r->trigger, trigger) != 0)
			continue;
		struct lt_anchor a;
		char err[128];
		snprintf(out, cap, "%s if %s", r->pattern, r->filter);
		if (lt_anchor_parse(out, &a, err, sizeof(err)) != 0)
			snprintf(out, cap, "%s", r->pattern);
		return;
	}
	snprintf(out, cap, "%s", e->anchor ? e->anchor : "lowtrace:trigger");
}

/* The child's work: the whole text first, then one write. */
static int explain_dir(const char *dir, const char *trigger, const char *anchor)
{
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return 1;
	fprintf(f, "lowtrace: explain: %s (%s%s):\n", dir,
		trigger ? "trigger " : "lowtrace snapshot",
		trigger ? trigger : "");
	struct lt_latency_opts lo = { .last = 1 };
	lt_reader_t *t = NULL;
	int rc = lt_anchor_parse(anchor, &lo.anchor, err, sizeof(err));
	if (rc)
		fprintf(f, "lowtrace: explain: anchor %s: %s\n", anchor, err);
	else if ((rc = lt_reader_open(dir, NULL, &t, err, sizeof(err))) < 0)
		fprintf(f, "lowtrace: explain: cannot open %s: %s\n", dir, err);
	else if ((rc = lt_analyze_latency(t, &lo, f)) < 0)
		fprintf(f, "lowtrace: explain: reading %s: %s\n", dir,
			lt_reader_error(t));
	if (t)
		lt_reader_close(t);
	fclose(f);
	if (text && fwrite(text, 1, len, stdout) != len)
		rc = -EIO;
	fflush(stdout);
	free(text);
	return rc ? 1 : 0;
}

static void reap(struct lt_explain *e, int block)
{
	for (int i = 0; i < e->nkids;) {
		if (waitpid(e->kids[i], NULL, block ? 0 : WNOHANG) == 0) {
			i++;
			continue;
		}
		e->kids[i] = e->kids[--e->nkids];
	}
}

void lt_explain_snapshot(void *arg, const char *dir, const char *trigger)
{
	struct lt_explain *e = arg;
	char anchor[LT_PROTO_PATTERN + LT_PROTO_FILTER + 8];

	anchor_of(e, trigger, anchor, sizeof(anchor));
	reap(e, 0);
	if (e->nkids == MAX_KIDS) {
		/* a storm of snapshots: the oldest explanation first */
		waitpid(e->kids[0], NULL, 0);
		e->kids[0] = e->kids[--e->nkids];
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0)
		_exit(explain_dir(dir, trigger, anchor));
	if (pid < 0) {
		/* no process to spare: explain here, the recorder waits */
		explain_dir(dir, trigger, anchor);
		return;
	}
	e->kids[e->nkids++] = pid;
}

void lt_explain_finish(struct lt_explain *e)
{
	if (!e)
		return;
	reap(e, 1);
	free(e);
}
