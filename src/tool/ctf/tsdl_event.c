/* SPDX-License-Identifier: MIT */
/*
 * tsdl_event.c - an event's fields compiled into the flat list of struct
 * lt_field_class that the decoder walks: the stream's event context, the
 * event's context and its payload, nested structs and variants' options
 * flattened in their place, each with its path, its variant's tag and
 * its sequence's length.  What the flat list cannot hold becomes a tree
 * (tsdl_compound.c); the decoder's plans are tsdl_plan.c's.
 */
#include "ctf/tsdl_int.h"
#include "ctf/compound.h"
#include "ctf/format.h"
#include "ctf/value.h"

#include <string.h>

/* A field of an event's flattened structs and variants (flatten()). */
struct flatf {
	const struct ty_field *f;
	const char *open; /* ", NAME = {" of the structs opened before f */
	uint32_t open_len;
	uint8_t closes; /* structs closed after f */
	unsigned align; /* bits: what the structs opened before f impose */
	unsigned parent; /* the struct holding f, numbered */
	const struct ty *variant; /* f is in an option of this variant */
	unsigned opt; /* which option */
	uint8_t var_first; /* the variant's first field */
	uint8_t noname; /* an option that is not a struct: no "NAME = " */
	/* its names from its section's root, dotted (a variant's option by
	 * its name): what a length or tag path names (tsdl_resolve_ref()) */
	const char *path;
	/* an option's field: the length of path's part that names the
	 * struct holding its variant (where the tag's lookup starts) */
	unsigned vbase;
};

/* pfx then name, and a dot after when dot is set. */
static const char *path_join(struct parser *ps, const char *pfx,
			     const char *name, int dot)
{
	size_t pl = strlen(pfx), nl = strlen(name);
	char *t = tsdl_alloc(ps, pl + nl + 2);
	memcpy(t, pfx, pl);
	memcpy(t + pl, name, nl);
	t[pl + nl] = dot ? '.' : 0;
	t[pl + nl + 1] = 0;
	return t;
}

/* o, then " NAME = {" (", NAME = {" when o is empty), or " {" without a
 * name: the text that opens a nested struct or a variant. */
static const char *open_text(struct parser *ps, const char *o, const char *name)
{
	size_t ol = strlen(o), nl = name ? strlen(name) : 0;
	char *t = tsdl_alloc(ps, ol + nl + 8 + 16);
	memcpy(t, o, ol);
	if (!name) {
		memcpy(t + ol, " {", 3);
		return t;
	}
	memcpy(t + ol, ol ? " " : ", ", ol ? 1 : 2);
	ol += ol ? 1 : 2;
	memcpy(t + ol, name, nl);
	memcpy(t + ol + nl, " = {", 5);
	return t;
}

static void push_flat(struct parser *ps, struct flatf **out, unsigned *n,
		      unsigned *cap, struct flatf f)
{
	*out = tsdl_grow(ps, *out, *n, cap, sizeof(**out));
	(*out)[(*n)++] = f;
}

/* Whether variant vt's selector is a LEB128 integer of st, its struct:
 * the flat list reads a selector in place, the tree walk reads any. */
static int leb128_selector(const struct ty *st, const struct ty *vt)
{
	const char *ref = vt->length_ref;
	if (!ref)
		return 0;
	const char *last = strrchr(ref, '.');
	last = last ? last + 1 : ref;
	for (unsigned i = 0; i < st->nfields; i++)
		if (tsdl_name_eq(st->fields[i].name, last, strlen(last)))
			return st->fields[i].type->kind == TY_VLINT;
	return 0;
}

/*
 * The fields of st, nested structs' fields in their place (a struct in a
 * struct is printed as "NAME = { ... }" and aligned as its widest field,
 * its first field's alignment carrying that), and each option of a
 * variant in its place, as babeltrace2 prints a variant: "NAME = { VALUE }"
 * (var: the variant whose option st is, opt which).
 */
