# SPDX-License-Identifier: Apache-2.0
# The C core as an installable library: libfeedstream.a, libfeedstream.so
# and feedstream.pc, from CSources/CFeedStream and CSources/CFeedStreamInflate (the
# sources SwiftPM builds as the CFeedStream product), with the system's expat, libxml2
# and zlib (pkg-config), and ISA-L's header when it is there (libisal-dev: the inflater
# `cfs_inflate_set_engine` can choose, loaded at run time, never linked).
#
#     make                              # into .build-c/
#     make install PREFIX=$HOME/.local  # all of the below
#     make install-lib PREFIX=...       # include/feedstream.h (and feedstream_input.h, feedstream_inflate.h), lib/libfeedstream.*, lib/pkgconfig/feedstream.pc
#     make install-cli PREFIX=...       # bin/feedstream, share/man/man1/feedstream.1, bash, zsh and fish completions (swift build)
#     cc app.c $(pkg-config --cflags --libs feedstream)
#
# (PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig when PREFIX is not one pkg-config searches;
# at run time the shared library is found through the system's paths, an rpath or
# LD_LIBRARY_PATH; `pkg-config --static --libs feedstream` links the archive instead.)
# Swift users need none of this: SwiftPM builds the same sources itself.

PREFIX     ?= /usr/local
DESTDIR    ?=
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR     ?= $(PREFIX)/bin
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
VERSION    := $(shell sed -n 's/^\#define CFS_VERSION_STRING "\(.*\)"/\1/p' CSources/CFeedStream/include/feedstream.h)
SOMAJOR    := $(shell sed -n 's/^\#define CFS_VERSION_MAJOR \([0-9]*\)/\1/p' CSources/CFeedStream/include/feedstream.h)
SWIFT      ?= swift
# The feedstream binary install-cli installs: built with `swift build -c release` unless
# one is given (scripts/build-static.sh's self-contained one, say).
FEEDSTREAM_BIN ?=
BUILD      ?= .build-c

CC         ?= cc
AR         ?= ar
PKG_CONFIG ?= pkg-config
DEPS       := expat libxml-2.0 zlib libzstd
CFLAGS     ?= -O2 -g
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -fPIC -fvisibility=default $(CFLAGS) \
              $(shell $(PKG_CONFIG) --cflags $(DEPS)) -ICSources/CFeedStream/include -ICSources/CFeedStreamInput/include -ICSources/CFeedStreamInflate/include -ICSources/CFeedStreamCharset/include
DEP_LIBS   := $(shell $(PKG_CONFIG) --libs $(DEPS)) -lpthread -ldl

SRC  := $(wildcard CSources/CFeedStream/*.c CSources/CFeedStreamInput/*.c CSources/CFeedStreamInflate/*.c) \
        CSources/CFeedStreamCharset/transcode.c
OBJ  := $(patsubst CSources/%.c,$(BUILD)/obj/%.o,$(SRC))
HDRS := $(wildcard CSources/CFeedStream/*.h CSources/CFeedStream/*.def CSources/CFeedStream/include/*.h \
                   CSources/CFeedStreamInput/*.def CSources/CFeedStreamInput/include/*.h \
                   CSources/CFeedStreamInflate/include/*.h CSources/CFeedStreamCharset/*.def \
                   CSources/CFeedStreamCharset/include/*.h)
SO   := libfeedstream.so.$(VERSION)

.PHONY: all install install-lib install-cli uninstall clean FORCE
all: $(BUILD)/libfeedstream.a $(BUILD)/$(SO) $(BUILD)/feedstream.pc

$(BUILD)/obj/%.o: CSources/%.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libfeedstream.a: $(OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/$(SO): $(OBJ)
	$(CC) -shared -Wl,-soname,libfeedstream.so.$(SOMAJOR) -o $@ $^ $(DEP_LIBS)

# Written on every run: it holds PREFIX, which `make install PREFIX=...` may change.
$(BUILD)/feedstream.pc: FORCE
	@mkdir -p $(@D)
	printf '%s\n' \
	  'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
	  'Name: feedstream' \
	  'Description: FeedStream C core: streaming RSS/Atom parsing (expat or libxml2)' \
	  'Version: $(VERSION)' \
	  'Requires.private: $(DEPS)' \
	  'Libs: -L$${libdir} -lfeedstream' \
	  'Libs.private: -lpthread -ldl' \
	  'Cflags: -I$${includedir}' > $@

# Everything: the C library (install-lib) and the command line (install-cli).
install: install-lib install-cli

# The command line: the binary, its man page (swift-argument-parser's generate-manual,
# from the help) and its bash, zsh and fish completions.
install-cli: BIN = $(or $(FEEDSTREAM_BIN),$(shell $(SWIFT) build -c release --show-bin-path)/feedstream)
install-cli:
	$(if $(FEEDSTREAM_BIN),,$(SWIFT) build -c release --product feedstream)
	$(SWIFT) build -c release --product generate-manual
	@mkdir -p $(BUILD)/man
	"$$($(SWIFT) build -c release --show-bin-path)/generate-manual" $(BIN) --output-directory $(BUILD)/man
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DATADIR)/bash-completion/completions \
	  $(DESTDIR)$(DATADIR)/zsh/site-functions $(DESTDIR)$(DATADIR)/fish/vendor_completions.d
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/feedstream
	install -m 644 $(BUILD)/man/feedstream.1 $(DESTDIR)$(MANDIR)/man1/
	$(BIN) --generate-completion-script bash > $(DESTDIR)$(DATADIR)/bash-completion/completions/feedstream
	$(BIN) --generate-completion-script zsh > $(DESTDIR)$(DATADIR)/zsh/site-functions/_feedstream
	$(BIN) --generate-completion-script fish > $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/feedstream.fish

# The C library: headers, libfeedstream.a and .so, feedstream.pc.
install-lib: all
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 644 CSources/CFeedStream/include/feedstream.h CSources/CFeedStreamInput/include/feedstream_input.h \
	  CSources/CFeedStreamInflate/include/feedstream_inflate.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(BUILD)/libfeedstream.a $(DESTDIR)$(LIBDIR)/
	install -m 755 $(BUILD)/$(SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(SO) $(DESTDIR)$(LIBDIR)/libfeedstream.so.$(SOMAJOR)
	ln -sf $(SO) $(DESTDIR)$(LIBDIR)/libfeedstream.so
	install -m 644 $(BUILD)/feedstream.pc $(DESTDIR)$(LIBDIR)/pkgconfig/

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/feedstream.h $(DESTDIR)$(INCLUDEDIR)/feedstream_input.h \
	  $(DESTDIR)$(INCLUDEDIR)/feedstream_inflate.h $(DESTDIR)$(LIBDIR)/libfeedstream.a \
	  $(DESTDIR)$(LIBDIR)/$(SO) $(DESTDIR)$(LIBDIR)/libfeedstream.so.$(SOMAJOR) \
	  $(DESTDIR)$(LIBDIR)/libfeedstream.so $(DESTDIR)$(LIBDIR)/pkgconfig/feedstream.pc \
	  $(DESTDIR)$(BINDIR)/feedstream $(DESTDIR)$(MANDIR)/man1/feedstream.1 \
	  $(DESTDIR)$(DATADIR)/bash-completion/completions/feedstream $(DESTDIR)$(DATADIR)/zsh/site-functions/_feedstream \
	  $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/feedstream.fish

clean:
	rm -rf $(BUILD)
