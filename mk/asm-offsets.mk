# SPDX-License-Identifier: MIT
# asm-offsets: include/lowtrace/ring_offsets.h, the layout that the
# sequences written in assembly read, generated from
# src/runtime/ring/gen/offsets.c as the kernel makes its asm-offsets.h: the file
# is compiled with -S, and each "->NAME VALUE" line it leaves in the
# assembly becomes a #define.
#
# The header is committed (its opening comment says why); every build
# generates it again into $(BUILD)/gen/ and stops if the two differ.
#   make ring-offsets   copies the generated header over the committed one
#                       (then raise LT_SEQ_LAYOUT in lowtrace/tp_seq.h)

RING_OFFSETS_H := include/lowtrace/ring_offsets.h
RING_OFFSETS_IN := src/runtime/ring/gen/ring_offsets.h.in
RING_OFFSETS_GEN := $(BUILD)/gen/lowtrace/ring_offsets.h
RING_OFFSETS_S := $(BUILD)/obj/src/runtime/ring/gen/offsets.s
RING_OFFSETS_OK := $(BUILD)/gen/ring_offsets.checked

.PHONY: ring-offsets

# its .d, beside it under $(BUILD)/obj, is included with the others
$(RING_OFFSETS_S): src/runtime/ring/gen/offsets.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -S $< -o $@

$(RING_OFFSETS_GEN): $(RING_OFFSETS_S) $(RING_OFFSETS_IN) mk/asm-offsets.mk
	@mkdir -p $(dir $@)
	{ sed '/@OFFSETS@/,$$d' $(RING_OFFSETS_IN) && \
	  sed -n 's/^[[:space:]]*\.ascii[[:space:]]*"->\([A-Z0-9_]*\) \(-*[0-9][0-9]*\) .*/#define \1 \2/p' $< && \
	  sed '1,/@OFFSETS@/d' $(RING_OFFSETS_IN); } > $@.tmp
	mv $@.tmp $@

$(RING_OFFSETS_OK): $(RING_OFFSETS_GEN) $(RING_OFFSETS_H)
	@cmp -s $(RING_OFFSETS_H) $(RING_OFFSETS_GEN) || { \
		echo "$(RING_OFFSETS_H) does not match the structures:" \
		     "run make ring-offsets, and raise LT_SEQ_LAYOUT" >&2; \
		diff -u $(RING_OFFSETS_H) $(RING_OFFSETS_GEN) >&2; exit 1; }
	@touch $@

# every library object is built after the check
$(LIB_OBJ): | $(RING_OFFSETS_OK)

ring-offsets: $(RING_OFFSETS_GEN)
	cp $(RING_OFFSETS_GEN) $(RING_OFFSETS_H)
