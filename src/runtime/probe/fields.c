/* SPDX-License-Identifier: MIT */
/*
 * fields.c - events' field lists as the registry keeps them (fields.h):
 * counted, deep-copied, freed, compared.
 */
#include "probe/fields.h"

#include <stdlib.h>
#include <string.h>

uint32_t lt_fields_count(const struct lt_field_desc *f)
{
	uint32_t n = 0;
	while (f && f[n].name)
		n++;
	return n;
}

void lt_fields_free(struct lt_field_desc *f, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		free((char *)f[i].name);
		if (f[i].enumd) {
			for (uint32_t k = 0; k < f[i].enumd->n; k++)
				free((char *)f[i].enumd->entries[k].label);
			free((void *)f[i].enumd->entries);
			free((char *)f[i].enumd->name);
			free((void *)f[i].enumd);
		}
	}
	free(f);
}

struct lt_field_desc *lt_fields_copy(const struct lt_field_desc *src,
				     uint32_t n)
{
	struct lt_field_desc *f = calloc(n + 1, sizeof(*f));
	if (!f)
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		f[i] = src[i];
		f[i].name = strdup(src[i].name);
		f[i].enumd = NULL;
		if (!f[i].name)
			goto fail;
		if (src[i].enumd) {
			struct lt_enum_desc *e = calloc(1, sizeof(*e));
			struct lt_enum_entry *en =
				calloc(src[i].enumd->n + 1, sizeof(*en));
			if (!e || !en) {
				free(e);
				free(en);
				goto fail;
			}
			e->name = strdup(src[i].enumd->name);
			e->n = src[i].enumd->n;
			e->entries = en;
			f[i].enumd = e;
			for (uint32_t k = 0; k < e->n; k++) {
				en[k] = src[i].enumd->entries[k];
				en[k].label =
					strdup(src[i].enumd->entries[k].label);
			}
		}
	}
	return f;
fail:
	lt_fields_free(f, n);
	return NULL;
}

static int same_enum(const struct lt_enum_desc *a, const struct lt_enum_desc *b)
{
	if (!a || !b)
		return a == b;
	if (a->n != b->n)
		return 0;
	for (uint32_t k = 0; k < a->n; k++)
		if (strcmp(a->entries[k].label, b->entries[k].label) != 0 ||
		    a->entries[k].lo != b->entries[k].lo ||
		    a->entries[k].hi != b->entries[k].hi)
			return 0;
	return 1;
}

int lt_fields_same(const struct lt_field_desc *fa, uint32_t na,
		   const struct lt_field_desc *fb, uint32_t nb)
{
	if (na != nb)
		return 0;
	for (uint32_t i = 0; i < na; i++) {
		const struct lt_field_desc *a = &fa[i], *b = &fb[i];
		if (strcmp(a->name, b->name) != 0 || a->type != b->type ||
		    a->size != b->size || a->is_signed != b->is_signed ||
		    a->base != b->base || a->length != b->length ||
		    !same_enum(a->enumd, b->enumd))
			return 0;
	}
	return 1;
}
