/* SPDX-License-Identifier: MIT */
/*
 * test_ring_rseq.c - every behaviour of test_ring.c on rseq channels, and
 * what only they do: the consumer's close from another CPU, the choice of
 * kind by the writing process, and a thread that has no rseq.
 */
#define RING_SYNC LT_RING_SYNC_RSEQ
#include "test_ring.c"

#include <sys/syscall.h>

static int pin_to(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof(s), &s);
}

LT_TEST(test_rseq_flush_from_another_cpu_keeps_affinity)
{
	pin_cpu0();
	struct lt_ring *r = make_ring(LT_RING_DISCARD, 4, 4096);
	for (uint64_t i = 0; i < 10; i++)
		LT_ASSERT_EQ(write_seq(r, 1, i), 0);
	/* the consumer runs elsewhere, as the recorder does */
	int other = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	LT_ASSERT_EQ(pin_to(other), 0);
	struct lt_ring_subbuf sb;
	LT_ASSERT_EQ(lt_ring_get_subbuf(r, 0, &sb), -EAGAIN);
	LT_ASSERT_EQ(lt_ring_flush(r, 0), 1);
	LT_ASSERT_EQ(lt_ring_flush(r, 0), 0); /* nothing open any more */
	cpu_set_t now;
	LT_ASSERT_EQ(sched_getaffinity(0, sizeof(now), &now), 0);
	LT_ASSERT_EQ(CPU_COUNT(&now), 1);
	LT_ASSERT(CPU_ISSET(other, &now));
	LT_ASSERT_EQ(lt_ring_get_subbuf(r, 0, &sb), 0);
	LT_ASSERT_EQ(sb.len, LT_PACKET_HDR_SIZE + 10 * (4 + 8));
	LT_ASSERT_CMP(sb.hdr->timestamp_end, >=, sb.hdr->timestamp_begin);
	const char *why = "";
	LT_ASSERT_EQ(rd_walk_packet(sb.data, sb.len, size_u64, collect_ev,
				    &coll, &why),
		     0);
	LT_ASSERT_EQ(coll.n, 10);
	lt_ring_put_subbuf(r, 0);
	/* the writer goes on in the next sub-buffer */
	LT_ASSERT_EQ(pin_to(0), 0);
	LT_ASSERT_EQ(write_seq(r, 1, 10), 0);
	LT_ASSERT_EQ(lt_ring_flush(r, 0), 1);
	coll.n = 0;
	LT_ASSERT_EQ(drain_cpu0(r, &coll), 1);
	LT_ASSERT_EQ(coll.n, 1);
	LT_ASSERT_EQ(coll.seqs[0], 10);
	lt_ring_destroy(r);
}

LT_TEST(test_writer_chooses_the_kind_once)
{
	struct lt_ring_config cfg = { .n_subbufs = 4,
				      .subbuf_size = 4096,
				      .sync = LT_RING_SYNC_WRITER };
	struct lt_ring *r = NULL, *m = NULL;
	if (!lt_ring_rseq_usable())
		LT_SKIP("no rseq in this thread (x86_64, glibc 2.35+)");
	LT_ASSERT_EQ(lt_ring_create(&cfg, &r), 0);
	LT_ASSERT_EQ(lt_ring_sync_of(r), LT_RING_SYNC_WRITER);
	LT_ASSERT_EQ(lt_ring_map(lt_ring_fd(r), &m), 0);
	LT_ASSERT_EQ(lt_ring_choose_sync(m), LT_RING_SYNC_RSEQ);
	LT_ASSERT_EQ(m->sync, LT_RING_SYNC_RSEQ);
	/* the consumer's handle sees it; a second choice keeps the first */
	LT_ASSERT_EQ(lt_ring_sync_of(r), LT_RING_SYNC_RSEQ);
	setenv("LOWTRACE_RING_SYNC", "atomic", 1);
	LT_ASSERT_EQ(lt_ring_choose_sync(r), LT_RING_SYNC_RSEQ);
	lt_ring_destroy(m);
	lt_ring_destroy(r);
}

