/* SPDX-License-Identifier: MIT */
/*
 * registry.c - events registered by loaded objects, the rules sessions set,
 * and the per-event target lists lt_probe_emit() reads (see probe.h).
 *
 * Everything here runs under one mutex, off the tracing path.  An event
 * defined in several translation units or objects has several descriptors
 * (struct lt_event_desc); they share one entry, one id and one target list.
 * Entries outlive the objects that registered them (their field lists are
 * copied), so that a trace's metadata still describes events whose
 * library was unloaded.
 */
#include "probe/probe.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clock/clock.h"
#include "format/marker.h"
#include "format/metadata.h"
#include "probe/fields.h"
#include "probe/filter.h"
#include "probe/pattern.h"
#include "probe/targets.h"

struct entry {
	char *name;
	char *format; /* an lt_tracef marker's, else NULL */
	int loglevel;
	uint32_t id;
	struct lt_field_desc *fields;
	uint32_t nfields;
	struct lt_event_desc **descs;
	size_t ndescs, cap;
	struct lt_targets *targets;
};

struct rule {
	const void *owner;
	char *pattern;
	int loglevel_max;
	struct lt_ring *ring; /* NULL for a trigger */
	char *filter; /* NULL: none */
	void (*fire)(void *arg);
	void *arg;
};

