/* SPDX-License-Identifier: MIT */
/*
 * fields.h - events' field lists (struct lt_field_desc, NULL-name
 * terminated) as the registry keeps them: its entries outlive the objects
 * that registered them, so it holds deep copies, and an event defined
 * twice must have the same fields both times.
 */
#ifndef LT_PROBE_FIELDS_H
#define LT_PROBE_FIELDS_H

#include <lowtrace/types.h>
#include <stdint.h>

/* Fields before the terminator (0 for NULL). */
uint32_t lt_fields_count(const struct lt_field_desc *f);
/* A deep copy of n fields, names and enums included, terminated; NULL
 * when out of memory. */
struct lt_field_desc *lt_fields_copy(const struct lt_field_desc *src,
				     uint32_t n);
/* Frees a copy of n fields. */
void lt_fields_free(struct lt_field_desc *f, uint32_t n);
/* 1 if the two lists describe the same payload and enums, else 0. */
int lt_fields_same(const struct lt_field_desc *a, uint32_t na,
		   const struct lt_field_desc *b, uint32_t nb);

#endif
