/* SPDX-License-Identifier: MIT */
/*
 * tsdl_int.h - what the parts of the metadata parser (tsdl*.c) share:
 * the types as parsed (struct ty), the tokens, the parser's state
 * (struct parser) and the functions one part calls in another.  Only
 * src/tool/ctf/tsdl*.c include it; the reader's interface is tsdl.h.
 */
#ifndef LT_CTF_TSDL_INT_H
#define LT_CTF_TSDL_INT_H

#include "ctf/types.h"

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

struct lt_arena;
struct lt_env_entry;
struct lt_hnode;
struct lt_tsdl;

/* Types as parsed */

enum { BO_NATIVE = 0, BO_LE = 1, BO_BE = 2 };

enum ty_kind {
	TY_INT,
	TY_ENUM,
	TY_FLOAT,
	TY_STRING,
	TY_ARRAY,
	TY_SEQUENCE,
	TY_STRUCT,
	TY_VARIANT,
	/* CTF 2's: a variable-length (LEB128) integer (an enum's container
	 * too); an optional (elem, or nothing as the selector length_ref is
	 * in vsel, or is not 0 when vsel is NULL: a boolean) */
	TY_VLINT,
	TY_OPTIONAL,
};

struct ty;

struct ty_field {
	const char *name;
	struct ty *type;
	int line;
};

struct ty {
	enum ty_kind kind;
	int line;
	unsigned size, align; /* bits */
	int is_signed, base, text;
	int blob; /* an array or sequence of bytes: CTF 2's BLOB */
	int bitmap; /* an enum of bit indexes: CTF 2's bit map */
	/* CTF 2: a string (or a text array or sequence) of UTF-16 or UTF-32
	 * code units of enc bytes, in byte order bo; 0: UTF-8 */
	int enc;
	int bo; /* byte order: BO_NATIVE (the trace's), BO_LE or BO_BE */
	const char *map; /* clock the integer maps to */
	unsigned exp_dig, mant_dig;
	struct lt_enum_range *ranges;
	unsigned nranges;
	struct ty *elem; /* enum container, array/sequence element */
	uint64_t length;
	const char *length_ref;
	struct ty_field *fields;
	unsigned nfields;
	/* CTF 2: the reserved member name a role stands for in a header
	 * ("timestamp_begin", "id"; "" for none), given by the metadata
	 * instead of taken from the member's name; NULL in TSDL */
	const char *role_name;
	/* CTF 2 variant: which selector values choose each option (the
	 * selector is then any integer, not only an enum) */
	const struct lt_var_sel *vsel;
	unsigned nvsel;
};

/* Tokens */

enum tok_kind { TK_EOF, TK_IDENT, TK_INT, TK_STRING, TK_PUNCT };

struct tok {
	enum tok_kind kind;
	int line;
	const char *s; /* identifier, string (unescaped) or punctuation */
	uint64_t u;
};

struct parser {
	const char *p, *end;
	int line;
	struct tok t;
	const char *path;
	struct lt_tsdl *m;
	char *err;
	size_t errlen;
	jmp_buf jb;
	/* what the blocks said */
	struct ty *packet_header;
	int have_trace;
	struct lt_arena *a;
	/* the clock blocks, in order */
	struct lt_clock *clocks;
	unsigned nclocks, capclocks;
	/* streams and events while parsing */
	struct pstream {
		uint32_t id;
		int line;
		struct ty *context, *header, *event_context;
	} * streams;
	unsigned nstreams, capstreams;
	struct pevent {
		const char *name;
		uint64_t id;
		int64_t stream_id; /* -1: not given */
		int loglevel;
		const char *format; /* a marker's (ctf/marker.h) */
		struct ty *fields, *context;
		int line, has_id;
	} * events;
	unsigned nevents, capevents;
	struct lt_env_entry *env;
	unsigned nenv, capenv;
	/* type names: typealias and typedef names, "struct NAME",
	 * "variant NAME" and "enum NAME" */
	struct tname {
		const char *name;
		struct ty *type;
	} * names;
	unsigned nnames, capnames;
	int trace_bo; /* BO_LE or BO_BE */
};

/* Values of attributes: a number, a string or a (dotted) identifier. */
struct val {
	enum { V_NUM, V_STR, V_IDENT } kind;
	int neg;
	uint64_t u;
	const char *s;
	int line;
};

