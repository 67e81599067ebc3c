/* SPDX-License-Identifier: MIT */
/*
 * values.c - a decoded event's field values as Python objects, as
 * babeltrace2's Python bindings give them once made plain: integers as
 * int, enums as lowtrace.EnumValue (an int with its labels), floats as
 * float, strings and char arrays as str, arrays and sequences as lists,
 * structs as dicts, a variant as its option's value.  The reader's
 * fields are a flat list (nested structs and variants flattened, each
 * field's "open" text naming the structs it opens); the dicts are built
 * back from it.
 */
#include "ext.h"

#include "ctf/compound.h"
#include "ctf/header.h"
#include "ctf/load.h"
#include "ctf/value.h"

#include <string.h>

PyObject *py_enum_type;

PyObject *py_enum_labels(const struct lt_field_class *fc, uint64_t raw)
{
	PyObject *t = PyList_New(0);
	const char *last = NULL;
	if (!t)
		return NULL;
	/* ranges come grouped by label: each label once */
	for (uint32_t i = 0; i < fc->nranges; i++) {
		const struct lt_enum_range *r = &fc->ranges[i];
		int in = fc->is_signed ? ((int64_t)raw >= r->lo &&
					  (int64_t)raw <= r->hi) :
					 (raw >= (uint64_t)r->lo &&
					  raw <= (uint64_t)r->hi);
		if (!in || (last && !strcmp(last, r->label)))
			continue;
		last = r->label;
		PyObject *s = PyUnicode_DecodeUTF8(
			r->label, (Py_ssize_t)strlen(r->label), "replace");
		if (!s || PyList_Append(t, s) < 0) {
			Py_XDECREF(s);
			Py_DECREF(t);
			return NULL;
		}
		Py_DECREF(s);
	}
	PyObject *tu = PyList_AsTuple(t);
	Py_DECREF(t);
	return tu;
}

static PyObject *int_of(const struct lt_field_class *fc, uint64_t raw)
{
	if (fc->base == LT_BASE_BOOL)
		return PyBool_FromLong(raw != 0);
	return fc->is_signed ? PyLong_FromLongLong((long long)(int64_t)raw) :
			       PyLong_FromUnsignedLongLong(raw);
}

PyObject *py_enum_value(const struct lt_field_class *fc, uint64_t raw)
{
	PyObject *v = int_of(fc, raw);
	if (!v || !py_enum_type)
		return v;
	PyObject *labels = py_enum_labels(fc, raw);
	if (!labels) {
		Py_DECREF(v);
		return NULL;
	}
	PyObject *e =
		PyObject_CallFunctionObjArgs(py_enum_type, v, labels, NULL);
	Py_DECREF(v);
	Py_DECREF(labels);
	return e;
}

PyObject *py_text(const char *s, Py_ssize_t n)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(s, n < 0 ? (Py_ssize_t)strlen(s) : n,
				    "replace");
}

static PyObject *text(const char *s, size_t n)
{
	return py_text(s, (Py_ssize_t)n);
}

/* A scalar value (integer, enum, float) the reader made. */
static PyObject *scalar(const struct lt_value *v)
{
	switch (v->kind) {
	case LT_KIND_FLOAT:
		return PyFloat_FromDouble(v->f);
	case LT_KIND_ENUM:
		return py_enum_value(v->fc, v->u);
	default:
		return int_of(v->fc, v->u);
	}
}

/* A compound value (ctf/compound.h's tree), walked as lt_cnode_walk()
 * walks it; the decoder checked its bounds. */
static PyObject *walk(const struct lt_cnode *n, struct lt_cwalk *w,
		      uint64_t *bit);

