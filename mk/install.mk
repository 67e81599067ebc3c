# SPDX-License-Identifier: MIT
# make install [PREFIX=/usr/local] [DESTDIR=...], make uninstall: the
# lowtrace command, liblowtrace.so (real name, soname and link name) and
# liblowtrace.a, liblowtrace-rcu.so and .a likewise, the public headers,
# the pkg-config files (lowtrace, lowtrace-rcu), the CMake package
# (lowtrace::lowtrace, lowtrace::rcu), the man pages and the bash
# completion.
# lowtrace(1) and the completion are generated from the command's own
# help (scripts/gen-man.sh, scripts/gen-completion.sh).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR ?= $(LIBDIR)/cmake/lowtrace
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

# the CMake package finds the prefix from its own place (relocatable)
LIBDIR_REL = $(patsubst $(PREFIX)/%,%,$(LIBDIR))
INCLUDEDIR_REL = $(patsubst $(PREFIX)/%,%,$(INCLUDEDIR))
CMAKE_UP = $(subst $() ,/,$(patsubst %,..,$(subst /, ,$(patsubst $(PREFIX)/%,%,$(CMAKEDIR)))))
INSTALL_SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	-e 's|@SOMAJOR@|$(SOMAJOR)|g' -e 's|@SONAME@|$(LIB_SONAME)|g' \
	-e 's|@RCU_SONAME@|$(RCU_SONAME)|g' \
	-e 's|@LIBDIR_REL@|$(LIBDIR_REL)|g' -e 's|@INCLUDEDIR_REL@|$(INCLUDEDIR_REL)|g' \
	-e 's|@CMAKE_UP@|$(CMAKE_UP)|g' -e 's|@CMAKEDIR_REL@|$(patsubst $(PREFIX)/%,%,$(CMAKEDIR))|g'

PUBLIC_HEADERS := $(wildcard include/lowtrace/*.h)
MAN1 := $(BUILD)/man/lowtrace.1
MAN3 := man/lt_trace.3
# the other names lt_trace(3) documents, as links to it
MAN3_LINKS := LT_EVENT.3 lt_tracef.3
COMPLETION := $(BUILD)/completion/lowtrace

$(MAN1): $(CLI) scripts/gen-man.sh
	@mkdir -p $(dir $@)
	bash scripts/gen-man.sh $(CLI) $(VERSION) > $@.tmp && mv $@.tmp $@
$(COMPLETION): $(CLI) scripts/gen-completion.sh
	@mkdir -p $(dir $@)
	bash scripts/gen-completion.sh $(CLI) > $@.tmp && mv $@.tmp $@
# made by running the command: not in a cross build
ifeq ($(CROSS),)
all: $(MAN1) $(COMPLETION)
endif

.PHONY: install uninstall
install: lib $(CLI) $(MAN1) $(COMPLETION)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(INCLUDEDIR)/lowtrace $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(CLI) $(DESTDIR)$(BINDIR)/lowtrace
	install -m 755 $(LIB_SO_REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIB_SO_REAL)) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/liblowtrace.so
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(RCU_SO_REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(RCU_SO_REAL)) $(DESTDIR)$(LIBDIR)/$(RCU_SONAME)
	ln -sf $(RCU_SONAME) $(DESTDIR)$(LIBDIR)/liblowtrace-rcu.so
	install -m 644 $(RCU_A) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/lowtrace/
	$(INSTALL_SUBST) mk/install/lowtrace.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/lowtrace.pc
	$(INSTALL_SUBST) mk/install/lowtrace-rcu.pc.in \
		> $(DESTDIR)$(PKGCONFIGDIR)/lowtrace-rcu.pc
	$(INSTALL_SUBST) mk/install/lowtraceConfig.cmake.in \
		> $(DESTDIR)$(CMAKEDIR)/lowtraceConfig.cmake
	$(INSTALL_SUBST) mk/install/lowtraceConfigVersion.cmake.in \
		> $(DESTDIR)$(CMAKEDIR)/lowtraceConfigVersion.cmake
	install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(MAN3) $(DESTDIR)$(MANDIR)/man3/
	for l in $(MAN3_LINKS); do \
		echo '.so man3/lt_trace.3' > $(DESTDIR)$(MANDIR)/man3/$$l; \
	done
	install -m 644 $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/lowtrace

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/lowtrace \
		$(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO_REAL)) \
		$(DESTDIR)$(LIBDIR)/$(LIB_SONAME) $(DESTDIR)$(LIBDIR)/liblowtrace.so \
		$(DESTDIR)$(LIBDIR)/liblowtrace.a \
		$(DESTDIR)$(LIBDIR)/$(notdir $(RCU_SO_REAL)) \
		$(DESTDIR)$(LIBDIR)/$(RCU_SONAME) $(DESTDIR)$(LIBDIR)/liblowtrace-rcu.so \
		$(DESTDIR)$(LIBDIR)/liblowtrace-rcu.a \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/lowtrace/,$(notdir $(PUBLIC_HEADERS))) \
		$(DESTDIR)$(PKGCONFIGDIR)/lowtrace.pc $(DESTDIR)$(PKGCONFIGDIR)/lowtrace-rcu.pc \
		$(DESTDIR)$(CMAKEDIR)/lowtraceConfig.cmake \
		$(DESTDIR)$(CMAKEDIR)/lowtraceConfigVersion.cmake \
		$(DESTDIR)$(MANDIR)/man1/lowtrace.1 $(DESTDIR)$(MANDIR)/man3/lt_trace.3 \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(MAN3_LINKS)) \
		$(DESTDIR)$(BASHCOMPDIR)/lowtrace
	-rmdir $(DESTDIR)$(INCLUDEDIR)/lowtrace $(DESTDIR)$(CMAKEDIR) 2>/dev/null
