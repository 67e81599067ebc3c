# SPDX-License-Identifier: MIT
# lowtrace build. `make` builds everything into build/; `make check` runs the tests.
# SANITIZE=address,undefined or SANITIZE=thread builds into build/san-*/ instead.
# Module fragments in mk/*.mk add targets and per-target flags.

CC ?= gcc
ifeq ($(origin CC),default)
CC := gcc
endif
comma := ,
SANITIZE ?=
ifeq ($(SANITIZE),)
BUILD ?= build
SANFLAGS :=
else
BUILD ?= build/san-$(subst $(comma),-,$(SANITIZE))
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

VERSION := 0.1.0
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=gnu11 -D_GNU_SOURCE= $(WARN) $(CFLAGS) $(SANFLAGS) -fPIC -pthread \
	-Iinclude $(SRC_INC) -DLT_VERSION='"$(VERSION)"' -MMD -MP
# headers by module ("ring/ring.h"): the runtime's objects see the
# runtime's alone, so that nothing a traced program links reaches into
# the tool; everything else sees both
SRC_INC = -Isrc/runtime -Isrc/tool
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS) -pthread
# the architecture built for (src/runtime/arch/arch.h says what each
# gets), and CROSS when it is not this machine's: a cross build's programs
# do not run here, so nothing is made by running them
LT_ARCH := $(firstword $(subst -, ,$(shell $(CC) -dumpmachine)))
CROSS := $(filter-out $(shell uname -m),$(LT_ARCH))
# the ring buffer's 16-byte compare-and-swap, inline (aarch64's is
# libgcc's __aarch64_cas16_sync, LSE's casp or an ldxp/stxp loop)
ifeq ($(LT_ARCH),x86_64)
ALL_CFLAGS += -mcx16
endif
LDLIBS_BASE := -ldl -lm
# what the tool links beside: jansson parses CTF 2's JSON metadata
# (docs/reader.md says why jansson).  LT_JSON=0 builds without it, the
# default where the target has no libjansson (a cross build): the reader
# then reads CTF 1.8 alone and says so of CTF 2.
ifndef LT_JSON
LT_JSON := $(shell printf 'int main(void){return 0;}' | $(CC) -x c - -ljansson -o /dev/null 2>/dev/null && echo 1 || echo 0)
endif
ifeq ($(LT_JSON),1)
LDLIBS_TOOL := -ljansson
else
LDLIBS_TOOL :=
$(info lowtrace: building without jansson (LT_JSON=0: no libjansson for $(LT_ARCH)); the reader reads CTF 1.8 alone)
endif
# the ring's 16-byte CAS where no instruction does it (arch/arch.h)
ifeq ($(filter x86_64 aarch64,$(LT_ARCH)),)
LDLIBS_BASE += -latomic
endif
# valgrind 3.19 reads gcc's DWARF 5 but not clang 14's: clang writes 4
ifneq ($(findstring clang,$(shell $(CC) --version 2>/dev/null | head -n 1)),)
ALL_CFLAGS += -gdwarf-4
endif