struct range {
	struct lt_event_desc *const *start, *const *stop;
	int refs;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry **entries;
static size_t nentries, entries_cap;
static struct rule *rules;
static size_t nrules, rules_cap;
static struct range *ranges;
static size_t nranges, ranges_cap;
static _Atomic uint64_t generation;
static struct lt_targets *retired; /* replaced, not yet freed */
/* the agent's sessions (one each), told of every event */
static struct {
	lt_probe_event_fn fn;
	void *arg;
} listeners[LT_PROBE_MAX_LISTENERS];
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
/* rings shared with other processes: their ids and the pid records carry */
static struct {
	struct lt_ring *ring;
	int32_t pid;
	lt_probe_id_fn id;
	void *arg;
} shared[LT_PROBE_MAX_SHARED];

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap * 2 : 16;
	while (n < need)
		n *= 2;
	void *p = realloc(*arr, n * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

/* An entry as the metadata, the protocol and shared rings describe it. */
static struct lt_ctf_event entry_event(const struct entry *e)
{
	return (struct lt_ctf_event){ e->id,	 e->name,    e->loglevel,
				      e->fields, e->nfields, e->format };
}

static struct entry *find_entry(const char *name)
{
	for (size_t i = 0; i < nentries; i++)
		if (strcmp(entries[i]->name, name) == 0)
			return entries[i];
	return NULL;
}

static int same_layout(const struct entry *e, const struct lt_field_desc *f,
		       uint32_t n, int loglevel)
{
	return loglevel == e->loglevel &&
	       lt_fields_same(e->fields, e->nfields, f, n);
}

static int rule_selects(const struct rule *r, const struct entry *e)
{
	return e->loglevel <= r->loglevel_max &&
	       lt_pattern_match(r->pattern, e->name);
}

/* The rule's filter compiled for e (NULL without one); *fits is 0 when
 * the filter does not fit e's fields: the rule does not select e. */
static struct lt_filter *compile_for(const struct rule *r,
				     const struct entry *e, int *fits,
				     char *err, size_t errcap)
{
	struct lt_filter *f = NULL;
	*fits = 1;
	if (r->filter && lt_filter_compile(r->filter, e->name, e->fields,
					   e->nfields, &f, err, errcap))
		*fits = 0;
	return f;
}

/* The event's id in ring and the pid its records carry there (0: none);
 * 0, or -1 if ring has no id for it. */
static int id_in(const struct lt_ring *ring, const struct entry *e,
		 uint32_t *id, int32_t *pid)
{
	*id = e->id;
	*pid = 0;
	for (int k = 0; k < LT_PROBE_MAX_SHARED; k++) {
		if (shared[k].ring != ring)
			continue;
		struct lt_ctf_event pe = entry_event(e);
		*id = shared[k].id(shared[k].arg, &pe);
		*pid = shared[k].pid;
		return *id == LT_PROBE_NO_ID ? -1 : 0;
	}
	return 0;
}

/* Adds the rule's ring to t, or widens the filter of the ring's target:
 * two rules to one ring record an event once, if either selects it. */
static void add_ring_target(struct lt_targets *t, const struct rule *r,
			    const struct entry *e, struct lt_filter *f)
{
	uint32_t k = 0;
	while (k < t->n && t->t[k].ring != r->ring)
		k++;
	if (k == t->n) {
		uint32_t id;
		int32_t pid;
		if (id_in(r->ring, e, &id, &pid) < 0) {
			lt_filter_free(f);
			return;
		}
		t->t[t->n++] =
			(struct lt_target){ r->ring, f, NULL, NULL, id, pid };
		return;
	}
	struct lt_target *g = &t->t[k];
	if (g->filter && (!f || lt_filter_or(&g->filter, f))) {
		lt_filter_free(g->filter);
		g->filter = NULL; /* unfiltered, or too long to combine */
	}
	lt_filter_free(f);
}

static struct lt_targets *build_targets(struct entry *e)
{
	size_t n = 0;
	for (size_t i = 0; i < nrules; i++)
		n += rule_selects(&rules[i], e);
	if (!n)
		return NULL;
	struct lt_targets *t = calloc(1, sizeof(*t) + n * sizeof(t->t[0]));
	if (!t)
		return NULL;
	t->id = e->id;
	for (int triggers = 0; triggers < 2; triggers++) {
		for (size_t i = 0; i < nrules; i++) {
			const struct rule *r = &rules[i];
			int fits;
			if ((r->ring == NULL) != triggers ||
			    !rule_selects(r, e))
				continue;
			struct lt_filter *f = compile_for(r, e, &fits, NULL, 0);
			if (!fits)
				continue;
			if (r->ring)
				add_ring_target(t, r, e, f);
			else
				t->t[t->n++] =
					(struct lt_target){ NULL,   f, r->fire,
							    r->arg, 0, 0 };
		}
	}
	if (!t->n) {
		free(t);
		return NULL;
	}
	if (t->n == 1 && t->t[0].ring && !t->t[0].filter &&
	    t->t[0].id == t->id && !t->t[0].pid)
		t->solo = t->t[0].ring;
	if (t->n == 1 && t->t[0].ring && !t->t[0].filter && t->t[0].pid &&
	    t->t[0].ring->sync == LT_RING_SYNC_RSEQ &&
	    t->t[0].id < LT_EV_ID_EXTENDED)
		t->led = &t->t[0];
	/* a ring's kind is chosen before its first record and kept */
	if (t->solo && t->solo->sync == LT_RING_SYNC_RSEQ &&
	    t->id < LT_EV_ID_EXTENDED)
		t->fast = t->solo;
	/* the sequences read the TSC: a change of clock rebuilds the lists
	 * (lt_probe_clock_changed()) */
	if (t->fast && lt_clock_calib.source == LT_CLOCK_TSC &&
	    lt_probe_seq_usable())
		t->seq = t->fast;
	return t;
}

/*
 * Publishes a list (or NULL) to a descriptor: the list, the ring its call
 * sites' inline sequence writes (tp_seq.h; only to call sites compiled
 * against this layout, seq is not a field of the others' descriptors),
 * then the byte the call sites test.  Release: the list's and the ring's
 * contents before their addresses; pairs with the acquire load in
 * lt_probe_emit().
 */
static void publish_desc(struct lt_event_desc *d, struct lt_targets *t)
{
	/* Model: models/probe_seq.pml, BUG_RELAXED_PUBLISH */
	__atomic_store_n(&d->targets, (void *)t, __ATOMIC_RELEASE);
	if (d->layout == LT_SEQ_LAYOUT)
		__atomic_store_n(&d->seq, t ? (void *)t->seq : NULL,
				 __ATOMIC_RELEASE);
	__atomic_store_n(&d->enabled, t != NULL, __ATOMIC_RELAXED);
}

/* Builds the entry's target list from the rules and publishes it. */
static int update_entry(struct entry *e)
{
	struct lt_targets *t = build_targets(e);
	struct lt_targets *old = e->targets;
	e->targets = t;
	for (size_t i = 0; i < e->ndescs; i++)
		publish_desc(e->descs[i], t);
	if (old) {
		old->next_retired = retired;
		retired = old;
	}
	return 0;
}

/* Frees the replaced lists, after one wait for the readers of them all. */
static void free_retired(void)
{
	if (!retired)
		return;
	lt_probe_sync();
	while (retired) {
		struct lt_targets *t = retired;
		retired = t->next_retired;
		lt_targets_free(t);
	}
}

static void update_all(void)
{
	for (size_t i = 0; i < nentries; i++)
		update_entry(entries[i]);
	free_retired();
}

/* A rule that names e exactly with a filter that does not fit it. */
static void report_misfits(const struct entry *e)
{
	char err[600];
	for (size_t i = 0; i < nrules; i++) {
		const struct rule *r = &rules[i];
		int fits;
		if (!r->filter || !lt_pattern_is_literal(r->pattern) ||
		    !rule_selects(r, e))
			continue;
		lt_filter_free(compile_for(r, e, &fits, err, sizeof(err)));
		if (!fits)
			fprintf(stderr,
				"lowtrace: event %s is not recorded: its "
				"filter does not fit it: %s\n",
				e->name, err);
	}
}

static void add_desc(struct lt_event_desc *d)
{
	const struct lt_field_desc *f = d->fields ? d->fields() : NULL;
	const char *format = NULL;
	char err[600];

	if (f && f[0].name && f[0].type == LT_FT_MARKER) {
		/* an lt_tracef call site: the fields and format follow (no
		 * format: an event defined at run time) */
		const struct lt_marker_desc *m =
			(const struct lt_marker_desc *)d;
		f = m->fields;
		format = m->format;
		if (format && lt_marker_check(format, f, lt_fields_count(f),
					      err, sizeof(err)) < 0) {
			fprintf(stderr,
				"lowtrace: marker %s stays disabled: %s\n",
				d->full, err);
			return;
		}
	}
	uint32_t n = lt_fields_count(f);
	struct entry *e = find_entry(d->full);

	if (e && (!same_layout(e, f, n, d->loglevel) ||
		  (format && (!e->format || strcmp(format, e->format))))) {
		fprintf(stderr,
			"lowtrace: event %s is defined twice with different "
			"fields or log level; the later definition stays "
			"disabled (rebuild the objects from one provider "
			"header)\n",
			d->full);
		return;
	}
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e || grow((void **)&entries, &entries_cap, nentries + 1,
			       sizeof(*entries)) < 0) {
			free(e);
			return;
		}
		e->name = strdup(d->full);
		e->fields = lt_fields_copy(f, n);
		e->format = format ? strdup(format) : NULL;
		if (!e->name || !e->fields || (format && !e->format)) {
			free(e->name);
			free(e->format);
			if (e->fields)
				lt_fields_free(e->fields, n);
			free(e);
			return;
		}
		e->nfields = n;
		e->loglevel = d->loglevel;
		e->id = (uint32_t)nentries;
		entries[nentries++] = e;
		atomic_fetch_add(&generation, 1);
		struct lt_ctf_event pe = entry_event(e);
		for (int k = 0; k < LT_PROBE_MAX_LISTENERS; k++)
			if (listeners[k].fn)
				listeners[k].fn(listeners[k].arg, &pe);
	}
	if (grow((void **)&e->descs, &e->cap, e->ndescs + 1,
		 sizeof(*e->descs)) < 0)
		return;
	e->descs[e->ndescs++] = d;
	d->id = e->id;
	if (e->ndescs == 1) {
		/* the rules set so far apply to an event new to them */
		report_misfits(e);
		update_entry(e);
		free_retired();
		return;
	}
	publish_desc(d, e->targets);
}

