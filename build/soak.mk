# `make soak` (not part of `make check`): the long runs.
#
# 1. The integration suites that have a size (tests/integration/lib.sh,
#    wh_size), at SOAK_SCALE times the size `make check` gives them: today
#    test_inbox_load.sh and test_inbox_pg.sh, 8 writers x 500 events with
#    10% racing duplicates per load (check: 8 x 100); test_replay_faults.sh,
#    the stores stalled for 70 s (check: 14 s), 500 events forwarded
#    through PostgreSQL's restart and crash (check: 100), its senders
#    pausing 0.04 s (check: 0.2 s); test_replay_cluster.sh, 750 ids sent
#    to both servers at once per shared store and 500 with a server
#    killed mid-burst (check: 150 and 100). A new sized suite adds its
#    name to SOAK_SUITES.
# 2. bench/reliability.sh: the fault and abuse tests in soak mode
#    (WH_SOAK=1: more rounds, five kill -9 of httpd per endpoint), the unit
#    suites under valgrind and the fuzz regression replay; then
#    docs/reliability.md from their figures and those of the last
#    `make fuzz`.
# 3. The forwarding tests with the application down for a real 60 s
#    (WH_SOAK=1; `make check` runs them with a shorter outage).
# Exits non-zero when any of them failed (the document is written anyway).
#
#   make soak SOAK_SCALE=10                    larger still
#   make soak SOAK_SUITES=test_inbox_pg        one sized suite (and step 2)
#   make soak-suites                           step 1 only

SOAK_SCALE  ?= 5
SOAK_SUITES ?= test_inbox_load test_inbox_pg test_replay_faults test_replay_cluster

.PHONY: soak soak-suites
soak-suites: all $(UNIT) $(TEST_APPS)
	BUILD=$(BUILD) WH_SHARED_DIR=$(SHARED_DIR) WH_SCALE=$(SOAK_SCALE) \
	  tests/integration/run.sh $(SOAK_SUITES)

soak: all $(UNIT) $(TEST_APPS)
	@rc=0; \
	$(MAKE) --no-print-directory soak-suites || rc=1; \
	BUILD=$(BUILD) WH_SHARED_DIR=$(SHARED_DIR) MAKE="$(MAKE)" bash bench/reliability.sh || rc=1; \
	WH_SOAK=1 BUILD=$(BUILD) WH_SHARED_DIR=$(SHARED_DIR) \
	  tests/integration/run.sh test_forward test_forward_pg || rc=1; \
	exit $$rc
