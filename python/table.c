/* SPDX-License-Identifier: MIT */
/*
 * table.c - columns of a trace's events (trace.table()): in one pass,
 * each numeric field into a growing array of int64, uint64 or float64,
 * each string into int32 codes of its distinct values (a hash table over
 * the bytes in the mapped trace), without a Python object per event;
 * only arrays and compound fields are Python lists.  The arrays are
 * handed to NumPy as buffers (the package calls numpy.frombuffer()), not
 * copied.
 */
#include "ext.h"

#include "ctf/value.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- a growing array that NumPy reads as a buffer ---- */

struct py_buf {
	PyObject_HEAD char *p;
	size_t len, cap;
	Py_ssize_t exports;
};

static void buf_dealloc(PyObject *o)
{
	free(((struct py_buf *)o)->p);
	Py_TYPE(o)->tp_free(o);
}

static int buf_get(PyObject *o, Py_buffer *view, int flags)
{
	struct py_buf *b = (struct py_buf *)o;
	int r = PyBuffer_FillInfo(view, o, b->p ? b->p : (char *)"",
				  (Py_ssize_t)b->len, 0, flags);
	if (r == 0)
		b->exports++;
	return r;
}

static void buf_release(PyObject *o, Py_buffer *view)
{
	(void)view;
	((struct py_buf *)o)->exports--;
}

static PyBufferProcs buf_procs = {
	.bf_getbuffer = buf_get,
	.bf_releasebuffer = buf_release,
};

static PyTypeObject buf_type = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "lowtrace._reader.Buffer",
	.tp_basicsize = sizeof(struct py_buf),
	.tp_dealloc = buf_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_as_buffer = &buf_procs,
	.tp_doc = "a column's bytes (numpy.frombuffer() reads them)",
};

static struct py_buf *buf_new(void)
{
	struct py_buf *b = PyObject_New(struct py_buf, &buf_type);
	if (b) {
		b->p = NULL;
		b->len = b->cap = 0;
		b->exports = 0;
	}
	return b;
}

/* Room for n more bytes; 0 or -1.  realloc() of a large block moves its
 * pages (mremap), so growing by doubling copies nothing. */
static int buf_room(struct py_buf *b, size_t n)
{
	if (b->cap - b->len >= n)
		return 0;
	size_t cap = b->cap ? 2 * b->cap : 1u << 16;
	while (cap - b->len < n)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p)
		return -1;
	b->p = p;
	b->cap = cap;
	return 0;
}

#define PUSH(b, type, x)                                    \
	do {                                                \
		type x_ = (x);                              \
		memcpy((b)->p + (b)->len, &x_, sizeof(x_)); \
		(b)->len += sizeof(x_);                     \
	} while (0)

/* ---- distinct strings ---- */

struct strtab {
	struct sent {
		const char *s;
		uint32_t len, code;
		uint64_t hash;
	} * slot;
	size_t cap, n;
	/* codes in order: their text */
	const char **str;
	uint32_t *len;
	size_t scap;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h | 1; /* 0: an empty slot */
}

/* The code of s, added when new; -1 when out of memory. */
static int64_t strtab_code(struct strtab *t, const char *s, size_t n)
{
	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct sent *ns = calloc(cap, sizeof(*ns));
		if (!ns)
			return -1;
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->slot[i].hash)
				continue;
			size_t j = t->slot[i].hash & (cap - 1);
			while (ns[j].hash)
				j = (j + 1) & (cap - 1);
			ns[j] = t->slot[i];
		}
		free(t->slot);
		t->slot = ns;
		t->cap = cap;
	}
	uint64_t h = hash_bytes(s, n);
	size_t j = h & (t->cap - 1);
	while (t->slot[j].hash) {
		struct sent *e = &t->slot[j];
		if (e->hash == h && e->len == n && !memcmp(e->s, s, n))
			return e->code;
		j = (j + 1) & (t->cap - 1);
	}
	if (t->n == t->scap) {
		size_t c = t->scap ? 2 * t->scap : 256;
		const char **ns = realloc(t->str, c * sizeof(*ns));
		if (!ns)
			return -1;
		t->str = ns;
		uint32_t *nl = realloc(t->len, c * sizeof(*nl));
		if (!nl)
			return -1;
		t->len = nl;
		t->scap = c;
	}
	t->slot[j] = (struct sent){
		.s = s, .len = (uint32_t)n, .code = (uint32_t)t->n, .hash = h
	};
	t->str[t->n] = s;
	t->len[t->n] = (uint32_t)n;
	return (int64_t)t->n++;
}

static void strtab_free(struct strtab *t)
{
	free(t->slot);
	free(t->str);
	free(t->len);
}

/* ---- the columns ---- */

enum { COL_I64, COL_U64, COL_F64, COL_STR, COL_OBJ };

