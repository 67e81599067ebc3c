/* SPDX-License-Identifier: MIT */
/*
 * emit.c - lowtrace._emit, the CPython extension through which a Python
 * program's events reach liblowtrace (linked as liblowtrace.so, one copy
 * with the process's C libraries): lowtrace.event("prov:name", **fields),
 * whose class is defined when first used, and the logging handler's
 * class python:logging.  A class defined at run time is a struct
 * lt_marker_desc without a format (lowtrace/types.h): its field list is
 * data.  While no one records an event, a call reads its enabled byte
 * and returns, having looked at none of its arguments.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <lowtrace/types.h>

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The tag of a field list that follows its event (struct lt_marker_desc). */
static const struct lt_field_desc *follow_tag(void)
{
	static const struct lt_field_desc t[] = {
		{ "", LT_FT_MARKER, 0, 0, 0, 0, NULL },
		{ NULL, 0, 0, 0, 0, 0, NULL },
	};
	return t;
}

/* A class defined at run time; never freed: the registry keeps it. */
struct dyn_class {
	struct lt_marker_desc md;
	struct lt_field_desc *fields;
	char *full, *prov, *name;
	uint32_t nfields;
	/* the field names of the first call, as a tuple (kwnames) */
	PyObject *names;
};

static void register_class(struct dyn_class *c)
{
	struct lt_event_desc *const *p =
		(struct lt_event_desc *const *)PyMem_RawMalloc(sizeof(void *));
	if (!p)
		return;
	*(struct lt_event_desc **)p = &c->md.ev;
	lt_probe_register_range(p, p + 1);
	/* LOWTRACE_TRACE or `lowtrace record` (once per process) */
	lt_session_autostart();
}

/* A class provider:name with fields (name, type) of types LT_FT_INT (8
 * bytes signed), LT_FT_FLOAT (8) and LT_FT_STRING; NULL when out of
 * memory. */
static struct dyn_class *class_new(const char *full, const char *const *names,
				   const uint8_t *types, uint32_t n, int level)
{
	struct dyn_class *c = PyMem_RawCalloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->fields = PyMem_RawCalloc(n + 1, sizeof(*c->fields));
	c->full = strdup(full);
	const char *colon = c->full ? strchr(c->full, ':') : NULL;
	if (!c->fields || !c->full || !colon)
		goto fail;
	c->prov = strndup(c->full, (size_t)(colon - c->full));
	c->name = strdup(colon + 1);
	if (!c->prov || !c->name)
		goto fail;
	for (uint32_t i = 0; i < n; i++) {
		struct lt_field_desc *f = &c->fields[i];
		f->name = strdup(names[i]);
		if (!f->name)
			goto fail;
		f->type = types[i];
		f->size = types[i] == LT_FT_STRING ? 1 : 8;
		f->is_signed = types[i] != LT_FT_STRING;
		f->base = 10;
	}
	c->nfields = n;
	c->md.ev.loglevel = level;
	c->md.ev.provider = c->prov;
	c->md.ev.name = c->name;
	c->md.ev.full = c->full;
	c->md.ev.fields = follow_tag;
	c->md.format = NULL;
	c->md.fields = c->fields;
	return c;
fail:
	/* not registered: nothing else holds it */
	if (c->fields)
		for (uint32_t i = 0; i < n; i++)
			free((char *)c->fields[i].name);
	PyMem_RawFree(c->fields);
	free(c->full);
	free(c->prov);
	free(c->name);
	PyMem_RawFree(c);
	return NULL;
}

/* Serialises one event's payload. */
struct writer {
	char buf[LT_EVENT_MAX];
	uint32_t off;
	int overflow;
};

static void put(struct writer *w, const void *v, size_t n)
{
	if (n > sizeof(w->buf) - w->off) {
		w->overflow = 1;
		return;
	}
	memcpy(w->buf + w->off, v, n);
	w->off += (uint32_t)n;
}

