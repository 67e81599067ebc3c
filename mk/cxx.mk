# SPDX-License-Identifier: MIT
# C++: the public headers from C++11 to C++23 with g++ and with clang++,
# and tests/test_cxx.cpp (two translation units) built by each, which
# tests/test_cxx.sh runs and reads back.  Under SANITIZE the programs
# carry the sanitizer flags too.
# a cross build's are the target's (g++-ARCH-linux-gnu)
ifneq ($(CROSS),)
CXX_GNU ?= $(LT_ARCH)-linux-gnu-g++
CXX_CLANG ?= clang++ --target=$(LT_ARCH)-linux-gnu
endif
CXX_GNU ?= g++
CXX_CLANG ?= clang++
CXXWARN := -Wall -Wextra -Werror -Wshadow
CXX_FLAGS = $(CXXWARN) $(filter -O% -g%,$(CFLAGS)) $(SANFLAGS) -pthread -Iinclude
CXX_TEST_SRC := tests/test_cxx.cpp tests/test_cxx_tu2.cpp
CXX_TEST_DEPS := $(CXX_TEST_SRC) tests/test_cxx_tp.h $(wildcard include/lowtrace/*.h)
# each compiler runs its program built at one standard, and checks the
# others (c++2b: clang 14's name of C++23, which g++ 12 accepts too)
CXX_STDS := c++11 c++14 c++17 c++20 c++2b
CXX_PROGS := $(BUILD)/tests/cxx/test_cxx-gnu $(BUILD)/tests/cxx/test_cxx-clang

$(BUILD)/tests/cxx/test_cxx-gnu: CXX_PROG := $(CXX_GNU)
$(BUILD)/tests/cxx/test_cxx-gnu: CXX_STD := c++11
$(BUILD)/tests/cxx/test_cxx-clang: CXX_PROG := $(CXX_CLANG)
$(BUILD)/tests/cxx/test_cxx-clang: CXX_STD := c++2b
# the others, compiled only (a stamp per compiler)
$(BUILD)/tests/cxx/test_cxx-%: $(CXX_TEST_DEPS) $(LIB_A)
	@mkdir -p $(dir $@)
	for std in $(filter-out $(CXX_STD),$(CXX_STDS)); do \
		$(CXX_PROG) -std=$$std $(CXX_FLAGS) -fsyntax-only $(CXX_TEST_SRC) || exit 1; \
	done
	$(CXX_PROG) -std=$(CXX_STD) $(CXX_FLAGS) -o $@ $(CXX_TEST_SRC) $(LIB_A) \
		$(LDLIBS_BASE)

all: $(CXX_PROGS)

# bench/tp_lowtrace.c as C++ (bench/compare-lttng.sh), with the flags and
# the loop alignment the C build has (mk/bench-lttng.mk)
$(BUILD)/bench/tp_lowtrace_cxx: bench/tp_lowtrace_cxx.cpp bench/tp_lowtrace.c \
		bench/tp_harness.h bench/bench_util.h $(CXX_TEST_DEPS) $(LINK_LIBS)
	@mkdir -p $(dir $@)
	$(CXX_GNU) -std=c++11 $(CXX_FLAGS) -falign-loops=32 -fPIC -Ibench -o $@ $< \
		$(LINK_LIBS) $(LDLIBS_BASE) $(LDLIBS_TOOL)
all: $(BUILD)/bench/tp_lowtrace_cxx
