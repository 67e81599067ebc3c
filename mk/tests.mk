# SPDX-License-Identifier: MIT
# Test fixtures beyond one .c per test: the shared library test_probe opens.
DL_LIB := $(BUILD)/tests/libtp_dl.so
$(DL_LIB): tests/dl/tp_dl.c include/lowtrace/tracepoint.h include/lowtrace/tp_seq.h \
		include/lowtrace/tracef.h include/lowtrace/ring_offsets.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -o $@ $< $(SANFLAGS)
$(BUILD)/tests/test_probe: $(DL_LIB)
$(BUILD)/tests/test_probe: LDFLAGS += -rdynamic
all: $(DL_LIB)

# Traced programs that tests run under `lowtrace record`.
TEST_PROGS := $(patsubst tests/progs/%.c,$(BUILD)/tests/progs/%,$(wildcard tests/progs/*.c))
$(BUILD)/tests/progs/%: $(BUILD)/obj/tests/progs/%.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIB_A) $(LDLIBS_BASE) $(LDLIBS)
all: $(TEST_PROGS)
# test_filter opens the same library (filters on events that load later).
$(BUILD)/tests/test_filter: $(DL_LIB)
$(BUILD)/tests/test_filter: LDFLAGS += -rdynamic
