/*
 * list.c - `lowtrace list --kernel [PATTERN]`: the kernel tracepoints this
 * machine has.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "kernel/kernel.h"

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
	return lt_cli_error("list", "expected --kernel [PATTERN] (see "
				    "`lowtrace help list`)");
}

LT_CLI_VERB(list_verb, .name = "list",
	    .summary = "list kernel tracepoints (--kernel [PATTERN])",
	    .usage = "usage: lowtrace list --kernel [PATTERN]\n"
		     "  PATTERN: GROUP:NAME with * wildcards, e.g. 'sched:*'\n",
	    .run = list_run)
