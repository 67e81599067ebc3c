/* SPDX-License-Identifier: MIT */
/*
 * test_ring_torture.c - writers, a tracing signal handler and a consumer
 * hammer one channel for a few seconds in each mode, with either kind of
 * writer synchronisation (atomic: compare-and-swap; rseq: restartable
 * sequences).
 *
 * Two writer threads (not pinned, so they migrate; a third thread moves
 * them from CPU to CPU every millisecond or so) and a SIGALRM handler
 * (setitimer) that interrupts them and writes too, as its own writer.  The
 * consumer closes partial sub-buffers now and then while they write.  Each
 * record carries its writer id, that writer's sequence number and a
 * checksum; three event ids with three payload sizes, one of them beyond
 * the compact header's range.  Checked: every record read is intact; each
 * writer's sequence numbers increase within a CPU buffer; in discard mode
 * records read + records the writers saw dropped == records written,
 * exactly, and the ring's lost counters agree.
 * LT_TORTURE_SECONDS sets the time per mode (default 3).
 */
#define _GNU_SOURCE
#include "lt_test.h"
#include "ring_decode.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/time.h>

#define NWRITERS 2
#define NW (2 * NWRITERS) /* each thread, and its signal handler */
#define MAXCPU 64

static struct lt_ring *ring;
static atomic_int stop_writers;
static atomic_int stop_consumer;

struct wstat {
	_Atomic uint64_t written, dropped;
	uint64_t seq; /* touched by its own writer only */
};
static struct wstat ws[NW];
static uint64_t got[NW];
static uint64_t last_seq[NW][MAXCPU]; /* +1, 0 = none yet */
static uint64_t events_read, packets_read;

static __thread int my_writer = -1;
static pthread_t writer_threads[NWRITERS];

static uint32_t checksum(uint32_t w, uint64_t seq, uint32_t id)
{
	uint64_t x = (seq + 0x9e3779b97f4a7c15ull) * (w + 1) ^
		     (id * 0xff51afd7ed558ccdull);
	x ^= x >> 29;
	return (uint32_t)x ^ (uint32_t)(x >> 32);
}

static const uint32_t ids[3] = { 2, 17, 44 };

static long payload_size(uint32_t id)
{
	switch (id) {
	case 2:
		return 16;
	case 17:
		return 24;
	case 44:
		return 40;
	default:
		return -1;
	}
}

/* Odd sequence numbers go through lt_ring_write(), even ones through
 * lt_ring_reserve() and lt_ring_commit(): both kinds share the buffers.
 * An rseq channel has lt_ring_write() alone. */
static void write_one(int w)
{
	struct wstat *s = &ws[w];
	uint64_t seq = s->seq++;
	uint32_t id = ids[seq % 3];
	uint32_t len = (uint32_t)payload_size(id);
	struct lt_ring_ctx c;
	char buf[64];

	atomic_fetch_add_explicit(&s->written, 1, memory_order_relaxed);
	uint32_t wid = (uint32_t)w, ck = checksum(wid, seq, id);
	memcpy(buf, &wid, 4);
	memcpy(buf + 4, &ck, 4);
	memcpy(buf + 8, &seq, 8);
	/* fill the rest with a pattern derived from the checksum */
	for (uint32_t i = 16; i < len; i++)
		buf[i] = (char)(ck + i);
	if ((seq & 1) || ring->sync == LT_RING_SYNC_RSEQ) {
		if (lt_ring_write(ring, id, buf, len) != 0)
			atomic_fetch_add_explicit(&s->dropped, 1,
						  memory_order_relaxed);
		return;
	}
	if (lt_ring_reserve(ring, &c, id, len) != 0) {
		atomic_fetch_add_explicit(&s->dropped, 1, memory_order_relaxed);
		return;
	}
	memcpy(c.payload, buf, len);
	lt_ring_commit(ring, &c);
}

static void on_alarm(int sig)
{
	(void)sig;
	if (my_writer >= 0)
		write_one(NWRITERS + my_writer);
}

static void *writer(void *arg)
{
	my_writer = (int)(intptr_t)arg;
	while (!atomic_load_explicit(&stop_writers, memory_order_relaxed))
		write_one(my_writer);
	return NULL;
}

