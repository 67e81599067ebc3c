/* SPDX-License-Identifier: MIT */
/*
 * record.c - `lowtrace record`: run a command and trace it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "kernel/kernel.h"
#include "analysis/analysis.h"
#include "arch/arch.h"
#include "cli/explain.h"
#include "kernel/dynevent.h"
#include "probe/filter.h"
#include "probe/probe.h"
#include "recorder/preflight.h"
#include "recorder/recorder.h"

static const char usage[] =
	"usage: lowtrace record [OPTIONS] -- COMMAND [ARGS...]\n"
	"       lowtrace record [OPTIONS] -p PID[,PID...] [-- COMMAND [ARGS...]]\n"
	"       lowtrace record [OPTIONS] --all-apps\n"
	"\n"
	"Runs COMMAND with tracing set up and writes its trace (CTF 1.8).\n"
	"Processes COMMAND forks, and programs they exec, are traced too.\n"
	"A program that links liblowtrace and was started the ordinary way is\n"
	"attached with -p: recorded from then on as if started here, with what\n"
	"it forks or execs; at the end (Ctrl-C, `lowtrace stop`, its exit) it\n"
	"is detached and runs on as before, its tracepoints disabled.\n"
	"\n"
	"  -o DIR              trace directory (default ./lowtrace-DATE-TIME)\n"
	"  -e 'PATTERN[,...][@CHANNEL][ if FILTER]'\n"
	"                      events to record (default: all; PATTERN as in\n"
	"                      `lowtrace help patterns`); @CHANNEL sends them\n"
	"                      to that channel; FILTER keeps those whose fields\n"
	"                      match, e.g.\n"
	"                      'myapp:frame_done if late_us > 5000 && id != 3'\n"
	"                      (== != < <= > >=, && || ! and parentheses;\n"
	"                      numbers, \"strings\" with a `*` at the end,\n"
	"                      enum \"LABELS\": `lowtrace help conditions`)\n"
	"  --trigger 'PATTERN if FILTER -> snapshot|stop'\n"
	"                      a condition trigger: an event that matches acts\n"
	"                      as lt_trigger() would (once per hold-off; the\n"
	"                      event is recorded as -e says)\n"
	"  --loglevel LEVEL    only events of LEVEL or more severe (WARNING, ...)\n"
	"  -k EVENTS           kernel tracepoints, comma-separated patterns\n"
	"                      (sched:sched_switch,irq:*) or presets: sched, irq,\n"
	"                      syscalls, timer; needs root (perf_event_open)\n"
	"                      kprobe:FUNC, kretprobe:FUNC where the kernel has\n"
	"                      kprobe_events\n"
	"  --kernel-backend auto|bpf|perf\n"
	"                      how -k takes the kernel's events: eBPF programs\n"
	"                      (filtered in the kernel) or perf_event_open;\n"
	"                      auto (default): eBPF where the kernel allows it\n"
	"  -u 'PROVIDER:NAME[(NAME:TYPE,...)],...'\n"
	"                      USDT markers of COMMAND, of its libraries and of\n"
	"                      -p PID's files, patterns (python:function__*);\n"
	"                      fields named and typed by the list, else by the\n"
	"                      known signatures (PostgreSQL, Python), else\n"
	"                      arg0.. by the marker; TYPE: string, s8..s64,\n"
	"                      u8..u64, x32, x64 (`lowtrace list --probes`)\n"
	"  --probe 'BIN:FUNC[(NAME:TYPE,...)]'  a uprobe on a function, its\n"
	"                      arguments in the calling convention's registers;\n"
	"  --probe 'BIN:FUNC%return[(ret:TYPE)]'  on its return, with its value\n"
	"  -p PID[,PID...]     also record PID and what it forks from now on:\n"
	"                      its events if it links liblowtrace (attached;\n"
	"                      refused if another user's, or if started with\n"
	"                      LOWTRACE_ATTACH=0), -k, -u and --probe's else;\n"
	"                      without COMMAND, until PID exits, Ctrl-C or\n"
	"                      `lowtrace stop`\n"
	"  --all-apps          attach every program of this user (root: of\n"
	"                      every user) that links liblowtrace, running or\n"
	"                      started while recording (`lowtrace list --apps`\n"
	"                      shows them)\n"
	"  --buffers per-user|per-process\n"
	"                      one set of buffers shared by the processes of\n"
	"                      each user, its memory the same for 1 or 100\n"
	"                      processes (each event carries its vpid), or a\n"
	"                      set per process; default per-user with\n"
	"                      --all-apps or several -p PIDs, else per-process\n"
	"  --all               kernel events of every process, not only of\n"
	"                      COMMAND's process tree\n"
	"  --channel NAME:subbuf-size=SIZE,subbufs=N,mode=discard|overwrite\n"
	"                      a channel (or the \"default\" one's geometry);\n"
	"                      sizes take K and M; powers of two.  \"kernel\"\n"
	"                      is the kernel events' channel (default 4 x 256K\n"
	"                      per CPU): mode=overwrite keeps the newest in\n"
	"                      memory for snapshots, beside the programs'\n"
	"  --switch-timer MS   flush partial sub-buffers every MS (default 1000)\n"
	"  --name NAME         session name, for `lowtrace stop NAME`\n"
	"  --on-trigger NAME=snapshot|stop\n"
	"                      what lt_trigger(\"NAME\") does (default snapshot,\n"
	"                      into DIR/snapshot-N, of the overwrite channels,\n"
	"                      the kernel's included)\n"
	"  --trigger-holdoff MS  ignore a trigger repeated within MS (default 1000;\n"
	"                      for --trigger, applied in the traced process)\n"
	"  --explain           explain each snapshot as soon as it is written: the\n"
	"                      verdict of `analyze latency` for the anchor that\n"
	"                      fired (a --trigger's last matching event), printed\n"
	"                      with the snapshot's directory\n"
	"  --anchor 'EVENT[ if CONDITION]'  with --explain, what a trigger without\n"
	"                      a condition (lt_trigger(), `lowtrace snapshot`) is\n"
	"                      explained by (default its lowtrace:trigger event)\n"
	"\n"
	"Filters are checked before COMMAND runs, against the events of its\n"
	"executable and the libraries it links (COMMAND is started once to list\n"
	"them, and exits before main); events of libraries it opens later with\n"
	"dlopen are checked as they load, and a filter that does not fit one is\n"
	"refused with a message.\n"
	"\n"
	"While it runs, `lowtrace status`, `lowtrace snapshot` and `lowtrace stop`\n"
	"act on the session from another terminal.\n"
	"\n"
	"Exits with COMMAND's exit status (128+N if a signal N ended it).\n";

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s)
		return -1;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (*end)
		return -1;
	*out = v;
	return 0;
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static int find_channel(struct lt_rec_options *o, const char *name)
{
	for (int i = 0; i < o->nchannels; i++)
		if (strcmp(o->channels[i].name, name) == 0)
			return i;
	return -1;
}

/* NAME:key=value,key=value */
static int parse_channel(struct lt_rec_options *o, const char *arg)
{
	char buf[512], *save = NULL;
	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		return lt_cli_error("record", "--channel %.40s...: too long",
				    arg);
	char *colon = strchr(buf, ':');
	if (colon)
		*colon = 0;
	const char *name = buf;
	if (!*name || strlen(name) >= LT_PROTO_NAME || strpbrk(name, "/_ "))
		return lt_cli_error("record",
				    "--channel %s: a name of letters, digits "
				    "and '-' is needed before ':'",
				    arg);
	struct lt_rec_channel *c = &o->kernel_channel;
	if (strcmp(name, "kernel") != 0) {
		int i = find_channel(o, name);
		if (i < 0) {
			if (o->nchannels >= LT_PROTO_MAX_CHANNELS)
				return lt_cli_error("record",
						    "at most %d channels",
						    LT_PROTO_MAX_CHANNELS);
			i = o->nchannels++;
			o->channels[i] = o->channels[0];
			snprintf(o->channels[i].name, LT_PROTO_NAME, "%s",
				 name);
		}
		c = &o->channels[i];
	}
	c->given = 1;
	for (char *kv = colon ? strtok_r(colon + 1, ",", &save) : NULL; kv;
	     kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		uint64_t v = 0;
		if (!eq)
			goto bad;
		*eq++ = 0;
		if (strcmp(kv, "subbuf-size") == 0) {
			if (parse_size(eq, &v) || !is_pow2(v) || v < 4096 ||
			    v > (1ull << 30))
				return lt_cli_error("record",
						    "--channel %s: subbuf-size "
						    "must be a power of two "
						    "from 4K to 1024M",
						    arg);
			c->subbuf_size = v;
		} else if (strcmp(kv, "subbufs") == 0) {
			if (parse_size(eq, &v) || !is_pow2(v) || v < 2 ||
			    v > 4096)
				return lt_cli_error(
					"record",
					"--channel %s: subbufs must "
					"be a power of two from 2 "
					"to 4096",
					arg);
			c->n_subbufs = (uint32_t)v;
		} else if (strcmp(kv, "mode") == 0) {
			if (strcmp(eq, "discard") == 0)
				c->overwrite = 0;
			else if (strcmp(eq, "overwrite") == 0)
				c->overwrite = 1;
			else
				return lt_cli_error("record",
						    "--channel %s: mode is "
						    "discard or overwrite",
						    arg);
		} else {
			goto bad;
		}
	}
	return 0;
bad:
	return lt_cli_error("record",
			    "--channel %s: expected NAME:subbuf-size=SIZE,"
			    "subbufs=N,mode=discard|overwrite",
			    arg);
}