static void put_str(struct writer *w, const char *s, Py_ssize_t n)
{
	if (n > LT_STRING_MAX - 1)
		n = LT_STRING_MAX - 1;
	/* up to the first NUL: the trace's strings end there */
	const char *z = memchr(s, 0, (size_t)n);
	if (z)
		n = z - s;
	put(w, s, (size_t)n);
	put(w, "", 1);
}

/* A str or any object's str() into w; 0 or -1. */
static int put_obj_str(struct writer *w, PyObject *o)
{
	Py_ssize_t n;
	if (o == NULL || o == Py_None) {
		put(w, "", 1);
		return 0;
	}
	PyObject *s = PyUnicode_Check(o) ? Py_NewRef(o) : PyObject_Str(o);
	if (!s)
		return -1;
	const char *p = PyUnicode_AsUTF8AndSize(s, &n);
	if (!p) {
		Py_DECREF(s);
		return -1;
	}
	put_str(w, p, n);
	Py_DECREF(s);
	return 0;
}

static int put_value(struct writer *w, uint8_t type, PyObject *v)
{
	if (type == LT_FT_STRING)
		return put_obj_str(w, v);
	if (type == LT_FT_FLOAT) {
		double d = PyFloat_AsDouble(v);
		if (d == -1.0 && PyErr_Occurred())
			return -1;
		put(w, &d, 8);
		return 0;
	}
	int overflow = 0;
	long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
	if (x == -1 && PyErr_Occurred())
		return -1;
	if (overflow) {
		/* above INT64_MAX: its bits, as uint64 */
		unsigned long long u = PyLong_AsUnsignedLongLongMask(v);
		if (PyErr_Occurred())
			return -1;
		x = (long long)u;
	}
	int64_t i = x;
	put(w, &i, 8);
	return 0;
}

/* ---- lowtrace.event() ---- */

static PyObject *classes; /* "prov:name" -> capsule of struct dyn_class */

static uint8_t type_of(PyObject *v)
{
	if (PyFloat_Check(v))
		return LT_FT_FLOAT;
	if (PyLong_Check(v))
		return LT_FT_INT;
	return LT_FT_STRING;
}

static struct dyn_class *define(PyObject *name, PyObject *const *args,
				PyObject *kwnames, Py_ssize_t nkw)
{
	const char *full = PyUnicode_AsUTF8(name);
	if (!full)
		return NULL;
	if (!strchr(full, ':') || full[0] == ':') {
		PyErr_Format(PyExc_ValueError,
			     "event name %R: give \"provider:name\"", name);
		return NULL;
	}
	const char *names[LT_EVENT_MAX / 8] = { 0 };
	uint8_t types[LT_EVENT_MAX / 8] = { 0 };
	if ((size_t)nkw > sizeof(types)) {
		PyErr_SetString(PyExc_ValueError, "too many fields");
		return NULL;
	}
	for (Py_ssize_t i = 0; i < nkw; i++) {
		names[i] = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
		if (!names[i])
			return NULL;
		types[i] = type_of(args[i]);
	}
	struct dyn_class *c =
		class_new(full, names, types, (uint32_t)nkw, LT_INFO);
	if (!c) {
		PyErr_NoMemory();
		return NULL;
	}
	c->names = kwnames ? Py_NewRef(kwnames) : PyTuple_New(0);
	PyObject *cap = PyCapsule_New(c, NULL, NULL);
	if (!cap || PyDict_SetItem(classes, name, cap) < 0) {
		Py_XDECREF(cap);
		return NULL;
	}
	Py_DECREF(cap);
	register_class(c);
	return c;
}

