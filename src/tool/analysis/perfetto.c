/* SPDX-License-Identifier: MIT */
/*
 * perfetto.c - the trace as Perfetto's protobuf trace format (a Trace:
 * TracePackets, each a length-delimited field 1), written as the reader
 * goes, in constant memory (docs/perfetto.md says what fills what):
 *
 *   sched_switch, sched_waking and sched_wakeup_new (and sched_wakeup
 *       when the trace has no sched_waking) as FtraceEventBundles per CPU in
 *       compact_sched form (comms interned per bundle, times delta-coded),
 *       on sequence SEQ_SCHED, as Perfetto's own system traces;
 *   system calls, irq and softirq windows as slices (system calls on
 *       their thread's track, interrupts on a track per CPU) on
 *       SEQ_KERNEL;
 *   every other event an instant TrackEvent on its thread's track, its
 *       fields as debug annotations, on the sequence of its stream (its
 *       writer), names, categories and field names interned; anchors
 *       and triggers' firings (lowtrace:trigger) carry the category
 *       "anchor";
 *   spans (span.h) as begin/end slices on their thread's track, written
 *       when they end, on SEQ_SPANS with absolute times;
 *   events the tracer lost as a counter track per stream;
 *   the threads' names and processes as a ProcessTree at the end.
 *
 * Times are the trace's ns since the epoch, given to Perfetto as its
 * BOOTTIME and REALTIME both, so that its timeline's wall clock is
 * `lowtrace view`'s.  The sequences written in time order use a clock of
 * their own (LT_PF_CLOCK), incremental: each packet's timestamp is the
 * delta from the sequence's previous one.
 *
 * The field numbers are those of Perfetto's .proto files
 * (protos/perfetto/trace/); tests/perfetto/perfetto_subset.proto holds
 * the messages written here.
 */
#include "analysis/perfetto.h"
#include "analysis/analysis.h"
#include "analysis/model.h"
#include "analysis/out_thread.h"
#include "analysis/pb.h"
#include "analysis/span.h"
#include "ctf/format.h"
#include "ctf/load.h"
#include "ctf/value.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Field numbers (Perfetto's protos) */
enum {
	TRACE_PACKET = 1,
	/* TracePacket */
	TP_FTRACE_EVENTS = 1,
	TP_PROCESS_TREE = 2,
	TP_CLOCK_SNAPSHOT = 6,
	TP_TIMESTAMP = 8,
	TP_SEQ_ID = 10,
	TP_TRACK_EVENT = 11,
	TP_INTERNED_DATA = 12,
	TP_SEQ_FLAGS = 13,
	TP_DEFAULTS = 59,
	TP_TRACK_DESCRIPTOR = 60,
	TP_FIRST_ON_SEQ = 87,
	/* TracePacketDefaults */
	TPD_CLOCK_ID = 58,
	/* ClockSnapshot, its Clock */
	CS_CLOCKS = 1,
	CS_PRIMARY = 2,
	CLK_ID = 1,
	CLK_TIMESTAMP = 2,
	CLK_INCREMENTAL = 3,
	/* FtraceEventBundle, its CompactSched */
	FB_CPU = 1,
	FB_COMPACT_SCHED = 4,
	CS_INTERN_TABLE = 5,
	/* TrackDescriptor, ProcessDescriptor, ThreadDescriptor */
	TD_UUID = 1,
	TD_NAME = 2,
	TD_PROCESS = 3,
	TD_THREAD = 4,
	TD_COUNTER = 8,
	PD_PID = 1,
	PD_NAME = 6,
	THD_PID = 1,
	THD_TID = 2,
	THD_NAME = 5,
	/* TrackEvent */
	TE_CATEGORY_IIDS = 3,
	TE_DEBUG_ANNOTATIONS = 4,
	TE_TYPE = 9,
	TE_NAME_IID = 10,
	TE_TRACK_UUID = 11,
	TE_CATEGORIES = 22,
	TE_NAME = 23,
	TE_COUNTER_VALUE = 30,
	/* DebugAnnotation */
	DA_NAME_IID = 1,
	DA_UINT = 3,
	DA_INT = 4,
	DA_DOUBLE = 5,
	DA_STRING = 6,
	DA_ARRAY = 12,
	/* InternedData; EventCategory, EventName, DebugAnnotationName */
	ID_CATEGORIES = 1,
	ID_NAMES = 2,
	ID_ANNOTATION_NAMES = 3,
	IN_IID = 1,
	IN_NAME = 2,
	/* ProcessTree, its Process and Thread */
	PT_PROCESSES = 1,
	PT_THREADS = 2,
	PTP_PID = 1,
	PTP_CMDLINE = 3,
	PTT_TID = 1,
	PTT_NAME = 2,
	PTT_TGID = 3,
};

enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3 };
enum { TYPE_COUNTER = 4 };
enum { SEQ_CLEARED = 1, SEQ_NEEDS = 2 };
enum { PF_CLOCK_REALTIME = 1, PF_CLOCK_BOOTTIME = 6 };
#define LT_PF_CLOCK 64 /* sequence-scoped, incremental */

/* The sequences of the export's own; the streams' are SEQ_STREAM0 + i */
enum { SEQ_SCHED = 1, SEQ_KERNEL = 2, SEQ_SPANS = 3, SEQ_STREAM0 = 16 };

/*
 * Track uuids, small where events are many (a varint in every event):
 * a CPU's irq and softirq tracks 1 + 2 * CPU (+ 1) below UUID_THREAD, a
 * thread's UUID_THREAD + tid; the rest, a kind in the upper bits.
 */
#define UUID_THREAD (1ull << 14)
#define UUID_CPUS ((UUID_THREAD - 1) / 2)
#define UUID_IRQ (2ull << 32)
#define UUID_SOFTIRQ (3ull << 32)
#define UUID_LOST (4ull << 32)

/* compact_sched's arrays, by their field numbers */
enum {
	SW_TS,
	SW_STATE,
	SW_PID,
	SW_PRIO,
	SW_COMM,
	WK_TS,
	WK_PID,
	WK_CPU,
	WK_PRIO,
	WK_COMM,
	NARRAYS
};
static const uint8_t array_field[NARRAYS] = { 1, 2, 3, 4, 6, 7, 8, 9, 10, 11 };

#define BUNDLE_EVENTS 16384 /* sched events a bundle holds at most */
#define BUNDLE_COMMS 1024 /* distinct comms a bundle holds at most */
#define FLUSH_BYTES (256u << 10) /* a hand-over to the writer thread */

struct bundle {
	struct lt_pb a[NARRAYS];
	unsigned n; /* events */
	uint64_t last_sw, last_wk;
	unsigned ncomm;
	char comm[BUNDLE_COMMS][16];
	uint16_t hash[2 * BUNDLE_COMMS]; /* comm index + 1 */
	unsigned tracks; /* its irq (1) and softirq (2) tracks written */
};

