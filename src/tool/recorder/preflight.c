/* SPDX-License-Identifier: MIT */
/*
 * preflight.c - checking `lowtrace record`'s filters against the traced
 * program's events before the program runs (preflight.h).
 *
 * The program is started once with LOWTRACE_LIST_EVENTS=FD: liblowtrace,
 * when the executable's own events register (before main), describes
 * every event registered so far on FD as EVENT messages (proto.h) and
 * exits (autostart.c).  Those are the events of the executable and of the
 * libraries it links; libraries it opens later with dlopen are not seen
 * here, and their events are checked by the agent as they register.  The
 * pre-flight runs only when the executable has events of its own (an
 * "lt_events" section): otherwise its main() would run.
 */
#include "recorder/preflight.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/metadata.h"
#include "probe/filter.h"
#include "probe/pattern.h"
#include "probe/probe.h"

/* The file execvp() would run, or -1. */
static int resolve(const char *cmd, char *out, size_t cap)
{
	if (strchr(cmd, '/')) {
		snprintf(out, cap, "%s", cmd);
		return access(out, X_OK);
	}
	const char *path = getenv("PATH");
	for (const char *p = path ? path : "/bin:/usr/bin"; *p;) {
		size_t n = strcspn(p, ":");
		if (snprintf(out, cap, "%.*s/%s", (int)n, p, cmd) < (int)cap &&
		    access(out, X_OK) == 0)
			return 0;
		p += n + (p[n] == ':');
	}
	return -1;
}

/* 1 if the 64-bit ELF file at path has a non-empty "lt_events" section. */
static int has_events_section(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	char *names = NULL;
	int found = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
	    eh.e_shnum > 4096 || eh.e_shstrndx >= eh.e_shnum)
		goto out;
	size_t shlen = (size_t)eh.e_shnum * sizeof(*sh);
	sh = malloc(shlen);
	if (!sh || pread(fd, sh, shlen, (off_t)eh.e_shoff) != (ssize_t)shlen)
		goto out;
	const Elf64_Shdr *ns = &sh[eh.e_shstrndx];
	if (ns->sh_size == 0 || ns->sh_size > (1u << 20))
		goto out;
	names = malloc(ns->sh_size + 1);
	if (!names || pread(fd, names, ns->sh_size, (off_t)ns->sh_offset) !=
			      (ssize_t)ns->sh_size)
		goto out;
	names[ns->sh_size] = 0;
	for (unsigned i = 0; i < eh.e_shnum && !found; i++)
		found = sh[i].sh_name < ns->sh_size && sh[i].sh_size > 0 &&
			strcmp(names + sh[i].sh_name, "lt_events") == 0;
out:
	free(sh);
	free(names);
	close(fd);
	return found;
}

struct events {
	struct lt_ctf_event *ev;
	size_t n;
};

