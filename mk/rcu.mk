# SPDX-License-Identifier: MIT
# RCU module: the benchmark runs beside liburcu 0.13 (memb, QSBR and mb flavours).
# initial-exec TLS for liburcu's reader records too, as ours always use.
$(BUILD)/obj/bench/rcu.o: ALL_CFLAGS += -ftls-model=initial-exec
$(BUILD)/bench/rcu: LDLIBS += -lurcu-memb -lurcu-qsbr -lurcu-mb -lurcu-common
