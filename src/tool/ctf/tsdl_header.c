/* SPDX-License-Identifier: MIT */
/*
 * tsdl_header.c - the packet header, packet contexts and event headers:
 * whether a stream class's headers have lowtrace's own layout (the fast
 * paths), their compilation into trees of struct lt_hnode (header.h), and
 * whether an event header is LTTng's compact or large one.
 */
#include "ctf/tsdl.h"
#include "ctf/tsdl_int.h"
#include "ctf/header.h"

#include <string.h>

/* Checks and compilation */

struct flat {
	const char *name;
	unsigned off, size; /* bits */
};

/* Lays out a header struct's scalar fields from bit offset *off: the
 * count of fields, or LAYOUT_NOT_FLAT when some is not an integer or a
 * byte array, or there are more than max. */
#define LAYOUT_NOT_FLAT 0xffffffffu
static unsigned layout(struct parser *ps, const struct ty *t, unsigned off,
		       struct flat *out, unsigned n, unsigned max)
{
	(void)ps;
	if (!t || t->kind != TY_STRUCT)
		return LAYOUT_NOT_FLAT;
	off = (off + t->align - 1) & ~(t->align - 1);
	for (unsigned i = 0; i < t->nfields; i++) {
		const struct ty *f = t->fields[i].type;
		unsigned size, align;
		if (f->kind == TY_INT) {
			size = f->size;
			align = f->align;
		} else if (f->kind == TY_ARRAY && f->elem->kind == TY_INT &&
			   f->elem->size == 8) {
			size = 8 * (unsigned)f->length;
			align = f->elem->align;
		} else {
			return LAYOUT_NOT_FLAT;
		}
		off = (off + align - 1) & ~(align - 1);
		if (n >= max)
			return LAYOUT_NOT_FLAT;
		out[n++] = (struct flat){ t->fields[i].name, off, size };
		off += size;
	}
	return n;
}

/* Whether st's packet header and context have lowtrace's layout. */
int tsdl_own_packet_layout(struct parser *ps, const struct pstream *st)
{
	static const struct flat want[] = {
		{ "magic", 0, 32 },
		{ "uuid", 32, 128 },
		{ "stream_id", 160, 32 },
		{ "stream_instance_id", 192, 64 },
		{ "timestamp_begin", 256, 64 },
		{ "timestamp_end", 320, 64 },
		{ "content_size", 384, 64 },
		{ "packet_size", 448, 64 },
		{ "packet_seq_num", 512, 64 },
		{ "events_discarded", 576, 64 },
		{ "cpu_id", 640, 32 },
		{ "pid", 672, 32 },
	};
	enum { NW = sizeof(want) / sizeof(want[0]) };
	struct flat got[NW];
	unsigned n = layout(ps, ps->packet_header, 0, got, 0, NW);
	if (n == LAYOUT_NOT_FLAT || n == 0)
		return 0;
	unsigned hend = got[n - 1].off + got[n - 1].size;
	n = layout(ps, st->context, hend, got, n, NW);
	if (n == LAYOUT_NOT_FLAT)
		return 0;
	for (unsigned i = 0; i < NW; i++)
		if (i >= n || strcmp(got[i].name, want[i].name) ||
		    got[i].off != want[i].off || got[i].size != want[i].size)
			return 0;
	return 1;
}

/* Whether st's event header is lowtrace's compact/extended one. */
int tsdl_own_event_header(struct parser *ps, const struct pstream *st)
{
	const struct ty *h = st->header;
	if (!h || h->nfields != 2 || h->fields[0].type->kind != TY_ENUM ||
	    h->fields[0].type->size != 5 || strcmp(h->fields[0].name, "id") ||
	    h->fields[1].type->kind != TY_VARIANT ||
	    h->fields[1].type->nfields != 2 ||
	    strcmp(h->fields[1].type->fields[0].name, "compact") ||
	    strcmp(h->fields[1].type->fields[1].name, "extended"))
		return 0;
	const struct ty *c = h->fields[1].type->fields[0].type;
	const struct ty *e = h->fields[1].type->fields[1].type;
	struct flat got[2];
	if (h->align != 32 || c->nfields != 1 ||
	    c->fields[0].type->kind != TY_INT ||
	    c->fields[0].type->size != 27 || c->fields[0].type->align != 1 ||
	    layout(ps, e, 8, got, 0, 2) != 2 || strcmp(got[0].name, "id") ||
	    got[0].off != 8 || got[0].size != 32 ||
	    strcmp(got[1].name, "timestamp") || got[1].off != 40 ||
	    got[1].size != 64)
		return 0;
	(void)ps;
	return 1;
}

/* Header compilation (header.h) */

struct hcomp {
	struct parser *ps;
	int event; /* an event header: roles id and timestamp */
	unsigned nregs;
	const char *reg_name[LT_HDR_REGS];
	const struct ty *reg_type[LT_HDR_REGS];
};

