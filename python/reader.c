/* SPDX-License-Identifier: MIT */
/*
 * reader.c - lowtrace._reader, the CPython extension over the trace
 * reader (src/tool/ctf/): a trace's metadata, its events in time order
 * as Event objects whose fields are decoded when asked for, and its
 * columns (table.c).  The pure-Python package lowtrace wraps it.
 *
 * An Event keeps the offsets the decoder noted and a reference to the
 * reader whose mapped files hold its bytes: it stays valid after the
 * iteration moved on.  One iteration at a time walks a reader; another
 * started meanwhile opens the trace again.
 */
#include "ext.h"

#include "ctf/value.h"
#include "probe/pattern.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

PyObject *py_error, *py_corrupt_error, *py_open_error;

PyObject *py_raise(int r, const char *msg)
{
	PyObject *type = r == -EBADMSG ? py_corrupt_error : py_error;
	PyObject *args = Py_BuildValue("(iN)", -r, py_text(msg, -1));
	if (args) {
		PyErr_SetObject(type, args);
		Py_DECREF(args);
	}
	return NULL;
}

/* ---- the reader handle ---- */

static void handle_dealloc(PyObject *o)
{
	struct py_handle *h = (struct py_handle *)o;
	if (h->names) {
		unsigned n = lt_reader_nclasses(h->r);
		for (unsigned i = 0; i < n; i++)
			Py_XDECREF(h->names[i]);
		free(h->names);
	}
	lt_reader_close(h->r);
	Py_TYPE(o)->tp_free(o);
}

PyTypeObject py_handle_type = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "lowtrace._reader.Handle",
	.tp_basicsize = sizeof(struct py_handle),
	.tp_dealloc = handle_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "an open reader of a trace",
};

/* The number of structs field fc opens (its open text's '{'). */
static unsigned opens(const struct lt_field_class *fc)
{
	unsigned n = 0;
	for (uint32_t k = 0; k < fc->open_len; k++)
		n += fc->open[k] == '{';
	return n;
}

/* Class ec's top-level names: name -> field index, or -1 for a struct
 * or variant (its value is built with its section); the payload's names
 * over the contexts'. */
static PyObject *class_names(const struct lt_event_class *ec)
{
	PyObject *d = PyDict_New();
	for (int sec = LT_SEC_PAYLOAD; d && sec >= 0; sec--) {
		unsigned depth = 0;
		for (uint32_t i = 0; i < ec->nfields; i++) {
			const struct lt_field_class *fc = &ec->fields[i];
			if (fc->sec != sec)
				continue;
			PyObject *key = NULL;
			long idx = -1;
			if (depth == 0 && fc->open_len) {
				/* the first name it opens */
				const char *p = fc->open, *e = p + fc->open_len;
				while (p < e && (*p == ',' || *p == ' '))
					p++;
				const char *q = p;
				while (q < e && *q != ' ')
					q++;
				if (q > p && *p != '{')
					key = py_text(p, q - p);
			} else if (depth == 0 && fc->prefix_len != 2) {
				key = py_text(fc->name,
					      (Py_ssize_t)fc->name_len);
				idx = (long)i;
			}
			depth += opens(fc);
			depth = fc->closes > depth ? 0 : depth - fc->closes;
			if (!key)
				continue;
			int have = PyDict_Contains(d, key);
			PyObject *v = PyLong_FromLong(idx);
			if (have < 0 || !v ||
			    (!have && PyDict_SetItem(d, key, v) < 0)) {
				Py_XDECREF(v);
				Py_DECREF(key);
				Py_DECREF(d);
				return NULL;
			}
			Py_DECREF(v);
			Py_DECREF(key);
		}
	}
	return d;
}

struct py_handle *py_handle_open(const char *path)
{
	char err[1024];
	lt_reader_t *r = NULL;
	int rc;

