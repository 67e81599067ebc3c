/* SPDX-License-Identifier: MIT */
/*
 * rcu.h - userspace read-copy-update: the flavours' read sides and grace
 * periods.
 *
 * Two flavours share one idea: readers run without locks or stores to
 * shared memory, updaters publish a new version of an object, wait for a
 * grace period (every reader that could still see the old version has
 * left its read-side section) and then free the old version.
 *
 * - The membarrier flavour (lt_rcu_*) is the default and the one the
 *   tracer uses.  Its read side is a few inline instructions, safe in
 *   signal handlers, registers the thread on first use without locks or
 *   allocation, and nests.  The updater pays for the ordering with
 *   membarrier(2); without membarrier readers fall back to a full fence.
 * - The QSBR flavour (lt_rcu_qsbr_*) has a read side that costs nothing;
 *   in exchange each registered thread must announce quiescent states
 *   (lt_rcu_qsbr_quiescent_state) or go offline.
 *
 * Also here: the pointer publication macros.  What is built on a flavour
 * has a header of its own: call_rcu and defer_rcu (lowtrace/rcu_call.h),
 * the RCU list (lowtrace/rcu_list.h), the hash table (lowtrace/rcu_hash.h).
 * docs/rcu.md describes the design.
 */
#ifndef LOWTRACE_RCU_H
#define LOWTRACE_RCU_H

/*
 * The atomics of C11 in C, those of <atomic> in C++: the same operations
 * on types of the same size, alignment and representation, so that the
 * structures below have one layout and the inline read side compiles to
 * the same instructions in both languages.
 */
#ifdef __cplusplus
#include <atomic>
#define LT__RCU_ATOMIC(T) std::atomic<T>
#define LT__RCU_STD std::
static_assert(sizeof(std::atomic<unsigned long>) == sizeof(unsigned long) &&
		      alignof(std::atomic<unsigned long>) ==
			      alignof(unsigned long) &&
		      ATOMIC_LONG_LOCK_FREE == 2,
	      "std::atomic<unsigned long> is not laid out as in C");
#else
#include <stdatomic.h>
#define LT__RCU_ATOMIC(T) _Atomic(T)
#define LT__RCU_STD
#endif
#define LT__RCU_LOAD(p, mo) LT__RCU_STD atomic_load_explicit(p, LT__RCU_STD mo)
#define LT__RCU_STORE(p, v, mo) \
	LT__RCU_STD atomic_store_explicit(p, v, LT__RCU_STD mo)
#define LT__RCU_XCHG(p, v, mo) \
	LT__RCU_STD atomic_exchange_explicit(p, v, LT__RCU_STD mo)
#define LT__RCU_SIGNAL_FENCE() \
	LT__RCU_STD atomic_signal_fence(LT__RCU_STD memory_order_seq_cst)

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Exported by liblowtrace-rcu (see lowtrace/types.h).  The runtime has
 * its own copy of the membarrier flavour, for itself alone: its objects
 * are built with LT__RCU_HIDDEN, and hidden visibility keeps it in.
 */
#ifndef LT__RCU_HIDDEN
#pragma GCC visibility push(default)
#endif

#if defined(__SANITIZE_THREAD__)
#define LT_RCU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LT_RCU_TSAN 1
#endif
#endif

/*
 * ThreadSanitizer does not see the ordering that membarrier(2) or a
 * standalone fence provides, so under it the reader's stores to its
 * counter are release stores (and the updater's loads acquire loads):
 * the tool then sees the happens-before edge that the barrier pairing
 * gives in the real build.  On x86 both orders produce the same code.
 */
#ifdef LT_RCU_TSAN
#define LT_RCU_READER_STORE memory_order_release
#else
#define LT_RCU_READER_STORE memory_order_relaxed
#endif

/*
 * Full memory barrier.  GCC rejects standalone fences under
 * ThreadSanitizer, which does not model them; there a seq_cst
 * read-modify-write of a thread-local word stands in (a locked
 * instruction, so still a full barrier on the hardware).
 */