static uint8_t role_of(const char *name, int event)
{
	static const struct {
		const char *name;
		uint8_t role;
	} pkt[] = {
		{ "magic", LT_ROLE_MAGIC },
		{ "uuid", LT_ROLE_UUID },
		{ "stream_id", LT_ROLE_STREAM_ID },
		{ "stream_instance_id", LT_ROLE_STREAM_INSTANCE_ID },
		{ "timestamp_begin", LT_ROLE_TS_BEGIN },
		{ "timestamp_end", LT_ROLE_TS_END },
		{ "content_size", LT_ROLE_CONTENT_SIZE },
		{ "packet_size", LT_ROLE_PACKET_SIZE },
		{ "packet_seq_num", LT_ROLE_SEQ },
		{ "events_discarded", LT_ROLE_DISCARDED },
		{ "cpu_id", LT_ROLE_CPU },
		{ "pid", LT_ROLE_PID },
	};
	if (!name)
		return LT_ROLE_NONE;
	if (event)
		return !strcmp(name, "id")	  ? LT_ROLE_ID :
		       !strcmp(name, "timestamp") ? LT_ROLE_TS :
						    LT_ROLE_NONE;
	for (size_t i = 0; i < sizeof(pkt) / sizeof(pkt[0]); i++)
		if (!strcmp(name, pkt[i].name))
			return pkt[i].role;
	return LT_ROLE_NONE;
}

static void compile_hnode(struct hcomp *hc, const struct ty *t,
			  const char *name, int line, struct lt_hnode *out)
{
	struct parser *ps = hc->ps;
	out->align = t->align ? t->align : 1;
	switch (t->kind) {
	case TY_INT:
	case TY_ENUM: {
		const struct ty *it = t->kind == TY_ENUM ? t->elem : t;
		int bo = it->bo ? it->bo : ps->trace_bo;
		if (hc->nregs >= LT_HDR_REGS)
			tsdl_fail(ps, line, "header has too many fields");
		out->kind = LT_HN_INT;
		out->size = (uint8_t)it->size;
		out->be = bo == BO_BE;
		out->tag_signed = (uint8_t)it->is_signed;
		out->role =
			role_of(t->role_name ? t->role_name : name, hc->event);
		out->reg = (uint8_t)hc->nregs;
		hc->reg_name[hc->nregs] = name ? name : "";
		hc->reg_type[hc->nregs++] = t;
		return;
	}
	case TY_ARRAY:
		if (t->elem->kind != TY_INT || t->elem->size != 8)
			break;
		out->kind = LT_HN_BYTES;
		out->align = t->elem->align;
		out->length = (uint32_t)t->length;
		if (t->role_name)
			name = t->role_name;
		out->role = name && !strcmp(name, "uuid") && t->length == 16 ?
				    LT_ROLE_UUID :
				    LT_ROLE_NONE;
		return;
	case TY_STRUCT: {
		struct lt_hnode *kids = tsdl_alloc(
			ps, (t->nfields ? t->nfields : 1) * sizeof(*kids));
		for (unsigned i = 0; i < t->nfields; i++)
			compile_hnode(hc, t->fields[i].type, t->fields[i].name,
				      t->fields[i].line, &kids[i]);
		out->kind = LT_HN_STRUCT;
		out->kids = kids;
		out->nkids = t->nfields;
		return;
	}
	case TY_VARIANT: {
		const char *ref = t->length_ref, *dot;
		if (!ref)
			tsdl_fail(ps, line, "header variant '%s' has no tag",
				  name ? name : "");
		dot = strrchr(ref, '.');
		if (dot)
			ref = dot + 1;
		if (ref[0] == '_' && ref[1])
			ref++;
		int reg = -1;
		for (unsigned i = hc->nregs; i-- > 0;)
			if (!strcmp(hc->reg_name[i], ref)) {
				reg = (int)i;
				break;
			}
		if (reg < 0 || (hc->reg_type[reg]->kind != TY_ENUM && !t->vsel))
			tsdl_fail(
				ps, line,
				"variant '%s': tag '%s' is not an earlier enum",
				name ? name : "", t->length_ref);
		const struct ty *tag = hc->reg_type[reg];
		struct lt_hnode *kids = tsdl_alloc(
			ps, (t->nfields ? t->nfields : 1) * sizeof(*kids));
		unsigned nr = t->vsel ? t->nvsel : tag->nranges;
		struct lt_hsel *sel =
			tsdl_alloc(ps, (nr ? nr : 1) * sizeof(*sel));
		unsigned nsel = 0;
		for (unsigned j = 0; j < t->nvsel; j++)
			sel[nsel++] = (struct lt_hsel){ (uint64_t)t->vsel[j].lo,
							(uint64_t)t->vsel[j].hi,
							t->vsel[j].opt };
		for (unsigned i = 0; i < t->nfields; i++) {
			compile_hnode(hc, t->fields[i].type, t->fields[i].name,
				      t->fields[i].line, &kids[i]);
			for (unsigned j = 0; j < tag->nranges && !t->vsel; j++)
				if (!strcmp(tag->ranges[j].label,
					    t->fields[i].name))
					sel[nsel++] = (struct lt_hsel){
						(uint64_t)tag->ranges[j].lo,
						(uint64_t)tag->ranges[j].hi, i
					};
		}
		out->kind = LT_HN_VARIANT;
		out->align = 1; /* the option's own alignment applies */
		out->reg = (uint8_t)reg;
		out->tag_signed = (uint8_t)tag->is_signed;
		out->kids = kids;
		out->nkids = t->nfields;
		out->sel = sel;
		out->nsel = nsel;
		return;
	}
	default:
		break;
	}
	tsdl_fail(
		ps, line,
		"header field '%s': only integers, enums, byte arrays, structs "
		"and variants are supported in headers",
		name ? name : "");
}

