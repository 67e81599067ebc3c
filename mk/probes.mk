# SPDX-License-Identifier: MIT
# The probes' extra targets (included by the Makefile).
#
# make fuzz      also builds build/fuzz/fuzz_elf (tests/fuzz/fuzz_elf.c:
#                the ELF reader and the SDT argument specs)
# make fuzz-ci   also runs it for FUZZ_ELF_TIME (20) seconds from seeds:
#                bench/usdt_hit (a binary with an SDT note, stripped) and
#                the fuzz target itself

FUZZ_ELF_TIME ?= 20
# (mk/reader.mk, read after this file, defines FUZZ_DIR, FUZZ_CC and
# FUZZ_FLAGS; a target's name needs its directory now)
FUZZ_ELF := build/fuzz/fuzz_elf
FUZZ_ELF_DIR := build/fuzz
FUZZ_ELF_SRC := tests/fuzz/fuzz_elf.c src/tool/kernel/elf.c src/tool/kernel/usdt.c \
	src/tool/kernel/tracefs.c src/runtime/probe/pattern.c

.PHONY: fuzz-elf-ci

$(FUZZ_ELF): $(FUZZ_ELF_SRC) src/tool/kernel/elf.h src/tool/kernel/usdt.h \
		src/tool/kernel/tracefs.h src/runtime/probe/pattern.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -D_GNU_SOURCE= -o $@ $(FUZZ_ELF_SRC) -lm

fuzz: $(FUZZ_ELF)

fuzz-elf-ci: $(FUZZ_ELF) build/bench/usdt_hit
	rm -rf $(FUZZ_ELF_DIR)/seeds-elf && mkdir -p $(FUZZ_ELF_DIR)/seeds-elf \
		$(FUZZ_ELF_DIR)/work-elf
	strip -o $(FUZZ_ELF_DIR)/seeds-elf/usdt_hit build/bench/usdt_hit
	cp build/bench/usdt_hit $(FUZZ_ELF_DIR)/seeds-elf/usdt_hit_syms
	$(FUZZ_ELF) -max_total_time=$(FUZZ_ELF_TIME) -timeout=10 \
		-rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
		-artifact_prefix=$(FUZZ_ELF_DIR)/elf- $(FUZZ_ELF_DIR)/work-elf \
		$(FUZZ_ELF_DIR)/seeds-elf

fuzz-ci: fuzz-elf-ci
