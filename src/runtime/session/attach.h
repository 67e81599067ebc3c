/* SPDX-License-Identifier: MIT */
/*
 * attach.h - the rendezvous a program started the ordinary way waits on
 * (attach.c).
 */
#ifndef LT_SESSION_ATTACH_H
#define LT_SESSION_ATTACH_H

/* Starts the thread that waits for `lowtrace record -p` on this process's
 * rendezvous, and in each child fork() makes; 0 or -errno. */
int lt_attach_listen(void);

#endif
