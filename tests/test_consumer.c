/* SPDX-License-Identifier: MIT */
/*
 * test_consumer.c - the consumer core's local buffers (consumer.h): a ring
 * this process fills itself, as the recorder's kernel channel does, written
 * to CHANNEL_CPU by the consumer, its partial sub-buffers closed by its
 * writer alone, its ring left to it.
 */
#include "lt_test.h"
#include "lt_tools.h"

#include <sys/stat.h>
#include <time.h>

#include "clock/clock.h"
#include "format/metadata.h"
#include "ring/ring_consume.h"
#include "ring/ring_write.h"
#include "session/consumer.h"

/* Atomic, one writer for every CPU: the kernel channel's kind of ring. */
static struct lt_ring *make_ring(enum lt_ring_mode mode)
{
	struct lt_ring_config cfg = { .mode = mode,
				      .n_cpus = 2,
				      .n_subbufs = 4,
				      .subbuf_size = 4096,
				      .stream_id = 7,
				      .sync = LT_RING_SYNC_ATOMIC };
	struct lt_ring *r = NULL;
	memcpy(cfg.uuid, "0123456789abcdef", 16);
	LT_ASSERT_EQ(lt_clock_init(), 0);
	LT_ASSERT_EQ(lt_ring_create(&cfg, &r), 0);
	return r;
}

/* One record of 8 bytes at ts on cpu, as the kernel channel writes. */
static void write_at(struct lt_ring *r, uint32_t cpu, uint64_t ts)
{
	struct lt_ring_ctx c;
	uint64_t v = ts;
	LT_ASSERT_EQ(lt_ring_reserve_at(r, &c, cpu, ts, 0, 8), 0);
	memcpy(c.payload, &v, 8);
	lt_ring_commit(r, &c);
}

static off_t file_size(const char *dir, const char *name)
{
	char p[1024];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0 ? st.st_size : -1;
}

/* The timestamp_end of the packet at the start of dir/name. */
static uint64_t first_end(const char *dir, const char *name)
{
	char p[1024];
	struct lt_packet_header h;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "rb");
	LT_ASSERT(f != NULL);
	LT_ASSERT_EQ(fread(&h, sizeof(h), 1, f), 1);
	fclose(f);
	return h.timestamp_end;
}

static void add_local(struct lt_consumer *c, struct lt_consumer_buf *b,
		      struct lt_ring *r, struct lt_consumer_stats *st)
{
	*b = (struct lt_consumer_buf){ .ring = r,
				       .channel = "kernel",
				       .stream_id = 7,
				       .overwrite =
					       r->mode == LT_RING_OVERWRITE,
				       .local = 1,
				       .st = st };
	LT_ASSERT_EQ(lt_consumer_add(c, b), 0);
}

LT_TEST(test_local_buffer_closed_by_its_writer_alone)
{
	const char *dir = lt_tmpdir("consumer");
	struct lt_ring *r = make_ring(LT_RING_DISCARD);
	struct lt_consumer c;
	struct lt_consumer_buf b;
	struct lt_consumer_stats st = { 0 };
	uint8_t uuid[16] = { 1 };

	lt_consumer_init(&c, dir, uuid, 1);
	c.count_events = 1; /* the recorder's: a local buffer is not walked */
	add_local(&c, &b, r, &st);
	write_at(r, 0, 1000);
	/* the switch timer leaves the open sub-buffer to its writer */
	lt_consumer_switch_timer(&c);
	struct timespec d = { 0, 5000000 };
	nanosleep(&d, NULL);
	lt_consumer_switch_timer(&c);
	LT_ASSERT_EQ(lt_consumer_drain(&c), 0);
	LT_ASSERT_EQ(st.packets, 0);
	/* its writer closes it, at the time it knows */
	LT_ASSERT_EQ(lt_ring_flush_at(r, 0, 5000), 1);
	LT_ASSERT_EQ(lt_consumer_drain(&c), 1);
	LT_ASSERT_EQ(st.packets, 1);
	LT_ASSERT_EQ(st.events, 0);
	LT_ASSERT_EQ(file_size(dir, "kernel_0"), LT_PACKET_HDR_SIZE + 4 + 8);
	LT_ASSERT_EQ(first_end(dir, "kernel_0"), 5000);
	LT_ASSERT_EQ(file_size(dir, "kernel_1"), -1);
	/* nor does the end close it: that too is the writer's */
	write_at(r, 1, 6000);
	lt_consumer_finish(&c);
	LT_ASSERT_EQ(st.packets, 1);
	LT_ASSERT_EQ(file_size(dir, "kernel_1"), -1);
	/* a full buffer: the writer has the consumer drain it */
	LT_ASSERT_EQ(lt_ring_flush_at(r, 1, 7000), 1);
	LT_ASSERT_EQ(lt_consumer_drain_buf(&c, &b), 1);
	LT_ASSERT_EQ(first_end(dir, "kernel_1"), 7000);
	lt_consumer_destroy(&c);
	/* the ring is still its writer's */
	write_at(r, 0, 8000);
	LT_ASSERT_EQ(lt_ring_flush_at(r, 0, 9000), 1);
	struct lt_ring_subbuf sb;
	LT_ASSERT_EQ(lt_ring_get_subbuf(r, 0, &sb), 0);
	LT_ASSERT_EQ(sb.hdr->timestamp_end, 9000);
	lt_ring_put_subbuf(r, 0);
	lt_ring_destroy(r);
}

LT_TEST(test_local_overwrite_buffer_copied_by_snapshots)
{
	const char *dir = lt_tmpdir("consumer-snap");
	char snap[600];
	struct lt_ring *r = make_ring(LT_RING_OVERWRITE);
	struct lt_consumer c;
	struct lt_consumer_buf b;
	struct lt_consumer_stats st = { 0 };
	uint8_t uuid[16] = { 2 };

	snprintf(snap, sizeof(snap), "%s/snapshot-0", dir);
	lt_consumer_init(&c, dir, uuid, 0);
	add_local(&c, &b, r, &st);
	write_at(r, 1, 1000);
	LT_ASSERT_EQ(lt_ring_flush_at(r, 1, 2000), 1);
	/* a pass drains no overwrite buffer */
	LT_ASSERT_EQ(lt_consumer_drain(&c), 0);
	LT_ASSERT_EQ(mkdir(snap, 0755), 0);
	LT_ASSERT_EQ(lt_consumer_snapshot(&c, snap), 1);
	LT_ASSERT_EQ(file_size(snap, "kernel_1"), LT_PACKET_HDR_SIZE + 4 + 8);
	LT_ASSERT_EQ(first_end(snap, "kernel_1"), 2000);
	/* the end copies the same into the trace */
	lt_consumer_finish(&c);
	LT_ASSERT_EQ(st.packets, 1);
	LT_ASSERT_EQ(file_size(dir, "kernel_1"), LT_PACKET_HDR_SIZE + 4 + 8);
	lt_consumer_destroy(&c);
	lt_ring_destroy(r);
}
