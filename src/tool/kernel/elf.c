/* SPDX-License-Identifier: MIT */
/*
 * elf.c - reading an ELF file's SDT notes, symbols, dynamic section and
 * segments for the probes (elf.h).  Every offset and size read from the
 * file is checked against the mapping: a truncated or hostile file gives
 * fewer notes or symbols, never a read outside it.
 */
#include "kernel/elf.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NT_STAPSDT 3

/* 1 if [off, off + len) lies inside the mapping. */
static int inside(const struct lt_elf *e, uint64_t off, uint64_t len)
{
	return off <= e->size && len <= e->size - off;
}

/* The same, at an offset aligned for the structures read there (the
 * mapping is page-aligned). */
static int inside_aligned(const struct lt_elf *e, uint64_t off, uint64_t len,
			  uint64_t align)
{
	return off % align == 0 && inside(e, off, len);
}

int lt_elf_open(const char *path, struct lt_elf *e)
{
	memset(e, 0, sizeof(*e));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
		close(fd);
		return -ENOEXEC;
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -errno;
	e->map = m;
	e->size = (size_t)st.st_size;
	const Elf64_Ehdr *h = m;
	if (memcmp(h->e_ident, ELFMAG, SELFMAG) != 0 ||
	    h->e_ident[EI_CLASS] != ELFCLASS64 ||
	    h->e_ident[EI_DATA] != ELFDATA2LSB ||
	    h->e_shentsize != sizeof(Elf64_Shdr) ||
	    (h->e_phnum && h->e_phentsize != sizeof(Elf64_Phdr)) ||
	    !inside_aligned(e, h->e_shoff,
			    (uint64_t)h->e_shnum * sizeof(Elf64_Shdr), 8) ||
	    !inside_aligned(e, h->e_phoff,
			    (uint64_t)h->e_phnum * sizeof(Elf64_Phdr), 8)) {
		lt_elf_close(e);
		return -ENOEXEC;
	}
	e->ehdr = h;
	e->shdr = e->map + h->e_shoff;
	e->shnum = h->e_shnum;
	e->phdr = e->map + h->e_phoff;
	e->phnum = h->e_phnum;
	lt_elf_section(e, ".stapsdt.base", NULL, &e->sdt_base);
	return 0;
}

void lt_elf_close(struct lt_elf *e)
{
	if (e->map)
		munmap((void *)e->map, e->size);
	memset(e, 0, sizeof(*e));
}

int lt_elf_offset(const struct lt_elf *e, uint64_t va, uint64_t *off)
{
	const Elf64_Phdr *ph = e->phdr;
	*off = 0;
	for (unsigned i = 0; i < e->phnum; i++)
		if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr &&
		    va - ph[i].p_vaddr < ph[i].p_memsz) {
			*off = va - ph[i].p_vaddr + ph[i].p_offset;
			return 0;
		}
	return -ERANGE;
}

/* Section i's name, or "" when out of bounds. */
static const char *section_name(const struct lt_elf *e, const Elf64_Shdr *s)
{
	const Elf64_Ehdr *h = e->ehdr;
	const Elf64_Shdr *sh = e->shdr;
	if (h->e_shstrndx >= e->shnum)
		return "";
	const Elf64_Shdr *strs = &sh[h->e_shstrndx];
	if (!inside(e, strs->sh_offset, strs->sh_size) ||
	    s->sh_name >= strs->sh_size)
		return "";
	const char *n = (const char *)e->map + strs->sh_offset + s->sh_name;
	return memchr(n, 0, strs->sh_size - s->sh_name) ? n : "";
}

const unsigned char *lt_elf_section(const struct lt_elf *e, const char *name,
				    size_t *len, uint64_t *addr)
{
	const Elf64_Shdr *sh = e->shdr;
	for (unsigned i = 0; i < e->shnum; i++) {
		if (strcmp(section_name(e, &sh[i]), name) != 0)
			continue;
		if (addr)
			*addr = sh[i].sh_addr;
		if (sh[i].sh_type == SHT_NOBITS ||
		    !inside(e, sh[i].sh_offset, sh[i].sh_size))
			return NULL;
		if (len)
			*len = sh[i].sh_size;
		return e->map + sh[i].sh_offset;
	}
	return NULL;
}

/* A NUL-terminated string at p within end; its end, or NULL. */
static const char *string_at(const char *p, const char *end)
{
	const char *z = p < end ? memchr(p, 0, (size_t)(end - p)) : NULL;
	return z ? z + 1 : NULL;
}

