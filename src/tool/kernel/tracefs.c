/* SPDX-License-Identifier: MIT */
/*
 * tracefs.c - finding tracefs, listing and naming its events, and parsing
 * their format files (see tracefs.h).
 *
 * A format file looks like
 *
 *	name: sched_switch
 *	ID: 372
 *	format:
 *		field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 *		...
 *		field:char prev_comm[16];	offset:8;	size:16;	signed:0;
 *		field:__data_loc char[] name;	offset:12;	size:4;	signed:0;
 *
 * Each field line gives a C declaration, the offset and size in the raw
 * record and the signedness.  A __data_loc field is a 32-bit word: the low
 * 16 bits the offset of the data in the record, the high 16 bits its
 * length; __rel_loc counts the offset from the end of the word.
 */
#include "kernel/tracefs.h"
#include "probe/pattern.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

void lt_kernel_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Finding and mounting tracefs. */

static pthread_mutex_t dir_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *events_dir;
static int mount_said;

/* 1 for a directory, 0 for none, -EACCES when we may not look. */
static int is_dir(const char *p)
{
	struct stat st;
	if (stat(p, &st) == 0)
		return S_ISDIR(st.st_mode);
	return errno == EACCES ? -EACCES : 0;
}

int lt_tracefs_events_dir(const char **dir, char *err, size_t errlen)
{
	static const char *const cand[] = {
		"/sys/kernel/tracing/events",
		"/sys/kernel/debug/tracing/events",
	};
	int rc = 0;

	pthread_mutex_lock(&dir_lock);
	if (events_dir)
		goto out;
	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		int d = is_dir(cand[i]);
		if (d == -EACCES) {
			rc = d;
			lt_kernel_set_err(
				err, errlen,
				"lowtrace: cannot read tracefs at %s: %s (run "
				"as root: tracefs and system-wide tracepoints "
				"need it, or CAP_PERFMON with "
				"kernel.perf_event_paranoid=-1)",
				cand[i], strerror(-rc));
			goto out;
		}
		if (d == 1) {
			events_dir = cand[i];
			goto out;
		}
	}
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) < 0) {
		rc = -errno;
		if (rc == -EPERM || rc == -EACCES)
			lt_kernel_set_err(
				err, errlen,
				"lowtrace: tracefs is not mounted and mounting "
				"it on /sys/kernel/tracing failed: %s (run as "
				"root, or mount -t tracefs nodev "
				"/sys/kernel/tracing)",
				strerror(-rc));
		else
			lt_kernel_set_err(
				err, errlen,
				"lowtrace: tracefs is missing: mounting it on "
				"/sys/kernel/tracing failed: %s (the kernel "
				"needs CONFIG_FTRACE and tracefs; try mount -t "
				"tracefs nodev /sys/kernel/tracing)",
				strerror(-rc));
		goto out;
	}
	if (is_dir(cand[0]) != 1) {
		rc = -ENOENT;
		lt_kernel_set_err(
			err, errlen,
			"lowtrace: tracefs on /sys/kernel/tracing has no "
			"events directory (the kernel needs CONFIG_FTRACE "
			"with tracepoints)");
		goto out;
	}
	events_dir = cand[0];
	if (!mount_said) {
		mount_said = 1;
		fprintf(stderr, "lowtrace: mounted tracefs on "
				"/sys/kernel/tracing (it was not mounted)\n");
	}
out:
	if (!rc)
		*dir = events_dir;
	pthread_mutex_unlock(&dir_lock);
	return rc;
}

/* Listing. */

static int name_cmp(const void *a, const void *b)
{
	const struct lt_kname *x = a, *y = b;
	int c = strcmp(x->group, y->group);
	return c ? c : strcmp(x->name, y->name);
}

static int push_name(struct lt_kname **v, size_t *n, size_t *cap,
		     const char *group, const char *name)
{
	if (strlen(group) >= LT_KNAME_GROUP || strlen(name) >= LT_KNAME_EVENT)
		return 0; /* no such names in practice; skipped */
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		void *p = realloc(*v, c * sizeof(**v));
		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = c;
	}
	struct lt_kname *k = &(*v)[(*n)++];
	snprintf(k->group, sizeof(k->group), "%s", group);
	snprintf(k->name, sizeof(k->name), "%s", name);
	return 0;
}