	err[0] = 0;
	Py_BEGIN_ALLOW_THREADS rc =
		lt_reader_open(path, NULL, &r, err, sizeof(err));
	Py_END_ALLOW_THREADS if (rc < 0)
	{
		PyObject *args = Py_BuildValue("(iN)", -rc, py_text(err, -1));
		if (args) {
			PyErr_SetObject(rc == -EBADMSG ? py_corrupt_error :
							 py_open_error,
					args);
			Py_DECREF(args);
		}
		return NULL;
	}
	struct py_handle *h = PyObject_New(struct py_handle, &py_handle_type);
	if (!h) {
		lt_reader_close(r);
		return NULL;
	}
	h->r = r;
	h->busy = 0;
	unsigned nc = lt_reader_nclasses(r);
	h->names = calloc(nc ? nc : 1, sizeof(*h->names));
	if (!h->names) {
		Py_DECREF(h);
		PyErr_NoMemory();
		return NULL;
	}
	for (unsigned i = 0; i < nc; i++)
		if (!(h->names[i] = class_names(lt_reader_class(r, i)))) {
			Py_DECREF(h);
			return NULL;
		}
	return h;
}

/* ---- filters ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* A sorted array of the integers of iterable o (None: NULL, n 0). */
static int u64_set(PyObject *o, uint64_t **out, Py_ssize_t *n)
{
	*out = NULL;
	*n = 0;
	if (o == Py_None)
		return 0;
	PyObject *seq = PySequence_Fast(o, "cpus and tids take a sequence of "
					   "integers");
	if (!seq)
		return -1;
	Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
	uint64_t *a = malloc((size_t)(len ? len : 1) * sizeof(*a));
	if (!a) {
		Py_DECREF(seq);
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < len; i++) {
		a[i] = (uint64_t)PyLong_AsLongLong(
			PySequence_Fast_GET_ITEM(seq, i));
		if (PyErr_Occurred()) {
			free(a);
			Py_DECREF(seq);
			return -1;
		}
	}
	Py_DECREF(seq);
	qsort(a, (size_t)len, sizeof(*a), cmp_u64);
	*out = a;
	*n = len;
	/* an empty set takes nothing: kept as a set of none */
	return 0;
}

static int in_set(const uint64_t *a, Py_ssize_t n, uint64_t v)
{
	Py_ssize_t lo = 0, hi = n;
	while (lo < hi) {
		Py_ssize_t mid = (lo + hi) / 2;
		if (a[mid] < v)
			lo = mid + 1;
		else if (a[mid] > v)
			hi = mid;
		else
			return 1;
	}
	return 0;
}

int py_filter_init(struct py_filter *f, struct py_handle *h, PyObject *names,
		   PyObject *start, PyObject *end, PyObject *cpus,
		   PyObject *tids)
{
	memset(f, 0, sizeof(*f));
	f->lo = INT64_MIN;
	f->hi = INT64_MAX;
	f->nclasses = lt_reader_nclasses(h->r);
	f->sel = malloc(f->nclasses ? f->nclasses : 1);
	if (!f->sel) {
		PyErr_NoMemory();
		return -1;
	}
	/* names: None (all) or a sequence of class indexes (the package
	 * matches the patterns) */
	memset(f->sel, names == Py_None, f->nclasses ? f->nclasses : 1);
	if (names != Py_None) {
		PyObject *seq = PySequence_Fast(names, "names");
		if (!seq)
			goto fail;
		for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
			long k =
				PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
			if (k < 0 || (unsigned long)k >= f->nclasses) {
				if (!PyErr_Occurred())
					PyErr_SetString(PyExc_IndexError,
							"no such event class");
				Py_DECREF(seq);
				goto fail;
			}
			f->sel[k] = 1;
		}
		Py_DECREF(seq);
	}
	if (start != Py_None) {
		f->lo = PyLong_AsLongLong(start);
		if (PyErr_Occurred())
			goto fail;
	}
	if (end != Py_None) {
		f->hi = PyLong_AsLongLong(end);
		if (PyErr_Occurred())
			goto fail;
	}
	if (u64_set(cpus, &f->cpus, &f->ncpus) < 0 ||
	    u64_set(tids, &f->tids, &f->ntids) < 0)
		goto fail;
	if (cpus == Py_None)
		f->ncpus = -1;
	if (tids == Py_None)
		f->ntids = -1;
	return 0;
fail:
	py_filter_fini(f);
	return -1;
}

