# wirehook — top-level build. Everything lands in $(BUILD)/.
# Sources are picked up by directory, so adding a file needs no edit here.

BUILD      ?= build
SHARED_DIR ?= ../shared
CC         ?= cc
PKGS        = apr-1 apr-util-1 json-c openssl lmdb hiredis libmemcached
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

# How wirehook.cgi is linked (the module and the CLI are always dynamic).
# static, the default: one self-contained file with no shared library at
# all (ldd: "not a dynamic executable"), which shared hosting can copy
# anywhere, and nothing to load or resolve at the start of a process that
# serves one request. It is static glibc, not musl: the SQLite inbox's
# writers' queue is a glibc pthread mutex in a file shared with the
# dynamic module and CLI. What it carries comes from Debian: libc.a,
# libcrypto.a, libjson-c.a, libapr-1.a, libsqlite3.a, libcrypt.a, and
# APR-util rebuilt from Debian's source package with its SQLite driver
# built in (build/static-deps.sh, once per version, into STATIC_PREFIX;
# `make clean` leaves it). Nothing in it loads a shared object or asks
# NSS: the functions that would are mapped to failing ones
# (cgi/static/no_nss_dl.c, ld --wrap), the link stops on glibc's warning
# for any new one (--fatal-warnings), and cgi/static/ gives the core its
# SQLite functions and /etc/passwd and /etc/group lookups directly. No
# PostgreSQL inbox (libpq needs NSS and shared libraries). Not PIE:
# -static-pie would keep the code's address random, but ldd could not
# tell such a file from a broken one; stack, heap and mmap stay random.
# The price of carrying libraries: their security updates reach the CGI
# only by rebuilding it (`wirehook.cgi --version` names what it carries).
# dynamic: everything shared, apr_dbd loads its drivers (PostgreSQL
# too); the Debian package builds this (Policy 4.13).
CGI_LINK   ?= static
STATIC_PREFIX ?= $(BUILD)/static
# libfcgi (Debian's libfcgi-dev, no pkg-config file): the FastCGI
# protocol for a CGI started by mod_fcgid (cgi/cgi_fastcgi.c).
CGI_DYN_LIBS = $(shell pkg-config --libs apr-1 apr-util-1 json-c libcrypto 2>/dev/null) -lfcgi
# Compact relative relocations (DT_RELR, binutils 2.38 + glibc 2.36) for a
# dynamic CGI: the loader reads a small table at each start instead of a
# large one. Left out where the toolchain lacks it.
CGI_DYN_RELR := $(shell printf 'int main(void){return 0;}' | $(CC) -x c - -o /dev/null \
                -Wl,--fatal-warnings -Wl,-z,pack-relative-relocs 2>/dev/null \
                && echo -Wl,-z,pack-relative-relocs)
