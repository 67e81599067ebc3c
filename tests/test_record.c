/* SPDX-License-Identifier: MIT */
/*
 * test_record.c - `lowtrace record`: recording a command, its children and
 * the programs they exec, both channel modes at once, exit statuses, a
 * traced process killed mid-burst, a full disk, and garbage on the
 * session's socket.
 */
#include "lt_test.h"
#include "lt_tools.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>

static char *record(const char *args, int *status)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "%s/lowtrace record %s 2>&1",
		 lt_test_build_dir(), args);
	return lt_run(cmd, status);
}

static char *bt(const char *dir, int with_stderr)
{
	char cmd[600];
	lt_need_tool("babeltrace2");
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' %s", dir,
		 with_stderr ? "2>&1" : "2>/dev/null");
	int st;
	char *out = lt_run(cmd, &st);
	if (st)
		LT_FAIL("babeltrace2 %s failed:\n%s", dir, out);
	return out;
}

LT_TEST(test_record_writes_a_trace_babeltrace2_reads)
{
	const char *dir = lt_tmpdir("rec");
	char args[1024];
	int st;
	snprintf(args, sizeof(args), "-o %s -- %s/examples/fields 5", dir,
		 lt_test_build_dir());
	char *out = record(args, &st);
	LT_ASSERT_RESULT(st, 0, out, "recorded 20 events");
	free(out);
	out = bt(dir, 1);
	LT_ASSERT_EQ(lt_count_lines(out, NULL), 20);
	LT_ASSERT_EQ(lt_count_lines(out, "demo:tick"), 5);
	free(out);
}

LT_TEST(test_record_exits_with_the_command_status)
{
	int st;
	char *out = record(
		"-o \"${TMPDIR:-/tmp}/lt-rec-status\" -- sh -c 'exit 3'", &st);
	LT_ASSERT_EQ(st, 3);
	free(out);
	out = record(
		"-o \"${TMPDIR:-/tmp}/lt-rec-status\" -- sh -c 'kill -TERM $$'",
		&st);
	LT_ASSERT_EQ(st, 128 + SIGTERM);
	free(out);
	out = record("-o \"${TMPDIR:-/tmp}/lt-rec-status\" -- /no/such/program",
		     &st);
	LT_ASSERT_RESULT(st, 127, out, "cannot run /no/such/program");
	free(out);
}

LT_TEST(test_record_rejects_bad_options_before_running)
{
	static const struct lt_run_row bad[] = {
		{ "--channel x:subbuf-size=3000 -- true", LT_NONZERO,
		  "lowtrace: record: --channel x:subbuf-size=3000: subbuf-size "
		  "must be a power of two" },
		{ "--channel x:mode=sideways -- true", LT_NONZERO,
		  "lowtrace: record: --channel x:mode=sideways: mode is discard "
		  "or overwrite" },
		{ "-e 'a:b@nochannel' -- true", LT_NONZERO,
		  "lowtrace: record: -e a:b@nochannel: no channel 'nochannel'" },
		{ "--loglevel LOUD -- true", LT_NONZERO,
		  "lowtrace: record: --loglevel LOUD: unknown" },
		{ "-o /tmp/lt-rec-bad", LT_NONZERO,
		  "lowtrace: record: no command to run" },
		{ "--bogus -- true", LT_NONZERO,
		  "lowtrace: record: unknown option --bogus" },
	};
	char prefix[300];
	snprintf(prefix, sizeof(prefix), "%s/lowtrace record",
		 lt_test_build_dir());
	LT_ASSERT_RUN_ROWS(prefix, bad);
}

LT_TEST(test_record_traces_children_and_exec)
{
	const char *dir = lt_tmpdir("tree");
	char args[1024];
	int st;
	snprintf(args, sizeof(args),
		 "-o %s -- %s/tests/progs/forker %s/examples/fields", dir,
		 lt_test_build_dir(), lt_test_build_dir());
	char *out = record(args, &st);
	LT_ASSERT_RESULT(st, 0, out, "from 3 processes");
	free(out);
	out = bt(dir, 1);
	LT_ASSERT_EQ(lt_count_lines(out, "tree:hello"), 5);
	LT_ASSERT_EQ(lt_count_lines(out, "role = 1"), 3);
	LT_ASSERT_EQ(lt_count_lines(out, "demo:integers"), 2);
	free(out);
}

