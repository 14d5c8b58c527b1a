# The Apache module, built with apxs against the core library.
APXS       ?= $(shell command -v apxs 2>/dev/null || command -v apxs2 2>/dev/null)
MOD_SRC    := $(wildcard mod_wirehook/*.c)
MOD        := $(BUILD)/mod_wirehook.so
MOD_WORK   := $(BUILD)/mod

.PHONY: module
module: $(if $(MOD_SRC),$(MOD))

# The default replay store's file (ReplayCache lmdb without a path):
# empty, DefaultRuntimeDir/wirehook-replay.mdb; the Debian packages set
# /var/lib/wirehook/replay. Written into wh_mod_build.h, which changes
# (and rebuilds the module) only when the setting does.
REPLAY_DEFAULT ?=
$(BUILD)/obj/wh_mod_build.h: FORCE
	@mkdir -p $(dir $@)
	@printf '#define WH_REPLAY_DEFAULT_PATH "%s"\n' '$(REPLAY_DEFAULT)' | cmp -s - $@ \
	  || printf '#define WH_REPLAY_DEFAULT_PATH "%s"\n' '$(REPLAY_DEFAULT)' >$@

# apxs compiles in place, so sources are copied into a work dir first; the
# core is linked statically so the module has no runtime dependency on it.
$(MOD): $(MOD_SRC) $(wildcard mod_wirehook/*.h) $(LIB) $(BUILD)/obj/wh_mod_build.h
	@test -n "$(APXS)" || { echo "apxs not found: run make deps" >&2; exit 1; }
	@mkdir -p $(MOD_WORK)
	cp $(MOD_SRC) $(wildcard mod_wirehook/*.h) $(BUILD)/obj/wh_mod_build.h $(MOD_WORK)/
	cd $(MOD_WORK) && $(APXS) -c -o mod_wirehook.la \
	  -Wc,-std=c11 -Wc,-D_GNU_SOURCE $(foreach w,$(WARN),-Wc,$(w)) -Wc,-Wno-strict-prototypes \
	  -I$(CURDIR)/shared $(PKG_CFLAGS) \
	  $(notdir $(MOD_SRC)) $(abspath $(LIB)) $(PKG_LIBS) >apxs.log 2>&1 \
	  || { cat apxs.log >&2; exit 1; }
	cp $(MOD_WORK)/.libs/mod_wirehook.so $@

