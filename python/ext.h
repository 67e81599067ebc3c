/* SPDX-License-Identifier: MIT */
/*
 * ext.h - the lowtrace._reader extension's shared parts: the reader a
 * trace's iterations and events hold (struct py_handle), the exceptions,
 * field values as Python objects (values.c), columns (table.c).
 */
#ifndef LT_PY_EXT_H
#define LT_PY_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ctf/reader.h"

#include <stdint.h>

/* One open reader.  Events point into its mapped stream files: each holds
 * a reference to it.  busy: an iteration walks it now. */
struct py_handle {
	PyObject_HEAD lt_reader_t *r;
	int busy;
	/* per class: the depth of each field (structs and variants it is
	 * in, its own opening counted) and its top-level name's index in
	 * the class, so ev["name"] needs no mapping built */
	PyObject **names; /* per class: dict name -> field index, -1 nested */
};

extern PyTypeObject py_handle_type;
extern PyObject *py_error, *py_corrupt_error, *py_open_error;
/* lowtrace.EnumValue(value, labels), set by the package */
extern PyObject *py_enum_type;

/* Raises the exception that fits r (a negative errno) with msg. */
PyObject *py_raise(int r, const char *msg);

/* A handle of the trace at path (a new reference), or NULL after an
 * exception. */
struct py_handle *py_handle_open(const char *path);

/* Text of the trace (names, labels, values) as str: n bytes (n < 0: to
 * its NUL), bytes not UTF-8 replaced (a trace's bytes are not trusted);
 * None for NULL. */
PyObject *py_text(const char *s, Py_ssize_t n);

/* Field i of ev as Python gives it (ints, floats, str, lists, dicts,
 * EnumValue); NULL after an exception; Py_None for a variant's option
 * the event does not hold. */
PyObject *py_field_value(const struct lt_event *ev, unsigned i);
/* The fields of section sec (LT_SEC_*) as a dict, structs nested as
 * dicts and variants as their option's value; into d. */
int py_section(const struct lt_event *ev, unsigned sec, PyObject *d);
/* The labels of an enum's value, as a tuple. */
PyObject *py_enum_labels(const struct lt_field_class *fc, uint64_t raw);
/* An enum's value: EnumValue(raw, labels). */
PyObject *py_enum_value(const struct lt_field_class *fc, uint64_t raw);

/* The iteration's filters, shared by events() and table(). */
struct py_filter {
	unsigned char *sel; /* per class */
	unsigned nclasses;
	int64_t lo, hi;
	uint64_t *cpus, *tids; /* sorted */
	Py_ssize_t ncpus, ntids;
};
/* Parses (names, start, end, cpus, tids) of handle h; 0 or -1 after an
 * exception. */
int py_filter_init(struct py_filter *f, struct py_handle *h, PyObject *names,
		   PyObject *start, PyObject *end, PyObject *cpus,
		   PyObject *tids);
void py_filter_fini(struct py_filter *f);
/* 1 when f takes ev (its class and time checked by the caller). */
int py_filter_rest(const struct py_filter *f, const struct lt_event *ev);
/* The event's thread: its context's vtid or tid, else its packet's pid;
 * -1 when it has none. */
int64_t py_event_tid(const struct lt_event *ev);

/* trace.table(): the module function _reader.table(). */
PyObject *py_table(PyObject *self, PyObject *args, PyObject *kw);
int py_table_ready(PyObject *m);

#endif
