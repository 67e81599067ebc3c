/* SPDX-License-Identifier: MIT */
/*
 * fuzz_elf.c - libFuzzer target for the ELF reader and the SDT argument
 * specs (src/tool/kernel/elf.c, src/tool/kernel/usdt.c): `lowtrace list --probes`
 * and `record -u` read any file a user names, and its notes' specs.
 *
 * The input is the file.  It is written to a memfd and read through
 * /proc/self/fd as lowtrace reads a binary: its SDT notes (each note's
 * specs parsed and turned into fetch arguments, typed and as strings),
 * its symbols, its DT_NEEDED names and the file offsets of the notes'
 * addresses.  The oracle beyond "no crash": every string handed out lies
 * inside the mapping and ends there.
 */
#include "kernel/elf.h"
#include "kernel/usdt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct lt_elf *cur;

static void inside(const char *s)
{
	const char *b = (const char *)cur->map, *e = b + cur->size;
	if (s < b || s >= e || !memchr(s, 0, (size_t)(e - s)))
		abort();
}

static int on_note(void *arg, const struct lt_sdt_note *n)
{
	struct lt_usdt_arg a[LT_USDT_MAX_ARGS];
	char out[256], err[256];
	uint64_t off;
	(void)arg;
	inside(n->provider);
	inside(n->name);
	inside(n->args);
	lt_elf_offset(cur, n->pc, &off);
	int na = lt_usdt_parse_args(n->args, a, LT_USDT_MAX_ARGS, err,
				    sizeof(err));
	for (int i = 0; i < na; i++) {
		lt_usdt_fetch(&a[i], NULL, 0, out, sizeof(out), err,
			      sizeof(err));
		lt_usdt_fetch(&a[i], "string", 0, out, sizeof(out), err,
			      sizeof(err));
		lt_usdt_fetch(&a[i], "u64", 0, out, sizeof(out), err,
			      sizeof(err));
		if (a[i].kind == LT_USDT_GLOBAL)
			lt_usdt_global_offset(cur, &a[i], &off);
	}
	return 0;
}

static int on_sym(void *arg, const struct lt_elf_sym *s)
{
	(void)arg;
	inside(s->name);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];
	if (fd < 0 && (fd = memfd_create("fuzz_elf", 0)) < 0)
		return 0;
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct lt_elf e;
	if (lt_elf_open(path, &e))
		return 0;
	cur = &e;
	const char *need[64];
	int n = lt_elf_needed(&e, need, 64);
	for (int i = 0; i < n; i++)
		inside(need[i]);
	lt_elf_sdt_notes(&e, on_note, NULL);
	lt_elf_symbols(&e, on_sym, NULL);
	lt_elf_close(&e);
	/* the type lists a user writes */
	char buf[512], err[256];
	const char *names[LT_USDT_MAX_ARGS], *types[LT_USDT_MAX_ARGS];
	char text[256];
	size_t tl = size < sizeof(text) - 1 ? size : sizeof(text) - 1;
	memcpy(text, data, tl);
	text[tl] = 0;
	lt_usdt_parse_types(text, buf, sizeof(buf), names, types,
			    LT_USDT_MAX_ARGS, err, sizeof(err));
	return 0;
}
