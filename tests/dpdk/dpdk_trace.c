/* SPDX-License-Identifier: MIT */
/* dpdk_trace.c - a DPDK application that writes a CTF 1.8 trace with
 * DPDK's own tracer, for tests/test_dpdk.sh to read with lowtrace and
 * babeltrace2.
 *
 * usage: dpdk_trace TRACE_DIR NEVENTS [EAL_OPTION...]
 *
 * EAL starts without hugepages, PCI or shared files (--no-huge,
 * --in-memory, --no-shconf) on lcores 0 and 1 with every trace point
 * enabled (--trace=.*), a null Ethernet device (net_null) and its trace
 * in a subdirectory of TRACE_DIR.  The work fires DPDK's trace points of
 * EAL (rte_malloc, rte_zmalloc_socket, rte_realloc, rte_free, memzones,
 * alarms, remote launch, the generic ones of every field type), of the
 * mempool library (create, populate, cache, free) and of ethdev
 * (configure, queue setup, start, stop, close), and emits
 * tests/dpdk/dpdk_tp.h's own trace points NEVENTS times on each lcore,
 * so that two threads write a stream each.  rte_trace_save() writes the
 * trace, rte_eal_cleanup() ends EAL.  The fast-path trace points (rx/tx
 * bursts, mempool get/put) are compiled out of Debian's DPDK
 * (RTE_ENABLE_TRACE_FP unset), so their calls add no events. */
#include <rte_alarm.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memzone.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_trace.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpdk_tp.h"

/* DPDK's generic EAL trace points, one per field type, declared as
 * rte_eal_trace.h declares them: that header includes one of EAL's
 * internal headers, which DPDK does not install. */
#define LT_GENERIC(type, emit)                         \
	RTE_TRACE_POINT(rte_eal_trace_generic_##emit,  \
			RTE_TRACE_POINT_ARGS(type in), \
			rte_trace_point_emit_##emit(in);)
RTE_TRACE_POINT(rte_eal_trace_generic_void, RTE_TRACE_POINT_ARGS(void), )
LT_GENERIC(uint8_t, u8)
LT_GENERIC(int8_t, i8)
LT_GENERIC(uint16_t, u16)
LT_GENERIC(int16_t, i16)
LT_GENERIC(uint32_t, u32)
LT_GENERIC(int32_t, i32)
LT_GENERIC(uint64_t, u64)
LT_GENERIC(int64_t, i64)
LT_GENERIC(int, int)
LT_GENERIC(long, long)
LT_GENERIC(size_t, size_t)
LT_GENERIC(float, float)
LT_GENERIC(double, double)
LT_GENERIC(const void *, ptr)
RTE_TRACE_POINT(rte_eal_trace_generic_str, RTE_TRACE_POINT_ARGS(const char *in),
		rte_trace_point_emit_string(in);)
RTE_TRACE_POINT(rte_eal_trace_generic_func,
		RTE_TRACE_POINT_ARGS(const char *in),
		rte_trace_point_emit_string(in);)

static int nevents;

static void emit_own(unsigned lcore)
{
	/* DPDK keeps 31 bytes of a string and a NUL: the last two are cut,
	 * one of them in the middle of a UTF-8 sequence */
	static const char *const names[] = {
		"alpha",
		"quote \" and back\\slash",
		"tab\tnew\nline",
		"h\xc3\xa9llo w\xc3\xb6rld",
		"a string longer than the thirty-one bytes DPDK keeps",
		"thirty bytes then \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9",
	};
	for (int i = 0; i < nevents; i++) {
		lt_dpdk_trace_ints((uint8_t)(i + lcore), (uint16_t)(i * 7),
				   (uint32_t)i * 100003u,
				   (uint64_t)i * 0x123456789ull + lcore,
				   (int8_t)(-i), (int16_t)(-i * 3),
				   -i * 1000 - 1, -(int64_t)i * 0x10000000ll);
		lt_dpdk_trace_mix(i, -(long)i * 3, (size_t)i * 8 + lcore,
				  (float)i + 0.25f, i / 3.0 - 7.5,
				  (const void *)(uintptr_t)(0xdead0000u + i),
				  names[(unsigned)(i + lcore) % 6]);
	}
}

static void malloc_work(void)
{
	for (int i = 0; i < 50; i++) {
		void *a = rte_malloc("lt", 64 + i, 0);
		void *b = rte_zmalloc_socket("lt", 128, 64, SOCKET_ID_ANY);
		a = rte_realloc(a, 256 + i, 0);
		rte_free(a);
		rte_free(b);
	}
}

static int worker(void *arg)
{
	(void)arg;
	malloc_work();
	emit_own(rte_lcore_id());
	return 0;
}

static void alarm_cb(void *arg)
{
	(void)arg;
}

/* ethdev on net_null: its control path fires ethdev's trace points */
static int eth_work(struct rte_mempool *mbufs)
{
	struct rte_eth_conf conf;
	uint16_t port;
	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_count_avail() == 0) {
		fprintf(stderr, "dpdk_trace: no net_null port\n");
		return -1;
	}
	RTE_ETH_FOREACH_DEV(port)
	{
		if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
		    rte_eth_rx_queue_setup(port, 0, 64, SOCKET_ID_ANY, NULL,
					   mbufs) != 0 ||
		    rte_eth_tx_queue_setup(port, 0, 64, SOCKET_ID_ANY, NULL) !=
			    0 ||
		    rte_eth_dev_start(port) != 0) {
			fprintf(stderr, "dpdk_trace: port %u setup failed\n",
				port);
			return -1;
		}
		for (int i = 0; i < 10; i++) {
			struct rte_mbuf *pkts[8];
			uint16_t n = rte_eth_rx_burst(port, 0, pkts, 8);
			uint16_t sent = rte_eth_tx_burst(port, 0, pkts, n);
			for (uint16_t k = sent; k < n; k++)
				rte_pktmbuf_free(pkts[k]);
		}
		if (rte_eth_dev_stop(port) != 0 || rte_eth_dev_close(port) != 0)
			return -1;
	}
	return 0;
}