static int ref_value(const struct lt_cnode *n, struct lt_cwalk *w, int64_t *v)
{
	if (n->ref_reg >= 0) {
		*v = (int64_t)w->regs[n->ref_reg];
		return 0;
	}
	uint32_t off = w->off[n->ref_field];
	if (off == LT_OFF_ABSENT) {
		PyErr_SetString(py_corrupt_error,
				"a compound field's tag or length is in a "
				"variant's option the event does not hold");
		return -1;
	}
	*v = lt_field_int(w->b, off, &w->fields[n->ref_field]);
	return 0;
}

/* CTF 2's UTF-16 or UTF-32 text of n (len bytes at s) as a str, what is
 * not a code point replaced, as the text view converts it. */
static PyObject *utf_text(const struct lt_cnode *n, const unsigned char *s,
			  size_t len)
{
	const char *codec = n->enc == 2 ?
				    (n->enc_be ? "utf-16-be" : "utf-16-le") :
				    (n->enc_be ? "utf-32-be" : "utf-32-le");
	return PyUnicode_Decode((const char *)s, (Py_ssize_t)len, codec,
				"replace");
}

static PyObject *elements(const struct lt_cnode *n, struct lt_cwalk *w,
			  uint64_t *bit, uint64_t count)
{
	if (n->blob) {
		const char *s = (const char *)w->b + *bit / 8;
		*bit += 8 * count;
		return PyBytes_FromStringAndSize(s, (Py_ssize_t)count);
	}
	if (n->text && n->enc) {
		const unsigned char *s = w->b + *bit / 8;
		*bit += 8 * count;
		return utf_text(n, s, lt_cnode_utf_len(n, s, (size_t)count));
	}
	if (n->text) {
		const char *s = (const char *)w->b + *bit / 8;
		*bit += 8 * count;
		return text(s, strnlen(s, (size_t)count));
	}
	if (count > 8 * (uint64_t)w->end - *bit) {
		PyErr_SetString(
			py_corrupt_error,
			"a compound field has more elements than bytes");
		return NULL;
	}
	PyObject *l = PyList_New((Py_ssize_t)count);
	for (uint64_t i = 0; l && i < count; i++) {
		PyObject *e = walk(&n->kids[0], w, bit);
		if (!e) {
			Py_DECREF(l);
			return NULL;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, e);
	}
	return l;
}

