/* SPDX-License-Identifier: MIT */
/*
 * dynevent.c - creating and removing the recording's uprobes and kprobes
 * in tracefs (dynevent.h).  A USDT marker site becomes
 *
 *	p:lowtrace_PID/python__function__return /usr/bin/python3.11:0xf20d4(0x683262)
 *		file=+0(%bp):ustring func=+0(%r12):ustring line=%ax:s32
 *
 * (the semaphore's file offset in parentheses, the kernel's
 * ref_ctr_offset: the kernel raises it while the probe exists, so that a
 * marker guarded by it fires); a function probe takes its arguments from
 * the x86-64 calling convention.
 */
#include "kernel/dynevent.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/elf.h"
#include "kernel/tracefs.h"
#include "kernel/usdt.h"
#include "probe/pattern.h"

#define GROUP_PREFIX "lowtrace_"

struct dyn_event {
	char file[16]; /* uprobe_events or kprobe_events */
	char event[LT_KNAME_GROUP + LT_KNAME_EVENT + 2]; /* group:name */
	char name[2 * LT_USDT_NAME + 16]; /* in the trace */
};

struct lt_dyn {
	char group[LT_KNAME_GROUP];
	char pattern[LT_KNAME_GROUP + 4];
	struct dyn_event *ev;
	size_t n, cap;
	struct lt_kernel_alias *aliases;
	struct lt_usdt_set bins;
};

/* tracefs's root ("/sys/kernel/tracing"), mounting it if need be. */
static int tracefs_root(char *out, size_t len, char *err, size_t errlen)
{
	const char *events;
	int rc = lt_tracefs_events_dir(&events, err, errlen);
	if (rc)
		return rc;
	snprintf(out, len, "%.*s", (int)(strlen(events) - strlen("/events")),
		 events);
	return 0;
}

/* Appends one definition to tracefs's file; 0 or -errno. */
static int write_def(const char *file, const char *def)
{
	char root[256], path[300];
	if (tracefs_root(root, sizeof(root), NULL, 0))
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", root, file);
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, def, strlen(def));
	int rc = n < 0 ? -errno : 0;
	close(fd);
	return rc;
}

/* The last line of tracefs's error_log, which says why a definition
 * was refused, into out ("" if none). */
static void last_error(char *out, size_t len)
{
	char root[256], path[300], line[512];
	out[0] = 0;
	if (tracefs_root(root, sizeof(root), NULL, 0))
		return;
	snprintf(path, sizeof(path), "%s/error_log", root);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "error:"))
			snprintf(out, len, "%s", strstr(line, "error:") + 7);
	if (f)
		fclose(f);
	out[strcspn(out, "\n")] = 0;
}

static void remove_event(const char *file, const char *event)
{
	char def[LT_KNAME_GROUP + LT_KNAME_EVENT + 8];
	snprintf(def, sizeof(def), "-:%s", event);
	char *colon = strchr(def + 2, ':');
	if (colon)
		*colon = '/';
	write_def(file, def);
}

void lt_dyn_destroy(struct lt_dyn *d)
{
	if (!d)
		return;
	for (size_t i = d->n; i-- > 0;)
		remove_event(d->ev[i].file, d->ev[i].event);
	free(d->ev);
	free(d->aliases);
	lt_usdt_free(&d->bins);
	free(d);
}

