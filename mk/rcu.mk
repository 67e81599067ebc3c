# SPDX-License-Identifier: MIT
# RCU module.  liblowtrace-rcu (src/lib-rcu/): RCU for programs, which
# the runtime does not use: the QSBR flavour, call_rcu, defer_rcu, the
# hash table.  It holds its own copy of the runtime's RCU core
# (src/runtime/rcu/: the membarrier flavour), built from the same source
# into obj/rcu-core/, so that it stands alone: a program links it without
# the tracer.  Linked statically beside liblowtrace.a, one copy of the
# core serves both.
RCU_SRC := $(wildcard src/lib-rcu/*.c)
RCU_CORE_SRC := $(wildcard src/runtime/rcu/*.c)
RCU_OBJ := $(RCU_SRC:%.c=$(BUILD)/obj/%.o) \
	$(RCU_CORE_SRC:src/runtime/rcu/%.c=$(BUILD)/obj/rcu-core/%.o)
RCU_A := $(BUILD)/liblowtrace-rcu.a
RCU_SO := $(BUILD)/liblowtrace-rcu.so
RCU_SONAME := liblowtrace-rcu.so.$(SOMAJOR)
RCU_SO_REAL := $(BUILD)/liblowtrace-rcu.so.$(VERSION)
lib: $(RCU_A) $(RCU_SO)

# the runtime's copy of the core is its own: nothing of RCU is exported
# from liblowtrace.so (include/lowtrace/rcu.h)
$(BUILD)/obj/src/runtime/%.o: ALL_CFLAGS += -DLT__RCU_HIDDEN

# its own headers by "lib-rcu/file.h", the core's by "rcu/file.h"; the
# runtime's objects see src/runtime/ alone and so cannot include these
$(BUILD)/obj/src/lib-rcu/%.o: SRC_INC := -Isrc -Isrc/runtime
$(BUILD)/obj/rcu-core/%.o: SRC_INC := -Isrc/runtime
$(BUILD)/obj/rcu-core/%.o: ALL_CFLAGS += -fvisibility=hidden
$(BUILD)/obj/rcu-core/%.o: src/runtime/rcu/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(RCU_A): $(RCU_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# nodelete, as liblowtrace.so: reader records' thread-exit destructors,
# the call_rcu workers and the fork handlers outlive a dlclose()
$(RCU_SO_REAL): $(RCU_OBJ) src/lib-rcu/liblowtrace-rcu.map
	$(CC) -shared -Wl,-z,nodelete -Wl,-soname,$(RCU_SONAME) \
		-Wl,--version-script,src/lib-rcu/liblowtrace-rcu.map $(ALL_LDFLAGS) \
		-o $@ $(RCU_OBJ)
$(RCU_SO): $(RCU_SO_REAL)
	ln -sf $(notdir $<) $(BUILD)/$(RCU_SONAME)
	ln -sf $(notdir $<) $@

# what uses the library links it, first: the objects tested are its own
RCU_USERS := $(BUILD)/tests/test_rcu $(BUILD)/tests/test_rcu_torture $(BUILD)/bench/rcu
$(RCU_USERS): $(RCU_A)
$(RCU_USERS): LINK_LIBS := $(RCU_A)
$(RCU_USERS:$(BUILD)/%=$(BUILD)/obj/%.o): SRC_INC += -Isrc

# The benchmark runs beside liburcu 0.13 (memb, QSBR and mb flavours).
# initial-exec TLS for liburcu's reader records too, as ours always use.
$(BUILD)/obj/bench/rcu.o: ALL_CFLAGS += -ftls-model=initial-exec
$(BUILD)/bench/rcu: LDLIBS += -lurcu-memb -lurcu-qsbr -lurcu-mb -lurcu-common
