/* SPDX-License-Identifier: MIT */
/*
 * test_rcu_torture.c - a userspace rcutorture.
 *
 * Reader threads walk three RCU-protected structures (one pointer, a list
 * and a hash table) while an updater replaces their elements and frees
 * the old ones through lt_call_rcu, lt_defer_rcu or lt_rcu_synchronize.
 * The free path first poisons the element; a reader checks every element
 * it meets, waits a little inside the section and checks it again, so an
 * element freed too early shows up as a poisoned read (or, under ASan, as
 * a use after free).  A timer signal lands in the readers and takes
 * nested read sections from the handler, and one thread meets RCU for the
 * first time in that handler; some handler sections last long enough
 * that the updater sleeps and the handler's unlock must wake it.  A
 * second updater thread calls synchronize meanwhile (batched grace
 * periods), and the updater forks now and then with callbacks queued:
 * the child runs them on its own worker (not under TSan, which kills a
 * multi-threaded fork's child that starts threads).  The same run is
 * repeated in the QSBR flavour (call_rcu too) and, re-executed with
 * LOWTRACE_RCU_NO_MEMBARRIER=1, in the fence fallback.  Runs are shorter
 * under the sanitizers (SANITIZE set).
 */
#define _GNU_SOURCE
#include "lowtrace/rcu.h"
#include "lowtrace/rcu_call.h"
#include "lowtrace/rcu_hash.h"
#include "lowtrace/rcu_list.h"
#include "lt_test.h"
#include "rcu/memb.h"
#include "lib-rcu/qsbr.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/time.h>
#include <time.h>

#define ALIVE 0x600dcafe600dcafeUL
#define POISON 0x5a5a5a5a5a5a5a5aUL
#define NLIST 16
#define NKEYS 64
#define NREADERS 2
#define MAX_OUTSTANDING 20000

struct telem {
	struct lt_rcu_head rcu; /* first: malloc reuses a freed chunk's head */
	struct lt_list_head list;
	struct lt_rcu_ht_node hnode;
	unsigned long key;
	unsigned long seq;
	unsigned long magic;
	unsigned long magic2;
};

static struct telem *cur;
static struct lt_list_head list = LT_LIST_HEAD_INIT(list);
static struct telem *list_slot[NLIST]; /* updater's view of the list */
static lt_rcu_ht_t *table;
static struct telem *key_slot[NKEYS]; /* updater's view of the table */

static atomic_int stop;
static atomic_long poisoned, missing, reads, handler_reads, freed, allocated;
static atomic_long callbacks_run;
static atomic_long forks, child_failures;
/*
 * The table frees old bucket arrays with lt_call_rcu, a membarrier-flavour
 * grace period: QSBR readers enter a membarrier section around lookups.
 */
static int table_needs_memb_section;