/* The event's fields as a length's or tag's path names them: each
 * field's path (flatf.path in tsdl_event.c), each section's first field and count (those
 * of the sections before the one being compiled are complete). */
struct refs {
	const char *const *paths;
	const unsigned *sec_first;
	const uint32_t *nsec;
};

/* tsdl_lex.c: errors (a longjmp to lt_tsdl_parse()), memory in the arena */
__attribute__((noreturn, format(printf, 3, 4))) void
tsdl_fail(struct parser *ps, int line, const char *fmt, ...);
void *tsdl_alloc(struct parser *ps, size_t n);
char *tsdl_dupn(struct parser *ps, const char *s, size_t n);
void *tsdl_grow(struct parser *ps, void *arr, unsigned n, unsigned *cap,
		size_t sz);
int tsdl_digit_val(int c);

/* tsdl_lex.c: the tokens */
void tsdl_next(struct parser *ps);
int tsdl_is_punct(const struct parser *ps, const char *p);
int tsdl_is_ident(const struct parser *ps, const char *id);
const char *tsdl_tok_text(const struct parser *ps);
void tsdl_expect(struct parser *ps, const char *p);
const char *tsdl_expect_ident(struct parser *ps, const char *what);
const char *tsdl_dotted(struct parser *ps, const char *first);

/* tsdl_lex.c: the values of attributes */
struct val tsdl_parse_value(struct parser *ps);
uint64_t tsdl_val_uint(struct parser *ps, const struct val *v,
		       const char *what);
int64_t tsdl_val_int(struct parser *ps, const struct val *v, const char *what);
int tsdl_val_bool(struct parser *ps, const struct val *v, const char *what);
int tsdl_parse_byte_order(struct parser *ps, const struct val *v);

/* tsdl.c: a parser's state set up over m, the classes built from what
 * the front end (TSDL or CTF 2's JSON) parsed into it */
struct parser *tsdl_parser_new(struct lt_tsdl *m, const char *path, char *err,
			       size_t errlen);
void tsdl_finish(struct parser *ps);

/* tsdl_types.c: a type; a typealias or typedef */
struct ty *tsdl_parse_type(struct parser *ps, int depth);
void tsdl_parse_type_decl(struct parser *ps);

/* tsdl_header.c: packet and event headers */
int tsdl_own_packet_layout(struct parser *ps, const struct pstream *st);
int tsdl_own_event_header(struct parser *ps, const struct pstream *st);
const struct lt_hnode *tsdl_compile_header(struct parser *ps,
					   const struct ty *t, int event);
struct lt_hflat;
/* The flat form of the header n placed at bit start (header.h), in ps's
 * arena; out->flat 0 when it has a variant. */
void tsdl_flatten_header(struct parser *ps, const struct lt_hnode *n,
			 uint64_t start, struct lt_hflat *out);
uint8_t tsdl_lttng_header_kind(const struct lt_hnode *h, uint8_t *be);

/* tsdl_field.c: a field's scalar class, lengths' and tags' paths */
void tsdl_scalar(struct parser *ps, const struct ty *t, int line,
		 const char *name, struct lt_field_class *fc, uint8_t *kind);
int tsdl_length_section(const char *ref, const char **name);
int tsdl_name_eq(const char *name, const char *ref, size_t len);
int tsdl_resolve_ref(const struct refs *r, int sec, unsigned i,
		     const char *ref);
int tsdl_resolve_from(const struct refs *r, int sec, unsigned i, size_t n,
		      const char *ref);
const struct lt_var_sel *tsdl_variant_sel(struct parser *ps,
					  const struct ty *vt,
					  const struct lt_field_class *tag,
					  uint32_t *nsel);

/* tsdl_event.c: an event's fields */
void tsdl_compile_event(struct parser *ps, const struct pevent *pe,
			const struct pstream *pst, struct lt_event_class *ec);

/* tsdl_compound.c: a compound field's tree */
void tsdl_compile_compound(struct parser *ps, const struct ty *t, int line,
			   struct lt_field_class *fc,
			   const struct lt_field_class *fcs, unsigned i,
			   const struct refs *refs, int sec);

/* tsdl_plan.c: the decoder's plans and steps of an event class */
int tsdl_fixed_plans(struct parser *ps, struct lt_event_class *ec,
		     const struct lt_field_class *fcs, unsigned n,
		     unsigned align);
int tsdl_compile_steps(struct parser *ps, struct lt_event_class *ec,
		       const struct lt_field_class *fcs, unsigned n);

#endif
