/*
 * qsbr.c - the QSBR RCU flavour: registration, offline/online and the
 * grace period.  The read side (nothing but compiler barriers) and
 * lt_rcu_qsbr_quiescent_state are inline in include/lowtrace/rcu.h.
 *
 * A grace period advances lt_rcu_qsbr_gp_ctr by LT_RCU_QSBR_STEP and
 * waits until every registered thread is offline (ctr 0) or has copied
 * the new value at a quiescent state.  The counter starts odd and moves
 * by 2, so an online thread's ctr is never 0.  After spinning a while the
 * updater sleeps on a futex that the next quiescent state (or offline or
 * online) wakes.  Registration takes a lock: this flavour is not for
 * signal handlers.
 */
#define _GNU_SOURCE
#include "lowtrace/rcu.h"
#include "rcu/qsbr.h"
#include "rcu/wait.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LT_RCU_QSBR_STEP 2UL
/* A sleep ends after this long even without a wake-up. */
#define LT_RCU_QSBR_SLEEP_NS 1000000L

atomic_ulong lt_rcu_qsbr_gp_ctr = 1;
atomic_int lt_rcu_qsbr_waiting;
__thread struct lt_rcu_qsbr_reader lt_rcu_qsbr_reader
	__attribute__((tls_model("initial-exec")));

static struct lt_rcu_qsbr_reader *qsbr_readers;
static pthread_mutex_t qsbr_lock = PTHREAD_MUTEX_INITIALIZER;

void lt_rcu_qsbr_reset_child(void)
{
	pthread_mutex_init(&qsbr_lock, NULL);
	qsbr_readers = NULL;
	atomic_store(&lt_rcu_qsbr_waiting, 0);
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
		syscall(SYS_futex, &lt_rcu_qsbr_waiting, FUTEX_WAKE_PRIVATE,
			INT_MAX, NULL, NULL, 0);
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

/* Spin, then sleep until r announces a quiescent state or goes offline. */
static void wait_for_reader(struct lt_rcu_qsbr_reader *r, unsigned long gp)
{
	struct timespec ts = { 0, LT_RCU_QSBR_SLEEP_NS };

	for (unsigned attempt = 0; reader_behind(r, gp); attempt++) {
		if (attempt < LT_RCU_SPIN_ATTEMPTS) {
			lt_rcu_wait_backoff(attempt);
			continue;
		}
		atomic_store(&lt_rcu_qsbr_waiting, 1);
		/*
		 * pairs with the fence after the counter store in
		 * lt_rcu_qsbr_quiescent_state, _thread_offline and
		 * _thread_online: either the check below sees the reader's
		 * new counter or the reader sees the flag and wakes us.
		 */
		lt_rcu_smp_mb();
		if (!reader_behind(r, gp))
			break;
		syscall(SYS_futex, &lt_rcu_qsbr_waiting, FUTEX_WAIT_PRIVATE, 1,
			&ts, NULL, 0);
	}
	atomic_store(&lt_rcu_qsbr_waiting, 0);
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
	 * pairs with the fence after the counter store in
	 * lt_rcu_qsbr_quiescent_state and _thread_online: a reader that
	 * copies the new value sees the caller's unpublish afterwards.
	 */
	lt_rcu_smp_mb();
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
	for (struct lt_rcu_qsbr_reader *r = qsbr_readers; r; r = r->next)
		wait_for_reader(r, gp);
	/*
	 * pairs with the fence before the counter store in
	 * lt_rcu_qsbr_quiescent_state and _thread_offline: the readers'
	 * old reads are done before the caller frees.
	 */
	lt_rcu_smp_mb();
	pthread_mutex_unlock(&qsbr_lock);
	if (was_online)
		lt_rcu_qsbr_thread_online();
}