static double run_seconds(double plain)
{
	const char *san = getenv("SANITIZE");

	return san && *san ? plain / 3 : plain;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long next_rand(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static unsigned long hash_key(unsigned long k)
{
	return k * 0x9e3779b97f4a7c15UL;
}

static struct telem *elem_new(unsigned long key)
{
	static atomic_ulong seq;
	struct telem *e = calloc(1, sizeof(*e));

	if (!e)
		abort();
	e->key = key;
	e->seq = atomic_fetch_add(&seq, 1);
	e->magic = ALIVE;
	e->magic2 = ALIVE;
	atomic_fetch_add(&allocated, 1);
	return e;
}

static void elem_poison_free(struct telem *e)
{
	e->magic = POISON;
	e->magic2 = POISON;
	e->seq = POISON;
	free(e);
	atomic_fetch_add(&freed, 1);
}

static void elem_cb(struct lt_rcu_head *h)
{
	atomic_fetch_add(&callbacks_run, 1);
	elem_poison_free((struct telem *)h);
}

static void elem_deferred(void *p)
{
	elem_poison_free(p);
}

static int ht_match(const struct lt_rcu_ht_node *n, const void *key)
{
	return lt_list_entry(n, struct telem, hnode)->key ==
	       *(const unsigned long *)key;
}

/* Spin a little, sometimes yield the CPU, inside the section. */
static void reader_delay(unsigned long r)
{
	if ((r & 63) == 0) {
		sched_yield();
		return;
	}
	for (unsigned i = 0; i < (r & 255); i++)
		atomic_signal_fence(memory_order_seq_cst);
}

static int elem_ok(const struct telem *e)
{
	return e->magic == ALIVE && e->magic2 == ALIVE;
}

/* Check e, keep it in use for a while, check it is still the same. */
static void check_elem(const struct telem *e, unsigned long *rs)
{
	unsigned long seq = e->seq;

	if (!elem_ok(e)) {
		atomic_fetch_add(&poisoned, 1);
		return;
	}
	reader_delay(next_rand(rs));
	if (!elem_ok(e) || e->seq != seq)
		atomic_fetch_add(&poisoned, 1);
}

/* One pass over the three structures; the caller holds a read section. */
static void read_pass(unsigned long *rs)
{
	struct lt_list_head *pos;
	int n = 0;

	check_elem(lt_rcu_dereference(cur), rs);
	lt_list_for_each_rcu(pos, &list) {
		const struct telem *e = lt_list_entry(pos, struct telem, list);

		if (!elem_ok(e))
			atomic_fetch_add(&poisoned, 1);
		n++;
	}
	if (n != NLIST)
		atomic_fetch_add(&missing, 1);
	if (table_needs_memb_section)
		lt_rcu_read_lock();
	for (int i = 0; i < 4; i++) {
		unsigned long k = next_rand(rs) % NKEYS;
		struct lt_rcu_ht_node *hn =
			lt_rcu_ht_lookup(table, hash_key(k), ht_match, &k);

		if (!hn) {
			atomic_fetch_add(&missing, 1);
			continue;
		}
		check_elem(lt_list_entry(hn, struct telem, hnode), rs);
	}
	if (table_needs_memb_section)
		lt_rcu_read_unlock();
	atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
}

/* ---- membarrier flavour ---- */

static void alarm_handler(int sig)
{
	static atomic_ulong n;
	unsigned long rs = (unsigned long)&sig | 1;
	int saved = errno;

	(void)sig;
	lt_rcu_read_lock();
	lt_rcu_read_lock();
	check_elem(lt_rcu_dereference(cur), &rs);
	/* Now and then long enough that the updater goes to sleep. */
	if (atomic_fetch_add_explicit(&n, 1, memory_order_relaxed) % 16 == 0) {
		struct timespec ts = { 0, 200000 };

		nanosleep(&ts, NULL);
		check_elem(lt_rcu_dereference(cur), &rs);
	}
	lt_rcu_read_unlock();
	lt_rcu_read_unlock();
	atomic_fetch_add_explicit(&handler_reads, 1, memory_order_relaxed);
	errno = saved;
}

static void unblock_alarm(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
}

static void *memb_reader(void *arg)
{
	unsigned long rs = (unsigned long)(intptr_t)arg * 7919 + 1;

	unblock_alarm();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		lt_rcu_read_lock();
		read_pass(&rs);
		lt_rcu_read_unlock();
	}
	return NULL;
}

/* Takes read sections only in the signal handler. */
static void *signal_only_thread(void *arg)
{
	(void)arg;
	unblock_alarm();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct timespec ts = { 0, 200000 };

		nanosleep(&ts, NULL);
	}
	return NULL;
}

static int under_tsan(void)
{
	const char *san = getenv("SANITIZE");

	return san && strstr(san, "thread");
}

/* Concurrent synchronize calls, batched with the updater's. */
static void *sync_thread(void *arg)
{
	void (*sync)(void) = (void (*)(void))arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		struct timespec ts = { 0, 50000 };

		sync();
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/*
 * Fork with callbacks queued: the child synchronizes, then runs what was
 * queued on a worker of its own (the parent's workers are parked over the
 * fork and go on in the parent).
 */
static void fork_with_callbacks(void (*barrier)(void))
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0) {
		long before = atomic_load(&callbacks_run);

		lt_rcu_synchronize();
		lt_rcu_qsbr_synchronize();
		barrier();
		lt_defer_barrier();
		_exit(atomic_load(&poisoned) == 0 &&
				      atomic_load(&callbacks_run) >= before ?
			      0 :
			      1);
	}
	if (pid < 0)
		return;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		atomic_fetch_add(&child_failures, 1);
	atomic_fetch_add(&forks, 1);
}

static void throttle(void)
{
	if (atomic_load(&allocated) - atomic_load(&freed) > MAX_OUTSTANDING) {
		lt_rcu_barrier();
		lt_defer_barrier();
	}
}

static void setup_structures(void)
{
	table = lt_rcu_ht_create(8, 0);
	lt_rcu_assign_pointer(cur, elem_new(0));
	for (int i = 0; i < NLIST; i++) {
		list_slot[i] = elem_new((unsigned long)i);
		lt_list_add_tail_rcu(&list_slot[i]->list, &list);
	}
	for (unsigned long k = 0; k < NKEYS; k++) {
		key_slot[k] = elem_new(k);
		lt_rcu_ht_add(table, &key_slot[k]->hnode, hash_key(k));
	}
}

