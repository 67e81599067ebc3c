/* SPDX-License-Identifier: MIT */
/*
 * test_probe.c - registering events, enabling them by name, wildcard and
 * log level, and objects that come and go with dlopen.
 */
#include "lt_test.h"
#include "lt_tools.h"

#include <dlfcn.h>
#include <signal.h>
#include <lowtrace/lowtrace.h>
#include <lowtrace/tracepoint.h>
#include <pthread.h>
#include <stdatomic.h>

#include "../examples/fields_tp.h"
#include "clock/clock.h"
#include "ctf/reader.h"
#include "probe/pattern.h"
#include "probe/probe.h"
#include "probe/targets.h"

/* Payloads of every length from 1 to 84 bytes: the copy into the ring
 * takes a different path for short ones (4-16 bytes in two words, 17-64
 * in a loop, longer ones in the general sequence). */
LT_EVENT(ptest, b1, LT_INFO, LT_ARGS(uint8_t, a), LT_FIELDS(LT_FIELD_INT(a, a)))
LT_EVENT(ptest, b2, LT_INFO, LT_ARGS(uint8_t, a, uint8_t, b),
	 LT_FIELDS(LT_FIELD_INT(a, a) LT_FIELD_INT(b, b)))
LT_EVENT(ptest, b3, LT_INFO, LT_ARGS(uint8_t, a, uint8_t, b, uint8_t, c),
	 LT_FIELDS(LT_FIELD_INT(a, a) LT_FIELD_INT(b, b) LT_FIELD_INT(c, c)))
LT_EVENT(ptest, seq, LT_INFO, LT_ARGS(const uint8_t *, v, uint32_t, n),
	 LT_FIELDS(LT_FIELD_SEQUENCE(v, v, n)))

/* Payloads of fixed size 4 to 16 go to the ring in two registers
 * (lt_probe_emit_words4/8); 17 bytes and more through memory. */
#define LT_FIXED_EVENT(n)                                           \
	LT_EVENT(ptest, f##n, LT_INFO, LT_ARGS(const uint8_t *, v), \
		 LT_FIELDS(LT_FIELD_ARRAY(v, v, n)))
LT_FIXED_EVENT(4)
LT_FIXED_EVENT(5)
LT_FIXED_EVENT(6)
LT_FIXED_EVENT(7)
LT_FIXED_EVENT(8)
LT_FIXED_EVENT(9)
LT_FIXED_EVENT(11)
LT_FIXED_EVENT(12)
LT_FIXED_EVENT(15)
LT_FIXED_EVENT(16)
LT_FIXED_EVENT(17)
LT_EVENT(ptest, mix7, LT_INFO, LT_ARGS(uint8_t, a, int32_t, b, uint16_t, c),
	 LT_FIELDS(LT_FIELD_INT(a, a) LT_FIELD_INT(b, b) LT_FIELD_HEX(c, c)))
LT_EVENT(ptest, mix12, LT_INFO, LT_ARGS(double, a, float, b),
	 LT_FIELDS(LT_FIELD_FLOAT(a, a) LT_FIELD_FLOAT(b, b)))
/* who: 0 the thread, 1 its signal handler; n: that one's count; check:
 * n ^ a constant, so that a record put together from two calls shows */
LT_EVENT(ptest, sig, LT_INFO,
	 LT_ARGS(uint32_t, who, uint32_t, n, uint32_t, check),
	 LT_FIELDS(LT_FIELD_INT(who, who) LT_FIELD_INT(n, n)
			   LT_FIELD_INT(check, check)))

static lt_session_t *session(void)
{
	int err = 0;
	lt_session_t *s = lt_session_create(lt_tmpdir("probe"), NULL, &err);
	if (!s)
		LT_FAIL("lt_session_create: %s", lt_strerror(err));
	return s;
}

static int enabled_mask(void)
{
	return lt_trace_enabled(demo, integers) |
	       lt_trace_enabled(demo, mixed) << 1 |
	       lt_trace_enabled(demo, arrays) << 2 |
	       lt_trace_enabled(demo, tick) << 3;
}

