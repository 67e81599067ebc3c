/* SPDX-License-Identifier: MIT */
/*
 * test_ring.c - the per-CPU ring buffer, one behaviour at a time, on
 * channels of the kind RING_SYNC names (atomic here; test_ring_rseq.c
 * includes this file for rseq channels).
 */
#define _GNU_SOURCE
#include "lt_test.h"
#include "ring_decode.h"

#include <sched.h>
#include <sys/mman.h>

#ifndef RING_SYNC
#define RING_SYNC LT_RING_SYNC_ATOMIC
/* cases of atomic channels alone (test_ring_rseq.c leaves them out) */
#define RING_ATOMIC_ONLY 1
#endif

static void pin_cpu0(void)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(0, &s);
	LT_ASSERT_EQ(sched_setaffinity(0, sizeof(s), &s), 0);
}

static struct lt_ring *make_ring(enum lt_ring_mode mode, uint32_t n,
				 uint64_t size)
{
	struct lt_ring_config cfg = { .mode = mode,
				      .n_subbufs = n,
				      .subbuf_size = size,
				      .stream_id = 3,
				      .sync = RING_SYNC };
	memcpy(cfg.uuid, "0123456789abcdef", 16);
	struct lt_ring *r = NULL;
	if (RING_SYNC == LT_RING_SYNC_RSEQ && !lt_ring_rseq_usable())
		LT_SKIP("no rseq in this thread (x86_64, glibc 2.35+)");
	LT_ASSERT_EQ(lt_clock_init(), 0);
	LT_ASSERT_EQ(lt_ring_create(&cfg, &r), 0);
	return r;
}

/* Events carry a 64-bit sequence number; id 40 uses the extended header. */
static long size_u64(uint32_t id)
{
	return id == 1 || id == 40 ? 8 : -1;
}

/* Through lt_ring_write(); test_extended_header_for_large_id_and_long_gap
 * writes with lt_ring_reserve() and lt_ring_commit() where it can. */
static int write_seq(struct lt_ring *r, uint32_t id, uint64_t seq)
{
	return lt_ring_write(r, id, &seq, 8);
}

struct collect {
	uint64_t seqs[1 << 16];
	uint64_t ts[1 << 16];
	uint32_t ids[1 << 16];
	size_t n;
};

static int collect_ev(void *arg, const struct rd_event *ev)
{
	struct collect *c = arg;
	if (c->n < sizeof(c->seqs) / sizeof(c->seqs[0])) {
		memcpy(&c->seqs[c->n], ev->payload, 8);
		c->ts[c->n] = ev->ts;
		c->ids[c->n] = ev->id;
	}
	c->n++;
	return 0;
}

/* Reads every complete sub-buffer of CPU 0 into c; returns packets read. */
static int drain_cpu0(struct lt_ring *r, struct collect *c)
{
	struct lt_ring_subbuf sb;
	int n = 0;
	while (lt_ring_get_subbuf(r, 0, &sb) == 0) {
		const char *why = "";
		if (rd_walk_packet(sb.data, sb.len, size_u64, collect_ev, c,
				   &why))
			LT_FAIL("packet %llu: %s", (unsigned long long)sb.seq,
				why);
		lt_ring_put_subbuf(r, 0);
		n++;
	}
	return n;
}

static struct collect coll;

LT_TEST(test_rseq_gives_current_cpu)
{
	pin_cpu0();
#ifdef LT_HAVE_RSEQ
	LT_ASSERT_CMP(__rseq_size, !=, 0);
#endif
	LT_ASSERT_EQ(lt_cpu_current(), sched_getcpu());
	LT_ASSERT_EQ(lt_cpu_current(), 0);
}

