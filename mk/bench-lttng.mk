# SPDX-License-Identifier: MIT
# bench/tp_lowtrace, the lowtrace side of bench/compare-lttng.sh.  Its
# loops are aligned as the script aligns those of the LTTng side
# (BENCH_ALIGN there): a loop that straddles a 64-byte line costs a cycle
# more per iteration, which would show as tracepoint cost.
$(BUILD)/obj/bench/tp_lowtrace.o $(BUILD)/obj/bench/tp_tracef.o: CFLAGS += -falign-loops=32
$(BUILD)/obj/bench/tp_lowtrace.o $(BUILD)/obj/bench/tp_tracef.o: mk/bench-lttng.mk
