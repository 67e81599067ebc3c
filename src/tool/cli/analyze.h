/* SPDX-License-Identifier: MIT */
/*
 * analyze.h - the analyses of `lowtrace analyze` as JSON for a program
 * that embeds them (docs/analysis-json.md), without a subprocess.
 */
#ifndef LT_CLI_ANALYZE_H
#define LT_CLI_ANALYZE_H

#include <stdio.h>

/*
 * What `lowtrace analyze ARGV[0] TRACE --json ARGV[1..]` prints to
 * stdout, written to out: argv[0] names the analysis (latency, jitter,
 * sched, cpu, syscalls, irq), the rest are its options as the command
 * takes them ("--anchor", "demo:late", "--top", "3", ...).  Errors are
 * said through lt_cli_error(), as the command's; returns the command's
 * exit status (0, or 1 after an error).  Parses with getopt: one call at
 * a time.
 */
int lt_analyze_json(const char *trace, int argc, char **argv, FILE *out);

#endif