static int check_event(void *arg, const struct rd_event *ev)
{
	uint32_t cpu = *(uint32_t *)arg;
	uint32_t w, ck;
	uint64_t seq;

	memcpy(&w, ev->payload, 4);
	memcpy(&ck, ev->payload + 4, 4);
	memcpy(&seq, ev->payload + 8, 8);
	if (w >= NW)
		LT_FAIL("cpu %u: bad writer id %u", cpu, w);
	if (ck != checksum(w, seq, ev->id) || ids[seq % 3] != ev->id)
		LT_FAIL("cpu %u: corrupt record writer %u seq %llu", cpu, w,
			(unsigned long long)seq);
	for (size_t i = 16; i < ev->len; i++)
		if (ev->payload[i] != (unsigned char)(ck + (uint32_t)i))
			LT_FAIL("cpu %u: corrupt payload byte", cpu);
	if (last_seq[w][cpu] && seq + 1 <= last_seq[w][cpu])
		LT_FAIL("cpu %u: writer %u seq %llu after %llu", cpu, w,
			(unsigned long long)seq,
			(unsigned long long)last_seq[w][cpu] - 1);
	last_seq[w][cpu] = seq + 1;
	got[w]++;
	events_read++;
	return 0;
}

static void check_packet(uint32_t cpu, const void *data, size_t len)
{
	const char *why = "";
	const struct lt_packet_header *h = data;
	if (h->cpu_id != cpu)
		LT_FAIL("packet of cpu %u in buffer %u", h->cpu_id, cpu);
	if (rd_walk_packet(data, len, payload_size, check_event, &cpu, &why))
		LT_FAIL("cpu %u packet %llu: %s", cpu,
			(unsigned long long)h->packet_seq_num, why);
	packets_read++;
}

/* Moves each writer to a CPU chosen at random, every 0.5-1.5 ms. */
static void *migrator(void *arg)
{
	unsigned seed = 12345;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	(void)arg;
	while (!atomic_load_explicit(&stop_writers, memory_order_relaxed)) {
		for (int i = 0; i < NWRITERS; i++) {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET((int)(rand_r(&seed) % (unsigned)ncpu), &set);
			pthread_setaffinity_np(writer_threads[i], sizeof(set),
					       &set);
		}
		struct timespec d = { 0, 500000 + rand_r(&seed) % 1000000 };
		nanosleep(&d, NULL);
	}
	return NULL;
}

static void *discard_consumer(void *arg)
{
	uint64_t next_seq[MAXCPU] = { 0 };
	unsigned spin = 0;
	(void)arg;
	for (;;) {
		int any = 0, done = atomic_load(&stop_consumer);
		for (uint32_t cpu = 0; cpu < ring->n_cpus; cpu++) {
			struct lt_ring_subbuf sb;
			/* at the end, and now and then under the writers */
			if (done || spin % 16 == cpu)
				lt_ring_flush(ring, cpu);
			while (lt_ring_get_subbuf(ring, cpu, &sb) == 0) {
				if (sb.seq != next_seq[cpu])
					LT_FAIL("cpu %u: packet %llu, want %llu",
						cpu, (unsigned long long)sb.seq,
						(unsigned long long)
							next_seq[cpu]);
				next_seq[cpu]++;
				check_packet(cpu, sb.data, sb.len);
				lt_ring_put_subbuf(ring, cpu);
				any = 1;
			}
		}
		if (done && !any)
			break;
		/* now and then fall behind, so that the writers drop */
		if (++spin % 64 == 0) {
			struct timespec d = { 0, 2000000 };
			nanosleep(&d, NULL);
		}
	}
	return NULL;
}

static int snap_packet(void *arg, const struct lt_packet_header *h,
		       const void *data, size_t len)
{
	uint32_t cpu = *(uint32_t *)arg;
	uint64_t *prev = (uint64_t *)arg + 1;
	if (*prev != UINT64_MAX && h->packet_seq_num != *prev + 1)
		LT_FAIL("snapshot of cpu %u: packet %llu after %llu", cpu,
			(unsigned long long)h->packet_seq_num,
			(unsigned long long)*prev);
	*prev = h->packet_seq_num;
	check_packet(cpu, data, len);
	return 0;
}

static _Atomic uint64_t snapshots;

static void take_snapshot(void)
{
	for (uint32_t cpu = 0; cpu < ring->n_cpus; cpu++) {
		uint64_t arg[2] = { cpu, UINT64_MAX };
		/* each snapshot is checked on its own */
		memset(last_seq, 0, sizeof(last_seq));
		int n = lt_ring_snapshot(ring, cpu, snap_packet, arg);
		if (n < 0)
			LT_FAIL("snapshot: %d", n);
	}
	snapshots++;
}

static void *overwrite_consumer(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_consumer)) {
		take_snapshot();
		struct timespec d = { 0, 1000000 };
		nanosleep(&d, NULL);
	}
	return NULL;
}

static double seconds(void)
{
	const char *v = getenv("LT_TORTURE_SECONDS");
	double s = v ? atof(v) : 3.0;
	return s > 0 ? s : 3.0;
}