LT_TEST(test_environment_forces_atomic)
{
	struct lt_ring_config cfg = { .n_subbufs = 4,
				      .subbuf_size = 4096,
				      .sync = LT_RING_SYNC_WRITER };
	struct lt_ring *r = NULL;
	setenv("LOWTRACE_RING_SYNC", "atomic", 1);
	LT_ASSERT_EQ(lt_ring_rseq_usable(), 0);
	LT_ASSERT_EQ(lt_ring_create(&cfg, &r), 0);
	LT_ASSERT_EQ(lt_ring_choose_sync(r), LT_RING_SYNC_ATOMIC);
	lt_ring_destroy(r);
	cfg.sync = LT_RING_SYNC_RSEQ;
	LT_ASSERT_EQ(lt_ring_create(&cfg, &r), -ENOTSUP);
}

#ifdef LT_HAVE_RSEQ
/* A thread whose rseq area is unregistered cannot write an rseq channel:
 * its events are dropped and counted, nothing else breaks. */
LT_TEST(test_thread_without_rseq_drops_and_counts)
{
	pin_cpu0();
	struct lt_ring *r = make_ring(LT_RING_DISCARD, 4, 4096);
	LT_ASSERT_EQ(write_seq(r, 1, 0), 0);
	struct rseq *rs = lt_rseq_area();
	LT_ASSERT(rs != NULL);
	if (syscall(SYS_rseq, rs, 32, 1 /* RSEQ_FLAG_UNREGISTER */, RSEQ_SIG) !=
	    0)
		LT_SKIP("cannot unregister this thread's rseq area: %s",
			strerror(errno));
	LT_ASSERT_CMP((int32_t)rs->cpu_id, <, 0);
	LT_ASSERT_EQ(write_seq(r, 1, 1), -ENOBUFS);
	static char big[100];
	LT_ASSERT_EQ(lt_ring_write(r, 2, big, sizeof(big)), -ENOBUFS);
	LT_ASSERT_EQ(lt_ring_lost(r, 0), 2);
	lt_ring_destroy(r);
}
#endif

static int copy_collect(void *arg, const struct lt_packet_header *h,
			const void *data, size_t len)
{
	const char *why = "";
	if (h->content_size != len * 8 || h->timestamp_end < h->timestamp_begin)
		LT_FAIL("copied packet header: %llu bits for %zu bytes",
			(unsigned long long)h->content_size, len);
	if (rd_walk_packet(data, len, size_u64, collect_ev, arg, &why))
		LT_FAIL("copied packet: %s", why);
	return 0;
}

/* A consumer's last look: the open sub-buffer's records, copied, and the
 * buffer as it was. */
LT_TEST(test_copy_open_leaves_the_buffer_alone)
{
	pin_cpu0();
	struct lt_ring *r = make_ring(LT_RING_DISCARD, 4, 4096);
	LT_ASSERT_EQ(lt_ring_copy_open(r, 0, copy_collect, &coll), 0);
	for (uint64_t i = 0; i < 7; i++)
		LT_ASSERT_EQ(write_seq(r, 1, i), 0);
	uint64_t off = atomic_load(&lt_ring_ctl(r, 0)->offset);
	LT_ASSERT_EQ(lt_ring_copy_open(r, 0, copy_collect, &coll), 1);
	LT_ASSERT_EQ(coll.n, 7);
	LT_ASSERT_EQ(coll.seqs[6], 6);
	LT_ASSERT_EQ(atomic_load(&lt_ring_ctl(r, 0)->offset), off);
	struct lt_ring_subbuf sb;
	LT_ASSERT_EQ(lt_ring_get_subbuf(r, 0, &sb), -EAGAIN);
	lt_ring_destroy(r);
}
