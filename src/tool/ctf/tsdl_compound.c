/* SPDX-License-Identifier: MIT */
/*
 * tsdl_compound.c - a compound field (arrays and sequences of structs,
 * variants, arrays or strings, a variant in a variant) compiled into a
 * tree of struct lt_cnode (compound.h), a tag or length looked up in the
 * tree first, then among the event's fields.
 */
#include "ctf/tsdl_int.h"
#include "ctf/compound.h"
#include "ctf/format.h"

#include <string.h>

/* A struct or variant of a compound field's tree being compiled: its
 * type, its kids so far and which one is being compiled. */
struct cframe {
	const struct ty *t;
	struct lt_cnode *kids;
	unsigned cur;
};

/* A compound field's tree being compiled (compile_cnode()). */
struct ccomp {
	struct parser *ps;
	const struct lt_field_class *fcs; /* the event's fields before it */
	unsigned nfcs; /* its index */
	const struct refs *refs;
	int sec;
	/* the structs and variants holding the node being compiled */
	struct cframe frames[24];
	unsigned nframes;
	unsigned nregs;
};

/* The node the names ref (dotted) reach from n, of type t: through
 * structs and variants' options, not arrays; NULL when none. */
static struct lt_cnode *cnode_path(struct lt_cnode *n, const struct ty *t,
				   const char *ref)
{
	while (*ref) {
		const char *dot = strchr(ref, '.');
		size_t len = dot ? (size_t)(dot - ref) : strlen(ref);
		if (n->kind != LT_CN_STRUCT && n->kind != LT_CN_VARIANT)
			return NULL;
		unsigned k = 0;
		while (k < t->nfields &&
		       !tsdl_name_eq(t->fields[k].name, ref, len))
			k++;
		if (k == t->nfields)
			return NULL;
		n = (struct lt_cnode *)&n->kids[k];
		t = t->fields[k].type;
		ref += len + (dot != NULL);
	}
	return n;
}

/* A tag or length of kind k is what want_enum asks: 0 an integer, 1 an
 * enum, 2 either (a CTF 2 variant's selector). */
static int ref_kind_ok(uint8_t k, int want_enum)
{
	if (want_enum == 2)
		return k == LT_KIND_INT || k == LT_KIND_ENUM;
	return want_enum ? k == LT_KIND_ENUM : k == LT_KIND_INT;
}

/* The integer a variant's tag or a sequence's length (ref) names, by the
 * lookup of CTF 1.8 (tsdl_resolve_ref()): the structs and variants of the tree
 * holding the node, innermost first, among the fields declared before;
 * then the event's fields, from the compound field's place.  Sets n's
 * reference; returns its class. */
static const struct lt_field_class *cnode_ref(struct ccomp *cc, int line,
					      const char *ref, int want_enum,
					      struct lt_cnode *n)
{
	const char *full = ref ? ref : "";
	const char *name;
	n->ref_reg = n->ref_field = -1;
	for (unsigned f = cc->nframes;
	     tsdl_length_section(full, &name) < 0 && f-- > 0;) {
		const struct cframe *fr = &cc->frames[f];
		const char *dot = strchr(full, '.');
		size_t len = dot ? (size_t)(dot - full) : strlen(full);
		for (unsigned j = 0; j < fr->cur; j++) {
			if (!tsdl_name_eq(fr->t->fields[j].name, full, len))
				continue;
			struct lt_cnode *k =
				dot ? cnode_path(&fr->kids[j],
						 fr->t->fields[j].type,
						 dot + 1) :
				      &fr->kids[j];
			if (!k ||
			    (k->kind != LT_CN_SCALAR &&
			     k->kind != LT_CN_VLINT) ||
			    !ref_kind_ok(k->sc->kind, want_enum))
				continue;
			if (k->reg < 0) {
				if (cc->nregs >= LT_CN_REGS)
					tsdl_fail(
						cc->ps, line,
						"too many tags and lengths in one "
						"field");
				k->reg = (int32_t)cc->nregs++;
			}
			n->ref_reg = k->reg;
			return k->sc;
		}
	}
	int j = tsdl_resolve_ref(cc->refs, cc->sec, cc->nfcs, full);
	if (j >= 0 && cc->fcs[j].kind == LT_KIND_COMPOUND &&
	    cc->fcs[j].tree->kind == LT_CN_VLINT &&
	    ref_kind_ok(cc->fcs[j].tree->sc->kind, want_enum)) {
		/* a LEB128 integer of the event (CTF 2) */
		n->ref_field = j;
		return cc->fcs[j].tree->sc;
	}
	if (j >= 0 && ref_kind_ok(cc->fcs[j].kind, want_enum)) {
		n->ref_field = j;
		return &cc->fcs[j];
	}
	tsdl_fail(cc->ps, line, "'%s' is not an earlier %s", full,
		  want_enum == 1 ? "enum" : "integer");
	return NULL;
}

