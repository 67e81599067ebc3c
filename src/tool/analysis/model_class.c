/* SPDX-License-Identifier: MIT */
/*
 * model_class.c - which events the trace model reads, and which of their
 * fields: a class's kind from its name (tracefs's and lttng-modules's
 * names, and lttng-modules's system call events, each call's number from
 * its name), the fields the kind needs by their names, and how each is
 * loaded (an integer of 1, 2, 4 or 8 bytes in place, anything else
 * through lt_event_field()), decided once per class.  Also the lookups by
 * name the analyses make: lt_reader_has_event() and lt_event_int().
 */
#include "analysis/model.h"
#include "analysis/model_int.h"
#include "analysis/analysis.h"

#include <errno.h>
#include <string.h>

/* Each field's names, the first found taken: tracefs's (perf) and
 * lttng-modules's; LTTng's state dump has both tid and pid (the
 * process), so tid goes first. */
static const char *const field_names[F_NFIELDS][2] = {
	{ "common_tid", "tid" }, /* "tid": LTTng's context */
	{ "common_tgid", NULL },
	{ "prev_comm", NULL },
	{ "prev_pid", "prev_tid" },
	{ "prev_state", NULL },
	{ "next_comm", NULL },
	{ "next_pid", "next_tid" },
	{ "comm", NULL },
	{ "tid", "pid" },
	{ "target_cpu", NULL },
	{ "irq", NULL },
	{ "vec", NULL },
	{ "id", NULL },
	{ "name", NULL },
	{ "pid", NULL },
};

static const struct {
	const char *name;
	uint8_t kind;
} kinds[] = {
	{ "sched:sched_switch", LT_KEV_SWITCH },
	{ "sched:sched_waking", LT_KEV_WAKING },
	{ "sched:sched_wakeup", LT_KEV_WAKEUP },
	{ "sched:sched_wakeup_new", LT_KEV_WAKEUP_NEW },
	{ "irq:irq_handler_entry", LT_KEV_IRQ_ENTRY },
	{ "irq:irq_handler_exit", LT_KEV_IRQ_EXIT },
	{ "irq:softirq_entry", LT_KEV_SOFTIRQ_ENTRY },
	{ "irq:softirq_exit", LT_KEV_SOFTIRQ_EXIT },
	{ "raw_syscalls:sys_enter", LT_KEV_SYS_ENTER },
	{ "raw_syscalls:sys_exit", LT_KEV_SYS_EXIT },
	/* lttng-modules's names */
	{ "sched_switch", LT_KEV_SWITCH },
	{ "sched_waking", LT_KEV_WAKING },
	{ "sched_wakeup", LT_KEV_WAKEUP },
	{ "sched_wakeup_new", LT_KEV_WAKEUP_NEW },
	{ "irq_handler_entry", LT_KEV_IRQ_ENTRY },
	{ "irq_handler_exit", LT_KEV_IRQ_EXIT },
	{ "softirq_entry", LT_KEV_SOFTIRQ_ENTRY },
	{ "softirq_exit", LT_KEV_SOFTIRQ_EXIT },
	{ "exit_syscall", LT_KEV_SYS_EXIT }, /* LTTng before 2.6 */
	{ "lttng_statedump_process_state", LT_KEV_THREAD_NAME },
};

/* lttng-modules's system call events: syscall_entry_NAME,
 * compat_syscall_entry_NAME, syscall_exit_NAME and the like, and before
 * LTTng 2.6 sys_NAME (entries; exit_syscall above). */
static uint8_t lttng_syscall_kind(const char *name, const char **sys)
{
	static const struct {
		const char *prefix;
		uint8_t kind;
	} pre[] = {
		{ "syscall_entry_", LT_KEV_SYS_ENTER },
		{ "compat_syscall_entry_", LT_KEV_SYS_ENTER },
		{ "syscall_exit_", LT_KEV_SYS_EXIT },
		{ "compat_syscall_exit_", LT_KEV_SYS_EXIT },
		{ "sys_", LT_KEV_SYS_ENTER },
	};
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		size_t n = strlen(pre[i].prefix);
		if (!strncmp(name, pre[i].prefix, n) && name[n]) {
			*sys = name + n;
			return pre[i].kind;
		}
	}
	return LT_KEV_OTHER;
}

/*
 * The x86_64 number of the system call called name, or -1: the names of
 * 32-bit architectures' variants of a call are taken as the call's
 * (stat64 as stat, mmap2 as mmap, ...).
 */