static void remove_desc(struct lt_event_desc *d)
{
	publish_desc(d, NULL);
	for (size_t i = 0; i < nentries; i++) {
		struct entry *e = entries[i];
		for (size_t k = 0; k < e->ndescs; k++) {
			if (e->descs[k] != d)
				continue;
			e->descs[k] = e->descs[--e->ndescs];
			return;
		}
	}
}

/* fork() must not copy the lock while another thread holds it */
static void before_fork(void)
{
	pthread_mutex_lock(&reg_lock);
}

static void after_fork(void)
{
	pthread_mutex_unlock(&reg_lock);
}

static void install_atfork(void)
{
	pthread_atfork(before_fork, after_fork, after_fork);
}

void lt_probe_register_range(struct lt_event_desc *const *start,
			     struct lt_event_desc *const *stop)
{
	pthread_once(&atfork_once, install_atfork);
	pthread_mutex_lock(&reg_lock);
	for (size_t i = 0; i < nranges; i++) {
		if (ranges[i].start == start) {
			ranges[i].refs++;
			goto out;
		}
	}
	if (grow((void **)&ranges, &ranges_cap, nranges + 1, sizeof(*ranges)) <
	    0)
		goto out;
	ranges[nranges++] = (struct range){ start, stop, 1 };
	for (struct lt_event_desc *const *p = start; p < stop; p++)
		if (*p)
			add_desc(*p);
out:
	pthread_mutex_unlock(&reg_lock);
}

