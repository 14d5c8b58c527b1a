# make console-shots: runs the console's browser test, then copies the
# screenshots it made (build/console-shots/) into docs/console/.
.PHONY: console-shots
console-shots: all
	BUILD=$(BUILD) WH_SHARED_DIR=$(SHARED_DIR) tests/integration/run.sh test_console
	mkdir -p docs/console
	cp $(BUILD)/console-shots/operator-*.png docs/console/
