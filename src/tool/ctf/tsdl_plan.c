/* SPDX-License-Identifier: MIT */
/*
 * tsdl_plan.c - how the decoder places an event class's fields
 * (ctf/types.h): the plans of a class whose fields all have a fixed size
 * (their offsets for each phase of the start), else its list of steps,
 * where a run of such fields shares a plan.
 */
#include "ctf/tsdl_int.h"

/* the most phases a class of fixed size gets plans for (ctf/types.h) */
#define LT_MAX_PHASES 16

/*
 * The plans of n fields that all have a fixed size, widest align: for
 * each place the first may start at modulo align (multiples of its
 * alignment), the offsets the decoder's walk would note, from an origin
 * aligned as align (a bit-field's in bits, as the walk notes it: its
 * alignment within a byte, the next field of bytes on the next byte, the
 * event's end too).  NULL when they have too many phases or are too large
 * for a plan.
 */
static const struct lt_fixed_plan *phase_plans(struct parser *ps,
					       const struct lt_field_class *fcs,
					       unsigned n, unsigned align)
{
	unsigned first = n ? fcs[0].align : 1, np = align / first;
	if (np > LT_MAX_PHASES)
		return NULL;
	struct lt_fixed_plan *pl = tsdl_alloc(ps, np * sizeof(*pl));
	for (unsigned k = 0; k < np; k++) {
		/* a whole number of LT_RUN_LANES: the decoder copies a run's
		 * offsets by as many at a time */
		unsigned room = (n + LT_RUN_LANES - 1) & ~(LT_RUN_LANES - 1);
		uint32_t *off =
			tsdl_alloc(ps, (room ? room : 1) * sizeof(*off));
		uint64_t at = 8 * (uint64_t)k * first; /* bits */
		for (unsigned j = 0; j < n; j++) {
			const struct lt_field_class *fc = &fcs[j];
			if (fc->bitfield) {
				at = (at + fc->bitalign - 1) &
				     ~(uint64_t)(fc->bitalign - 1);
				off[j] = (uint32_t)at;
				at += fc->bitsize;
				continue;
			}
			const uint64_t a = 8 * (uint64_t)fc->align;
			at = (at + a - 1) & ~(a - 1);
			off[j] = (uint32_t)(at / 8);
			at += 8 * (fc->kind == LT_KIND_ARRAY ?
					   (uint64_t)fc->size * fc->length :
					   fc->size);
			if (at > INT32_MAX)
				return NULL;
		}
		pl[k].off = off;
		pl[k].end = (uint32_t)((at + 7) / 8);
	}
	return pl;
}

/* A class's plans (phase_plans()), or 0 when it cannot have them. */
int tsdl_fixed_plans(struct parser *ps, struct lt_event_class *ec,
		     const struct lt_field_class *fcs, unsigned n,
		     unsigned align)
{
	unsigned first = n ? fcs[0].align : 1;
	ec->plan = phase_plans(ps, fcs, n, align);
	if (!ec->plan)
		return 0;
	ec->fixed_align = (uint8_t)align;
	ec->fixed_first = (uint8_t)first;
	ec->fixed_shift = (uint8_t)__builtin_ctz(first);
	return 1;
}

/* A field of fixed size and byte alignment, not a variant's option: one
 * of a run of such fields (LT_STEP_RUN) that a plan places at once. */
static int run_field(const struct lt_field_class *fc)
{
	return fc->var_tag < 0 && !fc->bitfield &&
	       (fc->kind == LT_KIND_INT || fc->kind == LT_KIND_ENUM ||
		fc->kind == LT_KIND_FLOAT ||
		(fc->kind == LT_KIND_ARRAY &&
		 (uint64_t)fc->size * fc->length <= INT32_MAX));
}

/*
 * The step list of a class of n fields (ctf/types.h) into ec, or 0 when a
 * field needs the decoder's general walk: runs of two fields or more of
 * fixed size placed by plans, the others one step each.
 */
int tsdl_compile_steps(struct parser *ps, struct lt_event_class *ec,
		       const struct lt_field_class *fcs, unsigned n)
{
	struct lt_step *steps = tsdl_alloc(ps, (n ? n : 1) * sizeof(*steps));
	unsigned ns = 0;
	int plain = 1;
	for (unsigned i = 0; i < n; i++) {
		const struct lt_field_class *fc = &fcs[i];
		struct lt_step *st = &steps[ns++];
		if (fc->kind == LT_KIND_COMPOUND)
			return 0;
		st->field = i;
		st->align = fc->align;
		st->size = fc->size;
		st->variant = fc->var_tag >= 0;
		unsigned k = 0, widest = 1;
		while (i + k < n && run_field(&fcs[i + k])) {
			if (fcs[i + k].align > widest)
				widest = fcs[i + k].align;
			k++;
		}
		if (k >= 2) {
			st->plan = phase_plans(ps, fc, k, widest);
			if (st->plan) {
				st->op = LT_STEP_RUN;
				st->size = k;
				st->run_align = (uint8_t)widest;
				st->run_shift =
					(uint8_t)__builtin_ctz(fc->align);
				i += k - 1;
				continue;
			}
		}
		if (st->variant)
			plain = 0;
		if (fc->bitfield) {
			st->op = LT_STEP_BITS;
			st->size = fc->bitsize;
			st->bitalign = fc->bitalign;
			plain = 0;
			continue;
		}
		switch (fc->kind) {
		case LT_KIND_STRING:
			st->op = LT_STEP_STRING;
			break;
		case LT_KIND_ARRAY: {
			uint64_t b = (uint64_t)fc->size * fc->length;
			if (b > UINT32_MAX)
				return 0;
			st->op = LT_STEP_FIXED;
			st->size = (uint32_t)b;
			break;
		}
		case LT_KIND_SEQUENCE: {
			const struct lt_field_class *lf =
				&fcs[fc->length_field];
			if (lf->bitfield || !fc->size)
				return 0;
			st->op = LT_STEP_SEQUENCE;
			st->lfield = (uint32_t)fc->length_field;
			st->lsize = lf->size;
			st->lbe = lf->be;
			break;
		}
		default:
			st->op = LT_STEP_FIXED;
			break;
		}
	}
	ec->steps = steps;
	ec->nsteps = ns;
	ec->steps_plain = (uint8_t)plain;
	return 1;
}
