/*
 * list.c - `lowtrace list --kernel [PATTERN]`: the kernel tracepoints this
 * machine has; `lowtrace list PROGRAM`: the events a program defines (it
 * is started in a listing mode that stops it before main()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "kernel/kernel.h"
#include "session/preflight.h"

static int list_run(int argc, char **argv)
{
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
	if (argc < 2 || argv[1][0] == '-')
		return lt_cli_error("list",
				    "expected --kernel [PATTERN] or "
				    "PROGRAM (see `lowtrace help list`)");
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
	    .summary = "list kernel tracepoints, or a program's events",
	    .usage = "usage: lowtrace list --kernel [PATTERN]\n"
		     "       lowtrace list PROGRAM [ARGS]\n"
		     "  PATTERN: GROUP:NAME with * wildcards, e.g. 'sched:*'\n"
		     "  PROGRAM is started, and stopped before its main()\n",
	    .run = list_run)
