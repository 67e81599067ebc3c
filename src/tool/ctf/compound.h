/* SPDX-License-Identifier: MIT */
/*
 * compound.h - values of the compound types the flat field list of an
 * event class does not hold (LT_KIND_COMPOUND): arrays and sequences of
 * structs, variants, arrays or strings, and variants in variants.  The
 * metadata compiler (tsdl_compound.c) turns such a type into a tree of struct
 * lt_cnode, and so CTF 2's field classes of no fixed place in the flat
 * list: LEB128 integers, optionals, BLOBs; lt_cnode_walk() goes over a value of it, bit by bit, to find
 * its end (the decoder) or to write it as text (the formatter).
 */
#ifndef LT_CTF_COMPOUND_H
#define LT_CTF_COMPOUND_H

#include "ctf/types.h"

#include <stddef.h>
#include <stdint.h>

enum lt_cnode_kind {
	LT_CN_SCALAR, /* integer, enum or float: sc describes it */
	LT_CN_STRING,
	LT_CN_STRUCT, /* kids: its fields */
	LT_CN_VARIANT, /* kids: its options, sel: which tag values pick them */
	LT_CN_ARRAY, /* kids[0]: the element */
	LT_CN_SEQUENCE, /* kids[0]: the element */
	/* CTF 2: a variable-length (LEB128) integer, sc its class (is_signed,
	 * base; 8 bytes) */
	LT_CN_VLINT,
	/* CTF 2: kids[0] or nothing, as the selector (the reference) is in
	 * sel's ranges, or (nsel 0, a boolean) is not 0 */
	LT_CN_OPTIONAL,
};

/* integers of one compound field that a variant or sequence may name */
#define LT_CN_REGS 64

struct lt_cnode {
	uint8_t kind; /* enum lt_cnode_kind */
	uint8_t text; /* ARRAY, SEQUENCE of 8-bit chars: a string */
	uint8_t blob; /* ARRAY, SEQUENCE of bytes: CTF 2's BLOB */
	/* STRING, text ARRAY, SEQUENCE: code units of enc bytes (CTF 2's
	 * UTF-16, 2, and UTF-32, 4; 0: UTF-8), big-endian when enc_be */
	uint8_t enc, enc_be;
	uint32_t align; /* bits, counted from the packet's start */
	const char *name; /* a struct's field: its name */
	uint32_t name_len;
	/* SCALAR: kind, is_signed, base, be, ranges; integers and enums have
	 * bitfield set and bitsize bits, floats size bytes */
	const struct lt_field_class *sc;
	int32_t reg; /* SCALAR: the register its value goes to, or -1 */
	/* VARIANT's tag, SEQUENCE's length: a register of this tree, or
	 * (ref_reg < 0) the event's field ref_field, read before this one */
	int32_t ref_reg, ref_field;
	uint8_t ref_signed; /* the tag is signed */
	uint32_t length; /* ARRAY */
	uint32_t nkids;
	const struct lt_cnode *kids;
	const struct lt_var_sel *sel; /* VARIANT, OPTIONAL */
	uint32_t nsel;
	uint32_t bound; /* formatted size bound of the node, strings aside */
};

/* What the walk reads from and writes to. */
struct lt_cwalk {
	const unsigned char *b; /* the packet */
	size_t end; /* its content's bytes */
	/* the event's fields, where those before this one are */
	const struct lt_field_class *fields;
	const uint32_t *off;
	uint64_t regs[LT_CN_REGS];
	size_t bound; /* formatted size bound of the values walked */
	/* to write the value: p, and how to write a scalar and a string */
	char *p;
	char *(*scalar)(char *p, const struct lt_value *v);
	char *(*string)(char *p, const char *s, size_t n);
	char *(*number)(char *p, uint64_t v); /* an element's index */
	const char *why; /* on an error: what is wrong */
};

/*
 * Walks a value of n at bit *bit of w->b, setting *bit to its end, adding
 * to w->bound and, when w->p is set, writing its text there in
 * babeltrace2's notation.  Returns 0, or -1 with w->why set (past the
 * content's end, a tag that selects no option, ...); *bit is then where
 * the faulty part starts.
 */
int lt_cnode_walk(const struct lt_cnode *n, struct lt_cwalk *w, uint64_t *bit);

/* Whether the tag or selector v is in the range s of n (a variant's or an
 * optional's), signed or not as n's reference is. */
int lt_cnode_selects(const struct lt_cnode *n, const struct lt_var_sel *s,
		     int64_t v);

/* The bytes of UTF-16 or UTF-32 text (n's enc) at s before its first code
 * unit of 0, at most len. */
size_t lt_cnode_utf_len(const struct lt_cnode *n, const unsigned char *s,
			size_t len);

/* The LEB128 integer at byte *at of the end bytes of b, into *v (sign
 * extended when is_signed); *at is set past it.  NULL, or what is wrong
 * (past end, more than 64 bits). */
const char *lt_leb128(const unsigned char *b, size_t end, size_t *at,
		      int is_signed, uint64_t *v);

/* The integer field fc at off of b (bits for a bit-field), signed or not
 * as fc says. */
/* The option of a variant (its first field fc) that tag selects, or -1:
 * the first of its ranges that holds tag, compared as the tag's sign
 * says. */
int64_t lt_var_option(const struct lt_field_class *fc, int64_t tag,
		      int is_signed);
int64_t lt_field_int(const unsigned char *b, uint32_t off,
		     const struct lt_field_class *fc);

#endif
