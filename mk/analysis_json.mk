# SPDX-License-Identifier: MIT
# tests/embed/analyze_json: the analyses' JSON entry point (cli/analyze.h)
# linked as an embedding program links it, without the command's main.c.
EMBED_CLI_OBJ := $(BUILD)/obj/src/tool/cli/analyze.o \
	$(BUILD)/obj/src/tool/cli/analysis_opts.o
$(BUILD)/tests/embed/analyze_json: $(BUILD)/obj/tests/embed/analyze_json.o \
		$(EMBED_CLI_OBJ) $(LINK_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(EMBED_CLI_OBJ) $(LINK_LIBS) \
		$(LDLIBS_BASE) $(LDLIBS_TOOL) $(LDLIBS)
all: $(BUILD)/tests/embed/analyze_json