LT_TEST(test_committed_events_read_back_in_order_with_header)
{
	pin_cpu0();
	struct lt_ring *r = make_ring(LT_RING_DISCARD, 4, 4096);
	for (uint64_t i = 0; i < 10; i++)
		LT_ASSERT_EQ(write_seq(r, 1, i), 0);
	LT_ASSERT_EQ(lt_ring_flush(r, 0), 1);
	struct lt_ring_subbuf sb;
	LT_ASSERT_EQ(lt_ring_get_subbuf(r, 0, &sb), 0);
	LT_ASSERT_EQ(sb.hdr->magic, LT_PACKET_MAGIC);
	LT_ASSERT_EQ(sb.hdr->stream_id, 3);
	LT_ASSERT_EQ(sb.hdr->cpu_id, 0);
	LT_ASSERT_EQ(sb.hdr->pid, getpid());
	LT_ASSERT_EQ(sb.hdr->packet_seq_num, 0);
	LT_ASSERT_EQ(sb.hdr->events_discarded, 0);
	LT_ASSERT_CMP(memcmp(sb.hdr->uuid, "0123456789abcdef", 16), ==, 0);
	LT_ASSERT_CMP(sb.hdr->timestamp_begin, <=, sb.hdr->timestamp_end);
	LT_ASSERT_EQ(sb.len, LT_PACKET_HDR_SIZE + 10 * (4 + 8));
	const char *why = "";
	LT_ASSERT_EQ(rd_walk_packet(sb.data, sb.len, size_u64, collect_ev,
				    &coll, &why),
		     0);
	LT_ASSERT_EQ(coll.n, 10);
	for (size_t i = 0; i < 10; i++)
		LT_ASSERT_EQ(coll.seqs[i], i);
	lt_ring_put_subbuf(r, 0);
	LT_ASSERT_EQ(lt_ring_get_subbuf(r, 0, &sb), -EAGAIN);
	lt_ring_destroy(r);
}

LT_TEST(test_records_never_straddle_subbuffers)
{
	pin_cpu0();
	struct lt_ring *r = make_ring(LT_RING_DISCARD, 4, 1024);
	uint64_t next = 0;
	for (int round = 0; round < 50; round++) {
		for (int i = 0; i < 30; i++)
			if (write_seq(r, 1, next) == 0)
				next++;
		drain_cpu0(r, &coll);
	}
	lt_ring_flush(r, 0);
	int pk = drain_cpu0(r, &coll);
	LT_ASSERT_CMP(pk, >=, 1);
	LT_ASSERT_EQ(coll.n, next);
	for (size_t i = 0; i < coll.n; i++)
		LT_ASSERT_EQ(coll.seqs[i], i);
	LT_ASSERT_EQ(lt_ring_lost(r, 0), 0);
	lt_ring_destroy(r);
}

LT_TEST(test_discard_drops_and_counts_when_full)
{
	pin_cpu0();
	struct lt_ring *r = make_ring(LT_RING_DISCARD, 2, 1024);
	uint64_t written = 0, dropped = 0;
	for (uint64_t i = 0; i < 1000; i++) {
		int rc = write_seq(r, 1, i);
		if (rc == 0)
			written++;
		else if (rc == -ENOBUFS)
			dropped++;
		else
			LT_FAIL("unexpected %d", rc);
	}
	LT_ASSERT_CMP(dropped, >, 0);
	LT_ASSERT_EQ(lt_ring_lost(r, 0), dropped);
	lt_ring_flush(r, 0);
	drain_cpu0(r, &coll);
	LT_ASSERT_EQ(coll.n, written);
	/* unread data was never overwritten: the oldest events survive */
	LT_ASSERT_EQ(coll.seqs[0], 0);
	/* after draining, writing works again */
	LT_ASSERT_EQ(write_seq(r, 1, 5000), 0);
	lt_ring_destroy(r);
}

