# make deb: the Debian packages (included by the top Makefile).
#
#   make deb          -> $(BUILD)/deb/libapache2-mod-wirehook_VERSION_ARCH.deb
#                        $(BUILD)/deb/wirehook_VERSION_ARCH.deb
#                        and the source package (.dsc, .tar.xz), .changes,
#                        .buildinfo, the -dbgsym packages and build.log
#   make deb-lintian  -> lintian --pedantic on them (no E: or W: expected)
#   make deb-clean    -> removes $(BUILD)/deb (make clean does too)
#
# The source tree (git's file list, or every file outside build/ and .git
# when this is no checkout) is copied to $(BUILD)/deb/src and built there
# with dpkg-buildpackage -us -uc (unsigned; root or not: the packages say
# Rules-Requires-Root: no), so debhelper's debian/.debhelper, debian/files
# and the staging trees never land in the source tree; the copy is removed
# after a successful build. debian/rules builds with dpkg-buildflags'
# hardening and CGI_LINK=dynamic, and runs the unit suites when
# SHARED_DIR has the test vectors (passed as WH_SHARED_DIR).
#
# A stamp makes a second `make deb` with nothing changed a no-op (the
# integration test reuses packages built earlier in the same run).

DEB_DIR   := $(BUILD)/deb
DEB_STAMP := $(DEB_DIR)/.stamp

.PHONY: deb deb-lintian deb-clean

# The file list is only worked out when a deb target is asked for.
ifneq ($(filter deb deb-lintian,$(MAKECMDGOALS)),)
DEB_FILES := $(shell git ls-files --cached --others --exclude-standard 2>/dev/null)
ifeq ($(strip $(DEB_FILES)),)
DEB_FILES := $(shell find . -path ./.git -prune -o -path ./build -prune -o -type f -print 2>/dev/null | sed 's|^\./||') \
             $(wildcard build/*.mk build/*.sh build/*.txt build/*.supp build/*.py)
endif
# files deleted but still in git's index are not copied
DEB_FILES := $(wildcard $(DEB_FILES))
endif

deb: $(DEB_STAMP)

$(DEB_STAMP): $(DEB_FILES)
	@command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null || \
	  { echo "make deb needs dpkg-dev and debhelper: run make deps" >&2; exit 1; }
	@test -n '$(BUILD)' || { echo 'make deb: BUILD is empty' >&2; exit 1; }
	rm -rf '$(DEB_DIR)'
	mkdir -p '$(DEB_DIR)/src'
	@echo "copying $(words $(DEB_FILES)) files to $(DEB_DIR)/src"
	@printf '%s\n' $(DEB_FILES) | tar -cf - --no-recursion -T - | tar -xf - -C '$(DEB_DIR)/src'
	cd '$(DEB_DIR)/src' && WH_SHARED_DIR='$(abspath $(SHARED_DIR))' \
	  dpkg-buildpackage -us -uc -J$$(nproc 2>/dev/null || echo 1) >../build.log 2>&1 || \
	  { tail -n 40 ../build.log >&2; echo "make deb: dpkg-buildpackage failed; the log is $(DEB_DIR)/build.log" >&2; exit 1; }
	rm -rf '$(DEB_DIR)/src'
	@ls -1 $(DEB_DIR)/*.deb
	@touch $@

deb-lintian: deb
	lintian --pedantic --info $(DEB_DIR)/*.changes

# make clean removes the packages too
clean: deb-clean
deb-clean:
	rm -rf '$(DEB_DIR)'