static int generic_work(void)
{
	rte_eal_trace_generic_void();
	rte_eal_trace_generic_u8(0xfe);
	rte_eal_trace_generic_i8(-100);
	rte_eal_trace_generic_u16(65000);
	rte_eal_trace_generic_i16(-32000);
	rte_eal_trace_generic_u32(4000000000u);
	rte_eal_trace_generic_i32(-2000000000);
	rte_eal_trace_generic_u64(18000000000000000000ull);
	rte_eal_trace_generic_i64(-9000000000000000000ll);
	rte_eal_trace_generic_int(-42);
	rte_eal_trace_generic_long(-4242424242l);
	rte_eal_trace_generic_size_t(123456789);
	rte_eal_trace_generic_float(1.5f);
	rte_eal_trace_generic_double(-2.125);
	rte_eal_trace_generic_ptr(&nevents);
	rte_eal_trace_generic_str("generic string");
	/* DPDK writes nothing of a NULL string: the event keeps the bytes
	 * its buffer held there (zeros in a new buffer) */
	rte_eal_trace_generic_str(NULL);
	rte_eal_trace_generic_str("");
	rte_eal_trace_generic_func(__func__);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr,
			"usage: dpdk_trace TRACE_DIR NEVENTS [EAL_OPTION...]\n");
		return 2;
	}
	nevents = atoi(argv[2]);
	char dir[4096];
	snprintf(dir, sizeof(dir), "--trace-dir=%s", argv[1]);
	char *eal[64] = { argv[0],
			  "--no-huge",
			  "-m",
			  "64",
			  "--no-pci",
			  "--no-shconf",
			  "--no-telemetry",
			  "-l",
			  "0-1",
			  "--log-level=*:warning",
			  "--trace=.*",
			  dir,
			  "--trace-bufsz=8M",
			  "--vdev=net_null0" };
	int n = 0;
	while (eal[n] != NULL)
		n++;
	/* more options (--trace-bufsz, --trace-mode) after the defaults:
	 * EAL takes the last of each */
	for (int i = 3; i < argc && n < 63; i++)
		eal[n++] = argv[i];
	if (rte_eal_init(n, eal) < 0) {
		fprintf(stderr, "dpdk_trace: rte_eal_init failed\n");
		return 1;
	}
	int rc = 0;
	unsigned wl = rte_get_next_lcore(-1, 1, 0);
	if (wl >= RTE_MAX_LCORE ||
	    rte_eal_remote_launch(worker, NULL, wl) != 0) {
		fprintf(stderr, "dpdk_trace: no worker lcore\n");
		rc = 1;
	}
	malloc_work();
	generic_work();
	for (int i = 0; i < 20; i++) {
		char name[32];
		snprintf(name, sizeof(name), "lt_mz%d", i);
		const struct rte_memzone *mz =
			rte_memzone_reserve(name, 4096, SOCKET_ID_ANY, 0);
		if (mz == NULL || rte_memzone_lookup(name) != mz ||
		    rte_memzone_free(mz) != 0)
			rc = 1;
		rte_eal_alarm_set(1000000, alarm_cb, NULL);
		rte_eal_alarm_cancel(alarm_cb, NULL);
	}
	struct rte_ring *r = rte_ring_create("lt_ring", 256, SOCKET_ID_ANY, 0);
	if (r != NULL) {
		for (uintptr_t i = 1; i < 100; i++)
			rte_ring_enqueue(r, (void *)i);
		void *obj;
		while (rte_ring_dequeue(r, &obj) == 0)
			;
		rte_ring_free(r);
	} else {
		rc = 1;
	}
	struct rte_mempool *mp =
		rte_mempool_create("lt_pool", 511, 128, 32, 0, NULL, NULL, NULL,
				   NULL, SOCKET_ID_ANY, 0);
	if (mp != NULL) {
		void *objs[16];
		for (int i = 0; i < 10; i++)
			if (rte_mempool_get_bulk(mp, objs, 16) == 0)
				rte_mempool_put_bulk(mp, objs, 16);
		rte_mempool_free(mp);
	} else {
		rc = 1;
	}
	struct rte_mempool *mbufs = rte_pktmbuf_pool_create(
		"lt_mbufs", 1023, 32, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
		SOCKET_ID_ANY);
	if (mbufs == NULL || eth_work(mbufs) != 0)
		rc = 1;
	emit_own(rte_lcore_id());
	if (rte_eal_wait_lcore(wl) != 0)
		rc = 1;
	rte_mempool_free(mbufs);
	if (rte_trace_save() != 0) {
		fprintf(stderr, "dpdk_trace: rte_trace_save failed\n");
		rc = 1;
	}
	if (rte_eal_cleanup() != 0)
		rc = 1;
	return rc;
}