void lt_probe_unregister_range(struct lt_event_desc *const *start,
			       struct lt_event_desc *const *stop)
{
	int gone = 0;

	pthread_mutex_lock(&reg_lock);
	for (size_t i = 0; i < nranges; i++) {
		if (ranges[i].start != start || --ranges[i].refs > 0)
			continue;
		for (struct lt_event_desc *const *p = start; p < stop; p++)
			if (*p)
				remove_desc(*p);
		ranges[i] = ranges[--nranges];
		gone = 1;
		break;
	}
	pthread_mutex_unlock(&reg_lock);
	/* the object's code is about to go: let probes in it finish */
	if (gone)
		lt_probe_sync();
}

/*
 * The events liblowtrace defines itself (lowtrace:trigger): the section of
 * the object it is linked into, registered at load and unregistered at
 * unload like a program's own, but without starting a session (their
 * files define LT__NO_REGISTRATION).
 */
extern struct lt_event_desc *const __start_lt_events[]
	__attribute__((weak, visibility("hidden")));
extern struct lt_event_desc *const __stop_lt_events[]
	__attribute__((weak, visibility("hidden")));

__attribute__((constructor)) static void register_own_events(void)
{
	struct lt_event_desc *const *a = __start_lt_events,
				    *const *b = __stop_lt_events;
	if (a != b)
		lt_probe_register_range(a, b);
}

__attribute__((destructor)) static void unregister_own_events(void)
{
	struct lt_event_desc *const *a = __start_lt_events,
				    *const *b = __stop_lt_events;
	if (a != b)
		lt_probe_unregister_range(a, b);
}

static int add_rule(struct rule r, char *err, size_t errcap)
{
	int rc = -ENOMEM;

	if (err && errcap)
		err[0] = 0;
	if (r.filter) {
		rc = lt_filter_check_syntax(r.filter, err, errcap);
		if (rc)
			return rc;
	}
	pthread_mutex_lock(&reg_lock);
	/* a pattern without wildcards names one event: its filter must fit */
	struct entry *e =
		lt_pattern_is_literal(r.pattern) ? find_entry(r.pattern) : NULL;
	if (e && r.filter && rule_selects(&r, e)) {
		int fits;
		lt_filter_free(compile_for(&r, e, &fits, err, errcap));
		rc = -EINVAL;
		if (!fits)
			goto out;
	}
	rc = -ENOMEM;
	if (grow((void **)&rules, &rules_cap, nrules + 1, sizeof(*rules)) < 0)
		goto out;
	const char *ftext = r.filter;
	r.pattern = strdup(r.pattern);
	r.filter = ftext ? strdup(ftext) : NULL;
	if (!r.pattern || (ftext && !r.filter)) {
		free(r.pattern);
		free(r.filter);
		goto out;
	}
	rules[nrules++] = r;
	update_all();
	rc = 0;
out:
	pthread_mutex_unlock(&reg_lock);
	return rc;
}

