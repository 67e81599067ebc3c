/* SPDX-License-Identifier: MIT */
/*
 * snapshot.c - snapshots (DIR/snapshot-N, a trace of its own of the
 * overwrite channels' newest sub-buffers), and what lt_trigger("NAME")
 * in a traced process does: a snapshot, or the end of the recording
 * (--on-trigger), unless the trigger is held off.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "recorder/rec.h"
#include "recorder/recorder.h"

/*
 * DIR/snapshot-N: the newest sub-buffers of every overwrite channel of
 * every process and of an overwrite kernel channel (the current partial
 * ones flushed), as a trace of its own, on one timeline.
 */
int rec_take_snapshot(struct rec *R, const char *why, const char *trigger,
		      char *out, size_t cap)
{
	char dir[PATH_MAX];
	int packets = 0, rc;

	snprintf(dir, sizeof(dir), "%s/snapshot-%d", R->o->dir,
		 R->res->snapshots);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	rec_refresh_users(R);
	if (R->kern)
		rec_kernel_snapshot(R);
	packets = lt_consumer_snapshot(&R->cons, dir);
	rc = rec_write_metadata_to(R, dir, 1);
	if (rc)
		return rc;
	R->res->snapshots++;
	snprintf(out, cap, "snapshot %s: %d packets (%s)", dir, packets, why);
	fprintf(stderr, "lowtrace: %s\n", out);
	if (R->o->on_snapshot)
		R->o->on_snapshot(R->o->on_snapshot_arg, dir, trigger);
	return 0;
}

static void trigger_reply(struct rproc *p, int status)
{
	struct lt_msg_reply rep;
	memset(&rep, 0, sizeof(rep));
	lt_proto_init(&rep.h, LT_MSG_REPLY, sizeof(rep));
	rep.status = status;
	lt_proto_send(p->fd, &rep, sizeof(rep), NULL, 0);
}

/* lt_trigger("NAME") in a traced process: its action, unless held off. */
static int on_trigger_act(struct rec *R, struct rproc *p,
			  const struct lt_msg_trigger *m)
{
	char why[160], out[PATH_MAX + 64];
	const char *action = "snapshot";

	if (!lt_proto_str_ok(m->name, sizeof(m->name)))
		return -EINVAL;
	R->res->triggers++;
	for (int i = 0; i < R->o->non_trigger; i++) {
		const char *t = R->o->on_trigger[i];
		size_t n = strlen(m->name);
		if (strncmp(t, m->name, n) == 0 && t[n] == '=')
			action = t + n + 1;
	}
	int k;
	for (k = 0; k < R->nheld; k++)
		if (strcmp(R->held[k].name, m->name) == 0)
			break;
	if (k < R->nheld &&
	    rec_now_ms() - R->held[k].last_ms < R->o->trigger_holdoff_ms) {
		R->res->triggers_held++;
		return -EBUSY;
	}
	if (k == R->nheld && R->nheld < 32)
		snprintf(R->held[R->nheld++].name, LT_PROTO_NAME, "%s",
			 m->name);
	if (k < R->nheld)
		R->held[k].last_ms = rec_now_ms();
	snprintf(why, sizeof(why), "trigger %s in process %d", m->name, p->pid);
	if (strcmp(action, "stop") == 0) {
		R->stop(R, why);
		return 0;
	}
	if (R->stopped)
		return -EINVAL;
	int rc = rec_take_snapshot(R, why, m->name, out, sizeof(out));
	if (rc)
		fprintf(stderr, "lowtrace: record: snapshot failed: %s\n",
			strerror(-rc));
	return rc;
}

/* The traced thread waits for the reply: a snapshot holds the events
 * just before its trigger. */
void rec_on_trigger(struct rec *R, struct rproc *p,
		    const struct lt_msg_trigger *m)
{
	int st = on_trigger_act(R, p, m);
	trigger_reply(p, st);
}