#ifdef LT_RCU_TSAN
static __thread unsigned long lt_rcu_mb_word;
static inline void lt_rcu_smp_mb(void)
{
	__atomic_fetch_add(&lt_rcu_mb_word, 0, __ATOMIC_SEQ_CST);
}
#else
static inline void lt_rcu_smp_mb(void)
{
	LT__RCU_STD atomic_thread_fence(LT__RCU_STD memory_order_seq_cst);
}
#endif

#define lt_rcu_likely(x) __builtin_expect(!!(x), 1)
#define lt_rcu_unlikely(x) __builtin_expect(!!(x), 0)

/* ---- pointer publication ---- */

/* Load an RCU-protected pointer inside a read-side section. */
#define lt_rcu_dereference(p) __atomic_load_n(&(p), __ATOMIC_CONSUME)

/*
 * Publish v in p: every store that initialised *v is visible to a reader
 * that loads p with lt_rcu_dereference.  Release store; pairs with the
 * consume load in lt_rcu_dereference.
 */
#define lt_rcu_assign_pointer(p, v)                                  \
	do {                                                         \
		__typeof__(p) lt_rcu_v_ = (v);                       \
		__atomic_store_n(&(p), lt_rcu_v_, __ATOMIC_RELEASE); \
	} while (0)

/* Publish v in p and return the old value (full barrier). */
#define lt_rcu_xchg_pointer(p, v)                                       \
	__extension__({                                                 \
		__typeof__(p) lt_rcu_v_ = (v);                          \
		__atomic_exchange_n(&(p), lt_rcu_v_, __ATOMIC_SEQ_CST); \
	})

/*
 * If p holds old, publish v in p (as lt_rcu_assign_pointer); return what
 * p held (old on success).  Full barrier.
 */
#define lt_rcu_cmpxchg_pointer(p, old, v)                                   \
	__extension__({                                                     \
		__typeof__(p) lt_rcu_o_ = (old);                            \
		__typeof__(p) lt_rcu_v_ = (v);                              \
		__atomic_compare_exchange_n(&(p), &lt_rcu_o_, lt_rcu_v_, 0, \
					    __ATOMIC_SEQ_CST,               \
					    __ATOMIC_SEQ_CST);              \
		lt_rcu_o_;                                                  \
	})

/* ---- membarrier flavour ---- */

/* gp.ctr and reader ctr: low half nesting count, one phase bit above it. */
#define LT_RCU_COUNT 1UL
#define LT_RCU_PHASE (1UL << (sizeof(long) * 4))
#define LT_RCU_NEST_MASK (LT_RCU_PHASE - 1)

struct lt_rcu_gp {
	/* Phase and LT_RCU_COUNT: what a reader's outermost lock stores. */
	LT__RCU_ATOMIC(unsigned long) ctr;
	/* Nonzero without membarrier: readers execute full fences. */
	int use_fence;
	/*
	 * LT_RCU_WAIT_* bits, a futex word: SLEEP while an updater sleeps
	 * until readers leave their sections (the reader that sees it
	 * wakes the updater); FENCE, set for good without membarrier,
	 * sends every unlock to lt_rcu_read_unlock_slow.
	 */
	LT__RCU_ATOMIC(int) waiting;
};

#define LT_RCU_WAIT_SLEEP 1
#define LT_RCU_WAIT_FENCE 2

/*
 * One per reader thread, in initial-exec TLS (no __tls_get_addr).  Code
 * names the variable rather than a pointer to it: GCC's UBSan null check
 * on a computed TLS address trips over the linker's IE-to-LE relaxation
 * (an add becomes a lea that does not set the flags the check reads).
 */