struct col {
	int kind;
	struct py_buf *buf;
	PyObject *list; /* COL_OBJ */
	struct strtab tab; /* COL_STR */
};

/* The column kind of field fc. */
static int col_kind(const struct lt_field_class *fc)
{
	if (fc->var_tag >= 0 && fc->kind == LT_KIND_COMPOUND)
		return COL_OBJ;
	switch (fc->kind) {
	case LT_KIND_INT:
	case LT_KIND_ENUM:
		return fc->is_signed ? COL_I64 : COL_U64;
	case LT_KIND_FLOAT:
		return COL_F64;
	case LT_KIND_STRING:
		return COL_STR;
	case LT_KIND_ARRAY:
	case LT_KIND_SEQUENCE:
		return fc->text ? COL_STR : COL_OBJ;
	default:
		return COL_OBJ;
	}
}

/* The text of a string or char array value. */
static void str_of(const struct lt_value *v, const char **s, size_t *n)
{
	*s = v->str;
	*n = v->len;
	if (v->kind != LT_KIND_STRING) {
		const void *z = memchr(v->str, 0, v->len);
		if (z)
			*n = (size_t)((const char *)z - v->str);
	}
}

/* One event's value of column c (field i of ev); 0 or -1. */
static int col_push(struct col *c, const struct lt_event *ev, unsigned i)
{
	struct lt_value v;
	int absent = lt_event_field(ev, i, &v) < 0;
	if (c->kind == COL_OBJ) {
		PyObject *o = py_field_value(ev, i);
		if (!o || PyList_Append(c->list, o) < 0) {
			Py_XDECREF(o);
			return -1;
		}
		Py_DECREF(o);
		return 0;
	}
	if (buf_room(c->buf, 8) < 0) {
		PyErr_NoMemory();
		return -1;
	}
	switch (c->kind) {
	case COL_I64:
		PUSH(c->buf, int64_t, absent ? 0 : v.i);
		return 0;
	case COL_U64:
		PUSH(c->buf, uint64_t, absent ? 0 : v.u);
		return 0;
	case COL_F64:
		PUSH(c->buf, double, absent ? NAN : v.f);
		return 0;
	default: {
		int64_t code = -1;
		if (!absent) {
			const char *s;
			size_t n;
			str_of(&v, &s, &n);
			code = strtab_code(&c->tab, s, n);
			if (code < 0) {
				PyErr_NoMemory();
				return -1;
			}
		}
		PUSH(c->buf, int32_t, (int32_t)code);
		return 0;
	}
	}
}

static const char *const col_names[] = { "int64", "uint64", "float64", "codes",
					 "object" };

/* table(handle, path, classes, fields, start, end, cpus, tids): a dict
 * of "timestamp", "cpu", "stream" (Buffers of int64, uint32, uint32) and
 * "columns": per field name (kind, Buffer or list[, labels]). */