LT_TEST(test_events_register_at_load_with_their_fields)
{
	LT_ASSERT_EQ(lt_probe_count_matching("demo:*"), 4);
	LT_ASSERT_EQ(enabled_mask(), 0);
	const struct lt_field_desc *f = lt__ev_demo__integers.fields();
	LT_ASSERT_STREQ(f[0].name, "s8");
	LT_ASSERT_EQ(f[0].size, 1);
	LT_ASSERT_EQ(f[0].is_signed, 1);
	LT_ASSERT_EQ(f[7].size, 8);
	LT_ASSERT_EQ(f[7].is_signed, 0);
	LT_ASSERT_EQ(f[3].base, 16);
	LT_ASSERT(f[8].name == NULL);
	f = lt__ev_demo__arrays.fields();
	LT_ASSERT_EQ(f[0].type, LT_FT_ARRAY);
	LT_ASSERT_EQ(f[0].length, 4);
	LT_ASSERT_EQ(f[1].type, LT_FT_SEQUENCE);
	LT_ASSERT_EQ(f[1].size, 2);
	LT_ASSERT_EQ(f[2].type, LT_FT_CHARS);
	f = lt__ev_demo__mixed.fields();
	LT_ASSERT_EQ(f[0].type, LT_FT_ENUM);
	LT_ASSERT_EQ(f[0].enumd->n, 3);
	LT_ASSERT_EQ(f[1].type, LT_FT_FLOAT);
	LT_ASSERT_EQ(f[1].size, 4);
	LT_ASSERT_EQ(f[2].size, 8);
}

LT_TEST(test_enable_by_exact_name_and_wildcards)
{
	lt_session_t *s = session();
	LT_ASSERT_EQ(lt_session_enable(s, "demo:mixed", NULL, NULL), 0);
	LT_ASSERT_EQ(enabled_mask(), 2);
	LT_ASSERT_EQ(lt_session_enable(s, "*:ti*", NULL, NULL), 0);
	LT_ASSERT_EQ(enabled_mask(), 2 | 8);
	LT_ASSERT_EQ(lt_session_disable(s, "demo:mixed"), 0);
	LT_ASSERT_EQ(enabled_mask(), 8);
	LT_ASSERT_EQ(lt_session_enable(s, "demo:*", NULL, NULL), 0);
	LT_ASSERT_EQ(enabled_mask(), 15);
	LT_ASSERT_EQ(lt_session_disable(s, "no:such"), -ENOENT);
	lt_session_destroy(s);
	LT_ASSERT_EQ(enabled_mask(), 0);
}

LT_TEST(test_enable_by_loglevel_keeps_the_more_severe)
{
	lt_session_t *s = session();
	LT_ASSERT_EQ(lt_session_enable(s, "*", "WARNING", NULL), 0);
	LT_ASSERT_EQ(enabled_mask(), 2); /* only demo:mixed is WARNING */
	LT_ASSERT_EQ(lt_session_enable(s, "*", "DEBUG", NULL), 0);
	LT_ASSERT_EQ(enabled_mask(), 15);
	LT_ASSERT_EQ(lt_session_enable(s, "*", "LOUDEST", NULL), -EINVAL);
	lt_session_destroy(s);
}

LT_TEST(test_wildcard_matching)
{
	LT_ASSERT(lt_pattern_match("*", "a:b"));
	LT_ASSERT(lt_pattern_match("a:*", "a:b"));
	LT_ASSERT(lt_pattern_match("*:frame_*", "x:frame_done"));
	LT_ASSERT(!lt_pattern_match("*:frame_*", "x:frames"));
	LT_ASSERT(lt_pattern_match("a*b*c", "aXbYbZc"));
	LT_ASSERT(!lt_pattern_match("a*b*c", "aXbYbZ"));
	LT_ASSERT(lt_pattern_match("exact", "exact"));
	LT_ASSERT(!lt_pattern_match("exact", "exactly"));
}

LT_TEST(test_dlopen_registers_and_dlclose_unregisters)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/tests/libtp_dl.so",
		 lt_test_build_dir());
	lt_session_t *s = session();
	LT_ASSERT_EQ(lt_session_enable(s, "dl:*", NULL, NULL), 0);
	LT_ASSERT_EQ(lt_probe_count_matching("dl:ping"), 0);
	void *h = dlopen(path, RTLD_NOW);
	if (!h)
		LT_FAIL("dlopen %s: %s", path, dlerror());
	LT_ASSERT_EQ(lt_probe_count_matching("dl:ping"), 1);
	int (*ping)(int) = (int (*)(int))dlsym(h, "tp_dl_ping");
	int (*tick)(void) = (int (*)(void))dlsym(h, "tp_dl_tick_enabled");
	LT_ASSERT(ping && tick);
	/* the rule set before the library loaded applies to its events */
	LT_ASSERT_EQ(ping(1), 1);
	/* its different demo:tick is refused, even when demo:* is on */
	LT_ASSERT_EQ(lt_session_enable(s, "demo:*", NULL, NULL), 0);
	LT_ASSERT_EQ(tick(), 0);
	LT_ASSERT(lt_trace_enabled(demo, tick));
	LT_ASSERT_EQ(dlclose(h), 0);
	LT_ASSERT_EQ(lt_probe_count_matching("dl:ping"), 0);
	/* reopening finds the same id */
	h = dlopen(path, RTLD_NOW);
	LT_ASSERT(h != NULL);
	LT_ASSERT_EQ(lt_probe_count_matching("dl:ping"), 1);
	dlclose(h);
	lt_session_destroy(s);
}