LT_TEST(test_events_discarded_grows_across_packets)
{
	pin_cpu0();
	struct lt_ring *r = make_ring(LT_RING_DISCARD, 2, 1024);
	for (int i = 0; i < 500; i++)
		write_seq(r, 1, (uint64_t)i);
	uint64_t lost = lt_ring_lost(r, 0);
	LT_ASSERT_CMP(lost, >, 0);
	struct lt_ring_subbuf sb;
	uint64_t prev = 0;
	for (int i = 0; i < 6; i++) {
		while (lt_ring_get_subbuf(r, 0, &sb) == 0) {
			LT_ASSERT_CMP(sb.hdr->events_discarded, >=, prev);
			prev = sb.hdr->events_discarded;
			lt_ring_put_subbuf(r, 0);
		}
		for (int j = 0; j < 200; j++)
			write_seq(r, 1, (uint64_t)j);
	}
	lt_ring_flush(r, 0);
	while (lt_ring_get_subbuf(r, 0, &sb) == 0) {
		LT_ASSERT_CMP(sb.hdr->events_discarded, >=, prev);
		prev = sb.hdr->events_discarded;
		lt_ring_put_subbuf(r, 0);
	}
	/* drops after the last packet closed are only in the counter */
	LT_ASSERT(prev > 0 && prev <= lt_ring_lost(r, 0));
	lt_ring_destroy(r);
}

static int snap_collect(void *arg, const struct lt_packet_header *h,
			const void *data, size_t len)
{
	const char *why = "";
	(void)h;
	if (rd_walk_packet(data, len, size_u64, collect_ev, arg, &why))
		LT_FAIL("snapshot packet: %s", why);
	return 0;
}

LT_TEST(test_overwrite_keeps_newest_subbuffers)
{
	pin_cpu0();
	struct lt_ring *r = make_ring(LT_RING_OVERWRITE, 4, 1024);
	const uint64_t total = 5000;
	for (uint64_t i = 0; i < total; i++)
		LT_ASSERT_EQ(write_seq(r, 1, i), 0);
	int n = lt_ring_snapshot(r, 0, snap_collect, &coll);
	LT_ASSERT(n >= 3 && n <= 4);
	LT_ASSERT_CMP(coll.n, >, 100);
	/* a contiguous run that ends with the last event written */
	LT_ASSERT_EQ(coll.seqs[coll.n - 1], total - 1);
	for (size_t i = 1; i < coll.n; i++)
		LT_ASSERT_EQ(coll.seqs[i], coll.seqs[i - 1] + 1);
	LT_ASSERT_EQ(lt_ring_lost(r, 0), 0);
	/* a second snapshot after more events sees the newer ones */
	for (uint64_t i = total; i < total + 10; i++)
		LT_ASSERT_EQ(write_seq(r, 1, i), 0);
	coll.n = 0;
	LT_ASSERT_CMP(lt_ring_snapshot(r, 0, snap_collect, &coll), >=, 1);
	LT_ASSERT_EQ(coll.seqs[coll.n - 1], total + 9);
	lt_ring_destroy(r);
}

LT_TEST(test_extended_header_for_large_id_and_long_gap)
{
	pin_cpu0();
	struct lt_ring *r = make_ring(LT_RING_DISCARD, 4, 4096);
	struct lt_ring_ctx c;
	uint64_t ts[4];
	uint32_t ids[4] = { 1, 40, 1, 1 };
	for (int i = 0; i < 4; i++) {
		if (i == 3) {
			/* longer than 2^27 counts: 0.3 s at any GHz-range
			 * clock, more at a slower one (aarch64's counter
			 * may run at 24 MHz) */
			uint64_t ns = ((1ull << LT_EV_TS_BITS) * 1000000000ull /
				       lt_clock_calib.freq) *
				      5 / 4;
			struct timespec d = { 0, 300000000 };
			if (ns > 300000000) {
				d.tv_sec = (time_t)(ns / 1000000000);
				d.tv_nsec = (long)(ns % 1000000000);
			}
			nanosleep(&d, NULL);
		}
		uint64_t v = (uint64_t)i;
		if (RING_SYNC == LT_RING_SYNC_RSEQ) {
			/* no reservation to read the time from: bracket it */
			ts[i] = lt_clock_read_fast();
			LT_ASSERT_EQ(write_seq(r, ids[i], v), 0);
			continue;
		}
		LT_ASSERT_EQ(lt_ring_reserve(r, &c, ids[i], 8), 0);
		memcpy(c.payload, &v, 8);
		ts[i] = c.ts;
		lt_ring_commit(r, &c);
	}
	uint64_t after = lt_clock_read_fast();
	lt_ring_flush(r, 0);
	drain_cpu0(r, &coll);
	LT_ASSERT_EQ(coll.n, 4);
	for (int i = 0; i < 4; i++) {
		LT_ASSERT_EQ(coll.ids[i], ids[i]);
		if (RING_SYNC == LT_RING_SYNC_RSEQ)
			LT_ASSERT(coll.ts[i] >= ts[i] &&
				  coll.ts[i] <= (i < 3 ? ts[i + 1] : after));
		else
			LT_ASSERT_EQ(coll.ts[i], ts[i]);
	}
	/* the long gap survived: a compact header would have wrapped */
	LT_ASSERT(coll.ts[3] - coll.ts[2] >= 1ull << LT_EV_TS_BITS);
	lt_ring_destroy(r);
}

