/* SPDX-License-Identifier: MIT */
/*
 * test_rcu.c - behaviour of the RCU flavours, call_rcu, defer_rcu, the RCU
 * list and the hash table, one property per case.  The long randomised
 * run is tests/test_rcu_torture.c.
 */
#define _GNU_SOURCE
#include "lowtrace/rcu.h"
#include "lowtrace/rcu_call.h"
#include "lowtrace/rcu_hash.h"
#include "lowtrace/rcu_list.h"
#include "rcu/memb.h"
#include "lib-rcu/qsbr.h"
#include "lt_test.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * Re-runs this binary on one case with LOWTRACE_RCU_NO_MEMBARRIER=1 (read
 * once, at start-up) and returns its exit status.
 */
static int run_case_without_membarrier(const char *name)
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0) {
		char *argv[] = { "test_rcu", (char *)name, NULL };

		setenv("LOWTRACE_RCU_NO_MEMBARRIER", "1", 1);
		if (!freopen("/dev/null", "w", stdout))
			_exit(2);
		execv("/proc/self/exe", argv);
		_exit(2);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int membarrier_disabled(void)
{
	const char *v = getenv("LOWTRACE_RCU_NO_MEMBARRIER");

	return v && *v && strcmp(v, "0") != 0;
}

/* ---- membarrier flavour ---- */

static atomic_int reader_state; /* 1 in section, 2 asked to leave, 3 out */
static atomic_int sync_done;

static void *hold_section(void *arg)
{
	(void)arg;
	lt_rcu_read_lock();
	atomic_store(&reader_state, 1);
	while (atomic_load(&reader_state) != 2)
		sleep_ms(1);
	lt_rcu_read_unlock();
	atomic_store(&reader_state, 3);
	return NULL;
}

static void *do_synchronize(void *arg)
{
	(void)arg;
	lt_rcu_synchronize();
	atomic_store(&sync_done, 1);
	return NULL;
}

static void check_synchronize_waits_for_reader(void)
{
	pthread_t r, s;

	atomic_store(&reader_state, 0);
	atomic_store(&sync_done, 0);
	pthread_create(&r, NULL, hold_section, NULL);
	while (atomic_load(&reader_state) != 1)
		sleep_ms(1);
	pthread_create(&s, NULL, do_synchronize, NULL);
	sleep_ms(200);
	LT_ASSERT_EQ(atomic_load(&sync_done), 0);
	atomic_store(&reader_state, 2);
	pthread_join(s, NULL);
	LT_ASSERT_EQ(atomic_load(&sync_done), 1);
	pthread_join(r, NULL);
}

LT_TEST(test_synchronize_waits_for_preexisting_reader)
{
	check_synchronize_waits_for_reader();
}

LT_TEST(test_synchronize_returns_without_readers)
{
	unsigned long before = lt_rcu_gp_count();

	lt_rcu_synchronize();
	lt_rcu_synchronize();
	LT_ASSERT_EQ(lt_rcu_gp_count(), before + 2);
}

LT_TEST(test_membarrier_used_when_available)
{
	long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	if (membarrier_disabled())
		LT_SKIP("LOWTRACE_RCU_NO_MEMBARRIER set");
	if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		LT_SKIP("kernel without private expedited membarrier");
	LT_ASSERT_EQ(lt_rcu_uses_membarrier(), 1);
	LT_ASSERT_EQ(lt_rcu_gp.use_fence, 0);
}

LT_TEST(test_nested_read_sections)
{
	lt_rcu_read_lock();
	LT_ASSERT(lt_rcu_read_ongoing());
	lt_rcu_read_lock();
	lt_rcu_read_lock();
	LT_ASSERT_EQ(atomic_load(&lt_rcu_reader.ctr) & LT_RCU_NEST_MASK, 3);
	lt_rcu_read_unlock();
	lt_rcu_read_unlock();
	LT_ASSERT(lt_rcu_read_ongoing());
	lt_rcu_read_unlock();
	LT_ASSERT(!lt_rcu_read_ongoing());
}

static void *lock_once(void *arg)
{
	(void)arg;
	lt_rcu_read_lock();
	lt_rcu_read_unlock();
	return (void *)(intptr_t)lt_rcu_reader.registered;
}

LT_TEST(test_first_read_lock_registers_thread)
{
	pthread_t t;
	void *registered;

	pthread_create(&t, NULL, lock_once, NULL);
	pthread_join(t, &registered);
	LT_ASSERT_EQ((intptr_t)registered, 1);
}

LT_TEST(test_thread_exit_unregisters_reader)
{
	unsigned base = lt_rcu_registered_readers();

	for (int i = 0; i < 50; i++) {
		pthread_t t;

		pthread_create(&t, NULL, lock_once, NULL);
		pthread_join(t, NULL);
	}
	LT_ASSERT_EQ(lt_rcu_registered_readers(), base);
	lt_rcu_register_thread();
	LT_ASSERT_EQ(lt_rcu_registered_readers(), base + 1);
	lt_rcu_unregister_thread();
	LT_ASSERT_EQ(lt_rcu_registered_readers(), base);
	lt_rcu_synchronize();
}

static atomic_ulong handler_nest;
static atomic_int handler_runs;

static void nest_handler(int sig)
{
	(void)sig;
	lt_rcu_read_lock();
	atomic_store(&handler_nest,
		     atomic_load(&lt_rcu_reader.ctr) & LT_RCU_NEST_MASK);
	lt_rcu_read_unlock();
	atomic_fetch_add(&handler_runs, 1);
}

LT_TEST(test_signal_handler_nests_in_read_section)
{
	signal(SIGUSR1, nest_handler);
	lt_rcu_read_lock();
	raise(SIGUSR1);
	LT_ASSERT_EQ(atomic_load(&handler_nest), 2);
	LT_ASSERT_EQ(atomic_load(&lt_rcu_reader.ctr) & LT_RCU_NEST_MASK, 1);
	lt_rcu_read_unlock();
	LT_ASSERT(!lt_rcu_read_ongoing());
}

static void *first_use_in_handler(void *arg)
{
	(void)arg;
	raise(SIGUSR1);
	return (void *)(intptr_t)lt_rcu_reader.registered;
}

LT_TEST(test_first_use_in_signal_handler_registers)
{
	pthread_t t;
	void *registered;
	unsigned base = lt_rcu_registered_readers();

	signal(SIGUSR1, nest_handler);
	pthread_create(&t, NULL, first_use_in_handler, NULL);
	pthread_join(t, &registered);
	LT_ASSERT_EQ((intptr_t)registered, 1);
	LT_ASSERT_EQ(atomic_load(&handler_nest), 1);
	LT_ASSERT_EQ(lt_rcu_registered_readers(), base);
}

struct obj {
	int value;
};

LT_TEST(test_xchg_pointer_returns_old_value)
{
	static struct obj a = { 1 }, b = { 2 };
	struct obj *p = NULL;

	lt_rcu_assign_pointer(p, &a);
	LT_ASSERT(lt_rcu_xchg_pointer(p, &b) == &a);
	lt_rcu_read_lock();
	LT_ASSERT_EQ(lt_rcu_dereference(p)->value, 2);
	lt_rcu_read_unlock();
	lt_rcu_assign_pointer(p, NULL);
	LT_ASSERT(p == NULL);
}

/* Readers and an updater swapping one pointer, in the current mode. */
struct cell {
	unsigned long magic;
	unsigned long value;
};
#define CELL_ALIVE 0xa11fe11aUL
#define CELL_DEAD 0xdeadbeefUL

static struct cell *shared_cell;
static atomic_int stop_readers;
static atomic_long bad_reads;

static void *cell_reader(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_readers)) {
		lt_rcu_read_lock();
		struct cell *c = lt_rcu_dereference(shared_cell);
		if (c->magic != CELL_ALIVE)
			atomic_fetch_add(&bad_reads, 1);
		lt_rcu_read_unlock();
	}
	return NULL;
}

