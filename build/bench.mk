# `make bench` (never part of `make check`): builds the project and the
# bench tools, runs bench/run.sh, prints the table and rewrites
# docs/benchmarks.md. BENCH_SECTIONS="core inbox" etc. runs a subset; see
# bench/run.sh for the other knobs.

BENCH_DIR     = $(BUILD)/bench
BENCH_CFLAGS  = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -Ishared $(PKG_CFLAGS)
BENCH_TOOLS   = $(BENCH_DIR)/bench_core $(BENCH_DIR)/bench_inbox $(BENCH_DIR)/bench_gen \
                $(BENCH_DIR)/min.cgi $(BENCH_DIR)/floor.cgi $(BENCH_DIR)/mod_benchok.so

.PHONY: bench bench-tools bench-node

$(BENCH_DIR)/bench_%: bench/bench_%.c bench/bench_util.c bench/bench_util.h bench/floor_json.h bench/floor_mac.h $(LIB) $(wildcard shared/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $< bench/bench_util.c $(LIB) $(PKG_LIBS)

$(BENCH_DIR)/min.cgi: bench/min_cgi.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -o $@ $<

$(BENCH_DIR)/floor.cgi: bench/floor_cgi.c bench/floor_mac.h $(BUILD)/obj/cgi-link $(CGI_MODE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(ALL_LDFLAGS) $(CGI_RELR) -o $@ $< $(CGI_FLOOR_LIBS)

# apxs builds in place: compile a copy in the bench dir
$(BENCH_DIR)/mod_benchok.so: bench/mod_benchok.c bench/floor_mac.h bench/floor_json.h
	@test -n "$(APXS)" || { echo "apxs not found: run make deps" >&2; exit 1; }
	@mkdir -p $(BENCH_DIR)/mod
	cp $< bench/floor_mac.h bench/floor_json.h $(BENCH_DIR)/mod/
	cd $(BENCH_DIR)/mod && $(APXS) -c -o mod_benchok.la -Wc,-std=c11 \
	  $(foreach w,$(WARN),-Wc,$(w)) -Wc,-Wno-strict-prototypes mod_benchok.c -lcrypto -ljson-c >apxs.log 2>&1 \
	  || { cat apxs.log >&2; exit 1; }
	cp $(BENCH_DIR)/mod/.libs/mod_benchok.so $@

bench-tools: $(BENCH_TOOLS)

# The Node receiver's dependencies (ajv, ajv-formats, bcryptjs) from the
# committed lock file, into $(BENCH_DIR)/node_modules. Never fatal: without
# npm (or the registry) the bench's node section is skipped with a note.
# The lock file names no registry host: npm ci takes the configured one.
$(BENCH_DIR)/node_modules/.package-lock.json: bench/receivers/package.json bench/receivers/package-lock.json
	@mkdir -p $(BENCH_DIR)
	cp bench/receivers/package.json bench/receivers/package-lock.json $(BENCH_DIR)/
	cd $(BENCH_DIR) && npm ci --no-audit --no-fund --loglevel=error >npm.log 2>&1 \
	  || { echo "npm ci failed (see $(BENCH_DIR)/npm.log): the node section will be skipped" >&2; rm -rf node_modules; }

bench-node: $(BENCH_DIR)/node_modules/.package-lock.json

bench: all bench-tools bench-node
	BUILD=$(BUILD) WH_SHARED_DIR=$(SHARED_DIR) BENCH_DIR=$(BENCH_DIR) bash bench/run.sh