LT_TEST(test_record_discard_and_overwrite_channels_at_once)
{
	const char *dir = lt_tmpdir("modes");
	char args[1024];
	int st;
	snprintf(
		args, sizeof(args),
		"-o %s --channel flight:subbuf-size=4K,subbufs=4,mode=overwrite "
		"-e 'demo:integers@flight' -e 'demo:tick' -- "
		"%s/examples/fields 20000",
		dir, lt_test_build_dir());
	char *out = record(args, &st);
	LT_ASSERT_RESULT(st, 0, out, "Channel flight (overwrite)");
	free(out);
	out = bt(dir, 1);
	/* every tick streamed, only the newest integers kept */
	LT_ASSERT_EQ(lt_count_lines(out, "demo:tick"), 20000);
	int ints = lt_count_lines(out, "demo:integers");
	LT_ASSERT(ints > 20 && ints < 1000);
	LT_ASSERT_CONTAINS(out, "s8 = 51,"); /* the last: i = 19999 */
	LT_ASSERT_EQ(lt_count_lines(out, "demo:mixed"), 0);
	free(out);
}

static uint64_t read_u64(const char *path, int idx)
{
	uint64_t v[2] = { 0, 0 };
	int fd = open(path, O_RDONLY);
	if (fd >= 0) {
		if (read(fd, v, sizeof(v)) < 0)
			v[0] = v[1] = 0;
		close(fd);
	}
	return v[idx];
}

LT_TEST(test_record_keeps_every_committed_event_of_a_killed_process)
{
	const char *dir = lt_tmpdir("crash");
	char state[300], log[300];
	snprintf(state, sizeof(state), "%s.state", dir);
	snprintf(log, sizeof(log), "%s.log", dir);
	unlink(state);
	pid_t rec = fork();
	if (rec == 0) {
		char prog[256], lt[256];
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		snprintf(prog, sizeof(prog), "%s/tests/progs/burst",
			 lt_test_build_dir());
		snprintf(lt, sizeof(lt), "%s/lowtrace", lt_test_build_dir());
		/* room for every event even if the recorder never ran (a
		 * sanitizer build is slow): what is checked is what a crash
		 * keeps, not what a full buffer drops */
		execl(lt, lt, "record", "-o", dir, "--channel",
		      "default:subbuf-size=1M,subbufs=4", "--", prog, state,
		      (char *)NULL);
		_exit(126);
	}
	/* kill it in the middle of its bursts */
	for (int i = 0; i < 5000 && read_u64(state, 1) < 30000; i++) {
		struct timespec d = { 0, 1000000 };
		nanosleep(&d, NULL);
	}
	pid_t victim = (pid_t)read_u64(state, 0);
	LT_ASSERT_CMP(victim, >, 0);
	LT_ASSERT_EQ(kill(victim, SIGKILL), 0);
	int st;
	LT_ASSERT_EQ(waitpid(rec, &st, 0), rec);
	LT_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGKILL);
	uint64_t committed = read_u64(state, 1);
	LT_ASSERT_CMP(committed, >=, 30000);
	char *out = bt(dir, 0);
	uint8_t *seen = calloc(committed + 1, 1);
	uint64_t found = 0;
	for (const char *p = out; (p = strstr(p, "seq = ")); p += 6) {
		uint64_t v = strtoull(p + 6, NULL, 10);
		if (v < committed && !seen[v]) {
			seen[v] = 1;
			found++;
		}
	}
	printf("  killed after %llu committed events; %llu of them in the "
	       "trace\n",
	       (unsigned long long)committed, (unsigned long long)found);
	LT_ASSERT_EQ(found, committed);
	free(seen);
	free(out);
}

