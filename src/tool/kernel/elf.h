/* SPDX-License-Identifier: MIT */
/*
 * elf.h - what the probes need of an ELF file on disk: its SystemTap SDT
 * notes, its function and object symbols, and the file offset of a
 * virtual address (uprobes are placed by file offset).  Reads 64-bit
 * little-endian files only (x86_64 and aarch64), from a private mapping.
 */
#ifndef LT_KERNEL_ELF_H
#define LT_KERNEL_ELF_H

#include <stddef.h>
#include <stdint.h>

struct lt_elf {
	const unsigned char *map;
	size_t size;
	const void *ehdr, *shdr, *phdr; /* Elf64_Ehdr, Shdr[], Phdr[] */
	unsigned shnum, phnum;
	uint64_t sdt_base; /* .stapsdt.base's address, 0 if none */
};

/* Maps path and checks its header; 0, or -ENOEXEC (not a 64-bit ELF of
 * this byte order) or the open's -errno. */
int lt_elf_open(const char *path, struct lt_elf *e);
void lt_elf_close(struct lt_elf *e);

/* The file offset of virtual address va, from the loadable segment that
 * holds it; 0 and -ERANGE if none does. */
int lt_elf_offset(const struct lt_elf *e, uint64_t va, uint64_t *off);

/* A section's contents by name; NULL if absent. */
const unsigned char *lt_elf_section(const struct lt_elf *e, const char *name,
				    size_t *len, uint64_t *addr);

/* An SDT note (NT_STAPSDT) as written: strings point into the mapping. */
struct lt_sdt_note {
	uint64_t pc, base, semaphore; /* as linked */
	const char *provider, *name, *args;
};
/* Calls fn for every SDT note; returns how many, or fn's non-zero. */
int lt_elf_sdt_notes(const struct lt_elf *e,
		     int (*fn)(void *arg, const struct lt_sdt_note *n),
		     void *arg);

/* A symbol of .symtab or .dynsym (functions and objects with a value). */
struct lt_elf_sym {
	const char *name;
	uint64_t value, size;
	int is_func;
};
/* Calls fn for each defined function or object symbol of both tables
 * (a name in both comes twice); returns how many, or fn's non-zero. */
int lt_elf_symbols(const struct lt_elf *e,
		   int (*fn)(void *arg, const struct lt_elf_sym *s), void *arg);

/* The DT_NEEDED names of a dynamic executable or library, in order,
 * each name pointing into the mapping; how many (at most max). */
int lt_elf_needed(const struct lt_elf *e, const char **names, int max);

#endif