/* -p PID[,PID...]: the first is the kernel channel's (attach_pid) */
static int parse_pids(struct lt_rec_options *o, const char *v)
{
	const char *p = v;
	while (*p) {
		char *end;
		long pid = strtol(p, &end, 10);
		if ((*end && *end != ',') || end == p || pid <= 0 ||
		    pid > 0x7fffffff)
			return lt_cli_error("record", "-p %s: a process id", v);
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			return lt_cli_error("record", "-p %s: no such process",
					    v);
		if (o->npids >= 64)
			return lt_cli_error("record",
					    "-p: at most 64 processes");
		o->pids[o->npids++] = (int)pid;
		p = *end ? end + 1 : end;
	}
	if (!o->npids)
		return lt_cli_error("record", "-p %s: a process id", v);
	o->attach_pid = o->pids[0];
	return 0;
}

struct pending_rule {
	char text[LT_PROTO_PATTERN + LT_PROTO_NAME + 2];
};

static int add_rules(struct lt_rec_options *o, const char *arg, int level)
{
	char buf[1024], *save = NULL, err[600];
	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		return lt_cli_error("record", "-e %.40s...: too long", arg);
	const char *filter = "";
	char *cond = strstr(buf, " if ");
	if (cond) {
		*cond = 0;
		filter = cond + 4;
		if (strlen(filter) >= LT_PROTO_FILTER)
			return lt_cli_error("record",
					    "-e %.40s...: filter longer than "
					    "%d bytes",
					    arg, LT_PROTO_FILTER - 1);
		if (lt_filter_check_syntax(filter, err, sizeof(err)))
			return lt_cli_error("record",
					    "-e %s: %s (see `lowtrace help "
					    "record`)",
					    arg, err);
	}
	int ch = 0;
	char *at = strrchr(buf, '@');
	if (at) {
		*at = 0;
		if (strcmp(at + 1, "kernel") == 0)
			return lt_cli_error("record",
					    "-e %s: the kernel channel holds "
					    "the kernel's events (-k, -u, "
					    "--probe); send these to another "
					    "channel",
					    arg);
		ch = find_channel(o, at + 1);
		if (ch < 0)
			return lt_cli_error("record",
					    "-e %s: no channel '%s' (define "
					    "it first with --channel %s:...)",
					    arg, at + 1, at + 1);
	}
	for (char *p = strtok_r(buf, ",", &save); p;
	     p = strtok_r(NULL, ",", &save)) {
		if (o->nrules >= LT_PROTO_MAX_RULES)
			return lt_cli_error("record", "at most %d patterns",
					    LT_PROTO_MAX_RULES);
		if (!*p || strlen(p) >= LT_PROTO_PATTERN || strchr(p, ' '))
			return lt_cli_error("record",
					    "-e %s: '%s' is not an event "
					    "pattern (PROVIDER:EVENT, with * "
					    "wildcards)",
					    arg, p);
		struct lt_proto_rule *r = &o->rules[o->nrules++];
		snprintf(r->pattern, sizeof(r->pattern), "%s", p);
		snprintf(r->filter, sizeof(r->filter), "%s", filter);
		r->loglevel_max = level;
		r->channel = (uint32_t)ch;
	}
	return 0;
}

