# Fuzzing (tests/fuzz/): libFuzzer targets built with clang, ASan + UBSan,
# over the core sources compiled the same way.
#
#   make fuzz                 build every target, run each FUZZ_SECONDS (60)
#   make fuzz FUZZ_SECONDS=10 shorter; FUZZ_TARGETS="json verify" a subset
#   make fuzz-regress         re-run tests/fuzz/regressions/<target>/* and the
#                             seed corpora once, under valgrind (no clang
#                             needed); quick, meant for `make check`
#
# A crash fails `make fuzz` and leaves the input in
# $(BUILD)/fuzz/artifacts/<target>/; copy it into
# tests/fuzz/regressions/<target>/ once fixed so fuzz-regress keeps it fixed.

FUZZ_CC        ?= clang
FUZZ_SECONDS   ?= 60
FUZZ_DIR        = $(BUILD)/fuzz
FUZZ_SRC_DIR    = tests/fuzz
FUZZ_ALL       := config json parse verify pagination oracle
FUZZ_TARGETS   ?= $(FUZZ_ALL)
FUZZ_SAN        = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_BASE       = -std=c11 -D_GNU_SOURCE -g -O1 -Ishared -Itests $(PKG_CFLAGS)
# The core keeps gcc's -Werror; under clang its warnings are reported, not
# fatal (a clang-only warning in someone else's file must not stop fuzzing).
FUZZ_CORE_FLAGS = $(FUZZ_BASE) $(WARN) -Wno-error -fsanitize=fuzzer-no-link $(FUZZ_SAN)
FUZZ_TGT_FLAGS  = $(FUZZ_BASE) $(WARN) -fsanitize=fuzzer-no-link $(FUZZ_SAN)
FUZZ_CORE_OBJ   = $(CORE_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
# the test oracle (tests/oracle/) goes into the fuzzers' library too
FUZZ_ORACLE_OBJ = $(ORACLE_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_LIB        = $(FUZZ_DIR)/libwirehook-fuzz.a
FUZZ_HDRS       = $(wildcard shared/*/*.h tests/oracle/*.h) $(FUZZ_SRC_DIR)/fuzz_common.h
# Longest input per target: above every limit the code enforces (4 KiB
# Authorization, 8 KiB config line), below what makes runs crawl.
FUZZ_MAXLEN_config     = 20000
FUZZ_MAXLEN_json       = 16384
FUZZ_MAXLEN_parse      = 10000
FUZZ_MAXLEN_verify     = 16384
FUZZ_MAXLEN_pagination = 4096
FUZZ_MAXLEN_oracle     = 16384
FUZZ_ENV        = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1 \
                  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: fuzz fuzz-build fuzz-regress $(FUZZ_TARGETS:%=fuzz-run-%)

$(FUZZ_DIR)/obj/%.o: %.c $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(if $(filter shared/%,$<),$(FUZZ_CORE_FLAGS),$(FUZZ_TGT_FLAGS)) -c $< -o $@

$(FUZZ_LIB): $(FUZZ_CORE_OBJ) $(FUZZ_ORACLE_OBJ)
	rm -f $@
	ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/$(FUZZ_SRC_DIR)/fuzz_%.o $(FUZZ_LIB)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $< $(FUZZ_LIB) $(PKG_LIBS)

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)

# A target's dictionary is its file in tests/fuzz/; the configuration
# target's also gets every key's name and every enumerated value from the
# keys' rows (`wirehook configtest --keys`), so a new key is fuzzed
# without an edit here.
$(FUZZ_DIR)/config.dict: $(CLI)
$(FUZZ_DIR)/%.dict: $(FUZZ_SRC_DIR)/%.dict
	@mkdir -p $(dir $@)
	cp $< $@
	if [ "$*" = config ]; then \
	  $(CLI) configtest --keys | awk -F'\t' '{ print "\"" $$1 " \"" } \
	    $$2 == "enum" || $$2 == "flag" { n = split($$5, v, "|"); \
	      for (i = 1; i <= n; i++) print "\"" v[i] "\"" }' >>$@; fi

# The differential target reads bodies, as the json target does.
$(FUZZ_DIR)/oracle.dict: $(FUZZ_SRC_DIR)/json.dict
	@mkdir -p $(dir $@)
	cp $< $@

# Each run grows a working corpus under $(BUILD) seeded from the repo's
# corpus (which it never writes to), so runs build on each other.
$(FUZZ_TARGETS:%=fuzz-run-%): fuzz-run-%: $(FUZZ_DIR)/fuzz_% $(FUZZ_DIR)/%.dict
	@mkdir -p $(FUZZ_DIR)/corpus/$* $(FUZZ_DIR)/artifacts/$*
	@echo "fuzz $*: $(FUZZ_SECONDS) s"
	@$(FUZZ_ENV) $< -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	  -max_len=$(FUZZ_MAXLEN_$*) -print_final_stats=1 \
	  -dict=$(FUZZ_DIR)/$*.dict \
	  -artifact_prefix=$(FUZZ_DIR)/artifacts/$*/ \
	  $(FUZZ_DIR)/corpus/$* $(FUZZ_SRC_DIR)/corpus/$* \
	  $(wildcard $(FUZZ_SRC_DIR)/regressions/$*) >$(FUZZ_DIR)/$*.log 2>&1 \
	  || { tail -n 80 $(FUZZ_DIR)/$*.log; \
	       echo "fuzz $*: FAILED, reproducer(s):" $(FUZZ_DIR)/artifacts/$*/*; exit 1; }
	@awk '/stat::number_of_executed_units/ {e=$$2} /stat::peak_rss_mb/ {r=$$2} \
	  END {printf "fuzz %s: %s execs, 0 crashes, peak RSS %s MB, corpus %s inputs\n", \
	  "$*", e, r, "'"$$(ls $(FUZZ_DIR)/corpus/$* | wc -l)"'"}' $(FUZZ_DIR)/$*.log \
	  | tee $(FUZZ_DIR)/$*.summary

fuzz: $(FUZZ_TARGETS:%=fuzz-run-%)
	@cat $(FUZZ_TARGETS:%=$(FUZZ_DIR)/%.summary)

# ---- regression re-runs without clang -----------------------------------
# make check's build of the core and oracle (no second, sanitized build of
# the core on every contributor's run), each target's inputs in one
# process under valgrind: invalid reads and definite leaks still fail it.
# `make fuzz` replays the same inputs under ASan+UBSan in CI.
FUZZ_RG_DIR   = $(BUILD)/fuzz-regress
FUZZ_RG_VG    = valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite \
                --suppressions=build/valgrind.supp

$(BUILD)/obj/$(FUZZ_SRC_DIR)/%.o: ALL_CFLAGS += -Itests
$(BUILD)/obj/$(FUZZ_SRC_DIR)/%.o: $(FUZZ_SRC_DIR)/fuzz_common.h

$(FUZZ_RG_DIR)/fuzz_%: $(BUILD)/obj/$(FUZZ_SRC_DIR)/fuzz_%.o $(BUILD)/obj/$(FUZZ_SRC_DIR)/regress_main.o $(ORACLE_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(PKG_LIBS)

fuzz-regress: $(FUZZ_ALL:%=$(FUZZ_RG_DIR)/fuzz_%)
	@for t in $(FUZZ_ALL); do \
	  dirs=""; \
	  for d in $(FUZZ_SRC_DIR)/regressions/$$t $(FUZZ_SRC_DIR)/corpus/$$t; do \
	    [ -d $$d ] && dirs="$$dirs $$d"; \
	  done; \
	  [ -n "$$dirs" ] || continue; \
	  $(FUZZ_RG_VG) $(FUZZ_RG_DIR)/fuzz_$$t $$dirs || exit 1; \
	done