static atomic_int stop_emitting;
static void *emitter(void *arg)
{
	(void)arg;
	uint64_t i = 0;
	while (!atomic_load(&stop_emitting)) {
		lt_trace(demo, integers, 1, 2, 3, 4, 5, 6, 7, i++);
		lt_trace(demo, tick);
	}
	return NULL;
}

LT_TEST(test_enabling_while_events_fire)
{
	lt_session_t *s = session();
	LT_ASSERT_EQ(lt_session_start(s), 0);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, emitter, NULL);
	for (int i = 0; i < 200; i++) {
		LT_ASSERT_EQ(
			lt_session_enable(s, i % 2 ? "demo:integers" : "demo:*",
					  NULL, NULL),
			0);
		LT_ASSERT_EQ(lt_session_disable(s, i % 2 ? "demo:integers" :
							   "demo:*"),
			     0);
	}
	LT_ASSERT_EQ(lt_session_enable(s, "demo:*", NULL, NULL), 0);
	struct timespec d = { 0, 20000000 };
	nanosleep(&d, NULL);
	atomic_store(&stop_emitting, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	LT_ASSERT_EQ(lt_session_stop(s), 0);
	struct lt_session_stats st;
	lt_session_get_stats(s, &st);
	LT_ASSERT_CMP(st.packets_written, >, 0);
	lt_session_destroy(s);
}

LT_TEST(test_oversized_strings_are_cut_and_oversized_events_counted)
{
	lt_session_t *s = session();
	LT_ASSERT_EQ(lt_session_enable(s, "demo:*", NULL, NULL), 0);
	static char big[3 * LT_STRING_MAX];
	memset(big, 'x', sizeof(big) - 1);
	lt_trace(demo, mixed, 0, 1.0f, 2.0, big);
	int16_t samples[LT_EVENT_MAX];
	memset(samples, 0, sizeof(samples));
	lt_trace(demo, arrays, (const uint8_t *)"abcd", samples,
		 (uint32_t)LT_EVENT_MAX, "comm");
	struct lt_session_stats st;
	lt_session_get_stats(s, &st);
	LT_ASSERT_EQ(st.events_lost, 1); /* the sequence, not the string */
	lt_session_destroy(s);
}

/* A session writing to dir (options o, NULL: the defaults), recording
 * the events pattern names, started. */
static lt_session_t *started(const char *dir,
			     const struct lt_session_options *o,
			     const char *pattern)
{
	int err = 0;
	lt_session_t *s = lt_session_create(dir, o, &err);
	LT_ASSERT(s != NULL);
	LT_ASSERT_EQ(lt_session_enable(s, pattern, NULL, NULL), 0);
	LT_ASSERT_EQ(lt_session_start(s), 0);
	return s;
}

/* Stops and destroys s, and opens the trace it wrote in dir. */
static lt_reader_t *stop_and_open(lt_session_t *s, const char *dir)
{
	LT_ASSERT_EQ(lt_session_stop(s), 0);
	lt_session_destroy(s);
	lt_reader_t *t;
	char msg[256];
	if (lt_reader_open(dir, NULL, &t, msg, sizeof(msg)) != 0)
		LT_FAIL("%s: %s", dir, msg);
	return t;
}

/*
 * A library's call sites write its events with their own sequence, whose
 * descriptor is in the library's image: after dlclose unmaps it, the
 * thread's next preemption must find no rseq_cs naming it (the kernel
 * would kill the thread reading it).  The events stay in the trace.
 */
LT_TEST(test_events_of_an_unloaded_library_leave_no_sequence_behind)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/tests/libtp_dl.so",
		 lt_test_build_dir());
	const char *dir = lt_tmpdir("probe-dlclose");
	lt_session_t *s = started(dir, NULL, "dl:*");
	enum { N = 50 };
	for (int round = 0; round < 2; round++) {
		void *h = dlopen(path, RTLD_NOW);
		if (!h)
			LT_FAIL("dlopen %s: %s", path, dlerror());
		int (*ping)(int) = (int (*)(int))dlsym(h, "tp_dl_ping");
		LT_ASSERT(ping != NULL);
		for (int i = 0; i < N; i++)
			LT_ASSERT_EQ(ping(round * N + i), 1);
		LT_ASSERT_EQ(dlclose(h), 0);
		/* preempted and back, several times */
		for (int i = 0; i < 5; i++) {
			struct timespec d = { 0, 1000000 };
			nanosleep(&d, NULL);
		}
	}
	lt_reader_t *t = stop_and_open(s, dir);
	const struct lt_event *ev;
	struct lt_value x;
	int n = 0;
	while (lt_reader_next(t, &ev) == 1) {
		LT_ASSERT_STREQ(ev->cls->name, "dl:ping");
		LT_ASSERT_EQ(lt_event_field(ev, 0, &x), 0);
		LT_ASSERT_EQ(x.i, n);
		n++;
	}
	lt_reader_close(t);
	LT_ASSERT_EQ(n, 2 * N);
}