struct lt_rcu_reader {
	LT__RCU_ATOMIC(unsigned long) ctr;
	/* Next record on the global reader list (src/runtime/rcu/memb.c). */
	LT__RCU_ATOMIC(struct lt_rcu_reader *) next;
	/* Nonzero once the record is on the reader list. */
	int registered;
};

extern struct lt_rcu_gp lt_rcu_gp;
extern __thread struct lt_rcu_reader lt_rcu_reader
	__attribute__((tls_model("initial-exec")));

/* Puts this thread's record on the reader list; lock-free, signal-safe. */
void lt_rcu_register_slow(void);

/*
 * Reader-side barrier.  Normally a compiler barrier only: the updater's
 * membarrier() makes it a full barrier exactly when needed.  Without
 * membarrier it is a real fence, paired with the updater's fences.
 */
static inline void lt_rcu_reader_barrier(void)
{
	if (lt_rcu_unlikely(lt_rcu_gp.use_fence))
		lt_rcu_smp_mb();
	else
		LT__RCU_SIGNAL_FENCE();
}

/*
 * Enter a read-side section.  Nests, including from a signal handler that
 * interrupts a section.  Model: models/rcu.pml
 */
static inline void lt_rcu_read_lock(void)
{
	unsigned long tmp;

	if (lt_rcu_unlikely(!lt_rcu_reader.registered))
		lt_rcu_register_slow();
	tmp = LT__RCU_LOAD(&lt_rcu_reader.ctr, memory_order_relaxed);
	if (lt_rcu_likely(!(tmp & LT_RCU_NEST_MASK))) {
		unsigned long gp =
			LT__RCU_LOAD(&lt_rcu_gp.ctr, memory_order_relaxed);
		LT__RCU_STORE(&lt_rcu_reader.ctr, gp, LT_RCU_READER_STORE);
		/*
		 * pairs with the membarrier() (or fence) in
		 * lt_rcu_synchronize after the updater's unpublish and before
		 * it reads reader counters: the ctr store above is ordered
		 * before every load of the section, so the updater either
		 * sees this reader active or the reader sees the new data.
		 */
		lt_rcu_reader_barrier();
	} else {
		LT__RCU_STORE(&lt_rcu_reader.ctr, tmp + LT_RCU_COUNT,
			      memory_order_relaxed);
	}
}

/* Wakes the updater sleeping in lt_rcu_synchronize (a futex). */
void lt_rcu_wake_updater(void);

/*
 * After the counter store that ends a section, when lt_rcu_gp.waiting is
 * not 0 (w, its value then).  In the fence fallback, first a fence that
 * orders the store before the load of waiting, against the updater's
 * store of waiting and fence before it reads the counters.  Then: an
 * updater that sleeps until old-phase readers leave is woken by the
 * reader that leaves an outermost section begun before the updater's
 * last flip (a section of the current phase is not waited for: its end
 * wakes no one).  ctr is the counter stored.
 */
static inline void lt_rcu_read_unlock_slow(unsigned long ctr, int w)
{
	if (w & LT_RCU_WAIT_FENCE) {
		lt_rcu_smp_mb();
		w = LT__RCU_LOAD(&lt_rcu_gp.waiting, memory_order_seq_cst);
	}
	if ((w & LT_RCU_WAIT_SLEEP) && !(ctr & LT_RCU_NEST_MASK) &&
	    ((ctr ^ LT__RCU_LOAD(&lt_rcu_gp.ctr, memory_order_relaxed)) &
	     LT_RCU_PHASE))
		lt_rcu_wake_updater();
}

/*
 * The counter store that ends a section, then the load of waiting: while
 * nobody waits (and with membarrier), one load and a branch not taken.
 * pairs with the membarrier() in lt_rcu_synchronize before it frees:
 * every load of the section is ordered before the ctr store, so once the
 * updater sees the section over, the reader no longer touches the old
 * data; and with the membarrier() after the updater sets waiting: it
 * sees the store or this thread sees waiting.
 */
