/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the `lowtrace` command's verbs.  Each verb is one file in
 * src/tool/cli/ and registers itself with LT_CLI_VERB; main.c dispatches.
 */
#ifndef LT_CLI_H
#define LT_CLI_H

#include <stdio.h>

#include "ctf/reader.h"

struct lt_cli_verb {
	const char *name;
	const char *summary; /* one line for `lowtrace help` */
	const char *usage; /* full text for `lowtrace help VERB` */
	int (*run)(int argc, char **argv); /* argv[0] is the verb */
};
/* A topic of `lowtrace help TOPIC` is a verb without run: a syntax that
 * several verbs share (topics.c), told once. */

void lt_cli_register(const struct lt_cli_verb *v);

#define LT_CLI_VERB(ident, ...)                                         \
	static const struct lt_cli_verb ident = { __VA_ARGS__ };        \
	__attribute__((constructor)) static void ident##_register(void) \
	{                                                               \
		lt_cli_register(&ident);                                \
	}

/* Prints "lowtrace: VERB: message" to stderr; returns 1 (an exit status). */
int lt_cli_error(const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* 1 if argv holds -h or --help. */
int lt_cli_wants_help(int argc, char **argv);
/* Prints the usage of verb to f. */
void lt_cli_usage(const struct lt_cli_verb *v, FILE *f);

#endif
