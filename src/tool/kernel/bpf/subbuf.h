/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * subbuf.h - a per-CPU ring of sub-buffers that BPF programs write in
 * lowtrace's record layout (docs/ctf-layout.md), read by a consumer
 * through mmap: its control page (both sides) and, compiled for BPF, its
 * maps and its writer (reserve, commit).  kernel.bpf.c writes the kernel
 * stream's packets with it; bench/bpf_ring/ring.bpf.c measures it.
 *
 * Sub-buffers of sb_size bytes, sb_n per CPU, in one BPF_F_MMAPABLE
 * array (CPU c's sub-buffer i at element c * sb_n + i; an element has
 * LT_SB_SLACK bytes more than a sub-buffer, never written, so that the
 * verifier sees every store in bounds from masks alone).  Each
 * sub-buffer's first sb_head bytes are left for the consumer (a packet
 * header), then records: 4-byte aligned, a compact header (one word:
 * id in bits 0-4, the time's low 27 bits above) or an extended one (byte
 * 31, 32-bit id, 64-bit time: 13 bytes), the payload.  The offset stops
 * at a record's last byte and the next record begins at the next 4-byte
 * boundary, so a packet's content ends at its last record's end, as CTF
 * readers want it (babeltrace2 reads a header wherever bytes are left).
 * Times are CLOCK_MONOTONIC ns (bpf_ktime_get_ns()).
 *
 * The time is read between the offset's read and its compare-and-swap:
 * a program that interrupts another on the CPU moves the offset, the
 * swap fails and the time is read again, so offsets and times agree in
 * order.  A sub-buffer's commit count holds its bytes (low 32 bits) and
 * its records (above); it is complete when its bytes reach sb_size,
 * padding included.  A sub-buffer the consumer has not released
 * (consumed) is not written: the record is counted in lost.
 */
#ifndef LT_KERNEL_BPF_SUBBUF_H
#define LT_KERNEL_BPF_SUBBUF_H

#include <linux/types.h>

#define LT_SB_MAX_SUBBUFS 64
#define LT_SB_ID_EXTENDED 31u
#define LT_SB_TS_BITS 27
#define LT_SB_HDR_COMPACT 4u
#define LT_SB_HDR_EXTENDED 13u
/* where a record after offset off begins */
#define LT_SB_ALIGN(off) (((off) + 3u) & ~3ull)
/* the largest payload a record may have */
#define LT_SB_LEN_MAX 8192u
/* bytes after each sub-buffer in its element (see above) */
#define LT_SB_SLACK (LT_SB_LEN_MAX + 64u)
/* a commit count's parts */
#define LT_SB_ONE_RECORD (1ull << 32)
#define LT_SB_BYTES(commit) ((commit)&0xffffffffull)
#define LT_SB_RECORDS(commit) ((commit) >> 32)

/* one sub-buffer's state */
struct lt_sb_sub {
	__u64 commit; /* records << 32 | bytes committed, padding included */
	__u64 begin_ts; /* the time of its first record */
	__u64 end_ts; /* the time it closed */
	__u64 content; /* bytes of head and records; the rest is padding */
};

/*
 * One CPU's control, a page of its own.  offset counts the bytes
 * reserved since the start, over all laps: sub-buffer (offset / size) %
 * n, at offset % size.  The CPU's programs (and the consumer's close of a
 * partly filled sub-buffer, by the same compare-and-swap) move offset;
 * only the consumer writes consumed (a multiple of the sub-buffer size:
 * what it has released) and clears wake, on a line of their own.
 */
struct lt_sb_ctl {
	__u64 offset;
	__u64 last_ts; /* the time of a recent record, never a later one */
	__u64 lost; /* records without room */
	__u64 retries; /* swaps of the offset that failed */
	__u64 pad0[4];
	__u64 consumed;
	__u64 wake; /* 1 while a wake-up is pending */
	__u64 pad1[6];
	struct lt_sb_sub sub[LT_SB_MAX_SUBBUFS];
	__u8 pad2[4096 - 128 - LT_SB_MAX_SUBBUFS * sizeof(struct lt_sb_sub)];
};

#ifdef __bpf__

/* set by the loader: the geometry, the room left at each sub-buffer's
 * start, and how much waiting rings the doorbell */
const volatile __u32 sb_size = 4096; /* a power of two */
const volatile __u32 sb_n = 2; /* a power of two, <= LT_SB_MAX_SUBBUFS */
const volatile __u32 sb_head;
const volatile __u64 sb_wake_at;

/* the loader sets the element size (sb_size + LT_SB_SLACK) and count */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__uint(key_size, 4);
	__uint(value_size, 4096 + LT_SB_SLACK);
} sb_data SEC(".maps");

/* each CPU's control, by CPU number */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lt_sb_ctl);
} sb_ctl SEC(".maps");

#define LT_SB_READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))
#define LT_SB_WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

/* how many times the reserve tries before it counts the record lost */
#define LT_SB_RETRIES 8

/* The includer may count elsewhere (before including). */
#ifndef LT_SB_COUNT_LOST
#define LT_SB_COUNT_LOST(c) __sync_fetch_and_add(&(c)->lost, 1)
#endif
#ifndef LT_SB_COUNT_RETRY
#define LT_SB_COUNT_RETRY(c) __sync_fetch_and_add(&(c)->retries, 1)
#endif

/* a reservation, from lt_sb_reserve() to lt_sb_commit() */
struct lt_sb_res {
	struct lt_sb_ctl *c;
	__u64 end; /* the offset after it */
	__u32 sb; /* its sub-buffer's index */
	__u32 size;
	int done; /* its reservation completed the sub-buffer before */
};

