# Test fixtures beyond one .c per test: the shared library test_probe opens.
DL_LIB := $(BUILD)/tests/libtp_dl.so
$(DL_LIB): tests/dl/tp_dl.c include/lowtrace/tracepoint.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -o $@ $< $(SANFLAGS)
$(BUILD)/tests/test_probe: $(DL_LIB)
$(BUILD)/tests/test_probe: LDFLAGS += -rdynamic
all: $(DL_LIB)