/* The events of one group directory: subdirectories with an id file. */
static int list_group(const char *base, const char *group, struct lt_kname **v,
		      size_t *n, size_t *cap)
{
	char path[4096];
	struct dirent *e;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s", base, group);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	while (!rc && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char idp[4096 + 512];
		snprintf(idp, sizeof(idp), "%s/%s/id", path, e->d_name);
		if (access(idp, F_OK) == 0)
			rc = push_name(v, n, cap, group, e->d_name);
	}
	closedir(d);
	return rc;
}

int lt_tracefs_list(struct lt_kname **out, size_t *nout, char *err,
		    size_t errlen)
{
	const char *base;
	struct lt_kname *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	int rc = lt_tracefs_events_dir(&base, err, errlen);

	if (rc)
		return rc;
	DIR *d = opendir(base);
	if (!d) {
		rc = -errno;
		lt_kernel_set_err(err, errlen,
				  "lowtrace: cannot read %s: %s (run as root)",
				  base, strerror(-rc));
		return rc;
	}
	while (!rc && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		rc = list_group(base, e->d_name, &v, &n, &cap);
	}
	closedir(d);
	if (rc) {
		free(v);
		lt_kernel_set_err(err, errlen,
				  "lowtrace: out of memory listing events");
		return rc;
	}
	qsort(v, n, sizeof(*v), name_cmp);
	*out = v;
	*nout = n;
	return 0;
}

/* Presets and pattern expansion. */

static const char *const preset_sched[] = {
	"sched:sched_switch",
	"sched:sched_wakeup",
	"sched:sched_wakeup_new",
	"sched:sched_waking",
	"sched:sched_process_fork",
	"sched:sched_process_exit",
	"sched:sched_process_exec",
	"sched:sched_migrate_task",
	NULL,
};
static const char *const preset_irq[] = {
	"irq:irq_handler_entry", "irq:irq_handler_exit", "irq:softirq_entry",
	"irq:softirq_exit",	 "irq:softirq_raise",	 NULL,
};
static const char *const preset_syscalls[] = {
	"raw_syscalls:sys_enter",
	"raw_syscalls:sys_exit",
	NULL,
};
static const char *const preset_timer[] = {
	"timer:hrtimer_start",	     "timer:hrtimer_expire_entry",
	"timer:hrtimer_expire_exit", "timer:hrtimer_cancel",
	"timer:timer_start",	     "timer:timer_expire_entry",
	"timer:timer_expire_exit",   NULL,
};

const char *const *lt_tracefs_preset(const char *name)
{
	if (strcmp(name, "sched") == 0)
		return preset_sched;
	if (strcmp(name, "irq") == 0)
		return preset_irq;
	if (strcmp(name, "syscalls") == 0)
		return preset_syscalls;
	if (strcmp(name, "timer") == 0)
		return preset_timer;
	return NULL;
}

size_t lt_tracefs_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = malloc((lb + 1) * sizeof(*row));
	if (!row)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

/* The closest name to pat: by edit distance, else one that contains the
 * pattern's event part.  Empty when nothing is close. */
static void suggest(const struct lt_kname *all, size_t nall, const char *pat,
		    char *out, size_t outlen)
{
	size_t best = (size_t)-1, limit = strlen(pat) / 3;
	const char *ev = strchr(pat, ':');
	char full[LT_KNAME_GROUP + LT_KNAME_EVENT + 2];

	ev = ev ? ev + 1 : pat;
	if (limit < 2)
		limit = 2;
	out[0] = 0;
	for (size_t i = 0; i < nall; i++) {
		snprintf(full, sizeof(full), "%s:%s", all[i].group,
			 all[i].name);
		size_t d = lt_tracefs_distance(pat, full);
		if (strchr(pat, ':') == NULL) {
			size_t d2 = lt_tracefs_distance(pat, all[i].name);
			if (d2 < d)
				d = d2;
		}
		if (d < best && d <= limit) {
			best = d;
			snprintf(out, outlen, "%s", full);
		}
	}
	if (out[0] || !*ev)
		return;
	for (size_t i = 0; i < nall; i++) {
		if (strstr(all[i].name, ev)) {
			snprintf(out, outlen, "%s:%s", all[i].group,
				 all[i].name);
			return;
		}
	}
}

