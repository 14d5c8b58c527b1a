# wirehook — top-level build. Everything lands in $(BUILD)/.
# Sources are picked up by directory, so adding a file needs no edit here.

BUILD      ?= build
SHARED_DIR ?= ../shared
CC         ?= cc
PKGS        = apr-1 apr-util-1 json-c openssl lmdb
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CURL_LIBS  := $(shell pkg-config --libs libcurl 2>/dev/null)
WARN        = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2
CFLAGS     ?= -O2 -g
SANITIZE   ?=
ALL_CFLAGS  = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(SANITIZE) -fPIC -Ishared $(PKG_CFLAGS)
LDFLAGS    ?=
# --as-needed drops libraries nothing calls (apr-util's pkg-config brings
# libldap/liblber): fewer objects to map is a cheaper CGI process start.
ALL_LDFLAGS = -Wl,--as-needed $(LDFLAGS) $(SANITIZE)

# How wirehook.cgi links libcrypto and json-c (the module and the CLI are
# always dynamic). static, the default: a CGI process starts once per
# request, and resolving libcrypto.so's symbols at every start is a large
# part of it; the price is that an OpenSSL update reaches the CGI only
# with a rebuild (docs/cgi.md, "Linking"). APR and APR-util go inside too:
# five shared objects fewer to map and relocate at every start (with
# libexpat, libuuid, libcrypt that APR-util pulls in); apr_dbd dlopens its
# SQLite/PostgreSQL driver, which calls back into a few APR functions: the
# CGI exports exactly those (cgi/dbd-exports.list) and nothing else.
# dynamic: everything shared. CGI_CRYPTO_LIBS is the mode's libcrypto +
# json-c part (bench/floor_cgi.c links it too, so the CGI floor starts as
# the CGI does).
CGI_LINK   ?= static
ifeq ($(CGI_LINK),static)
CGI_CRYPTO_LIBS = $(shell pkg-config --libs-only-L json-c libcrypto 2>/dev/null) \
              -Wl,-Bstatic -ljson-c -lcrypto -Wl,-Bdynamic -ldl -pthread
CGI_DEFS    = -DWH_CGI_PRIVATE_LIBCRYPTO
CGI_EXPORTS = $(shell sed -n 's/^ *\(apr_[a-z0-9_]*\);.*/\1/p' cgi/dbd-exports.list)
CGI_APR_LIBS = -Wl,--dynamic-list=cgi/dbd-exports.list $(CGI_EXPORTS:%=-Wl,-u,%) \
              -Wl,-Bstatic -laprutil-1 -lapr-1 -lcrypt -luuid -Wl,-Bdynamic
else ifeq ($(CGI_LINK),dynamic)
CGI_CRYPTO_LIBS = $(shell pkg-config --libs json-c libcrypto 2>/dev/null)
CGI_DEFS    =
CGI_APR_LIBS = $(shell pkg-config --libs apr-1 apr-util-1 2>/dev/null)
else
$(error CGI_LINK must be static or dynamic, not '$(CGI_LINK)')
endif
CGI_LIBS    = $(CGI_APR_LIBS) $(CGI_CRYPTO_LIBS)
# Compact relative relocations (DT_RELR, binutils 2.38 + glibc 2.36) for
# the CGI and its bench floor: the CGI stays position-independent (ASLR),
# and the loader reads a much smaller table at each start than the one the
# linked-in libcrypto's pointer tables need (bench/method.md). Left out
# where the toolchain lacks it.
CGI_RELR   := $(shell printf 'int main(void){return 0;}' | $(CC) -x c - -o /dev/null \
                -Wl,--fatal-warnings -Wl,-z,pack-relative-relocs 2>/dev/null \
                && echo -Wl,-z,pack-relative-relocs)

