/* SPDX-License-Identifier: MIT */
/*
 * forker.c - a traced process that forks a traced child and then execs
 * another traced program (the fields example), for `lowtrace record`'s
 * test of process trees.
 *	forker PATH-OF-FIELDS
 */
#include <lowtrace/tracepoint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

LT_EVENT(tree, hello, LT_INFO, LT_ARGS(int, role, int, pid),
	 LT_FIELDS(LT_FIELD_INT(role, role) LT_FIELD_INT(pid, pid)))

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	lt_trace(tree, hello, 0, (int)getpid());
	pid_t c = fork();
	if (c == 0) {
		for (int i = 0; i < 3; i++)
			lt_trace(tree, hello, 1, (int)getpid());
		_exit(0);
	}
	int st;
	waitpid(c, &st, 0);
	lt_trace(tree, hello, 2, (int)getpid());
	execl(argv[1], argv[1], "2", (char *)NULL);
	perror("exec");
	return 1;
}
