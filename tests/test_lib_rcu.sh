#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_lib_rcu.sh - liblowtrace-rcu.so as a program links it: a SONAME,
# only what the RCU headers (include/lowtrace/rcu*.h) declare exported,
# no symbol of either library taken from the other (each stands alone),
# and a program built against it alone that uses both flavours, the
# list, the hash table, call_rcu and defer_rcu.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
CC=${CC:-gcc}
. "$top/tests/lib/harness.sh" lt-test-lib-rcu

SO=$B/liblowtrace-rcu.so
if [ ! -e "$SO" ] || [ ! -e "$B/liblowtrace.so" ]; then
	fail build "no $SO or $B/liblowtrace.so (run make first)"
	finish
fi

soname=$(readelf -d "$SO" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" = liblowtrace-rcu.so.0 ] && [ -e "$B/$soname" ]; then
	ok soname_is_major_version
else
	fail soname_is_major_version "SONAME '$soname', or no $B/$soname link"
fi

# every exported symbol is declared in an RCU header, and the API's
# corners are among them
exported=$(nm -D --defined-only "$SO" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }')
private=
for s in $exported; do
	grep -qw -- "$s" "$top"/include/lowtrace/rcu*.h || private="$private $s"
done
missing=
for s in lt_rcu_synchronize lt_rcu_register_slow lt_rcu_gp lt_rcu_reader \
	lt_rcu_qsbr_synchronize lt_call_rcu lt_rcu_after_fork_child lt_defer_rcu \
	lt_rcu_ht_lookup; do
	echo "$exported" | grep -qx -- "$s" || missing="$missing $s"
done
n=$(echo "$exported" | wc -w)
if [ -z "$private$missing" ]; then
	ok "exports_rcu_api_only ($n symbols)"
else
	fail exports_rcu_api_only "in no RCU header:$private; not exported:$missing"
fi

# the runtime has its own RCU core and the library its own copy: neither
# takes a symbol of ours from elsewhere, nor needs the other
bad=
for lib in "$SO" "$B/liblowtrace.so"; do
	u=$(nm -D --undefined-only "$lib" | awk '$2 ~ /^lt_/ { printf " %s", $2 }')
	n=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(liblowtrace[^]]*\)\]/ \1/p')
	[ -z "$u$n" ] || bad="$bad [$(basename "$lib"):$u$n]"
done
if [ -z "$bad" ]; then
	ok libraries_stand_alone
else
	fail libraries_stand_alone "undefined or needed:$bad"
fi

cat > "$tmp/prog.c" <<'SRC'
#include <lowtrace/rcu.h>
#include <lowtrace/rcu_call.h>
#include <lowtrace/rcu_hash.h>
#include <lowtrace/rcu_list.h>
#include <stdio.h>
#include <stdlib.h>

#define N 100

struct item {
	struct lt_rcu_ht_node node;
	struct lt_list_head link;
	struct lt_rcu_head rcu;
	int key;
};

static int freed;

static int match(const struct lt_rcu_ht_node *n, const void *key)
{
	return lt_list_entry(n, struct item, node)->key == *(const int *)key;
}

static void free_item(struct lt_rcu_head *h)
{
	free(lt_list_entry(h, struct item, rcu));
	__atomic_add_fetch(&freed, 1, __ATOMIC_RELAXED);
}

static void free_deferred(void *p)
{
	free(p);
	__atomic_add_fetch(&freed, 1, __ATOMIC_RELAXED);
}

int main(void)
{
	struct lt_list_head list = LT_LIST_HEAD_INIT(list);
	lt_rcu_ht_t *ht = lt_rcu_ht_create(4, LT_RCU_HT_AUTO_RESIZE);
	struct lt_list_head *pos, *next;
	int found = 0, listed = 0;

	for (int i = 0; i < N; i++) {
		struct item *it = calloc(1, sizeof(*it));
		it->key = i;
		lt_rcu_ht_add(ht, &it->node, i);
		lt_list_add_tail_rcu(&it->link, &list);
	}
	lt_rcu_read_lock();
	for (int i = 0; i < N; i++)
		found += lt_rcu_ht_lookup(ht, i, match, &i) != NULL;
	lt_list_for_each_rcu(pos, &list)
		listed++;
	lt_rcu_read_unlock();

	/* half through each flavour's call_rcu, then one defer_rcu */
	lt_rcu_qsbr_register_thread();
	lt_list_for_each_safe(pos, next, &list) {
		struct item *it = lt_list_entry(pos, struct item, link);
		lt_rcu_ht_del(ht, &it->node);
		lt_list_del_rcu(&it->link);
		if (it->key % 2)
			lt_call_rcu(&it->rcu, free_item);
		else
			lt_rcu_qsbr_call_rcu(&it->rcu, free_item);
	}
	lt_rcu_barrier();
	lt_rcu_qsbr_barrier();
	lt_rcu_qsbr_quiescent_state();
	lt_rcu_qsbr_unregister_thread();
	lt_defer_rcu(free_deferred, malloc(1));
	lt_defer_barrier();
	printf("found %d listed %d freed %d left %zu\n", found, listed, freed,
	       lt_rcu_ht_count(ht));
	lt_rcu_ht_destroy(ht);
	return 0;
}
SRC
san=
[ -n "${SANITIZE:-}" ] && san="-fsanitize=$SANITIZE"
prog=$tmp/prog
if ! $CC -std=gnu11 -O2 -Wall -Wextra -Werror $san -I"$top/include" -o "$prog" \
	"$tmp/prog.c" -L"$B" -llowtrace-rcu -pthread -Wl,-rpath,"$B" > "$tmp/cc.log" 2>&1; then
	fail shared_program_builds "$(head -c 600 "$tmp/cc.log")"
	finish
fi
needed=$(readelf -d "$prog" | sed -n 's/.*(NEEDED).*\[\(liblowtrace[^]]*\)\]/\1/p' | tr '\n' ' ')
if [ "$needed" = "liblowtrace-rcu.so.0 " ]; then
	ok shared_program_needs_soname_alone
else
	fail shared_program_needs_soname_alone "NEEDED '$needed'"
fi
out=$("$prog" 2>&1)
if [ "$out" = "found 100 listed 100 freed 101 left 0" ]; then
	ok shared_program_runs
else
	fail shared_program_runs "$out"
fi
finish