/* Replace one element of each structure; free the old ones as told. */
static void update_once(unsigned long i, unsigned long *rs,
			void (*retire)(struct telem *e, unsigned long i))
{
	struct telem *n = elem_new(0), *old;
	int li = (int)(next_rand(rs) % NLIST);
	unsigned long k = next_rand(rs) % NKEYS;

	old = lt_rcu_xchg_pointer(cur, n);
	retire(old, i);

	n = elem_new((unsigned long)li);
	old = list_slot[li];
	lt_list_replace_rcu(&old->list, &n->list);
	list_slot[li] = n;
	retire(old, i + 1);

	n = elem_new(k);
	old = key_slot[k];
	if (lt_rcu_ht_replace(table, &old->hnode, &n->hnode) != 0)
		abort();
	key_slot[k] = n;
	retire(old, i + 2);

	if (i % 512 == 0) {
		static const size_t sizes[] = { 4, 64, 16, 256, 1 };

		lt_rcu_ht_resize(table, sizes[(i / 512) % 5]);
	}
}

static void memb_retire(struct telem *e, unsigned long i)
{
	switch (i % 3) {
	case 0:
		lt_call_rcu(&e->rcu, elem_cb);
		break;
	case 1:
		lt_defer_rcu(elem_deferred, e);
		break;
	default:
		if (i % 96 == 2) {
			lt_rcu_synchronize();
			elem_poison_free(e);
		} else {
			lt_call_rcu(&e->rcu, elem_cb);
		}
	}
}

static void teardown_structures(void (*sync)(void))
{
	struct lt_list_head *pos, *n;

	sync();
	elem_poison_free(cur);
	lt_list_for_each_safe(pos, n, &list)
		elem_poison_free(lt_list_entry(pos, struct telem, list));
	for (unsigned long k = 0; k < NKEYS; k++)
		elem_poison_free(key_slot[k]);
	lt_rcu_barrier();
	lt_rcu_ht_destroy(table);
}

static int membarrier_disabled(void)
{
	const char *v = getenv("LOWTRACE_RCU_NO_MEMBARRIER");

	return v && *v && strcmp(v, "0") != 0;
}

static void torture_memb(double seconds)
{
	pthread_t r[NREADERS], sig_thread, syncer;
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	struct sigaction sa;
	sigset_t block;
	unsigned long rs = 88172645463325252UL, i = 0;
	unsigned long gp0 = lt_rcu_gp_count();
	unsigned long sleeps0 = lt_rcu_memb_sleeps();
	double end, next_fork;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = alarm_handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &block, NULL);

	setup_structures();
	for (int t = 0; t < NREADERS; t++)
		pthread_create(&r[t], NULL, memb_reader, (void *)(intptr_t)t);
	pthread_create(&sig_thread, NULL, signal_only_thread, NULL);
	pthread_create(&syncer, NULL, sync_thread, (void *)lt_rcu_synchronize);
	setitimer(ITIMER_REAL, &it, NULL);

	end = now_s() + seconds;
	next_fork = now_s() + 0.2;
	while (now_s() < end) {
		for (int j = 0; j < 64; j++, i += 3)
			update_once(i, &rs, memb_retire);
		throttle();
		if (!under_tsan() && now_s() > next_fork) {
			fork_with_callbacks(lt_rcu_barrier);
			next_fork = now_s() + 0.2;
		}
	}

	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	atomic_store(&stop, 1);
	for (int t = 0; t < NREADERS; t++)
		pthread_join(r[t], NULL);
	pthread_join(sig_thread, NULL);
	pthread_join(syncer, NULL);
	lt_defer_barrier();
	teardown_structures(lt_rcu_synchronize);

	fprintf(membarrier_disabled() ? stderr : stdout,
		"  %s: %lu updates, %ld reads, %ld in handlers, %lu grace "
		"periods, %lu sleeps, %ld callbacks, %ld forks, %ld poisoned, "
		"%ld missing\n",
		lt_rcu_uses_membarrier() ? "membarrier" : "fence fallback",
		i / 3, atomic_load(&reads), atomic_load(&handler_reads),
		lt_rcu_gp_count() - gp0, lt_rcu_memb_sleeps() - sleeps0,
		atomic_load(&callbacks_run), atomic_load(&forks),
		atomic_load(&poisoned), atomic_load(&missing));
	LT_ASSERT_EQ(atomic_load(&child_failures), 0);
	LT_ASSERT_EQ(atomic_load(&poisoned), 0);
	LT_ASSERT_EQ(atomic_load(&missing), 0);
	LT_ASSERT_CMP(atomic_load(&reads), >, 0);
	LT_ASSERT_CMP(atomic_load(&handler_reads), >, 0);
	LT_ASSERT_CMP(lt_rcu_gp_count() - gp0, >, 0);
	LT_ASSERT_CMP(atomic_load(&callbacks_run), >, 0);
	LT_ASSERT_EQ(atomic_load(&allocated), atomic_load(&freed));
}