PyObject *py_table(PyObject *self, PyObject *args, PyObject *kw)
{
	(void)self;
	(void)kw;
	PyObject *ho, *path, *classes, *fields, *start, *end, *cpus, *tids;
	PyObject *out = NULL;
	if (!PyArg_ParseTuple(args, "OO&OOOOOO", &ho, PyUnicode_FSConverter,
			      &path, &classes, &fields, &start, &end, &cpus,
			      &tids))
		return NULL;
	if (!PyObject_TypeCheck(ho, &py_handle_type)) {
		Py_DECREF(path);
		PyErr_SetString(PyExc_TypeError, "not a reader handle");
		return NULL;
	}
	struct py_handle *h = (struct py_handle *)ho;
	if (h->busy)
		h = py_handle_open(PyBytes_AS_STRING(path));
	else
		Py_INCREF(h);
	Py_DECREF(path);
	if (!h)
		return NULL;

	PyObject *fseq = PySequence_Fast(fields, "fields: a list of names");
	struct py_filter f = { 0 };
	unsigned nc = lt_reader_nclasses(h->r);
	int32_t *map = NULL; /* per class, per column: its field, -1 none */
	unsigned char *want = NULL;
	struct col *cols = NULL;
	struct py_buf *ts = NULL, *cpu = NULL, *stream = NULL;
	Py_ssize_t ncol = fseq ? PySequence_Fast_GET_SIZE(fseq) : 0;
	int r;

	if (!fseq || py_filter_init(&f, h, classes, start, end, cpus, tids) < 0)
		goto out;
	map = malloc((size_t)nc * (size_t)(ncol ? ncol : 1) * sizeof(*map) + 1);
	cols = calloc((size_t)(ncol ? ncol : 1), sizeof(*cols));
	ts = buf_new();
	cpu = buf_new();
	stream = buf_new();
	if (!map || !cols || !ts || !cpu || !stream) {
		PyErr_NoMemory();
		goto out;
	}
	for (Py_ssize_t c = 0; c < ncol; c++)
		cols[c].kind = -1;
	/* each selected class's fields by name, of one kind per column */
	for (unsigned k = 0; k < nc; k++) {
		if (!f.sel[k])
			continue;
		const struct lt_event_class *ec = lt_reader_class(h->r, k);
		for (Py_ssize_t c = 0; c < ncol; c++) {
			PyObject *name = PySequence_Fast_GET_ITEM(fseq, c);
			PyObject *idx =
				PyDict_GetItemWithError(h->names[k], name);
			long i = idx ? PyLong_AsLong(idx) : -1;
			if (PyErr_Occurred())
				goto out;
			if (!idx || i < 0) {
				PyErr_Format(PyExc_KeyError,
					     "%s has no field %R%s", ec->name,
					     name,
					     idx ? " of one value (a struct or "
						   "variant: use events())" :
						   "");
				goto out;
			}
			int kind = col_kind(&ec->fields[i]);
			if (cols[c].kind >= 0 && cols[c].kind != kind) {
				PyErr_Format(PyExc_ValueError,
					     "field %R is of two types in the "
					     "classes asked for",
					     name);
				goto out;
			}
			cols[c].kind = kind;
			map[(size_t)k * (size_t)ncol + (size_t)c] = (int32_t)i;
		}
	}
	for (Py_ssize_t c = 0; c < ncol; c++) {
		if (cols[c].kind == COL_OBJ)
			cols[c].list = PyList_New(0);
		else
			cols[c].buf = buf_new();
		if (!cols[c].list && !cols[c].buf)
			goto out;
	}
	h->busy = 1;
	lt_reader_rewind(h->r);
	const struct lt_event *ev;
	while ((r = lt_reader_next(h->r, &ev)) > 0) {
		unsigned k = ev->cls->index;
		if (!f.sel[k] || ev->ns < f.lo)
			continue;
		if (ev->ns > f.hi) {
			r = 0;
			break;
		}
		if (!py_filter_rest(&f, ev))
			continue;
		if (buf_room(ts, 8) < 0 || buf_room(cpu, 4) < 0 ||
		    buf_room(stream, 4) < 0) {
			PyErr_NoMemory();
			r = 1;
			break;
		}
		PUSH(ts, int64_t, ev->ns);
		PUSH(cpu, uint32_t, ev->cpu);
		PUSH(stream, uint32_t, ev->stream_index);
		const int32_t *m = map + (size_t)k * (size_t)ncol;
		Py_ssize_t c;
		for (c = 0; c < ncol; c++)
			if (col_push(&cols[c], ev, (unsigned)m[c]) < 0)
				break;
		if (c < ncol) {
			r = 1;
			break;
		}
	}
	h->busy = 0;
	if (r < 0)
		py_raise(r, lt_reader_error(h->r));
	if (r != 0)
		goto out;
	PyObject *cd = PyDict_New();
	out = Py_BuildValue("{s:O,s:O,s:O,s:N}", "timestamp", ts, "cpu", cpu,
			    "stream", stream, "columns", cd);
	if (!out)
		goto out;
	for (Py_ssize_t c = 0; c < ncol; c++) {
		struct col *cl = &cols[c];
		PyObject *v;
		if (cl->kind == COL_OBJ) {
			v = Py_BuildValue("(sO)", col_names[cl->kind],
					  cl->list);
		} else if (cl->kind == COL_STR) {
			PyObject *labels = PyList_New((Py_ssize_t)cl->tab.n);
			for (size_t j = 0; labels && j < cl->tab.n; j++) {
				PyObject *s = PyUnicode_DecodeUTF8(
					cl->tab.str[j],
					(Py_ssize_t)cl->tab.len[j], "replace");
				if (!s) {
					Py_CLEAR(labels);
					break;
				}
				PyList_SET_ITEM(labels, (Py_ssize_t)j, s);
			}
			v = labels ? Py_BuildValue("(sON)", col_names[cl->kind],
						   cl->buf, labels) :
				     NULL;
		} else {
			v = Py_BuildValue("(sO)", col_names[cl->kind], cl->buf);
		}
		if (!v || PyDict_SetItem(cd, PySequence_Fast_GET_ITEM(fseq, c),
					 v) < 0) {
			Py_XDECREF(v);
			Py_CLEAR(out);
			goto out;
		}
		Py_DECREF(v);
	}
out:
	if (cols) {
		for (Py_ssize_t c = 0; c < ncol; c++) {
			Py_XDECREF(cols[c].buf);
			Py_XDECREF(cols[c].list);
			strtab_free(&cols[c].tab);
		}
		free(cols);
	}
	Py_XDECREF(ts);
	Py_XDECREF(cpu);
	Py_XDECREF(stream);
	free(map);
	free(want);
	py_filter_fini(&f);
	Py_XDECREF(fseq);
	Py_DECREF(h);
	return out;
}

int py_table_ready(PyObject *m)
{
	(void)m;
	return PyType_Ready(&buf_type);
}
