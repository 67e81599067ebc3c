/* SPDX-License-Identifier: MIT */
/*
 * memb.c - the membarrier RCU flavour: reader registration and the grace
 * period (lt_rcu_synchronize).  The read side is inline in
 * include/lowtrace/rcu.h.
 *
 * Readers live on a singly linked list whose head is pushed with a CAS,
 * so a thread registers itself from a signal handler on its first
 * lt_rcu_read_lock.  Records leave the list under registry_lock (thread
 * exit, through a pthread key destructor, or lt_rcu_unregister_thread).
 * lt_rcu_synchronize holds registry_lock for its scans, so the only
 * concurrent change it sees is a push at the head.
 *
 * Concurrent lt_rcu_synchronize calls share grace periods (src/runtime/rcu/batch.c).
 * A grace period waits for old readers by scanning their counters a few
 * times, then sleeping on lt_rcu_gp.waiting, which the next reader to
 * leave its outermost section wakes.  With no registered reader it costs
 * no membarrier.
 */
#define _GNU_SOURCE
#include "lowtrace/rcu.h"
#include "rcu/batch.h"
#include "rcu/memb.h"
#include "rcu/wait.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef LT_RCU_TSAN
#define LT_RCU_UPDATER_LOAD memory_order_acquire
#else
#define LT_RCU_UPDATER_LOAD memory_order_relaxed
#endif

struct lt_rcu_gp lt_rcu_gp = { .ctr = LT_RCU_COUNT, .use_fence = 0 };
__thread struct lt_rcu_reader lt_rcu_reader
	__attribute__((tls_model("initial-exec")));

static struct lt_rcu_reader *_Atomic readers;
static pthread_mutex_t gp_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;
static atomic_int init_done;
static atomic_ulong gp_count;
static struct lt_rcu_batch gp_batch;
/* Times an updater went to sleep on lt_rcu_gp.waiting (for tests). */
static atomic_ulong sleeps;

static void reader_exit(void *arg);

static long membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

