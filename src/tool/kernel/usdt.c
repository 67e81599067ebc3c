/* SPDX-License-Identifier: MIT */
/*
 * usdt.c - USDT markers of binaries, their argument specs translated to
 * uprobe fetch arguments, and the signatures of the well-known providers
 * (usdt.h).
 */
#include "kernel/usdt.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/tracefs.h"

/*
 * The markers' arguments as their providers declare them (PostgreSQL's
 * src/backend/utils/probes.d, CPython's Include/pydtrace.d): names, and
 * `string` where the argument is a char *.  A marker not listed gets
 * arg0, arg1, ... typed by its spec.
 */
static const struct {
	const char *provider, *name, *sig;
} signatures[] = {
	{ "python", "function__entry", "file:string,func:string,line:s32" },
	{ "python", "function__return", "file:string,func:string,line:s32" },
	{ "python", "line", "file:string,func:string,line:s32" },
	{ "python", "gc__start", "generation:s32" },
	{ "python", "gc__done", "collected:s64" },
	{ "python", "import__find__load__start", "module:string" },
	{ "python", "import__find__load__done", "module:string,found:s32" },
	{ "python", "audit", "event:string,args:x64" },
	{ "postgresql", "transaction__start", "lxid:u32" },
	{ "postgresql", "transaction__commit", "lxid:u32" },
	{ "postgresql", "transaction__abort", "lxid:u32" },
	{ "postgresql", "lwlock__acquire", "tranche:string,mode:s32" },
	{ "postgresql", "lwlock__release", "tranche:string" },
	{ "postgresql", "lwlock__wait__start", "tranche:string,mode:s32" },
	{ "postgresql", "lwlock__wait__done", "tranche:string,mode:s32" },
	{ "postgresql", "lwlock__condacquire", "tranche:string,mode:s32" },
	{ "postgresql", "lwlock__condacquire__fail",
	  "tranche:string,mode:s32" },
	{ "postgresql", "lwlock__acquire__or__wait",
	  "tranche:string,mode:s32" },
	{ "postgresql", "lwlock__acquire__or__wait__fail",
	  "tranche:string,mode:s32" },
	{ "postgresql", "lock__wait__start",
	  "field1:u32,field2:u32,field3:u32,field4:u32,type:u32,mode:s32" },
	{ "postgresql", "lock__wait__done",
	  "field1:u32,field2:u32,field3:u32,field4:u32,type:u32,mode:s32" },
	{ "postgresql", "query__parse__start", "query:string" },
	{ "postgresql", "query__parse__done", "query:string" },
	{ "postgresql", "query__rewrite__start", "query:string" },
	{ "postgresql", "query__rewrite__done", "query:string" },
	{ "postgresql", "query__start", "query:string" },
	{ "postgresql", "query__done", "query:string" },
	{ "postgresql", "statement__status", "status:string" },
	{ "postgresql", "sort__start",
	  "type:s32,unique:u8,nkeys:s32,workmem:s32,random:u8,sortopt:s32" },
	{ "postgresql", "sort__done", "external:u8,space:s64" },
	{ "postgresql", "buffer__read__start",
	  "fork:s32,block:u32,tablespace:u32,database:u32,relation:u32,"
	  "backend:s32,extend:u8" },
	{ "postgresql", "buffer__read__done",
	  "fork:s32,block:u32,tablespace:u32,database:u32,relation:u32,"
	  "backend:s32,extend:u8,found:u8" },
	{ "postgresql", "buffer__flush__start",
	  "fork:s32,block:u32,tablespace:u32,database:u32,relation:u32" },
	{ "postgresql", "buffer__flush__done",
	  "fork:s32,block:u32,tablespace:u32,database:u32,relation:u32" },
	{ "postgresql", "buffer__write__dirty__start",
	  "fork:s32,block:u32,tablespace:u32,database:u32,relation:u32" },
	{ "postgresql", "buffer__write__dirty__done",
	  "fork:s32,block:u32,tablespace:u32,database:u32,relation:u32" },
	{ "postgresql", "buffer__checkpoint__start", "flags:s32" },
	{ "postgresql", "buffer__sync__start", "buffers:s32,dirty:s32" },
	{ "postgresql", "buffer__sync__written", "buffer:s32" },
	{ "postgresql", "buffer__sync__done",
	  "buffers:s32,written:s32,dirty:s32" },
	{ "postgresql", "checkpoint__start", "flags:s32" },
	{ "postgresql", "checkpoint__done",
	  "written:s32,buffers:s32,added:s32,removed:s32,recycled:s32" },
	{ "postgresql", "smgr__md__read__start",
	  "fork:s32,block:u32,tablespace:u32,database:u32,relation:u32,"
	  "backend:s32" },
	{ "postgresql", "smgr__md__read__done",
	  "fork:s32,block:u32,tablespace:u32,database:u32,relation:u32,"
	  "backend:s32,bytes:s32,expected:s32" },
	{ "postgresql", "smgr__md__write__start",
	  "fork:s32,block:u32,tablespace:u32,database:u32,relation:u32,"
	  "backend:s32" },
	{ "postgresql", "smgr__md__write__done",
	  "fork:s32,block:u32,tablespace:u32,database:u32,relation:u32,"
	  "backend:s32,bytes:s32,expected:s32" },
	{ "postgresql", "wal__insert", "rmid:u8,info:u8" },
};

