/* SPDX-License-Identifier: MIT */
/*
 * jitter.c - `lowtrace analyze jitter`: anchors found by the analysis.
 * For a periodic event (demo:tick), the interval between consecutive
 * events of one thread (its "tid" field, else the process) less the
 * period is the lateness of an expiry; the worst are ranked.  Needs no
 * kernel events.
 */
#include "analysis/analysis.h"
#include "analysis/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 256

struct expiry {
	int64_t late_ns, ns, interval;
	int64_t tid, seq;
};

int lt_analyze_jitter(lt_reader_t *t, const struct lt_jitter_opts *o, FILE *out)
{
	struct {
		int64_t tid, prev;
	} th[MAX_THREADS];
	unsigned nth = 0, top = o->top ? o->top : 10, nres = 0;
	struct expiry *res = calloc(top, sizeof(*res));
	int64_t first = 0, sum_late = 0, max_late = 0;
	uint64_t nev = 0, nint = 0;
	const struct lt_event *ev;
	int ret;

	if (!res)
		return -ENOMEM;
	while ((ret = lt_reader_next(t, &ev)) > 0) {
		if (!first)
			first = ev->ns;
		if (!lt_pattern_match(o->event, ev->cls->name))
			continue;
		nev++;
		int64_t tid = lt_event_tid(ev), seq = -1;
		lt_event_int(ev, "seq", &seq);
		unsigned i = 0;
		while (i < nth && th[i].tid != tid)
			i++;
		if (i == nth) {
			if (nth == MAX_THREADS)
				continue;
			th[nth].tid = tid;
			th[nth++].prev = ev->ns;
			continue;
		}
		int64_t iv = ev->ns - th[i].prev;
		th[i].prev = ev->ns;
		int64_t late = iv - o->period_ns;
		nint++;
		sum_late += late > 0 ? late : 0;
		if (late > max_late)
			max_late = late;
		unsigned slot = nres;
		if (nres == top) {
			slot = 0;
			for (unsigned k = 1; k < nres; k++)
				if (res[k].late_ns < res[slot].late_ns)
					slot = k;
			if (res[slot].late_ns >= late)
				continue;
		} else {
			nres++;
		}
		res[slot] = (struct expiry){ late, ev->ns, iv, tid, seq };
	}
	if (ret == 0) {
		/* worst first */
		for (unsigned a = 0; a < nres; a++)
			for (unsigned b = a + 1; b < nres; b++)
				if (res[b].late_ns > res[a].late_ns) {
					struct expiry x = res[a];
					res[a] = res[b];
					res[b] = x;
				}
		fprintf(out,
			"%llu %s events, %llu intervals, period %.3f ms: "
			"worst %.3f ms late, mean lateness %.3f ms\n",
			(unsigned long long)nev, o->event,
			(unsigned long long)nint, (double)o->period_ns / 1e6,
			(double)max_late / 1e6,
			nint ? (double)sum_late / 1e6 / (double)nint : 0.0);
		for (unsigned k = 0; k < nres; k++)
			fprintf(out,
				"#%u at +%.6f s tid %lld seq %lld: %.3f ms "
				"after the previous one, %.3f ms late\n",
				k + 1, (double)(res[k].ns - first) / 1e9,
				(long long)res[k].tid, (long long)res[k].seq,
				(double)res[k].interval / 1e6,
				(double)res[k].late_ns / 1e6);
	}
	free(res);
	return ret;
}