/* Runs the program in listing mode; 0 and its events, or -errno. */
static int list_events(char *const *argv, struct events *out)
{
	static char buf[LT_PROTO_MAX];
	int sv[2], rc = 0;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		rc = -errno;
		close(sv[0]);
		close(sv[1]);
		return rc;
	}
	if (pid == 0) {
		char v[16];
		int fd = dup(sv[1]); /* without close-on-exec */
		snprintf(v, sizeof(v), "%d", fd);
		setenv("LOWTRACE_LIST_EVENTS", v, 1);
		unsetenv("LOWTRACE_SESSION_SOCK");
		unsetenv("LOWTRACE_TRACE");
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(sv[1]);
	for (;;) {
		struct pollfd pf = { sv[0], POLLIN, 0 };
		if (poll(&pf, 1, 10000) <= 0) {
			rc = -ETIMEDOUT;
			kill(pid, SIGKILL);
			break;
		}
		ssize_t n =
			lt_proto_recv(sv[0], buf, sizeof(buf), NULL, 0, NULL);
		if (n <= 0)
			break;
		enum lt_msg_type type;
		struct lt_ctf_event e;
		if (lt_proto_check(buf, (size_t)n, &type) ||
		    type != LT_MSG_EVENT ||
		    lt_proto_event_decode(buf, (size_t)n, &e)) {
			rc = -EPROTO;
			continue;
		}
		struct lt_ctf_event *a =
			realloc(out->ev, (out->n + 1) * sizeof(*a));
		if (!a) {
			lt_proto_event_free(&e);
			rc = -ENOMEM;
			continue;
		}
		out->ev = a;
		out->ev[out->n++] = e;
	}
	close(sv[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!rc && (!WIFEXITED(st) || WEXITSTATUS(st) != 0))
		rc = -ECHILD;
	return rc;
}

/* Checks one rule against the events; 0, or -EINVAL after a message. */
static int check_rule(const struct lt_proto_rule *r, const struct events *ev,
		      const char *what)
{
	char err[600], first[600] = "";
	int selected = 0, fits = 0;

	for (size_t i = 0; i < ev->n; i++) {
		const struct lt_ctf_event *e = &ev->ev[i];
		struct lt_filter *f;
		if (e->loglevel > r->loglevel_max ||
		    !lt_pattern_match(r->pattern, e->name))
			continue;
		selected++;
		if (lt_filter_compile(r->filter, e->name, e->fields, e->nfields,
				      &f, err, sizeof(err)) == 0) {
			lt_filter_free(f);
			fits++;
		} else if (!first[0] || (strstr(first, "unknown field") &&
					 !strstr(err, "unknown field"))) {
			/* an event that has the field says more */
			snprintf(first, sizeof(first), "%s", err);
		}
	}
	/* a wildcard selects the events that have the fields; a name, one */
	if (!selected || (fits && !lt_pattern_is_literal(r->pattern)) ||
	    fits == selected)
		return 0;
	fprintf(stderr,
		"lowtrace: record: %s '%s if %s': %s (fix the filter or the "
		"pattern; the command was not run)\n",
		what, r->pattern, r->filter, first);
	return -EINVAL;
}

int lt_preflight_check(char *const *argv, const struct lt_proto_rule *rules,
		       int nrules)
{
	char path[PATH_MAX];
	struct events ev = { NULL, 0 };
	int need = 0, rc = 0;

	for (int i = 0; i < nrules; i++)
		need |= rules[i].filter[0] != 0;
	if (!need || resolve(argv[0], path, sizeof(path)) ||
	    !has_events_section(path))
		return 0; /* the agent checks the filters as events register */
	rc = list_events(argv, &ev);
	if (rc) {
		fprintf(stderr,
			"lowtrace: record: could not list the events of %s "
			"(%s); filters are checked as its events register\n",
			argv[0], strerror(-rc));
		rc = 0;
		goto out;
	}
	for (int i = 0; i < nrules; i++)
		if (rules[i].filter[0] &&
		    check_rule(&rules[i], &ev,
			       rules[i].trigger[0] ? "--trigger" : "-e"))
			rc = -EINVAL;
out:
	for (size_t i = 0; i < ev.n; i++)
		lt_proto_event_free(&ev.ev[i]);
	free(ev.ev);
	return rc;
}

static const char *type_name(const struct lt_field_desc *f, char *buf,
			     size_t cap)
{
	switch (f->type) {
	case LT_FT_INT:
		snprintf(buf, cap, "%sint%u%s", f->is_signed ? "" : "u",
			 f->size * 8, f->base == 16 ? " hex" : "");
		break;
	case LT_FT_ENUM:
		snprintf(buf, cap, "enum (%u labels)",
			 f->enumd ? f->enumd->n : 0);
		break;
	case LT_FT_FLOAT:
		snprintf(buf, cap, "%s", f->size == 4 ? "float" : "double");
		break;
	case LT_FT_STRING:
		snprintf(buf, cap, "string");
		break;
	case LT_FT_ARRAY:
		snprintf(buf, cap, "%sint%u[%u]", f->is_signed ? "" : "u",
			 f->size * 8, f->length);
		break;
	case LT_FT_SEQUENCE:
		snprintf(buf, cap, "%sint%u[]", f->is_signed ? "" : "u",
			 f->size * 8);
		break;
	default:
		snprintf(buf, cap, "char[%u]", f->length);
	}
	return buf;
}

int lt_preflight_list(char *const *argv, FILE *out)
{
	char path[4096];
	struct events ev = { 0 };

	if (resolve(argv[0], path, sizeof(path)) != 0)
		return -ENOENT;
	if (!has_events_section(path))
		return -ENODATA;
	int rc = list_events(argv, &ev);
	for (size_t i = 0; i < ev.n; i++) {
		const struct lt_ctf_event *e = &ev.ev[i];
		fprintf(out, "%s (%s)", e->name,
			lt_probe_loglevel_name(e->loglevel));
		for (uint32_t k = 0; k < e->nfields; k++) {
			char t[64];
			fprintf(out, "%s %s %s", k ? "," : ":",
				type_name(&e->fields[k], t, sizeof(t)),
				e->fields[k].name);
		}
		fputc('\n', out);
		lt_proto_event_free(&ev.ev[i]);
	}
	free(ev.ev);
	return rc;
}
