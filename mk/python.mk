# SPDX-License-Identifier: MIT
# The Python module (python/, docs/python.md): lowtrace._reader, a CPython
# extension over the trace reader, and the pure-Python package lowtrace
# around it, built into $(BUILD)/python/lowtrace/ (PYTHONPATH=$(BUILD)/python
# imports it) with Debian's python3-dev.  The extension links the tool's
# objects and the runtime's statically: they are built -fPIC already, so
# nothing of the command or of the runtime's hot path changes for it.
# Not built in a cross or sanitizer build (its interpreter would have to
# load the sanitizer's runtime first), nor without Python.h.
# make install puts the package in $(PYTHONDIR), where the prefix's
# python3 looks: $(PREFIX)/lib/python3.X/dist-packages.
PYTHON ?= /usr/bin/python3
PY_INC := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
PY_EXT := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
PY_VER := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYTHONDIR ?= $(PREFIX)/lib/python$(PY_VER)/dist-packages

PY_SRC := $(filter-out python/emit.c,$(wildcard python/*.c))
PY_OBJ := $(PY_SRC:%.c=$(BUILD)/obj/%.o)
# lowtrace._emit: events from Python, through liblowtrace.so (one runtime
# in the process with its C libraries'), found beside the package in the
# build tree and in $(LIBDIR) once installed
PY_EMIT_OBJ := $(BUILD)/obj/python/emit.o
PY_PKG_SRC := $(wildcard python/lowtrace/*.py)
PY_DIR := $(BUILD)/python/lowtrace
PY_MOD := $(PY_DIR)/_reader$(PY_EXT)
PY_EMIT := $(PY_DIR)/_emit$(PY_EXT)
PY_PKG := $(PY_PKG_SRC:python/lowtrace/%=$(PY_DIR)/%)

PY_BUILD :=
ifeq ($(CROSS)$(SANITIZE),)
ifneq ($(PY_INC),)
ifneq ($(wildcard $(PY_INC)/Python.h),)
PY_BUILD := yes
endif
endif
endif

ifneq ($(PY_BUILD),)
# Python's headers as the system's: their warnings are not ours
$(PY_OBJ) $(PY_EMIT_OBJ): ALL_CFLAGS += -isystem $(PY_INC) -fvisibility=hidden
$(PY_OBJ): SRC_INC := -Isrc/tool -Isrc/runtime
# the public headers alone
$(PY_EMIT_OBJ): SRC_INC :=

$(PY_MOD): $(PY_OBJ) $(LINK_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -shared $(ALL_LDFLAGS) -Wl,--exclude-libs,ALL -o $@ $(PY_OBJ) \
		$(LINK_LIBS) $(LDLIBS_BASE) $(LDLIBS_TOOL)

$(PY_EMIT): $(PY_EMIT_OBJ) $(LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) -shared $(ALL_LDFLAGS) -o $@ $(PY_EMIT_OBJ) -L$(BUILD) -llowtrace \
		-Wl,-rpath,'$$ORIGIN/../..:$$ORIGIN/../../..:$(LIBDIR)'

$(PY_DIR)/%.py: python/lowtrace/%.py
	@mkdir -p $(dir $@)
	cp $< $@

all: $(PY_MOD) $(PY_EMIT) $(PY_PKG)

.PHONY: install-python uninstall-python
install: install-python
install-python: $(PY_MOD) $(PY_EMIT) $(PY_PKG)
	install -d $(DESTDIR)$(PYTHONDIR)/lowtrace
	install -m 644 $(PY_PKG) $(DESTDIR)$(PYTHONDIR)/lowtrace/
	install -m 755 $(PY_MOD) $(PY_EMIT) $(DESTDIR)$(PYTHONDIR)/lowtrace/
uninstall: uninstall-python
uninstall-python:
	rm -f $(addprefix $(DESTDIR)$(PYTHONDIR)/lowtrace/,$(notdir $(PY_PKG) $(PY_MOD) $(PY_EMIT)))
	rm -rf $(DESTDIR)$(PYTHONDIR)/lowtrace/__pycache__
	-rmdir $(DESTDIR)$(PYTHONDIR)/lowtrace $(DESTDIR)$(PYTHONDIR) 2>/dev/null
endif