int lt_probe_enable(const void *owner, const char *pattern, int loglevel_max,
		    struct lt_ring *ring)
{
	return lt_probe_enable_filter(owner, pattern, loglevel_max, ring, NULL,
				      NULL, 0);
}

int lt_probe_enable_filter(const void *owner, const char *pattern,
			   int loglevel_max, struct lt_ring *ring,
			   const char *filter, char *err, size_t errcap)
{
	if (!pattern || !*pattern || !ring)
		return -EINVAL;
	return add_rule((struct rule){ owner, (char *)pattern, loglevel_max,
				       ring, (char *)filter, NULL, NULL },
			err, errcap);
}

int lt_probe_enable_trigger(const void *owner, const char *pattern,
			    int loglevel_max, const char *filter,
			    void (*fire)(void *arg), void *arg, char *err,
			    size_t errcap)
{
	if (!pattern || !*pattern || !fire)
		return -EINVAL;
	return add_rule((struct rule){ owner, (char *)pattern, loglevel_max,
				       NULL, (char *)filter, fire, arg },
			err, errcap);
}

int lt_probe_disable(const void *owner, const char *pattern)
{
	int removed = 0;

	pthread_mutex_lock(&reg_lock);
	for (size_t i = 0; i < nrules;) {
		if (rules[i].owner == owner &&
		    (!pattern || strcmp(rules[i].pattern, pattern) == 0)) {
			free(rules[i].pattern);
			free(rules[i].filter);
			rules[i] = rules[--nrules];
			removed++;
		} else {
			i++;
		}
	}
	update_all();
	pthread_mutex_unlock(&reg_lock);
	return removed;
}

int lt_probe_add_listener(lt_probe_event_fn fn, void *arg)
{
	int rc = -ENOSPC;
	pthread_mutex_lock(&reg_lock);
	for (int k = 0; k < LT_PROBE_MAX_LISTENERS; k++) {
		if (listeners[k].fn)
			continue;
		for (size_t i = 0; i < nentries; i++) {
			struct entry *e = entries[i];
			struct lt_ctf_event pe = entry_event(e);
			fn(arg, &pe);
		}
		listeners[k].fn = fn;
		listeners[k].arg = arg;
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&reg_lock);
	return rc;
}

void lt_probe_remove_listener(lt_probe_event_fn fn, void *arg)
{
	pthread_mutex_lock(&reg_lock);
	for (int k = 0; k < LT_PROBE_MAX_LISTENERS; k++)
		if (listeners[k].fn == fn && listeners[k].arg == arg)
			listeners[k].fn = NULL;
	pthread_mutex_unlock(&reg_lock);
}

size_t lt_probe_nevents(void)
{
	pthread_mutex_lock(&reg_lock);
	size_t n = nentries;
	pthread_mutex_unlock(&reg_lock);
	return n;
}

int lt_probe_share_ring(struct lt_ring *ring, int32_t pid, lt_probe_id_fn id,
			void *arg)
{
	int rc = -ENOSPC;
	pthread_mutex_lock(&reg_lock);
	for (int k = 0; k < LT_PROBE_MAX_SHARED; k++) {
		if (shared[k].ring)
			continue;
		shared[k].ring = ring;
		shared[k].pid = pid;
		shared[k].id = id;
		shared[k].arg = arg;
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&reg_lock);
	return rc;
}