LT_TEST(test_too_big_event_is_dropped_and_counted)
{
	pin_cpu0();
	struct lt_ring *r = make_ring(LT_RING_DISCARD, 2, 1024);
	struct lt_ring_ctx c;
	static char big[2000];
	LT_ASSERT_EQ(lt_ring_write(r, 1, big, sizeof(big)), -E2BIG);
	LT_ASSERT_EQ(lt_ring_lost(r, 0), 1);
	if (RING_SYNC == LT_RING_SYNC_ATOMIC) {
		LT_ASSERT_EQ(lt_ring_reserve(r, &c, 1, 2000), -E2BIG);
		LT_ASSERT_EQ(lt_ring_lost(r, 0), 2);
	} else {
		/* the two-step API is the atomic channels' */
		LT_ASSERT_EQ(lt_ring_reserve(r, &c, 1, 8), -EINVAL);
	}
	lt_ring_destroy(r);
}

LT_TEST(test_read_pos_and_write_end_bound_the_unread)
{
	pin_cpu0();
	struct lt_ring *r = make_ring(LT_RING_DISCARD, 4, 1024);
	LT_ASSERT_EQ(lt_ring_read_pos(r, 0), 0);
	LT_ASSERT_EQ(lt_ring_write_end(r, 0), 0);
	LT_ASSERT_EQ(write_seq(r, 1, 7), 0);
	/* the open sub-buffer counts whole */
	LT_ASSERT_EQ(lt_ring_read_pos(r, 0), 0);
	LT_ASSERT_EQ(lt_ring_write_end(r, 0), 1024);
	LT_ASSERT_EQ(lt_ring_flush(r, 0), 1);
	LT_ASSERT_EQ(lt_ring_write_end(r, 0), 1024);
	LT_ASSERT_EQ(drain_cpu0(r, &coll), 1);
	LT_ASSERT_EQ(lt_ring_read_pos(r, 0), 1024);
	lt_ring_destroy(r);
}

LT_TEST(test_lost_at_the_source_reach_the_packet)
{
	pin_cpu0();
	struct lt_ring *r = make_ring(LT_RING_DISCARD, 4, 1024);
	lt_ring_add_lost(r, 0, 5);
	LT_ASSERT_EQ(lt_ring_lost(r, 0), 5);
	LT_ASSERT_EQ(write_seq(r, 1, 7), 0);
	LT_ASSERT_EQ(lt_ring_flush(r, 0), 1);
	struct lt_ring_subbuf sb;
	LT_ASSERT_EQ(lt_ring_get_subbuf(r, 0, &sb), 0);
	LT_ASSERT_EQ(sb.hdr->events_discarded, 5);
	lt_ring_put_subbuf(r, 0);
	lt_ring_destroy(r);
}