static int has_name(const struct lt_kname *v, size_t n,
		    const struct lt_kname *k)
{
	for (size_t i = 0; i < n; i++)
		if (name_cmp(&v[i], k) == 0)
			return 1;
	return 0;
}

/* Adds the events that match one GROUP:NAME pattern; how many matched. */
static int match_one(const struct lt_kname *all, size_t nall, const char *pat,
		     struct lt_kname **v, size_t *n, size_t *cap)
{
	char group[LT_KNAME_GROUP];
	const char *colon = strchr(pat, ':');
	int matched = 0;

	if (!colon || (size_t)(colon - pat) >= sizeof(group))
		return 0;
	memcpy(group, pat, (size_t)(colon - pat));
	group[colon - pat] = 0;
	for (size_t i = 0; i < nall; i++) {
		if (!lt_pattern_match(group, all[i].group) ||
		    !lt_pattern_match(colon + 1, all[i].name))
			continue;
		matched++;
		if (has_name(*v, *n, &all[i]))
			continue;
		if (push_name(v, n, cap, all[i].group, all[i].name))
			return -ENOMEM;
	}
	return matched;
}

int lt_tracefs_expand_in(const struct lt_kname *all, size_t nall,
			 const char *const *patterns, size_t n,
			 struct lt_kname **out, size_t *nout, char *err,
			 size_t errlen)
{
	struct lt_kname *v = NULL;
	size_t nv = 0, cap = 0;
	int rc = 0;

	for (size_t p = 0; p < n && !rc; p++) {
		const char *pat = patterns[p];
		const char *const *pre = lt_tracefs_preset(pat);
		int m = 0;
		if (pre) {
			for (; *pre && m >= 0; pre++) {
				int k = match_one(all, nall, *pre, &v, &nv,
						  &cap);
				m = k < 0 ? k : m + k;
			}
		} else {
			m = match_one(all, nall, pat, &v, &nv, &cap);
		}
		if (m < 0) {
			rc = m;
			lt_kernel_set_err(
				err, errlen,
				"lowtrace: out of memory expanding %s", pat);
		} else if (m == 0) {
			char s[LT_KNAME_GROUP + LT_KNAME_EVENT + 2];
			rc = -ENOENT;
			suggest(all, nall, pat, s, sizeof(s));
			if (pre)
				lt_kernel_set_err(
					err, errlen,
					"lowtrace: this kernel has none of "
					"the events of preset %s (lowtrace "
					"list --kernel shows what it has)",
					pat);
			else if (s[0])
				lt_kernel_set_err(
					err, errlen,
					"lowtrace: no kernel event %s (did "
					"you mean %s?)",
					pat, s);
			else if (!strchr(pat, ':'))
				lt_kernel_set_err(
					err, errlen,
					"lowtrace: no kernel event %s (write "
					"GROUP:NAME, e.g. sched:sched_switch, "
					"or a preset: sched, irq, syscalls, "
					"timer)",
					pat);
			else
				lt_kernel_set_err(
					err, errlen,
					"lowtrace: no kernel event %s "
					"(lowtrace list --kernel shows them)",
					pat);
		}
	}
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	*nout = nv;
	return 0;
}

int lt_tracefs_expand(const char *const *patterns, size_t n,
		      struct lt_kname **out, size_t *nout, char *err,
		      size_t errlen)
{
	struct lt_kname *all;
	size_t nall;
	int rc = lt_tracefs_list(&all, &nall, err, errlen);
	if (rc)
		return rc;
	rc = lt_tracefs_expand_in(all, nall, patterns, n, out, nout, err,
				  errlen);
	free(all);
	return rc;
}

/* Format files. */

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	return s;
}

/* Size of an element type by its name, for arrays the file does not size
 * (__data_loc u32[] x); 1 when unknown (kept as bytes). */