/* --trigger 'PATTERN if FILTER -> snapshot|stop' */
static int add_trigger(struct lt_rec_options *o, const char *arg, int level)
{
	char buf[1024], err[600];
	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		return lt_cli_error("record", "--trigger %.40s...: too long",
				    arg);
	char *arrow = strstr(buf, "->");
	char *cond = strstr(buf, " if ");
	if (!arrow || !cond || cond > arrow)
		return lt_cli_error("record",
				    "--trigger %s: expected 'PATTERN if "
				    "FILTER -> snapshot' (or -> stop)",
				    arg);
	*arrow = 0;
	*cond = 0;
	const char *action = arrow + 2, *filter = cond + 4;
	while (*action == ' ')
		action++;
	for (char *e = arrow - 1; e > cond && *e == ' '; e--)
		*e = 0;
	if (strcmp(action, "snapshot") != 0 && strcmp(action, "stop") != 0)
		return lt_cli_error("record",
				    "--trigger %s: the action is snapshot or "
				    "stop",
				    arg);
	if (!*buf || strlen(buf) >= LT_PROTO_PATTERN || strchr(buf, ' ') ||
	    strchr(buf, ','))
		return lt_cli_error("record",
				    "--trigger %s: '%s' is not an event "
				    "pattern (PROVIDER:EVENT, with * "
				    "wildcards)",
				    arg, buf);
	if (strlen(filter) >= LT_PROTO_FILTER ||
	    lt_filter_check_syntax(filter, err, sizeof(err)))
		return lt_cli_error("record", "--trigger %s: %s", arg,
				    strlen(filter) >= LT_PROTO_FILTER ?
					    "filter too long" :
					    err);
	if (o->nrules >= LT_PROTO_MAX_RULES || o->non_trigger >= 16)
		return lt_cli_error("record",
				    "at most 16 --trigger and --on-trigger");
	struct lt_proto_rule *r = &o->rules[o->nrules];
	snprintf(r->pattern, sizeof(r->pattern), "%s", buf);
	snprintf(r->filter, sizeof(r->filter), "%s", filter);
	/* the trigger's name: its pattern, numbered if that is taken */
	char name[LT_PROTO_NAME + 16];
	snprintf(name, sizeof(name), "%.40s", buf);
	for (int i = 0; i < o->nrules; i++)
		if (strcmp(o->rules[i].trigger, name) == 0)
			snprintf(name, sizeof(name), "%.40s#%d", buf,
				 o->nrules);
	memcpy(r->trigger, name, sizeof(r->trigger));
	r->trigger[sizeof(r->trigger) - 1] = 0;
	r->loglevel_max = level;
	r->holdoff_ms = o->trigger_holdoff_ms;
	o->nrules++;
	snprintf(o->on_trigger[o->non_trigger++], sizeof(o->on_trigger[0]),
		 "%.60s=%.8s", name, action);
	return 0;
}