LT_TEST(test_torture_membarrier_flavour)
{
	if (membarrier_disabled())
		LT_SKIP("LOWTRACE_RCU_NO_MEMBARRIER set");
	if (!lt_rcu_uses_membarrier())
		LT_SKIP("membarrier unavailable (the fallback case covers it)");
	torture_memb(run_seconds(4));
}

LT_TEST(test_torture_fence_fallback)
{
	if (!membarrier_disabled()) {
		pid_t pid = fork();
		int st = 0;

		if (pid == 0) {
			char *argv[] = { "test_rcu_torture",
					 "test_torture_fence_fallback", NULL };

			setenv("LOWTRACE_RCU_NO_MEMBARRIER", "1", 1);
			if (!freopen("/dev/null", "w", stdout))
				_exit(2);
			execv("/proc/self/exe", argv);
			_exit(2);
		}
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		LT_ASSERT(WIFEXITED(st));
		LT_ASSERT_EQ(WEXITSTATUS(st), 0);
		return;
	}
	LT_ASSERT(!lt_rcu_uses_membarrier());
	torture_memb(run_seconds(3));
}

/* ---- QSBR flavour ---- */

static void *qsbr_reader(void *arg)
{
	unsigned long rs = (unsigned long)(intptr_t)arg * 104729 + 3;
	unsigned long n = 0;

	lt_rcu_qsbr_register_thread();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		lt_rcu_qsbr_read_lock();
		read_pass(&rs);
		lt_rcu_qsbr_read_unlock();
		if (++n % 8 == 0)
			lt_rcu_qsbr_quiescent_state();
		if (n % 1024 == 0) {
			struct timespec ts = { 0, 100000 };

			lt_rcu_qsbr_thread_offline();
			nanosleep(&ts, NULL);
			lt_rcu_qsbr_thread_online();
		}
	}
	lt_rcu_qsbr_unregister_thread();
	return NULL;
}

static unsigned long qsbr_gps;

static void qsbr_retire(struct telem *e, unsigned long i)
{
	if (i % 3 == 0) {
		lt_rcu_qsbr_call_rcu(&e->rcu, elem_cb);
		return;
	}
	lt_rcu_qsbr_synchronize();
	qsbr_gps++;
	elem_poison_free(e);
}

static void qsbr_sync(void)
{
	lt_rcu_qsbr_synchronize();
}

LT_TEST(test_torture_qsbr_flavour)
{
	pthread_t r[NREADERS], syncer;
	unsigned long rs = 1181783497276652981UL, i = 0;
	unsigned long sleeps0 = lt_rcu_qsbr_sleeps();
	double end, next_fork;

	table_needs_memb_section = 1;
	setup_structures();
	for (int t = 0; t < NREADERS; t++)
		pthread_create(&r[t], NULL, qsbr_reader, (void *)(intptr_t)t);
	pthread_create(&syncer, NULL, sync_thread, (void *)qsbr_sync);
	end = now_s() + run_seconds(2);
	next_fork = now_s() + 0.2;
	while (now_s() < end) {
		for (int j = 0; j < 16; j++, i += 3)
			update_once(i, &rs, qsbr_retire);
		if (atomic_load(&allocated) - atomic_load(&freed) >
		    MAX_OUTSTANDING)
			lt_rcu_qsbr_barrier();
		if (!under_tsan() && now_s() > next_fork) {
			fork_with_callbacks(lt_rcu_qsbr_barrier);
			next_fork = now_s() + 0.2;
		}
	}
	atomic_store(&stop, 1);
	for (int t = 0; t < NREADERS; t++)
		pthread_join(r[t], NULL);
	pthread_join(syncer, NULL);
	lt_rcu_qsbr_barrier();
	teardown_structures(qsbr_sync);
	printf("  qsbr: %lu updates, %ld reads, %lu grace periods, %lu "
	       "sleeps, %ld forks, %ld poisoned, %ld missing\n",
	       i / 3, atomic_load(&reads), qsbr_gps,
	       lt_rcu_qsbr_sleeps() - sleeps0, atomic_load(&forks),
	       atomic_load(&poisoned), atomic_load(&missing));
	LT_ASSERT_EQ(atomic_load(&child_failures), 0);
	LT_ASSERT_EQ(atomic_load(&poisoned), 0);
	LT_ASSERT_EQ(atomic_load(&missing), 0);
	LT_ASSERT_CMP(atomic_load(&reads), >, 0);
	LT_ASSERT_CMP(qsbr_gps, >, 0);
	LT_ASSERT_EQ(atomic_load(&allocated), atomic_load(&freed));
}
