/* SPDX-License-Identifier: MIT */
/*
 * qsbr.c - the QSBR RCU flavour: registration, offline/online and the
 * grace period.  The read side (nothing but compiler barriers) and
 * lt_rcu_qsbr_quiescent_state are inline in include/lowtrace/rcu.h.
 *
 * A grace period advances lt_rcu_qsbr_gp_ctr by LT_RCU_QSBR_STEP and
 * waits until every registered thread is offline (ctr 0) or has copied
 * the new value at a quiescent state.  The counter starts odd and moves
 * by 2, so an online thread's ctr is never 0.  The updater scans every
 * reader a few times, then sleeps on a futex that the next quiescent
 * state (or offline or online) of a reader it waits for wakes.
 * Concurrent synchronize calls share grace periods (src/runtime/rcu/batch.c).
 * Registration takes a lock: this flavour is not for signal handlers.
 */
#define _GNU_SOURCE
#include "lowtrace/rcu.h"
#include "rcu/batch.h"
#include "lib-rcu/qsbr.h"
#include "rcu/wait.h"

#include <pthread.h>
#include <unistd.h>

#define LT_RCU_QSBR_STEP 2UL

atomic_ulong lt_rcu_qsbr_gp_ctr = 1;
atomic_int lt_rcu_qsbr_waiting;
__thread struct lt_rcu_qsbr_reader lt_rcu_qsbr_reader
	__attribute__((tls_model("initial-exec")));

static struct lt_rcu_qsbr_reader *qsbr_readers;
static pthread_mutex_t qsbr_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lt_rcu_batch qsbr_batch;
/* Times an updater went to sleep on lt_rcu_qsbr_waiting (for tests). */
static atomic_ulong sleeps;

unsigned long lt_rcu_qsbr_sleeps(void)
{
	return atomic_load_explicit(&sleeps, memory_order_relaxed);
}

void lt_rcu_qsbr_reset_child(void)
{
	/* Both this flavour's own handler and call.c's run it: once. */
	static pid_t done_in;
	pid_t pid = getpid();

	if (done_in == pid)
		return;
	done_in = pid;
	pthread_mutex_init(&qsbr_lock, NULL);
	qsbr_readers = NULL;
	atomic_store(&lt_rcu_qsbr_waiting, 0);
	atomic_store(&qsbr_batch.head, NULL);
	if (lt_rcu_qsbr_reader.registered) {
		lt_rcu_qsbr_reader.prev = lt_rcu_qsbr_reader.next = NULL;
		qsbr_readers = &lt_rcu_qsbr_reader;
	}
}

__attribute__((constructor)) static void lt_rcu_qsbr_ctor(void)
{
	pthread_atfork(NULL, NULL, lt_rcu_qsbr_reset_child);
}

void lt_rcu_qsbr_wake_updater(void)
{
	if (atomic_exchange(&lt_rcu_qsbr_waiting, 0))
		lt_rcu_futex_wake(&lt_rcu_qsbr_waiting, 1);
}

void lt_rcu_qsbr_thread_offline(void)
{
	/*
	 * pairs with the fence in lt_rcu_qsbr_synchronize after it has
	 * read the counters: this thread's reads are done before the
	 * updater sees it offline and frees.
	 */
	lt_rcu_smp_mb();
	atomic_store_explicit(&lt_rcu_qsbr_reader.ctr, 0, memory_order_release);
	/*
	 * pairs with the fence after the updater sets lt_rcu_qsbr_waiting:
	 * it sees this thread offline or this thread sees the flag.
	 */
	lt_rcu_smp_mb();
	if (atomic_load_explicit(&lt_rcu_qsbr_waiting, memory_order_relaxed))
		lt_rcu_qsbr_wake_updater();
}

void lt_rcu_qsbr_thread_online(void)
{
	unsigned long gp =
		atomic_load_explicit(&lt_rcu_qsbr_gp_ctr, memory_order_relaxed);

	atomic_store_explicit(&lt_rcu_qsbr_reader.ctr, gp,
			      memory_order_release);
	/*
	 * pairs with the fence in lt_rcu_qsbr_synchronize before the
	 * counter update: a thread online with the new value sees the
	 * updater's unpublish in its later reads; and with the fence after
	 * the updater sets lt_rcu_qsbr_waiting, as for a quiescent state.
	 */
	lt_rcu_smp_mb();
	if (atomic_load_explicit(&lt_rcu_qsbr_waiting, memory_order_relaxed))
		lt_rcu_qsbr_wake_updater();
}

