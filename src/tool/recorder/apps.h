/* SPDX-License-Identifier: MIT */
/*
 * apps.h - the running programs that can be attached (they link
 * liblowtrace and wait on their rendezvous, attach.c), for `lowtrace
 * record -p / --all-apps` and `lowtrace list --apps`.
 */
#ifndef LT_SESSION_APPS_H
#define LT_SESSION_APPS_H

#include <stddef.h>
#include <stdint.h>

struct lt_app {
	int pid;
	uint64_t inode; /* of its rendezvous: a program exec() runs anew
			   has another */
};

/* The rendezvous in /proc/net/unix: up to cap of them; how many, or
 * -errno. */
int lt_apps_find(struct lt_app *out, int cap);
/*
 * One request to pid's rendezvous (proto.h's ATTACH, op JOIN or QUERY)
 * and its reply: the reply's status, its text in text; -ECONNREFUSED
 * when pid has no rendezvous.  A JOIN accepted leaves the connection in
 * *fd, the session's connection to the program from then on.
 */
int lt_apps_request(int pid, unsigned op, const char *session, const char *sock,
		    int *fd, char *text, size_t cap);
/* pid's command line, its arguments separated by spaces (control
 * characters too), cut to cap; its length, or -1 if it cannot be read
 * or is empty (a kernel thread, a zombie). */
int lt_apps_cmdline(int pid, char *out, size_t cap);
/* Why pid cannot be attached when it has no rendezvous, in out. */
void lt_apps_why_not(int pid, char *out, size_t cap);

#endif
