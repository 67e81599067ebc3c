/* SPDX-License-Identifier: MIT */
/*
 * ring.h - lock-free per-CPU ring buffers.
 *
 * A channel (struct lt_ring) has one buffer per CPU; each buffer has N
 * sub-buffers of S bytes, both powers of two.  All of it lives in one memfd
 * so that a consumer in another process can map the same pages; nothing in
 * the shared pages is a pointer.
 *
 * Two ways of synchronising writers, chosen per channel when it is made
 * (enum lt_ring_sync):
 *
 * - rseq: a writer copies its record and publishes it by moving the
 *   buffer's free-running write offset, all inside one restartable
 *   sequence on the CPU whose buffer it writes (ring/rseq.h).  No locked
 *   instruction: the kernel restarts the sequence if the thread is
 *   preempted, migrated or signalled in it, so what lies below the offset
 *   is always whole.  A signal handler that traces simply publishes
 *   first.  Anything else that moves the offset (the consumer's flush)
 *   runs as the same kind of sequence on that CPU.
 * - atomic: writers reserve space with a compare-and-swap on the offset,
 *   write, then commit by adding the reserved length to the sub-buffer's
 *   commit count; a sub-buffer whose commit count reaches the end of its
 *   current generation ((gen + 1) * S) is complete.  A thread that migrates
 *   keeps using the buffer it chose, which the CAS keeps correct.  For
 *   machines or threads without rseq, and for a single writer that writes
 *   on other CPUs' behalf (the kernel events).
 *
 * Either way a record never straddles sub-buffers: the writer that does
 * not fit closes the sub-buffer (the rest is padding) and opens the next.
 *
 * Each sub-buffer is a packet of the trace as it stands: the ring leaves
 * the bytes to the trace format (src/runtime/format/), which begins and
 * ends a packet (format/packet_header.h) and encodes a record's event
 * header (format/event_header.h); the ring decides where records go
 * (ring/record.h).
 *
 * This header holds the types and a channel's life; ring/ring_write.h the
 * writers' inline API; ring/ring_consume.h the consumer's.
 *
 * Modes: discard (the writer drops and counts an event when the next
 * sub-buffer is still unread) and overwrite (flight recorder: the writer
 * reuses the oldest sub-buffer; a snapshot copies the newest complete ones
 * and checks afterwards that none was reused while it was copied).
 *
 * Model: models/ring.pml mirrors lt_ring_reserve, lt_ring_commit,
 * lt_ring_flush, lt_ring_get_subbuf, lt_ring_put_subbuf and
 * lt_ring_snapshot.
 */
#ifndef LT_RING_H
#define LT_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "format/packet_header.h"

enum lt_ring_mode {
	LT_RING_DISCARD = 0,
	LT_RING_OVERWRITE = 1,
};

enum lt_ring_sync {
	LT_RING_SYNC_ATOMIC = 0,
	LT_RING_SYNC_RSEQ = 1,
	/* not chosen yet: the process that maps it for writing chooses,
	 * with lt_ring_choose_sync(), before its first record */
	LT_RING_SYNC_WRITER = 2,
};

#define LT_RING_NO_PID UINT32_MAX

struct lt_ring_config {
	enum lt_ring_mode mode;
	uint32_t n_cpus; /* 0: every CPU the system can have */
	uint32_t n_subbufs; /* power of two, >= 2 */
	uint64_t subbuf_size; /* power of two, >= 1024 */
	uint8_t uuid[16]; /* the trace's, copied into each packet */
	uint32_t stream_id; /* the channel's stream class */
	uint32_t pid; /* 0: getpid(); LT_RING_NO_PID: 0 (several writers) */
	uint32_t sync; /* enum lt_ring_sync */
};

/*
 * Per-CPU control block in shared memory.  The write offset and the last
 * record's timestamp change together, in one 16-byte compare-and-swap: a
 * writer takes a timestamp no earlier than the one before it in the
 * buffer, so timestamps follow offset order by construction, with a plain
 * (unordered, cheaper) counter read.
 */
struct lt_ring_ctl {
	union {
		struct {
			_Atomic uint64_t offset; /* write position, bytes */
			_Atomic uint64_t last_tsc; /* the last record's time */
		};
		unsigned __int128 pair;
	} __attribute__((aligned(64)));
	_Atomic uint64_t lost_full; /* dropped: next sub-buffer not free */
	_Atomic uint64_t lost_big; /* dropped: larger than a sub-buffer */
	/* dropped, next sub-buffer not free, counted by this CPU's
	 * restartable sequences alone (rseq channels) */
	_Atomic uint64_t lost_seq;
	_Alignas(64) _Atomic uint64_t consumed; /* discard: next to read */
	_Alignas(64) _Atomic uint64_t commit[]; /* bytes, per sub-buffer */
};