/* event(name, **fields) */
static PyObject *m_event(PyObject *self, PyObject *const *args, size_t nargsf,
			 PyObject *kwnames)
{
	(void)self;
	Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
	Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
	if (nargs != 1 || !PyUnicode_Check(args[0])) {
		PyErr_SetString(PyExc_TypeError,
				"event(\"provider:name\", field=value, ...)");
		return NULL;
	}
	PyObject *cap = PyDict_GetItemWithError(classes, args[0]);
	struct dyn_class *c;
	if (cap) {
		c = PyCapsule_GetPointer(cap, NULL);
	} else {
		if (PyErr_Occurred())
			return NULL;
		c = define(args[0], args + 1, kwnames, nkw);
		if (!c)
			return NULL;
	}
	if (!__atomic_load_n(&c->md.ev.enabled, __ATOMIC_RELAXED))
		Py_RETURN_NONE;
	/* the values in the class's order: the first call's, by name */
	PyObject *vals[LT_EVENT_MAX / 8];
	if ((uint32_t)nkw != c->nfields)
		goto mismatch;
	for (uint32_t i = 0; i < c->nfields; i++) {
		PyObject *want = PyTuple_GET_ITEM(c->names, i);
		Py_ssize_t k = i;
		if (kwnames != c->names &&
		    PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, k), want)) {
			for (k = 0; k < nkw; k++)
				if (!PyUnicode_Compare(
					    PyTuple_GET_ITEM(kwnames, k), want))
					break;
			if (k == nkw)
				goto mismatch;
		}
		vals[i] = args[1 + k];
	}
	struct writer w;
	w.off = 0;
	w.overflow = 0;
	for (uint32_t i = 0; i < c->nfields; i++) {
		uint8_t t = c->fields[i].type;
		if (t != LT_FT_STRING && type_of(vals[i]) != t) {
			PyErr_Format(PyExc_TypeError,
				     "%s: field %s is %s, as first given",
				     c->full, c->fields[i].name,
				     t == LT_FT_INT ? "an int" : "a float");
			return NULL;
		}
		if (put_value(&w, t, vals[i]) < 0)
			return NULL;
	}
	lt_probe_emit(&c->md.ev, w.buf, w.off, w.overflow);
	Py_RETURN_NONE;
mismatch:
	PyErr_Format(PyExc_TypeError, "%s: give the fields %R, as first given",
		     c->full, c->names);
	return NULL;
}

/* enabled(name): whether someone records the event now (False for one
 * not yet defined). */
static PyObject *m_enabled(PyObject *self, PyObject *name)
{
	(void)self;
	PyObject *cap = PyDict_GetItemWithError(classes, name);
	if (!cap) {
		if (PyErr_Occurred())
			return NULL;
		Py_RETURN_FALSE;
	}
	struct dyn_class *c = PyCapsule_GetPointer(cap, NULL);
	return PyBool_FromLong(
		__atomic_load_n(&c->md.ev.enabled, __ATOMIC_RELAXED));
}

/* ---- python:logging ---- */

/* its fields, in the order log() writes them */
static const char *const log_names[] = { "logger", "level",    "msg",
					 "args",   "pathname", "lineno",
					 "func",   "thread",   "tid" };
static const uint8_t log_types[] = { LT_FT_STRING, LT_FT_INT,	 LT_FT_STRING,
				     LT_FT_STRING, LT_FT_STRING, LT_FT_INT,
				     LT_FT_STRING, LT_FT_INT,	 LT_FT_INT };
static struct dyn_class *log_class;
static PyObject *s_name, *s_levelno, *s_msg, *s_args, *s_pathname, *s_lineno,
	*s_funcName, *s_thread;

/* An attribute of the record into w as the field's type; 0 or -1. */
static int put_attr(struct writer *w, PyObject *rec, PyObject *attr,
		    uint8_t type)
{
	PyObject *v = PyObject_GetAttr(rec, attr);
	if (!v) {
		/* a record without it: an empty or zero value */
		PyErr_Clear();
		v = type == LT_FT_STRING ? Py_NewRef(Py_None) :
					   PyLong_FromLong(0);
		if (!v)
			return -1;
	}
	int r = type == LT_FT_INT && !PyLong_Check(v) ?
			put_value(w, type, Py_False) :
			put_value(w, type, v);
	Py_DECREF(v);
	return r;
}

/* The calling thread's kernel tid, asked for once per thread (a system
 * call per record cost more than the rest of it); a forked child's one
 * thread asks again. */
static __thread int64_t tid_cache;

static void forget_tid(void)
{
	tid_cache = 0;
}