static int hint(const struct lt_hnode *n, uint8_t role, unsigned size,
		unsigned align, int be)
{
	return n->kind == LT_HN_INT && n->role == role && n->size == size &&
	       n->align == align && n->be == be;
}

/*
 * LT_EVH_COMPACT or LT_EVH_LARGE when h is LTTng's compact (5-bit id,
 * 27-bit timestamp) or large (16-bit id, 32-bit timestamp) event header,
 * with its extended form (32-bit id, 64-bit timestamp), in either byte
 * order; else LT_EVH_ANY.
 */
uint8_t tsdl_lttng_header_kind(const struct lt_hnode *h, uint8_t *be)
{
	if (h->kind != LT_HN_STRUCT || h->nkids != 2)
		return LT_EVH_ANY;
	const struct lt_hnode *id = &h->kids[0], *v = &h->kids[1];
	int b = id->be;
	int compact = hint(id, LT_ROLE_ID, 5, 1, b) && h->align == 32;
	int large = hint(id, LT_ROLE_ID, 16, 16, b) && h->align == 16;
	uint64_t esc = compact ? 31 : 65535;
	if ((!compact && !large) || v->kind != LT_HN_VARIANT ||
	    v->reg != id->reg || v->nkids != 2 || v->nsel != 2 ||
	    v->sel[0].lo != 0 || v->sel[0].hi != esc - 1 ||
	    v->sel[1].lo != esc || v->sel[1].hi != esc)
		return LT_EVH_ANY;
	const struct lt_hnode *c = &v->kids[v->sel[0].kid];
	const struct lt_hnode *e = &v->kids[v->sel[1].kid];
	if (c->kind != LT_HN_STRUCT || c->nkids != 1 ||
	    !hint(&c->kids[0], LT_ROLE_TS, compact ? 27 : 32, compact ? 1 : 32,
		  b) ||
	    e->kind != LT_HN_STRUCT || e->nkids != 2 || e->align != 64 ||
	    !hint(&e->kids[0], LT_ROLE_ID, 32, 32, b) ||
	    !hint(&e->kids[1], LT_ROLE_TS, 64, 64, b))
		return LT_EVH_ANY;
	*be = (uint8_t)b;
	return compact ? LT_EVH_COMPACT : LT_EVH_LARGE;
}

/* Places n at *bit as lt_hdr_read() would, its fields with a role into
 * items (NULL: counts them in *count only): 0, or -1 at a variant. */
static int flatten(const struct lt_hnode *n, uint64_t *bit,
		   struct lt_hflat_item *items, uint32_t *count)
{
	uint64_t at = (*bit + n->align - 1) & ~(uint64_t)(n->align - 1);
	switch (n->kind) {
	case LT_HN_INT:
	case LT_HN_BYTES:
		if (n->role) {
			if (at > UINT32_MAX)
				return -1;
			if (items)
				items[*count] = (struct lt_hflat_item){
					.at = (uint32_t)at,
					.size = n->kind == LT_HN_INT ? n->size :
								       0,
					.be = n->be,
					.role = n->role,
				};
			++*count;
		}
		*bit = at + (n->kind == LT_HN_INT ? n->size :
						    8 * (uint64_t)n->length);
		return 0;
	case LT_HN_STRUCT:
		*bit = at;
		for (uint32_t i = 0; i < n->nkids; i++)
			if (flatten(&n->kids[i], bit, items, count))
				return -1;
		return 0;
	default:
		return -1;
	}
}

void tsdl_flatten_header(struct parser *ps, const struct lt_hnode *n,
			 uint64_t start, struct lt_hflat *out)
{
	uint64_t bit = start;
	uint32_t count = 0;
	*out = (struct lt_hflat){ .start = start };
	if (!n || flatten(n, &bit, NULL, &count))
		return;
	struct lt_hflat_item *items =
		tsdl_alloc(ps, (count ? count : 1) * sizeof(*items));
	bit = start;
	count = 0;
	flatten(n, &bit, items, &count);
	*out = (struct lt_hflat){ .items = items,
				  .n = count,
				  .flat = 1,
				  .start = start,
				  .end = bit };
}

const struct lt_hnode *tsdl_compile_header(struct parser *ps,
					   const struct ty *t, int event)
{
	struct hcomp hc = { .ps = ps, .event = event };
	struct lt_hnode *n = tsdl_alloc(ps, sizeof(*n));
	if (!t) {
		n->kind = LT_HN_STRUCT;
		n->align = 1;
		return n;
	}
	compile_hnode(&hc, t, NULL, t->line, n);
	return n;
}
