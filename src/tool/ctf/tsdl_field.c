/* SPDX-License-Identifier: MIT */
/*
 * tsdl_field.c - what the flat list of an event's fields (tsdl_event.c)
 * and a compound field's tree (tsdl_compound.c) both compile: a scalar's
 * class, the field a sequence's length or a variant's tag names by its
 * path (CTF 1.8's lookup), and which tag values select each option.
 */
#include "ctf/tsdl_int.h"

#include <string.h>

/* Fills a field class's scalar part from an integer, enum or float type. */
void tsdl_scalar(struct parser *ps, const struct ty *t, int line,
		 const char *name, struct lt_field_class *fc, uint8_t *kind)
{
	const struct ty *it = t->kind == TY_ENUM ? t->elem : t;
	switch (t->kind) {
	case TY_INT:
		*kind = LT_KIND_INT;
		break;
	case TY_ENUM:
		*kind = LT_KIND_ENUM;
		fc->ranges = t->ranges;
		fc->nranges = t->nranges;
		fc->bitmap = (uint8_t)t->bitmap;
		break;
	case TY_FLOAT:
		*kind = LT_KIND_FLOAT;
		break;
	default:
		tsdl_fail(ps, line,
			  "field '%s': arrays of this type are not supported",
			  name);
	}
	int bo = it->bo ? it->bo : ps->trace_bo;
	fc->be = bo == BO_BE && it->size > 8;
	if ((it->size % 8 || it->align % 8) && t->kind != TY_FLOAT &&
	    it->align <= 1024) {
		/* a bit-field: read where it is, by bits */
		fc->bitfield = 1;
		fc->bitsize = (uint8_t)it->size;
		fc->bitalign = (uint16_t)it->align;
		fc->be = bo == BO_BE;
		fc->size = (uint8_t)((it->size + 7) / 8);
		fc->align = 1;
		fc->is_signed = (uint8_t)it->is_signed;
		fc->base = (uint8_t)it->base;
		return;
	}
	if (it->size % 8 || it->align % 8 || it->align > 1024)
		tsdl_fail(
			ps, line,
			"field '%s': only byte-sized fields aligned on 1 to 128 "
			"bytes are supported in event payloads",
			name);
	fc->size = (uint8_t)(it->size / 8);
	fc->align = (uint8_t)(it->align / 8);
	fc->is_signed = (uint8_t)it->is_signed;
	fc->base = (uint8_t)it->base;
}

/* The section a sequence's length path names (absolute paths), or -1
 * for a relative one; *name is set to the field's name in it. */
int tsdl_length_section(const char *ref, const char **name)
{
	static const char *const pre[LT_NSECTIONS] = { "stream.event.context.",
						       "event.context.",
						       "event.fields." };
	for (int s = 0; s < LT_NSECTIONS; s++)
		if (!strncmp(ref, pre[s], strlen(pre[s]))) {
			*name = ref + strlen(pre[s]);
			return s;
		}
	*name = ref;
	return -1;
}

/* path (of names the parser keeps: without one leading '_') names the
 * first n bytes of pfx (a path of such names) then ref, a path as the
 * metadata writes it, each of its names with or without that '_'. */
static int path_eq(const char *path, const char *pfx, size_t n, const char *ref)
{
	if (strncmp(path, pfx, n))
		return 0;
	const char *a = path + n, *b = ref;
	for (;;) {
		if (*b == '_' && b[1] && b[1] != '.')
			b++;
		while (*a && *a != '.' && *a == *b) {
			a++;
			b++;
		}
		if (*a != *b)
			return 0;
		if (!*a)
			return 1;
		a++;
		b++;
	}
}

/* name (as the parser keeps it) is the len bytes of ref, with or without
 * one leading '_'. */
int tsdl_name_eq(const char *name, const char *ref, size_t len)
{
	if (len > 1 && ref[0] == '_') {
		ref++;
		len--;
	}
	return strlen(name) == len && !strncmp(name, ref, len);
}

/* The field of [lo, hi) whose path is pfx's n bytes then ref, or -1. */
static int find_path(const struct refs *r, unsigned lo, unsigned hi,
		     const char *pfx, size_t n, const char *ref)
{
	for (unsigned j = hi; j-- > lo;)
		if (path_eq(r->paths[j], pfx, n, ref))
			return (int)j;
	return -1;
}

/*
 * The field a length's or tag's path ref names from the field i of the
 * section sec, by the lookup of CTF 1.8 (section 7.3.2), as babeltrace2
 * does it: an absolute path (event.fields.a.b, event.context.x,
 * stream.event.context.n) in its section; a relative one first in the
 * struct holding field i, then in each struct holding that one, outwards,
 * among the fields declared before, then from the roots of the sections
 * before.  -1 when none.
 */
int tsdl_resolve_ref(const struct refs *r, int sec, unsigned i, const char *ref)
{
	const char *dot = strrchr(r->paths[i], '.');
	return tsdl_resolve_from(
		r, sec, i, dot ? (size_t)(dot - r->paths[i]) + 1 : 0, ref);
}

/* tsdl_resolve_ref() with the lookup starting in the struct whose path is the
 * first n bytes of field i's. */
int tsdl_resolve_from(const struct refs *r, int sec, unsigned i, size_t n,
		      const char *ref)
{
	const char *name;
	int ls = tsdl_length_section(ref, &name);
	if (ls >= 0) {
		if (ls > sec)
			return -1;
		unsigned lo = r->sec_first[ls];
		return find_path(r, lo, ls == sec ? i : lo + r->nsec[ls], "", 0,
				 name);
	}
	const char *own = r->paths[i];
	int j;
	for (;;) {
		j = find_path(r, r->sec_first[sec], i, own, n, ref);
		if (j >= 0 || !n)
			break;
		/* the struct holding this one: drop a name */
		n--;
		while (n && own[n - 1] != '.')
			n--;
	}
	for (int s2 = sec; j < 0 && s2-- > 0;)
		j = find_path(r, r->sec_first[s2],
			      r->sec_first[s2] + r->nsec[s2], "", 0, ref);
	return j;
}

/* Which values of tag (an enum) select each option of the variant vt (by
 * the enum's labels, or by the ranges CTF 2 gives each option); *nsel is
 * set to their count. */
const struct lt_var_sel *tsdl_variant_sel(struct parser *ps,
					  const struct ty *vt,
					  const struct lt_field_class *tag,
					  uint32_t *nsel)
{
	if (vt->vsel) {
		*nsel = vt->nvsel;
		return vt->vsel;
	}
	struct lt_var_sel *sel = tsdl_alloc(
		ps, (tag->nranges ? tag->nranges : 1) * sizeof(*sel));
	unsigned n = 0;
	for (unsigned k = 0; k < vt->nfields; k++)
		for (unsigned r = 0; r < tag->nranges; r++)
			if (!strcmp(tag->ranges[r].label, vt->fields[k].name))
				sel[n++] = (struct lt_var_sel){
					tag->ranges[r].lo, tag->ranges[r].hi, k
				};
	*nsel = n;
	return sel;
}