static inline void lt_rcu_read_unlock_store(unsigned long tmp)
{
	int w;

	LT__RCU_SIGNAL_FENCE();
	LT__RCU_STORE(&lt_rcu_reader.ctr, tmp, LT_RCU_READER_STORE);
	LT__RCU_SIGNAL_FENCE();
	/* acquire: a waiting seen comes with the flip before it */
	w = LT__RCU_LOAD(&lt_rcu_gp.waiting, memory_order_acquire);
	if (lt_rcu_unlikely(w))
		lt_rcu_read_unlock_slow(tmp, w);
}

/* Leave a read-side section.  Model: models/rcu.pml */
static inline void lt_rcu_read_unlock(void)
{
	unsigned long tmp =
		LT__RCU_LOAD(&lt_rcu_reader.ctr, memory_order_relaxed) -
		LT_RCU_COUNT;

#if (defined(__x86_64__) || defined(__i386__)) && !defined(LT_RCU_TSAN)
	/*
	 * x86 never performs a store before an earlier load, so the fence
	 * fallback needs no fence before the ctr store: the section's loads
	 * are done before it is visible.  The fence it needs after it, for
	 * the load of waiting, is in lt_rcu_read_unlock_slow (the FENCE bit).
	 */
	lt_rcu_read_unlock_store(tmp);
#else
	if (lt_rcu_unlikely(lt_rcu_gp.use_fence)) {
		/*
		 * A full barrier: pairs with the updater's fence before it
		 * frees, as the membarrier() does; and orders the store
		 * before the load of waiting.
		 */
		LT__RCU_XCHG(&lt_rcu_reader.ctr, tmp, memory_order_seq_cst);
		lt_rcu_read_unlock_slow(
			tmp,
			LT__RCU_LOAD(&lt_rcu_gp.waiting, memory_order_seq_cst) &
				LT_RCU_WAIT_SLEEP);
	} else {
		lt_rcu_read_unlock_store(tmp);
	}
#endif
}

/* Nonzero once this thread is a registered reader. */
static inline int lt_rcu_registered(void)
{
	return lt_rcu_reader.registered;
}

/* Nonzero if readers run without fences (membarrier is in use); fixed
 * once the calling thread is registered. */
static inline int lt_rcu_fenceless(void)
{
	return !lt_rcu_gp.use_fence;
}

/*
 * The read side for a caller that found lt_rcu_registered() and
 * lt_rcu_fenceless() once, and wants no branch it need not take:
 * lt_rcu_read_lock_outer() enters a section only as the outermost one and
 * returns 1; inside another section (a signal handler's, say) it does
 * nothing and returns 0, and the caller takes lt_rcu_read_lock().  A
 * section entered so ends with lt_rcu_read_unlock_outer().
 */
static inline int lt_rcu_read_lock_outer(void)
{
	unsigned long tmp =
		LT__RCU_LOAD(&lt_rcu_reader.ctr, memory_order_relaxed);
	if (lt_rcu_unlikely(tmp & LT_RCU_NEST_MASK))
		return 0;
	LT__RCU_STORE(&lt_rcu_reader.ctr,
		      LT__RCU_LOAD(&lt_rcu_gp.ctr, memory_order_relaxed),
		      LT_RCU_READER_STORE);
	/* as lt_rcu_read_lock()'s barrier, fenceless */
	LT__RCU_SIGNAL_FENCE();
	return 1;
}

static inline void lt_rcu_read_unlock_outer(void)
{
	lt_rcu_read_unlock_store(
		LT__RCU_LOAD(&lt_rcu_reader.ctr, memory_order_relaxed) -
		LT_RCU_COUNT);
}

/* Nonzero if the calling thread is inside a read-side section. */
static inline int lt_rcu_read_ongoing(void)
{
	return (LT__RCU_LOAD(&lt_rcu_reader.ctr, memory_order_relaxed) &
		LT_RCU_NEST_MASK) != 0;
}

