/* SPDX-License-Identifier: MIT */
/*
 * main.c - the `lowtrace` command: finds the verb and runs it.
 */
#include "arch/arch.h"
#include "cli/cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VERBS 32
static const struct lt_cli_verb *verbs[MAX_VERBS];
static int nverbs;

void lt_cli_register(const struct lt_cli_verb *v)
{
	if (nverbs < MAX_VERBS)
		verbs[nverbs++] = v;
}

int lt_cli_error(const char *verb, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "lowtrace: %s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int lt_cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0)
			return 1;
	}
	return 0;
}

void lt_cli_usage(const struct lt_cli_verb *v, FILE *f)
{
	fprintf(f, "%s", v->usage);
}

static const struct lt_cli_verb *find(const char *name)
{
	for (int i = 0; i < nverbs; i++)
		if (strcmp(verbs[i]->name, name) == 0)
			return verbs[i];
	return NULL;
}

static int cmp_verb(const void *a, const void *b)
{
	const struct lt_cli_verb *const *x = a, *const *y = b;
	return strcmp((*x)->name, (*y)->name);
}

static void overview(FILE *f)
{
	qsort(verbs, (size_t)nverbs, sizeof(verbs[0]), cmp_verb);
	fprintf(f, "usage: lowtrace VERB [OPTIONS] [ARGS]\n\nverbs:\n");
	for (int i = 0; i < nverbs; i++)
		if (verbs[i]->run)
			fprintf(f, "  %-10s %s\n", verbs[i]->name,
				verbs[i]->summary);
	/* "NAME:", so that scripts/gen-completion.sh takes no topic for a
	 * verb */
	fprintf(f, "\ntopics of `lowtrace help TOPIC`:\n");
	for (int i = 0; i < nverbs; i++) {
		char name[32];
		if (verbs[i]->run)
			continue;
		snprintf(name, sizeof(name), "%s:", verbs[i]->name);
		fprintf(f, "  %-11s %s\n", name, verbs[i]->summary);
	}
	fprintf(f, "\n`lowtrace help VERB` or `lowtrace VERB --help` tells "
		   "more.\n");
}

static int help_run(int argc, char **argv)
{
	if (argc < 2) {
		overview(stdout);
		return 0;
	}
	const struct lt_cli_verb *v = find(argv[1]);
	if (!v)
		return lt_cli_error(
			"help", "no verb or topic '%s' (try `lowtrace help`)",
			argv[1]);
	lt_cli_usage(v, stdout);
	return 0;
}

LT_CLI_VERB(help_verb, .name = "help",
	    .summary = "show the verbs, or one verb's usage or topic",
	    .usage = "usage: lowtrace help [VERB|TOPIC]\n", .run = help_run)

static int version_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("lowtrace %s\n", LT_VERSION);
	printf("arch %s\n", LT_ARCH_SUMMARY);
	return 0;
}

LT_CLI_VERB(version_verb, .name = "version",
	    .summary = "print the version and what this architecture gets",
	    .usage = "usage: lowtrace version\n", .run = version_run)

int main(int argc, char **argv)
{
	if (argc < 2) {
		overview(stderr);
		return 2;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		overview(stdout);
		return 0;
	}
	const struct lt_cli_verb *v = find(argv[1]);
	if (!v || !v->run) {
		lt_cli_error(argv[1], "no such verb (see `lowtrace help`)");
		return 2;
	}
	if (lt_cli_wants_help(argc - 1, argv + 1)) {
		lt_cli_usage(v, stdout);
		return 0;
	}
	return v->run(argc - 1, argv + 1);
}