/* 1 if a group name is a lowtrace group whose recorder has gone. */
static int stale_group(const char *group)
{
	if (strncmp(group, GROUP_PREFIX, strlen(GROUP_PREFIX)) != 0)
		return 0;
	char *end;
	long pid = strtol(group + strlen(GROUP_PREFIX), &end, 10);
	if (*end || pid <= 0)
		return 0;
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

int lt_dyn_clean_stale(void)
{
	static const char *const files[] = { "uprobe_events", "kprobe_events" };
	char root[256];
	int removed = 0;
	if (tracefs_root(root, sizeof(root), NULL, 0))
		return -ENOENT;
	for (size_t i = 0; i < 2; i++) {
		char path[300], line[8192];
		snprintf(path, sizeof(path), "%s/%s", root, files[i]);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		char(*stale)[LT_KNAME_GROUP + LT_KNAME_EVENT + 2] = NULL;
		size_t n = 0;
		while (fgets(line, sizeof(line), f)) {
			/* p:GROUP/EVENT ... or r:GROUP/EVENT ... */
			char *ev = strchr(line, ':'), *sp;
			if (!ev || !(sp = strchr(ev, ' ')))
				continue;
			*sp = 0;
			char *slash = strchr(++ev, '/');
			if (!slash)
				continue;
			*slash = 0;
			if (!stale_group(ev))
				continue;
			void *v = realloc(stale, (n + 1) * sizeof(*stale));
			if (!v)
				break;
			stale = v;
			snprintf(stale[n++], sizeof(stale[0]), "%s:%s", ev,
				 slash + 1);
		}
		fclose(f);
		for (size_t k = 0; k < n; k++, removed++)
			remove_event(files[i], stale[k]);
		free(stale);
	}
	return removed;
}

int lt_dyn_split(char *buf, const char **items, int max)
{
	int n = 0, depth = 0;
	char *start = buf;
	for (char *p = buf;; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && depth)
			depth--;
		if (*p && (*p != ',' || depth))
			continue;
		int last = !*p;
		*p = 0;
		if (*start && n < max)
			items[n++] = start;
		if (last)
			break;
		start = p + 1;
	}
	return n;
}

/* PATTERN(TYPES) into pattern and types ("" when none); -EINVAL when the
 * parentheses do not close at the end. */
static int split_types(const char *item, char *pat, size_t plen, char *types,
		       size_t tlen)
{
	const char *open = strchr(item, '(');
	size_t n = open ? (size_t)(open - item) : strlen(item);
	snprintf(pat, plen, "%.*s", (int)n, item);
	types[0] = 0;
	if (!open)
		return 0;
	size_t len = strlen(open);
	if (len < 2 || open[len - 1] != ')' || strchr(open + 1, '('))
		return -EINVAL;
	snprintf(types, tlen, "%.*s", (int)(len - 2), open + 1);
	return 0;
}

static struct dyn_event *new_event(struct lt_dyn *d)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 32;
		struct dyn_event *v = realloc(d->ev, cap * sizeof(*v));
		if (!v)
			return NULL;
		d->ev = v;
		d->cap = cap;
	}
	memset(&d->ev[d->n], 0, sizeof(d->ev[0]));
	return &d->ev[d->n];
}

/* A tracefs event name from a trace name: [A-Za-z0-9_], at most 48
 * characters, made unique in the group with a suffix. */
static void event_name(const struct lt_dyn *d, const char *name, char *out,
		       size_t len)
{
	char base[56];
	size_t k = 0;
	for (const char *p = name; *p && k < 48; p++)
		base[k++] = isalnum((unsigned char)*p) ? *p : '_';
	base[k] = 0;
	for (int i = 0;; i++) {
		if (i)
			snprintf(out, len, "%s:%s_%d", d->group, base, i);
		else
			snprintf(out, len, "%s:%s", d->group, base);
		size_t j = 0;
		while (j < d->n && strcmp(d->ev[j].event, out) != 0)
			j++;
		if (j == d->n)
			return;
	}
}

/* Writes the definition "KIND:GROUP/EVENT WHERE ARGS" and records the
 * event; 0, or -errno with a message. */