void py_filter_fini(struct py_filter *f)
{
	free(f->sel);
	free(f->cpus);
	free(f->tids);
	f->sel = NULL;
	f->cpus = f->tids = NULL;
}

int64_t py_event_tid(const struct lt_event *ev)
{
	const struct lt_event_class *ec = ev->cls;
	for (uint32_t i = 0; i < ec->nfields; i++) {
		const struct lt_field_class *fc = &ec->fields[i];
		if (fc->sec == LT_SEC_PAYLOAD)
			break;
		if (fc->kind != LT_KIND_INT || fc->open_len ||
		    (strcmp(fc->name, "vtid") && strcmp(fc->name, "tid")))
			continue;
		struct lt_value v;
		if (lt_event_field(ev, i, &v) == 0)
			return v.i;
	}
	return ev->pid ? (int64_t)ev->pid : -1;
}

int py_filter_rest(const struct py_filter *f, const struct lt_event *ev)
{
	if (f->ncpus >= 0 && !in_set(f->cpus, f->ncpus, ev->cpu))
		return 0;
	if (f->ntids >= 0) {
		int64_t tid = py_event_tid(ev);
		if (tid < 0 || !in_set(f->tids, f->ntids, (uint64_t)tid))
			return 0;
	}
	return 1;
}

/* ---- events ---- */

struct py_event {
	PyObject_VAR_HEAD struct py_handle *h;
	const struct lt_event_class *cls;
	const unsigned char *base;
	int64_t ns;
	uint32_t cpu, pid, stream_index;
	uint64_t discarded;
	/* the decoder's offsets, then counts: nfields each */
	uint32_t data[];
};

static PyTypeObject event_type;

static PyObject *event_new(struct py_handle *h, const struct lt_event *ev)
{
	unsigned n = ev->cls->nfields;
	struct py_event *e =
		PyObject_NewVar(struct py_event, &event_type, 2 * n);
	if (!e)
		return NULL;
	Py_INCREF(h);
	e->h = h;
	e->cls = ev->cls;
	e->base = ev->base;
	e->ns = ev->ns;
	e->cpu = ev->cpu;
	e->pid = ev->pid;
	e->stream_index = ev->stream_index;
	e->discarded = ev->discarded;
	if (n) {
		memcpy(e->data, ev->off, n * sizeof(uint32_t));
		/* a class of fixed size has no counts (the decoder leaves
		 * ev->count as it was) */
		if (ev->cls->fixed_size >= 0 || !ev->count)
			memset(e->data + n, 0, n * sizeof(uint32_t));
		else
			memcpy(e->data + n, ev->count, n * sizeof(uint32_t));
	}
	return (PyObject *)e;
}

static void event_dealloc(PyObject *o)
{
	struct py_event *e = (struct py_event *)o;
	Py_DECREF(e->h);
	PyObject_Free(o);
}

/* The reader's view of e, for its values. */
static void event_view(const struct py_event *e, struct lt_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->cls = e->cls;
	ev->base = e->base;
	ev->ns = e->ns;
	ev->cpu = e->cpu;
	ev->pid = e->pid;
	ev->off = e->data;
	ev->count = e->data + e->cls->nfields;
}

static PyObject *event_name(PyObject *o, void *c)
{
	(void)c;
	const struct py_event *e = (const struct py_event *)o;
	return PyUnicode_DecodeUTF8(e->cls->name, e->cls->name_len, "replace");
}

static PyObject *event_timestamp(PyObject *o, void *c)
{
	(void)c;
	return PyLong_FromLongLong(((struct py_event *)o)->ns);
}

static PyObject *event_cpu(PyObject *o, void *c)
{
	(void)c;
	return PyLong_FromUnsignedLong(((struct py_event *)o)->cpu);
}

static PyObject *event_stream(PyObject *o, void *c)
{
	(void)c;
	return PyLong_FromUnsignedLong(((struct py_event *)o)->stream_index);
}

static PyObject *event_class(PyObject *o, void *c)
{
	(void)c;
	return PyLong_FromUnsignedLong(((struct py_event *)o)->cls->index);
}