LT_TEST(test_payloads_of_every_length_arrive_intact)
{
	const char *dir = lt_tmpdir("probe-len");
	lt_session_t *s = started(dir, NULL, "ptest:*");
	uint8_t v[80];
	lt_trace(ptest, b1, 0xa1);
	lt_trace(ptest, b2, 0xb1, 0xb2);
	lt_trace(ptest, b3, 0xc1, 0xc2, 0xc3);
	for (uint32_t n = 0; n <= 80; n++) {
		for (uint32_t i = 0; i < n; i++)
			v[i] = (uint8_t)(n * 7 + i);
		lt_trace(ptest, seq, v, n);
	}
	lt_reader_t *t = stop_and_open(s, dir);
	const struct lt_event *ev;
	struct lt_value x, e;
	int seen = 0;
	while (lt_reader_next(t, &ev) == 1) {
		const char *name = ev->cls->name;
		if (strcmp(name, "ptest:seq") == 0) {
			uint32_t n = (uint32_t)(seen - 3);
			LT_ASSERT_EQ(lt_event_field_by_name(ev, "v", &x), 0);
			LT_ASSERT_EQ(x.len, n);
			for (uint32_t i = 0; i < n; i++) {
				LT_ASSERT_EQ(lt_value_elem(&x, i, &e), 0);
				LT_ASSERT_EQ(e.u, (uint8_t)(n * 7 + i));
			}
		} else {
			/* b1, b2, b3: field k holds 0xa1 + 16 * event + k */
			LT_ASSERT_CMP(seen, <, 3);
			for (unsigned k = 0; k < ev->cls->nfields; k++) {
				LT_ASSERT_EQ(lt_event_field(ev, k, &x), 0);
				LT_ASSERT_EQ(x.u,
					     0xa1u + 16u * (unsigned)seen + k);
			}
			LT_ASSERT_EQ(ev->cls->nfields, (uint32_t)seen + 1);
		}
		seen++;
	}
	LT_ASSERT_EQ(seen, 3 + 81);
	lt_reader_close(t);
}

/* Every fixed-size event, many times over (sub-buffer switches take the
 * general path), read back byte for byte. */
static void fixed_payloads_arrive_intact(void)
{
	static const uint32_t sizes[] = {
		4, 5, 6, 7, 8, 9, 11, 12, 15, 16, 17
	};
	enum { NS = sizeof(sizes) / sizeof(sizes[0]), ROUNDS = 3000 };
	const char *dir = lt_tmpdir("probe-fixed");
	struct lt_session_options o = {
		.channel = { .subbuf_size = 16384, .n_subbufs = 64 },
	};
	int err = 0;
	lt_session_t *s = lt_session_create(dir, &o, &err);
	LT_ASSERT(s != NULL);
	LT_ASSERT_EQ(lt_session_enable(s, "ptest:f*", NULL, NULL), 0);
	LT_ASSERT_EQ(lt_session_enable(s, "ptest:mix*", NULL, NULL), 0);
	LT_ASSERT_EQ(lt_session_start(s), 0);
	uint8_t v[17];
	for (uint32_t r = 0; r < ROUNDS; r++) {
		for (uint32_t i = 0; i < sizeof(v); i++)
			v[i] = (uint8_t)(r * 13 + i * 7 + 1);
		lt_trace(ptest, f4, v);
		lt_trace(ptest, f5, v);
		lt_trace(ptest, f6, v);
		lt_trace(ptest, f7, v);
		lt_trace(ptest, f8, v);
		lt_trace(ptest, f9, v);
		lt_trace(ptest, f11, v);
		lt_trace(ptest, f12, v);
		lt_trace(ptest, f15, v);
		lt_trace(ptest, f16, v);
		lt_trace(ptest, f17, v);
		lt_trace(ptest, mix7, (uint8_t)r, -(int32_t)r * 1000,
			 (uint16_t)(r ^ 0xbeef));
		lt_trace(ptest, mix12, r * 0.5, (float)r + 0.25f);
	}
	struct lt_session_stats st;
	lt_session_get_stats(s, &st);
	LT_ASSERT_EQ(st.events_lost, 0);
	lt_reader_t *t = stop_and_open(s, dir);
	const struct lt_event *ev;
	struct lt_value x, e;
	uint64_t seen = 0;
	while (lt_reader_next(t, &ev) == 1) {
		/* one thread, so the trace holds the calls in order */
		uint32_t r = (uint32_t)(seen / (NS + 2)),
			 k = (uint32_t)(seen % (NS + 2));
		const char *name = ev->cls->name;
		if (k < NS) {
			char want[32];
			snprintf(want, sizeof(want), "ptest:f%u", sizes[k]);
			LT_ASSERT_STREQ(name, want);
			LT_ASSERT_EQ(lt_event_field_by_name(ev, "v", &x), 0);
			LT_ASSERT_EQ(x.len, sizes[k]);
			for (uint32_t i = 0; i < sizes[k]; i++) {
				LT_ASSERT_EQ(lt_value_elem(&x, i, &e), 0);
				LT_ASSERT_EQ(e.u,
					     (uint8_t)(r * 13 + i * 7 + 1));
			}
		} else if (k == NS) {
			LT_ASSERT_STREQ(name, "ptest:mix7");
			LT_ASSERT_EQ(lt_event_field(ev, 0, &x), 0);
			LT_ASSERT_EQ(x.u, (uint8_t)r);
			LT_ASSERT_EQ(lt_event_field(ev, 1, &x), 0);
			LT_ASSERT_EQ(x.i, -(int64_t)r * 1000);
			LT_ASSERT_EQ(lt_event_field(ev, 2, &x), 0);
			LT_ASSERT_EQ(x.u, (uint16_t)(r ^ 0xbeef));
		} else {
			LT_ASSERT_STREQ(name, "ptest:mix12");
			LT_ASSERT_EQ(lt_event_field(ev, 0, &x), 0);
			LT_ASSERT_CMP(x.f, ==, r * 0.5);
			LT_ASSERT_EQ(lt_event_field(ev, 1, &x), 0);
			LT_ASSERT_CMP(x.f, ==, (double)((float)r + 0.25f));
		}
		seen++;
	}
	LT_ASSERT_EQ(seen, (uint64_t)ROUNDS * (NS + 2));
	lt_reader_close(t);
}