/* A --channel that nothing of the recording writes to is a mistake
 * (a misspelt name, an -e without @NAME): refused, not left empty. */
static int check_channels_used(const struct lt_rec_options *o)
{
	for (int i = 0; i < o->nchannels; i++) {
		int used = strcmp(o->channels[i].name, "default") == 0;
		for (int r = 0; r < o->nrules && !used; r++)
			used = o->rules[r].channel == (uint32_t)i &&
			       !o->rules[r].trigger[0];
		if (!used)
			return lt_cli_error(
				"record",
				"--channel %s: no -e sends events to it (add "
				"@%s to a pattern, as in -e 'myapp:*@%s', or "
				"drop the --channel)",
				o->channels[i].name, o->channels[i].name,
				o->channels[i].name);
	}
	if (o->kernel_channel.given && !(o->nkernel || o->nusdt || o->nprobes))
		return lt_cli_error("record",
				    "--channel kernel: this recording has no "
				    "kernel events (add -k EVENTS, -u or "
				    "--probe)");
	return 0;
}

static void human(uint64_t b, char *out, size_t cap)
{
	if (b >= 10ull << 20)
		snprintf(out, cap, "%.1f MiB", (double)b / (1 << 20));
	else if (b >= 10ull << 10)
		snprintf(out, cap, "%.1f KiB", (double)b / 1024);
	else
		snprintf(out, cap, "%llu bytes", (unsigned long long)b);
}