static unsigned type_size(const char *t)
{
	static const struct {
		const char *name;
		unsigned size;
	} k[] = {
		{ "u8", 1 },
		{ "s8", 1 },
		{ "__u8", 1 },
		{ "__s8", 1 },
		{ "char", 1 },
		{ "unsigned char", 1 },
		{ "signed char", 1 },
		{ "u16", 2 },
		{ "s16", 2 },
		{ "__u16", 2 },
		{ "short", 2 },
		{ "unsigned short", 2 },
		{ "u32", 4 },
		{ "s32", 4 },
		{ "__u32", 4 },
		{ "int", 4 },
		{ "unsigned int", 4 },
		{ "unsigned", 4 },
		{ "u64", 8 },
		{ "s64", 8 },
		{ "__u64", 8 },
		{ "long", (unsigned)sizeof(long) },
		{ "unsigned long", (unsigned)sizeof(long) },
		{ "long long", 8 },
		{ "unsigned long long", 8 },
	};
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (strcmp(t, k[i].name) == 0)
			return k[i].size;
	return 1;
}

static int is_char_type(const char *t)
{
	return strcmp(t, "char") == 0 || strcmp(t, "signed char") == 0 ||
	       strcmp(t, "unsigned char") == 0;
}

static int get_num(const char *line, const char *key, long *v)
{
	const char *p = strstr(line, key);
	char *end;
	if (!p)
		return -1;
	*v = strtol(p + strlen(key), &end, 10);
	return end == p + strlen(key) ? -1 : 0;
}

