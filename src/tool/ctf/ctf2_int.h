/* SPDX-License-Identifier: MIT */
/*
 * ctf2_int.h - what the two parts of CTF 2's metadata front end share:
 * the fragments (ctf2_json.c) and the field classes (ctf2_fc.c), both
 * building what the TSDL grammar builds (tsdl_int.h).
 */
#ifndef LT_CTF_CTF2_INT_H
#define LT_CTF_CTF2_INT_H

#include "ctf/tsdl_int.h"

#include <jansson.h>
#include <stdint.h>

/* The roles a field class may have (CTF2-SPEC-2.0, 5.6.1 and 5.8.1). */
enum {
	R_MAGIC = 1 << 0,
	R_UUID = 1 << 1,
	R_DSC_ID = 1 << 2,
	R_DS_ID = 1 << 3,
	R_CLOCK_TS = 1 << 4,
	R_END_TS = 1 << 5,
	R_CONTENT = 1 << 6,
	R_TOTAL = 1 << 7,
	R_SEQ = 1 << 8,
	R_DISC = 1 << 9,
	R_ERC_ID = 1 << 10,
};

/* Where a field class is (struct ty.role_name): the roles mean a header's members. */
enum scope { SC_PKT_HEADER, SC_PKT_CTX, SC_EV_HEADER, SC_OTHER };

struct alias {
	const char *name;
	struct ty *t;
	unsigned roles;
};

struct c2 {
	struct parser *ps;
	int line; /* the current fragment's */
	const char *what; /* the current fragment, for messages */
	json_t *root; /* the current fragment: freed on an error */
	struct alias *aliases;
	unsigned naliases, capaliases;
	int have_preamble;
	/* the data stream class being read: its clock's map */
	const char *clock_map;
};

/* ctf2_fc.c: errors ("PATH:LINE: FRAGMENT: what", a longjmp), strings in
 * the arena, properties read and checked */
__attribute__((noreturn, format(printf, 2, 3))) void
ctf2_fail(struct c2 *c, const char *fmt, ...);
const char *ctf2_dup(struct c2 *c, const char *s);
const char *ctf2_str(struct c2 *c, json_t *o, const char *key, int required);
int64_t ctf2_int(struct c2 *c, json_t *v, const char *what);
uint64_t ctf2_uint(struct c2 *c, json_t *o, const char *key, uint64_t def,
		   uint64_t max);
unsigned ctf2_align(struct c2 *c, json_t *o, const char *key);
struct ty *ctf2_new_ty(struct c2 *c, enum ty_kind k);
void ctf2_extensions(struct c2 *c, json_t *o, int declare);
unsigned ctf2_roles(struct c2 *c, json_t *o);
const char *ctf2_role_name(unsigned roles, enum scope sc, const char *member);

/* ctf2_fc.c: a field class (an object, or an alias's name) in scope sc,
 * what naming it in messages */
struct ty *ctf2_field_class(struct c2 *c, json_t *j, enum scope sc,
			    const char *what, int depth);

#endif