void lt_rcu_qsbr_register_thread(void)
{
	if (lt_rcu_qsbr_reader.registered)
		return;
	pthread_mutex_lock(&qsbr_lock);
	lt_rcu_qsbr_reader.prev = NULL;
	lt_rcu_qsbr_reader.next = qsbr_readers;
	if (qsbr_readers)
		qsbr_readers->prev = &lt_rcu_qsbr_reader;
	qsbr_readers = &lt_rcu_qsbr_reader;
	lt_rcu_qsbr_reader.registered = 1;
	pthread_mutex_unlock(&qsbr_lock);
	lt_rcu_qsbr_thread_online();
}

void lt_rcu_qsbr_unregister_thread(void)
{
	struct lt_rcu_qsbr_reader *r = &lt_rcu_qsbr_reader;

	if (!lt_rcu_qsbr_reader.registered)
		return;
	/* Offline first: a synchronize holding the lock may wait for us. */
	lt_rcu_qsbr_thread_offline();
	pthread_mutex_lock(&qsbr_lock);
	if (r->prev)
		r->prev->next = r->next;
	else
		qsbr_readers = r->next;
	if (r->next)
		r->next->prev = r->prev;
	lt_rcu_qsbr_reader.registered = 0;
	pthread_mutex_unlock(&qsbr_lock);
}

static int reader_behind(struct lt_rcu_qsbr_reader *r, unsigned long gp)
{
	unsigned long v = atomic_load_explicit(&r->ctr, memory_order_acquire);

	return v && v != gp;
}

static int any_reader_behind(unsigned long gp)
{
	for (struct lt_rcu_qsbr_reader *r = qsbr_readers; r; r = r->next)
		if (reader_behind(r, gp))
			return 1;
	return 0;
}

/*
 * Scan, then sleep until a reader announces a quiescent state or goes
 * offline.  Model: models/rcu.pml (waiter).
 */
static void wait_for_readers(unsigned long gp)
{
	int announced = 0;

	for (unsigned attempt = 0; any_reader_behind(gp); attempt++) {
		if (attempt < LT_RCU_SPIN_ATTEMPTS) {
			lt_rcu_cpu_relax();
			continue;
		}
		announced = 1;
		atomic_store(&lt_rcu_qsbr_waiting, 1);
		/*
		 * pairs with the fence after the counter store in
		 * lt_rcu_qsbr_quiescent_state, _thread_offline and
		 * _thread_online: either the check below sees the reader's
		 * new counter or the reader sees the flag and wakes us.
		 */
		lt_rcu_smp_mb();
		if (!any_reader_behind(gp))
			break;
		atomic_fetch_add_explicit(&sleeps, 1, memory_order_relaxed);
		lt_rcu_futex_wait(&lt_rcu_qsbr_waiting, 1);
	}
	/* as in memb.c: readers load this word, write it only if set */
	if (announced)
		atomic_store(&lt_rcu_qsbr_waiting, 0);
}

/* One grace period, with qsbr_lock held. */
static void grace_period(void)
{
	unsigned long gp;

	/*
	 * pairs with the fence after the counter store in
	 * lt_rcu_qsbr_quiescent_state and _thread_online: a reader that
	 * copies the new value sees the caller's unpublish afterwards.
	 */
	lt_rcu_smp_mb();
	if (!qsbr_readers)
		return;
	gp = atomic_load_explicit(&lt_rcu_qsbr_gp_ctr, memory_order_relaxed) +
	     LT_RCU_QSBR_STEP;
	atomic_store_explicit(&lt_rcu_qsbr_gp_ctr, gp, memory_order_relaxed);
	/*
	 * pairs with the fence after the counter store in
	 * lt_rcu_qsbr_quiescent_state (store buffering): either the scan
	 * sees a reader's announcement or the reader's next quiescent
	 * state copies the new value, so the wait ends.
	 */
	lt_rcu_smp_mb();
	wait_for_readers(gp);
	/*
	 * pairs with the fence before the counter store in
	 * lt_rcu_qsbr_quiescent_state and _thread_offline: the readers'
	 * old reads are done before the caller frees.
	 */
	lt_rcu_smp_mb();
}

void lt_rcu_qsbr_synchronize(void)
{
	int was_online = lt_rcu_qsbr_read_ongoing();
	struct lt_rcu_waiter self;
	struct lt_rcu_waiter *batch;

	/* A caller that stays online would wait for itself. */
	if (was_online)
		lt_rcu_qsbr_thread_offline();
	if (lt_rcu_batch_join(&qsbr_batch, &self)) {
		pthread_mutex_lock(&qsbr_lock);
		batch = lt_rcu_batch_take(&qsbr_batch);
		grace_period();
		pthread_mutex_unlock(&qsbr_lock);
		lt_rcu_batch_wake(batch, &self);
	}
	if (was_online)
		lt_rcu_qsbr_thread_online();
}
