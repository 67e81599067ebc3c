/* SPDX-License-Identifier: MIT */
/*
 * bpf.h - the kernel channel's eBPF backend (channel.c uses it where the
 * kernel allows it): the BPF programs of bpf/kernel.bpf.c loaded, one BPF
 * ring buffer per CPU read, the process filter kept in the kernel.
 *
 * Each event of the channel is written by a typed tp_btf program when
 * one exists for its tracepoint and its format file has the layout the
 * program writes (a kernel whose format differs gets the generic one),
 * else by the generic tracepoint program, attached through one perf
 * event.
 *
 * Where every event has its typed program and packets_ok is set (discard
 * mode), the programs write the kernel stream's packets themselves: each
 * CPU's sub-buffers (bpf/subbuf.h, mapped here) hold records in the
 * stream's layout at CLOCK_MONOTONIC ns, and lt_kbpf_drain() hands each
 * complete one over whole.  Otherwise each record goes through the CPU's
 * BPF ring buffer to the record callback.  Built without the backend
 * (LT_BPF=0), lt_kbpf_usable() says so and nothing else is called.
 */
#ifndef LT_KERNEL_BPF_H
#define LT_KERNEL_BPF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel/tracefs.h"

struct lt_kbpf;

struct lt_kbpf_config {
	const struct lt_kformat *const *fmts; /* the events, by index */
	size_t nev;
	const int *cpus; /* the online CPUs */
	size_t ncpus;
	uint32_t ring_bytes; /* per CPU, a power of two of pages */
	int filter; /* keep only the processes of pids and their children */
	const pid_t *pids;
	size_t npids;
	int packets_ok; /* the programs may write packets */
	uint32_t packet_size; /* then: a packet's most bytes, a power of
				* two (smaller where ring_bytes is) */
	uint32_t packet_head; /* then: the bytes left for its header */
};

/* One record (kernel/bpf/records.h's header, then its payload) of the
 * ring of cpus[cpu_index]. */
typedef void (*lt_kbpf_rec_fn)(void *arg, size_t cpu_index, const void *rec,
			       size_t size);

/*
 * One complete packet of the sub-buffers of cpus[cpu_index]: content
 * bytes at data, the first packet_head of them left for its header, then
 * its records; the times of its first record and of its close, and how
 * many records it holds.
 */
typedef void (*lt_kbpf_packet_fn)(void *arg, size_t cpu_index, const void *data,
				  size_t content, uint64_t begin_ns,
				  uint64_t end_ns, uint64_t records);

/* 1 if this build and this kernel can run the backend, else 0 with the
 * reason in why ("the kernel has no BTF (...)"). */
int lt_kbpf_usable(char *why, size_t whylen);

/* Loads and attaches the programs.  Returns 0 or a negative errno with
 * the reason in err. */
int lt_kbpf_open(const struct lt_kbpf_config *cfg, struct lt_kbpf **out,
		 char *err, size_t errlen);

/* Adds a process to the kernel's filter. */
int lt_kbpf_add_pid(struct lt_kbpf *b, pid_t pid);

/* Waits up to timeout_ms for a ring to fill to its wake-up mark (records
 * below it wait for the timeout).  1, 0 on timeout, or a negative
 * errno. */
int lt_kbpf_wait(struct lt_kbpf *b, int timeout_ms);

/* Hands every record waiting to fn, ring by ring (with packets: the
 * records of followed forks), and every complete packet to pfn; how
 * many.  The lost counts are read now and then, and always when final is
 * set. */
int lt_kbpf_drain(struct lt_kbpf *b, lt_kbpf_rec_fn fn, lt_kbpf_packet_fn pfn,
		  void *arg, int final);

/* 1 if the programs write packets. */
int lt_kbpf_packets(const struct lt_kbpf *b);

/* Packets: the bytes of cpus[cpu_index]'s open packet (0: none open),
 * and its sequence number in seq. */
uint64_t lt_kbpf_open_bytes(const struct lt_kbpf *b, size_t cpu_index,
			    uint64_t *seq);

/*
 * Packets: closes cpus[cpu_index]'s open packet as a program closes one
 * that a record does not fit (the offset moved to the sub-buffer's end by
 * a compare-and-swap, the rest padding), so that the next drain hands it
 * over once its records are committed.  1 if one was closed.
 */
int lt_kbpf_close_packet(struct lt_kbpf *b, size_t cpu_index);

/* Records cpus[cpu_index]'s ring had no room for, so far. */
uint64_t lt_kbpf_lost(struct lt_kbpf *b, size_t cpu_index);

/* Detaches every program: no record is written after it. */
void lt_kbpf_stop(struct lt_kbpf *b);

void lt_kbpf_close(struct lt_kbpf *b);

#endif
