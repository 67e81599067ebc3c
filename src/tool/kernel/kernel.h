/* SPDX-License-Identifier: MIT */
/*
 * kernel.h - kernel tracepoints as the `kernel` channel of a lowtrace trace.
 *
 * lt_kernel_open() expands event patterns against tracefs, parses each
 * event's format, and opens one perf event per online CPU and event
 * (PERF_TYPE_TRACEPOINT, system-wide on that CPU, stamped with
 * CLOCK_MONOTONIC); the events of one CPU share one perf ring, so that CPU's
 * samples arrive in time order.  lt_kernel_poll() drains the perf rings and
 * re-encodes each sample as a CTF event of the kernel stream class into a
 * consumer-side lt_ring (one buffer per CPU, timestamps converted to trace
 * clock counts), lt_kernel_ring(), whose consumer appends each complete
 * sub-buffer, a packet, to TRACE/kernel_CPU (the recorder's consumer, a
 * local buffer of consumer.h).  lt_kernel_events() gives the event list
 * for the metadata's kernel stream.
 *
 * Typical use, from one thread:
 *
 *	struct lt_kernel_options o = { .stream_id = 1 };
 *	memcpy(o.uuid, trace_uuid, 16);
 *	rc = lt_kernel_open(patterns, n, &o, &k, err, sizeof(err));
 *	while (recording) {
 *		lt_kernel_wait(k, 100);
 *		lt_kernel_poll(k, take_cpu, arg);
 *		take(lt_kernel_ring(k));    (the complete sub-buffers)
 *	}
 *	lt_kernel_flush(k, take_cpu, arg);
 *	take(lt_kernel_ring(k));
 *	lt_kernel_events(k, &events, &nevents);   (for the metadata)
 *	lt_kernel_close(k);
 *
 * lt_clock_init() must have run (lt_kernel_open() calls it).  None of these
 * functions may run concurrently on the same handle.
 */
#ifndef LT_KERNEL_H
#define LT_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "format/metadata.h"

struct lt_kernel;
struct lt_ring;

/* An event's name in the trace when it is not its tracefs name (the
 * dynamic events of dynevent.h: lowtrace_PID:python__gc__start is
 * python:gc__start). */
struct lt_kernel_alias {
	const char *event; /* GROUP:NAME in tracefs */
	const char *name; /* in the trace */
};

/* How the kernel's events are taken (docs/kernel.md, "Backends"). */
enum lt_kernel_backend {
	/* eBPF where the kernel allows it, else perf (saying why):
	 * LOWTRACE_KERNEL_BACKEND=perf|bpf|auto overrides it */
	LT_KBACKEND_AUTO = 0,
	LT_KBACKEND_PERF, /* perf_event_open */
	LT_KBACKEND_BPF, /* eBPF, or an error */
};

struct lt_kernel_options {
	uint32_t stream_id; /* the kernel stream class's id in the trace */
	uint8_t uuid[16]; /* the trace's, copied into every packet */
	uint32_t pid; /* packets' pid field; 0: getpid() */
	/* consumer-side ring, per CPU; 0: 4 sub-buffers of 256 KiB */
	uint32_t n_subbufs;
	uint32_t subbuf_size;
	/*
	 * A flight recorder: the ring keeps the newest sub-buffers, reusing
	 * the oldest; lt_kernel_poll() closes none, lt_kernel_snapshot() and
	 * lt_kernel_flush() close the open ones for the consumer to copy.
	 */
	int overwrite;
	/* perf ring data pages per CPU, a power of two; 0: 256 (1 MiB); the
	 * eBPF backend's ring per CPU too when set (0: 4 MiB, less on
	 * machines of over 16 CPUs) */
	uint32_t perf_pages;
	/*
	 * Packets still partial after this long are closed by lt_kernel_poll()
	 * so that a quiet CPU's events reach the files; 0: only full packets
	 * and lt_kernel_flush().
	 */
	uint32_t flush_ms;
	/*
	 * Keep only samples whose process (tgid) is one of these; NULL: all.
	 * The filter is applied in user space to the task that was running
	 * when the event fired (for sched_switch, the one switched out).
	 */
	const pid_t *pids;
	size_t npids;
	const struct lt_kernel_alias *aliases;
	size_t naliases;
	int backend; /* enum lt_kernel_backend */
};

/* Called when cpu's buffer of a discard channel is full: the consumer
 * takes its complete sub-buffers now, and the record is tried once more. */
typedef void (*lt_kernel_full_fn)(void *arg, uint32_t cpu);

