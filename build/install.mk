# make install / make uninstall (included by the top Makefile).
#
#   make install   [DESTDIR=/stage] [PREFIX=/usr/local] [other dirs below]
#   make uninstall [the same variables]
#
# What goes where (defaults for Debian's apache2 with PREFIX=/usr/local):
#
#   $(MODULEDIR)/mod_wirehook.so        /usr/lib/apache2/modules  (apxs -q LIBEXECDIR)
#   $(BINDIR)/wirehook                  $(PREFIX)/bin
#   $(PKGDATADIR)/wirehook.cgi          $(PREFIX)/share/wirehook
#   $(MANDIR)/man1/wirehook.1           $(PREFIX)/share/man
#   $(MANDIR)/man8/mod_wirehook.8
#   $(DOCDIR)/README.md, CONTRIBUTING.md   $(PREFIX)/share/doc/wirehook
#   $(DOCDIR)/docs/...                 every file under docs/ (pages, images)
#   $(DOCDIR)/examples/NAME/...         every file under examples/
#     (the source tree's layout, so every link between them works)
#   $(SYSTEMDUNITDIR)/wirehook-forward@.service   $(PREFIX)/lib/systemd/system
#                                       (examples/forward's, naming $(BINDIR))
#   Debian layout only:
#   $(APACHE_CONFDIR)/mods-available/wirehook.load   LoadModule + "# Depends:"
#   $(APACHE_CONFDIR)/mods-available/wirehook.conf   a commented example
#
# so that `a2enmod wirehook` (which also enables socache_dbm, for
# ReplayCache dbm) and a restart are all that is left to do. Nothing is
# enabled, no httpd.conf is edited, no service is restarted.
#
# The module is copied with `install -m 644`, not `apxs -i`: apxs -i goes
# through libtool and a .la file, has no DESTDIR (only -S LIBEXECDIR=...,
# which it also writes into httpd.conf with -a), and build/mod_wirehook.so
# is already the finished shared object. MODULEDIR comes from apxs; without
# apxs give it yourself: make install MODULEDIR=/usr/lib/httpd/modules.
#
# Debian layout: DEBIAN_LAYOUT=auto (default) means yes when
# $(APACHE_CONFDIR)/mods-available exists on this machine or APACHE_CONFDIR
# is /etc/apache2; DEBIAN_LAYOUT=yes / no forces it. Without it, install
# prints the LoadModule line to add to httpd.conf.
#
# wirehook.conf in mods-available is a configuration file: an existing one
# is never overwritten, and uninstall removes it only when it is still
# byte-identical to the shipped one. Everything else install put is
# removed by uninstall, and only that (plus wirehook's own directories
# when they are empty).

PREFIX         ?= /usr/local
BINDIR         ?= $(PREFIX)/bin
DATAROOTDIR    ?= $(PREFIX)/share
PKGDATADIR     ?= $(DATAROOTDIR)/wirehook
MANDIR         ?= $(DATAROOTDIR)/man
DOCDIR         ?= $(DATAROOTDIR)/doc/wirehook
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
DEBIAN_LAYOUT  ?= auto
INSTALL        ?= install

# Asked of apxs only when install/uninstall runs (then once): recursive
# variables that replace themselves with their value on first use.
MODULEDIR      ?= $(eval MODULEDIR := $(call wh_apxs_q,LIBEXECDIR))$(MODULEDIR)
APACHE_CONFDIR ?= $(eval APACHE_CONFDIR := $(call wh_apxs_q,SYSCONFDIR))$(APACHE_CONFDIR)
wh_apxs_q       = $(if $(APXS),$(shell $(APXS) -q $(1) 2>/dev/null))