/* A sequence: its id, its interned entries sent, its clock's last time */
struct seq {
	uint32_t id;
	uint8_t started;
	int64_t last_ns;
	uint8_t *sent; /* names, then categories, then annotation names */
	uint64_t lost; /* events the tracer dropped, as last written */
	uint8_t lost_track;
};

/*
 * A field read for every scheduling event: its index (-1: absent) and how
 * it loads, decided once per class: a little-endian integer of 1, 2, 4 or
 * 8 bytes (its size, or-ed with LT_VOP_SIGNED) and a 16-byte text array
 * (PF_COMM16, the kernel's comm) straight from the event's bytes; 0,
 * through lt_event_field().
 */
struct pfield {
	int16_t i;
	uint8_t ld;
};
#define PF_COMM16 0x80

/* What the export reads of an event class, planned once */
struct pcls {
	struct pfield tid, pid; /* thread and process fields (contexts) */
	struct pfield next_pid, next_comm, prev_state, next_prio; /* switch */
	struct pfield w_pid, w_comm, w_prio, w_cpu; /* waking */
	int16_t irq_name; /* irq_handler_entry's handler */
	uint32_t cat; /* category iid */
	uint32_t ann; /* its first field's in ann_iid */
	uint8_t trigger; /* lowtrace:trigger, a trigger's firing */
	uint8_t kind; /* lt_model_kind()'s + 1, 0 until its first event */
};

/* The strings interned across the trace: categories, field names */
struct strtab {
	char **s;
	uint32_t n, cap;
	uint32_t *hash; /* index + 1, open addressing */
	uint32_t hcap;
};

struct px {
	lt_reader_t *t;
	struct lt_out_thread w;
	int err;
	const struct lt_perfetto_opts *o;
	struct lt_pb out;
	struct lt_model m;
	struct lt_span_tracker *spans;
	uint8_t *anchor_memo;
	/* classes */
	unsigned ncls;
	struct pcls *cls;
	uint32_t *ann_iid; /* per class field */
	struct strtab cats, anns;
	uint32_t anchor_cat;
	uint32_t nsent; /* bytes of a seq's sent */
	int wakeups_too; /* no sched_waking: the wake-ups go in the bundles */
	/* sequences */
	struct seq own[SEQ_STREAM0];
	struct seq *streams;
	unsigned nstreams;
	/* per CPU */
	struct bundle **bundles;
	unsigned ncpus;
	/* the thread tracks written (tid + 1, open addressing) */
	int64_t *tracks;
	unsigned ntracks, tracks_cap;
	/* SEQ_KERNEL's slice names: interned, and their iids by kind and
	 * number (KS_CACHE of each kind); its categories sent */
	struct strtab knames;
	uint32_t *kiid;
	uint8_t kcat_sent[3];
};

/* ---- strings ---- */