const char *lt_usdt_signature(const char *provider, const char *name)
{
	for (size_t i = 0; i < sizeof(signatures) / sizeof(signatures[0]); i++)
		if (strcmp(signatures[i].provider, provider) == 0 &&
		    strcmp(signatures[i].name, name) == 0)
			return signatures[i].sig;
	return NULL;
}

static int add_path(struct lt_usdt_set *s, const char *path)
{
	for (size_t i = 0; i < s->npaths; i++)
		if (strcmp(s->paths[i], path) == 0)
			return 0;
	char **p = realloc(s->paths, (s->npaths + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	s->paths = p;
	if (!(p[s->npaths] = strdup(path)))
		return -ENOMEM;
	s->npaths++;
	return 1;
}

struct read_ctx {
	struct lt_usdt_set *s;
	const struct lt_elf *e;
	const char *path;
};

static int on_note(void *arg, const struct lt_sdt_note *n)
{
	struct read_ctx *c = arg;
	struct lt_usdt_set *s = c->s;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct lt_usdt_site *v = realloc(s->sites, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->sites = v;
		s->cap = cap;
	}
	struct lt_usdt_site *t = &s->sites[s->n];
	memset(t, 0, sizeof(*t));
	t->path = c->path;
	snprintf(t->provider, sizeof(t->provider), "%s", n->provider);
	snprintf(t->name, sizeof(t->name), "%s", n->name);
	snprintf(t->args, sizeof(t->args), "%s", n->args);
	t->pc = n->pc;
	t->semaphore = n->semaphore;
	if (lt_elf_offset(c->e, n->pc, &t->offset))
		return 0; /* outside every segment: not a usable note */
	if (n->semaphore && lt_elf_offset(c->e, n->semaphore, &t->sem_offset))
		t->sem_offset = 0;
	s->n++;
	return 0;
}

int lt_usdt_read(struct lt_usdt_set *s, const char *path)
{
	struct lt_elf e;
	int rc = lt_elf_open(path, &e);
	if (rc)
		return rc;
	rc = add_path(s, path);
	const char *own = NULL;
	for (size_t i = 0; rc >= 0 && i < s->npaths; i++)
		if (strcmp(s->paths[i], path) == 0)
			own = s->paths[i];
	size_t before = s->n;
	struct read_ctx c = { s, &e, own };
	if (rc >= 0)
		rc = lt_elf_sdt_notes(&e, on_note, &c);
	lt_elf_close(&e);
	return rc < 0 ? rc : (int)(s->n - before);
}

int lt_usdt_read_all(struct lt_usdt_set *s)
{
	int total = 0;
	while (s->nowned < s->npaths) {
		int n = lt_usdt_read(s, s->paths[s->nowned++]);
		if (n > 0)
			total += n;
	}
	return total;
}

int lt_usdt_binaries_of_pid(struct lt_usdt_set *s, pid_t pid)
{
	char path[64], line[LT_USDT_PATH + 256];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	int rc = 0;
	while (rc >= 0 && fgets(line, sizeof(line), f)) {
		char perms[8];
		int at = 0;
		if (sscanf(line, "%*s %7s %*s %*s %*s %n", perms, &at) != 1 ||
		    perms[2] != 'x' || line[at] != '/')
			continue;
		line[strcspn(line, "\n")] = 0;
		if (strstr(line + at, " (deleted)"))
			continue;
		rc = add_path(s, line + at);
	}
	fclose(f);
	return rc < 0 ? rc : 0;
}

/* prog found in $PATH when it has no slash; 0 or -ENOENT. */
static int find_program(const char *prog, char *out, size_t len)
{
	if (strchr(prog, '/')) {
		if (access(prog, F_OK))
			return -ENOENT;
		return realpath(prog, out) ? 0 : -errno;
	}
	const char *p = getenv("PATH");
	if (!p)
		p = "/usr/local/bin:/usr/bin:/bin";
	while (*p) {
		size_t n = strcspn(p, ":");
		char cand[LT_USDT_PATH];
		snprintf(cand, sizeof(cand), "%.*s/%s", (int)n, p, prog);
		if (access(cand, X_OK) == 0 && realpath(cand, out))
			return 0;
		p += n + (p[n] == ':');
	}
	(void)len;
	return -ENOENT;
}

static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu",
	"/usr/lib/x86_64-linux-gnu",
	"/lib/aarch64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu",
	"/lib64",
	"/usr/lib64",
	"/lib",
	"/usr/lib",
	"/usr/local/lib",
};

/* A DT_NEEDED name in the usual library directories; 0 or -ENOENT. */
static int find_library(const char *name, char *out)
{
	for (size_t i = 0; i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++) {
		char cand[LT_USDT_PATH];
		snprintf(cand, sizeof(cand), "%s/%s", lib_dirs[i], name);
		if (access(cand, R_OK) == 0 && realpath(cand, out))
			return 0;
	}
	return -ENOENT;
}

int lt_usdt_find_library(const char *name, char *out)
{
	if (find_library(name, out) == 0)
		return 0;
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++) {
		DIR *d = opendir(lib_dirs[i]);
		struct dirent *e;
		int found = 0;
		while (d && !found && (e = readdir(d)))
			if (strncmp(e->d_name, name, n) == 0 &&
			    strncmp(e->d_name + n, ".so", 3) == 0)
				found = find_library(e->d_name, out) == 0;
		if (d)
			closedir(d);
		if (found)
			return 0;
	}
	return -ENOENT;
}