CORE_SRC   := $(wildcard shared/*/*.c)
CORE_OBJ   := $(CORE_SRC:%.c=$(BUILD)/obj/%.o)
CLI_SRC    := $(wildcard cli/*.c)
CLI_OBJ    := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
CGI_SRC    := $(wildcard cgi/*.c)
CGI_OBJ    := $(CGI_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_SRC   := $(wildcard tests/unit/*.c)
UNIT_OBJ   := $(UNIT_SRC:%.c=$(BUILD)/obj/%.o)

LIB        := $(BUILD)/libwirehook.a
CLI        := $(BUILD)/wirehook
CGI        := $(BUILD)/wirehook.cgi
UNIT       := $(BUILD)/unit_tests

.PHONY: all deps test-deps check unit integration demo asan valgrind cppcheck clean bench fuzz soak install uninstall
all: $(LIB) $(CLI) $(if $(CGI_SRC),$(CGI)) module

# What building needs (make all, make deb); test-deps: what make check's
# suites need besides (httpd, databases, valgrind, ...).
deps:
	@build/deps.sh

test-deps:
	@build/deps.sh --test

$(BUILD)/obj/%.o: %.c $(wildcard shared/*/*.h cli/*.h cgi/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# The version, written once: the first line of debian/changelog
# (shared/verify/wh_version.h). Only wh_version.o is compiled with it.
WH_VERSION := $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog 2>/dev/null)
$(BUILD)/obj/shared/verify/wh_version.o: ALL_CFLAGS += -DWH_VERSION='"$(WH_VERSION)"'
$(BUILD)/obj/shared/verify/wh_version.o: $(wildcard debian/changelog)

$(LIB): $(CORE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(CLI): $(CLI_OBJ) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(PKG_LIBS) $(CURL_LIBS)

# Holds the last CGI_LINK (and whether DT_RELR is used), rewritten only when
# it changes: switching modes relinks the CGI, an unchanged mode leaves it
# alone.
$(BUILD)/obj/cgi-link: FORCE
	@mkdir -p $(dir $@)
	@echo '$(CGI_LINK) $(CGI_RELR)' | cmp -s - $@ || echo '$(CGI_LINK) $(CGI_RELR)' >$@
FORCE:

$(CGI_OBJ): ALL_CFLAGS += $(CGI_DEFS)
$(CGI_OBJ): $(BUILD)/obj/cgi-link

$(CGI): $(CGI_OBJ) $(LIB) $(BUILD)/obj/cgi-link cgi/dbd-exports.list
	$(CC) $(ALL_LDFLAGS) $(CGI_RELR) -o $@ $(CGI_OBJ) $(LIB) $(CGI_LIBS) || { \
	  echo "wirehook.cgi: linking with CGI_LINK=$(CGI_LINK) failed; static needs" \
	       "libcrypto.a, libjson-c.a, libapr-1.a, libaprutil-1.a, libcrypt.a and libuuid.a" \
	       "(Debian: libssl-dev, libjson-c-dev, libapr1-dev, libaprutil1-dev, libcrypt-dev, uuid-dev)," \
	       "or build with CGI_LINK=dynamic" >&2; exit 1; }

$(UNIT): $(UNIT_OBJ) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $(UNIT_OBJ) $(LIB) $(PKG_LIBS) -lcunit

include apxs.mk
# Further rule sets (bench, fuzz, install, ...) live beside the build
# helpers, one file each.
include $(wildcard build/*.mk)

unit: $(UNIT)
	WH_SHARED_DIR=$(SHARED_DIR) $(UNIT)

integration: all
	@if [ -x tests/integration/run.sh ]; then BUILD=$(BUILD) WH_SHARED_DIR=$(SHARED_DIR) tests/integration/run.sh; fi

# The README's test command: installs what is missing, builds, then runs
# the unit suites, the fuzz regressions and every integration suite against
# a real httpd on loopback, WH_JOBS at once (tests/integration/run.sh). It
# ends with the summed "N passed, N failed".
CHECK_BUILD_JOBS ?= -j2
check: deps test-deps
	$(MAKE) $(CHECK_BUILD_JOBS) all $(UNIT)
	BUILD=$(BUILD) WH_SHARED_DIR=$(SHARED_DIR) WH_UNIT=1 WH_FUZZ_REGRESS=1 MAKE="$(MAKE)" \
	  tests/integration/run.sh

# Unit suites under AddressSanitizer + UBSan in a separate build tree.
asan:
	$(MAKE) BUILD=$(BUILD)/asan SANITIZE="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" $(BUILD)/asan/unit_tests
	ASAN_OPTIONS=detect_leaks=1 WH_SHARED_DIR=$(SHARED_DIR) $(BUILD)/asan/unit_tests

valgrind: $(UNIT)
	WH_SHARED_DIR=$(SHARED_DIR) valgrind --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite \
	  --suppressions=build/valgrind.supp $(UNIT)

cppcheck:
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	  --inline-suppr --std=c11 -Ishared shared cli cgi mod_wirehook bench tests/fuzz

# The demo (CONTRIBUTING.md, "Start here"): a live httpd on loopback with
# the module in front of a sample app, good and bad events sent, answers
# shown.
demo: deps test-deps
	$(MAKE) all
	BUILD=$(BUILD) WH_SHARED_DIR=$(SHARED_DIR) build/demo.sh

clean:
	rm -rf $(BUILD)/obj $(BUILD)/asan $(LIB) $(CLI) $(CGI) $(UNIT) $(BUILD)/mod_wirehook.so $(BUILD)/mod