int lt_elf_sdt_notes(const struct lt_elf *e,
		     int (*fn)(void *arg, const struct lt_sdt_note *n),
		     void *arg)
{
	size_t len = 0;
	const unsigned char *p = lt_elf_section(e, ".note.stapsdt", &len, NULL);
	int count = 0;
	if (!p || (uintptr_t)p % 4)
		return 0;
	for (size_t off = 0; off + sizeof(Elf64_Nhdr) <= len;) {
		const Elf64_Nhdr *nh = (const void *)(p + off);
		size_t name_at = off + sizeof(*nh);
		size_t desc_at = name_at + ((nh->n_namesz + 3u) & ~3u);
		size_t next = desc_at + ((nh->n_descsz + 3u) & ~3u);
		if (next > len || desc_at > len || next <= off)
			break;
		off = next;
		if (nh->n_type != NT_STAPSDT || nh->n_namesz != 8 ||
		    memcmp(p + name_at, "stapsdt", 8) != 0 ||
		    nh->n_descsz < 3 * 8 + 3)
			continue;
		const char *d = (const char *)p + desc_at;
		const char *end = d + nh->n_descsz;
		struct lt_sdt_note n;
		memcpy(&n.pc, d, 8);
		memcpy(&n.base, d + 8, 8);
		memcpy(&n.semaphore, d + 16, 8);
		n.provider = d + 24;
		n.name = string_at(n.provider, end);
		n.args = n.name ? string_at(n.name, end) : NULL;
		if (!n.args || !string_at(n.args, end))
			continue;
		/* prelink may have moved the binary: the note's base says
		 * where .stapsdt.base was when the note was written */
		if (e->sdt_base && n.base) {
			n.pc += e->sdt_base - n.base;
			if (n.semaphore)
				n.semaphore += e->sdt_base - n.base;
		}
		count++;
		int rc = fn(arg, &n);
		if (rc)
			return rc;
	}
	return count;
}

static int symbols_of(const struct lt_elf *e, unsigned type,
		      int (*fn)(void *arg, const struct lt_elf_sym *s),
		      void *arg, int *count)
{
	const Elf64_Shdr *sh = e->shdr;
	for (unsigned i = 0; i < e->shnum; i++) {
		if (sh[i].sh_type != type || sh[i].sh_link >= e->shnum)
			continue;
		const Elf64_Shdr *str = &sh[sh[i].sh_link];
		if (!inside_aligned(e, sh[i].sh_offset, sh[i].sh_size, 8) ||
		    !inside(e, str->sh_offset, str->sh_size))
			continue;
		const Elf64_Sym *sym = (const void *)(e->map + sh[i].sh_offset);
		const char *strs = (const char *)e->map + str->sh_offset;
		size_t n = sh[i].sh_size / sizeof(*sym);
		for (size_t k = 0; k < n; k++) {
			unsigned t = ELF64_ST_TYPE(sym[k].st_info);
			if ((t != STT_FUNC && t != STT_OBJECT &&
			     t != STT_GNU_IFUNC) ||
			    sym[k].st_shndx == SHN_UNDEF || !sym[k].st_value ||
			    sym[k].st_name >= str->sh_size)
				continue;
			const char *name = strs + sym[k].st_name;
			if (!memchr(name, 0, str->sh_size - sym[k].st_name) ||
			    !*name)
				continue;
			struct lt_elf_sym s = { name, sym[k].st_value,
						sym[k].st_size,
						t != STT_OBJECT };
			(*count)++;
			int rc = fn(arg, &s);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int lt_elf_symbols(const struct lt_elf *e,
		   int (*fn)(void *arg, const struct lt_elf_sym *s), void *arg)
{
	int count = 0;
	int rc = symbols_of(e, SHT_SYMTAB, fn, arg, &count);
	if (!rc)
		rc = symbols_of(e, SHT_DYNSYM, fn, arg, &count);
	return rc ? rc : count;
}

int lt_elf_needed(const struct lt_elf *e, const char **names, int max)
{
	size_t len = 0, slen = 0;
	const unsigned char *dyn = lt_elf_section(e, ".dynamic", &len, NULL);
	const char *strs =
		(const char *)lt_elf_section(e, ".dynstr", &slen, NULL);
	int n = 0;
	if (!dyn || !strs || (uintptr_t)dyn % 8)
		return 0;
	for (size_t off = 0; off + sizeof(Elf64_Dyn) <= len && n < max;
	     off += sizeof(Elf64_Dyn)) {
		const Elf64_Dyn *d = (const void *)(dyn + off);
		if (d->d_tag == DT_NULL)
			break;
		if (d->d_tag == DT_NEEDED && d->d_un.d_val < slen &&
		    memchr(strs + d->d_un.d_val, 0, slen - d->d_un.d_val))
			names[n++] = strs + d->d_un.d_val;
	}
	return n;
}