int lt_usdt_binaries_of_path(struct lt_usdt_set *s, const char *prog, int deps)
{
	char path[LT_USDT_PATH];
	int rc = find_program(prog, path, sizeof(path));
	if (rc)
		return rc;
	size_t first = s->npaths;
	rc = add_path(s, path);
	if (rc < 0 || !deps)
		return rc < 0 ? rc : 0;
	/* breadth first over what each file needs: a list that grows */
	for (size_t i = rc ? first : s->npaths; i < s->npaths; i++) {
		struct lt_elf e;
		const char *need[64];
		if (lt_elf_open(s->paths[i], &e))
			continue;
		int n = lt_elf_needed(&e, need, 64);
		for (int k = 0; k < n && rc >= 0; k++)
			if (find_library(need[k], path) == 0)
				rc = add_path(s, path);
		lt_elf_close(&e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void lt_usdt_free(struct lt_usdt_set *s)
{
	for (size_t i = 0; i < s->npaths; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s->sites);
	memset(s, 0, sizeof(*s));
}

/* The kernel's name of an x86-64 register in any width; NULL if none. */
static const char *x86_reg(const char *r)
{
	static const struct {
		const char *names[4], *kernel;
	} regs[] = {
		{ { "rax", "eax", "ax", "al" }, "ax" },
		{ { "rbx", "ebx", "bx", "bl" }, "bx" },
		{ { "rcx", "ecx", "cx", "cl" }, "cx" },
		{ { "rdx", "edx", "dx", "dl" }, "dx" },
		{ { "rsi", "esi", "si", "sil" }, "si" },
		{ { "rdi", "edi", "di", "dil" }, "di" },
		{ { "rbp", "ebp", "bp", "bpl" }, "bp" },
		{ { "rsp", "esp", "sp", "spl" }, "sp" },
		{ { "rip", "eip", "ip", "ip" }, "ip" },
	};
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		for (int k = 0; k < 4; k++)
			if (strcmp(r, regs[i].names[k]) == 0)
				return regs[i].kernel;
	/* r8 .. r15, and their d, w, b forms */
	static char rn[8][4] = { "r8",	"r9",  "r10", "r11",
				 "r12", "r13", "r14", "r15" };
	if (r[0] == 'r' && isdigit((unsigned char)r[1])) {
		char *end;
		long n = strtol(r + 1, &end, 10);
		if (n >= 8 && n <= 15 &&
		    (!*end ||
		     ((*end == 'd' || *end == 'w' || *end == 'b') && !end[1])))
			return rn[n - 8];
	}
	return NULL;
}

/* One operand (after SIZE@) into a. */
static int parse_operand(const char *op, struct lt_usdt_arg *a)
{
	char *end;
	if (*op == '$') {
		a->kind = LT_USDT_CONST;
		a->off = strtoll(op + 1, &end, 0);
		return *end || end == op + 1 ? -EINVAL : 0;
	}
	if (*op == '%') {
		const char *k = x86_reg(op + 1);
		if (!k)
			return -EINVAL;
		a->kind = LT_USDT_REG;
		snprintf(a->reg, sizeof(a->reg), "%s", k);
		return 0;
	}
	/* [off][+sym](%reg) */
	const char *paren = strchr(op, '(');
	if (!paren || paren[1] != '%' || strchr(paren, ','))
		return -EINVAL;
	const char *close = strchr(paren, ')');
	if (!close || close[1])
		return -EINVAL;
	char reg[8];
	size_t rl = (size_t)(close - paren - 2);
	if (rl >= sizeof(reg))
		return -EINVAL;
	memcpy(reg, paren + 2, rl);
	reg[rl] = 0;
	const char *k = x86_reg(reg);
	if (!k)
		return -EINVAL;
	const char *p = op;
	a->off = 0;
	if (p < paren && (isdigit((unsigned char)*p) || *p == '-')) {
		a->off = strtoll(p, &end, 0);
		p = end;
		if (*p == '+')
			p++;
	}
	if (p < paren) {
		size_t sl = (size_t)(paren - p);
		if (strcmp(k, "ip") != 0 || sl >= sizeof(a->sym))
			return -EINVAL;
		memcpy(a->sym, p, sl);
		a->sym[sl] = 0;
		a->kind = LT_USDT_GLOBAL;
		return 0;
	}
	if (strcmp(k, "ip") == 0)
		return -EINVAL;
	a->kind = LT_USDT_MEM;
	snprintf(a->reg, sizeof(a->reg), "%s", k);
	return 0;
}

int lt_usdt_parse_args(const char *spec, struct lt_usdt_arg *args, int max,
		       char *err, size_t errlen)
{
	char buf[512], *save = NULL;
	int n = 0;
	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *t = strtok_r(buf, " ", &save); t;
	     t = strtok_r(NULL, " ", &save)) {
		struct lt_usdt_arg a;
		memset(&a, 0, sizeof(a));
		char *at = strchr(t, '@'), *end;
		long size = at ? strtol(t, &end, 10) : 0;
		if (!at || end != at || size == 0 || labs(size) > 8 ||
		    (labs(size) & (labs(size) - 1)) || n >= max ||
		    parse_operand(at + 1, &a)) {
			lt_kernel_set_err(err, errlen,
					  "argument %d's spec `%s` is not one "
					  "lowtrace can fetch",
					  n, t);
			return -EINVAL;
		}
		a.size = (int)labs(size);
		a.is_signed = size < 0;
		args[n++] = a;
	}
	return n;
}

const char *lt_usdt_type(const char *name)
{
	static const struct {
		const char *name, *fetch;
	} types[] = {
		{ "string", "string" }, { "s8", "s8" },	  { "u8", "u8" },
		{ "s16", "s16" },	{ "u16", "u16" }, { "s32", "s32" },
		{ "u32", "u32" },	{ "s64", "s64" }, { "u64", "u64" },
		{ "x64", "x64" },	{ "x32", "x32" }, { "int", "s32" },
		{ "long", "s64" },	{ "ptr", "x64" },
	};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(types[i].name, name) == 0)
			return types[i].fetch;
	return NULL;
}

/* 1 if s is a C identifier (a field name). */
static int identifier(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

int lt_usdt_parse_types(const char *list, char *buf, size_t buflen,
			const char **names, const char **types, int max,
			char *err, size_t errlen)
{
	char *save = NULL;
	int n = 0;
	if (snprintf(buf, buflen, "%s", list) >= (int)buflen) {
		lt_kernel_set_err(err, errlen, "the type list is too long");
		return -EINVAL;
	}
	if (!*buf)
		return 0;
	/* strtok would skip an empty item: split by hand */
	for (char *item = buf; item; item = save) {
		save = strchr(item, ',');
		if (save)
			*save++ = 0;
		while (*item == ' ')
			item++;
		if (n >= max) {
			lt_kernel_set_err(err, errlen, "more than %d arguments",
					  max);
			return -EINVAL;
		}
		char *colon = strchr(item, ':');
		if (colon)
			*colon = 0;
		names[n] = *item ? item : NULL;
		types[n] = colon ? lt_usdt_type(colon + 1) : NULL;
		if ((names[n] && !identifier(names[n])) ||
		    (colon && !types[n])) {
			lt_kernel_set_err(
				err, errlen,
				"`%s%s%s` is not NAME:TYPE (a C name; a type "
				"of string, s8 .. s64, u8 .. u64, x32, x64, "
				"int, long, ptr)",
				item, colon ? ":" : "", colon ? colon + 1 : "");
			return -EINVAL;
		}
		n++;
	}
	return n;
}

struct sym_find {
	const char *name;
	uint64_t value;
};

static int on_sym(void *arg, const struct lt_elf_sym *s)
{
	struct sym_find *f = arg;
	if (strcmp(s->name, f->name) != 0)
		return 0;
	f->value = s->value;
	return 1;
}

int lt_usdt_global_offset(const struct lt_elf *e, const struct lt_usdt_arg *a,
			  uint64_t *off)
{
	struct sym_find f = { a->sym, 0 };
	if (lt_elf_symbols(e, on_sym, &f) != 1 ||
	    lt_elf_offset(e, f.value + (uint64_t)a->off, off))
		return -ENOENT;
	return 0;
}

int lt_usdt_fetch(const struct lt_usdt_arg *a, const char *type,
		  uint64_t global_off, char *out, size_t outlen, char *err,
		  size_t errlen)
{
	char spec_type[8], where[96];
	snprintf(spec_type, sizeof(spec_type), "%c%d", a->is_signed ? 's' : 'u',
		 a->size * 8);
	int is_string = type && strcmp(type, "string") == 0;
	/* a memory operand is read at its own size: more would read past
	 * the value */
	if (!type || (a->kind != LT_USDT_REG && a->kind != LT_USDT_CONST &&
		      !is_string && atoi(type + 1) > a->size * 8))
		type = spec_type;
	switch (a->kind) {
	case LT_USDT_REG:
		snprintf(where, sizeof(where), "%%%s", a->reg);
		break;
	case LT_USDT_MEM:
		snprintf(where, sizeof(where), "%+lld(%%%s)", (long long)a->off,
			 a->reg);
		break;
	case LT_USDT_GLOBAL:
		snprintf(where, sizeof(where), "@+0x%llx",
			 (unsigned long long)global_off);
		break;
	default:
		if (is_string) {
			lt_kernel_set_err(err, errlen,
					  "a constant ($%lld) is no string",
					  (long long)a->off);
			return -EINVAL;
		}
		snprintf(where, sizeof(where), "\\%lld", (long long)a->off);
		break;
	}
	int n = is_string ? snprintf(out, outlen, "+0(%s):ustring", where) :
			    snprintf(out, outlen, "%s:%s", where, type);
	return n < (int)outlen ? 0 : -ENAMETOOLONG;
}

static int site_cmp(const void *x, const void *y)
{
	const struct lt_usdt_site *a = x, *b = y;
	int c = strcmp(a->provider, b->provider);
	if (!c)
		c = strcmp(a->name, b->name);
	if (!c)
		c = strcmp(a->path, b->path);
	return c ? c : (a->pc > b->pc) - (a->pc < b->pc);
}

void lt_usdt_print(const struct lt_usdt_set *s, FILE *out)
{
	struct lt_usdt_site *v = malloc((s->n ? s->n : 1) * sizeof(*v));
	if (!v)
		return;
	memcpy(v, s->sites, s->n * sizeof(*v));
	qsort(v, s->n, sizeof(*v), site_cmp);
	for (size_t i = 0; i < s->n; i++) {
		const struct lt_usdt_site *t = &v[i];
		const char *sig = lt_usdt_signature(t->provider, t->name);
		fprintf(out, "%s:%s  %s  0x%llx", t->provider, t->name, t->path,
			(unsigned long long)t->offset);
		if (t->semaphore)
			fprintf(out, "  semaphore 0x%llx",
				(unsigned long long)t->sem_offset);
		fprintf(out, "  args: %s", *t->args ? t->args : "(none)");
		if (sig)
			fprintf(out, "  (%s)", sig);
		fputc('\n', out);
	}
	free(v);
}