static PyObject *event_tid(PyObject *o, void *c)
{
	(void)c;
	struct lt_event ev;
	event_view((struct py_event *)o, &ev);
	int64_t tid = py_event_tid(&ev);
	if (tid < 0)
		Py_RETURN_NONE;
	return PyLong_FromLongLong(tid);
}

static PyObject *event_discarded(PyObject *o, void *c)
{
	(void)c;
	return PyLong_FromUnsignedLongLong(((struct py_event *)o)->discarded);
}

static PyObject *section(PyObject *o, unsigned sec)
{
	struct lt_event ev;
	event_view((struct py_event *)o, &ev);
	PyObject *d = PyDict_New();
	if (d && py_section(&ev, sec, d) < 0)
		Py_CLEAR(d);
	return d;
}

static PyObject *event_payload(PyObject *o, void *c)
{
	(void)c;
	return section(o, LT_SEC_PAYLOAD);
}

static PyObject *event_event_context(PyObject *o, void *c)
{
	(void)c;
	return section(o, LT_SEC_EVENT_CTX);
}

static PyObject *event_stream_context(PyObject *o, void *c)
{
	(void)c;
	return section(o, LT_SEC_STREAM_CTX);
}

/* Both contexts in one dict, the event's over the stream's. */
static PyObject *event_context(PyObject *o, void *c)
{
	(void)c;
	struct lt_event ev;
	event_view((struct py_event *)o, &ev);
	PyObject *d = PyDict_New();
	if (d && (py_section(&ev, LT_SEC_STREAM_CTX, d) < 0 ||
		  py_section(&ev, LT_SEC_EVENT_CTX, d) < 0))
		Py_CLEAR(d);
	return d;
}

static PyObject *event_getitem(PyObject *o, PyObject *key)
{
	struct py_event *e = (struct py_event *)o;
	PyObject *idx =
		PyDict_GetItemWithError(e->h->names[e->cls->index], key);
	if (!idx) {
		if (!PyErr_Occurred())
			PyErr_SetObject(PyExc_KeyError, key);
		return NULL;
	}
	long i = PyLong_AsLong(idx);
	struct lt_event ev;
	event_view(e, &ev);
	if (i >= 0)
		return py_field_value(&ev, (unsigned)i);
	/* a struct or a variant: its section built, payload first */
	for (int sec = LT_SEC_PAYLOAD; sec >= 0; sec--) {
		PyObject *d = PyDict_New();
		if (!d || py_section(&ev, (unsigned)sec, d) < 0) {
			Py_XDECREF(d);
			return NULL;
		}
		PyObject *v = PyDict_GetItemWithError(d, key);
		Py_XINCREF(v);
		Py_DECREF(d);
		if (v || PyErr_Occurred())
			return v;
	}
	PyErr_SetObject(PyExc_KeyError, key);
	return NULL;
}

static int event_contains(PyObject *o, PyObject *key)
{
	struct py_event *e = (struct py_event *)o;
	return PyDict_Contains(e->h->names[e->cls->index], key);
}

/* ev.get(name, default=None) */
static PyObject *event_get(PyObject *o, PyObject *const *args, Py_ssize_t nargs)
{
	if (nargs < 1 || nargs > 2) {
		PyErr_SetString(PyExc_TypeError,
				"get() takes a name and a default");
		return NULL;
	}
	int have = event_contains(o, args[0]);
	if (have < 0)
		return NULL;
	if (have)
		return event_getitem(o, args[0]);
	PyObject *d = nargs == 2 ? args[1] : Py_None;
	Py_INCREF(d);
	return d;
}

/* The names ev["name"] takes. */
static PyObject *event_keys(PyObject *o, PyObject *unused)
{
	(void)unused;
	struct py_event *e = (struct py_event *)o;
	return PyDict_Keys(e->h->names[e->cls->index]);
}

static PyObject *event_repr(PyObject *o)
{
	struct py_event *e = (struct py_event *)o;
	PyObject *p = event_payload(o, NULL);
	if (!p)
		return NULL;
	PyObject *r =
		PyUnicode_FromFormat("<Event %s at %lld on cpu %u: %R>",
				     e->cls->name, (long long)e->ns, e->cpu, p);
	Py_DECREF(p);
	return r;
}

