/* SPDX-License-Identifier: MIT */
/*
 * value.h - a decoded event's field values (struct lt_value): scalars,
 * strings, array elements, enum labels.
 */
#ifndef LT_CTF_VALUE_H
#define LT_CTF_VALUE_H

#include "ctf/types.h"

#include <stddef.h>
#include <stdint.h>

/* Field i of ev (0 <= i < ev->cls->nfields); returns 0 or -EINVAL. */
int lt_event_field(const struct lt_event *ev, unsigned i, struct lt_value *v);
/* The field called name; returns 0 or -ENOENT. */
int lt_event_field_by_name(const struct lt_event *ev, const char *name,
			   struct lt_value *v);
/* Element i of an array or sequence value. */
int lt_value_elem(const struct lt_value *arr, size_t i, struct lt_value *out);
/* The label of an enum value, or NULL. */
const char *lt_enum_label(const struct lt_field_class *fc, uint64_t raw);

#endif