LT_TEST(test_recover_torn_subbuf_keeps_committed_prefix)
{
	pin_cpu0();
	const uint64_t S = 1024;
	struct lt_ring *r = make_ring(LT_RING_DISCARD, 4, S);
	static char copy[1024];
	uint64_t committed = 0, content = 0;
	/* nothing written at all in the second sub-buffer */
	LT_ASSERT_EQ(
		lt_ring_recover_subbuf(r, 0, S, copy, &committed, &content),
		-EIO);
	for (uint64_t i = 0; i < 3; i++)
		LT_ASSERT_EQ(write_seq(r, 1, i), 0);
	uint64_t whole = LT_PACKET_HDR_SIZE + 3 * (4 + 8);
	if (RING_SYNC == LT_RING_SYNC_ATOMIC) {
		/* a writer that reserved and died before its commit */
		struct lt_ring_ctx c;
		LT_ASSERT_EQ(lt_ring_reserve(r, &c, 1, 8), 0);
		LT_ASSERT_EQ(c.begin, whole);
	}
	struct lt_ring_subbuf sb;
	LT_ASSERT_EQ(lt_ring_get_subbuf(r, 0, &sb), -EAGAIN);
	LT_ASSERT_EQ(
		lt_ring_recover_subbuf(r, 0, 0, copy, &committed, &content), 0);
	LT_ASSERT_EQ(committed, whole);
	/* never closed: an rseq buffer's records end at its offset, an
	 * atomic one's are walked to the end */
	LT_ASSERT_EQ(content, RING_SYNC == LT_RING_SYNC_RSEQ ? whole : S);
	const struct lt_packet_header *h = (const void *)copy;
	LT_ASSERT_EQ(h->magic, LT_PACKET_MAGIC);
	LT_ASSERT_EQ(h->packet_seq_num, 0);
	LT_ASSERT_EQ(h->content_size, 0); /* as the ring holds it */
	/* the whole records, as the recorder writes them out */
	struct lt_packet_header *w = (void *)copy;
	w->content_size = w->packet_size = whole * 8;
	w->timestamp_end = lt_clock_read_fast();
	coll.n = 0;
	const char *why = "";
	if (rd_walk_packet(copy, whole, size_u64, collect_ev, &coll, &why))
		LT_FAIL("recovered packet: %s", why);
	LT_ASSERT_EQ(coll.n, 3);
	LT_ASSERT_EQ(coll.seqs[2], 2);
	lt_ring_destroy(r);
}

#ifdef RING_ATOMIC_ONLY
/* a single writer's channel (the kernel's) is atomic */
LT_TEST(test_flush_at_closes_with_the_given_time)
{
	struct lt_ring *r = make_ring(LT_RING_DISCARD, 4, 1024);
	struct lt_ring_ctx c;
	LT_ASSERT_EQ(lt_ring_flush_at(r, 0, 5000), 0); /* none open */
	LT_ASSERT_EQ(lt_ring_reserve_at(r, &c, 0, 1000, 1, 8), 0);
	uint64_t v = 9;
	memcpy(c.payload, &v, 8);
	lt_ring_commit(r, &c);
	LT_ASSERT_EQ(lt_ring_flush_at(r, 0, 5000), 1);
	LT_ASSERT_EQ(lt_ring_flush_at(r, 0, 6000), 0);
	struct lt_ring_subbuf sb;
	LT_ASSERT_EQ(lt_ring_get_subbuf(r, 0, &sb), 0);
	LT_ASSERT_EQ(sb.hdr->timestamp_begin, 1000);
	LT_ASSERT_EQ(sb.hdr->timestamp_end, 5000);
	LT_ASSERT_EQ(sb.len, LT_PACKET_HDR_SIZE + 4 + 8);
	lt_ring_put_subbuf(r, 0);
	lt_ring_destroy(r);
}

/* a writer that makes room and retries (the kernel channel's) counts a
 * loss only when the retry fails too */