static PyGetSetDef event_getset[] = {
	{ "name", event_name, NULL, "the event class's name", NULL },
	{ "timestamp", event_timestamp, NULL,
	  "ns since the epoch (the clock's origin)", NULL },
	{ "cpu", event_cpu, NULL, "the packet's cpu_id (0 without one)", NULL },
	{ "stream", event_stream, NULL, "the stream's index", NULL },
	{ "class_index", event_class, NULL, "the event class's index", NULL },
	{ "tid", event_tid, NULL,
	  "the context's vtid or tid, else the packet's pid, else None", NULL },
	{ "discarded", event_discarded, NULL,
	  "the stream's running count of events the tracer discarded", NULL },
	{ "payload", event_payload, NULL, "the payload's fields, a dict",
	  NULL },
	{ "context", event_context, NULL,
	  "the stream's and the event's context fields, a dict", NULL },
	{ "event_context", event_event_context, NULL,
	  "the event's context fields, a dict", NULL },
	{ "stream_context", event_stream_context, NULL,
	  "the stream's event context fields, a dict", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyMethodDef event_methods[] = {
	{ "get", (PyCFunction)(void (*)(void))event_get, METH_FASTCALL,
	  "get(name, default=None): a field's value" },
	{ "keys", event_keys, METH_NOARGS, "the names ev[name] takes" },
	{ NULL, NULL, 0, NULL },
};

static PyMappingMethods event_mapping = {
	.mp_subscript = event_getitem,
};

static PySequenceMethods event_sequence = {
	.sq_contains = event_contains,
};

static PyTypeObject event_type = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "lowtrace.Event",
	.tp_basicsize = sizeof(struct py_event),
	.tp_itemsize = sizeof(uint32_t),
	.tp_dealloc = event_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "an event of a trace: its fields are decoded when asked for",
	.tp_getset = event_getset,
	.tp_methods = event_methods,
	.tp_as_mapping = &event_mapping,
	.tp_as_sequence = &event_sequence,
	.tp_repr = event_repr,
};

/* ---- the iteration ---- */

struct py_iter {
	PyObject_HEAD struct py_handle *h;
	struct py_filter f;
	int done;
};

static void iter_release(struct py_iter *it)
{
	if (it->h) {
		it->h->busy = 0;
		Py_CLEAR(it->h);
	}
	py_filter_fini(&it->f);
	it->done = 1;
}

static void iter_dealloc(PyObject *o)
{
	iter_release((struct py_iter *)o);
	Py_TYPE(o)->tp_free(o);
}

static PyObject *iter_next(PyObject *o)
{
	struct py_iter *it = (struct py_iter *)o;
	const struct lt_event *ev;
	int r;
	if (it->done)
		return NULL;
	lt_reader_t *t = it->h->r;
	const unsigned char *sel = it->f.sel;
	while ((r = lt_reader_next(t, &ev)) > 0) {
		if (!sel[ev->cls->index] || ev->ns < it->f.lo)
			continue;
		if (ev->ns > it->f.hi) {
			r = 0; /* in time order: none after */
			break;
		}
		if (!py_filter_rest(&it->f, ev))
			continue;
		return event_new(it->h, ev);
	}
	if (r < 0)
		py_raise(r, lt_reader_error(t));
	iter_release(it);
	return NULL;
}

static PyTypeObject iter_type = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "lowtrace._reader.Events",
	.tp_basicsize = sizeof(struct py_iter),
	.tp_dealloc = iter_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "a trace's events in time order",
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = iter_next,
};

/* ---- the module's functions ---- */

static PyObject *m_open(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *path;
	if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path))
		return NULL;
	PyObject *h = (PyObject *)py_handle_open(PyBytes_AS_STRING(path));
	Py_DECREF(path);
	return h;
}

static struct py_handle *handle_arg(PyObject *o)
{
	if (!PyObject_TypeCheck(o, &py_handle_type)) {
		PyErr_SetString(PyExc_TypeError, "not a reader handle");
		return NULL;
	}
	return (struct py_handle *)o;
}

/* events(handle, path, names, start, end, cpus, tids): an iteration of
 * handle, or of a new one of path when handle is being walked. */