struct lt_kernel_stats {
	uint64_t samples; /* perf samples read */
	uint64_t events; /* events written to the ring */
	uint64_t lost_perf; /* PERF_RECORD_LOST: the perf ring was full */
	uint64_t lost_ring; /* dropped by the consumer-side ring */
	uint64_t filtered; /* left out by the pid filter */
	uint64_t clamped; /* timestamps raised to keep a CPU's order */
	uint64_t
		throttled; /* PERF_RECORD_THROTTLE: the kernel paused an event */
	uint64_t other; /* other perf records, ignored */
};

/*
 * Expands patterns (GROUP:NAME with * wildcards, or the presets sched, irq,
 * syscalls, timer), parses the events' formats, opens and enables the perf
 * events on every online CPU and creates the consumer-side ring.  o may be
 * NULL (stream id 0, uuid zero).  Returns 0, or a negative errno with a
 * message in err ("lowtrace: what went wrong (what to do)").
 */
int lt_kernel_open(const char *const *patterns, size_t n,
		   const struct lt_kernel_options *o, struct lt_kernel **out,
		   char *err, size_t errlen);

/*
 * The backend recording: "bpf" or "perf".  why (may be NULL) is set to
 * the reason eBPF was not used when the choice was left to the machine
 * and it fell back to perf, else NULL.
 */
const char *lt_kernel_backend(const struct lt_kernel *k, const char **why);

/*
 * 1 if the eBPF programs write the packets (discard mode, every event
 * with its typed program): the channel's times are then CLOCK_MONOTONIC
 * ns (the metadata's clock lowtrace_mono), not trace clock counts.
 */
int lt_kernel_packets(const struct lt_kernel *k);

/*
 * The ring the channel writes, one buffer per CPU (CPU numbers, kernel_CPU
 * files 0 .. n_cpus-1), owned by k: its consumer takes the complete
 * sub-buffers of a discard channel, copies the newest of an overwrite one.
 */
struct lt_ring *lt_kernel_ring(const struct lt_kernel *k);

/*
 * Drains every CPU's perf ring and re-encodes the samples into the ring,
 * calling full (which may be NULL) when a CPU's buffer fills; closes the
 * sub-buffers open longer than flush_ms.  Returns the number of samples
 * read, or a negative errno.  Never blocks.
 */
int lt_kernel_poll(struct lt_kernel *k, lt_kernel_full_fn full, void *arg);

/*
 * Readies an overwrite channel for a snapshot: the samples still in the
 * perf rings written, each open sub-buffer closed at its last event's
 * time; the consumer then copies the newest sub-buffers (lt_ring_snapshot())
 * and the ring goes on.  0 or a negative errno; a discard channel: 0.
 */
int lt_kernel_snapshot(struct lt_kernel *k);

/*
 * Waits up to timeout_ms for a perf ring to fill past its watermark (a
 * quarter of it).  Returns 1 if one did, 0 on timeout, or a negative errno.
 */
int lt_kernel_wait(struct lt_kernel *k, int timeout_ms);

/*
 * Stops the perf events, drains them into the ring (full as in
 * lt_kernel_poll()) and closes every partial sub-buffer: the consumer then
 * takes what is left.  After it, lt_kernel_poll() has nothing more.
 */
int lt_kernel_flush(struct lt_kernel *k, lt_kernel_full_fn full, void *arg);

/* The kernel stream's events, for lt_ctf_stream.events; owned by k. */
void lt_kernel_events(const struct lt_kernel *k,
		      const struct lt_ctf_event **events, uint32_t *n);

/* Events lost so far (perf rings and the consumer-side ring). */
uint64_t lt_kernel_lost(const struct lt_kernel *k);

void lt_kernel_get_stats(const struct lt_kernel *k, struct lt_kernel_stats *st);

void lt_kernel_close(struct lt_kernel *k);

/* Adds a process (tgid) to the filter of a handle opened with one. */
int lt_kernel_add_pid(struct lt_kernel *k, pid_t pid);
/* The processes the filter keeps now (sorted); how many (0: no filter). */
size_t lt_kernel_pids(const struct lt_kernel *k, const pid_t **pids);
/* 1 if the handle's filter keeps pid (or it has no filter). */
int lt_kernel_has_pid(const struct lt_kernel *k, pid_t pid);

/*
 * Prints the kernel events that pattern matches (all when NULL or ""), one
 * "group:name" a line, for `lowtrace list --kernel`.  Returns how many, or a
 * negative errno after a message on stderr.
 */
int lt_kernel_list(const char *pattern, FILE *out);

/* Counts of the trace clock for a CLOCK_MONOTONIC time in ns: the inverse
 * of lt_clock_to_ns() (the smallest count it maps to ns or later). */
uint64_t lt_kernel_mono_to_counts(int64_t ns);

#endif