/* One "field:DECL; offset:N; size:N; signed:N;" line into f. */
static int parse_field(char *line, struct lt_kfield *f, char *err,
		       size_t errlen)
{
	char *decl = strstr(line, "field:");
	long off, size, sgn = 0;
	char *semi, *arr = NULL, *name;

	if (!decl)
		return -EINVAL;
	decl += 6;
	if (strncmp(decl, "special:", 8) == 0)
		decl += 8;
	semi = strchr(decl, ';');
	if (!semi || get_num(semi, "offset:", &off) ||
	    get_num(semi, "size:", &size)) {
		lt_kernel_set_err(err, errlen,
				  "lowtrace: format line without offset "
				  "or size: %s",
				  decl);
		return -EINVAL;
	}
	get_num(semi, "signed:", &sgn);
	*semi = 0;
	decl = trim(decl);
	size_t len = strlen(decl);
	if (len && decl[len - 1] == ']') {
		arr = strrchr(decl, '[');
		if (!arr)
			return -EINVAL;
		*arr++ = 0;
		decl = trim(decl);
		len = strlen(decl);
	}
	name = decl + len;
	while (name > decl &&
	       (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
		name--;
	if (!*name || name == decl || off < 0 || off > 0xffff || size <= 0 ||
	    size > 0xffff || strlen(name) >= sizeof(f->name)) {
		lt_kernel_set_err(err, errlen,
				  "lowtrace: cannot read format field %s",
				  decl);
		return -EINVAL;
	}
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	*name = 0;
	char *type = trim(decl);
	f->offset = (uint16_t)off;
	f->size = (uint16_t)size;
	f->is_signed = sgn != 0;
	f->hex = strchr(type, '*') != NULL;

	int dl = strncmp(type, "__data_loc", 10) == 0;
	int rl = strncmp(type, "__rel_loc", 9) == 0;
	if (dl || rl) {
		char *elem = trim(type + (dl ? 10 : 9));
		char *br = strchr(elem, '[');
		if (br)
			*br = 0;
		elem = trim(elem);
		if (size != 4) {
			lt_kernel_set_err(
				err, errlen,
				"lowtrace: dynamic field %s is %ld bytes, "
				"not 4",
				f->name, size);
			return -EINVAL;
		}
		f->rel_loc = (uint8_t)rl;
		f->kind = is_char_type(elem) ? LT_KF_STRING : LT_KF_DYNARRAY;
		f->elem_size = (uint8_t)type_size(elem);
		f->is_signed = elem[0] == 's' || strcmp(elem, "int") == 0 ||
			       strcmp(elem, "long") == 0;
		return 0;
	}
	if (arr) {
		long count = strtol(arr, NULL, 10);
		if (is_char_type(type)) {
			f->kind = LT_KF_CHARS;
			f->elem_size = 1;
			f->count = (uint32_t)size;
			return 0;
		}
		unsigned es = count > 0 && size % count == 0 ?
				      (unsigned)(size / count) :
				      type_size(type);
		if (es != 1 && es != 2 && es != 4 && es != 8)
			es = 1;
		f->kind = LT_KF_ARRAY;
		f->elem_size = (uint8_t)es;
		f->count = (uint32_t)(size / es);
		return 0;
	}
	if (size == 1 || size == 2 || size == 4 || size == 8) {
		f->kind = LT_KF_INT;
		f->elem_size = (uint8_t)size;
		return 0;
	}
	/* a struct or other odd-sized value: its bytes, in hexadecimal */
	f->kind = LT_KF_ARRAY;
	f->elem_size = 1;
	f->count = (uint32_t)size;
	f->is_signed = 0;
	f->hex = 1;
	return 0;
}

int lt_kformat_parse(const char *text, struct lt_kformat *f, char *err,
		     size_t errlen)
{
	char *copy = strdup(text), *save = NULL;
	size_t cap = 0;
	int rc = 0, have_id = 0;

	memset(f, 0, sizeof(*f));
	if (!copy)
		return -ENOMEM;
	for (char *line = strtok_r(copy, "\n", &save); line && !rc;
	     line = strtok_r(NULL, "\n", &save)) {
		char *l = trim(line);
		if (strncmp(l, "name:", 5) == 0) {
			snprintf(f->name.name, sizeof(f->name.name), "%s",
				 trim(l + 5));
		} else if (strncmp(l, "ID:", 3) == 0) {
			char *end;
			unsigned long id = strtoul(l + 3, &end, 10);
			have_id = end != l + 3;
			f->id = (uint32_t)id;
		} else if (strncmp(l, "print fmt:", 10) == 0) {
			break;
		} else if (strncmp(l, "field:", 6) == 0) {
			struct lt_kfield fld;
			rc = parse_field(l, &fld, err, errlen);
			if (rc)
				break;
			if (strncmp(fld.name, "common_", 7) == 0)
				continue;
			if (f->nfields == cap) {
				cap = cap ? cap * 2 : 8;
				void *p = realloc(f->fields,
						  cap * sizeof(*f->fields));
				if (!p) {
					rc = -ENOMEM;
					break;
				}
				f->fields = p;
			}
			f->fields[f->nfields++] = fld;
		}
	}
	free(copy);
	if (!rc && !have_id) {
		lt_kernel_set_err(err, errlen,
				  "lowtrace: format of %s has no ID line",
				  f->name.name[0] ? f->name.name : "an event");
		rc = -EINVAL;
	}
	if (rc)
		lt_kformat_free(f);
	return rc;
}

int lt_kformat_load(const struct lt_kname *name, struct lt_kformat *f,
		    char *err, size_t errlen)
{
	const char *base;
	char path[4096], buf[16384];
	size_t len = 0;
	int rc = lt_tracefs_events_dir(&base, err, errlen);

	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/%s/%s/format", base, name->group,
		 name->name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		lt_kernel_set_err(err, errlen, "lowtrace: cannot open %s: %s%s",
				  path, strerror(-rc),
				  rc == -EACCES ?
					  " (run as root)" :
					  " (is the event still there?)");
		return rc;
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : 0;
			break;
		}
		len += (size_t)n;
		if (len == sizeof(buf) - 1)
			break;
	}
	close(fd);
	buf[len] = 0;
	if (rc) {
		lt_kernel_set_err(err, errlen, "lowtrace: cannot read %s: %s",
				  path, strerror(-rc));
		return rc;
	}
	rc = lt_kformat_parse(buf, f, err, errlen);
	if (!rc)
		f->name = *name;
	return rc;
}

void lt_kformat_free(struct lt_kformat *f)
{
	free(f->fields);
	f->fields = NULL;
	f->nfields = 0;
}
