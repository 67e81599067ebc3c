/* SPDX-License-Identifier: MIT */
/*
 * test_idtab.c - the event ids processes sharing buffers agree on
 * (src/runtime/session/idtab.h): processes claiming the same keys at once, in
 * different orders, get one id per key, dense from 0; a mapping that is
 * not a table is refused; a full table says so; and the key of an
 * event's description ignores its local id but not its fields.
 */
#include "format/metadata.h"
#include "lt_test.h"
#include "session/idtab.h"
#include "session/proto.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define KEYS 200
#define PROCS 4

LT_TEST(test_concurrent_claims_agree)
{
	struct lt_idtab *t;
	LT_ASSERT_EQ(lt_idtab_create(1024, &t), 0);
	/* each child writes the id it got for each key here */
	uint32_t *got =
		mmap(NULL, sizeof(uint32_t) * PROCS * KEYS,
		     PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	LT_ASSERT(got != MAP_FAILED);
	pid_t pids[PROCS];
	for (int p = 0; p < PROCS; p++) {
		pids[p] = fork();
		LT_ASSERT(pids[p] >= 0);
		if (pids[p] == 0) {
			struct lt_idtab *m;
			if (lt_idtab_map(dup(lt_idtab_fd(t)), &m))
				_exit(1);
			/* odd children go backwards: claims cross */
			for (int k = 0; k < KEYS; k++) {
				int key = p & 1 ? KEYS - 1 - k : k;
				got[p * KEYS + key] =
					lt_idtab_id(m, 1000 + (uint64_t)key);
			}
			_exit(0);
		}
	}
	for (int p = 0; p < PROCS; p++) {
		int st;
		LT_ASSERT_EQ(waitpid(pids[p], &st, 0), pids[p]);
		LT_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	uint8_t seen[KEYS] = { 0 };
	for (int k = 0; k < KEYS; k++) {
		uint32_t id = got[k];
		LT_ASSERT_CMP(id, <,
			      KEYS); /* dense: KEYS keys, ids 0..KEYS-1 */
		for (int p = 1; p < PROCS; p++)
			LT_ASSERT_EQ(got[p * KEYS + k], id);
		LT_ASSERT_EQ(seen[id], 0); /* one key per id */
		seen[id] = 1;
		LT_ASSERT_EQ(lt_idtab_key(t, id), 1000 + (uint64_t)k);
	}
	LT_ASSERT_EQ(lt_idtab_key(t, KEYS), 0);
	/* the creator's lookups find the same ids */
	LT_ASSERT_EQ(lt_idtab_id(t, 1000 + 7), got[7]);
	munmap(got, sizeof(uint32_t) * PROCS * KEYS);
	lt_idtab_destroy(t);
}

LT_TEST(test_full_and_bad_tables)
{
	struct lt_idtab *t;
	LT_ASSERT_EQ(lt_idtab_create(2, &t), 0);
	LT_ASSERT_EQ(lt_idtab_id(t, 5), 0);
	LT_ASSERT_EQ(lt_idtab_id(t, 6), 1);
	LT_ASSERT_EQ(lt_idtab_id(t, 5), 0);
	LT_ASSERT_EQ(lt_idtab_id(t, 7), LT_IDTAB_NONE);
	LT_ASSERT_EQ(lt_idtab_key(t, 9), 0);
	lt_idtab_destroy(t);
	/* a memfd that is not a table (a ring's, a stranger's) */
	int fd = memfd_create("not-a-table", MFD_CLOEXEC);
	LT_ASSERT(fd >= 0);
	LT_ASSERT_EQ(ftruncate(fd, 4096), 0);
	LT_ASSERT_EQ(lt_idtab_map(fd, &t), -EPROTO);
	fd = memfd_create("empty", MFD_CLOEXEC);
	LT_ASSERT_EQ(lt_idtab_map(fd, &t), -EPROTO);
}

static uint64_t key_of(const struct lt_ctf_event *e)
{
	static unsigned char buf[4096];
	ssize_t n = lt_proto_event_encode(buf, sizeof(buf), e);
	LT_ASSERT_CMP(n, >, 0);
	return lt_proto_event_key(buf, (size_t)n);
}

LT_TEST(test_event_key)
{
	const struct lt_field_desc a[] = { { "seq", LT_FT_INT, 8, 0, 10, 0,
					     NULL } };
	const struct lt_field_desc b[] = { { "seq", LT_FT_INT, 4, 0, 10, 0,
					     NULL } };
	const struct lt_ctf_event e1 = { 3, "p:tick", 6, a, 1, NULL };
	const struct lt_ctf_event e2 = { 17, "p:tick", 6, a, 1, NULL };
	const struct lt_ctf_event e3 = { 3, "p:tick", 6, b, 1, NULL };
	const struct lt_ctf_event e4 = { 3, "p:tock", 6, a, 1, NULL };
	uint64_t k1 = key_of(&e1);
	LT_ASSERT(k1 != 0);
	LT_ASSERT_EQ(key_of(&e2), k1); /* another process's id */
	LT_ASSERT(key_of(&e3) != k1); /* another field size */
	LT_ASSERT(key_of(&e4) != k1); /* another name */
}