static void torture(enum lt_ring_mode mode, enum lt_ring_sync sync)
{
	struct lt_ring_config cfg = { .mode = mode,
				      .n_subbufs = 4,
				      .subbuf_size = 4096,
				      .stream_id = 1,
				      .sync = sync };
	if (sync == LT_RING_SYNC_RSEQ && !lt_ring_rseq_usable())
		LT_SKIP("no rseq in this thread (x86_64, glibc 2.35+)");
	LT_ASSERT_EQ(lt_clock_init(), 0);
	LT_ASSERT_EQ(lt_ring_create(&cfg, &ring), 0);
	LT_ASSERT_CMP(ring->n_cpus, <=, MAXCPU);

	/* only writer threads take the signal */
	sigset_t alrm, old;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	struct sigaction sa = { .sa_handler = on_alarm };
	sigaction(SIGALRM, &sa, NULL);
	pthread_t ct, mt;
	pthread_sigmask(SIG_BLOCK, &alrm, &old);
	pthread_create(&ct, NULL,
		       mode == LT_RING_DISCARD ? discard_consumer :
						 overwrite_consumer,
		       NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (int i = 0; i < NWRITERS; i++)
		pthread_create(&writer_threads[i], NULL, writer,
			       (void *)(intptr_t)i);
	pthread_sigmask(SIG_BLOCK, &alrm, NULL);
	pthread_create(&mt, NULL, migrator, NULL);
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	setitimer(ITIMER_REAL, &it, NULL);

	double s = seconds();
	struct timespec d = { (time_t)s, (long)((s - (long)s) * 1e9) };
	nanosleep(&d, NULL);
	/* however slow the machine, the consumer gets its snapshots in */
	while (mode == LT_RING_OVERWRITE && atomic_load(&snapshots) < 20)
		sched_yield();

	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	atomic_store(&stop_writers, 1);
	for (int i = 0; i < NWRITERS; i++)
		pthread_join(writer_threads[i], NULL);
	pthread_join(mt, NULL);
	atomic_store(&stop_consumer, 1);
	pthread_join(ct, NULL);

	uint64_t written = 0, dropped = 0, handler = 0, ring_lost = 0;
	for (int w = 0; w < NW; w++) {
		written += ws[w].written;
		dropped += ws[w].dropped;
		if (w >= NWRITERS)
			handler += ws[w].written;
	}
	for (uint32_t cpu = 0; cpu < ring->n_cpus; cpu++)
		ring_lost += lt_ring_lost(ring, cpu);
	printf("  %s, %s: %llu written (%llu from the signal handler), "
	       "%llu dropped, %llu read in %llu packets, %llu snapshots\n",
	       mode == LT_RING_DISCARD ? "discard" : "overwrite",
	       sync == LT_RING_SYNC_RSEQ ? "rseq" : "atomic",
	       (unsigned long long)written, (unsigned long long)handler,
	       (unsigned long long)dropped, (unsigned long long)events_read,
	       (unsigned long long)packets_read,
	       (unsigned long long)atomic_load(&snapshots));
	LT_ASSERT_CMP(handler, >, 0);
	LT_ASSERT_CMP(packets_read, >, 0);
	LT_ASSERT_EQ(ring_lost, dropped);
	if (mode == LT_RING_DISCARD) {
		LT_ASSERT_CMP(dropped, >, 0); /* the consumer fell behind */
		for (int w = 0; w < NW; w++)
			if (got[w] + ws[w].dropped != ws[w].written)
				LT_FAIL("writer %d: %llu read + %llu dropped "
					"!= %llu written",
					w, (unsigned long long)got[w],
					(unsigned long long)ws[w].dropped,
					(unsigned long long)ws[w].written);
	} else {
		LT_ASSERT_CMP(snapshots, >=, 20);
		/* a final snapshot holds each thread's newest records */
		take_snapshot();
	}
	lt_ring_destroy(ring);
}

LT_TEST(test_torture_discard_counts_every_event)
{
	torture(LT_RING_DISCARD, LT_RING_SYNC_ATOMIC);
}

LT_TEST(test_torture_overwrite_snapshots_stay_consistent)
{
	torture(LT_RING_OVERWRITE, LT_RING_SYNC_ATOMIC);
}

LT_TEST(test_torture_rseq_discard_counts_every_event)
{
	torture(LT_RING_DISCARD, LT_RING_SYNC_RSEQ);
}

LT_TEST(test_torture_rseq_overwrite_snapshots_stay_consistent)
{
	torture(LT_RING_OVERWRITE, LT_RING_SYNC_RSEQ);
}
