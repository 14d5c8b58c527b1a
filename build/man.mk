# mod_wirehook(8) is built: its list of configuration keys, with their
# defaults and bounds, is written from the keys' rows (`wirehook
# configtest --keys`) by build/man_keys.sh into man/mod_wirehook.8.in's
# place for it. A new key needs no edit of the page.
MAN8 := $(BUILD)/mod_wirehook.8

all: $(MAN8)

$(MAN8): man/mod_wirehook.8.in build/man_keys.sh $(CLI)
	build/man_keys.sh $(CLI) $< >$@.tmp
	mv $@.tmp $@

.PHONY: man-clean
clean: man-clean
man-clean:
	rm -f $(MAN8)