static PyObject *m_events(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *ho, *path, *names, *start, *end, *cpus, *tids;
	if (!PyArg_ParseTuple(args, "OO&OOOOO", &ho, PyUnicode_FSConverter,
			      &path, &names, &start, &end, &cpus, &tids))
		return NULL;
	struct py_handle *h = handle_arg(ho);
	if (!h) {
		Py_DECREF(path);
		return NULL;
	}
	if (h->busy) {
		h = py_handle_open(PyBytes_AS_STRING(path));
		if (!h) {
			Py_DECREF(path);
			return NULL;
		}
	} else {
		Py_INCREF(h);
	}
	Py_DECREF(path);
	struct py_iter *it = PyObject_New(struct py_iter, &iter_type);
	if (!it) {
		Py_DECREF(h);
		return NULL;
	}
	it->h = NULL;
	it->done = 0;
	if (py_filter_init(&it->f, h, names, start, end, cpus, tids) < 0) {
		memset(&it->f, 0, sizeof(it->f));
		Py_DECREF(h);
		Py_DECREF(it);
		return NULL;
	}
	lt_reader_rewind(h->r);
	h->busy = 1;
	it->h = h;
	return (PyObject *)it;
}

static PyObject *field_type(const struct lt_field_class *fc)
{
	static const char *const kinds[] = { "int",	"enum",	 "float",
					     "string",	"array", "sequence",
					     "compound" };
	const char *kind = fc->kind < 7 ? kinds[fc->kind] : "?";
	if ((fc->kind == LT_KIND_ARRAY || fc->kind == LT_KIND_SEQUENCE) &&
	    fc->text)
		kind = "string";
	PyObject *d = Py_BuildValue(
		"{s:s,s:i,s:i,s:i,s:i,s:O}", "kind", kind, "size",
		fc->bitfield ? fc->bitsize : 8 * fc->size, "signed",
		fc->is_signed, "base", fc->base, "align", fc->align, "text",
		fc->text ? Py_True : Py_False);
	if (!d)
		return NULL;
	if (fc->kind == LT_KIND_ARRAY || fc->kind == LT_KIND_SEQUENCE) {
		static const char *const ek[] = { "int", "enum", "float" };
		PyObject *x = Py_BuildValue(
			"s", fc->elem_kind < 3 ? ek[fc->elem_kind] : "?");
		if (!x || PyDict_SetItemString(d, "element", x) < 0)
			goto fail;
		Py_DECREF(x);
		if (fc->kind == LT_KIND_ARRAY) {
			x = PyLong_FromUnsignedLong(fc->length);
			if (!x || PyDict_SetItemString(d, "length", x) < 0)
				goto fail;
			Py_DECREF(x);
		}
	}
	if (fc->nranges) {
		PyObject *l = PyList_New(fc->nranges);
		for (uint32_t k = 0; l && k < fc->nranges; k++) {
			const struct lt_enum_range *r = &fc->ranges[k];
			PyObject *x =
				fc->is_signed ?
					Py_BuildValue("(NLL)",
						      py_text(r->label, -1),
						      (long long)r->lo,
						      (long long)r->hi) :
					Py_BuildValue(
						"(NKK)", py_text(r->label, -1),
						(unsigned long long)r->lo,
						(unsigned long long)r->hi);
			if (!x) {
				Py_CLEAR(l);
				break;
			}
			PyList_SET_ITEM(l, k, x);
		}
		if (!l || PyDict_SetItemString(d, "ranges", l) < 0) {
			Py_XDECREF(l);
			goto fail;
		}
		Py_DECREF(l);
	}
	return d;
fail:
	Py_DECREF(d);
	return NULL;
}