# The folders are the binaries.  src/runtime/ is liblowtrace, what a traced
# program links: the architecture's choices, the clock, RCU, the ring, the
# trace format, the probes, the in-process session and the agent of
# `lowtrace record`.  src/tool/ is
# what only the lowtrace command links (liblowtrace-tool.a): the recorder,
# the kernel channel, the reader, the analyses; src/tool/cli/ its verbs.
# src/lib-rcu/ is neither: liblowtrace-rcu, RCU for programs (mk/rcu.mk).
READER_SRC := $(wildcard src/tool/ctf/*.c)
TOOL_SRC := $(filter-out src/tool/cli/%,$(wildcard src/tool/*/*.c))
ifneq ($(LT_JSON),1)
# CTF 2's JSON front end is jansson's alone
READER_SRC := $(filter-out src/tool/ctf/ctf2_%,$(READER_SRC))
TOOL_SRC := $(filter-out src/tool/ctf/ctf2_%,$(TOOL_SRC))
$(BUILD)/obj/src/tool/ctf/metadata.o: ALL_CFLAGS += -DLT_JSON=0
endif
LIB_SRC := $(wildcard src/runtime/*/*.c)
LIB_ASM := $(wildcard src/runtime/*/*.S)
CLI_SRC := $(wildcard src/tool/cli/*.c)
TEST_SRC := $(wildcard tests/test_*.c)
BENCH_SRC := $(wildcard bench/*.c)
# bench/rcu runs beside liburcu, where the target has it
ifneq ($(shell $(CC) -E -include urcu/urcu-mb.h -x c /dev/null >/dev/null 2>&1 || echo no),)
BENCH_SRC := $(filter-out bench/rcu.c,$(BENCH_SRC))
endif
# bench/bpf_ring_cmp needs its BPF skeleton: mk/bpf.mk builds it where it can
BENCH_SRC := $(filter-out bench/bpf_ring_cmp.c,$(BENCH_SRC))
EXAMPLE_SRC := $(wildcard examples/*.c)

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(LIB_ASM:%.S=$(BUILD)/obj/%.o)
TOOL_OBJ := $(TOOL_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
LIB_A := $(BUILD)/liblowtrace.a
# the shared runtime: real name, soname (major version), link name
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
LIB_SO := $(BUILD)/liblowtrace.so
LIB_SONAME := liblowtrace.so.$(SOMAJOR)
LIB_SO_REAL := $(BUILD)/liblowtrace.so.$(VERSION)
TOOL_A := $(BUILD)/liblowtrace-tool.a
# what tests, benchmarks and the command link: both, statically
LINK_LIBS := $(TOOL_A) $(LIB_A)
CLI := $(BUILD)/lowtrace
TESTS := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
BENCHES := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
EXAMPLES := $(EXAMPLE_SRC:examples/%.c=$(BUILD)/examples/%)

.SECONDARY:
.PHONY: all lib check bench format format-check clean verify fuzz
all: lib $(CLI) $(TESTS) $(BENCHES) $(EXAMPLES)
lib: $(LIB_A) $(LIB_SO) $(TOOL_A)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# the library's own functions stay inside it: what include/lowtrace/
# declares is exported (its headers say so with visibility pragmas)
$(BUILD)/obj/src/%.o: ALL_CFLAGS += -fvisibility=hidden
$(BUILD)/obj/src/runtime/%.o: SRC_INC := -Isrc/runtime

# assembly: preprocessed, with the C headers' include path
$(BUILD)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) -D_GNU_SOURCE= -Iinclude -Isrc/runtime $(filter -g%,$(CFLAGS)) -MMD -MP -c $< -o $@

$(LIB_A): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(TOOL_A): $(TOOL_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# nodelete: the library leaves behind what must not outlive its code:
# thread-exit destructors of its per-thread state (RCU readers), a
# consumer thread, the original rseq descriptors; dlclose() keeps it
$(LIB_SO_REAL): $(LIB_OBJ) src/runtime/liblowtrace.map
	$(CC) -shared -Wl,-z,nodelete -Wl,-soname,$(LIB_SONAME) \
		-Wl,--version-script,src/runtime/liblowtrace.map $(ALL_LDFLAGS) \
		-o $@ $(LIB_OBJ) $(LDLIBS_BASE)
$(LIB_SO): $(LIB_SO_REAL)
	ln -sf $(notdir $<) $(BUILD)/$(LIB_SONAME)
	ln -sf $(notdir $<) $@

$(CLI): $(CLI_OBJ) $(LINK_LIBS)
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(LINK_LIBS) $(LDLIBS_BASE) $(LDLIBS_TOOL) $(LDLIBS)

# Tests, benchmarks and examples are one .c each, linked statically: examples
# against the runtime alone, tests and benchmarks against the tool too.
$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(LINK_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LINK_LIBS) $(LDLIBS_BASE) $(LDLIBS_TOOL) $(LDLIBS)
$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(LINK_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LINK_LIBS) $(LDLIBS_BASE) $(LDLIBS_TOOL) $(LDLIBS)
$(BUILD)/examples/%: $(BUILD)/obj/examples/%.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIB_A) $(LDLIBS_BASE) $(LDLIBS)

check: all
	BUILD=$(BUILD) SANITIZE=$(SANITIZE) bash tests/run.sh $(TESTS)

# the C test programs of a cross build (make CC=ARCH-linux-gnu-gcc
# BUILD=build/ARCH first) under qemu-user: docs/portability.md
.PHONY: check-cross
check-cross:
	bash scripts/check-cross.sh $(ARCH)

bench: all
	BUILD=$(BUILD) bash bench/run.sh

FORMAT_SRC = $(shell git ls-files '*.c' '*.cpp' '*.h' 2>/dev/null)
format:
	clang-format -i $(FORMAT_SRC)
format-check:
	clang-format --dry-run --Werror $(FORMAT_SRC)

clean:
	rm -rf build

-include $(wildcard mk/*.mk)
-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