static uint32_t fnv(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

/* The index of s (n bytes) in tab, added if new; -1 on no memory.  *added
 * says whether it was new. */
static int64_t str_intern(struct strtab *tab, const char *s, size_t n,
			  int *added)
{
	*added = 0;
	if (2 * (tab->n + 1) > tab->hcap) {
		uint32_t cap = tab->hcap ? 2 * tab->hcap : 64;
		uint32_t *h = calloc(cap, sizeof(*h));
		if (!h)
			return -1;
		for (uint32_t i = 0; i < tab->n; i++) {
			uint32_t k = fnv(tab->s[i], strlen(tab->s[i]));
			while (h[k & (cap - 1)])
				k++;
			h[k & (cap - 1)] = i + 1;
		}
		free(tab->hash);
		tab->hash = h;
		tab->hcap = cap;
	}
	uint32_t k = fnv(s, n);
	for (;; k++) {
		uint32_t e = tab->hash[k & (tab->hcap - 1)];
		if (!e)
			break;
		const char *o = tab->s[e - 1];
		if (strncmp(o, s, n) == 0 && o[n] == 0)
			return e - 1;
	}
	if (tab->n == tab->cap) {
		uint32_t cap = tab->cap ? 2 * tab->cap : 64;
		char **v = realloc(tab->s, cap * sizeof(*v));
		if (!v)
			return -1;
		tab->s = v;
		tab->cap = cap;
	}
	char *c = strndup(s, n);
	if (!c)
		return -1;
	tab->s[tab->n] = c;
	tab->hash[k & (tab->hcap - 1)] = tab->n + 1;
	*added = 1;
	return tab->n++;
}

static void str_free(struct strtab *tab)
{
	for (uint32_t i = 0; i < tab->n; i++)
		free(tab->s[i]);
	free(tab->s);
	free(tab->hash);
}

/* ---- output ---- */

static void flush_out(struct px *x)
{
	if (x->err) {
		x->out.len = 0;
		return;
	}
	int err = lt_out_thread_write(&x->w, &x->out);
	if (err)
		x->err = err;
}

static size_t packet_begin(struct px *x, uint32_t seq)
{
	size_t m = lt_pb_begin(&x->out, TRACE_PACKET);
	lt_pb_uint(&x->out, TP_SEQ_ID, seq);
	return m;
}

static void packet_end(struct px *x, size_t m)
{
	lt_pb_end(&x->out, m);
	if (x->out.err && !x->err)
		x->err = x->out.err;
	if (x->out.len >= FLUSH_BYTES)
		flush_out(x);
}

/* The clocks of a sequence at ns: its own incremental one and the
 * builtin ones, the same time (the trace's ns since the epoch). */
static void clock_snapshot(struct lt_pb *b, int64_t ns, int incremental)
{
	static const uint32_t ids[] = { LT_PF_CLOCK, PF_CLOCK_BOOTTIME,
					PF_CLOCK_REALTIME };
	size_t cs = lt_pb_begin(b, TP_CLOCK_SNAPSHOT);
	for (unsigned i = incremental ? 0 : 1; i < 3; i++) {
		size_t c = lt_pb_begin(b, CS_CLOCKS);
		lt_pb_uint(b, CLK_ID, ids[i]);
		lt_pb_uint(b, CLK_TIMESTAMP, (uint64_t)ns);
		if (!i)
			lt_pb_uint(b, CLK_INCREMENTAL, 1);
		lt_pb_end(b, c);
	}
	lt_pb_uint(b, CS_PRIMARY, PF_CLOCK_BOOTTIME);
	lt_pb_end(b, cs);
}

/* Opens a packet of sequence s at ns; the first of the sequence clears
 * its state and sets its clock. */
static size_t seq_packet(struct px *x, struct seq *s, int64_t ns,
			 int incremental)
{
	if (!s->started) {
		size_t m = packet_begin(x, s->id);
		lt_pb_uint(&x->out, TP_SEQ_FLAGS, SEQ_CLEARED);
		lt_pb_uint(&x->out, TP_FIRST_ON_SEQ, 1);
		clock_snapshot(&x->out, ns, incremental);
		if (incremental) {
			size_t d = lt_pb_begin(&x->out, TP_DEFAULTS);
			lt_pb_uint(&x->out, TPD_CLOCK_ID, LT_PF_CLOCK);
			lt_pb_end(&x->out, d);
		}
		packet_end(x, m);
		s->started = 1;
		s->last_ns = ns;
	}
	size_t m = packet_begin(x, s->id);
	if (incremental) {
		/* merged in time order: never earlier than the last */
		int64_t d = ns > s->last_ns ? ns - s->last_ns : 0;
		lt_pb_uint(&x->out, TP_TIMESTAMP, (uint64_t)d);
		s->last_ns += d;
	} else {
		lt_pb_uint(&x->out, TP_TIMESTAMP, (uint64_t)ns);
	}
	lt_pb_uint(&x->out, TP_SEQ_FLAGS, SEQ_NEEDS);
	return m;
}

/* ---- tracks ---- */

/* Writes the thread's track descriptor the first time; its uuid. */
static uint64_t thread_track(struct px *x, int32_t tid, int32_t pid)
{
	uint64_t uuid = UUID_THREAD + (uint32_t)tid;
	if (2 * (x->ntracks + 1) > x->tracks_cap) {
		unsigned cap = x->tracks_cap ? 2 * x->tracks_cap : 256;
		int64_t *v = calloc(cap, sizeof(*v));
		if (!v) {
			x->err = -ENOMEM;
			return uuid;
		}
		for (unsigned i = 0; i < x->tracks_cap; i++) {
			if (!x->tracks[i])
				continue;
			unsigned k = (uint32_t)x->tracks[i] * 2654435761u;
			while (v[k & (cap - 1)])
				k++;
			v[k & (cap - 1)] = x->tracks[i];
		}
		free(x->tracks);
		x->tracks = v;
		x->tracks_cap = cap;
	}
	int64_t key = (int64_t)tid + 1;
	unsigned k = (uint32_t)key * 2654435761u;
	for (;; k++) {
		int64_t e = x->tracks[k & (x->tracks_cap - 1)];
		if (e == key)
			return uuid;
		if (!e)
			break;
	}
	x->tracks[k & (x->tracks_cap - 1)] = key;
	x->ntracks++;
	if (pid <= 0) {
		int32_t tg = lt_model_tgid(&x->m, tid);
		pid = tg > 0 ? tg : tid;
	}
	const char *name = lt_model_comm(&x->m, tid);
	size_t m = packet_begin(x, SEQ_SCHED);
	size_t td = lt_pb_begin(&x->out, TP_TRACK_DESCRIPTOR);
	lt_pb_uint(&x->out, TD_UUID, uuid);
	size_t th = lt_pb_begin(&x->out, TD_THREAD);
	lt_pb_int(&x->out, THD_PID, pid);
	lt_pb_int(&x->out, THD_TID, tid);
	if (strcmp(name, "?") != 0)
		lt_pb_str(&x->out, THD_NAME, name);
	lt_pb_end(&x->out, th);
	lt_pb_end(&x->out, td);
	packet_end(x, m);
	return uuid;
}

static void named_track(struct px *x, uint64_t uuid, const char *name,
			int counter)
{
	size_t m = packet_begin(x, SEQ_SCHED);
	size_t td = lt_pb_begin(&x->out, TP_TRACK_DESCRIPTOR);
	lt_pb_uint(&x->out, TD_UUID, uuid);
	lt_pb_str(&x->out, TD_NAME, name);
	if (counter) {
		size_t c = lt_pb_begin(&x->out, TD_COUNTER);
		lt_pb_end(&x->out, c);
	}
	lt_pb_end(&x->out, td);
	packet_end(x, m);
}

/* ---- classes ---- */

static int16_t field_named(const struct lt_event_class *c, const char *a,
			   const char *b)
{
	for (int pass = 0; pass < 2; pass++) {
		const char *n = pass ? b : a;
		if (!n)
			continue;
		for (uint32_t i = 0; i < c->nfields && i < INT16_MAX; i++)
			if (strcmp(c->fields[i].name, n) == 0)
				return (int16_t)i;
	}
	return -1;
}

static struct pfield pfield_at(const struct lt_event_class *c, int16_t i)
{
	struct pfield pf = { i, 0 };
	if (pf.i < 0)
		return pf;
	const struct lt_field_class *fc = &c->fields[pf.i];
	if (fc->var_tag >= 0 || fc->bitfield || fc->be)
		return pf;
	uint8_t op = lt_value_op(fc);
	if (op && !(op & (LT_VOP_BE | LT_VOP_FLOAT | LT_VOP_STRING)))
		pf.ld = op; /* an integer: its size | LT_VOP_SIGNED */
	else if (op == LT_VOP_ENUM && ld_sel_size(fc->size))
		pf.ld = (uint8_t)(fc->size |
				  (fc->is_signed ? LT_VOP_SIGNED : 0));
	else if (fc->kind == LT_KIND_ARRAY && fc->text && fc->length == 16)
		pf.ld = PF_COMM16;
	return pf;
}

static struct pfield pfield_of(const struct lt_event_class *c, const char *a,
			       const char *b)
{
	return pfield_at(c, field_named(c, a, b));
}

static int plan_classes(struct px *x)
{
	int added;
	x->ncls = lt_reader_nclasses(x->t);
	uint32_t nf = 0;
	for (unsigned i = 0; i < x->ncls; i++)
		nf += lt_reader_class(x->t, i)->nfields;
	x->cls = calloc(x->ncls + 1, sizeof(*x->cls));
	x->ann_iid = calloc(nf + 1, sizeof(*x->ann_iid));
	if (!x->cls || !x->ann_iid)
		return -ENOMEM;
	if (str_intern(&x->cats, "anchor", 6, &added) < 0)
		return -ENOMEM;
	x->anchor_cat = 1;
	nf = 0;
	for (unsigned i = 0; i < x->ncls; i++) {
		const struct lt_event_class *c = lt_reader_class(x->t, i);
		struct pcls *p = &x->cls[c->index];
		int16_t tid = field_named(c, "tid", "vtid");
		if (tid < 0)
			tid = field_named(c, "common_tid", NULL);
		p->tid = pfield_at(c, tid);
		p->pid = pfield_of(c, "vpid", "common_tgid");
		p->next_pid = pfield_of(c, "next_pid", "next_tid");
		p->next_comm = pfield_of(c, "next_comm", NULL);
		p->prev_state = pfield_of(c, "prev_state", NULL);
		p->next_prio = pfield_of(c, "next_prio", NULL);
		p->w_pid = pfield_of(c, "pid", "tid");
		p->w_comm = pfield_of(c, "comm", NULL);
		p->w_prio = pfield_of(c, "prio", NULL);
		p->w_cpu = pfield_of(c, "target_cpu", NULL);
		p->irq_name = field_named(c, "name", NULL);
		p->trigger = !strcmp(c->name, "lowtrace:trigger");
		/* the category: the provider ("demo" of "demo:tick"), or
		 * "kernel" for lttng-modules's names without one */
		const char *colon = strchr(c->name, ':');
		const char *cat = colon ? c->name : "kernel";
		size_t cn = colon ? (size_t)(colon - c->name) : 6;
		int64_t ci = str_intern(&x->cats, cat, cn, &added);
		if (ci < 0)
			return -ENOMEM;
		p->cat = (uint32_t)ci + 1;
		p->ann = nf;
		for (uint32_t f = 0; f < c->nfields; f++) {
			const struct lt_field_class *fc = &c->fields[f];
			int64_t ai = str_intern(&x->anns, fc->name,
						strlen(fc->name), &added);
			if (ai < 0)
				return -ENOMEM;
			x->ann_iid[nf++] = (uint32_t)ai + 1;
		}
		if (!strcmp(c->name, "sched_waking") ||
		    !strcmp(c->name, "sched:sched_waking"))
			x->wakeups_too = -1;
	}
	x->wakeups_too = x->wakeups_too == 0;
	x->nsent = x->ncls + x->cats.n + x->anns.n;
	return 0;
}

/* ---- per-stream sequences ---- */

static struct seq *stream_seq(struct px *x, uint32_t i)
{
	if (i >= x->nstreams) {
		unsigned n = i + 8;
		struct seq *v = realloc(x->streams, n * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + x->nstreams, 0, (n - x->nstreams) * sizeof(*v));
		x->streams = v;
		x->nstreams = n;
	}
	struct seq *s = &x->streams[i];
	if (!s->sent) {
		s->sent = calloc(x->nsent + 1, 1);
		if (!s->sent)
			return NULL;
		s->id = SEQ_STREAM0 + i;
	}
	return s;
}

/* Interned entries that s has not had yet, as an InternedData. */
static void intern_event(struct px *x, struct seq *s,
			 const struct lt_event_class *c, const struct pcls *p,
			 int anchor)
{
	/* the class's name byte: 2 once its name, category and field names
	 * are all on the sequence */
	uint8_t *name = &s->sent[c->index];
	uint8_t *cat = &s->sent[x->ncls + p->cat - 1];
	uint8_t *acat = &s->sent[x->ncls + x->anchor_cat - 1];
	if (*name == 2 && (!anchor || *acat))
		return;
	struct lt_pb *b = &x->out;
	size_t id = lt_pb_begin(b, TP_INTERNED_DATA);
	for (int k = 0; k < 2; k++) {
		uint32_t iid = k ? x->anchor_cat : p->cat;
		uint8_t *sent = k ? acat : cat;
		if (*sent || (k && !anchor))
			continue;
		size_t e = lt_pb_begin(b, ID_CATEGORIES);
		lt_pb_uint(b, IN_IID, iid);
		lt_pb_str(b, IN_NAME, x->cats.s[iid - 1]);
		lt_pb_end(b, e);
		*sent = 1;
	}
	if (!*name) {
		size_t e = lt_pb_begin(b, ID_NAMES);
		lt_pb_uint(b, IN_IID, c->index + 1);
		lt_pb_str(b, IN_NAME, c->name);
		lt_pb_end(b, e);
	}
	*name = 2;
	for (uint32_t f = 0; f < c->nfields; f++) {
		uint32_t iid = x->ann_iid[p->ann + f];
		uint8_t *sent = &s->sent[x->ncls + x->cats.n + iid - 1];
		if (*sent)
			continue;
		size_t e = lt_pb_begin(b, ID_ANNOTATION_NAMES);
		lt_pb_uint(b, IN_IID, iid);
		lt_pb_str(b, IN_NAME, x->anns.s[iid - 1]);
		lt_pb_end(b, e);
		*sent = 1;
	}
	lt_pb_end(b, id);
}

/* A number as its annotation: signed, unsigned or a double. */
static void put_number(struct lt_pb *b, const struct lt_value *v)
{
	if (v->kind == LT_KIND_FLOAT)
		lt_pb_double(b, DA_DOUBLE, v->f);
	else if (v->fc->is_signed)
		lt_pb_int(b, DA_INT, v->i);
	else
		lt_pb_uint(b, DA_UINT, v->u);
}

static void annotations(struct px *x, const struct lt_event *ev,
			const struct pcls *p)
{
	struct lt_pb *b = &x->out;
	const struct lt_event_class *c = ev->cls;
	for (uint32_t f = 0; f < c->nfields; f++) {
		struct lt_value v;
		/* the thread and process are the track's */
		if ((int32_t)f == p->tid.i || (int32_t)f == p->pid.i ||
		    lt_event_field(ev, f, &v) != 0)
			continue;
		size_t a = lt_pb_begin(b, TE_DEBUG_ANNOTATIONS);
		lt_pb_uint(b, DA_NAME_IID, x->ann_iid[p->ann + f]);
		switch (v.kind) {
		case LT_KIND_INT:
		case LT_KIND_FLOAT:
			put_number(b, &v);
			break;
		case LT_KIND_ENUM:
			if (v.str)
				lt_pb_str(b, DA_STRING, v.str);
			else
				put_number(b, &v);
			break;
		case LT_KIND_STRING:
			lt_pb_bytes(b, DA_STRING, v.str, v.len);
			break;
		case LT_KIND_ARRAY:
		case LT_KIND_SEQUENCE:
			if (v.fc->text) {
				const char *s = (const char *)v.data;
				lt_pb_bytes(b, DA_STRING, s, strnlen(s, v.len));
				break;
			}
			for (size_t i = 0; i < v.len; i++) {
				struct lt_value e;
				if (lt_value_elem(&v, i, &e) != 0)
					break;
				size_t ae = lt_pb_begin(b, DA_ARRAY);
				if (e.kind == LT_KIND_ENUM && e.str)
					lt_pb_str(b, DA_STRING, e.str);
				else
					put_number(b, &e);
				lt_pb_end(b, ae);
			}
			break;
		default: {
			/* a compound field: the event's text, as view
			 * prints it */
			char *buf = malloc(lt_event_format_bound(ev) + 1);
			if (!buf) {
				x->err = -ENOMEM;
				break;
			}
			char *end = lt_event_format(ev, buf);
			lt_pb_bytes(b, DA_STRING, buf, (size_t)(end - buf));
			free(buf);
			break;
		}
		}
		lt_pb_end(b, a);
	}
}

__attribute__((flatten)) static int64_t fint(const struct lt_event *ev,
					     int16_t f, int64_t def)
{
	struct lt_value v;
	if (f < 0 || lt_event_field(ev, (unsigned)f, &v) != 0 ||
	    (v.kind != LT_KIND_INT && v.kind != LT_KIND_ENUM))
		return def;
	return v.fc->is_signed ? v.i : (int64_t)v.u;
}

/* A text field: a string or a char array; its bytes in *s. */
__attribute__((flatten)) static size_t fstr(const struct lt_event *ev,
					    int16_t f, const char **s)
{
	struct lt_value v;
	*s = "";
	if (f < 0 || lt_event_field(ev, (unsigned)f, &v) != 0)
		return 0;
	if (v.kind == LT_KIND_STRING) {
		*s = v.str;
		return v.len;
	}
	if ((v.kind == LT_KIND_ARRAY || v.kind == LT_KIND_SEQUENCE) &&
	    v.fc->text) {
		*s = (const char *)v.data;
		return strnlen(*s, v.len);
	}
	return 0;
}

static inline int64_t pf_int(const struct lt_event *ev, struct pfield f,
			     int64_t def)
{
	if (__builtin_expect(f.ld && f.ld != PF_COMM16, 1)) {
		uint64_t u = ld_uint_sel(ev->base + ev->off[f.i], f.ld & 15);
		return f.ld & LT_VOP_SIGNED ? sext(u, f.ld & 15) : (int64_t)u;
	}
	return fint(ev, f.i, def);
}

/* A comm field as 16 bytes: at most 15 of its text, NUL-padded. */
static inline void pf_comm(const struct lt_event *ev, struct pfield f,
			   uint64_t k[2])
{
	const char *s;
	size_t n;
	if (__builtin_expect(f.ld == PF_COMM16, 1)) {
		/* the 16 bytes loaded whole, the ones from its NUL on
		 * masked off: no copy of a variable length */
		const unsigned char *b = ev->base + ev->off[f.i];
		const unsigned char *z = ld_find_nul(b, 16);
		n = z ? (size_t)(z - b) : 15;
		memcpy(k, b, 16);
		k[0] &= n >= 8 ? ~0ull : (1ull << (8 * n)) - 1;
		k[1] &= n <= 8 ? 0 : (1ull << (8 * (n - 8))) - 1;
		return;
	}
	n = fstr(ev, f.i, &s);
	k[0] = k[1] = 0;
	memcpy(k, s, n > 15 ? 15 : n);
}

/* The thread and process an event is of. */
static void thread_of(struct px *x, const struct lt_event *ev,
		      const struct pcls *p, int32_t *tid, int32_t *pid)
{
	int64_t v = pf_int(ev, p->pid, -1);
	*pid = v >= 0 ? (int32_t)v : (int32_t)ev->pid;
	v = pf_int(ev, p->tid, -1);
	if (v < 0 && !*pid)
		v = lt_model_cpu_tid(&x->m, ev->cpu); /* a kernel event */
	*tid = v >= 0 ? (int32_t)v : *pid;
	if (!*pid && *tid > 0)
		*pid = lt_model_tgid(&x->m, *tid);
}

static void lost_events(struct px *x, struct seq *s, const struct lt_event *ev)
{
	uint64_t uuid = UUID_LOST | ev->stream_index;
	if (!s->lost_track) {
		char name[300];
		snprintf(name, sizeof(name), "lost events %s", ev->stream);
		named_track(x, uuid, name, 1);
		s->lost_track = 1;
	}
	size_t m = seq_packet(x, s, ev->ns, 1);
	size_t te = lt_pb_begin(&x->out, TP_TRACK_EVENT);
	lt_pb_uint(&x->out, TE_TYPE, TYPE_COUNTER);
	lt_pb_uint(&x->out, TE_TRACK_UUID, uuid);
	lt_pb_int(&x->out, TE_COUNTER_VALUE, (int64_t)ev->discarded);
	lt_pb_end(&x->out, te);
	packet_end(x, m);
	s->lost = ev->discarded;
}

/* Any event without a mapping of its own: an instant on its thread. */
static void track_event(struct px *x, const struct lt_event *ev)
{
	const struct pcls *p = &x->cls[ev->cls->index];
	struct seq *s = stream_seq(x, ev->stream_index);
	if (!s) {
		x->err = -ENOMEM;
		return;
	}
	if (ev->discarded != s->lost)
		lost_events(x, s, ev);
	int32_t tid, pid;
	thread_of(x, ev, p, &tid, &pid);
	uint64_t uuid = thread_track(x, tid, pid);
	/* a trigger's firing is the anchor of its snapshot, as for
	 * record --explain */
	int anchor = p->trigger ||
		     (x->o->anchor &&
		      lt_anchor_match_memo(x->o->anchor, ev, x->anchor_memo));
	size_t m = seq_packet(x, s, ev->ns, 1);
	intern_event(x, s, ev->cls, p, anchor);
	struct lt_pb *b = &x->out;
	size_t te = lt_pb_begin(b, TP_TRACK_EVENT);
	lt_pb_uint(b, TE_CATEGORY_IIDS, p->cat);
	if (anchor)
		lt_pb_uint(b, TE_CATEGORY_IIDS, x->anchor_cat);
	lt_pb_uint(b, TE_TYPE, TYPE_INSTANT);
	lt_pb_uint(b, TE_NAME_IID, ev->cls->index + 1);
	lt_pb_uint(b, TE_TRACK_UUID, uuid);
	annotations(x, ev, p);
	lt_pb_end(b, te);
	packet_end(x, m);
}

/* ---- scheduling: compact_sched bundles ---- */

static struct bundle *bundle_new(struct px *x, uint32_t cpu)
{
	if (cpu >= x->ncpus) {
		if (cpu > 65535)
			return NULL;
		unsigned n = cpu + 8;
		struct bundle **v = realloc(x->bundles, n * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + x->ncpus, 0, (n - x->ncpus) * sizeof(*v));
		x->bundles = v;
		x->ncpus = n;
	}
	if (!x->bundles[cpu]) {
		struct bundle *bd = calloc(1, sizeof(struct bundle));
		if (!bd)
			return NULL;
		x->bundles[cpu] = bd;
		/* room for a full bundle's varints: sched_event() checks
		 * none (only the pages written are ever touched) */
		for (unsigned i = 0; i < NARRAYS; i++)
			if (lt_pb_grow(&bd->a[i], 10 * BUNDLE_EVENTS))
				return NULL;
	}
	return x->bundles[cpu];
}

static inline struct bundle *bundle_of(struct px *x, uint32_t cpu)
{
	if (__builtin_expect(cpu < x->ncpus && x->bundles[cpu] != NULL, 1))
		return x->bundles[cpu];
	return bundle_new(x, cpu);
}

static void bundle_flush(struct px *x, uint32_t cpu, struct bundle *bd)
{
	if (!bd->n)
		return;
	struct lt_pb *b = &x->out;
	size_t m = packet_begin(x, SEQ_SCHED);
	size_t fb = lt_pb_begin(b, TP_FTRACE_EVENTS);
	lt_pb_uint(b, FB_CPU, cpu);
	size_t cs = lt_pb_begin(b, FB_COMPACT_SCHED);
	for (unsigned i = 0; i < bd->ncomm; i++)
		lt_pb_bytes(b, CS_INTERN_TABLE, bd->comm[i],
			    strnlen(bd->comm[i], 16));
	for (unsigned i = 0; i < NARRAYS; i++) {
		struct lt_pb *a = &bd->a[i];
		if (a->err && !x->err)
			x->err = a->err;
		if (a->len)
			lt_pb_bytes(b, array_field[i], a->p, a->len);
		a->len = 0;
	}
	lt_pb_end(b, cs);
	lt_pb_end(b, fb);
	packet_end(x, m);
	bd->n = 0;
	bd->ncomm = 0;
	bd->last_sw = bd->last_wk = 0;
	memset(bd->hash, 0, sizeof(bd->hash));
}

/* The index of a comm (16 bytes, NUL-padded) in the bundle's table. */
static uint32_t bundle_comm(struct bundle *bd, const uint64_t k[2])
{
	uint64_t h =
		(k[0] * 0x9e3779b97f4a7c15ull) ^ (k[1] * 0xc2b2ae3d27d4eb4full);
	unsigned i = (unsigned)(h >> 40);
	for (;; i++) {
		uint16_t e = bd->hash[i % (2 * BUNDLE_COMMS)];
		if (!e)
			break;
		if (!memcmp(bd->comm[e - 1], k, 16))
			return e - 1u;
	}
	memcpy(bd->comm[bd->ncomm], k, 16);
	bd->hash[i % (2 * BUNDLE_COMMS)] = (uint16_t)(bd->ncomm + 1);
	return bd->ncomm++;
}

/* A value of a compact_sched array, which has room for it (bundle_new) */
static inline void put_array(struct lt_pb *a, uint64_t v)
{
	uint8_t *p = a->p + a->len;
	a->len = (size_t)(lt_pb_put_varint(p, v) - a->p);
}

static void sched_event(struct px *x, const struct lt_event *ev, int kind)
{
	const struct pcls *p = &x->cls[ev->cls->index];
	struct bundle *bd = bundle_of(x, ev->cpu);
	if (!bd) {
		x->err = -ENOMEM;
		return;
	}
	if (bd->n >= BUNDLE_EVENTS || bd->ncomm >= BUNDLE_COMMS)
		bundle_flush(x, ev->cpu, bd);
	uint64_t comm[2];
	uint64_t ts = (uint64_t)ev->ns;
	struct lt_pb *a = bd->a;
	if (kind == LT_KEV_SWITCH) {
		pf_comm(ev, p->next_comm, comm);
		put_array(&a[SW_TS], ts - bd->last_sw);
		bd->last_sw = ts;
		put_array(&a[SW_STATE], (uint64_t)pf_int(ev, p->prev_state, 0));
		put_array(&a[SW_PID], (uint64_t)pf_int(ev, p->next_pid, 0));
		put_array(&a[SW_PRIO], (uint64_t)pf_int(ev, p->next_prio, 120));
		put_array(&a[SW_COMM], bundle_comm(bd, comm));
	} else {
		pf_comm(ev, p->w_comm, comm);
		put_array(&a[WK_TS], ts - bd->last_wk);
		bd->last_wk = ts;
		put_array(&a[WK_PID], (uint64_t)pf_int(ev, p->w_pid, 0));
		put_array(&a[WK_CPU], (uint64_t)pf_int(ev, p->w_cpu, ev->cpu));
		put_array(&a[WK_PRIO], (uint64_t)pf_int(ev, p->w_prio, 120));
		put_array(&a[WK_COMM], bundle_comm(bd, comm));
	}
	bd->n++;
}

/* ---- system calls and interrupts: slices on SEQ_KERNEL ---- */

/* The kinds of SEQ_KERNEL's slices, their categories' iids - 1 */
enum { KS_SYSCALL, KS_IRQ, KS_SOFTIRQ, KS_N };
static const char *const ks_cat[KS_N] = { "syscall", "irq", "softirq" };
#define KS_CACHE 1024 /* names cached by number below this */

/* The iid of a slice's name on SEQ_KERNEL, interned in the packet being
 * written when new. */
static uint32_t kernel_name(struct px *x, const char *name)
{
	int added;
	int64_t i = str_intern(&x->knames, name, strlen(name), &added);
	if (i < 0) {
		x->err = -ENOMEM;
		return 0;
	}
	if (added) {
		struct lt_pb *b = &x->out;
		size_t id = lt_pb_begin(b, TP_INTERNED_DATA);
		size_t e = lt_pb_begin(b, ID_NAMES);
		lt_pb_uint(b, IN_IID, (uint64_t)i + 1);
		lt_pb_str(b, IN_NAME, name);
		lt_pb_end(b, e);
		lt_pb_end(b, id);
	}
	return (uint32_t)i + 1;
}

/*
 * A slice's packet on a started sequence s (incremental clock), all of
 * it at a cursor after one check of the room: its category and name
 * iids (0: none) interned before.  The same bytes as seq_packet() and
 * the TrackEvent's fields one by one.
 */
static void slice_packet(struct px *x, struct seq *s, int64_t ns, int type,
			 uint32_t cat, uint32_t iid, uint64_t uuid)
{
	struct lt_pb *b = &x->out;
	if (lt_pb_room(b, 96)) {
		x->err = b->err;
		return;
	}
	int64_t d = ns > s->last_ns ? ns - s->last_ns : 0;
	s->last_ns += d;
	uint8_t *p = b->p + b->len;
	*p++ = TRACE_PACKET << 3 | LT_PB_LEN;
	uint8_t *pk = p++; /* its length: less than 128 */
	p = lt_pb_put_uint(p, TP_SEQ_ID, s->id);
	p = lt_pb_put_uint(p, TP_TIMESTAMP, (uint64_t)d);
	p = lt_pb_put_uint(p, TP_SEQ_FLAGS, SEQ_NEEDS);
	*p++ = TP_TRACK_EVENT << 3 | LT_PB_LEN;
	uint8_t *te = p++;
	if (cat)
		p = lt_pb_put_uint(p, TE_CATEGORY_IIDS, cat);
	p = lt_pb_put_uint(p, TE_TYPE, (uint64_t)type);
	if (iid)
		p = lt_pb_put_uint(p, TE_NAME_IID, iid);
	p = lt_pb_put_uint(p, TE_TRACK_UUID, uuid);
	*te = (uint8_t)(p - te - 1);
	*pk = (uint8_t)(p - pk - 1);
	b->len = (size_t)(p - b->p);
	if (b->len >= FLUSH_BYTES)
		flush_out(x);
}

/*
 * A slice's begin (kind KS_*, its number nr) or end (kind -1) on track
 * uuid.  Names by number: "irq N NAME" (name, the handler's; the first
 * one seen names the line), "softirq N NAME" (the kernel's name of the
 * vector), the system call's name.
 */
static void kernel_slice(struct px *x, int64_t ns, uint64_t uuid, int kind,
			 int64_t nr, const char *irq_name, size_t irq_len)
{
	struct seq *s = &x->own[SEQ_KERNEL];
	struct lt_pb *b = &x->out;
	if (__builtin_expect(s->started, 1)) {
		uint32_t iid = kind >= 0 && nr >= 0 && nr < KS_CACHE ?
				       x->kiid[kind * KS_CACHE + nr] :
				       0;
		if (kind < 0) {
			slice_packet(x, s, ns, TYPE_SLICE_END, 0, 0, uuid);
			return;
		}
		if (iid && x->kcat_sent[kind]) {
			slice_packet(x, s, ns, TYPE_SLICE_BEGIN,
				     (uint32_t)kind + 1, iid, uuid);
			return;
		}
	}
	size_t m = seq_packet(x, s, ns, 1);
	if (kind < 0) {
		size_t te = lt_pb_begin(b, TP_TRACK_EVENT);
		lt_pb_uint(b, TE_TYPE, TYPE_SLICE_END);
		lt_pb_uint(b, TE_TRACK_UUID, uuid);
		lt_pb_end(b, te);
		packet_end(x, m);
		return;
	}
	uint32_t *slot = nr >= 0 && nr < KS_CACHE ?
				 &x->kiid[kind * KS_CACHE + nr] :
				 NULL;
	uint32_t iid = slot ? *slot : 0;
	if (!iid) {
		char buf[96];
		const char *name = buf;
		if (kind == KS_SYSCALL)
			name = lt_syscall_name(nr, buf, sizeof(buf));
		else if (kind == KS_IRQ && irq_len)
			snprintf(buf, sizeof(buf), "irq %lld %.*s",
				 (long long)nr, (int)irq_len, irq_name);
		else if (kind == KS_SOFTIRQ)
			snprintf(buf, sizeof(buf), "softirq %lld %s",
				 (long long)nr, lt_softirq_name(nr));
		else
			snprintf(buf, sizeof(buf), "%s %lld", ks_cat[kind],
				 (long long)nr);
		iid = kernel_name(x, name);
		if (slot)
			*slot = iid;
	}
	if (!x->kcat_sent[kind]) {
		size_t id = lt_pb_begin(b, TP_INTERNED_DATA);
		size_t e = lt_pb_begin(b, ID_CATEGORIES);
		lt_pb_uint(b, IN_IID, (uint64_t)kind + 1);
		lt_pb_str(b, IN_NAME, ks_cat[kind]);
		lt_pb_end(b, e);
		lt_pb_end(b, id);
		x->kcat_sent[kind] = 1;
	}
	size_t te = lt_pb_begin(b, TP_TRACK_EVENT);
	lt_pb_uint(b, TE_CATEGORY_IIDS, (uint64_t)kind + 1);
	lt_pb_uint(b, TE_TYPE, TYPE_SLICE_BEGIN);
	lt_pb_uint(b, TE_NAME_IID, iid);
	lt_pb_uint(b, TE_TRACK_UUID, uuid);
	lt_pb_end(b, te);
	packet_end(x, m);
}

static uint64_t cpu_track(struct px *x, uint32_t cpu, int soft)
{
	uint64_t uuid = cpu < UUID_CPUS ?
				1 + 2ull * cpu + (unsigned)soft :
				(soft ? UUID_SOFTIRQ : UUID_IRQ) | cpu;
	struct bundle *bd = bundle_of(x, cpu);
	if (!bd) {
		x->err = -ENOMEM;
		return uuid;
	}
	if (!(bd->tracks & (1u << soft))) {
		char name[64];
		snprintf(name, sizeof(name), "%s CPU %u",
			 soft ? "softirq" : "irq", cpu);
		named_track(x, uuid, name, 0);
		bd->tracks |= 1u << soft;
	}
	return uuid;
}

/* Before the model takes ev: ends what it closes, from the model's state
 * before it. */
static void kernel_before(struct px *x, const struct lt_event *ev, int kind,
			  struct lt_thread **sys_th, int32_t *sys_nr)
{
	const struct lt_model *m = &x->m;
	const struct lt_cpu *c = ev->cpu < m->ncpus ? &m->cpus[ev->cpu] : NULL;
	*sys_th = NULL;
	*sys_nr = -1;
	switch (kind) {
	case LT_KEV_IRQ_ENTRY:
	case LT_KEV_IRQ_EXIT:
		if (c && c->irq_begin)
			kernel_slice(x, ev->ns, cpu_track(x, ev->cpu, 0), -1, 0,
				     NULL, 0);
		break;
	case LT_KEV_SOFTIRQ_ENTRY:
	case LT_KEV_SOFTIRQ_EXIT:
		if (c && c->soft_begin)
			kernel_slice(x, ev->ns, cpu_track(x, ev->cpu, 1), -1, 0,
				     NULL, 0);
		break;
	case LT_KEV_SYS_ENTER:
	case LT_KEV_SYS_EXIT:
		if (c && c->cur >= 0) {
			*sys_th = lt_model_thread(m, c->cur);
			*sys_nr = *sys_th ? (*sys_th)->sys_nr : -1;
		}
		break;
	}
}

static void kernel_after(struct px *x, const struct lt_event *ev, int kind,
			 struct lt_thread *th, int32_t sys_nr)
{
	const struct lt_model *m = &x->m;
	const struct lt_cpu *c = ev->cpu < m->ncpus ? &m->cpus[ev->cpu] : NULL;
	switch (kind) {
	case LT_KEV_IRQ_ENTRY: {
		const char *name = NULL;
		size_t n = 0;
		int32_t vec = c ? c->irq_vec : -1;
		if (vec < 0 || vec >= KS_CACHE ||
		    !x->kiid[KS_IRQ * KS_CACHE + vec])
			n = fstr(ev, x->cls[ev->cls->index].irq_name, &name);
		kernel_slice(x, ev->ns, cpu_track(x, ev->cpu, 0), KS_IRQ, vec,
			     name, n);
		break;
	}
	case LT_KEV_SOFTIRQ_ENTRY:
		kernel_slice(x, ev->ns, cpu_track(x, ev->cpu, 1), KS_SOFTIRQ,
			     c ? c->soft_vec : -1, NULL, 0);
		break;
	case LT_KEV_SYS_ENTER:
	case LT_KEV_SYS_EXIT: {
		if (!c || c->cur < 0)
			break;
		struct lt_thread *now = lt_model_thread(m, c->cur);
		if (th && th != now)
			th = NULL; /* another thread: a switch was inferred */
		uint64_t uuid = thread_track(x, c->cur, 0);
		if (th && sys_nr >= 0)
			kernel_slice(x, ev->ns, uuid, -1, 0, NULL, 0);
		if (kind == LT_KEV_SYS_ENTER && now && now->sys_nr >= 0)
			kernel_slice(x, ev->ns, uuid, KS_SYSCALL, now->sys_nr,
				     NULL, 0);
		break;
	}
	}
}

/* ---- spans ---- */

static void span_edge(struct px *x, int64_t ns, uint64_t uuid,
		      const struct lt_span *sp)
{
	struct seq *s = &x->own[SEQ_SPANS];
	struct lt_pb *b = &x->out;
	size_t m = seq_packet(x, s, ns, 0);
	size_t te = lt_pb_begin(b, TP_TRACK_EVENT);
	if (sp) {
		lt_pb_str(b, TE_CATEGORIES, "span");
		lt_pb_uint(b, TE_TYPE, TYPE_SLICE_BEGIN);
		lt_pb_str(b, TE_NAME, sp->name);
		if (sp->fields[0]) {
			size_t a = lt_pb_begin(b, TE_DEBUG_ANNOTATIONS);
			lt_pb_str(b, 10 /* DebugAnnotation.name */, "fields");
			lt_pb_str(b, DA_STRING, sp->fields);
			lt_pb_end(b, a);
		}
	} else {
		lt_pb_uint(b, TE_TYPE, TYPE_SLICE_END);
	}
	lt_pb_uint(b, TE_TRACK_UUID, uuid);
	lt_pb_end(b, te);
	packet_end(x, m);
}

static void on_span(void *arg, const struct lt_span *sp)
{
	struct px *x = arg;
	uint64_t uuid = thread_track(x, sp->tid, 0);
	span_edge(x, sp->begin, uuid, sp);
	span_edge(x, sp->end, uuid, NULL);
}

/* ---- the process tree ---- */

static void process_tree(struct px *x)
{
	const struct lt_model *m = &x->m;
	struct lt_pb *b = &x->out;
	size_t pk = packet_begin(x, SEQ_SCHED);
	lt_pb_uint(b, TP_TIMESTAMP, (uint64_t)m->last_ns);
	size_t pt = lt_pb_begin(b, TP_PROCESS_TREE);
	unsigned n = 0;
	for (unsigned i = 0; i < m->tab_cap; i++) {
		const struct lt_thread *th = m->tab[i];
		if (!th || !th->tid)
			continue;
		int32_t pid = th->tgid > 0 ? th->tgid : th->tid;
		if (pid == th->tid) {
			size_t p = lt_pb_begin(b, PT_PROCESSES);
			lt_pb_int(b, PTP_PID, pid);
			if (th->comm[0])
				lt_pb_bytes(b, PTP_CMDLINE, th->comm,
					    strnlen(th->comm, 16));
			lt_pb_end(b, p);
		}
		size_t t = lt_pb_begin(b, PT_THREADS);
		lt_pb_int(b, PTT_TID, th->tid);
		if (th->comm[0])
			lt_pb_bytes(b, PTT_NAME, th->comm,
				    strnlen(th->comm, 16));
		lt_pb_int(b, PTT_TGID, pid);
		lt_pb_end(b, t);
		/* a packet of bounded size: the tree in several */
		if (++n % 1024 == 0) {
			lt_pb_end(b, pt);
			packet_end(x, pk);
			pk = packet_begin(x, SEQ_SCHED);
			lt_pb_uint(b, TP_TIMESTAMP, (uint64_t)m->last_ns);
			pt = lt_pb_begin(b, TP_PROCESS_TREE);
		}
	}
	lt_pb_end(b, pt);
	packet_end(x, pk);
}

/* ---- the pass ---- */

static void px_free(struct px *x)
{
	int err = lt_out_thread_finish(&x->w);
	if (err && !x->err)
		x->err = err;
	lt_pb_free(&x->out);
	if (x->spans)
		lt_spans_free(x->spans);
	free(x->anchor_memo);
	free(x->kiid);
	free(x->cls);
	free(x->ann_iid);
	str_free(&x->cats);
	str_free(&x->anns);
	str_free(&x->knames);
	for (unsigned i = 0; i < x->nstreams; i++)
		free(x->streams[i].sent);
	free(x->streams);
	for (unsigned i = 0; i < x->ncpus; i++) {
		if (!x->bundles[i])
			continue;
		for (unsigned k = 0; k < NARRAYS; k++)
			lt_pb_free(&x->bundles[i]->a[k]);
		free(x->bundles[i]);
	}
	free(x->bundles);
	free(x->tracks);
	lt_model_free(&x->m);
}

int lt_export_perfetto(lt_reader_t *t, const struct lt_perfetto_opts *o,
		       FILE *out)
{
	static const struct lt_perfetto_opts none;
	struct px x = { .t = t, .o = o ? o : &none };
	const struct lt_event *ev;
	int ret = lt_model_init(&x.m, t);
	if (ret)
		return ret;
	lt_out_thread_start(&x.w, out);
	for (unsigned i = 0; i < SEQ_STREAM0; i++)
		x.own[i].id = i;
	ret = plan_classes(&x);
	x.spans = lt_spans_new(t, x.o->span);
	x.anchor_memo = calloc(x.ncls + 1, 1);
	x.kiid = calloc(KS_N * KS_CACHE, sizeof(*x.kiid));
	if (!ret && (!x.spans || !x.anchor_memo || !x.kiid))
		ret = -ENOMEM;
	if (!ret) {
		/* SEQ_SCHED's state, and the builtin clocks' times */
		size_t m = packet_begin(&x, SEQ_SCHED);
		lt_pb_uint(&x.out, TP_SEQ_FLAGS, SEQ_CLEARED);
		lt_pb_uint(&x.out, TP_FIRST_ON_SEQ, 1);
		clock_snapshot(&x.out, lt_reader_begin_ns(t), 0);
		packet_end(&x, m);
	}
	while (!ret && !x.err && (ret = lt_reader_next(t, &ev)) > 0) {
		ret = 0;
		struct lt_thread *sys_th;
		int32_t sys_nr;
		/* the model's kind of a class, asked once */
		struct pcls *pc = &x.cls[ev->cls->index];
		if (__builtin_expect(!pc->kind, 0))
			pc->kind = (uint8_t)(lt_model_kind(&x.m, ev) + 1);
		int kind = pc->kind - 1;
		if (kind != LT_KEV_OTHER)
			kernel_before(&x, ev, kind, &sys_th, &sys_nr);
		lt_model_feed(&x.m, ev);
		switch (kind) {
		case LT_KEV_SWITCH:
		case LT_KEV_WAKING:
		case LT_KEV_WAKEUP_NEW: /* a new thread has no sched_waking */
			sched_event(&x, ev, kind);
			break;
		case LT_KEV_WAKEUP:
			if (x.wakeups_too)
				sched_event(&x, ev, kind);
			break;
		case LT_KEV_OTHER:
			track_event(&x, ev);
			if (lt_spans_pairs_class(x.spans, ev->cls))
				ret = lt_spans_feed(x.spans, ev, on_span, &x);
			break;
		case LT_KEV_THREAD_NAME:
			break;
		default:
			kernel_after(&x, ev, kind, sys_th, sys_nr);
			break;
		}
	}
	if (!ret && x.err)
		ret = x.err;
	if (!ret) {
		for (unsigned i = 0; i < x.ncpus; i++)
			if (x.bundles[i])
				bundle_flush(&x, i, x.bundles[i]);
		process_tree(&x);
		flush_out(&x);
	}
	px_free(&x); /* waits for the writer: its error in x.err, errno */
	if (!ret)
		ret = x.err;
	return ret;
}