/* classes(handle): a list of dicts, one per event class. */
static PyObject *m_classes(PyObject *self, PyObject *ho)
{
	(void)self;
	struct py_handle *h = handle_arg(ho);
	if (!h)
		return NULL;
	static const char *const secs[] = { "stream_context", "event_context",
					    "payload" };
	unsigned nc = lt_reader_nclasses(h->r);
	PyObject *out = PyList_New(nc);
	for (unsigned i = 0; out && i < nc; i++) {
		const struct lt_event_class *ec = lt_reader_class(h->r, i);
		PyObject *fields = PyList_New(ec->nfields);
		unsigned depth = 0;
		for (uint32_t k = 0; fields && k < ec->nfields; k++) {
			const struct lt_field_class *fc = &ec->fields[k];
			depth += opens(fc);
			PyObject *ty = field_type(fc);
			PyObject *f =
				ty ? Py_BuildValue(
					     "{s:N,s:s,s:N,s:i,s:O}", "name",
					     py_text(fc->name, -1), "section",
					     fc->sec < 3 ? secs[fc->sec] : "?",
					     "type", ty, "depth", depth,
					     "option",
					     fc->var_tag >= 0 ? Py_True :
								Py_False) :
				     NULL;
			depth = fc->closes > depth ? 0 : depth - fc->closes;
			if (!f) {
				Py_CLEAR(fields);
				break;
			}
			PyList_SET_ITEM(fields, k, f);
		}
		PyObject *c =
			fields ?
				Py_BuildValue("{s:I,s:N,s:K,s:I,s:i,s:N,s:N}",
					      "index", i, "name",
					      py_text(ec->name, -1), "id",
					      (unsigned long long)ec->id,
					      "stream_id", ec->stream_id,
					      "loglevel", ec->loglevel,
					      "format", py_text(ec->format, -1),
					      "fields", fields) :
				NULL;
		if (!c) {
			Py_CLEAR(out);
			break;
		}
		PyList_SET_ITEM(out, i, c);
	}
	return out;
}

static PyObject *clock_dict(const struct lt_clock *c)
{
	if (!c)
		Py_RETURN_NONE;
	return Py_BuildValue("{s:N,s:K,s:L,s:K,s:L}", "name",
			     py_text(c->name ? c->name : "", -1), "frequency",
			     (unsigned long long)c->freq, "offset_s",
			     (long long)c->offset_s, "offset",
			     (unsigned long long)c->offset, "origin_ns",
			     (long long)c->base_ns);
}

/* streams(handle): a list of dicts, one per stream file. */
static PyObject *m_streams(PyObject *self, PyObject *ho)
{
	(void)self;
	struct py_handle *h = handle_arg(ho);
	if (!h)
		return NULL;
	unsigned n = lt_reader_nstreams(h->r);
	PyObject *out = PyList_New(n);
	for (unsigned i = 0; out && i < n; i++) {
		lt_stream_t *s = lt_reader_stream(h->r, i);
		PyObject *env = PyDict_New();
		const char *key, *val;
		for (unsigned k = 0;
		     env && (val = lt_stream_env_at(s, k, &key)); k++) {
			PyObject *v = py_text(val, -1);
			PyObject *kv = py_text(key, -1);
			if (!v || !kv || PyDict_SetItem(env, kv, v) < 0) {
				Py_XDECREF(v);
				Py_XDECREF(kv);
				Py_CLEAR(env);
				break;
			}
			Py_DECREF(v);
			Py_DECREF(kv);
		}
		int64_t end = lt_stream_end_ns(s);
		PyObject *d =
			env ? Py_BuildValue(
				      "{s:I,s:N,s:N,s:K,s:K,s:N,s:N,s:N}",
				      "index", i, "name",
				      py_text(lt_stream_name(s), -1), "path",
				      py_text(lt_stream_path(s), -1), "packets",
				      (unsigned long long)lt_stream_npackets(s),
				      "discarded",
				      (unsigned long long)lt_stream_discarded(
					      s),
				      "end_ns",
				      end == INT64_MAX || end == INT64_MIN ?
					      Py_NewRef(Py_None) :
					      PyLong_FromLongLong(end),
				      "clock", clock_dict(lt_stream_clock(s)),
				      "env", env) :
			      NULL;
		if (!d) {
			Py_CLEAR(out);
			break;
		}
		PyList_SET_ITEM(out, i, d);
	}
	return out;
}

/* info(handle): the trace's clock, first time, skipped packets. */
static PyObject *m_info(PyObject *self, PyObject *ho)
{
	(void)self;
	struct py_handle *h = handle_arg(ho);
	if (!h)
		return NULL;
	return Py_BuildValue(
		"{s:N,s:L,s:K}", "clock", clock_dict(lt_reader_clock(h->r)),
		"begin_ns", (long long)lt_reader_begin_ns(h->r),
		"skipped_packets",
		(unsigned long long)lt_reader_skipped_packets(h->r));
}