static void summary(const struct lt_rec_options *o,
		    const struct lt_rec_result *r)
{
	uint64_t ev = 0, bytes = 0;
	char hb[32];
	for (int i = 0; i < o->nchannels; i++) {
		ev += r->ch[i].events;
		bytes += r->ch[i].bytes;
	}
	ev += r->kernel_events;
	bytes += r->kernel_bytes;
	human(bytes, hb, sizeof(hb));
	fprintf(stderr,
		"lowtrace: recorded %llu events (%s) from %d process%s into "
		"%s.",
		(unsigned long long)ev, hb, r->processes,
		r->processes == 1 ? "" : "es", o->dir);
	if (r->per_user)
		fprintf(stderr, " Buffers per user: %d set%s.", r->users,
			r->users == 1 ? "" : "s");
	for (int i = 0; i < o->nchannels; i++) {
		const struct lt_consumer_stats *c = &r->ch[i];
		const struct lt_rec_channel *d = &o->channels[i];
		fprintf(stderr,
			" Channel %s (%s): %llu events in %llu packet%s",
			d->name, d->overwrite ? "overwrite" : "discard",
			(unsigned long long)c->events,
			(unsigned long long)c->packets,
			c->packets == 1 ? "" : "s");
		if (c->lost_full)
			fprintf(stderr,
				", %llu lost in full buffers (--channel "
				"%s:subbufs=%u or subbuf-size=%lluK would "
				"have avoided it)",
				(unsigned long long)c->lost_full, d->name,
				d->n_subbufs * 4,
				(unsigned long long)(d->subbuf_size >> 10) * 4);
		if (c->lost_crash)
			fprintf(stderr,
				", %llu torn by a process that died while "
				"writing them",
				(unsigned long long)c->lost_crash);
		if (c->lost_disk)
			fprintf(stderr,
				", %llu packets not written (disk full or "
				"write error)",
				(unsigned long long)c->lost_disk);
		fprintf(stderr, ".");
	}
	if (r->kernel_channel) {
		const struct lt_rec_channel *k = &o->kernel_channel;
		char sz[32];
		if (k->subbuf_size % (1 << 20) == 0)
			snprintf(sz, sizeof(sz), "%lluM",
				 (unsigned long long)(k->subbuf_size >> 20));
		else
			snprintf(sz, sizeof(sz), "%lluK",
				 (unsigned long long)(k->subbuf_size >> 10));
		fprintf(stderr,
			" Channel kernel (%s, %u x %s per CPU): %llu events, "
			"%llu packet%s %s",
			k->overwrite ? "overwrite" : "discard", k->n_subbufs,
			sz, (unsigned long long)r->kernel_events,
			(unsigned long long)r->kernel_packets,
			r->kernel_packets == 1 ? "" : "s",
			k->overwrite ? "kept (the newest)" : "written");
		if (r->kernel_lost)
			fprintf(stderr,
				", %llu lost (the perf rings or the kernel "
				"channel's buffers filled: trace fewer kernel "
				"events)",
				(unsigned long long)r->kernel_lost);
		fprintf(stderr, ".");
	}
	if (r->snapshots || r->triggers)
		fprintf(stderr, " %d snapshots, %d triggers (%d held off).",
			r->snapshots, r->triggers, r->triggers_held);
	fprintf(stderr, "\n");
	for (int i = 0; i < o->nrules; i++)
		if (r->patterns_unmatched & (1ull << i))
			fprintf(stderr,
				"lowtrace: record: -e %s matched no event of "
				"the traced programs (`lowtrace view` on the "
				"trace lists the events they have)\n",
				o->rules[i].pattern);
}

