/* SPDX-License-Identifier: MIT */
/*
 * probe.h - the event registry: which events exist, and where each goes.
 *
 * Objects register their events as they load (tracepoint.h); sessions add
 * rules (a name pattern, a log level, a ring buffer) and the registry gives
 * every event the list of rings its rules select.  That list is what
 * lt_probe_emit() reads on the tracing path: published with RCU, read
 * without a lock, replaced whole when rules or events change.
 */
#ifndef LT_PROBE_H
#define LT_PROBE_H

#include <lowtrace/types.h>
#include <stdint.h>

#include "ring/ring_write.h"

/* Log level that admits every event. */
#define LT_LOGLEVEL_ALL 100

/*
 * Sends the events whose full name matches pattern (pattern.h) and
 * whose level is loglevel_max or more severe to ring.  owner groups rules
 * for removal.  Returns 0 or -errno.
 */
int lt_probe_enable(const void *owner, const char *pattern, int loglevel_max,
		    struct lt_ring *ring);
/*
 * The same, for the events whose payload matches filter (filter.h; NULL
 * for all).  The filter is compiled for each event the pattern selects;
 * an event whose fields it does not fit is not selected.  A pattern
 * without wildcards that names a registered event it does not fit, or a
 * filter that does not parse, is refused: -EINVAL and a message in err.
 */
int lt_probe_enable_filter(const void *owner, const char *pattern,
			   int loglevel_max, struct lt_ring *ring,
			   const char *filter, char *err, size_t errcap);
/*
 * A condition trigger: fire(arg) is called on the tracing path, in the
 * thread that emits a matching event, after the event's rings have it.
 * It must not block (agent.c's wakes a thread of its own).
 */
int lt_probe_enable_trigger(const void *owner, const char *pattern,
			    int loglevel_max, const char *filter,
			    void (*fire)(void *arg), void *arg, char *err,
			    size_t errcap);
/* Removes owner's rules with this pattern (all of them for NULL). */
int lt_probe_disable(const void *owner, const char *pattern);

/*
 * A ring shared with other processes (per-user buffers): its events take
 * the ids id(arg, e) gives (LT_PROBE_NO_ID: not recorded there), and each
 * of its records is led by pid, LT_CTF_PID_CONTEXT bytes (the stream's
 * event context, ctf/metadata.h).  id() is called under the registry's lock, as a
 * listener is; the rules to ring are added after this.  Up to
 * LT_PROBE_MAX_SHARED rings (-ENOSPC).  lt_probe_unshare_ring() forgets
 * the ring once no rule names it.
 */
#define LT_PROBE_NO_ID UINT32_MAX
#define LT_PROBE_MAX_SHARED 32
struct lt_ctf_event;
typedef uint32_t (*lt_probe_id_fn)(void *arg, const struct lt_ctf_event *e);
int lt_probe_share_ring(struct lt_ring *ring, int32_t pid, lt_probe_id_fn id,
			void *arg);
void lt_probe_unshare_ring(struct lt_ring *ring);

/* The registered events, for metadata and listings (names are
 * "provider:event"; ctf/metadata.h describes them). */
struct lt_ctf_event;
typedef void (*lt_probe_event_fn)(void *arg, const struct lt_ctf_event *e);
/* Calls fn for every event ever registered (in id order), under the lock. */
void lt_probe_foreach_event(lt_probe_event_fn fn, void *arg);
/* Events registered now whose name matches pattern. */
int lt_probe_count_matching(const char *pattern);
/* 1 if an object whose "lt_events" section is in [lo, hi) registered. */
int lt_probe_range_within(uintptr_t lo, uintptr_t hi);
/* Changes whenever an event is registered for the first time. */
uint64_t lt_probe_generation(void);

/* Log level names ("WARNING", "DEBUG_LINE", ...) to numbers; -1 if unknown. */
int lt_probe_loglevel_parse(const char *s);
const char *lt_probe_loglevel_name(int level);

/*
 * Calls fn for every event registered so far, then for each new one as it
 * registers (under the registry's lock: fn must not call back into it,
 * nor take a lock held around calls into it).  Up to
 * LT_PROBE_MAX_LISTENERS at once (-ENOSPC); remove_listener waits for a
 * call in flight.
 */
#define LT_PROBE_MAX_LISTENERS 4
int lt_probe_add_listener(lt_probe_event_fn fn, void *arg);
void lt_probe_remove_listener(lt_probe_event_fn fn, void *arg);
/*
 * The membarrier registrations the tracing path needs (RCU's, the
 * sequences'), made now: in a process of one thread they cost nothing,
 * with more the kernel waits for a grace period (about 10 ms).  A
 * process about to start its first thread calls this first.
 */
void lt_probe_prepare(void);
/* How many events have registered (ids 0 .. n-1). */
size_t lt_probe_nevents(void);

/*
 * In the child after fork(): drops every rule and target list without
 * waiting for readers (the child has no other thread).  The parent's
 * sessions stay the parent's.
 */
void lt_probe_reset_after_fork(void);

/* The trace clock's source changed (lt_clock_set_calib()): rebuilds the
 * target lists, whose ring for the sequences (which read the TSC)
 * depends on it. */
void lt_probe_clock_changed(void);

/*
 * Waits until no lt_probe_emit() started before the call is still running
 * (an RCU grace period), and restarts every sequence of probe_x86_64.S in
 * flight (membarrier): what they read before the call may be freed after.
 */
void lt_probe_sync(void);

#endif