static void flatten(struct parser *ps, const struct ty *st, const char *open,
		    const char *pfx, unsigned align, int depth,
		    struct flatf **out, unsigned *n, unsigned *cap,
		    unsigned *nparents, const struct ty *var, unsigned opt,
		    unsigned vbase)
{
	unsigned me = (*nparents)++;
	if (depth > 8)
		tsdl_fail(ps, st->line, "structs nested too deeply");
	if (!st->nfields && depth)
		tsdl_fail(ps, st->line,
			  "an empty struct in an event is not supported");
	for (unsigned fi = 0; fi < st->nfields; fi++) {
		const struct ty_field *f = &st->fields[fi];
		const char *o = fi == 0 ? open : "";
		unsigned al = fi == 0 && st->align > align ? st->align :
			      fi == 0			   ? align :
							     0;
		/* an empty struct is one field, a tree of no leaves:
		 * printed "NAME = { }" */
		if (f->type->kind == TY_STRUCT && f->type->nfields) {
			flatten(ps, f->type, open_text(ps, o, f->name),
				path_join(ps, pfx, f->name, 1), al, depth + 1,
				out, n, cap, nparents, var, opt, vbase);
			continue;
		}
		/* a variant in a variant is one field: a tree; so is one
		 * whose selector has a size of its own (LEB128) */
		if (f->type->kind != TY_VARIANT || var ||
		    leb128_selector(st, f->type)) {
			push_flat(
				ps, out, n, cap,
				(struct flatf){
					.f = f,
					.open = o,
					.open_len = (uint32_t)strlen(o),
					.align = al,
					.parent = me,
					.variant = var,
					.opt = opt,
					.path = path_join(ps, pfx, f->name, 0),
					.vbase = vbase });
			continue;
		}
		const struct ty *vt = f->type;
		const char *vo = open_text(ps, o, f->name);
		const char *vpfx = path_join(ps, pfx, f->name, 1);
		unsigned first = *n;
		for (unsigned k = 0; k < vt->nfields; k++) {
			const struct ty_field *of = &vt->fields[k];
			if (of->type->kind == TY_STRUCT) {
				flatten(ps, of->type, open_text(ps, vo, NULL),
					path_join(ps, vpfx, of->name, 1), al,
					depth + 1, out, n, cap, nparents, vt, k,
					(unsigned)strlen(pfx));
			} else {
				push_flat(
					ps, out, n, cap,
					(struct flatf){
						.f = of,
						.open = vo,
						.open_len =
							(uint32_t)strlen(vo),
						.align = al,
						.parent = (*nparents)++,
						.variant = vt,
						.opt = k,
						.noname = 1,
						.path = path_join(ps, vpfx,
								  of->name, 0),
						.vbase = (unsigned)strlen(
							pfx) });
			}
			(*out)[*n - 1].closes++; /* the variant's brace */
		}
		if (*n == first)
			tsdl_fail(ps, f->line, "variant '%s' has no option",
				  f->name);
		(*out)[first].var_first = 1;
	}
	if (depth && *n)
		(*out)[*n - 1].closes++;
}

/* Resolves the variant of ff (the field i of fcs) to its tag, an earlier
 * enum, and on the variant's first field, which tag values select each
 * option (by the enum's labels). */
static void compile_variant(struct parser *ps, const struct flatf *ff,
			    struct lt_field_class *fcs, unsigned i,
			    const struct refs *r, int sec)
{
	struct lt_field_class *fc = &fcs[i];
	const struct ty *vt = ff->variant;
	const char *ref = vt->length_ref ? vt->length_ref : "";
	/* looked up from the struct holding the variant */
	int j = tsdl_resolve_from(r, sec, i, ff->vbase, ref);
	fc->var_tag =
		j >= 0 && fcs[j].var_tag < 0 &&
				(fcs[j].kind == LT_KIND_ENUM ||
				 (vt->vsel && fcs[j].kind == LT_KIND_INT)) ?
			j :
			-1;
	if (fc->var_tag < 0)
		tsdl_fail(ps, ff->f->line,
			  "variant of '%s': tag '%s' is not an earlier enum",
			  ff->f->name, vt->length_ref ? vt->length_ref : "");
	fc->var_opt = (uint16_t)ff->opt;
	if (!ff->var_first)
		return;
	fc->var_first = 1;
	fc->var_sel =
		tsdl_variant_sel(ps, vt, &fcs[fc->var_tag], &fc->nvar_sel);
}