/* The extended header of ev at time t, 13 bytes at p (4-aligned). */
static __always_inline void lt_sb_put_extended(char *p, __u32 ev, __u64 t)
{
	__u32 *w = (__u32 *)p;
	w[0] = LT_SB_ID_EXTENDED | ev << 8;
	w[1] = ev >> 24 | (__u32)(t << 8);
	w[2] = (__u32)(t >> 24);
	p[12] = (char)(t >> 56);
}

/*
 * Room for a record of event ev with a payload of len bytes in this CPU's
 * ring, its header written; returns the payload, or NULL (counted lost)
 * when the next sub-buffer is not released, the offset kept moving or
 * the record is larger than a sub-buffer.  A compact header needs ev <=
 * 30 and a time within 2^27 ns of the previous record's; a sub-buffer's
 * first record has the extended one (its time whole).  last_ts is stored
 * after the swap, so it may be older than the record before, never
 * newer: the compact header's test against it is conservative.
 */
static __always_inline void *lt_sb_reserve(__u32 ev, __u32 len,
					   struct lt_sb_res *res)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct lt_sb_ctl *c = bpf_map_lookup_elem(&sb_ctl, &cpu);
	if (!c)
		return NULL;
	__u64 S = sb_size, N = sb_n, mask = S - 1, head = sb_head;
	__u64 old = 0, begin = 0, at = 0, t = 0;
	__u32 hs = 0;
	int i;
	if (len > LT_SB_LEN_MAX || head + LT_SB_HDR_EXTENDED + len > S) {
		LT_SB_COUNT_LOST(c);
		return NULL;
	}
	for (i = 0; i < LT_SB_RETRIES; i++) {
		old = LT_SB_READ_ONCE(c->offset);
		t = bpf_ktime_get_ns();
		__u64 last = LT_SB_READ_ONCE(c->last_ts);
		hs = ev < LT_SB_ID_EXTENDED &&
				     t - last < (1ull << LT_SB_TS_BITS) ?
			     LT_SB_HDR_COMPACT :
			     LT_SB_HDR_EXTENDED;
		begin = old;
		if ((old & mask) && LT_SB_ALIGN(old & mask) + hs + len > S)
			begin = (old | mask) + 1; /* the next sub-buffer */
		at = LT_SB_ALIGN(begin);
		if (!(begin & mask)) {
			/* a sub-buffer's first record: its time whole */
			hs = LT_SB_HDR_EXTENDED;
			at = begin + head;
			if (begin - LT_SB_READ_ONCE(c->consumed) >= N * S) {
				LT_SB_COUNT_LOST(c);
				return NULL;
			}
		}
		if (__sync_val_compare_and_swap(&c->offset, old,
						at + hs + len) == old)
			break;
		LT_SB_COUNT_RETRY(c);
	}
	if (i == LT_SB_RETRIES) {
		LT_SB_COUNT_LOST(c);
		return NULL;
	}
	LT_SB_WRITE_ONCE(c->last_ts, t);
	__u32 sb = (__u32)((begin / S) & (N - 1)) & (LT_SB_MAX_SUBBUFS - 1);
	res->done = 0;
	if (begin != old) {
		/* close the sub-buffer the record did not fit in: its
		 * size, end and padding */
		__u32 pb =
			(__u32)((old / S) & (N - 1)) & (LT_SB_MAX_SUBBUFS - 1);
		__u64 pad = S - (old & mask);
		c->sub[pb].content = old & mask;
		c->sub[pb].end_ts = t;
		res->done = LT_SB_BYTES(__sync_fetch_and_add(&c->sub[pb].commit,
							     pad) +
					pad) == S;
	}
	if (!(begin & mask))
		c->sub[sb].begin_ts = t;
	__u32 key = cpu * (__u32)N + sb;
	char *d = bpf_map_lookup_elem(&sb_data, &key);
	if (!d) {
		LT_SB_COUNT_LOST(c);
		return NULL;
	}
	/* at & mask < S, the header at most 13 bytes, len at most
	 * LT_SB_LEN_MAX: in the element's slack at worst, as the verifier
	 * sees it (the reserve made it fit the sub-buffer) */
	char *p = d + (at & mask);
	if (hs == LT_SB_HDR_COMPACT) {
		*(__u32 *)p = ev | (__u32)(t << 5);
		p += LT_SB_HDR_COMPACT;
	} else {
		lt_sb_put_extended(p, ev, t);
		p += LT_SB_HDR_EXTENDED;
	}
	res->c = c;
	res->end = at + hs + len;
	res->size = (__u32)(res->end - begin);
	res->sb = sb;
	if (!(res->end & mask)) {
		/* it ends at the boundary: it closes its own sub-buffer */
		c->sub[sb].content = S;
		c->sub[sb].end_ts = t;
	}
	return p;
}

/*
 * The record's bytes committed (and counted).  Fetching atomics: fully
 * ordered on every architecture, so the consumer that sees a sub-buffer
 * complete sees its records.  Returns 1 when the consumer should be woken:
 * a sub-buffer completed with sb_wake_at bytes waiting, once until the
 * consumer clears wake.
 */
static __always_inline int lt_sb_commit(struct lt_sb_res *res)
{
	struct lt_sb_ctl *c = res->c;
	__u64 add = res->size + LT_SB_ONE_RECORD;
	__u64 was = __sync_fetch_and_add(
		&c->sub[res->sb & (LT_SB_MAX_SUBBUFS - 1)].commit, add);
	if (LT_SB_BYTES(was + add) == sb_size)
		res->done = 1;
	return res->done &&
	       res->end - LT_SB_READ_ONCE(c->consumed) >= sb_wake_at &&
	       !LT_SB_READ_ONCE(c->wake) &&
	       __sync_val_compare_and_swap(&c->wake, 0, 1) == 0;
}

#endif /* __bpf__ */

#endif
