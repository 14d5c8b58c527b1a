# make console-shots: runs the console's browser test, then copies the
# screenshots it made (build/console-shots/) into docs/console/, each
# reduced to a palette by pngquant (Debian's pngquant) so that the
# committed images stay small.
.PHONY: console-shots
console-shots: all $(TEST_APPS)
	@command -v pngquant >/dev/null || { echo "console-shots needs pngquant (apt-get install pngquant)" >&2; exit 1; }
	BUILD=$(BUILD) WH_SHARED_DIR=$(SHARED_DIR) tests/integration/run.sh test_console
	mkdir -p docs/console
	for f in $(BUILD)/console-shots/operator-*.png; do \
	  pngquant --quality=70-95 --speed 1 --strip --force --output docs/console/$${f##*/} $$f || exit 1; \
	done