static int32_t sys_nr_of(const char *name)
{
	static const char *const alias[][2] = {
		{ "stat64", "stat" },
		{ "fstat64", "fstat" },
		{ "lstat64", "lstat" },
		{ "fcntl64", "fcntl" },
		{ "mmap2", "mmap" },
		{ "sync_file_range2", "sync_file_range" },
		{ "arm_fadvise64_64", "fadvise64" },
		{ "fstatat64", "newfstatat" },
		{ "_llseek", "lseek" },
		{ "llseek", "lseek" },
	};
	char nb[32];
	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (!strcmp(name, alias[i][0]))
			name = alias[i][1];
	for (int64_t nr = 0; nr < 1024; nr++)
		if (!strcmp(lt_syscall_name(nr, nb, sizeof(nb)), name))
			return (int32_t)nr;
	return -1;
}

/* The kind a class's name gives (LT_KEV_OTHER: none); *sys is set to a
 * system call's name where the event's name holds it. */
static uint8_t kind_of_name(const char *name, const char **sys)
{
	*sys = NULL;
	for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(name, kinds[i].name) == 0)
			return kinds[i].kind;
	return lttng_syscall_kind(name, sys);
}

static void plan_field(struct lt_model_class *c, unsigned k,
		       const struct lt_field_class *fc)
{
	if ((fc->kind == LT_KIND_INT || fc->kind == LT_KIND_ENUM) &&
	    (fc->be || fc->bitfield)) {
		c->ld[k] = LD_VALUE;
	} else if (fc->kind == LT_KIND_INT || fc->kind == LT_KIND_ENUM) {
		static const uint8_t ld[2][9] = {
			{ 0, LD_U8, LD_U16, 0, LD_U32, 0, 0, 0, LD_U64 },
			{ 0, LD_S8, LD_S16, 0, LD_S32, 0, 0, 0, LD_S64 },
		};
		uint8_t l =
			fc->size <= 8 ? ld[fc->is_signed != 0][fc->size] : 0;
		c->ld[k] = l ? l : LD_VALUE;
	} else if (fc->kind == LT_KIND_FLOAT) {
		c->ld[k] = LD_NONE;
	} else {
		c->ld[k] = LD_VALUE; /* strings and text arrays: fcomm() */
		c->comm16[k] = fc->kind == LT_KIND_ARRAY && fc->text &&
			       fc->length == 16;
	}
}

/* Looks at ec once, on its first event: its kind, which of its fields
 * the kind needs and how each is loaded. */
void lt_model_class_plan(struct lt_model_class *c,
			 const struct lt_event_class *ec)
{
	c->seen = 1;
	const char *sys;
	c->kind = kind_of_name(ec->name, &sys);
	c->sysnr = -1;
	if (sys)
		c->sysnr = sys_nr_of(sys);
	for (unsigned k = 0; k < F_NFIELDS; k++) {
		c->f[k] = -1;
		c->ld[k] = LD_NONE;
		c->comm16[k] = 0;
		for (unsigned a = 0; a < 2 && c->f[k] < 0; a++)
			for (unsigned i = 0;
			     field_names[k][a] && i < ec->nfields; i++)
				/* LTTng's tid is a context (in the payload,
				 * a wake-up's tid is the woken thread); the
				 * rest is the payload's */
				if ((k == F_TID && a == 1) ==
					    (ec->fields[i].sec !=
					     LT_SEC_PAYLOAD) &&
				    ec->fields[i].var_tag < 0 &&
				    strcmp(ec->fields[i].name,
					   field_names[k][a]) == 0)
					c->f[k] = (int16_t)i;
		if (c->f[k] >= 0)
			plan_field(c, k, &ec->fields[c->f[k]]);
	}
}

int lt_reader_has_event(const lt_reader_t *t, const char *name)
{
	/* a kernel event the model knows is there under any of its names */
	const char *sys;
	uint8_t want = kind_of_name(name, &sys);
	for (unsigned i = 0; i < lt_reader_nclasses(t); i++) {
		const char *n = lt_reader_class(t, i)->name;
		if (strcmp(n, name) == 0 ||
		    (want != LT_KEV_OTHER && kind_of_name(n, &sys) == want))
			return 1;
	}
	return 0;
}

int lt_event_int(const struct lt_event *ev, const char *name, int64_t *v)
{
	struct lt_value val;
	/* an LTTng-UST event names its thread by its vtid context (the
	 * host's tid outside containers) */
	if (lt_event_field_by_name(ev, name, &val) != 0 &&
	    (strcmp(name, "tid") != 0 ||
	     lt_event_field_by_name(ev, "vtid", &val) != 0))
		return -ENOENT;
	if (val.kind == LT_KIND_INT || val.kind == LT_KIND_ENUM)
		*v = val.fc->is_signed ? val.i : (int64_t)val.u;
	else if (val.kind == LT_KIND_FLOAT)
		*v = (int64_t)val.f;
	else
		return -ENOENT;
	return 0;
}