LT_TEST(test_fixed_payloads_arrive_intact)
{
	fixed_payloads_arrive_intact();
}

LT_TEST(test_fixed_payloads_arrive_intact_on_an_atomic_ring)
{
	/* the fast path declines every record: the general path again */
	setenv("LOWTRACE_RING_SYNC", "atomic", 1);
	fixed_payloads_arrive_intact();
}

LT_TEST(test_fixed_payloads_arrive_intact_through_the_rcu_path)
{
	/* no membarrier(PRIVATE_EXPEDITED_RSEQ): the call-free path of
	 * probe.c, inside an RCU read-side section, instead of the one
	 * sequence of probe_x86_64.S */
	setenv("LOWTRACE_PROBE_SEQ", "0", 1);
	fixed_payloads_arrive_intact();
}

#ifdef LT_HAVE_RSEQ
/* The ring probe_x86_64.S would write for ptest:f8, or NULL. */
static struct lt_ring *seq_ring_of_f8(void)
{
	struct lt_targets *t =
		__atomic_load_n((struct lt_targets **)&lt__ev_ptest__f8.targets,
				__ATOMIC_ACQUIRE);
	return t ? t->seq : NULL;
}
#endif

LT_TEST(test_fixed_events_take_the_one_sequence_path)
{
#ifdef LT_HAVE_RSEQ
	/* turned off, in a child that has not asked yet */
	pid_t pid = fork();
	LT_ASSERT_CMP(pid, >=, 0);
	if (pid == 0) {
		setenv("LOWTRACE_PROBE_SEQ", "0", 1);
		lt_session_t *c =
			lt_session_create(lt_tmpdir("probe-noseq"), NULL, NULL);
		int ok = c &&
			 lt_session_enable(c, "ptest:f8", NULL, NULL) == 0 &&
			 seq_ring_of_f8() == NULL &&
			 lt__ev_ptest__f8.seq == NULL;
		_exit(ok ? 0 : 1);
	}
	int st;
	LT_ASSERT_EQ(waitpid(pid, &st, 0), pid);
	LT_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	lt_session_t *s = session();
	LT_ASSERT_EQ(lt_session_enable(s, "ptest:f8", NULL, NULL), 0);
	if (!lt_probe_seq_usable())
		LT_SKIP("membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ) is "
			"not available (Linux 5.10 or later has it)");
	LT_ASSERT(seq_ring_of_f8() != NULL);
#if defined(LT_HAVE_RSEQ) && !defined(LT_NO_INLINE_SEQ)
	/* the call sites' inline sequence writes the same ring */
	LT_ASSERT_EQ(lt__ev_ptest__f8.layout, LT_SEQ_LAYOUT);
	LT_ASSERT(lt__ev_ptest__f8.seq == (void *)seq_ring_of_f8());
#endif
	lt_session_destroy(s);
	LT_ASSERT(seq_ring_of_f8() == NULL);
	LT_ASSERT(lt__ev_ptest__f8.seq == NULL);
#else
	LT_SKIP("no probe_x86_64.S on this target");
#endif
}

static atomic_int keep_firing;
static atomic_ulong rounds_fired; /* the emitters' loops, both threads */