WH_INST_EXAMPLES = $(shell find examples -type f ! -name '*~' ! -name '.*.swp' 2>/dev/null | LC_ALL=C sort)
WH_INST_DOCS     = $(shell find docs -type f ! -name '*~' ! -name '.*.swp' 2>/dev/null | LC_ALL=C sort)
WH_INST_TOPDOCS  = $(wildcard README.md CONTRIBUTING.md)
WH_INST_MAN1     = $(wildcard man/*.1)
# mod_wirehook(8) is built from man/mod_wirehook.8.in (build/man.mk)
WH_INST_MAN8     = $(BUILD)/mod_wirehook.8
WH_INST_CGI      = $(if $(CGI_SRC),$(CGI))
WH_INST_MOD      = $(if $(MOD_SRC),$(MOD))
WH_MODAVAIL      = $(APACHE_CONFDIR)/mods-available
WH_UNIT          = wirehook-forward@.service
# yes/no, decided once per make run
WH_DEBIAN        = $(eval WH_DEBIAN := $(call wh_debian_layout))$(WH_DEBIAN)
wh_debian_layout = $(strip $(if $(filter yes no,$(DEBIAN_LAYOUT)),$(DEBIAN_LAYOUT),\
                     $(if $(filter /etc/apache2 /etc/apache2/,$(APACHE_CONFDIR)),yes,\
                       $(if $(wildcard $(APACHE_CONFDIR)/mods-available/.),yes,no))))

.PHONY: install uninstall install-check-dirs

install-check-dirs:
	@test -n "$(MODULEDIR)" || { echo "install: apxs not found: run make deps, or give MODULEDIR=/path/to/httpd/modules" >&2; exit 1; }
	@if [ "$(WH_DEBIAN)" = yes ] && [ -z "$(APACHE_CONFDIR)" ]; then \
	  echo "install: DEBIAN_LAYOUT needs APACHE_CONFDIR (apxs -q SYSCONFDIR)" >&2; exit 1; fi

install: all install-check-dirs
	$(INSTALL) -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(PKGDATADIR)'
	$(INSTALL) -m 755 $(CLI) '$(DESTDIR)$(BINDIR)/wirehook'
ifneq ($(MOD_SRC),)
	$(INSTALL) -d '$(DESTDIR)$(MODULEDIR)'
	$(INSTALL) -m 644 $(MOD) '$(DESTDIR)$(MODULEDIR)/mod_wirehook.so'
endif
ifneq ($(CGI_SRC),)
	$(INSTALL) -m 755 $(CGI) '$(DESTDIR)$(PKGDATADIR)/wirehook.cgi'
endif
	@set -e; made=; for f in $(WH_INST_EXAMPLES); do \
	  d='$(DESTDIR)$(DOCDIR)'/"$${f%/*}"; \
	  [ "$$d" = "$$made" ] || { $(INSTALL) -d "$$d"; made=$$d; }; \
	  mode=644; [ -x "$$f" ] && mode=755; \
	  $(INSTALL) -m $$mode "$$f" "$$d/"; \
	  echo "  $(DOCDIR)/$$f"; \
	done
ifneq ($(strip $(WH_INST_MAN1)),)
	$(INSTALL) -d '$(DESTDIR)$(MANDIR)/man1'
	$(INSTALL) -m 644 $(WH_INST_MAN1) '$(DESTDIR)$(MANDIR)/man1/'
endif
ifneq ($(strip $(WH_INST_MAN8)),)
	$(INSTALL) -d '$(DESTDIR)$(MANDIR)/man8'
	$(INSTALL) -m 644 $(WH_INST_MAN8) '$(DESTDIR)$(MANDIR)/man8/'
endif
	$(INSTALL) -d '$(DESTDIR)$(DOCDIR)'
ifneq ($(strip $(WH_INST_TOPDOCS)),)
	$(INSTALL) -m 644 $(WH_INST_TOPDOCS) '$(DESTDIR)$(DOCDIR)/'
endif
	@set -e; made=; for f in $(WH_INST_DOCS); do \
	  d='$(DESTDIR)$(DOCDIR)'/"$${f%/*}"; \
	  [ "$$d" = "$$made" ] || { $(INSTALL) -d "$$d"; made=$$d; }; \
	  $(INSTALL) -m 644 "$$f" "$$d/"; \
	done
	@set -e; $(INSTALL) -d '$(DESTDIR)$(SYSTEMDUNITDIR)'; \
	tmp=$$(mktemp); trap 'rm -f "$$tmp"' EXIT; \
	sed 's|/usr/bin/wirehook |$(BINDIR)/wirehook |' 'examples/forward/$(WH_UNIT)' >"$$tmp"; \
	$(INSTALL) -m 644 "$$tmp" '$(DESTDIR)$(SYSTEMDUNITDIR)/$(WH_UNIT)'; \
	echo "  $(SYSTEMDUNITDIR)/$(WH_UNIT)"
	@set -e; if [ "$(WH_DEBIAN)" = yes ]; then \
	  $(INSTALL) -d '$(DESTDIR)$(WH_MODAVAIL)'; \
	  tmp=$$(mktemp); trap 'rm -f "$$tmp"' EXIT; \
	  printf '%s\n' $(WH_LOAD_LINES) >"$$tmp"; \
	  $(INSTALL) -m 644 "$$tmp" '$(DESTDIR)$(WH_MODAVAIL)/wirehook.load'; \
	  echo "  $(WH_MODAVAIL)/wirehook.load"; \
	  printf '%s\n' $(WH_CONF_LINES) >"$$tmp"; \
	  if [ -e '$(DESTDIR)$(WH_MODAVAIL)/wirehook.conf' ] && \
	     ! cmp -s "$$tmp" '$(DESTDIR)$(WH_MODAVAIL)/wirehook.conf'; then \
	    echo "  $(WH_MODAVAIL)/wirehook.conf exists and was changed: kept as it is"; \
	  else \
	    $(INSTALL) -m 644 "$$tmp" '$(DESTDIR)$(WH_MODAVAIL)/wirehook.conf'; \
	    echo "  $(WH_MODAVAIL)/wirehook.conf"; \
	  fi; \
	  echo "installed. Enable the module with: a2enmod wirehook && systemctl restart apache2"; \
	else \
	  echo "installed. Load the module in httpd.conf with:"; \
	  echo "  LoadModule wirehook_module $(MODULEDIR)/mod_wirehook.so"; \
	  echo "  (and mod_socache_dbm only for ReplayCache dbm: the default, lmdb, is built in)"; \
	fi

uninstall: install-check-dirs
	rm -f '$(DESTDIR)$(BINDIR)/wirehook'
	rm -f '$(DESTDIR)$(SYSTEMDUNITDIR)/$(WH_UNIT)'
	rm -f '$(DESTDIR)$(MODULEDIR)/mod_wirehook.so'
	rm -f '$(DESTDIR)$(PKGDATADIR)/wirehook.cgi'
	@set -e; for f in $(WH_INST_EXAMPLES); do rm -f '$(DESTDIR)$(DOCDIR)'/"$$f"; done; \
	for d in $$(for f in $(WH_INST_EXAMPLES); do echo "$${f%/*}"; done | sort -ru); do \
	  while [ "$$d" != . ] && rmdir '$(DESTDIR)$(DOCDIR)'/"$$d" 2>/dev/null; do \
	    case "$$d" in */*) d=$${d%/*} ;; *) d=. ;; esac; done; \
	done
	rm -f $(foreach f,$(WH_INST_MAN1),'$(DESTDIR)$(MANDIR)/man1/$(notdir $(f))') \
	      $(foreach f,$(WH_INST_MAN8),'$(DESTDIR)$(MANDIR)/man8/$(notdir $(f))') \
	      $(foreach f,$(WH_INST_DOCS),'$(DESTDIR)$(DOCDIR)/$(f)') \
	      $(foreach f,$(WH_INST_TOPDOCS),'$(DESTDIR)$(DOCDIR)/$(f)')
	-@for d in $$(for f in $(WH_INST_DOCS); do echo "$${f%/*}"; done | sort -ru); do \
	  rmdir '$(DESTDIR)$(DOCDIR)'/"$$d" 2>/dev/null || true; done
	-@rmdir '$(DESTDIR)$(PKGDATADIR)' '$(DESTDIR)$(DOCDIR)' 2>/dev/null || true
	@set -e; if [ "$(WH_DEBIAN)" = yes ]; then \
	  if [ -L '$(DESTDIR)$(APACHE_CONFDIR)/mods-enabled/wirehook.load' ]; then \
	    echo "  note: wirehook is still enabled: run a2dismod wirehook" >&2; fi; \
	  rm -f '$(DESTDIR)$(WH_MODAVAIL)/wirehook.load'; \
	  if [ -e '$(DESTDIR)$(WH_MODAVAIL)/wirehook.conf' ]; then \
	    if printf '%s\n' $(WH_CONF_LINES) | cmp -s - '$(DESTDIR)$(WH_MODAVAIL)/wirehook.conf'; then \
	      rm -f '$(DESTDIR)$(WH_MODAVAIL)/wirehook.conf'; \
	    else \
	      echo "  $(WH_MODAVAIL)/wirehook.conf was changed: kept" >&2; \
	    fi; \
	  fi; \
	fi

# The two Debian files, as printf arguments (one line each).
WH_LOAD_LINES = \
  '\# mod_wirehook: verifies wire-payment-status webhooks (Basic auth,' \
  '\# timestamp, HMAC-SHA256 signature, JSON schema) before any handler.' \
  '\# Enable: a2enmod wirehook. The default ReplayCache, lmdb, is the module'"'"'s' \
  '\# own; socache_dbm comes along so that "ReplayCache dbm" works at once:' \
  '\# Depends: socache_dbm' \
  'LoadModule wirehook_module $(MODULEDIR)/mod_wirehook.so'
WH_CONF_LINES = \
  '\# mod_wirehook. Nothing is verified until a location names a wirehook' \
  '\# configuration file; put that in a site (sites-available/NAME.conf):' \
  '\#' \
  '\#   <Location /v1/wires>' \
  '\#       WirehookConfig /etc/wirehook/wirehook.conf' \
  '\#   </Location>' \
  '\#' \
  '\# and check the file first: wirehook configtest /etc/wirehook/wirehook.conf' \
  '\# A location can also be the inbox itself (SetHandler wirehook).' \
  '\# ReplayCache redis:HOST:PORT, memcache:HOST:PORT or pgsql (several' \
  '\# servers sharing one store) needs no other module; a new redis or' \
  '\# memcached store: wirehook replay init --config FILE.' \
  '\# Examples: $(DOCDIR)/examples/' \
  '\# Reference: man mod_wirehook, man wirehook, $(DOCDIR)/'
