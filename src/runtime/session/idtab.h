/* SPDX-License-Identifier: MIT */
/*
 * idtab.h - the event ids that the processes sharing a set of buffers
 * agree on (per-user buffers, `lowtrace record --buffers per-user`).
 *
 * Each process numbers its events itself, in the order it registers
 * them, so two processes writing one buffer would give one id two
 * meanings.  The table is a memfd the recorder creates and every process
 * of the set maps: an array of event keys (lt_proto_event_key(), a hash of
 * the event's description), where an event's id in the shared buffers is
 * the index of its key.  A process finds its event's key by scanning from
 * 0 and claims the first empty slot with one compare-and-swap; a loser
 * that finds its own key there takes it.  Slots only go from empty to a
 * key, so a key is never in two slots; a claim is whole or absent, so a
 * process killed at any point leaves the table consistent.  Off the
 * tracing path: ids are looked up when target lists are built.
 * models/idtab.pml checks the claim with spin.
 *
 * The recorder reads the keys, matches them with the descriptions the
 * processes sent (EVENT) and writes the metadata of the shared streams.
 */
#ifndef LT_SESSION_IDTAB_H
#define LT_SESSION_IDTAB_H

#include <stdint.h>

#define LT_IDTAB_NONE UINT32_MAX

struct lt_idtab;

/* The recorder's: a table of cap slots in a new memfd (lt_idtab_fd());
 * 0 or -errno. */
int lt_idtab_create(uint32_t cap, struct lt_idtab **out);
/* A process's: maps the table of fd (taken: closed on error too) after
 * checking its size and header; 0 or -errno. */
int lt_idtab_map(int fd, struct lt_idtab **out);
void lt_idtab_destroy(struct lt_idtab *t);
int lt_idtab_fd(const struct lt_idtab *t);

/* The id of key, claimed if it has none; LT_IDTAB_NONE if the table is
 * full.  key 0 is taken as 1 (0 marks an empty slot). */
uint32_t lt_idtab_id(struct lt_idtab *t, uint64_t key);
/* The key of id, or 0 if no process has claimed it (yet). */
uint64_t lt_idtab_key(const struct lt_idtab *t, uint32_t id);
uint32_t lt_idtab_cap(const struct lt_idtab *t);

#endif
