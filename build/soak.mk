# `make soak` (not part of `make check`): the fault and abuse tests in soak
# mode (WH_SOAK=1: more rounds, five kill -9 of httpd per endpoint), the
# unit suites under valgrind and the fuzz regression replay; then
# docs/reliability.md from their figures and those of the last `make fuzz`;
# then the forwarding tests with the application down for a real 60 s.
# Exits non-zero when any of them failed (the document is written anyway).

.PHONY: soak
soak: all
	BUILD=$(BUILD) WH_SHARED_DIR=$(SHARED_DIR) MAKE="$(MAKE)" bash bench/reliability.sh; rc=$$?; \
	WH_SOAK=1 WH_ONLY=test_forward BUILD=$(BUILD) WH_SHARED_DIR=$(SHARED_DIR) \
	  bash tests/integration/run.sh || rc=1; exit $$rc
