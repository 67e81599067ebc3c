/* SPDX-License-Identifier: MIT */
/*
 * pattern.h - the one matcher of event patterns: record's and view's -e,
 * --trigger, --anchor, list's and the kernel channel's GROUP:NAME, -u's
 * PROVIDER:NAME (`lowtrace help patterns` documents the syntax).
 *
 *	*	any run of characters, none included (':' and '/' too)
 *	?	any one character
 *	[set]	one character of set: "abc", ranges "a-z"; [!set] or
 *		[^set] one not in it; a ']' first is in the set; a '['
 *		without its ']' is itself
 *	\c	the character c itself (a '\' at the end is itself)
 *	else	the character itself
 *
 * These are fnmatch()'s with no flags (what the kernel channel and -u
 * used), which match every name the earlier '*'-only matcher of the
 * registry and the analyses matched unless the pattern holds '?', '['
 * or '\'.  The whole name is matched: "sched:*" is not "sched:*x".
 */
#ifndef LT_PROBE_PATTERN_H
#define LT_PROBE_PATTERN_H

/* 1 if name matches pattern, else 0. */
int lt_pattern_match(const char *pattern, const char *name);
/* 1 if pattern has no special character (it names one name), else 0. */
int lt_pattern_is_literal(const char *pattern);

#endif
