/* SPDX-License-Identifier: MIT */
/*
 * follow.h - `lowtrace view --follow DIR`: the events of a recording
 * printed as its packets reach the disk (follow.c).
 */
#ifndef LT_CLI_FOLLOW_H
#define LT_CLI_FOLLOW_H

#include "cli/viewer.h"

/* Follows v->opts->dir until the recording ends; the exit status. */
int lt_view_follow(struct lt_view *v);

#endif