static int record_run(int argc, char **argv)
{
	static struct lt_rec_options o;
	static struct lt_rec_result res;
	char defdir[64], name[64];
	int level = LT_LOGLEVEL_ALL, i;
	const char *eargs[LT_PROTO_MAX_RULES], *targs[16];
	int ne = 0, nt = 0, explain = 0;
	const char *anchor = NULL;
	struct lt_explain *ex = NULL;

#ifdef LT_ARCH_CAS16_LOCKED
	/* the ring's compare-and-swap is a lock of one process here, and a
	 * recorder shares the buffers with the traced processes */
	(void)argc;
	(void)argv;
	return lt_cli_error("record",
			    "not available on the " LT_ARCH_NAME " path"
			    ": its 16-byte compare-and-swap is a lock private "
			    "to each process, and a recording shares buffers "
			    "between processes (docs/portability.md); trace "
			    "within the program with LOWTRACE_TRACE=DIR");
#endif
	memset(&o, 0, sizeof(o));
	o.nchannels = 1;
	snprintf(o.channels[0].name, LT_PROTO_NAME, "default");
	o.channels[0].subbuf_size = 256 * 1024;
	o.channels[0].n_subbufs = 8;
	snprintf(o.kernel_channel.name, LT_PROTO_NAME, "kernel");
	o.kernel_channel.subbuf_size = 256 * 1024;
	o.kernel_channel.n_subbufs = 4;
	o.switch_ms = 1000;
	o.trigger_holdoff_ms = 1000;
	/* options come in pairs: OPTION VALUE */
	for (i = 1; i < argc; i += 2) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-')
			break;
		if (strcmp(a, "--all") == 0 || strcmp(a, "--explain") == 0) {
			if (a[2] == 'a')
				o.kernel_all = 1;
			else
				explain = 1;
			i--; /* a flag: no value */
			continue;
		}
		if (strcmp(a, "--all-apps") == 0) {
			o.all_apps = 1;
			i--;
			continue;
		}
		if (!v)
			return lt_cli_error("record", "%s needs a value", a);
		if (strcmp(a, "-o") == 0) {
			o.dir = v;
		} else if (strcmp(a, "--anchor") == 0) {
			struct lt_anchor an;
			char err[256];
			if (lt_anchor_parse(v, &an, err, sizeof(err))) {
				lt_cli_error("record", "--anchor %s: %s", v,
					     err);
				return 2;
			}
			anchor = v;
		} else if (strcmp(a, "-e") == 0) {
			if (ne < LT_PROTO_MAX_RULES)
				eargs[ne++] = v;
		} else if (strcmp(a, "-k") == 0) {
			char *list = strdup(v), *save = NULL;
			for (char *p = strtok_r(list, ",", &save); p;
			     p = strtok_r(NULL, ",", &save)) {
				if (o.nkernel >= 64)
					return lt_cli_error("record",
							    "at most 64 -k "
							    "patterns");
				o.kernel[o.nkernel++] = strdup(p);
			}
			free(list);
		} else if (strcmp(a, "-u") == 0 || strcmp(a, "--probe") == 0) {
			int is_u = a[1] == 'u';
			const char **to = is_u ? o.usdt : o.probes;
			int *n = is_u ? &o.nusdt : &o.nprobes;
			*n += lt_dyn_split(strdup(v), to + *n, 64 - *n);
			if (*n >= 64)
				return lt_cli_error("record",
						    "at most 64 %s items", a);
		} else if (strcmp(a, "-p") == 0) {
			if (parse_pids(&o, v))
				return 2;
		} else if (strcmp(a, "--trigger") == 0) {
			if (nt >= 16)
				return lt_cli_error("record",
						    "at most 16 --trigger");
			targs[nt++] = v;
		} else if (strcmp(a, "--loglevel") == 0) {
			level = lt_probe_loglevel_parse(v);
			if (level < 0)
				return lt_cli_error("record",
						    "--loglevel %s: unknown "
						    "(EMERG ... WARNING, INFO, "
						    "DEBUG)",
						    v);
		} else if (strcmp(a, "--channel") == 0) {
			if (parse_channel(&o, v))
				return 2;
		} else if (strcmp(a, "--kernel-backend") == 0) {
			if (strcmp(v, "auto") == 0)
				o.kernel_backend = LT_KBACKEND_AUTO;
			else if (strcmp(v, "bpf") == 0)
				o.kernel_backend = LT_KBACKEND_BPF;
			else if (strcmp(v, "perf") == 0)
				o.kernel_backend = LT_KBACKEND_PERF;
			else
				return lt_cli_error(
					"record",
					"--kernel-backend %s: auto, "
					"bpf or perf",
					v);
		} else if (strcmp(a, "--buffers") == 0) {
			if (strcmp(v, "per-user") == 0)
				o.buffers = LT_BUFFERS_PER_USER;
			else if (strcmp(v, "per-process") == 0)
				o.buffers = LT_BUFFERS_PER_PROCESS;
			else
				return lt_cli_error("record",
						    "--buffers %s: per-user or "
						    "per-process",
						    v);
		} else if (strcmp(a, "--switch-timer") == 0) {
			char *end;
			long ms = strtol(v, &end, 10);
			if (*end || ms < 1 || ms > 3600000)
				return lt_cli_error("record",
						    "--switch-timer %s: "
						    "milliseconds, 1 or more",
						    v);
			o.switch_ms = (unsigned)ms;
		} else if (strcmp(a, "--name") == 0) {
			if (!*v || strlen(v) > 40 || strpbrk(v, "/ "))
				return lt_cli_error(
					"record",
					"--name %s: up to 40 "
					"characters, no '/' or space",
					v);
			o.session_name = v;
		} else if (strcmp(a, "--on-trigger") == 0) {
			const char *eq = strchr(v, '=');
			if (!eq || eq == v || eq - v >= LT_PROTO_NAME ||
			    (strcmp(eq + 1, "snapshot") != 0 &&
			     strcmp(eq + 1, "stop") != 0))
				return lt_cli_error(
					"record",
					"--on-trigger %s: expected "
					"NAME=snapshot or NAME=stop",
					v);
			if (o.non_trigger >= 16)
				return lt_cli_error("record",
						    "at most 16 --on-trigger");
			snprintf(o.on_trigger[o.non_trigger++],
				 sizeof(o.on_trigger[0]), "%s", v);
		} else if (strcmp(a, "--trigger-holdoff") == 0) {
			char *end;
			long ms = strtol(v, &end, 10);
			if (*end || ms < 0 || ms > 3600000)
				return lt_cli_error("record",
						    "--trigger-holdoff %s: "
						    "milliseconds",
						    v);
			o.trigger_holdoff_ms = (unsigned)ms;
		} else {
			lt_cli_error("record", "unknown option %s", a);
			fputs(usage, stderr);
			return 2;
		}
	}
	if (i >= argc && !o.attach_pid && !o.all_apps) {
		lt_cli_error("record", "no command to run (put it after --)");
		return 2;
	}
	o.argv = i < argc ? argv + i : NULL;
	/* patterns after channels, so that @CHANNEL may name any of them */
	for (int k = 0; k < ne; k++)
		if (add_rules(&o, eargs[k], level))
			return 2;
	int user_rules = o.nrules; /* whose misses are worth a warning */
	if (!o.nrules)
		add_rules(&o, "*", level);
	/* lt_trigger()'s event is always kept */
	add_rules(&o, "lowtrace:trigger", LT_LOGLEVEL_ALL);
	for (int k = 0; k < nt; k++)
		if (add_trigger(&o, targs[k], level))
			return 2;
	if (check_channels_used(&o))
		return 2;
	/* a filter that does not fit the program's events stops here */
	if (o.argv && lt_preflight_check(o.argv, o.rules, o.nrules))
		return 2;
	if (!o.dir) {
		time_t t = time(NULL);
		struct tm tm;
		localtime_r(&t, &tm);
		strftime(defdir, sizeof(defdir), "lowtrace-%Y%m%d-%H%M%S", &tm);
		o.dir = defdir;
	}
	int made_dir = mkdir(o.dir, 0755) == 0;
	if (!made_dir && errno != EEXIST)
		return lt_cli_error("record", "cannot create %s: %s", o.dir,
				    strerror(errno));
	if (!o.session_name) {
		const char *b = strrchr(o.dir, '/');
		b = b && b[1] ? b + 1 : o.dir;
		snprintf(name, sizeof(name), "%.40s-%d", b, (int)getpid());
		o.session_name = name;
	}
	if (anchor && !explain) {
		lt_cli_error("record", "--anchor goes with --explain");
		return 2;
	}
	if (explain) {
		ex = lt_explain_new(&o, anchor);
		if (!ex)
			return lt_cli_error("record", "out of memory");
		o.on_snapshot = lt_explain_snapshot;
		o.on_snapshot_arg = ex;
	}
	int rc = lt_record_run(&o, &res);
	lt_explain_finish(ex);
	/* a run refused before it wrote anything leaves no empty directory
	 * (rmdir() removes none that holds a file) */
	if (rc && made_dir)
		rmdir(o.dir);
	if (rc && res.exit_status == 0)
		return 1;
	o.nrules = user_rules;
	summary(&o, &res);
	if (res.attached_exited)
		fprintf(stderr,
			"lowtrace: record: process %d exited; the trace ends "
			"there\n",
			o.attach_pid);
	return res.exit_status;
}

LT_CLI_VERB(record_verb, .name = "record",
	    .summary = "run a command and record its trace", .usage = usage,
	    .run = record_run)