/* Enters the struct or variant t, whose kids are being compiled. */
static struct cframe *push_frame(struct ccomp *cc, const struct ty *t,
				 struct lt_cnode *kids, int line)
{
	if (cc->nframes >= sizeof(cc->frames) / sizeof(cc->frames[0]))
		tsdl_fail(cc->ps, line, "types nested too deeply");
	struct cframe *fr = &cc->frames[cc->nframes++];
	*fr = (struct cframe){ .t = t, .kids = kids };
	return fr;
}

/*
 * Compiles t (a field called name, NULL for an element or a variant's
 * option) into the tree node out; *min_bits is the fewest bits a value of
 * it takes.
 */
static void compile_cnode(struct ccomp *cc, const struct ty *t,
			  const char *name, int line, int depth,
			  struct lt_cnode *out, uint64_t *min_bits)
{
	struct parser *ps = cc->ps;
	if (depth > 16)
		tsdl_fail(ps, line, "field '%s': types nested too deeply",
			  name ? name : "");
	out->name = name ? name : "";
	out->name_len = (uint32_t)strlen(out->name);
	out->align = t->align ? t->align : 1;
	out->reg = -1;
	out->ref_reg = out->ref_field = -1;
	out->bound = out->name_len + 8;
	switch (t->kind) {
	case TY_INT:
	case TY_ENUM:
	case TY_FLOAT: {
		struct lt_field_class *sc = tsdl_alloc(ps, sizeof(*sc));
		const struct ty *it = t->kind == TY_ENUM ? t->elem : t;
		sc->name = out->name;
		if (t->kind == TY_FLOAT && (it->size % 8 || it->align % 8))
			tsdl_fail(ps, line, "field '%s': a float of %u bits",
				  out->name, it->size);
		tsdl_scalar(ps, t, line, out->name, sc, &sc->kind);
		if (t->kind != TY_FLOAT) {
			/* read by bits wherever it is */
			int bo = it->bo ? it->bo : ps->trace_bo;
			sc->bitfield = 1;
			sc->bitsize = (uint8_t)it->size;
			sc->be = bo == BO_BE;
		}
		out->kind = LT_CN_SCALAR;
		out->sc = sc;
		out->bound += (uint32_t)lt_format_bound_fixed(sc, 1);
		*min_bits = it->size;
		return;
	}
	case TY_VLINT: {
		struct lt_field_class *sc = tsdl_alloc(ps, sizeof(*sc));
		sc->name = out->name;
		sc->kind = t->nranges ? LT_KIND_ENUM : LT_KIND_INT;
		sc->ranges = t->ranges;
		sc->nranges = t->nranges;
		sc->is_signed = (uint8_t)t->is_signed;
		sc->base = (uint8_t)t->base;
		sc->size = 8;
		out->kind = LT_CN_VLINT;
		out->sc = sc;
		out->align = 8;
		out->bound += (uint32_t)lt_format_bound_fixed(sc, 1);
		*min_bits = 8;
		return;
	}
	case TY_OPTIONAL: {
		struct lt_cnode *kid = tsdl_alloc(ps, sizeof(*kid));
		const struct lt_field_class *sel =
			cnode_ref(cc, line, t->length_ref, 2, out);
		uint64_t mb;
		out->kind = LT_CN_OPTIONAL;
		out->align = 1; /* the field's own alignment applies */
		out->ref_signed = sel->is_signed;
		out->sel = t->vsel;
		out->nsel = t->nvsel;
		compile_cnode(cc, t->elem, NULL, line, depth + 1, kid, &mb);
		out->kids = kid;
		out->nkids = 1;
		*min_bits = 0;
		return;
	}
	case TY_STRING:
		out->kind = LT_CN_STRING;
		out->align = 8;
		out->enc = (uint8_t)t->enc;
		out->enc_be = t->bo == BO_BE;
		*min_bits = t->enc ? 8u * (unsigned)t->enc : 8;
		return;
	case TY_STRUCT: {
		/* an empty struct: no kids, printed "{ }" */
		struct lt_cnode *kids = tsdl_alloc(
			ps, (t->nfields ? t->nfields : 1) * sizeof(*kids));
		struct cframe *fr = push_frame(cc, t, kids, line);
		*min_bits = 0;
		for (unsigned i = 0; i < t->nfields; i++) {
			uint64_t mb;
			fr->cur = i;
			compile_cnode(cc, t->fields[i].type, t->fields[i].name,
				      t->fields[i].line, depth + 1, &kids[i],
				      &mb);
			*min_bits += mb;
		}
		cc->nframes--;
		out->kind = LT_CN_STRUCT;
		out->kids = kids;
		out->nkids = t->nfields;
		return;
	}
	case TY_VARIANT: {
		if (!t->nfields)
			tsdl_fail(ps, line, "variant '%s' has no option",
				  out->name);
		struct lt_cnode *kids =
			tsdl_alloc(ps, t->nfields * sizeof(*kids));
		const struct lt_field_class *tag = cnode_ref(
			cc, line, t->length_ref, t->vsel ? 2 : 1, out);
		out->kind = LT_CN_VARIANT;
		out->align = 1; /* the option's own alignment applies */
		out->ref_signed = tag->is_signed;
		out->sel = tsdl_variant_sel(ps, t, tag, &out->nsel);
		*min_bits = UINT64_MAX;
		struct cframe *fr = push_frame(cc, t, kids, line);
		for (unsigned i = 0; i < t->nfields; i++) {
			uint64_t mb;
			fr->cur = i;
			compile_cnode(cc, t->fields[i].type, NULL,
				      t->fields[i].line, depth + 1, &kids[i],
				      &mb);
			if (mb < *min_bits)
				*min_bits = mb;
		}
		cc->nframes--;
		out->kids = kids;
		out->nkids = t->nfields;
		return;
	}
	case TY_ARRAY:
	case TY_SEQUENCE: {
		struct lt_cnode *e = tsdl_alloc(ps, sizeof(*e));
		uint64_t mb;
		if (t->kind == TY_SEQUENCE) {
			const struct lt_field_class *lf =
				cnode_ref(cc, line, t->length_ref, 0, out);
			if (lf->is_signed)
				tsdl_fail(ps, line,
					  "field '%s': length '%s' is not an "
					  "unsigned integer",
					  out->name, t->length_ref);
		}
		compile_cnode(cc, t->elem, NULL, line, depth + 1, e, &mb);
		/* an element of no bits: a long sequence would not end */
		if (!mb)
			tsdl_fail(ps, line, "field '%s': elements of no bits",
				  out->name);
		out->kind = t->kind == TY_ARRAY ? LT_CN_ARRAY : LT_CN_SEQUENCE;
		out->text = (uint8_t)(t->elem->kind == TY_INT &&
				      t->elem->size == 8 &&
				      t->elem->align % 8 == 0 && t->elem->text);
		out->blob = (uint8_t)t->blob;
		out->enc = (uint8_t)t->enc;
		out->enc_be = t->bo == BO_BE;
		out->align = e->align;
		out->length = (uint32_t)t->length;
		out->kids = e;
		out->nkids = 1;
		*min_bits = t->kind == TY_ARRAY ? mb * t->length : 0;
		return;
	}
	default:
		tsdl_fail(ps, line, "field '%s': a type not allowed here",
			  out->name);
	}
}

/* The tree of the field fc (the event's field i, of type t). */
void tsdl_compile_compound(struct parser *ps, const struct ty *t, int line,
			   struct lt_field_class *fc,
			   const struct lt_field_class *fcs, unsigned i,
			   const struct refs *refs, int sec)
{
	struct ccomp cc = {
		.ps = ps, .fcs = fcs, .nfcs = i, .refs = refs, .sec = sec
	};
	struct lt_cnode *n = tsdl_alloc(ps, sizeof(*n));
	uint64_t mb;
	compile_cnode(&cc, t, NULL, line, 0, n, &mb);
	fc->kind = LT_KIND_COMPOUND;
	fc->tree = n;
	fc->align = 1; /* the tree's, and what the parents impose on it */
}