/* An array's element the flat field list holds: a scalar of whole bytes. */
static int flat_elem(const struct ty *e)
{
	const struct ty *it = e->kind == TY_ENUM ? e->elem : e;
	return (e->kind == TY_INT || e->kind == TY_ENUM ||
		e->kind == TY_FLOAT) &&
	       !(it->size % 8) && !(it->align % 8) && it->align <= 1024 &&
	       it->size / 8 % (it->align / 8) == 0;
}

/*
 * Compiles an event's fields: the stream's event context, the event's
 * context and its payload, in that order, into one list (ec->nsec says
 * how many fields each section has).
 */
/* The table of an enum's labels by value (lt_field_class.label_at): the
 * values 0..63 at most, up to the widest range's end. */
static void enum_labels(struct parser *ps, struct lt_field_class *fc)
{
	uint32_t n = 0;
	if (!fc->nranges)
		return;
	for (uint32_t k = 0; k < fc->nranges; k++) {
		const struct lt_enum_range *r = &fc->ranges[k];
		uint32_t to = fc->bitmap || (uint64_t)r->hi >= 63 ?
				      64 :
				      (uint32_t)r->hi + 1;
		if (fc->is_signed && r->hi < 0)
			to = 0;
		if (to > n)
			n = to;
	}
	const char **at = tsdl_alloc(ps, (n ? n : 1) * sizeof(*at));
	for (uint32_t v = 0; v < n; v++)
		at[v] = lt_enum_scan(fc, v);
	fc->label_at = at;
	fc->nlabel_at = (uint8_t)n;
}

/* The table of a variant's options by tag value (lt_field_class.opt_at)
 * at its first field j: the values 0..63, where its tag is an integer of
 * whole bytes (below 64 its value is the same signed or not) and it has
 * fewer options than LT_OPT_NONE. */
static void variant_options(struct parser *ps, struct lt_field_class *fcs,
			    unsigned j)
{
	struct lt_field_class *fc = &fcs[j];
	if (fc->var_tag < 0 || !fc->var_first)
		return;
	const struct lt_field_class *tf = &fcs[fc->var_tag];
	if (tf->bitfield || tf->kind == LT_KIND_COMPOUND ||
	    !ld_sel_size(tf->size))
		return;
	uint8_t *at = tsdl_alloc(ps, 64);
	for (unsigned v = 0; v < 64; v++) {
		int64_t opt = lt_var_option(fc, v, tf->is_signed);
		if (opt >= LT_OPT_NONE)
			return;
		at[v] = opt < 0 ? LT_OPT_NONE : (uint8_t)opt;
	}
	fc->opt_at = at;
	fc->nopt_at = 64;
}