LT_TEST(test_record_full_disk_keeps_the_trace_readable)
{
	if (geteuid() != 0)
		LT_SKIP("mounting a small tmpfs needs root");
	const char *mnt = lt_tmpdir("full");
	if (mount("none", mnt, "tmpfs", 0, "size=96k") != 0)
		LT_SKIP("cannot mount tmpfs: %s", strerror(errno));
	char dir[300], args[1024];
	snprintf(dir, sizeof(dir), "%s/trace", mnt);
	snprintf(args, sizeof(args),
		 "-o %s -- %s/tests/progs/burst %s.state 200000", dir,
		 lt_test_build_dir(), mnt);
	int st;
	char *out = record(args, &st);
	/* the program ran to its end, unharmed */
	int ok = st == 0 && strstr(out, "No space left") &&
		 strstr(out, "packets not written");
	if (!ok) {
		umount(mnt);
		LT_FAIL("status %d, output:\n%s", st, out);
	}
	free(out);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' 2>&1 >/dev/null", dir);
	out = lt_run(cmd, &st);
	umount(mnt);
	if (st != 0)
		LT_FAIL("babeltrace2 cannot read the cut trace:\n%s", out);
	free(out);
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	for (int i = 0; i < 200; i++) {
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
		struct timespec d = { 0, 5000000 };
		nanosleep(&d, NULL);
	}
	LT_FAIL("cannot connect to %s", path);
}

LT_TEST(test_record_survives_garbage_on_its_socket)
{
	const char *run = lt_tmpdir("xdg");
	chmod(run, 0700);
	char dir[300], sock[300], log[300];
	snprintf(dir, sizeof(dir), "%s/trace", run);
	snprintf(sock, sizeof(sock), "%s/lowtrace/garbage.sock", run);
	snprintf(log, sizeof(log), "%s/log", run);
	pid_t rec = fork();
	if (rec == 0) {
		char lt[256];
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		setenv("XDG_RUNTIME_DIR", run, 1);
		snprintf(lt, sizeof(lt), "%s/lowtrace", lt_test_build_dir());
		execl(lt, lt, "record", "-o", dir, "--name", "garbage", "--",
		      "sleep", "1", (char *)NULL);
		_exit(126);
	}
	static char junk[70000];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 31 + 7);
	size_t sizes[] = { 1, 16, 24, 100, 4096, 65536 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int fd = connect_to(sock);
		send(fd, junk, sizes[i], MSG_NOSIGNAL);
		close(fd);
	}
	/* a well-formed header on a message of the wrong length */
	int fd = connect_to(sock);
	uint32_t hdr[4] = { 0x6c747270u, 1 | (1u << 16), 9999, 0 };
	send(fd, hdr, sizeof(hdr), MSG_NOSIGNAL);
	close(fd);
	int st;
	LT_ASSERT_EQ(waitpid(rec, &st, 0), rec);
	LT_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "cat '%s'", log);
	char *out = lt_run(cmd, NULL);
	LT_ASSERT_CONTAINS(out, "malformed message");
	LT_ASSERT_CONTAINS(out, "recorded 0 events");
	free(out);
	struct stat sb;
	snprintf(cmd, sizeof(cmd), "%s/metadata", dir);
	LT_ASSERT_EQ(stat(cmd, &sb), 0);
}

static uint64_t last_step(const char *out)
{
	uint64_t last = 0;
	for (const char *p = out; (p = strstr(p, "i = ")); p += 4)
		last = strtoull(p + 4, NULL, 10);
	return last;
}

LT_TEST(test_record_trigger_in_code_takes_a_snapshot)
{
	const char *dir = lt_tmpdir("trig");
	char args[1024], snap[400];
	int st;
	snprintf(args, sizeof(args),
		 "-o %s --channel ring:subbuf-size=4K,subbufs=4,mode=overwrite "
		 "-e 'trig:*@ring' -- %s/tests/progs/trig 100000",
		 dir, lt_test_build_dir());
	char *out = record(args, &st);
	LT_ASSERT_RESULT(st, 0, out, "1 snapshots, 1 triggers");
	free(out);
	snprintf(snap, sizeof(snap), "%s/snapshot-0", dir);
	out = bt(snap, 1);
	/* the newest events before the trigger, and the trigger itself */
	uint64_t last = last_step(out);
	LT_ASSERT(last >= 50000 && last < 51000);
	LT_ASSERT_CMP(lt_count_lines(out, "trig:step"), >, 50);
	free(out);
	/* the whole trace still ends with the last event */
	out = bt(dir, 1);
	LT_ASSERT_EQ(last_step(out), 99999);
	free(out);
}

