# SPDX-License-Identifier: MIT
# The trace reader's extra targets (included by the Makefile).
#
# make fuzz      builds the libFuzzer targets into build/fuzz/: fuzz_reader
#                (the reader), fuzz_analysis (the model, the analyses,
#                the export and the report over what the reader accepts)
#                and fuzz_control (tests/fuzz/fuzz_control.c)
# make fuzz-ci   runs fuzz_reader for FUZZ_TIME (60) seconds and
#                fuzz_analysis for FUZZ_ANALYSIS_TIME (45) from the seed
#                corpus (tests/corpus, good traces, scheduler traces of
#                bench/gen_sched, and tests/fuzz/seeds: a short recording of
#                examples/periodic with -k sched,irq,syscalls, one seed per
#                stream; traces of other tracers' shapes from tests/gen_ctf.py,
#                plain, packetized and of compound types, and those read
#                leniently (no clock, quirks, damage); an lttng-modules
#                trace where
#                ../shared/data is) and fails on a crash; then fuzz_control (the
#                session protocol's checks, the metadata of the events it
#                accepts, filters) for FUZZ_CONTROL_TIME (30) seconds from
#                the seeds it writes itself (FUZZ_CONTROL_SEEDS=DIR); then
#                fuzz_ctf2 (CTF 2's metadata front end) for FUZZ_CTF2_TIME
#                (30) seconds from CTF 2 seeds: tests/gen_ctf2.py's twins of
#                gen_ctf.py's traces, its trace of the field classes CTF 1.8
#                lacks and ../shared/data/ctf2's traces, which
#                fuzz_reader reads among its seeds too
# make bench-view  runs bench/view.sh (lowtrace view beside babeltrace2)

FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FUZZ_DIR := build/fuzz
FUZZ_ANALYSIS_TIME ?= 45
FUZZ_CONTROL_TIME ?= 30
FUZZ_CTF2_TIME ?= 30
# the reader formats markers with the runtime's grammar of their formats
FUZZ_SRC := tests/fuzz/fuzz_reader.c $(READER_SRC) src/runtime/format/marker.c
FUZZ_ANALYSIS_SRC := tests/fuzz/fuzz_analysis.c $(READER_SRC) src/runtime/format/marker.c \
	src/runtime/probe/pattern.c src/runtime/probe/filter.c \
	src/runtime/probe/filter_eval.c $(wildcard src/tool/analysis/*.c)
FUZZ_FLAGS := -std=gnu11 $(WARN) -g -O1 -Iinclude -Isrc/runtime -Isrc/tool \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer

.PHONY: fuzz fuzz-ci fuzz-seeds bench-view

$(FUZZ_DIR)/fuzz_reader: $(FUZZ_SRC) $(wildcard src/tool/ctf/*.h) $(wildcard src/runtime/format/*.h) \
		tests/fuzz/fuzz_input.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(FUZZ_SRC) -lm -ljansson

$(FUZZ_DIR)/fuzz_analysis: $(FUZZ_ANALYSIS_SRC) $(wildcard src/tool/ctf/*.h) \
		$(wildcard src/tool/analysis/*.h) $(wildcard src/runtime/format/*.h) tests/fuzz/fuzz_input.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(FUZZ_ANALYSIS_SRC) -lm -ljansson

FUZZ_CONTROL_SRC := tests/fuzz/fuzz_control.c src/runtime/session/proto.c \
	src/runtime/format/metadata.c src/runtime/probe/filter.c \
	src/runtime/probe/filter_eval.c $(READER_SRC) src/runtime/format/marker.c \
	src/tool/recorder/shared.c src/runtime/session/idtab.c
$(FUZZ_DIR)/fuzz_control: $(FUZZ_CONTROL_SRC) $(wildcard src/tool/ctf/*.h) \
		src/runtime/session/proto.h src/runtime/probe/filter.h \
		src/runtime/probe/filter_prog.h $(wildcard src/runtime/format/*.h) \
		src/tool/recorder/shared.h src/runtime/session/idtab.h tests/event_metadata.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -D_GNU_SOURCE= -DLT_VERSION='"$(VERSION)"' \
		-o $@ $(FUZZ_CONTROL_SRC) -lm -ljansson

FUZZ_CTF2_SRC := tests/fuzz/fuzz_ctf2.c $(READER_SRC) src/runtime/format/marker.c
$(FUZZ_DIR)/fuzz_ctf2: $(FUZZ_CTF2_SRC) $(wildcard src/tool/ctf/*.h) \
		$(wildcard src/runtime/format/*.h) tests/fuzz/fuzz_input.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(FUZZ_CTF2_SRC) -lm -ljansson

fuzz: $(FUZZ_DIR)/fuzz_reader $(FUZZ_DIR)/fuzz_analysis $(FUZZ_DIR)/fuzz_control \
	$(FUZZ_DIR)/fuzz_ctf2

# A seed is "metadata NUL stream": one per corpus trace, and good traces.
fuzz-seeds: build/bench/gen_trace build/bench/gen_sched
	rm -rf $(FUZZ_DIR)/seeds && mkdir -p $(FUZZ_DIR)/seeds $(FUZZ_DIR)/good
	for d in tests/corpus/*/; do \
		n=$$(basename $$d); \
		{ cat $$d/metadata 2>/dev/null; printf '\0'; \
		  cat $$d/default_4242_0; } > $(FUZZ_DIR)/seeds/$$n; \
	done
	for s in 1 2 3; do \
		rm -rf $(FUZZ_DIR)/good/$$s; \
		build/bench/gen_trace $(FUZZ_DIR)/good/$$s 30 --cpus 1 \
			--packet 512 --seed $$s && \
		{ cat $(FUZZ_DIR)/good/$$s/metadata; printf '\0'; \
		  cat $(FUZZ_DIR)/good/$$s/default_4242_0; } \
			> $(FUZZ_DIR)/seeds/good_$$s; \
	done
	cp tests/fuzz/seeds/* $(FUZZ_DIR)/seeds/
	# other tracers' shapes (tests/gen_ctf.py): packetized metadata is
	# followed by the stream directly, plain text by a NUL first
	for v in le:--seed=1 be:--be le_pkt:--packetized be_pkt:--be,--packetized,--freq,2500000000 compound:--compound; do \
		n=$${v%%:*}; o=$$(echo $${v#*:} | tr , ' ' | sed 's/--seed=/--seed /'); \
		rm -rf $(FUZZ_DIR)/good/gen_$$n; \
		python3 tests/gen_ctf.py $(FUZZ_DIR)/good/gen_$$n --events 120 $$o && \
		{ cat $(FUZZ_DIR)/good/gen_$$n/metadata; \
		  case $$n in *pkt) ;; *) printf '\0';; esac; \
		  cat $(FUZZ_DIR)/good/gen_$$n/chan_0_0; } \
			> $(FUZZ_DIR)/seeds/gen_$$n; \
	done
	# what is read leniently (tests/gen_ctf_lenient.py): no clock,
	# empty structs, damaged packets, tracers' quirks
	for v in clockless:--clockless empty:--empty-struct damaged:--damaged \
		after:--quirk,event-after-packet before:--quirk,event-before-packet \
		overlap:--quirk,packet-overlap crash:--quirk,crash; do \
		n=$${v%%:*}; o=$$(echo $${v#*:} | tr , ' '); \
		rm -rf $(FUZZ_DIR)/good/len_$$n $(FUZZ_DIR)/good/len_$$n.ref; \
		python3 tests/gen_ctf.py $(FUZZ_DIR)/good/len_$$n --events 60 \
			$$o > /dev/null && \
		{ cat $(FUZZ_DIR)/good/len_$$n/metadata; printf '\0'; \
		  cat $(FUZZ_DIR)/good/len_$$n/stream_0; } \
			> $(FUZZ_DIR)/seeds/len_$$n; \
	done
	# a real lttng-modules trace, where the checkout has ../shared/data
	for d in ../shared/data ../../shared/data; do \
		[ -d $$d/flipping-endianness ] || continue; \
		{ cat $$d/flipping-endianness/metadata; \
		  head -c 32768 $$d/flipping-endianness/channel-context-switches_0; } \
			> $(FUZZ_DIR)/seeds/lttng_kernel_be; \
		break; \
	done
	# CTF 2: tests/gen_ctf2.py's twins and the shared CTF 2 traces, in
	# seeds-ctf2 for fuzz_ctf2 and among fuzz_reader's seeds
	rm -rf $(FUZZ_DIR)/seeds-ctf2 && mkdir -p $(FUZZ_DIR)/seeds-ctf2
	for v in le:--seed=1 be_pkt:--be,--packetized compound:--compound; do \
		n=$${v%%:*}; o=$$(echo $${v#*:} | tr , ' ' | sed 's/--seed=/--seed /'); \
		rm -rf $(FUZZ_DIR)/good/ctf2_$$n; \
		python3 tests/gen_ctf2.py $(FUZZ_DIR)/good/ctf2_$$n --events 120 $$o && \
		{ cat $(FUZZ_DIR)/good/ctf2_$$n/ctf2/metadata; \
		  case $$n in *pkt) ;; *) printf '\0';; esac; \
		  cat $(FUZZ_DIR)/good/ctf2_$$n/ctf2/chan_0_0; } \
			> $(FUZZ_DIR)/seeds-ctf2/gen_$$n; \
	done
	rm -rf $(FUZZ_DIR)/good/ctf2_fields
	python3 tests/gen_ctf2.py $(FUZZ_DIR)/good/ctf2_fields --fields && \
	{ cat $(FUZZ_DIR)/good/ctf2_fields/ctf2/metadata; printf '\0'; \
	  cat $(FUZZ_DIR)/good/ctf2_fields/ctf2/stream; } \
		> $(FUZZ_DIR)/seeds-ctf2/gen_fields
	for d in ../shared/data/ctf2 ../../shared/data/ctf2; do \
		[ -d $$d ] || continue; \
		for t in $$d/*/ctf2; do \
			n=$$(basename $$(dirname $$t)); \
			s=$$(ls $$t | grep -v '^metadata$$' | grep -v '^index$$' | head -n 1); \
			{ cat $$t/metadata; printf '\0'; head -c 16384 $$t/$$s; } \
				> $(FUZZ_DIR)/seeds-ctf2/shared_$$n; \
		done; \
		break; \
	done
	cp $(FUZZ_DIR)/seeds-ctf2/* $(FUZZ_DIR)/seeds/
	for s in 1 2; do \
		rm -rf $(FUZZ_DIR)/good/sched_$$s; \
		build/bench/gen_sched $(FUZZ_DIR)/good/sched_$$s 200 --cpus 1 \
			--threads 4 --packet 4096 --seed $$s 2> /dev/null && \
		{ cat $(FUZZ_DIR)/good/sched_$$s/metadata; printf '\0'; \
		  cat $(FUZZ_DIR)/good/sched_$$s/kernel_0; } \
			> $(FUZZ_DIR)/seeds/sched_$$s; \
	done

fuzz-ci: $(FUZZ_DIR)/fuzz_reader $(FUZZ_DIR)/fuzz_analysis \
		$(FUZZ_DIR)/fuzz_control $(FUZZ_DIR)/fuzz_ctf2 fuzz-seeds
	mkdir -p $(FUZZ_DIR)/work $(FUZZ_DIR)/work-analysis \
		$(FUZZ_DIR)/work-control $(FUZZ_DIR)/work-ctf2
	rm -rf $(FUZZ_DIR)/seeds-control && mkdir -p $(FUZZ_DIR)/seeds-control
	FUZZ_CONTROL_SEEDS=$(FUZZ_DIR)/seeds-control $(FUZZ_DIR)/fuzz_control
	$(FUZZ_DIR)/fuzz_reader -max_total_time=$(FUZZ_TIME) -timeout=10 \
		-rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
		-artifact_prefix=$(FUZZ_DIR)/ $(FUZZ_DIR)/work $(FUZZ_DIR)/seeds
	$(FUZZ_DIR)/fuzz_analysis -max_total_time=$(FUZZ_ANALYSIS_TIME) \
		-timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/analysis- \
		$(FUZZ_DIR)/work-analysis $(FUZZ_DIR)/seeds
	$(FUZZ_DIR)/fuzz_control -max_total_time=$(FUZZ_CONTROL_TIME) \
		-timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/control- \
		$(FUZZ_DIR)/work-control $(FUZZ_DIR)/seeds-control
	$(FUZZ_DIR)/fuzz_ctf2 -max_total_time=$(FUZZ_CTF2_TIME) \
		-timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/ctf2- \
		$(FUZZ_DIR)/work-ctf2 $(FUZZ_DIR)/seeds-ctf2

bench-view: all
	BUILD=$(BUILD) bash bench/view.sh