/* The start of the shared memory: geometry, so another process can map it. */
struct lt_ring_shm {
	uint64_t magic;
	uint32_t version;
	uint32_t mode;
	uint32_t n_cpus;
	uint32_t n_subbufs;
	uint64_t subbuf_size;
	uint64_t ctl_offset, ctl_stride;
	uint64_t data_offset, data_stride;
	uint64_t total_size;
	struct lt_packet_header tmpl; /* magic, uuid, stream_id, pid */
	_Atomic uint32_t sync; /* enum lt_ring_sync */
	uint32_t reserved;
};
#define LT_RING_SHM_MAGIC 0x6c74726e67627566ull /* "ltrngbuf" */
#define LT_RING_SHM_VERSION 3

/* A process's handle on a mapped channel. */
struct lt_ring {
	struct lt_ring_shm *shm;
	char *map;
	size_t map_len;
	int fd;
	uint32_t mode, n_cpus, n_subbufs;
	uint32_t subbuf_shift;
	uint32_t sync; /* a writer's copy of shm->sync, once chosen */
	uint64_t subbuf_size, buf_size; /* S and N * S */
	char *ctl_base; /* cpu[0].ctl, and ctl_stride apart (cpu_of) */
	uint64_t ctl_stride;
	uint64_t subbuf_mask, buf_mask; /* S - 1 and N * S - 1 */
	/* each CPU's control block and data, the writer's two lookups */
	struct lt_ring_cpu {
		struct lt_ring_ctl *ctl;
		char *data;
	} cpu[];
};

/* A reservation, from lt_ring_reserve() to lt_ring_commit(). */
struct lt_ring_ctx {
	struct lt_ring_ctl *ctl;
	uint64_t begin, end; /* bytes [begin, end) are this record's */
	uint64_t ts;
	char *payload;
};

/* A complete sub-buffer lent to the consumer. */
struct lt_ring_subbuf {
	const struct lt_packet_header *hdr;
	const void *data; /* the packet, hdr included */
	size_t len; /* content bytes */
	uint64_t seq;
};

int lt_ring_create(const struct lt_ring_config *cfg, struct lt_ring **out);
/* Maps a channel created elsewhere (fd from lt_ring_fd(), passed on). */
int lt_ring_map(int fd, struct lt_ring **out);
void lt_ring_destroy(struct lt_ring *r);
int lt_ring_fd(const struct lt_ring *r);

/*
 * Whether this thread can write rseq buffers: x86_64, rseq registered
 * (glibc 2.35+), and LOWTRACE_RING_SYNC is not "atomic".
 */
int lt_ring_rseq_usable(void);
/*
 * For a channel made with LT_RING_SYNC_WRITER: chooses rseq if
 * lt_ring_rseq_usable(), else atomic, before the first record.  Returns
 * the choice; a channel already chosen keeps its choice.
 */
uint32_t lt_ring_choose_sync(struct lt_ring *r);

/*
 * The channel's synchronisation as its consumer sees it.  A channel whose
 * writer has not chosen yet has no record; offset is read first so that a
 * record seen implies the choice seen (pairs with the release store in
 * lt_ring_choose_sync(), before the writer's first record).
 */
static inline uint32_t lt_ring_sync_of(const struct lt_ring *r)
{
	return atomic_load_explicit(&r->shm->sync, memory_order_acquire);
}

static inline struct lt_ring_ctl *lt_ring_ctl(const struct lt_ring *r,
					      uint32_t cpu)
{
	return r->cpu[cpu].ctl;
}

static inline char *lt_ring_data(const struct lt_ring *r, uint32_t cpu)
{
	return r->cpu[cpu].data;
}

/* The packet header of the sub-buffer at offset base of cpu's buffer. */
static inline struct lt_packet_header *
lt_ring_packet_at(const struct lt_ring *r, uint32_t cpu, uint64_t base)
{
	return (struct lt_packet_header *)(lt_ring_data(r, cpu) +
					   (base & (r->buf_size - 1)));
}

/* The slot (sub-buffer index, for its commit count) of offset off. */
static inline uint64_t lt_ring_slot(const struct lt_ring *r, uint64_t off)
{
	return (off >> r->subbuf_shift) & (r->n_subbufs - 1);
}

#endif