static PyObject *walk(const struct lt_cnode *n, struct lt_cwalk *w,
		      uint64_t *bit)
{
	uint64_t at = (*bit + n->align - 1) & ~(uint64_t)(n->align - 1);
	*bit = at;
	switch (n->kind) {
	case LT_CN_SCALAR: {
		const struct lt_field_class *fc = n->sc;
		if (fc->kind == LT_KIND_FLOAT) {
			struct lt_value v;
			lt_value_set_float(
				&v,
				lt_hdr_bits(w->b, at, 8u * fc->size, fc->be),
				fc->size);
			*bit = at + 8u * fc->size;
			return PyFloat_FromDouble(v.f);
		}
		uint64_t raw = lt_hdr_bits(w->b, at, fc->bitsize, fc->be);
		if (fc->is_signed && fc->bitsize < 64)
			raw = (uint64_t)((int64_t)(raw << (64 - fc->bitsize)) >>
					 (64 - fc->bitsize));
		if (n->reg >= 0)
			w->regs[n->reg] = raw;
		*bit = at + fc->bitsize;
		if (fc->kind == LT_KIND_ENUM)
			return py_enum_value(fc, raw);
		return int_of(fc, raw);
	}
	case LT_CN_STRING: {
		if (n->enc) {
			const unsigned char *u = w->b + at / 8;
			size_t len = lt_cnode_utf_len(n, u, SIZE_MAX);
			*bit = at + 8 * (uint64_t)(len + n->enc);
			return utf_text(n, u, len);
		}
		const char *s = (const char *)w->b + at / 8;
		size_t len = strlen(s);
		*bit = at + 8 * (uint64_t)(len + 1);
		return text(s, len);
	}
	case LT_CN_STRUCT: {
		PyObject *d = PyDict_New();
		for (uint32_t i = 0; d && i < n->nkids; i++) {
			const struct lt_cnode *k = &n->kids[i];
			PyObject *v = walk(k, w, bit);
			PyObject *key =
				v ? PyUnicode_FromStringAndSize(
					    k->name, (Py_ssize_t)k->name_len) :
				    NULL;
			if (!key || PyDict_SetItem(d, key, v) < 0) {
				Py_XDECREF(key);
				Py_XDECREF(v);
				Py_DECREF(d);
				return NULL;
			}
			Py_DECREF(key);
			Py_DECREF(v);
		}
		return d;
	}
	case LT_CN_VARIANT: {
		int64_t tag;
		if (ref_value(n, w, &tag))
			return NULL;
		for (uint32_t i = 0; i < n->nsel; i++) {
			const struct lt_var_sel *s = &n->sel[i];
			if (lt_cnode_selects(n, s, tag))
				return walk(&n->kids[s->opt], w, bit);
		}
		PyErr_SetString(py_corrupt_error,
				"a variant's tag selects no option");
		return NULL;
	}
	case LT_CN_ARRAY:
		return elements(n, w, bit, n->length);
	case LT_CN_VLINT: {
		/* CTF 2's LEB128 integer: byte aligned, its bytes checked by
		 * the decoder */
		const struct lt_field_class *fc = n->sc;
		size_t b = (size_t)(at / 8);
		uint64_t raw;
		const char *why =
			lt_leb128(w->b, w->end, &b, fc->is_signed, &raw);
		if (why) {
			PyErr_SetString(py_corrupt_error, why);
			return NULL;
		}
		*bit = 8 * (uint64_t)b;
		if (n->reg >= 0)
			w->regs[n->reg] = raw;
		if (fc->kind == LT_KIND_ENUM)
			return py_enum_value(fc, raw);
		return int_of(fc, raw);
	}
	case LT_CN_OPTIONAL: {
		/* CTF 2's optional: its value, or None when absent */
		int64_t sel;
		int in = 0;
		if (ref_value(n, w, &sel))
			return NULL;
		for (uint32_t i = 0; i < n->nsel && !in; i++)
			in = lt_cnode_selects(n, &n->sel[i], sel);
		if (!n->nsel)
			in = sel != 0;
		if (!in)
			Py_RETURN_NONE;
		return walk(&n->kids[0], w, bit);
	}
	default: {
		int64_t len;
		if (ref_value(n, w, &len))
			return NULL;
		return elements(n, w, bit, (uint64_t)len);
	}
	}
}

PyObject *py_field_value(const struct lt_event *ev, unsigned i)
{
	const struct lt_field_class *fc = &ev->cls->fields[i];
	struct lt_value v, e;
	if (lt_event_field(ev, i, &v) < 0)
		Py_RETURN_NONE;
	switch (v.kind) {
	case LT_KIND_STRING:
		return text(v.str, v.len);
	case LT_KIND_ARRAY:
	case LT_KIND_SEQUENCE: {
		if (fc->text) {
			const unsigned char *z = ld_find_nul(
				(const unsigned char *)v.str, v.len);
			return text(
				v.str,
				z ? (size_t)(z - (const unsigned char *)v.str) :
				    v.len);
		}
		PyObject *l = PyList_New((Py_ssize_t)v.len);
		for (size_t j = 0; l && j < v.len; j++) {
			lt_value_elem(&v, j, &e);
			PyObject *x = scalar(&e);
			if (!x) {
				Py_DECREF(l);
				return NULL;
			}
			PyList_SET_ITEM(l, (Py_ssize_t)j, x);
		}
		return l;
	}
	case LT_KIND_COMPOUND: {
		struct lt_cwalk w = { .b = ev->base,
				      .end = SIZE_MAX / 16,
				      .fields = ev->cls->fields,
				      .off = ev->off };
		uint64_t bit = ev->off[i];
		return walk(fc->tree, &w, &bit);
	}
	default:
		return scalar(&v);
	}
}