static int add_event(struct lt_dyn *d, const char *file, char kind,
		     const char *trace_name, const char *where,
		     const char *args, char *err, size_t errlen)
{
	struct dyn_event *e = new_event(d);
	if (!e)
		return -ENOMEM;
	snprintf(e->file, sizeof(e->file), "%s", file);
	snprintf(e->name, sizeof(e->name), "%s", trace_name);
	event_name(d, trace_name, e->event, sizeof(e->event));
	size_t dl = strlen(where) + strlen(args) + sizeof(e->event) + 8;
	char *def = malloc(dl);
	if (!def)
		return -ENOMEM;
	snprintf(def, dl, "%c:%s %s%s%s", kind, e->event, where,
		 *args ? " " : "", args);
	*strchr(def + 2, ':') = '/';
	int rc = write_def(file, def);
	if (rc) {
		char why[256];
		last_error(why, sizeof(why));
		lt_kernel_set_err(err, errlen,
				  "lowtrace: the kernel refused the probe %s "
				  "(%s): %s%s%s",
				  trace_name, def, strerror(-rc),
				  *why ? ": " : "", why);
	} else {
		d->n++;
	}
	free(def);
	return rc;
}

/* "provider:name" of every site, for a suggestion; the closest to pat. */
static void suggest_marker(const struct lt_usdt_set *s, const char *pat,
			   char *out, size_t len)
{
	size_t best = (size_t)-1;
	out[0] = 0;
	for (size_t i = 0; i < s->n; i++) {
		char full[2 * LT_USDT_NAME + 2];
		snprintf(full, sizeof(full), "%s:%s", s->sites[i].provider,
			 s->sites[i].name);
		size_t dist = lt_tracefs_distance(pat, full);
		if (dist < best && dist <= strlen(pat) / 3 + 1) {
			best = dist;
			snprintf(out, len, "%s", full);
		}
	}
}

/* The field list of one site: names and types from the user's list, else
 * the known signature, else argN typed by the spec. */
static int usdt_args(const struct lt_usdt_site *t, const char *types, char *out,
		     size_t outlen, char *err, size_t errlen)
{
	struct lt_usdt_arg a[LT_USDT_MAX_ARGS];
	const char *un[LT_USDT_MAX_ARGS] = { 0 }, *ut[LT_USDT_MAX_ARGS] = { 0 };
	const char *sn[LT_USDT_MAX_ARGS] = { 0 }, *st[LT_USDT_MAX_ARGS] = { 0 };
	char ubuf[512], sbuf[512];
	int na = lt_usdt_parse_args(t->args, a, LT_USDT_MAX_ARGS, err, errlen);
	if (na < 0)
		return na;
	int nu = lt_usdt_parse_types(types, ubuf, sizeof(ubuf), un, ut,
				     LT_USDT_MAX_ARGS, err, errlen);
	if (nu < 0)
		return nu;
	if (nu > na) {
		lt_kernel_set_err(err, errlen,
				  "%s:%s has %d argument%s, the type list %d",
				  t->provider, t->name, na, na == 1 ? "" : "s",
				  nu);
		return -EINVAL;
	}
	const char *sig = lt_usdt_signature(t->provider, t->name);
	if (sig)
		lt_usdt_parse_types(sig, sbuf, sizeof(sbuf), sn, st,
				    LT_USDT_MAX_ARGS, NULL, 0);
	size_t used = 0;
	out[0] = 0;
	for (int i = 0; i < na; i++) {
		char dflt[16], fetch[256];
		snprintf(dflt, sizeof(dflt), "arg%d", i);
		const char *name = un[i] ? un[i] : sn[i] ? sn[i] : dflt;
		const char *type = ut[i] ? ut[i] : un[i] ? NULL : st[i];
		uint64_t goff = 0;
		if (a[i].kind == LT_USDT_GLOBAL) {
			struct lt_elf e;
			int rc = lt_elf_open(t->path, &e);
			if (!rc)
				rc = lt_usdt_global_offset(&e, &a[i], &goff);
			lt_elf_close(&e);
			if (rc) {
				lt_kernel_set_err(err, errlen,
						  "%s:%s: no symbol %s for "
						  "argument %d",
						  t->provider, t->name,
						  a[i].sym, i);
				return -EINVAL;
			}
		}
		int rc = lt_usdt_fetch(&a[i], type, goff, fetch, sizeof(fetch),
				       err, errlen);
		if (rc)
			return rc;
		int w = snprintf(out + used, outlen - used, "%s%s=%s",
				 i ? " " : "", name, fetch);
		if (w < 0 || (size_t)w >= outlen - used)
			return -ENAMETOOLONG;
		used += (size_t)w;
	}
	return 0;
}