static void swap_cells(int rounds)
{
	pthread_t r[2];

	shared_cell = calloc(1, sizeof(struct cell));
	shared_cell->magic = CELL_ALIVE;
	atomic_store(&stop_readers, 0);
	for (int i = 0; i < 2; i++)
		pthread_create(&r[i], NULL, cell_reader, NULL);
	for (int i = 0; i < rounds; i++) {
		struct cell *n = calloc(1, sizeof(*n));

		n->magic = CELL_ALIVE;
		n->value = (unsigned long)i;
		struct cell *old = lt_rcu_xchg_pointer(shared_cell, n);
		lt_rcu_synchronize();
		old->magic = CELL_DEAD;
		free(old);
	}
	atomic_store(&stop_readers, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(r[i], NULL);
	free(shared_cell);
	LT_ASSERT_EQ(atomic_load(&bad_reads), 0);
}

LT_TEST(test_fallback_without_membarrier)
{
	if (!membarrier_disabled()) {
		LT_ASSERT_EQ(run_case_without_membarrier(
				     "test_fallback_without_membarrier"),
			     0);
		return;
	}
	/* In the re-run: fence mode, same guarantees. */
	LT_ASSERT_EQ(lt_rcu_uses_membarrier(), 0);
	LT_ASSERT_EQ(lt_rcu_gp.use_fence, 1);
	check_synchronize_waits_for_reader();
	swap_cells(200);
}

LT_TEST(test_updater_frees_only_after_readers_leave)
{
	swap_cells(500);
}

/* ---- call_rcu and defer_rcu ---- */

struct cb {
	struct lt_rcu_head head;
	atomic_int *ran;
};

static void cb_fn(struct lt_rcu_head *h)
{
	struct cb *c = (struct cb *)h;

	atomic_fetch_add(c->ran, 1);
	free(c);
}

static void queue_cb(atomic_int *ran)
{
	struct cb *c = calloc(1, sizeof(*c));

	c->ran = ran;
	lt_call_rcu(&c->head, cb_fn);
}

LT_TEST(test_call_rcu_runs_after_grace_period)
{
	static atomic_int ran;
	pthread_t r;

	atomic_store(&reader_state, 0);
	pthread_create(&r, NULL, hold_section, NULL);
	while (atomic_load(&reader_state) != 1)
		sleep_ms(1);
	queue_cb(&ran);
	sleep_ms(200);
	LT_ASSERT_EQ(atomic_load(&ran), 0);
	atomic_store(&reader_state, 2);
	lt_rcu_barrier();
	LT_ASSERT_EQ(atomic_load(&ran), 1);
	pthread_join(r, NULL);
}

LT_TEST(test_rcu_barrier_waits_for_callbacks)
{
	static atomic_int ran;

	for (int i = 0; i < 1000; i++)
		queue_cb(&ran);
	lt_rcu_barrier();
	LT_ASSERT_EQ(atomic_load(&ran), 1000);
	lt_rcu_barrier();
	LT_ASSERT_EQ(atomic_load(&ran), 1000);
}

static atomic_int chained;

static void chain_fn(struct lt_rcu_head *h)
{
	if (atomic_fetch_add(&chained, 1) < 9)
		lt_call_rcu(h, chain_fn);
	else
		free(h);
}

LT_TEST(test_call_rcu_from_callback)
{
	lt_call_rcu(calloc(1, sizeof(struct lt_rcu_head)), chain_fn);
	while (atomic_load(&chained) < 10)
		lt_rcu_barrier();
	LT_ASSERT_EQ(atomic_load(&chained), 10);
}

static int under_tsan(void)
{
	const char *san = getenv("SANITIZE");

	return san && strstr(san, "thread");
}

LT_TEST(test_after_fork_child_ignores_parent_readers)
{
	static atomic_int ran;
	pthread_t r;
	pid_t pid;
	int st = 0;

	atomic_store(&reader_state, 0);
	pthread_create(&r, NULL, hold_section, NULL);
	while (atomic_load(&reader_state) != 1)
		sleep_ms(1);
	pid = fork();
	if (pid == 0) {
		/* The reader thread is gone here but its section is not over. */
		lt_rcu_after_fork_child();
		lt_rcu_synchronize();
		/* TSan kills a multi-threaded fork's child that starts threads. */
		if (!under_tsan()) {
			queue_cb(&ran);
			lt_rcu_barrier();
			if (atomic_load(&ran) != 1)
				_exit(1);
		}
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	atomic_store(&reader_state, 2);
	pthread_join(r, NULL);
	LT_ASSERT(WIFEXITED(st));
	LT_ASSERT_EQ(WEXITSTATUS(st), 0);
}

static atomic_int deferred;

static void defer_fn(void *p)
{
	atomic_fetch_add(&deferred, 1);
	free(p);
}

LT_TEST(test_defer_rcu_batches_until_barrier)
{
	unsigned long gp0 = lt_rcu_gp_count();

	for (int i = 0; i < 10; i++)
		lt_defer_rcu(defer_fn, malloc(8));
	LT_ASSERT_EQ(atomic_load(&deferred), 0);
	lt_defer_barrier();
	LT_ASSERT_EQ(atomic_load(&deferred), 10);
	LT_ASSERT_CMP(lt_rcu_gp_count(), >, gp0);
}

LT_TEST(test_defer_rcu_synchronizes_when_queue_full)
{
	for (int i = 0; i < 2000; i++)
		lt_defer_rcu(defer_fn, malloc(8));
	LT_ASSERT_CMP(atomic_load(&deferred), >=, 2000 - 256);
	LT_ASSERT_CMP(atomic_load(&deferred), <, 2000);
	lt_defer_barrier();
	LT_ASSERT_EQ(atomic_load(&deferred), 2000);
}

static void *defer_and_exit(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5; i++)
		lt_defer_rcu(defer_fn, malloc(8));
	return NULL;
}

LT_TEST(test_defer_rcu_runs_at_thread_exit)
{
	pthread_t t;

	atomic_store(&deferred, 0);
	pthread_create(&t, NULL, defer_and_exit, NULL);
	pthread_join(t, NULL);
	LT_ASSERT_EQ(atomic_load(&deferred), 5);
}

static atomic_int other_thread_queued;

static void *defer_and_wait(void *arg)
{
	(void)arg;
	for (int i = 0; i < 7; i++)
		lt_defer_rcu(defer_fn, malloc(8));
	atomic_store(&other_thread_queued, 1);
	while (atomic_load(&other_thread_queued) != 2)
		sleep_ms(1);
	return NULL;
}

LT_TEST(test_defer_barrier_runs_every_thread_queue)
{
	pthread_t t;

	atomic_store(&deferred, 0);
	atomic_store(&other_thread_queued, 0);
	pthread_create(&t, NULL, defer_and_wait, NULL);
	while (atomic_load(&other_thread_queued) != 1)
		sleep_ms(1);
	lt_defer_rcu(defer_fn, malloc(8));
	LT_ASSERT_EQ(atomic_load(&deferred), 0);
	lt_defer_barrier();
	LT_ASSERT_EQ(atomic_load(&deferred), 8);
	atomic_store(&other_thread_queued, 2);
	pthread_join(t, NULL);
	LT_ASSERT_EQ(atomic_load(&deferred), 8);
}

/* ---- waiting: the updater sleeps, the reader wakes it ---- */

LT_TEST(test_synchronize_sleeps_until_reader_wakes_it)
{
	unsigned long sleeps0 = lt_rcu_memb_sleeps();
	pthread_t r, s;

	atomic_store(&reader_state, 0);
	atomic_store(&sync_done, 0);
	pthread_create(&r, NULL, hold_section, NULL);
	while (atomic_load(&reader_state) != 1)
		sleep_ms(1);
	pthread_create(&s, NULL, do_synchronize, NULL);
	while (lt_rcu_memb_sleeps() == sleeps0)
		sleep_ms(1);
	LT_ASSERT_EQ(atomic_load(&sync_done), 0);
	/* The reader's unlock is the only thing that can end the sleep. */
	atomic_store(&reader_state, 2);
	pthread_join(s, NULL);
	LT_ASSERT_EQ(atomic_load(&sync_done), 1);
	LT_ASSERT_EQ(atomic_load(&lt_rcu_gp.waiting) & LT_RCU_WAIT_SLEEP, 0);
	pthread_join(r, NULL);
}

static void *do_qsbr_synchronize(void *arg)
{
	(void)arg;
	lt_rcu_qsbr_synchronize();
	atomic_store(&sync_done, 1);
	return NULL;
}

static atomic_int qsbr_reader_state; /* 1 online, 2 asked to leave */

static void *hold_qsbr_online(void *arg)
{
	(void)arg;
	lt_rcu_qsbr_register_thread();
	atomic_store(&qsbr_reader_state, 1);
	while (atomic_load(&qsbr_reader_state) != 2)
		sleep_ms(1);
	lt_rcu_qsbr_quiescent_state();
	atomic_store(&qsbr_reader_state, 3);
	while (atomic_load(&qsbr_reader_state) != 4)
		sleep_ms(1);
	lt_rcu_qsbr_unregister_thread();
	return NULL;
}

LT_TEST(test_qsbr_synchronize_sleeps_until_quiescent_state)
{
	unsigned long sleeps0 = lt_rcu_qsbr_sleeps();
	pthread_t r, s;

	atomic_store(&qsbr_reader_state, 0);
	atomic_store(&sync_done, 0);
	pthread_create(&r, NULL, hold_qsbr_online, NULL);
	while (atomic_load(&qsbr_reader_state) != 1)
		sleep_ms(1);
	pthread_create(&s, NULL, do_qsbr_synchronize, NULL);
	while (lt_rcu_qsbr_sleeps() == sleeps0)
		sleep_ms(1);
	LT_ASSERT_EQ(atomic_load(&sync_done), 0);
	/* A quiescent state, the reader staying online, ends the sleep. */
	atomic_store(&qsbr_reader_state, 2);
	pthread_join(s, NULL);
	LT_ASSERT_EQ(atomic_load(&sync_done), 1);
	/* The reader stores 3 after its quiescent state: wait for it. */
	while (atomic_load(&qsbr_reader_state) != 3)
		sleep_ms(1);
	atomic_store(&qsbr_reader_state, 4);
	pthread_join(r, NULL);
}

static atomic_long batch_syncs;

static void *sync_loop(void *arg)
{
	(void)arg;
	while (atomic_load(&reader_state) < 2) {
		lt_rcu_synchronize();
		atomic_fetch_add(&batch_syncs, 1);
	}
	return NULL;
}

LT_TEST(test_concurrent_synchronize_calls_share_grace_periods)
{
	pthread_t r, s[4];
	unsigned long gp0;
	long calls;

	atomic_store(&reader_state, 0);
	pthread_create(&r, NULL, hold_section, NULL);
	while (atomic_load(&reader_state) != 1)
		sleep_ms(1);
	gp0 = lt_rcu_gp_count();
	for (int i = 0; i < 4; i++)
		pthread_create(&s[i], NULL, sync_loop, NULL);
	/* All four wait behind the reader: one leads, three are queued. */
	sleep_ms(100);
	LT_ASSERT_EQ(atomic_load(&batch_syncs), 0);
	atomic_store(&reader_state, 2);
	for (int i = 0; i < 4; i++)
		pthread_join(s[i], NULL);
	pthread_join(r, NULL);
	calls = atomic_load(&batch_syncs);
	LT_ASSERT_CMP(calls, >=, 4);
	/*
	 * The leader's grace period ran for itself only (the others queued
	 * after it took its batch); the three queued share the next one.
	 * Each thread loops until it sees the reader gone, so calls may be
	 * more than 4 but grace periods are fewer than calls.
	 */
	LT_ASSERT_CMP(lt_rcu_gp_count() - gp0, <, (unsigned long)calls);
}

/* ---- the API beside liburcu's ---- */

LT_TEST(test_read_ongoing_in_each_flavour)
{
	LT_ASSERT_EQ(lt_rcu_read_ongoing(), 0);
	lt_rcu_read_lock();
	LT_ASSERT_EQ(lt_rcu_read_ongoing(), 1);
	lt_rcu_read_lock();
	lt_rcu_read_unlock();
	LT_ASSERT_EQ(lt_rcu_read_ongoing(), 1);
	lt_rcu_read_unlock();
	LT_ASSERT_EQ(lt_rcu_read_ongoing(), 0);

	LT_ASSERT_EQ(lt_rcu_qsbr_read_ongoing(), 0);
	lt_rcu_qsbr_register_thread();
	LT_ASSERT_EQ(lt_rcu_qsbr_read_ongoing(), 1);
	lt_rcu_qsbr_thread_offline();
	LT_ASSERT_EQ(lt_rcu_qsbr_read_ongoing(), 0);
	lt_rcu_qsbr_thread_online();
	LT_ASSERT_EQ(lt_rcu_qsbr_read_ongoing(), 1);
	lt_rcu_qsbr_unregister_thread();
	LT_ASSERT_EQ(lt_rcu_qsbr_read_ongoing(), 0);
}

LT_TEST(test_cmpxchg_pointer_publishes_only_over_old)
{
	static int a, b, c;
	int *p = &a;

	LT_ASSERT(lt_rcu_cmpxchg_pointer(p, &b, &c) == &a);
	LT_ASSERT(p == &a);
	LT_ASSERT(lt_rcu_cmpxchg_pointer(p, &a, &b) == &a);
	LT_ASSERT(p == &b);
}

LT_TEST(test_qsbr_call_rcu_waits_for_quiescent_state)
{
	static atomic_int ran;
	struct cb *c = calloc(1, sizeof(*c));
	pthread_t r;

	atomic_store(&qsbr_reader_state, 0);
	pthread_create(&r, NULL, hold_qsbr_online, NULL);
	while (atomic_load(&qsbr_reader_state) != 1)
		sleep_ms(1);
	c->ran = &ran;
	lt_rcu_qsbr_call_rcu(&c->head, cb_fn);
	sleep_ms(200);
	LT_ASSERT_EQ(atomic_load(&ran), 0);
	atomic_store(&qsbr_reader_state, 2);
	/* Online itself: the barrier goes offline while it waits. */
	lt_rcu_qsbr_register_thread();
	lt_rcu_qsbr_barrier();
	LT_ASSERT_EQ(lt_rcu_qsbr_read_ongoing(), 1);
	lt_rcu_qsbr_unregister_thread();
	LT_ASSERT_EQ(atomic_load(&ran), 1);
	while (atomic_load(&qsbr_reader_state) != 3)
		sleep_ms(1);
	atomic_store(&qsbr_reader_state, 4);
	pthread_join(r, NULL);
}

static _Atomic pthread_t cb_thread;

static void record_thread(struct lt_rcu_head *h)
{
	atomic_store(&cb_thread, pthread_self());
	free(h);
}

LT_TEST(test_thread_call_rcu_worker_runs_its_callbacks)
{
	struct lt_call_rcu_data *d = lt_call_rcu_data_create(LT_RCU_MEMB);

	LT_ASSERT(d != NULL);
	LT_ASSERT(lt_get_thread_call_rcu_data(LT_RCU_MEMB) == NULL);
	LT_ASSERT(lt_get_call_rcu_data(LT_RCU_MEMB) ==
		  lt_call_rcu_data_default(LT_RCU_MEMB));
	lt_set_thread_call_rcu_data(LT_RCU_MEMB, d);
	LT_ASSERT(lt_get_call_rcu_data(LT_RCU_MEMB) == d);
	lt_call_rcu(calloc(1, sizeof(struct lt_rcu_head)), record_thread);
	lt_rcu_barrier();
	LT_ASSERT(pthread_equal(atomic_load(&cb_thread),
				lt_call_rcu_data_thread(d)));
	LT_ASSERT(
		!pthread_equal(atomic_load(&cb_thread),
			       lt_call_rcu_data_thread(
				       lt_call_rcu_data_default(LT_RCU_MEMB))));
	lt_set_thread_call_rcu_data(LT_RCU_MEMB, NULL);
	lt_call_rcu(calloc(1, sizeof(struct lt_rcu_head)), record_thread);
	lt_rcu_barrier();
	LT_ASSERT(
		pthread_equal(atomic_load(&cb_thread),
			      lt_call_rcu_data_thread(
				      lt_call_rcu_data_default(LT_RCU_MEMB))));
	lt_call_rcu_data_free(d);
}

LT_TEST(test_fork_with_callbacks_queued_runs_them_in_both)
{
	static atomic_int ran;
	pid_t pid;
	int st = 0;

	atomic_store(&ran, 0);
	for (int i = 0; i < 100; i++)
		queue_cb(&ran);
	/*
	 * TSan kills a multi-threaded fork's child that starts threads: the
	 * child's handler would start a worker for the callbacks queued.
	 */
	if (under_tsan())
		lt_rcu_barrier();
	/* As a liburcu user would; the pthread_atfork handlers nest inside. */
	lt_rcu_before_fork();
	pid = fork();
	if (pid == 0) {
		lt_rcu_after_fork_child();
		/* TSan kills a multi-threaded fork's child that starts threads. */
		if (!under_tsan()) {
			lt_rcu_barrier();
			if (atomic_load(&ran) != 100)
				_exit(1);
			queue_cb(&ran);
			lt_rcu_barrier();
			if (atomic_load(&ran) != 101)
				_exit(2);
		}
		_exit(0);
	}
	lt_rcu_after_fork_parent();
	lt_rcu_barrier();
	LT_ASSERT_EQ(atomic_load(&ran), 100);
	queue_cb(&ran);
	lt_rcu_barrier();
	LT_ASSERT_EQ(atomic_load(&ran), 101);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	LT_ASSERT(WIFEXITED(st));
	LT_ASSERT_EQ(WEXITSTATUS(st), 0);
}

/* ---- list ---- */

struct item {
	int v;
	struct lt_list_head node;
};

static int list_values(struct lt_list_head *head, int *out, int max)
{
	struct lt_list_head *pos;
	int n = 0;

	lt_rcu_read_lock();
	lt_list_for_each_rcu(pos, head) {
		if (n < max)
			out[n] = lt_list_entry(pos, struct item, node)->v;
		n++;
	}
	lt_rcu_read_unlock();
	return n;
}

LT_TEST(test_list_rcu_add_del_replace_keep_order)
{
	struct lt_list_head head = LT_LIST_HEAD_INIT(head);
	struct item it[5];
	int v[8];

	for (int i = 0; i < 5; i++)
		it[i].v = i;
	LT_ASSERT(lt_list_empty(&head));
	lt_list_add_tail_rcu(&it[1].node, &head);
	lt_list_add_tail_rcu(&it[2].node, &head);
	lt_list_add_rcu(&it[0].node, &head);
	LT_ASSERT_EQ(list_values(&head, v, 8), 3);
	LT_ASSERT(v[0] == 0 && v[1] == 1 && v[2] == 2);
	lt_list_replace_rcu(&it[1].node, &it[3].node);
	LT_ASSERT_EQ(list_values(&head, v, 8), 3);
	LT_ASSERT(v[0] == 0 && v[1] == 3 && v[2] == 2);
	lt_list_del_rcu(&it[0].node);
	lt_list_del_rcu(&it[2].node);
	LT_ASSERT_EQ(list_values(&head, v, 8), 1);
	LT_ASSERT_EQ(v[0], 3);
	lt_list_del_rcu(&it[3].node);
	LT_ASSERT(lt_list_empty(&head));
	lt_list_add(&it[4].node, &head);
	LT_ASSERT_EQ(list_values(&head, v, 8), 1);
	lt_list_del(&it[4].node);
	LT_ASSERT(lt_list_empty(&head));
}

/* ---- hash table ---- */

struct hent {
	unsigned long key;
	struct lt_rcu_ht_node node;
	struct lt_rcu_head rcu;
};

static unsigned long hash_key(unsigned long k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdUL;
	k ^= k >> 33;
	return k;
}

static int hent_match(const struct lt_rcu_ht_node *n, const void *key)
{
	const struct hent *e = lt_list_entry(n, struct hent, node);

	return e->key == *(const unsigned long *)key;
}

static struct hent *ht_find(lt_rcu_ht_t *ht, unsigned long key)
{
	struct lt_rcu_ht_node *n =
		lt_rcu_ht_lookup(ht, hash_key(key), hent_match, &key);

	return n ? lt_list_entry(n, struct hent, node) : NULL;
}

LT_TEST(test_hash_table_add_lookup_del)
{
	lt_rcu_ht_t *ht = lt_rcu_ht_create(4, 0);
	struct hent e[100];

	for (unsigned long i = 0; i < 100; i++) {
		e[i].key = i;
		lt_rcu_ht_add(ht, &e[i].node, hash_key(i));
	}
	LT_ASSERT_EQ(lt_rcu_ht_count(ht), 100);
	LT_ASSERT_EQ(lt_rcu_ht_size(ht), 4);
	lt_rcu_read_lock();
	for (unsigned long i = 0; i < 100; i++)
		LT_ASSERT(ht_find(ht, i) == &e[i]);
	LT_ASSERT(ht_find(ht, 1000) == NULL);
	lt_rcu_read_unlock();
	for (unsigned long i = 0; i < 100; i += 2)
		LT_ASSERT_EQ(lt_rcu_ht_del(ht, &e[i].node), 0);
	LT_ASSERT_EQ(lt_rcu_ht_del(ht, &e[0].node), -ENOENT);
	lt_rcu_read_lock();
	for (unsigned long i = 0; i < 100; i++)
		LT_ASSERT((ht_find(ht, i) != NULL) == (i % 2 == 1));
	lt_rcu_read_unlock();
	LT_ASSERT_EQ(lt_rcu_ht_count(ht), 50);
	lt_rcu_synchronize();
	lt_rcu_ht_destroy(ht);
}

LT_TEST(test_hash_table_replace_and_auto_resize)
{
	lt_rcu_ht_t *ht = lt_rcu_ht_create(2, LT_RCU_HT_AUTO_RESIZE);
	struct hent e[64], r;

	for (unsigned long i = 0; i < 64; i++) {
		e[i].key = i;
		lt_rcu_ht_add(ht, &e[i].node, hash_key(i));
	}
	LT_ASSERT_CMP(lt_rcu_ht_size(ht), >=, 32);
	r.key = 7;
	LT_ASSERT_EQ(lt_rcu_ht_replace(ht, &e[7].node, &r.node), 0);
	LT_ASSERT_EQ(lt_rcu_ht_replace(ht, &e[7].node, &r.node), -ENOENT);
	lt_rcu_read_lock();
	LT_ASSERT(ht_find(ht, 7) == &r);
	lt_rcu_read_unlock();
	LT_ASSERT_EQ(lt_rcu_ht_count(ht), 64);
	lt_rcu_barrier();
	lt_rcu_ht_destroy(ht);
}

LT_TEST(test_hash_table_iteration_sees_each_node_once)
{
	lt_rcu_ht_t *ht = lt_rcu_ht_create(16, 0);
	struct hent e[200];
	int seen[200] = { 0 };
	struct lt_rcu_ht_iter it;
	int total = 0;

	for (unsigned long i = 0; i < 200; i++) {
		e[i].key = i;
		lt_rcu_ht_add(ht, &e[i].node, hash_key(i));
	}
	lt_rcu_read_lock();
	for (struct lt_rcu_ht_node *n = lt_rcu_ht_first(ht, &it); n;
	     n = lt_rcu_ht_next(&it)) {
		seen[lt_list_entry(n, struct hent, node)->key]++;
		total++;
	}
	lt_rcu_read_unlock();
	LT_ASSERT_EQ(total, 200);
	for (int i = 0; i < 200; i++)
		LT_ASSERT_EQ(seen[i], 1);
	lt_rcu_ht_destroy(ht);
}

#define HT_KEYS 512
static lt_rcu_ht_t *resize_ht;
static atomic_long lookups_missed, lookups_done;

static void *ht_reader(void *arg)
{
	unsigned long k = (unsigned long)(intptr_t)arg;

	while (!atomic_load(&stop_readers)) {
		lt_rcu_read_lock();
		for (int i = 0; i < 64; i++) {
			k = (k * 1103515245 + 12345) % HT_KEYS;
			struct hent *e = ht_find(resize_ht, k);
			if (!e || e->key != k)
				atomic_fetch_add(&lookups_missed, 1);
		}
		lt_rcu_read_unlock();
		atomic_fetch_add(&lookups_done, 64);
	}
	return NULL;
}

LT_TEST(test_hash_table_resize_under_readers)
{
	static struct hent e[HT_KEYS];
	pthread_t r[2];
	int resizes = 0;

	resize_ht = lt_rcu_ht_create(8, 0);
	for (unsigned long i = 0; i < HT_KEYS; i++) {
		e[i].key = i;
		lt_rcu_ht_add(resize_ht, &e[i].node, hash_key(i));
	}
	atomic_store(&stop_readers, 0);
	for (int i = 0; i < 2; i++)
		pthread_create(&r[i], NULL, ht_reader, (void *)(intptr_t)i);
	for (int round = 0; round < 200; round++) {
		static const size_t sizes[] = { 2, 64, 1024, 16, 256, 1 };

		LT_ASSERT_EQ(lt_rcu_ht_resize(resize_ht, sizes[round % 6]), 0);
		resizes++;
	}
	sleep_ms(20);
	atomic_store(&stop_readers, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(r[i], NULL);
	printf("  %d resizes, %ld lookups under them\n", resizes,
	       atomic_load(&lookups_done));
	LT_ASSERT_EQ(atomic_load(&lookups_missed), 0);
	LT_ASSERT_CMP(atomic_load(&lookups_done), >, 0);
	LT_ASSERT_EQ(lt_rcu_ht_count(resize_ht), HT_KEYS);
	lt_rcu_barrier();
	lt_rcu_ht_destroy(resize_ht);
}

/* ---- QSBR ---- */

static atomic_int qs_state; /* 1 online without QS, 2 go, 3 offline idle */

static void *qsbr_holder(void *arg)
{
	int offline = (int)(intptr_t)arg;

	lt_rcu_qsbr_register_thread();
	if (offline)
		lt_rcu_qsbr_thread_offline();
	atomic_store(&qs_state, 1);
	while (atomic_load(&qs_state) != 2)
		sleep_ms(1);
	if (offline)
		lt_rcu_qsbr_thread_online();
	lt_rcu_qsbr_quiescent_state();
	lt_rcu_qsbr_unregister_thread();
	return NULL;
}

LT_TEST(test_qsbr_synchronize_waits_for_online_reader)
{
	pthread_t r, s;

	atomic_store(&qs_state, 0);
	atomic_store(&sync_done, 0);
	pthread_create(&r, NULL, qsbr_holder, (void *)0);
	while (atomic_load(&qs_state) != 1)
		sleep_ms(1);
	pthread_create(&s, NULL, do_qsbr_synchronize, NULL);
	sleep_ms(200);
	LT_ASSERT_EQ(atomic_load(&sync_done), 0);
	atomic_store(&qs_state, 2);
	pthread_join(s, NULL);
	LT_ASSERT_EQ(atomic_load(&sync_done), 1);
	pthread_join(r, NULL);
}

LT_TEST(test_qsbr_offline_thread_does_not_block)
{
	pthread_t r;

	atomic_store(&qs_state, 0);
	pthread_create(&r, NULL, qsbr_holder, (void *)1);
	while (atomic_load(&qs_state) != 1)
		sleep_ms(1);
	lt_rcu_qsbr_synchronize();
	lt_rcu_qsbr_synchronize();
	atomic_store(&qs_state, 2);
	pthread_join(r, NULL);
}

LT_TEST(test_qsbr_registered_thread_can_synchronize)
{
	lt_rcu_qsbr_register_thread();
	lt_rcu_qsbr_read_lock();
	lt_rcu_qsbr_read_unlock();
	lt_rcu_qsbr_synchronize();
	LT_ASSERT_CMP(atomic_load(&lt_rcu_qsbr_reader.ctr), !=, 0);
	lt_rcu_qsbr_unregister_thread();
	lt_rcu_qsbr_synchronize();
}