static void *fixed_emitter(void *arg)
{
	(void)arg;
	uint8_t v[17] = {
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
	};
	while (atomic_load_explicit(&keep_firing, memory_order_relaxed)) {
		lt_trace(ptest, f8, v);
		lt_trace(ptest, f4, v);
		lt_trace(ptest, f16, v);
		v[0]++;
		atomic_fetch_add_explicit(&rounds_fired, 1,
					  memory_order_relaxed);
	}
	return NULL;
}

/*
 * Sessions start, change their events and end, their rings unmapped,
 * while two threads fire fixed-size events as fast as they can: each
 * list and ring is freed only once no sequence or RCU reader can hold it
 * (lt_probe_sync()); a write into an unmapped ring would kill the test.
 */
LT_TEST(test_sessions_come_and_go_while_fixed_events_fire)
{
	atomic_store(&keep_firing, 1);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, fixed_emitter, NULL);
	struct lt_session_options o = {
		.channel = { .subbuf_size = 4096, .n_subbufs = 4 },
	};
	for (int round = 0; round < 40; round++) {
		int err = 0;
		lt_session_t *s =
			lt_session_create(lt_tmpdir("probe-churn"), &o, &err);
		if (!s)
			LT_FAIL("lt_session_create: %s", lt_strerror(err));
		LT_ASSERT_EQ(lt_session_enable(s, "ptest:f*", NULL, NULL), 0);
		LT_ASSERT_EQ(lt_session_start(s), 0);
		for (int k = 0; k < 20; k++) {
			/* a rule more: every list rebuilt, the old freed */
			LT_ASSERT_EQ(
				lt_session_enable(s, "ptest:f4", NULL, NULL),
				0);
			LT_ASSERT_EQ(lt_session_disable(s, "ptest:f4"), 0);
		}
		/* the emitters fire into the last rules for a while: on a
		 * loaded machine they may not have run at all so far */
		unsigned long f0 = atomic_load(&rounds_fired);
		for (int ms = 0;
		     ms < 5000 && atomic_load(&rounds_fired) - f0 < 100; ms++) {
			struct timespec d = { 0, 1000000 };
			nanosleep(&d, NULL);
		}
		LT_ASSERT_CMP(atomic_load(&rounds_fired) - f0, >=, 100);
		LT_ASSERT_EQ(lt_session_stop(s), 0);
		struct lt_session_stats st;
		lt_session_get_stats(s, &st);
		LT_ASSERT_CMP(st.packets_written, >, 0);
		lt_session_destroy(s);
	}
	atomic_store(&keep_firing, 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

/*
 * Fixed-size events far apart in time: 250 ms, more than 2^27 counts (the
 * compact header's reach) of any counter faster than 540 MHz.  Each must
 * carry its own time, not one wrapped.
 */
LT_TEST(test_fixed_events_far_apart_keep_their_times)
{
	const char *dir = lt_tmpdir("probe-far");
	lt_session_t *s = started(dir, NULL, "ptest:f8");
	uint8_t v[17] = { 0 };
	struct timespec pause = { 0, 250000000 };
	enum { N = 4 };
	for (int i = 0; i < N; i++) {
		/* several close together first: the pause comes after the
		 * sub-buffer's first record, on the call-free path */
		for (int k = 0; k < 3; k++)
			lt_trace(ptest, f8, v);
		if (i < N - 1)
			nanosleep(&pause, NULL);
	}
	lt_reader_t *t = stop_and_open(s, dir);
	const struct lt_event *ev;
	int64_t prev = 0;
	int n = 0, far = 0;
	while (lt_reader_next(t, &ev) == 1) {
		if (n > 0 && ev->ns - prev >= 200000000)
			far++;
		LT_ASSERT(n == 0 || ev->ns >= prev);
		prev = ev->ns;
		n++;
	}
	lt_reader_close(t);
	LT_ASSERT_EQ(n, N * 3);
	LT_ASSERT_EQ(far, N - 1);
}

#ifdef LT_HAVE_RSEQ
extern struct rseq_cs *lt_probe__seq_cs8;
extern const struct rseq_cs __start___rseq_cs[], __stop___rseq_cs[];
#endif

/*
 * The sequence leaves the thread's rseq_cs set: it must name a copy of
 * the descriptor outside the library's image, one that unloading the
 * code cannot unmap.
 */
LT_TEST(test_the_sequence_names_a_descriptor_that_outlives_the_code)
{
#ifdef LT_HAVE_RSEQ
	lt_session_t *s = session();
	LT_ASSERT_EQ(lt_session_enable(s, "ptest:f8", NULL, NULL), 0);
	LT_ASSERT_EQ(lt_session_start(s), 0);
	if (!lt_probe_seq_usable() || __rseq_size == 0)
		LT_SKIP("no membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ) "
			"or no rseq here");
	uint8_t v[17] = { 0 };
	struct rseq *rs = lt_rseq_area();
	uint64_t cs = 0;
	/* a preemption may clear it: try until one event leaves it set.
	 * The library's entry point, not lt_trace(): the call site's inline
	 * sequence clears rseq_cs before it leaves */
	uint64_t w;
	memcpy(&w, v, 8);
	for (int i = 0; i < 1000 && !cs; i++) {
		lt_probe_emit_words8(&lt__ev_ptest__f8, w, w, 8);
		cs = __atomic_load_n(&rs->rseq_cs, __ATOMIC_RELAXED);
	}
	LT_ASSERT(cs != 0);
	const struct rseq_cs *d = (const struct rseq_cs *)(uintptr_t)cs;
	LT_ASSERT(d == lt_probe__seq_cs8);
	LT_ASSERT(d < __start___rseq_cs || d >= __stop___rseq_cs);
	int found = 0;
	for (const struct rseq_cs *o = __start___rseq_cs; o < __stop___rseq_cs;
	     o++)
		found |= o->start_ip == d->start_ip &&
			 o->post_commit_offset == d->post_commit_offset &&
			 o->abort_ip == d->abort_ip;
	LT_ASSERT(found);
	lt_session_destroy(s);
#else
	LT_SKIP("no probe_x86_64.S on this target");
#endif
}

/*
 * The call site's own sequence (tp_seq.h) writes the record and leaves the
 * thread's rseq_cs clear, since its descriptor lives in the caller's image;
 * the library's out-of-line sequence would leave it set.  So rseq_cs after
 * each event tells which of the two wrote it.
 */
LT_TEST(test_call_sites_write_fixed_events_inline_and_clear_rseq_cs)
{
#if defined(LT_HAVE_RSEQ) && !defined(LT_NO_INLINE_SEQ)
	const char *dir = lt_tmpdir("probe-inline");
	lt_session_t *s = started(dir, NULL, "ptest:f8");
	if (!lt_probe_seq_usable() || __rseq_size == 0)
		LT_SKIP("no membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ) "
			"or no rseq here");
	LT_ASSERT(lt__ev_ptest__f8.seq != NULL);
	uint8_t v[17] = { 0 };
	struct rseq *rs = lt_rseq_area();
	enum { N = 200 };
	int left_set = 0;
	for (int i = 0; i < N; i++) {
		v[0] = (uint8_t)i;
		v[7] = (uint8_t)(i * 3);
		lt_trace(ptest, f8, v);
		/* the first record of a sub-buffer is the library's */
		left_set += i > 0 && __atomic_load_n(&rs->rseq_cs,
						     __ATOMIC_RELAXED) != 0;
	}
	LT_ASSERT_EQ(left_set, 0);
	lt_reader_t *t = stop_and_open(s, dir);
	const struct lt_event *ev;
	int n = 0;
	struct lt_value x, e;
	while (lt_reader_next(t, &ev) == 1) {
		LT_ASSERT_EQ(lt_event_field(ev, 0, &x), 0);
		LT_ASSERT_EQ(x.len, 8);
		LT_ASSERT_EQ(lt_value_elem(&x, 0, &e), 0);
		LT_ASSERT_EQ(e.u, (uint8_t)n);
		LT_ASSERT_EQ(lt_value_elem(&x, 7, &e), 0);
		LT_ASSERT_EQ(e.u, (uint8_t)(n * 3));
		n++;
	}
	lt_reader_close(t);
	LT_ASSERT_EQ(n, N);
#else
	LT_SKIP("no inline sequence on this target");
#endif
}

static const struct lt_field_desc *no_fields(void)
{
	static const struct lt_field_desc f[] = { { NULL, 0, 0, 0, 0, 0,
						    NULL } };
	return f;
}

/*
 * A descriptor compiled without the inline sequence (layout 0: another
 * layout, or a header from before the field existed) has no seq field the
 * registry may write.
 */
LT_TEST(test_the_registry_writes_seq_only_to_its_own_layout)
{
	static struct lt_event_desc old = {
		0,	     0,		LT_INFO, "ptest", "old",
		"ptest:old", no_fields, 0,	 NULL,	  (void *)0x5eed
	};
	static struct lt_event_desc *const range[] = { &old };
	lt_probe_register_range(range, range + 1);
	lt_session_t *s = session();
	LT_ASSERT_EQ(lt_session_enable(s, "ptest:old", NULL, NULL), 0);
	LT_ASSERT_EQ(lt_session_start(s), 0);
	LT_ASSERT(old.targets != NULL);
	LT_ASSERT(old.seq == (void *)0x5eed);
	lt_session_destroy(s);
	LT_ASSERT(old.targets == NULL);
	lt_probe_unregister_range(range, range + 1);
	LT_ASSERT(old.seq == (void *)0x5eed);
}

/*
 * The inline sequence reads the TSC: a clock that leaves it (a recorder's
 * calibration, lt_clock_set_calib()) takes the ring from every call site,
 * and the events go through the library's clock.
 */
LT_TEST(test_a_clock_off_the_tsc_takes_the_inline_sequence_away)
{
#if defined(LT_HAVE_RSEQ) && !defined(LT_NO_INLINE_SEQ)
	/* not started: no consumer thread reads the clock while this one
	 * changes it */
	lt_session_t *s = session();
	LT_ASSERT_EQ(lt_session_enable(s, "ptest:f8", NULL, NULL), 0);
	if (!lt_probe_seq_usable() || lt_clock_calib.source != LT_CLOCK_TSC)
		LT_SKIP("the clock is not the TSC here, or no membarrier "
			"rseq command");
	LT_ASSERT(lt__ev_ptest__f8.seq != NULL);
	struct lt_clock_calib saved = lt_clock_calib;
	lt_clock_calib.source = LT_CLOCK_MONOTONIC;
	lt_probe_clock_changed();
	LT_ASSERT(lt__ev_ptest__f8.seq == NULL);
	LT_ASSERT(lt__ev_ptest__f8.targets != NULL);
	lt_clock_calib = saved;
	lt_probe_clock_changed();
	LT_ASSERT(lt__ev_ptest__f8.seq != NULL);
	lt_session_destroy(s);
#else
	LT_SKIP("no inline sequence on this target");
#endif
}

#define SIG_CHECK 0x5a5aa5a5u
static volatile uint32_t handler_count;
static atomic_int keep_signalling;

static void on_usr1(int sig)
{
	(void)sig;
	uint32_t n = handler_count++;
	lt_trace(ptest, sig, 1, n, n ^ SIG_CHECK);
}

static void *signaller(void *arg)
{
	pthread_t target = *(pthread_t *)arg;
	struct timespec d = { 0, 20000 };
	while (atomic_load(&keep_signalling)) {
		pthread_kill(target, SIGUSR1);
		nanosleep(&d, NULL);
	}
	return NULL;
}

/*
 * A thread fires fixed-size events while another sends it SIGUSR1 every
 * 20 us, and its handler fires the same event: a signal inside the
 * thread's sequence restarts it, the handler's own sequence runs, and the
 * thread's record goes to the general path.  Every record read back is
 * whole (check matches n), each writer's counts only go up, and what was
 * read plus what was lost is what was sent.
 */
LT_TEST(test_fixed_events_and_their_signal_handler_interleave_intact)
{
	const char *dir = lt_tmpdir("probe-sig");
	struct lt_session_options o = {
		.channel = { .subbuf_size = 65536, .n_subbufs = 64 },
	};
	lt_session_t *s = started(dir, &o, "ptest:sig");
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	LT_ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	pthread_t self = pthread_self(), sender;
	atomic_store(&keep_signalling, 1);
	LT_ASSERT_EQ(pthread_create(&sender, NULL, signaller, &self), 0);
	/* until 1000 signals came (or 5 s), a little work between events
	 * so that the trace stays small: a signal lands in a sequence a
	 * tenth of the time or so */
	uint32_t i = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		lt_trace(ptest, sig, 0, i, i ^ SIG_CHECK);
		i++;
		for (volatile int k = 0; k < 40; k++)
			;
		if ((i & 1023) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			if (handler_count >= 1000 || t1.tv_sec - t0.tv_sec > 5)
				break;
		}
	}
	atomic_store(&keep_signalling, 0);
	pthread_join(sender, NULL);
	signal(SIGUSR1, SIG_IGN);
	uint32_t sent = i + handler_count;
	struct lt_session_stats st;
	lt_session_get_stats(s, &st);
	uint64_t lost = st.events_lost;
	lt_reader_t *t = stop_and_open(s, dir);
	const struct lt_event *ev;
	struct lt_value w, n, c;
	int64_t last[2] = { -1, -1 };
	uint64_t read = 0, from_handler = 0;
	while (lt_reader_next(t, &ev) == 1) {
		LT_ASSERT_EQ(lt_event_field(ev, 0, &w), 0);
		LT_ASSERT_EQ(lt_event_field(ev, 1, &n), 0);
		LT_ASSERT_EQ(lt_event_field(ev, 2, &c), 0);
		LT_ASSERT_CMP(w.u, <=, 1);
		LT_ASSERT_EQ(c.u, (uint32_t)n.u ^ SIG_CHECK);
		LT_ASSERT_CMP((int64_t)n.u, >, last[w.u]);
		last[w.u] = (int64_t)n.u;
		from_handler += w.u;
		read++;
	}
	lt_reader_close(t);
	LT_ASSERT_EQ(read + lost, (uint64_t)sent);
	/* the handler ran, and its events are there */
	LT_ASSERT_CMP(handler_count, >=, 1000);
	LT_ASSERT_CMP(from_handler, >, 0);
}