LT_TEST(test_reserve_at_try_does_not_count_a_full_buffer)
{
	struct lt_ring *r = make_ring(LT_RING_DISCARD, 2, 1024);
	struct lt_ring_ctx c;
	uint64_t ts = 1000, v = 7;
	int rc;
	/* fill both sub-buffers */
	while ((rc = lt_ring_reserve_at_try(r, &c, 0, ts++, 1, 8)) == 0) {
		memcpy(c.payload, &v, 8);
		lt_ring_commit(r, &c);
	}
	LT_ASSERT_EQ(rc, -ENOBUFS);
	LT_ASSERT_EQ(lt_ring_lost(r, 0), 0);
	/* the counting reserve counts the same refusal */
	LT_ASSERT_EQ(lt_ring_reserve_at(r, &c, 0, ts, 1, 8), -ENOBUFS);
	LT_ASSERT_EQ(lt_ring_lost(r, 0), 1);
	/* room made: the retry succeeds, nothing more counted */
	struct lt_ring_subbuf sb;
	LT_ASSERT_EQ(lt_ring_get_subbuf(r, 0, &sb), 0);
	lt_ring_put_subbuf(r, 0);
	LT_ASSERT_EQ(lt_ring_reserve_at_try(r, &c, 0, ts, 1, 8), 0);
	lt_ring_commit(r, &c);
	LT_ASSERT_EQ(lt_ring_lost(r, 0), 1);
	lt_ring_destroy(r);
}
#endif

LT_TEST(test_consumer_maps_buffer_in_forked_child)
{
	pin_cpu0();
	struct lt_ring *r = make_ring(LT_RING_DISCARD, 4, 4096);
	int fd = lt_ring_fd(r);
	/* the child writes, as a traced process does; the parent reads */
	pid_t pid = fork();
	LT_ASSERT_CMP(pid, >=, 0);
	if (pid == 0) {
		struct lt_ring *m = NULL;
		if (lt_ring_map(fd, &m) != 0)
			_exit(3);
		for (uint64_t i = 0; i < 100; i++)
			if (write_seq(m, 1, i) != 0)
				_exit(4);
		_exit(0);
	}
	int st;
	LT_ASSERT_EQ(waitpid(pid, &st, 0), pid);
	LT_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	lt_ring_flush(r, 0);
	drain_cpu0(r, &coll);
	LT_ASSERT_EQ(coll.n, 100);
	LT_ASSERT_EQ(coll.seqs[99], 99);
	/* and a child can consume what the parent wrote */
	for (uint64_t i = 0; i < 50; i++)
		LT_ASSERT_EQ(write_seq(r, 1, i), 0);
	lt_ring_flush(r, 0);
	pid = fork();
	if (pid == 0) {
		struct lt_ring *m = NULL;
		coll.n = 0;
		if (lt_ring_map(fd, &m) != 0)
			_exit(3);
		drain_cpu0(m, &coll);
		_exit(coll.n == 50 ? 0 : 5);
	}
	LT_ASSERT_EQ(waitpid(pid, &st, 0), pid);
	LT_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	lt_ring_destroy(r);
}

LT_TEST(test_map_rejects_bad_geometry)
{
	int fd = memfd_create("bad", 0);
	LT_ASSERT_CMP(fd, >=, 0);
	char junk[8192];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 7);
	LT_ASSERT_EQ(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	struct lt_ring *m = NULL;
	LT_ASSERT_EQ(lt_ring_map(fd, &m), -EINVAL);
	/* a valid header that claims more memory than the file holds */
	struct lt_ring *r = make_ring(LT_RING_DISCARD, 2, 1024);
	struct lt_ring_shm h = *r->shm;
	h.total_size *= 64;
	LT_ASSERT_EQ(pwrite(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	LT_ASSERT_EQ(lt_ring_map(fd, &m), -EINVAL);
	lt_ring_destroy(r);
	close(fd);
}

LT_TEST(test_create_rejects_bad_config)
{
	struct lt_ring_config cfg = { .n_subbufs = 3, .subbuf_size = 4096 };
	struct lt_ring *r;
	LT_ASSERT_EQ(lt_ring_create(&cfg, &r), -EINVAL);
	cfg.n_subbufs = 4;
	cfg.subbuf_size = 1000;
	LT_ASSERT_EQ(lt_ring_create(&cfg, &r), -EINVAL);
}