LT_TEST(test_record_trigger_can_stop_recording)
{
	const char *dir = lt_tmpdir("trigstop");
	char args[1024];
	int st;
	snprintf(args, sizeof(args),
		 "-o %s --on-trigger boom=stop -- %s/tests/progs/trig 100000",
		 dir, lt_test_build_dir());
	char *out = record(args, &st);
	LT_ASSERT_RESULT(st, 0, out, "recording stopped (trigger boom");
	free(out);
	out = bt(dir, 1);
	uint64_t last = last_step(out);
	LT_ASSERT(last >= 50000 && last < 99999);
	LT_ASSERT_EQ(lt_count_lines(out, "lowtrace:trigger"), 1);
	free(out);
}

LT_TEST(test_status_snapshot_and_stop_reach_a_running_session)
{
	const char *run = lt_tmpdir("ctl");
	chmod(run, 0700);
	char dir[300], cmd[1200], log[300];
	snprintf(dir, sizeof(dir), "%s/trace", run);
	snprintf(log, sizeof(log), "%s/log", run);
	setenv("XDG_RUNTIME_DIR", run, 1);
	pid_t rec = fork();
	if (rec == 0) {
		char lt[256], prog[256];
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		snprintf(lt, sizeof(lt), "%s/lowtrace", lt_test_build_dir());
		snprintf(prog, sizeof(prog), "%s/tests/progs/trig",
			 lt_test_build_dir());
		execl(lt, lt, "record", "-o", dir, "--name", "ctl", "--channel",
		      "ring:subbuf-size=4K,subbufs=4,mode=overwrite", "-e",
		      "trig:*@ring", "--", prog, "1000", "3000", (char *)NULL);
		_exit(126);
	}
	int st = 1;
	char *out = NULL;
	for (int i = 0; i < 200 && st; i++) {
		free(out);
		snprintf(cmd, sizeof(cmd), "%s/lowtrace status ctl 2>&1",
			 lt_test_build_dir());
		out = lt_run(cmd, &st);
		if (st) {
			struct timespec d = { 0, 10000000 };
			nanosleep(&d, NULL);
		}
	}
	LT_ASSERT_RESULT(st, 0, out, "session ctl: recording");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s/lowtrace snapshot ctl 2>&1",
		 lt_test_build_dir());
	out = lt_run(cmd, &st);
	LT_ASSERT_RESULT(st, 0, out, "snapshot-");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s/lowtrace stop ctl 2>&1",
		 lt_test_build_dir());
	out = lt_run(cmd, &st);
	LT_ASSERT_RESULT(st, 0, out, "stopped");
	free(out);
	/* no session left to find once it is gone */
	LT_ASSERT_EQ(waitpid(rec, &st, 0), rec);
	LT_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(cmd, sizeof(cmd), "%s/lowtrace stop ctl 2>&1",
		 lt_test_build_dir());
	out = lt_run(cmd, &st);
	LT_ASSERT_RESULT(st, LT_NONZERO, out, "no session ctl");
	free(out);
	char snap[400];
	snprintf(snap, sizeof(snap), "%s/snapshot-1", dir);
	free(bt(snap, 1));
	free(bt(dir, 1));
}

LT_TEST(test_list_program_prints_its_events_without_running_main)
{
	char cmd[600];
	int st;
	snprintf(cmd, sizeof(cmd), "%s/lowtrace list %s/examples/fields 2>&1",
		 lt_test_build_dir(), lt_test_build_dir());
	char *out = lt_run(cmd, &st);
	LT_ASSERT_RESULT(st, 0, out,
			 "demo:mixed (WARNING): enum (3 labels) state, "
			 "float ratio, double value, string name");
	LT_ASSERT_CONTAINS(out, "uint16 hex u16");
	/* main() never ran: it would have said so */
	LT_ASSERT_NOT_CONTAINS(out, "emitted");
	free(out);
	snprintf(cmd, sizeof(cmd), "%s/lowtrace list /bin/true 2>&1",
		 lt_test_build_dir());
	out = lt_run(cmd, &st);
	LT_ASSERT_RESULT(st, LT_NONZERO, out, "defines no lowtrace events");
	free(out);
}