static int64_t thread_tid(void)
{
	if (__builtin_expect(!tid_cache, 0))
		tid_cache = (int64_t)syscall(SYS_gettid);
	return tid_cache;
}

/* log(record): a logging.LogRecord as an event of python:logging, its
 * message unformatted (msg and the repr() of args) */
static PyObject *m_log(PyObject *self, PyObject *rec)
{
	(void)self;
	if (!__atomic_load_n(&log_class->md.ev.enabled, __ATOMIC_RELAXED))
		Py_RETURN_NONE;
	struct writer w;
	w.off = 0;
	w.overflow = 0;
	if (put_attr(&w, rec, s_name, LT_FT_STRING) < 0 ||
	    put_attr(&w, rec, s_levelno, LT_FT_INT) < 0 ||
	    put_attr(&w, rec, s_msg, LT_FT_STRING) < 0)
		return NULL;
	/* args: their repr() (read back with ast.literal_eval), "" for none */
	PyObject *a = PyObject_GetAttr(rec, s_args);
	if (!a)
		PyErr_Clear();
	if (a && a != Py_None && PyObject_IsTrue(a) > 0) {
		PyObject *r = PyObject_Repr(a);
		Py_DECREF(a);
		if (!r || put_obj_str(&w, r) < 0) {
			Py_XDECREF(r);
			return NULL;
		}
		Py_DECREF(r);
	} else {
		Py_XDECREF(a);
		PyErr_Clear();
		put(&w, "", 1);
	}
	if (put_attr(&w, rec, s_pathname, LT_FT_STRING) < 0 ||
	    put_attr(&w, rec, s_lineno, LT_FT_INT) < 0 ||
	    put_attr(&w, rec, s_funcName, LT_FT_STRING) < 0 ||
	    put_attr(&w, rec, s_thread, LT_FT_INT) < 0)
		return NULL;
	int64_t tid = thread_tid();
	put(&w, &tid, 8);
	lt_probe_emit(&log_class->md.ev, w.buf, w.off, w.overflow);
	Py_RETURN_NONE;
}

static PyObject *m_log_enabled(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return PyBool_FromLong(
		__atomic_load_n(&log_class->md.ev.enabled, __ATOMIC_RELAXED));
}

static PyMethodDef methods[] = {
	{ "event", (PyCFunction)(void (*)(void))m_event,
	  METH_FASTCALL | METH_KEYWORDS,
	  "event(\"provider:name\", **fields): emits an event" },
	{ "enabled", m_enabled, METH_O,
	  "enabled(name): whether the event is recorded now" },
	{ "log", m_log, METH_O,
	  "log(record): a logging record as an event of python:logging" },
	{ "log_enabled", m_log_enabled, METH_NOARGS,
	  "log_enabled(): whether python:logging is recorded now" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "lowtrace._emit",
	.m_doc = "events from Python through liblowtrace (use lowtrace.event "
		 "and lowtrace.logging)",
	.m_size = -1,
	.m_methods = methods,
};

PyMODINIT_FUNC PyInit__emit(void);

PyMODINIT_FUNC PyInit__emit(void)
{
	PyObject *m = PyModule_Create(&module);
	if (!m)
		return NULL;
#define INTERN(v, s) (v = PyUnicode_InternFromString(s))
	if (!INTERN(s_name, "name") || !INTERN(s_levelno, "levelno") ||
	    !INTERN(s_msg, "msg") || !INTERN(s_args, "args") ||
	    !INTERN(s_pathname, "pathname") || !INTERN(s_lineno, "lineno") ||
	    !INTERN(s_funcName, "funcName") || !INTERN(s_thread, "thread") ||
	    !(classes = PyDict_New())) {
		Py_DECREF(m);
		return NULL;
	}
#undef INTERN
	pthread_atfork(NULL, NULL, forget_tid);
	if (!log_class) {
		log_class = class_new("python:logging", log_names, log_types,
				      sizeof(log_types), LT_INFO);
		pthread_atfork(NULL, NULL, forget_tid);
		if (!log_class) {
			Py_DECREF(m);
			return PyErr_NoMemory();
		}
		register_class(log_class);
	}
	return m;
}
