/* SPDX-License-Identifier: MIT */
/*
 * list.c - `lowtrace list --kernel [PATTERN]`: the kernel tracepoints this
 * machine has; `lowtrace list PROGRAM`: the events a program defines (it
 * is started in a listing mode that stops it before main());
 * `lowtrace list --probes BINARY|PID`: the USDT markers and function
 * symbols a program not built for lowtrace offers to -u and --probe;
 * `lowtrace list --apps`: the running programs that can be attached.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kernel/kernel.h"
#include "kernel/usdt.h"
#include "probe/pattern.h"
#include "recorder/apps.h"
#include "recorder/preflight.h"
#include "session/proto.h"

#include <sys/stat.h>
#include <unistd.h>

struct func_list {
	const char *pattern, *path;
	int n;
};

static int print_function(void *arg, const struct lt_elf_sym *s)
{
	struct func_list *f = arg;
	if (s->is_func && lt_pattern_match(f->pattern, s->name)) {
		printf("%s:%s  0x%llx  %llu bytes\n", f->path, s->name,
		       (unsigned long long)s->value,
		       (unsigned long long)s->size);
		f->n++;
	}
	return 0;
}

/* --probes BINARY|PID [--deps] [--functions PATTERN] */
static int list_probes(int argc, char **argv)
{
	const char *target = NULL, *functions = NULL;
	int deps = 0;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--deps") == 0)
			deps = 1;
		else if (strcmp(argv[i], "--functions") == 0 && i + 1 < argc)
			functions = argv[++i];
		else if (!target && argv[i][0] != '-')
			target = argv[i];
		else
			return lt_cli_error("list",
					    "--probes BINARY|PID [--deps] "
					    "[--functions PATTERN]: unexpected "
					    "%s",
					    argv[i]);
	}
	if (!target)
		return lt_cli_error("list", "--probes needs a BINARY or a PID");
	struct lt_usdt_set s = { 0 };
	char *end;
	long pid = strtol(target, &end, 10);
	int rc = *end || pid <= 0 ? lt_usdt_binaries_of_path(&s, target, deps) :
				    lt_usdt_binaries_of_pid(&s, (pid_t)pid);
	if (rc) {
		lt_usdt_free(&s);
		return lt_cli_error("list", "%s: %s", target,
				    rc == -ESRCH  ? "no such process" :
				    rc == -ENOENT ? "no such program" :
						    strerror(-rc));
	}
	int status = 0;
	if (functions) {
		int found = 0;
		for (size_t i = 0; i < s.npaths; i++) {
			struct lt_elf e;
			if (lt_elf_open(s.paths[i], &e))
				continue;
			struct func_list f = { functions, s.paths[i], 0 };
			lt_elf_symbols(&e, print_function, &f);
			found += f.n;
			lt_elf_close(&e);
		}
		if (!found)
			status = lt_cli_error("list",
					      "no function matches %s in %s%s",
					      functions, target,
					      deps ? " or its libraries" : "");
	} else if (lt_usdt_read_all(&s) == 0) {
		status = lt_cli_error(
			"list",
			"%s has no USDT markers (no .note.stapsdt section%s%s)",
			target, s.npaths > 1 ? " in it or its libraries" : "",
			deps || s.npaths > 1 ? "" :
					       "; --deps looks in its "
					       "libraries too");
	} else {
		lt_usdt_print(&s, stdout);
	}
	lt_usdt_free(&s);
	return status;
}

/* --apps: each running program with a rendezvous, this user's (root:
 * everyone's), asked how many events it has and which sessions. */
static int list_apps(void)
{
	struct lt_app apps[1024];
	int n = lt_apps_find(apps, 1024);
	if (n < 0)
		return lt_cli_error("list", "cannot read /proc/net/unix: %s",
				    strerror(-n));
	printf("%-8s %-7s %-24s %s\n", "PID", "EVENTS", "SESSIONS", "COMMAND");
	for (int i = 0; i < n; i++) {
		char path[64], cmd[512], text[1024], sessions[256] = "?";
		unsigned events = 0;
		struct stat st;
		snprintf(path, sizeof(path), "/proc/%d", apps[i].pid);
		if (stat(path, &st) < 0 || (getuid() && st.st_uid != getuid()))
			continue;
		if (lt_apps_cmdline(apps[i].pid, cmd, sizeof(cmd)) < 0)
			continue; /* gone meanwhile */
		int rc = lt_apps_request(apps[i].pid, LT_ATTACH_QUERY, "", "",
					 NULL, text, sizeof(text));
		if (rc || sscanf(text, "%u %255s", &events, sessions) != 2) {
			printf("%-8d %-7s %-24s %s\n", apps[i].pid, "?",
			       rc ? strerror(-rc) : "?", cmd);
			continue;
		}
		printf("%-8d %-7u %-24s %s\n", apps[i].pid, events, sessions,
		       cmd);
	}
	return 0;
}

static int list_run(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--apps") == 0)
		return list_apps();
	if (argc >= 2 && strcmp(argv[1], "--kernel") == 0) {
		if (argc > 3)
			return lt_cli_error("list", "one pattern at most");
		int rc = lt_kernel_list(argc > 2 ? argv[2] : "*", stdout);
		if (rc < 0)
			return lt_cli_error("list",
					    "cannot read the kernel's "
					    "tracepoints: %s (run as root; "
					    "tracefs must be mountable)",
					    strerror(-rc));
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "--probes") == 0)
		return list_probes(argc, argv);
	if (argc < 2 || argv[1][0] == '-')
		return lt_cli_error("list",
				    "expected --kernel [PATTERN], --probes "
				    "BINARY|PID, --apps or PROGRAM (see "
				    "`lowtrace help list`)");
	int rc = lt_preflight_list(argv + 1, stdout);
	if (rc == -ENOENT)
		return lt_cli_error("list", "no program %s", argv[1]);
	if (rc == -ENODATA)
		return lt_cli_error("list",
				    "%s defines no lowtrace events of its own "
				    "(events of libraries it opens with dlopen "
				    "show in a trace: `lowtrace record`)",
				    argv[1]);
	if (rc)
		return lt_cli_error("list", "listing the events of %s: %s",
				    argv[1], strerror(-rc));
	return 0;
}

LT_CLI_VERB(list_verb, .name = "list",
	    .summary = "list kernel tracepoints, a program's events, its "
		       "USDT markers, or the programs to attach",
	    .usage = "usage: lowtrace list --kernel [PATTERN]\n"
		     "       lowtrace list PROGRAM [ARGS]\n"
		     "       lowtrace list --probes BINARY|PID [--deps] "
		     "[--functions PATTERN]\n"
		     "       lowtrace list --apps\n"
		     "  PATTERN: GROUP:NAME, e.g. 'sched:*' (`lowtrace help "
		     "patterns`)\n"
		     "  PROGRAM is started, and stopped before its main()\n"
		     "  --probes: the USDT markers (SDT notes) of BINARY, or "
		     "of\n"
		     "  every file PID maps; --deps: of BINARY's libraries "
		     "too;\n"
		     "  --functions: the function symbols matching PATTERN\n"
		     "  instead (for record --probe)\n"
		     "  --apps: the running programs that link liblowtrace\n"
		     "  and can be attached (`lowtrace record -p PID`,\n"
		     "  --all-apps): this user's (root: everyone's), with how\n"
		     "  many events each registered and the sessions\n"
		     "  recording it (\"-\": none)\n",
	    .run = list_run)