static int create_usdt(struct lt_dyn *d, const char *item, char *err,
		       size_t errlen)
{
	char pat[256], types[512], args[2048], why[256];
	if (split_types(item, pat, sizeof(pat), types, sizeof(types)) ||
	    !strchr(pat, ':')) {
		lt_kernel_set_err(err, errlen,
				  "lowtrace: -u %s: expected "
				  "PROVIDER:NAME[(NAME:TYPE,...)]",
				  item);
		return -EINVAL;
	}
	char *colon = strchr(pat, ':');
	*colon = 0;
	int found = 0;
	for (size_t i = 0; i < d->bins.n; i++) {
		const struct lt_usdt_site *t = &d->bins.sites[i];
		if (!lt_pattern_match(pat, t->provider) ||
		    !lt_pattern_match(colon + 1, t->name))
			continue;
		found++;
		why[0] = 0;
		int rc = usdt_args(t, types, args, sizeof(args), why,
				   sizeof(why));
		if (rc) {
			lt_kernel_set_err(err, errlen, "lowtrace: -u %s: %s",
					  item, why);
			return rc;
		}
		char where[LT_USDT_PATH + 64], name[2 * LT_USDT_NAME + 2];
		int wl = snprintf(where, sizeof(where), "%s:0x%llx", t->path,
				  (unsigned long long)t->offset);
		if (t->sem_offset)
			snprintf(where + wl, sizeof(where) - (size_t)wl,
				 "(0x%llx)", (unsigned long long)t->sem_offset);
		snprintf(name, sizeof(name), "%s:%s", t->provider, t->name);
		rc = add_event(d, "uprobe_events", 'p', name, where, args, err,
			       errlen);
		if (rc)
			return rc;
	}
	if (found)
		return 0;
	*colon = ':';
	if (!d->bins.n) {
		lt_kernel_set_err(err, errlen,
				  "lowtrace: -u %s: no USDT markers in %s "
				  "(no .note.stapsdt section; `lowtrace list "
				  "--probes` shows a binary's markers)",
				  item,
				  d->bins.npaths ? d->bins.paths[0] :
						   "the program");
		return -ENOENT;
	}
	char close[2 * LT_USDT_NAME + 2];
	suggest_marker(&d->bins, pat, close, sizeof(close));
	lt_kernel_set_err(err, errlen,
			  "lowtrace: -u %s: no such USDT marker in %s%s%s%s "
			  "(`lowtrace list --probes %s` shows them)",
			  item, d->bins.paths[0],
			  d->bins.npaths > 1 ? " or its libraries" : "",
			  *close ? "; did you mean " : "", *close ? close : "",
			  d->bins.paths[0]);
	return -ENOENT;
}

/* BIN of --probe: a path, a binary or library of the program by its
 * name ("libc" is libc.so.6), or a program in $PATH. */
static int find_binary(struct lt_dyn *d, const char *bin, char *out, size_t len)
{
	if (!strchr(bin, '/'))
		for (size_t i = 0; i < d->bins.npaths; i++) {
			const char *b = strrchr(d->bins.paths[i], '/');
			b = b ? b + 1 : d->bins.paths[i];
			size_t n = strlen(bin);
			if (strncmp(b, bin, n) == 0 &&
			    (!b[n] || b[n] == '.' || b[n] == '-')) {
				snprintf(out, len, "%s", d->bins.paths[i]);
				return 0;
			}
		}
	if (!strchr(bin, '/') && lt_usdt_find_library(bin, out) == 0)
		return 0;
	struct lt_usdt_set one = { 0 };
	int rc = lt_usdt_binaries_of_path(&one, bin, 0);
	if (!rc)
		snprintf(out, len, "%s", one.paths[0]);
	lt_usdt_free(&one);
	return rc;
}