ifeq ($(CGI_LINK),static)
CGI_DEFS    = -DWH_CGI_SELF_CONTAINED
CGI_MODE_SRC := $(wildcard cgi/static/*.c)
CGI_NO_NSS_DL := $(patsubst __wrap_%,%,$(shell grep -o '__wrap_[a-z_]*' cgi/static/no_nss_dl.c | sort -u))
CGI_STATIC_LDFLAGS = -static -L$(STATIC_PREFIX)/lib $(CGI_NO_NSS_DL:%=-Wl,--wrap=%) -Wl,--fatal-warnings
# build/static-deps.sh's stamp, named after the Debian version of
# APR-util: an update of libaprutil1-dev rebuilds it, then the CGI.
CGI_STATIC_DEP := $(STATIC_PREFIX)/.apr-util-$(shell dpkg-query -W -f='$${source:Version}' \
                    libaprutil1-dev 2>/dev/null | tr : _)
CGI_LIBS    = $(CGI_STATIC_LDFLAGS) -laprutil-1 -lapr-1 -lsqlite3 -lcrypt -ljson-c -lcrypto -lfcgi -lm -pthread
# The Debian packages whose .a files (and APR-util's source) go into the
# CGI: `wirehook.cgi --version` names them, and a change of one rebuilds
# the CGI at the next make (through $(BUILD)/obj/cgi-link).
CGI_BUILT_FROM := $(shell dpkg-query -W -f='$${Package}=$${Version} ' libssl-dev libjson-c-dev \
                    libapr1-dev libaprutil1-dev libsqlite3-dev libcrypt-dev libfcgi-dev libc6-dev 2>/dev/null)
# bench/floor_cgi.c, linked the same way (build/bench.mk)
CGI_FLOOR_LIBS = $(CGI_STATIC_LDFLAGS) $(BUILD)/obj/cgi/static/no_nss_dl.o \
              -lsqlite3 -ljson-c -lcrypto -lm -pthread
CGI_RELR    =
# The same CGI linked dynamically, beside the self-contained one: what
# `make check` runs against PostgreSQL. Only the CGI's own objects are
# compiled again; the core library is the same.
CGI_TWIN    = $(BUILD)/cgi-dynamic/wirehook.cgi
else ifeq ($(CGI_LINK),dynamic)
CGI_DEFS    =
CGI_BUILT_FROM =
CGI_MODE_SRC :=
CGI_STATIC_DEP =
CGI_LIBS    = $(CGI_DYN_LIBS)
CGI_FLOOR_LIBS = $(shell pkg-config --libs json-c libcrypto 2>/dev/null) -lsqlite3
CGI_RELR    = $(CGI_DYN_RELR)
CGI_TWIN    =
else
$(error CGI_LINK must be static or dynamic, not '$(CGI_LINK)')
endif

CORE_SRC   := $(wildcard shared/*/*.c)
CORE_OBJ   := $(CORE_SRC:%.c=$(BUILD)/obj/%.o)
CLI_SRC    := $(wildcard cli/*.c)
CLI_OBJ    := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
CGI_SRC    := $(wildcard cgi/*.c)
CGI_OBJ    := $(CGI_SRC:%.c=$(BUILD)/obj/%.o)
CGI_MODE_OBJ := $(CGI_MODE_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_SRC   := $(wildcard tests/unit/*.c)
UNIT_OBJ   := $(UNIT_SRC:%.c=$(BUILD)/obj/%.o)
# The test oracle (tests/oracle/): linked into the tests, never into wirehook.
ORACLE_SRC := $(wildcard tests/oracle/*.c)
ORACLE_OBJ := $(ORACLE_SRC:%.c=$(BUILD)/obj/%.o)

LIB        := $(BUILD)/libwirehook.a
CLI        := $(BUILD)/wirehook
CGI        := $(BUILD)/wirehook.cgi
UNIT       := $(BUILD)/unit_tests
# programs the integration suites run (tests/integration/app/*.c)
TEST_APPS  := $(BUILD)/test-bin/record.cgi

.PHONY: all deps test-deps check check-package unit test-apps integration demo asan valgrind cppcheck clean bench fuzz soak install uninstall
all: $(LIB) $(CLI) $(if $(CGI_SRC),$(CGI)) module

# What building needs (make all, make deb); test-deps: what make check's
# suites need besides (httpd, databases, valgrind, ...).
deps:
	@build/deps.sh

test-deps:
	@build/deps.sh --test

$(BUILD)/obj/%.o: %.c $(wildcard shared/*/*.h cli/*.h cgi/*.h tests/unit/*.h tests/oracle/*.h)
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

# Holds the last CGI_LINK (whether DT_RELR is used, the packages the
# self-contained CGI is built from), rewritten only when
# it changes: switching modes relinks the CGI, an unchanged mode leaves it
# alone.
$(BUILD)/obj/cgi-link: FORCE
	@mkdir -p $(dir $@)
	@echo '$(CGI_LINK) $(CGI_RELR) $(CGI_BUILT_FROM)' | cmp -s - $@ || \
	  echo '$(CGI_LINK) $(CGI_RELR) $(CGI_BUILT_FROM)' >$@
FORCE:

$(CGI_OBJ) $(CGI_MODE_OBJ): ALL_CFLAGS += $(CGI_DEFS)
$(BUILD)/obj/cgi/cgi_version.o: ALL_CFLAGS += -DWH_CGI_BUILT_FROM='"$(strip $(CGI_BUILT_FROM))"'
$(CGI_OBJ) $(CGI_MODE_OBJ): $(BUILD)/obj/cgi-link

# APR-util with its SQLite driver built in, for CGI_LINK=static: built
# once per Debian version of it, and never removed by make clean.
$(STATIC_PREFIX)/.apr-util-%:
	@build/static-deps.sh '$(STATIC_PREFIX)'

# The CGI's own objects come first: cgi/static/ defines functions the core
# otherwise takes from libwirehook.a (whose versions ask NSS or dlsym).
$(CGI): $(CGI_OBJ) $(CGI_MODE_OBJ) $(LIB) $(BUILD)/obj/cgi-link $(CGI_STATIC_DEP)
	$(CC) $(ALL_LDFLAGS) $(CGI_RELR) -o $@ $(CGI_OBJ) $(CGI_MODE_OBJ) $(LIB) $(CGI_LIBS) || { \
	  echo "wirehook.cgi: linking with CGI_LINK=$(CGI_LINK) failed; static needs libc.a, libcrypto.a," \
	       "libjson-c.a, libapr-1.a, libsqlite3.a, libcrypt.a (Debian: libc6-dev, libssl-dev," \
	       "libjson-c-dev, libapr1-dev, libsqlite3-dev, libcrypt-dev) and $(STATIC_PREFIX)" \
	       "(build/static-deps.sh); a glibc warning above names a function that needs NSS or" \
	       "dlopen (map it in cgi/static/no_nss_dl.c); or build with CGI_LINK=dynamic" >&2; exit 1; }

CGI_TWIN_OBJ := $(CGI_SRC:cgi/%.c=$(BUILD)/obj/cgi-dynamic/%.o)
$(BUILD)/obj/cgi-dynamic/%.o: cgi/%.c $(wildcard shared/*/*.h cgi/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@
$(BUILD)/cgi-dynamic/wirehook.cgi: $(CGI_TWIN_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) $(CGI_DYN_RELR) -o $@ $(CGI_TWIN_OBJ) $(LIB) $(CGI_DYN_LIBS)

$(UNIT_OBJ) $(ORACLE_OBJ): ALL_CFLAGS += -Itests
$(UNIT): $(UNIT_OBJ) $(ORACLE_OBJ) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $(UNIT_OBJ) $(ORACLE_OBJ) $(LIB) $(PKG_LIBS) -lcunit

include apxs.mk
# Further rule sets (bench, fuzz, install, ...) live beside the build
# helpers, one file each.
include $(wildcard build/*.mk)

unit: $(UNIT)
	WH_SHARED_DIR=$(SHARED_DIR) $(UNIT)

test-apps: $(TEST_APPS)
$(BUILD)/test-bin/%.cgi: tests/integration/app/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -o $@ $<

integration: all $(CGI_TWIN) $(TEST_APPS)
	@if [ -x tests/integration/run.sh ]; then BUILD=$(BUILD) WH_SHARED_DIR=$(SHARED_DIR) \
	  CGI_LINK=$(CGI_LINK) tests/integration/run.sh; fi

# The README's test command: installs what is missing, builds, then runs
# the unit suites, the fuzz regressions and every integration suite against
# a real httpd on loopback, WH_JOBS at once (tests/integration/run.sh). It
# ends with what skipped and why, then the summed "N passed, N failed,
# N skipped" (WH_FAIL_ON_SKIP=1: a skip fails it, as on CI).
CHECK_BUILD_JOBS ?= -j2
check: deps test-deps
	$(MAKE) $(CHECK_BUILD_JOBS) all $(UNIT) $(CGI_TWIN) $(TEST_APPS)
	BUILD=$(BUILD) WH_SHARED_DIR=$(SHARED_DIR) WH_UNIT=1 WH_FUZZ_REGRESS=1 MAKE="$(MAKE)" \
	  CGI_LINK=$(CGI_LINK) tests/integration/run.sh

# The suites marked "# wh-package" (test_deb, test_walkthrough): the
# Debian packages built from a copy of the tree, lintian, installed into
# the system's apache2 and purged. Minutes of compiling, so not part of
# make check; .ci/run runs both.
check-package: deps test-deps
	$(MAKE) $(CHECK_BUILD_JOBS) all $(TEST_APPS)
	BUILD=$(BUILD) WH_SHARED_DIR=$(SHARED_DIR) WH_PACKAGES=only MAKE="$(MAKE)" \
	  CGI_LINK=$(CGI_LINK) tests/integration/run.sh

# Unit suites under AddressSanitizer + UBSan in a separate build tree, and
# under valgrind: all but the suites that need a server (PostgreSQL,
# redis, memcached), which make check runs in the integration suites that
# start one; the run names them.
UNIT_SANITIZED_ARGS = --without-servers
asan:
	$(MAKE) BUILD=$(BUILD)/asan SANITIZE="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" $(BUILD)/asan/unit_tests
	ASAN_OPTIONS=detect_leaks=1 WH_SHARED_DIR=$(SHARED_DIR) $(BUILD)/asan/unit_tests $(UNIT_SANITIZED_ARGS)

valgrind: $(UNIT)
	WH_SHARED_DIR=$(SHARED_DIR) valgrind --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite \
	  --suppressions=build/valgrind.supp $(UNIT) $(UNIT_SANITIZED_ARGS)

cppcheck:
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	  --inline-suppr --std=c11 -Ishared -Itests shared cli cgi mod_wirehook bench tests/fuzz tests/oracle tests/integration/app

# The demo (CONTRIBUTING.md, "Start here"): a live httpd on loopback with
# the module in front of a sample app, good and bad events sent, answers
# shown.
demo: deps test-deps
	$(MAKE) all
	BUILD=$(BUILD) WH_SHARED_DIR=$(SHARED_DIR) build/demo.sh

clean:
	rm -rf $(BUILD)/obj $(BUILD)/asan $(LIB) $(CLI) $(CGI) $(UNIT) $(BUILD)/mod_wirehook.so $(BUILD)/mod \
	  $(BUILD)/cgi-dynamic