/* A level of the dicts being built back: its dict (made when a named
 * field goes in), or its value (a variant's option, which has no name);
 * its key in the level above, NULL for an option's struct. */
struct level {
	PyObject *dict, *value, *key;
};

#define MAX_LEVELS 64

/* Puts v (a new reference, taken) in level l under key (NULL: as the
 * level's value); 0 or -1. */
static int put(struct level *l, PyObject *key, PyObject *v)
{
	if (!key) {
		Py_XDECREF(l->value);
		l->value = v;
		return 0;
	}
	if (!l->dict && !(l->dict = PyDict_New())) {
		Py_DECREF(v);
		return -1;
	}
	int r = PyDict_SetItem(l->dict, key, v);
	Py_DECREF(v);
	return r;
}

/* Closes the innermost level into the one above; 0 or -1. */
static int pop(struct level *lv, unsigned *n)
{
	struct level *l = &lv[--*n];
	PyObject *v = l->dict ? l->dict : l->value ? l->value : Py_None;
	if (!l->dict && !l->value)
		Py_INCREF(v);
	if (l->dict)
		Py_XDECREF(l->value);
	PyObject *key = l->key;
	memset(l, 0, sizeof(*l));
	int r = put(&lv[*n - 1], key, v);
	Py_XDECREF(key);
	return r;
}

/* The structs a field opens (its open text: ", a = { b = {", " {" for a
 * variant's option that is a struct), pushed; 0 or -1. */
static int push_opens(const struct lt_field_class *fc, struct level *lv,
		      unsigned *n)
{
	const char *p = fc->open, *end = fc->open + fc->open_len;
	while (p < end) {
		while (p < end && (*p == ',' || *p == ' '))
			p++;
		if (p >= end)
			break;
		if (*n >= MAX_LEVELS) {
			PyErr_SetString(py_error, "structs nested too deeply");
			return -1;
		}
		struct level *l = &lv[(*n)++];
		memset(l, 0, sizeof(*l));
		if (*p == '{') {
			p++;
			continue;
		}
		const char *q = p;
		while (q < end && *q != ' ')
			q++;
		l->key = py_text(p, q - p);
		if (!l->key)
			return -1;
		p = q + 4; /* " = {" */
	}
	return 0;
}

int py_section(const struct lt_event *ev, unsigned sec, PyObject *d)
{
	const struct lt_event_class *ec = ev->cls;
	struct level lv[MAX_LEVELS];
	unsigned n = 1;
	int rc = -1;
	memset(lv, 0, sizeof(lv[0]));
	lv[0].dict = d;
	for (uint32_t i = 0; i < ec->nfields; i++) {
		const struct lt_field_class *fc = &ec->fields[i];
		if (fc->sec != sec)
			continue;
		if (fc->var_tag >= 0 && ev->off[i] == LT_OFF_ABSENT)
			continue;
		if (fc->open_len && push_opens(fc, lv, &n) < 0)
			goto out;
		PyObject *v = py_field_value(ev, i);
		PyObject *key = NULL;
		if (v && fc->prefix_len != 2)
			key = py_text(fc->name, (Py_ssize_t)fc->name_len);
		if (!v || (fc->prefix_len != 2 && !key)) {
			Py_XDECREF(v);
			goto out;
		}
		int r = put(&lv[n - 1], key, v);
		Py_XDECREF(key);
		if (r < 0)
			goto out;
		for (unsigned k = 0; k < fc->closes && n > 1; k++)
			if (pop(lv, &n) < 0)
				goto out;
	}
	while (n > 1)
		if (pop(lv, &n) < 0)
			goto out;
	rc = 0;
out:
	while (n > 1) {
		struct level *l = &lv[--n];
		Py_XDECREF(l->dict);
		Py_XDECREF(l->value);
		Py_XDECREF(l->key);
	}
	Py_XDECREF(lv[0].value);
	return rc;
}