struct func_find {
	const char *name;
	uint64_t value;
	int found;
};

static int on_func(void *arg, const struct lt_elf_sym *s)
{
	struct func_find *f = arg;
	if (!s->is_func || strcmp(s->name, f->name) != 0)
		return 0;
	f->value = s->value;
	f->found = 1;
	return 1;
}

static int create_func(struct lt_dyn *d, const char *item, char *err,
		       size_t errlen)
{
	static const char *const regs[] = {
		"di", "si", "dx", "cx", "r8", "r9"
	};
	char pat[512], types[512], path[LT_USDT_PATH], tbuf[512];
	const char *un[6] = { 0 }, *ut[6] = { 0 }, *why = NULL;
	char msg[256] = "";
	if (split_types(item, pat, sizeof(pat), types, sizeof(types)) ||
	    !strchr(pat, ':')) {
		lt_kernel_set_err(err, errlen,
				  "lowtrace: --probe %s: expected "
				  "BINARY:FUNCTION[%%return][(NAME:TYPE,...)]",
				  item);
		return -EINVAL;
	}
	char *colon = strrchr(pat, ':'), *func = colon + 1;
	*colon = 0;
	char *ret = strstr(func, "%return");
	int is_ret = ret && !ret[7];
	if (is_ret)
		*ret = 0;
	int nu = lt_usdt_parse_types(types, tbuf, sizeof(tbuf), un, ut,
				     is_ret ? 1 : 6, msg, sizeof(msg));
	if (nu < 0) {
		lt_kernel_set_err(
			err, errlen, "lowtrace: --probe %s: %s%s", item, msg,
			is_ret ? " (a return probe has one value)" : "");
		return nu;
	}
	if (find_binary(d, pat, path, sizeof(path))) {
		lt_kernel_set_err(err, errlen,
				  "lowtrace: --probe %s: no binary %s", item,
				  pat);
		return -ENOENT;
	}
	struct lt_elf e;
	struct func_find f = { func, 0, 0 };
	uint64_t off = 0;
	int rc = lt_elf_open(path, &e);
	if (!rc) {
		lt_elf_symbols(&e, on_func, &f);
		if (!f.found)
			why = "no such function symbol";
		else if (lt_elf_offset(&e, f.value, &off))
			why = "its address is in no segment";
		lt_elf_close(&e);
	} else {
		why = "not an ELF binary";
	}
	if (why) {
		lt_kernel_set_err(err, errlen,
				  "lowtrace: --probe %s: %s in %s (`lowtrace "
				  "list --probes %s --functions '*'` shows "
				  "them)",
				  item, why, path, path);
		return -ENOENT;
	}
	char args[1024] = "", where[LT_USDT_PATH + 32], name[600];
	size_t used = 0;
	for (int i = 0; i < nu; i++) {
		char dflt[16];
		snprintf(dflt, sizeof(dflt), is_ret ? "ret" : "arg%d", i + 1);
		const char *type = ut[i] ? ut[i] : "s64";
		char loc[32];
		snprintf(loc, sizeof(loc), is_ret ? "$retval" : "%%%s",
			 regs[i]);
		int w = strcmp(type, "string") == 0 ?
				snprintf(args + used, sizeof(args) - used,
					 "%s%s=+0(%s):ustring", i ? " " : "",
					 un[i] ? un[i] : dflt, loc) :
				snprintf(args + used, sizeof(args) - used,
					 "%s%s=%s:%s", i ? " " : "",
					 un[i] ? un[i] : dflt, loc, type);
		used += (size_t)w;
	}
	snprintf(where, sizeof(where), "%s:0x%llx", path,
		 (unsigned long long)off);
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	snprintf(name, sizeof(name), "%.*s:%s%s", (int)strcspn(b, "."), b, func,
		 is_ret ? "__return" : "");
	return add_event(d, "uprobe_events", is_ret ? 'r' : 'p', name, where,
			 args, err, errlen);
}

