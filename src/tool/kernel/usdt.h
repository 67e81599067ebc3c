/* SPDX-License-Identifier: MIT */
/*
 * usdt.h - USDT markers (SystemTap SDT notes) of the binaries a program
 * runs, their argument specs, and the well-known providers' signatures:
 * what `lowtrace list --probes` shows and what `-u` turns into uprobes
 * (uprobe.h).
 *
 * An argument spec is the assembler operand gcc wrote into the note with
 * its size and sign: `-4@%ebp` (signed 32-bit register), `8@-144(%rbp)`
 * (64-bit memory operand), `-4@$1` (a constant), `-4@52+Stats(%rip)` (a
 * global).  lt_usdt_fetch() writes the uprobe fetch argument that reads
 * it, as a number or, typed string, the text it points to.
 */
#ifndef LT_KERNEL_USDT_H
#define LT_KERNEL_USDT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "kernel/elf.h"

#define LT_USDT_MAX_ARGS 12
#define LT_USDT_PATH 4096
#define LT_USDT_NAME 128

/* One marker site: a note of one binary (a marker may have several). */
struct lt_usdt_site {
	const char *path; /* the binary's; shared by its sites */
	char provider[LT_USDT_NAME], name[LT_USDT_NAME];
	uint64_t pc, semaphore; /* virtual addresses, as linked */
	uint64_t offset, sem_offset; /* in the file; sem_offset 0: none */
	char args[512]; /* the spec, as written */
};

struct lt_usdt_set {
	struct lt_usdt_site *sites;
	size_t n, cap;
	char **paths; /* binaries read, malloc'd */
	size_t npaths;
	size_t nowned; /* paths[0 .. nowned) own sites (SDT notes) */
};

/* Reads the SDT notes of one binary into s; how many sites it had, or a
 * negative errno (-ENOEXEC: not an ELF file). */
int lt_usdt_read(struct lt_usdt_set *s, const char *path);

/*
 * The binaries a program uses: for a pid, the files /proc/PID/maps shows
 * mapped executable; for a path, the file (found in $PATH when it has no
 * slash) and, with deps, the libraries it needs (DT_NEEDED, recursively,
 * from the usual library directories).  Appends them to s->paths, each
 * once; 0 or a negative errno (-ESRCH: no such process, -ENOENT: no such
 * program).
 */
int lt_usdt_binaries_of_pid(struct lt_usdt_set *s, pid_t pid);
int lt_usdt_binaries_of_path(struct lt_usdt_set *s, const char *prog, int deps);

/* A library by file name (libc.so.6) or short name (libc: the first
 * libc.so* found) in the usual library directories, into out (of
 * LT_USDT_PATH bytes); 0 or -ENOENT. */
int lt_usdt_find_library(const char *name, char *out);

/* Reads the notes of every binary in s->paths not read yet; how many
 * sites in all. */
int lt_usdt_read_all(struct lt_usdt_set *s);

void lt_usdt_free(struct lt_usdt_set *s);

/* One parsed argument spec. */
enum lt_usdt_arg_kind {
	LT_USDT_REG, /* a register's value */
	LT_USDT_MEM, /* memory at off(%reg) */
	LT_USDT_CONST, /* $N */
	LT_USDT_GLOBAL, /* memory at off+sym(%rip) */
};
struct lt_usdt_arg {
	int size; /* bytes: 1, 2, 4, 8 */
	int is_signed;
	int kind; /* enum lt_usdt_arg_kind */
	char reg[8]; /* the kernel's name: ax, r13, ... */
	int64_t off; /* memory offset, or the constant */
	char sym[LT_USDT_NAME]; /* for GLOBAL */
};

/* Splits a spec ("8@%rbx -4@$1") into args; how many, or -EINVAL for an
 * operand lowtrace cannot fetch (a message in err). */
int lt_usdt_parse_args(const char *spec, struct lt_usdt_arg *args, int max,
		       char *err, size_t errlen);

/*
 * A field's type as the user writes it (`query:string`, `line:s32`):
 * string, s8 u8 s16 u16 s32 u32 s64 u64, x64 (hex), or int/long/ptr for
 * s32/s64/x64.  Returns the uprobe fetch type ("s32", "string") or NULL.
 */
const char *lt_usdt_type(const char *name);

/*
 * A type list `name:type,name:type` (or `name`, `:type`, empty items)
 * into names[i] and types[i] (NULL: not given); how many items, or
 * -EINVAL with a message in err.  Writes into buf, which the results
 * point into.
 */
int lt_usdt_parse_types(const char *list, char *buf, size_t buflen,
			const char **names, const char **types, int max,
			char *err, size_t errlen);

/*
 * The uprobe fetch argument of arg, as a type says (NULL: the spec's
 * size and sign; "string": the text at the value), into out: `%bx:u64`,
 * `+0(-144(%bp)):ustring`, `\1:s32`.  GLOBAL needs the symbol's file
 * offset (lt_usdt_global_offset).  0, or -EINVAL (err says why).
 */
int lt_usdt_fetch(const struct lt_usdt_arg *a, const char *type,
		  uint64_t global_off, char *out, size_t outlen, char *err,
		  size_t errlen);

/* The file offset of a GLOBAL argument's address in e; 0 or -ENOENT. */
int lt_usdt_global_offset(const struct lt_elf *e, const struct lt_usdt_arg *a,
			  uint64_t *off);

/* The signature lowtrace knows for provider:name ("query:string"), or
 * NULL. */
const char *lt_usdt_signature(const char *provider, const char *name);

/* Prints the sites of s, one a line (`provider:name  path  0xOFF
 * [semaphore 0xOFF]  args`), sorted by provider and name. */
void lt_usdt_print(const struct lt_usdt_set *s, FILE *out);

#endif