/* Idempotent; also run by a constructor.  Reads LOWTRACE_RCU_NO_MEMBARRIER. */
void lt_rcu_init(void);
/* Nonzero when the membarrier() path is in use, 0 in the fence fallback. */
int lt_rcu_uses_membarrier(void);
void lt_rcu_register_thread(void);
void lt_rcu_unregister_thread(void);
/* Wait for every pre-existing read-side section to end. */
void lt_rcu_synchronize(void);
/* Number of grace periods completed by lt_rcu_synchronize so far. */
unsigned long lt_rcu_gp_count(void);

/* ---- QSBR flavour ---- */

struct lt_rcu_qsbr_reader {
	/* 0 offline, else the gp counter at the last quiescent state. */
	LT__RCU_ATOMIC(unsigned long) ctr;
	struct lt_rcu_qsbr_reader *prev, *next;
	int registered;
};

extern LT__RCU_ATOMIC(unsigned long) lt_rcu_qsbr_gp_ctr;
/* Nonzero while an updater sleeps on it (futex) waiting for readers. */
extern LT__RCU_ATOMIC(int) lt_rcu_qsbr_waiting;
extern __thread struct lt_rcu_qsbr_reader lt_rcu_qsbr_reader
	__attribute__((tls_model("initial-exec")));

/* Wakes the updater sleeping in lt_rcu_qsbr_synchronize. */
void lt_rcu_qsbr_wake_updater(void);

/*
 * Compiler barriers only, pairing with nothing at run time: they keep the
 * section's accesses from moving across a neighbouring quiescent state
 * that the compiler might otherwise reorder them with.
 */
static inline void lt_rcu_qsbr_read_lock(void)
{
	LT__RCU_SIGNAL_FENCE();
}

static inline void lt_rcu_qsbr_read_unlock(void)
{
	LT__RCU_SIGNAL_FENCE();
}

/* Announce that this thread holds no RCU-protected reference. */
static inline void lt_rcu_qsbr_quiescent_state(void)
{
	unsigned long gp =
		LT__RCU_LOAD(&lt_rcu_qsbr_gp_ctr, memory_order_relaxed);

	/*
	 * Already announced for the current grace period: the updater of
	 * the next one changes the counter first, so nothing to do.
	 */
	if (lt_rcu_likely(gp == LT__RCU_LOAD(&lt_rcu_qsbr_reader.ctr,
					     memory_order_relaxed)))
		return;
	/*
	 * pairs with the fence in lt_rcu_qsbr_synchronize after it has
	 * read the counters: this thread's earlier reads are done before
	 * the updater sees the announcement and frees.
	 */
	lt_rcu_smp_mb();
	LT__RCU_STORE(&lt_rcu_qsbr_reader.ctr, gp, memory_order_release);
	/*
	 * pairs with the fence in lt_rcu_qsbr_synchronize before the
	 * counter update: having copied the new value, later reads see
	 * the updater's unpublish; and with the fence after it sets
	 * lt_rcu_qsbr_waiting: it sees this store or we see the flag.
	 */
	lt_rcu_smp_mb();
	if (lt_rcu_unlikely(
		    LT__RCU_LOAD(&lt_rcu_qsbr_waiting, memory_order_relaxed)))
		lt_rcu_qsbr_wake_updater();
}

/* Nonzero if the calling thread is online (may hold references). */
static inline int lt_rcu_qsbr_read_ongoing(void)
{
	return LT__RCU_LOAD(&lt_rcu_qsbr_reader.ctr, memory_order_relaxed) != 0;
}

void lt_rcu_qsbr_register_thread(void);
void lt_rcu_qsbr_unregister_thread(void);
/* An offline thread holds no references and never delays updaters. */
void lt_rcu_qsbr_thread_offline(void);
void lt_rcu_qsbr_thread_online(void);
void lt_rcu_qsbr_synchronize(void);

#ifndef LT__RCU_HIDDEN
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
