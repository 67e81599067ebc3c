/* SPDX-License-Identifier: MIT */
/*
 * explain.h - `lowtrace record --explain`: each snapshot explained as soon
 * as it is written (explain.c).
 */
#ifndef LT_CLI_EXPLAIN_H
#define LT_CLI_EXPLAIN_H

#include "recorder/recorder.h"

struct lt_explain;

/* For o's snapshots; anchor: what a trigger without a condition of its
 * own (lt_trigger(), `lowtrace snapshot`) is explained by, or NULL. */
struct lt_explain *lt_explain_new(const struct lt_rec_options *o,
				  const char *anchor);
/* The recorder's on_snapshot hook (its arg an lt_explain). */
void lt_explain_snapshot(void *arg, const char *dir, const char *trigger);
/* Waits for the explanations under way, then frees e. */
void lt_explain_finish(struct lt_explain *e);

#endif
