/* SPDX-License-Identifier: MIT */
/*
 * launch.c - the programs of a recording, from start to end: the command
 * started with the session's socket in its environment, its end and exit
 * status, the end of the -p processes when there is no command, and the
 * signals that end a recording as the command's end would.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel/kernel.h"
#include "recorder/rec.h"
#include "recorder/recorder.h"

static int cannot_run(struct rec *R, int err)
{
	fprintf(stderr, "lowtrace: record: cannot run %s: %s\n", R->o->argv[0],
		strerror(-err));
	R->res->exit_status = 127;
	return err;
}

/* Runs the command with the session's socket in its environment; 0, or
 * -errno after a message. */
int rec_start_command(struct rec *R)
{
	int pfd[2], go[2] = { -1, -1 };
	signal(SIGINT, SIG_IGN); /* the command gets it and ends; we finish */
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return cannot_run(R, -errno);
	/* the kernel channel filters in the kernel (eBPF): the command
	 * waits until its pid is in the filter, so its exec is recorded */
	if (R->kern && pipe2(go, O_CLOEXEC) < 0)
		return cannot_run(R, -errno);
	pid_t pid = fork();
	if (pid < 0)
		return cannot_run(R, -errno);
	if (pid == 0) {
		close(pfd[0]);
		if (go[0] >= 0) {
			char c;
			close(go[1]);
			while (read(go[0], &c, 1) < 0 && errno == EINTR)
				;
		}
		setenv("LOWTRACE_SESSION_SOCK", R->sock_path, 1);
		unsetenv("LOWTRACE_TRACE");
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execvp(R->o->argv[0], R->o->argv);
		int e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	if (go[0] >= 0) {
		lt_kernel_add_pid(R->kern, pid);
		close(go[0]);
		close(go[1]); /* the command goes on */
	}
	int e = 0;
	ssize_t n = read(pfd[0], &e, sizeof(e));
	close(pfd[0]);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(pid, NULL, 0);
		return cannot_run(R, -e);
	}
	R->child = pid;
	R->child_alive = 1;
	if (R->kern)
		lt_kernel_add_pid(R->kern, pid);
	return 0;
}

/* Notes the command's end, and its exit status as a shell gives it. */
void rec_watch_command(struct rec *R)
{
	int st;
	if (!R->o->argv || !R->child_alive ||
	    waitpid(R->child, &st, WNOHANG) != R->child)
		return;
	R->child_alive = 0;
	R->child_done_ms = rec_now_ms();
	if (WIFEXITED(st)) {
		R->res->exit_status = WEXITSTATUS(st);
	} else {
		R->res->exit_status = 128 + WTERMSIG(st);
		R->res->crashed++;
	}
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	interrupted = sig;
}

/*
 * SIGTERM or SIGHUP (and SIGINT with -p and no command) end the
 * recording as the command's end would: the buffers are drained and the
 * probes created removed (a recorder killed by a signal it cannot catch
 * leaves them to the next one).  The command is left running.  With -p
 * and no command, the recording also ends when the process exits.
 */
void rec_catch_signals(int sigint)
{
	struct sigaction sa = { .sa_handler = on_interrupt,
				.sa_flags = SA_RESTART };
	if (sigint) {
		sigaction(SIGINT, &sa, NULL);
		signal(SIGPIPE, SIG_IGN);
		return;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int pid_gone(int pid)
{
	return (kill(pid, 0) < 0 && errno == ESRCH) || rec_proc_gone(pid);
}

/* Without a command: whether every -p process has ended. */
static int attached_gone(const struct rec *R)
{
	if (R->o->argv || R->o->all_apps)
		return 0;
	if (pid_gone(R->o->attach_pid) && !R->o->npids)
		return 1;
	for (int i = 0; i < R->o->npids; i++)
		if (!pid_gone(R->o->pids[i]))
			return 0;
	return R->o->npids > 0;
}

void rec_watch_attached(struct rec *R)
{
	if (!R->child_alive)
		return;
	int gone = attached_gone(R);
	/* `lowtrace stop` without a command ends it: the programs attached
	 * detach when their connections close */
	int stopped = R->stopped && !R->o->argv;
	if (!interrupted && !gone && !stopped)
		return;
	R->res->attached_exited = gone && !interrupted;
	if (interrupted && R->o->argv)
		R->res->exit_status = 128 + interrupted;
	R->child_alive = 0;
	R->child_done_ms = rec_now_ms() - 2000;
}