static PyObject *m_set_enum_type(PyObject *self, PyObject *t)
{
	(void)self;
	Py_XDECREF(py_enum_type);
	Py_INCREF(t);
	py_enum_type = t;
	Py_RETURN_NONE;
}

/* matching(handle, patterns): the indexes of the classes whose name (its
 * bytes, as the trace has them) a pattern takes. */
static PyObject *m_matching(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *ho, *pats;
	if (!PyArg_ParseTuple(args, "OO", &ho, &pats))
		return NULL;
	struct py_handle *h = handle_arg(ho);
	PyObject *seq = h ? PySequence_Fast(pats, "patterns: a list") : NULL;
	if (!seq)
		return NULL;
	PyObject *out = PyList_New(0);
	unsigned nc = lt_reader_nclasses(h->r);
	for (unsigned i = 0; out && i < nc; i++) {
		const char *name = lt_reader_class(h->r, i)->name;
		for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); k++) {
			const char *p = PyUnicode_AsUTF8(
				PySequence_Fast_GET_ITEM(seq, k));
			if (!p) {
				Py_CLEAR(out);
				break;
			}
			if (!lt_pattern_match(p, name))
				continue;
			PyObject *x = PyLong_FromUnsignedLong(i);
			if (!x || PyList_Append(out, x) < 0)
				Py_CLEAR(out);
			Py_XDECREF(x);
			break;
		}
	}
	Py_DECREF(seq);
	return out;
}

static PyMethodDef methods[] = {
	{ "matching", m_matching, METH_VARARGS,
	  "matching(handle, patterns): the classes the patterns take" },
	{ "open", m_open, METH_VARARGS, "open(path): a reader handle" },
	{ "events", m_events, METH_VARARGS,
	  "events(handle, path, names, start, end, cpus, tids): an "
	  "iteration" },
	{ "classes", m_classes, METH_O, "classes(handle): the event classes" },
	{ "streams", m_streams, METH_O, "streams(handle): the streams" },
	{ "info", m_info, METH_O, "info(handle): clock, begin, skipped" },
	{ "table", (PyCFunction)(void (*)(void))py_table,
	  METH_VARARGS | METH_KEYWORDS,
	  "table(handle, classes, fields, start, end, cpus, tids): columns" },
	{ "set_enum_type", m_set_enum_type, METH_O,
	  "set_enum_type(cls): what enum values are made of" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "lowtrace._reader",
	.m_doc = "the lowtrace trace reader (use the lowtrace package)",
	.m_size = -1,
	.m_methods = methods,
};

PyMODINIT_FUNC PyInit__reader(void);

PyMODINIT_FUNC PyInit__reader(void)
{
	if (PyType_Ready(&py_handle_type) < 0 ||
	    PyType_Ready(&event_type) < 0 || PyType_Ready(&iter_type) < 0)
		return NULL;
	PyObject *m = PyModule_Create(&module);
	if (!m)
		return NULL;
	py_error = PyErr_NewExceptionWithDoc(
		"lowtrace.Error",
		"an error of the trace reader: (errno, message)", NULL, NULL);
	py_corrupt_error = PyErr_NewExceptionWithDoc(
		"lowtrace.CorruptTraceError",
		"the trace's bytes are not what its metadata says", py_error,
		NULL);
	py_open_error = PyErr_NewExceptionWithDoc(
		"lowtrace.OpenError", "the trace could not be opened", py_error,
		NULL);
	if (!py_error || !py_corrupt_error || !py_open_error ||
	    PyModule_AddObjectRef(m, "Error", py_error) < 0 ||
	    PyModule_AddObjectRef(m, "CorruptTraceError", py_corrupt_error) <
		    0 ||
	    PyModule_AddObjectRef(m, "OpenError", py_open_error) < 0 ||
	    PyModule_AddObjectRef(m, "Event", (PyObject *)&event_type) < 0 ||
	    py_table_ready(m) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