void tsdl_compile_event(struct parser *ps, const struct pevent *pe,
			const struct pstream *pst, struct lt_event_class *ec)
{
	const struct ty *secs[LT_NSECTIONS] = { pst->event_context, pe->context,
						pe->fields };
	unsigned n = 0;
	struct flatf *flat[LT_NSECTIONS] = { NULL };
	unsigned nflat[LT_NSECTIONS] = { 0 };
	for (int sec = 0; sec < LT_NSECTIONS; sec++) {
		unsigned cap = 0, nparents = 0;
		if (secs[sec] && secs[sec]->kind != TY_STRUCT)
			tsdl_fail(ps, pe->line,
				  "event \"%s\": a context is not a struct",
				  pe->name);
		if (secs[sec])
			flatten(ps, secs[sec], "", "", 0, 0, &flat[sec],
				&nflat[sec], &cap, &nparents, NULL, 0, 0);
		n += nflat[sec];
	}
	struct lt_field_class *fcs = tsdl_alloc(ps, (n ? n : 1) * sizeof(*fcs));
	unsigned sec_first[LT_NSECTIONS] = { 0 };
	const char **paths = tsdl_alloc(ps, (n ? n : 1) * sizeof(*paths));
	for (unsigned sec = 0, k = 0; sec < LT_NSECTIONS; sec++)
		for (unsigned fi = 0; fi < nflat[sec]; fi++)
			paths[k++] = flat[sec][fi].path;
	const struct refs refs = { paths, sec_first, ec->nsec };
	int fixed = 1;
	uint8_t fixed_align = 1;
	unsigned i = 0;

	for (int sec = 0; sec < LT_NSECTIONS; sec++) {
		const struct ty *st = secs[sec];
		unsigned first = i;
		sec_first[sec] = i;
		ec->nsec[sec] = nflat[sec];
		for (unsigned fi = 0; fi < nflat[sec]; fi++, i++) {
			const struct flatf *ff = &flat[sec][fi];
			const struct ty_field *f = ff->f;
			const struct ty *t = f->type;
			struct lt_field_class *fc = &fcs[i];
			fc->name = f->name;
			fc->name_len = (uint32_t)strlen(f->name);
			fc->prefix_len = fc->name_len + 5;
			char *pre = tsdl_alloc(ps, fc->prefix_len + 16);
			memcpy(pre, ", ", 2);
			memcpy(pre + 2, f->name, fc->name_len);
			memcpy(pre + 2 + fc->name_len, " = ", 3);
			fc->prefix = pre;
			fc->length_field = -1;
			fc->sec_first = fi == 0;
			fc->open = ff->open;
			fc->open_len = ff->open_len;
			fc->closes = ff->closes;
			fc->sec = (uint8_t)sec;
			fc->var_tag = -1;
			if (ff->noname)
				fc->prefix_len = 2; /* ", " and the value */
			for (unsigned j = first; j < i; j++)
				if (flat[sec][j - first].parent == ff->parent &&
				    !strcmp(fcs[j].name, f->name))
					tsdl_fail(ps, f->line,
						  "field '%s' declared twice",
						  f->name);
			if (t->kind == TY_STRING && t->enc) {
				/* UTF-16 or UTF-32 (CTF 2): a tree's */
				tsdl_compile_compound(ps, t, f->line, fc, fcs,
						      i, &refs, sec);
			} else if (t->kind == TY_STRING) {
				fc->kind = LT_KIND_STRING;
				fc->align = 1;
				fixed = 0;
			} else if (t->kind == TY_ARRAY ||
				   t->kind == TY_SEQUENCE) {
				if (!flat_elem(t->elem) || t->blob || t->enc) {
					/* elements of their own structure, or
					 * a BLOB's bytes */
					tsdl_compile_compound(ps, t, f->line,
							      fc, fcs, i, &refs,
							      sec);
					fixed = 0;
					goto placed;
				}
				tsdl_scalar(ps, t->elem, f->line, f->name, fc,
					    &fc->elem_kind);
				fc->kind = t->kind == TY_ARRAY ?
						   LT_KIND_ARRAY :
						   LT_KIND_SEQUENCE;
				fc->text = (uint8_t)(t->elem->kind == TY_INT &&
						     t->elem->size == 8 &&
						     t->elem->text);
				if (fc->size % fc->align)
					tsdl_fail(
						ps, f->line,
						"field '%s': element size is not a "
						"multiple of its alignment",
						f->name);
				if (t->kind == TY_ARRAY) {
					fc->length = (uint32_t)t->length;
				} else {
					fc->length_field = tsdl_resolve_ref(
						&refs, sec, i, t->length_ref);
					if (fc->length_field < 0)
						tsdl_fail(
							ps, f->line,
							"field '%s': length '%s' is not "
							"an earlier field",
							f->name, t->length_ref);
					const struct lt_field_class *lf =
						&fcs[fc->length_field];
					if (lf->var_tag >= 0 ||
					    lf->kind == LT_KIND_COMPOUND) {
						/* a length that may be absent,
						 * or of its own size (LEB128):
						 * read as a tree */
						tsdl_compile_compound(
							ps, t, f->line, fc, fcs,
							i, &refs, sec);
						goto placed;
					}
					if (lf->kind != LT_KIND_INT ||
					    lf->is_signed)
						tsdl_fail(
							ps, f->line,
							"field '%s': length '%s' is not "
							"an unsigned integer",
							f->name, t->length_ref);
					fixed = 0;
				}
			} else if (t->kind == TY_STRUCT ||
				   t->kind == TY_VARIANT ||
				   t->kind == TY_VLINT ||
				   t->kind == TY_OPTIONAL) {
				/* a variant in a variant; CTF 2's fields of
				 * their own size */
				tsdl_compile_compound(ps, t, f->line, fc, fcs,
						      i, &refs, sec);
				fixed = 0;
			} else {
				tsdl_scalar(ps, t, f->line, f->name, fc,
					    &fc->kind);
			}
placed:
			if (fc->kind == LT_KIND_COMPOUND)
				fixed = 0; /* its size is the walk's */
			/* a struct is aligned as its widest field: its first
			 * field starts there */
			if (ff->align / 8 > fc->align) {
				if (ff->align > 1024)
					tsdl_fail(
						ps, st->line,
						"event \"%s\": alignment too large",
						pe->name);
				fc->align = (uint8_t)(ff->align / 8);
			}
			if (fc->tree && 8u * fc->align > fc->tree->align)
				((struct lt_cnode *)fc->tree)->align =
					8u * fc->align;
			/* a bit-field aligned within a byte keeps its place
			 * in a plan (tsdl_plan.c), a wider one is walked */
			if (fc->bitfield && fc->bitalign > 8)
				fixed = 0;
			if (ff->variant) {
				compile_variant(ps, ff, fcs, i, &refs, sec);
				fixed = 0;
			}
			if (fc->align > fixed_align)
				fixed_align = fc->align;
		}
	}
	ec->name = pe->name;
	ec->name_len = (uint32_t)strlen(pe->name);
	ec->fmt_bound = (uint32_t)lt_format_bound_fixed(fcs, n);
	struct lt_bound_var *bv = tsdl_alloc(ps, (n ? n : 1) * sizeof(*bv));
	ec->nfmt_var = lt_format_bound_vars(fcs, n, bv);
	ec->fmt_var = bv;
	ec->id = pe->id;
	ec->loglevel = pe->loglevel;
	ec->format = pe->format;
	ec->nfields = n;
	ec->fields = fcs;
	if (fixed)
		fixed = tsdl_fixed_plans(ps, ec, fcs, n, fixed_align);
	ec->fixed_size = fixed ? (int32_t)ec->plan[0].end : -1;
	if (!fixed)
		tsdl_compile_steps(ps, ec, fcs, n);
	ec->no_payload = !pe->fields;
	for (int sec = 0; sec < LT_SEC_PAYLOAD; sec++)
		if (secs[sec] && !nflat[sec])
			ec->empty_secs |= (uint8_t)(1u << sec);
	ec->fmt_bound += 8 * LT_NSECTIONS; /* "{ }, " of each */
	ec->fmt_plain = !ec->empty_secs;
	uint8_t *vop = tsdl_alloc(ps, n ? 2 * n : 1);
	for (unsigned j = 0; j < n; j++) {
		vop[j] = lt_value_op(&fcs[j]);
		vop[n + j] = lt_value_kind_op(&fcs[j]);
		enum_labels(ps, &fcs[j]);
		variant_options(ps, fcs, j);
	}
	ec->vop = vop;
	ec->kop = vop + n;
	for (unsigned j = 0; j < n; j++)
		if (fcs[j].sec != LT_SEC_PAYLOAD || fcs[j].open_len ||
		    fcs[j].closes || fcs[j].var_tag >= 0 || fcs[j].bitfield)
			ec->fmt_plain = 0;
}