static int create_kprobe(struct lt_dyn *d, const char *item, char *err,
			 size_t errlen)
{
	int is_ret = strncmp(item, "kretprobe:", 10) == 0;
	const char *func = strchr(item, ':') + 1;
	char root[256], path[300], name[300];
	int rc = tracefs_root(root, sizeof(root), err, errlen);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/kprobe_events", root);
	if (access(path, F_OK) != 0) {
		lt_kernel_set_err(err, errlen,
				  "lowtrace: -k %s: this kernel has no "
				  "kprobe_events (%s is missing: it needs "
				  "CONFIG_KPROBE_EVENTS); uprobes (-u, "
				  "--probe) and tracepoints still work",
				  item, path);
		return -ENOTSUP;
	}
	if (!*func || strchr(func, '(')) {
		lt_kernel_set_err(err, errlen,
				  "lowtrace: -k %s: expected kprobe:FUNCTION "
				  "(arguments are not supported)",
				  item);
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%s:%s", is_ret ? "kretprobe" : "kprobe",
		 func);
	return add_event(d, "kprobe_events", is_ret ? 'r' : 'p', name, func, "",
			 err, errlen);
}

int lt_dyn_create(const struct lt_dyn_spec *s, struct lt_dyn **out, char *err,
		  size_t errlen)
{
	int rc = 0;
	struct lt_dyn *d = calloc(1, sizeof(*d));
	*out = NULL;
	if (!d)
		return -ENOMEM;
	snprintf(d->group, sizeof(d->group), GROUP_PREFIX "%d", (int)getpid());
	snprintf(d->pattern, sizeof(d->pattern), "%s:*", d->group);
	if (s->nusdt || s->nfuncs || s->nkprobes) {
		char root[256];
		rc = tracefs_root(root, sizeof(root), err, errlen);
		if (!rc)
			lt_dyn_clean_stale();
	}
	if (!rc && s->pid > 0) {
		rc = lt_usdt_binaries_of_pid(&d->bins, s->pid);
		if (rc)
			lt_kernel_set_err(err, errlen, "lowtrace: -p %d: %s",
					  (int)s->pid,
					  rc == -ESRCH ? "no such process" :
							 strerror(-rc));
	}
	if (!rc && s->prog && (s->nusdt || s->nfuncs)) {
		rc = lt_usdt_binaries_of_path(&d->bins, s->prog, 1);
		if (rc)
			lt_kernel_set_err(err, errlen,
					  "lowtrace: cannot find %s: %s",
					  s->prog, strerror(-rc));
	}
	if (!rc && s->nusdt)
		lt_usdt_read_all(&d->bins);
	for (size_t i = 0; !rc && i < s->nusdt; i++)
		rc = create_usdt(d, s->usdt[i], err, errlen);
	for (size_t i = 0; !rc && i < s->nfuncs; i++)
		rc = create_func(d, s->funcs[i], err, errlen);
	for (size_t i = 0; !rc && i < s->nkprobes; i++)
		rc = create_kprobe(d, s->kprobes[i], err, errlen);
	if (!rc && d->n) {
		d->aliases = calloc(d->n, sizeof(*d->aliases));
		if (!d->aliases)
			rc = -ENOMEM;
		for (size_t i = 0; !rc && i < d->n; i++)
			d->aliases[i] =
				(struct lt_kernel_alias){ d->ev[i].event,
							  d->ev[i].name };
	}
	if (rc) {
		lt_dyn_destroy(d);
		return rc;
	}
	*out = d;
	return 0;
}

const char *lt_dyn_pattern(const struct lt_dyn *d)
{
	return d && d->n ? d->pattern : NULL;
}

void lt_dyn_aliases(const struct lt_dyn *d, const struct lt_kernel_alias **a,
		    size_t *n)
{
	*a = d ? d->aliases : NULL;
	*n = d ? d->n : 0;
}