static int membarrier_usable(void)
{
	const char *env = getenv("LOWTRACE_RCU_NO_MEMBARRIER");
	long mask;

	if (env && *env && strcmp(env, "0") != 0)
		return 0;
	mask = membarrier(MEMBARRIER_CMD_QUERY);
	if (mask < 0 || !(mask & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		return 0;
	return membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

/*
 * In a forked child only the forking thread exists: drop the records of
 * the others (their counters are frozen) and reset the locks.
 */
void lt_rcu_memb_reset_child(void)
{
	/* Both this flavour's own handler and call.c's run it: once. */
	static pid_t done_in;
	pid_t pid = getpid();

	if (done_in == pid)
		return;
	done_in = pid;
	pthread_mutex_init(&gp_lock, NULL);
	pthread_mutex_init(&registry_lock, NULL);
	atomic_store(&gp_batch.head, NULL);
	atomic_store(&lt_rcu_gp.waiting,
		     lt_rcu_gp.use_fence ? LT_RCU_WAIT_FENCE : 0);
	if (lt_rcu_reader.registered) {
		atomic_store_explicit(&lt_rcu_reader.next, NULL,
				      memory_order_relaxed);
		atomic_store_explicit(&readers, &lt_rcu_reader,
				      memory_order_release);
	} else {
		atomic_store_explicit(&readers, NULL, memory_order_release);
	}
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void do_init(void)
{
	lt_rcu_gp.use_fence = !membarrier_usable();
	if (lt_rcu_gp.use_fence)
		atomic_store(&lt_rcu_gp.waiting, LT_RCU_WAIT_FENCE);
	pthread_key_create(&exit_key, reader_exit);
	pthread_atfork(NULL, NULL, lt_rcu_memb_reset_child);
	atomic_store_explicit(&init_done, 1, memory_order_release);
}

void lt_rcu_init(void)
{
	pthread_once(&init_once, do_init);
}

__attribute__((constructor)) static void lt_rcu_ctor(void)
{
	lt_rcu_init();
}

int lt_rcu_uses_membarrier(void)
{
	lt_rcu_init();
	return !lt_rcu_gp.use_fence;
}

unsigned long lt_rcu_memb_sleeps(void)
{
	return atomic_load_explicit(&sleeps, memory_order_relaxed);
}

unsigned long lt_rcu_gp_count(void)
{
	return atomic_load(&gp_count);
}

/*
 * Signals are blocked for the push so that a handler cannot see the
 * record half pushed; a handler that ran just before finished the job
 * itself, hence the second test of registered.  pthread_setspecific for
 * a key created at start-up (index below PTHREAD_KEY_2NDLEVEL_SIZE in
 * glibc) writes into the thread descriptor without locking or
 * allocating; it arms the destructor that unregisters at thread exit.
 */
void lt_rcu_register_slow(void)
{
	struct lt_rcu_reader *head;
	sigset_t all, old;

	if (!atomic_load_explicit(&init_done, memory_order_acquire))
		lt_rcu_init();
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (!lt_rcu_reader.registered) {
		head = atomic_load_explicit(&readers, memory_order_relaxed);
		do {
			atomic_store_explicit(&lt_rcu_reader.next, head,
					      memory_order_relaxed);
			/*
			 * pairs with the acquire load of readers in
			 * lt_rcu_synchronize: a scan that finds the record
			 * sees its initialised next.  Being a full barrier,
			 * the CAS also orders the push before this
			 * thread's first counter store.
			 */
		} while (!atomic_compare_exchange_weak_explicit(
			&readers, &head, &lt_rcu_reader, memory_order_seq_cst,
			memory_order_relaxed));
		pthread_setspecific(exit_key, &lt_rcu_reader);
		lt_rcu_reader.registered = 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void lt_rcu_register_thread(void)
{
	if (!lt_rcu_reader.registered)
		lt_rcu_register_slow();
}

/* Called with registry_lock held; only pushes at the head run meanwhile. */
static void unlink_reader(struct lt_rcu_reader *r)
{
	struct lt_rcu_reader *head = r;
	struct lt_rcu_reader *next, *p;

	next = atomic_load_explicit(&r->next, memory_order_relaxed);
	if (atomic_compare_exchange_strong(&readers, &head, next))
		return;
	/* Not the head (any more): r has a predecessor, which no one moves. */
	for (p = head; p;
	     p = atomic_load_explicit(&p->next, memory_order_relaxed)) {
		if (atomic_load_explicit(&p->next, memory_order_relaxed) == r) {
			atomic_store_explicit(&p->next, next,
					      memory_order_relaxed);
			return;
		}
	}
}

static void unregister(struct lt_rcu_reader *r)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_mutex_lock(&registry_lock);
	if (r->registered) {
		unlink_reader(r);
		r->registered = 0;
	}
	pthread_mutex_unlock(&registry_lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void reader_exit(void *arg)
{
	unregister(arg);
}

void lt_rcu_unregister_thread(void)
{
	lt_rcu_init();
	pthread_setspecific(exit_key, NULL);
	unregister(&lt_rcu_reader);
}

unsigned lt_rcu_registered_readers(void)
{
	unsigned n = 0;

	pthread_mutex_lock(&registry_lock);
	for (struct lt_rcu_reader *r = atomic_load(&readers); r;
	     r = atomic_load(&r->next))
		n++;
	pthread_mutex_unlock(&registry_lock);
	return n;
}

/* A full barrier on every thread of the process, or on this one only. */
static void smp_mb_master(void)
{
	if (lt_rcu_gp.use_fence)
		lt_rcu_smp_mb();
	else if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) < 0)
		abort(); /* registered at init: cannot fail */
}

/* Active in a section that began before the last phase flip. */
static int reader_in_old_phase(struct lt_rcu_reader *r, unsigned long gp)
{
	unsigned long v = atomic_load_explicit(&r->ctr, LT_RCU_UPDATER_LOAD);

	return (v & LT_RCU_NEST_MASK) && ((v ^ gp) & LT_RCU_PHASE);
}

static int any_reader_in_old_phase(unsigned long gp)
{
	struct lt_rcu_reader *r;

	for (r = atomic_load_explicit(&readers, memory_order_acquire); r;
	     r = atomic_load_explicit(&r->next, memory_order_acquire))
		if (reader_in_old_phase(r, gp))
			return 1;
	return 0;
}

void lt_rcu_wake_updater(void)
{
	if (atomic_fetch_and(&lt_rcu_gp.waiting, ~LT_RCU_WAIT_SLEEP) &
	    LT_RCU_WAIT_SLEEP)
		lt_rcu_futex_wake(&lt_rcu_gp.waiting, 1);
}

/*
 * Until no reader is in the old phase: scan, and after a few scans sleep
 * until a reader leaves its section.  Model: models/rcu.pml (waiter).
 */
static void wait_for_readers(unsigned long gp)
{
	int fence = lt_rcu_gp.use_fence ? LT_RCU_WAIT_FENCE : 0;
	int announced = 0;

	for (unsigned attempt = 0; any_reader_in_old_phase(gp); attempt++) {
		if (attempt < LT_RCU_SPIN_ATTEMPTS) {
			lt_rcu_cpu_relax();
			continue;
		}
		announced = 1;
		atomic_fetch_or(&lt_rcu_gp.waiting, LT_RCU_WAIT_SLEEP);
		/*
		 * pairs with the reader barrier after the counter store in
		 * lt_rcu_read_unlock (made full by this membarrier; without
		 * membarrier, the reader's fence in lt_rcu_read_unlock_slow
		 * or its locked store): either the scan below sees the
		 * reader out or the reader sees waiting and wakes us.
		 */
		smp_mb_master();
		if (!any_reader_in_old_phase(gp))
			break;
		atomic_fetch_add_explicit(&sleeps, 1, memory_order_relaxed);
		lt_rcu_futex_wait(&lt_rcu_gp.waiting,
				  fence | LT_RCU_WAIT_SLEEP);
	}
	/* only if announced: every reader's unlock loads this line, and a
	 * write in each grace period would take it from them */
	if (announced)
		atomic_fetch_and(&lt_rcu_gp.waiting, ~LT_RCU_WAIT_SLEEP);
}

/* Model: models/rcu.pml (flip_and_wait is one half of synchronize). */
static void flip_and_wait(void)
{
	unsigned long gp =
		atomic_load_explicit(&lt_rcu_gp.ctr, memory_order_relaxed) ^
		LT_RCU_PHASE;

	atomic_store_explicit(&lt_rcu_gp.ctr, gp, memory_order_relaxed);
	/*
	 * pairs with the reader's load of gp.ctr in lt_rcu_read_lock: the
	 * flip is visible before this thread reads the reader counters, so
	 * sections that start from now on carry the new phase and the wait
	 * is only for sections already running (progress, not safety).
	 */
	lt_rcu_smp_mb();
	wait_for_readers(gp);
	/*
	 * pairs with the reader barrier before the counter store in
	 * lt_rcu_read_unlock (made full by the closing membarrier): the
	 * counter loads that ended the wait are ordered before the next
	 * flip and before the free that follows the grace period.
	 */
	lt_rcu_smp_mb();
}

/* One grace period, with gp_lock held. */
static void grace_period(void)
{
	pthread_mutex_lock(&registry_lock);
	/*
	 * pairs with the full barrier of the CAS that registers a reader:
	 * a reader not on the list yet will see the caller's unpublish, so
	 * with none on it there is no one to wait for.
	 */
	lt_rcu_smp_mb();
	if (atomic_load_explicit(&readers, memory_order_acquire)) {
		/*
		 * pairs with the reader barrier after the counter store in
		 * lt_rcu_read_lock: the updater's unpublish (before this
		 * call) is visible to any section whose counter store this
		 * scan misses, and every counter store done before now is
		 * visible to the scans.
		 */
		smp_mb_master();
		flip_and_wait();
		flip_and_wait();
		/*
		 * pairs with the reader barrier before the counter store in
		 * lt_rcu_read_unlock: the old readers' loads are complete
		 * before the caller frees what they may have seen.
		 */
		smp_mb_master();
	}
	atomic_fetch_add_explicit(&gp_count, 1, memory_order_relaxed);
	pthread_mutex_unlock(&registry_lock);
}

/*
 * Wait for every read-side section that began before the call.  Callers
 * that queue while another runs a grace period are served together by
 * the next one.  Model: models/rcu.pml
 */
void lt_rcu_synchronize(void)
{
	struct lt_rcu_waiter self;
	struct lt_rcu_waiter *batch;

	lt_rcu_init();
	if (lt_rcu_read_ongoing())
		abort(); /* would wait for itself forever */
	if (!lt_rcu_batch_join(&gp_batch, &self))
		return;
	pthread_mutex_lock(&gp_lock);
	batch = lt_rcu_batch_take(&gp_batch);
	grace_period();
	pthread_mutex_unlock(&gp_lock);
	lt_rcu_batch_wake(batch, &self);
}
