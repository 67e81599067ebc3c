/* SPDX-License-Identifier: MIT */
/*
 * analyze_json.c - a program that embeds the analyses as a Python
 * module would: links src/tool/cli/analyze.c and analysis_opts.c without
 * the command's main.c, gives them their lt_cli_* needs, and calls
 * lt_analyze_json() (cli/analyze.h).  tests/test_analysis_json.sh checks
 * that it prints what `lowtrace analyze VERB TRACE --json` prints.
 *
 * usage: analyze_json TRACE VERB [OPTIONS...]
 */
#include "cli/analyze.h"
#include "cli/cli.h"

#include <stdarg.h>
#include <stdio.h>

/* No verbs to dispatch here: analyze.c's registration is ignored. */
void lt_cli_register(const struct lt_cli_verb *v)
{
	(void)v;
}

/* An embedder takes the message (a Python module would raise it). */
int lt_cli_error(const char *verb, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "embedded %s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int lt_cli_wants_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fputs("usage: analyze_json TRACE VERB [OPTIONS...]\n", stderr);
		return 2;
	}
	return lt_analyze_json(argv[1], argc - 2, argv + 2, stdout);
}
