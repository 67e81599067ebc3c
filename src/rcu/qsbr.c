/*
 * qsbr.c - the QSBR RCU flavour: registration, offline/online and the
 * grace period.  The read side (nothing but compiler barriers) and
 * lt_rcu_qsbr_quiescent_state are inline in include/lowtrace/rcu.h.
 *
 * A grace period advances lt_rcu_qsbr_gp_ctr by LT_RCU_QSBR_STEP and
 * waits until every registered thread is offline (ctr 0) or has copied
 * the new value at a quiescent state.  The counter starts odd and moves
 * by 2, so an online thread's ctr is never 0.  Registration takes a lock:
 * this flavour is not for signal handlers.
 */
#define _GNU_SOURCE
#include "lowtrace/rcu.h"
#include "rcu/wait.h"

#include <pthread.h>

#define LT_RCU_QSBR_STEP 2UL

atomic_ulong lt_rcu_qsbr_gp_ctr = 1;
__thread struct lt_rcu_qsbr_reader lt_rcu_qsbr_reader
	__attribute__((tls_model("initial-exec")));

static struct lt_rcu_qsbr_reader *qsbr_readers;
static pthread_mutex_t qsbr_lock = PTHREAD_MUTEX_INITIALIZER;

static void qsbr_atfork_child(void)
{
	pthread_mutex_init(&qsbr_lock, NULL);
	qsbr_readers = NULL;
	if (lt_rcu_qsbr_reader.registered) {
		lt_rcu_qsbr_reader.prev = lt_rcu_qsbr_reader.next = NULL;
		qsbr_readers = &lt_rcu_qsbr_reader;
	}
}

__attribute__((constructor)) static void lt_rcu_qsbr_ctor(void)
{
	pthread_atfork(NULL, NULL, qsbr_atfork_child);
}

void lt_rcu_qsbr_thread_offline(void)
{
	/*
	 * pairs with the fence in lt_rcu_qsbr_synchronize before it reads
	 * counters: this thread's reads are done before it reads 0 here.
	 */
	lt_rcu_smp_mb();
	atomic_store_explicit(&lt_rcu_qsbr_reader.ctr, 0, memory_order_release);
	atomic_signal_fence(memory_order_seq_cst);
}

void lt_rcu_qsbr_thread_online(void)
{
	unsigned long gp =
		atomic_load_explicit(&lt_rcu_qsbr_gp_ctr, memory_order_relaxed);

	atomic_store_explicit(&lt_rcu_qsbr_reader.ctr, gp,
			      memory_order_release);
	/*
	 * pairs with the fence in lt_rcu_qsbr_synchronize after the
	 * counter update: reads after going online are ordered after the
	 * announcement that the updater checks.
	 */
	lt_rcu_smp_mb();
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
	if (!lt_rcu_qsbr_reader.registered)
		return;
	/* Offline first: a synchronize holding the lock may wait for us. */
	lt_rcu_qsbr_thread_offline();
	pthread_mutex_lock(&qsbr_lock);
	if (lt_rcu_qsbr_reader.prev)
		lt_rcu_qsbr_reader.prev->next = lt_rcu_qsbr_reader.next;
	else
		qsbr_readers = lt_rcu_qsbr_reader.next;
	if (lt_rcu_qsbr_reader.next)
		lt_rcu_qsbr_reader.next->prev = lt_rcu_qsbr_reader.prev;
	lt_rcu_qsbr_reader.registered = 0;
	pthread_mutex_unlock(&qsbr_lock);
}

static int reader_behind(struct lt_rcu_qsbr_reader *r, unsigned long gp)
{
	unsigned long v = atomic_load_explicit(&r->ctr, memory_order_acquire);

	return v && v != gp;
}

void lt_rcu_qsbr_synchronize(void)
{
	int was_online = lt_rcu_qsbr_reader.registered &&
			 atomic_load_explicit(&lt_rcu_qsbr_reader.ctr,
					      memory_order_relaxed);
	unsigned long gp;

	/* A caller that stays online would wait for itself. */
	if (was_online)
		lt_rcu_qsbr_thread_offline();
	pthread_mutex_lock(&qsbr_lock);
	/*
	 * pairs with the fence before the counter store in
	 * lt_rcu_qsbr_quiescent_state and _thread_offline: the caller's
	 * unpublish is ordered before the new counter value.
	 */
	lt_rcu_smp_mb();
	gp = atomic_load_explicit(&lt_rcu_qsbr_gp_ctr, memory_order_relaxed) +
	     LT_RCU_QSBR_STEP;
	atomic_store_explicit(&lt_rcu_qsbr_gp_ctr, gp, memory_order_relaxed);
	/*
	 * pairs with the fence after the counter store in
	 * lt_rcu_qsbr_quiescent_state and _thread_online: a reader that
	 * announces the new value cannot still hold an old reference.
	 */
	lt_rcu_smp_mb();
	for (struct lt_rcu_qsbr_reader *r = qsbr_readers; r; r = r->next)
		for (unsigned attempt = 0; reader_behind(r, gp); attempt++)
			lt_rcu_wait_backoff(attempt);
	/*
	 * pairs with the release stores of the reader counters: the
	 * readers' old reads are done before the caller frees.
	 */
	lt_rcu_smp_mb();
	pthread_mutex_unlock(&qsbr_lock);
	if (was_online)
		lt_rcu_qsbr_thread_online();
}