void lt_probe_unshare_ring(struct lt_ring *ring)
{
	pthread_mutex_lock(&reg_lock);
	for (int k = 0; k < LT_PROBE_MAX_SHARED; k++)
		if (shared[k].ring == ring)
			memset(&shared[k], 0, sizeof(shared[k]));
	pthread_mutex_unlock(&reg_lock);
}

void lt_probe_clock_changed(void)
{
	pthread_mutex_lock(&reg_lock);
	update_all();
	pthread_mutex_unlock(&reg_lock);
}

void lt_probe_reset_after_fork(void)
{
	pthread_mutex_lock(&reg_lock);
	for (size_t i = 0; i < nrules; i++) {
		free(rules[i].pattern);
		free(rules[i].filter);
	}
	nrules = 0;
	for (size_t i = 0; i < nentries; i++) {
		struct entry *e = entries[i];
		for (size_t k = 0; k < e->ndescs; k++)
			publish_desc(e->descs[k], NULL);
		/* no reader in this process can hold the old list */
		lt_targets_free(e->targets);
		e->targets = NULL;
	}
	while (retired) {
		struct lt_targets *t = retired;
		retired = t->next_retired;
		lt_targets_free(t);
	}
	memset(listeners, 0, sizeof(listeners));
	memset(shared, 0, sizeof(shared));
	lt_probe_readers_after_fork();
	pthread_mutex_unlock(&reg_lock);
}

void lt_probe_foreach_event(lt_probe_event_fn fn, void *arg)
{
	pthread_mutex_lock(&reg_lock);
	for (size_t i = 0; i < nentries; i++) {
		struct entry *e = entries[i];
		struct lt_ctf_event pe = entry_event(e);
		fn(arg, &pe);
	}
	pthread_mutex_unlock(&reg_lock);
}

int lt_probe_count_matching(const char *pattern)
{
	int n = 0;
	pthread_mutex_lock(&reg_lock);
	for (size_t i = 0; i < nentries; i++)
		n += entries[i]->ndescs > 0 &&
		     lt_pattern_match(pattern, entries[i]->name);
	pthread_mutex_unlock(&reg_lock);
	return n;
}

int lt_probe_range_within(uintptr_t lo, uintptr_t hi)
{
	int found = 0;
	pthread_mutex_lock(&reg_lock);
	for (size_t i = 0; i < nranges; i++) {
		uintptr_t a = (uintptr_t)ranges[i].start;
		found |= a >= lo && a < hi;
	}
	pthread_mutex_unlock(&reg_lock);
	return found;
}

uint64_t lt_probe_generation(void)
{
	return atomic_load(&generation);
}

static const char *const level_names[] = {
	"EMERG",	  "ALERT",	   "CRIT",	   "ERR",
	"WARNING",	  "NOTICE",	   "INFO",	   "DEBUG_SYSTEM",
	"DEBUG_PROGRAM",  "DEBUG_PROCESS", "DEBUG_MODULE", "DEBUG_UNIT",
	"DEBUG_FUNCTION", "DEBUG_LINE",	   "DEBUG",
};

int lt_probe_loglevel_parse(const char *s)
{
	if (!s)
		return -1;
	if (strncasecmp(s, "LT_", 3) == 0)
		s += 3;
	for (int i = 0; i < (int)(sizeof(level_names) / sizeof(*level_names));
	     i++)
		if (strcasecmp(s, level_names[i]) == 0)
			return i;
	if (strcasecmp(s, "ERROR") == 0)
		return LT_ERR;
	if (strcasecmp(s, "WARN") == 0)
		return LT_WARNING;
	char *end;
	long v = strtol(s, &end, 10);
	if (*s && !*end && v >= 0 && v <= LT_DEBUG)
		return (int)v;
	return -1;
}

const char *lt_probe_loglevel_name(int level)
{
	if (level < 0 || level > LT_DEBUG)
		return "UNKNOWN";
	return level_names[level];
}
