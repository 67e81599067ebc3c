/* SPDX-License-Identifier: MIT */
/*
 * model_int.h - what the trace model's two files share: which fields an
 * event class of a kind the model knows holds and how each is loaded
 * (struct lt_model_class), planned in model_class.c on the class's first
 * event and read per event in model.c.  Only src/tool/analysis/model*.c
 * include it.
 */
#ifndef LT_ANALYSIS_MODEL_INT_H
#define LT_ANALYSIS_MODEL_INT_H

#include <stdint.h>

struct lt_event_class;

enum {
	F_TID, /* common_tid */
	F_TGID, /* common_tgid */
	F_PREV_COMM,
	F_PREV_PID,
	F_PREV_STATE,
	F_NEXT_COMM,
	F_NEXT_PID,
	F_COMM,
	F_PID,
	F_TARGET_CPU,
	F_IRQ,
	F_VEC,
	F_SYSID, /* raw_syscalls: the system call's number */
	F_NAME, /* lttng_statedump_process_state */
	F_PROC, /* lttng_statedump_process_state: the thread's process */
	F_NFIELDS,
};

/* How a field the model reads is loaded (decided once per class). */
enum {
	LD_NONE, /* absent or not an integer: the default value */
	LD_S8,
	LD_U8,
	LD_S16,
	LD_U16,
	LD_S32,
	LD_U32,
	LD_S64,
	LD_U64,
	LD_VALUE, /* through lt_event_field() */
};

struct lt_model_class {
	uint8_t seen, kind;
	int32_t sysnr; /* a system call event named after its call */
	int16_t f[F_NFIELDS]; /* field index, -1 if absent */
	uint8_t ld[F_NFIELDS]; /* LD_* */
	uint8_t comm16[F_NFIELDS]; /* a 16-byte text array (the kernel's) */
};

void lt_model_class_plan(struct lt_model_class *c,
			 const struct lt_event_class *ec);

#endif
