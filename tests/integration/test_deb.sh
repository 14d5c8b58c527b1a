#!/usr/bin/env bash
# wh-package: builds the Debian packages (make deb) and installs them
# make deb (build/deb.mk, debian/): the two Debian packages are built and
# lintian-clean, then installed on THIS machine with dpkg, enabled with
# a2enmod, served through the system's Apache configuration by the system's
# apache2 on a private loopback listener, and removed and purged. The
# machine's Apache configuration (/etc/apache2, a2enmod's state in
# /var/lib/apache2) is snapshotted first and must be exactly as found at the
# end; a trap puts the snapshot back whatever happens.
#
# Needs root and dpkg; without them it is skipped.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/system_lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v dpkg >/dev/null 2>&1; then
    wh_skip "installing packages needs root and dpkg"
fi

wh_init
started=$(date +%s)

MODPKG=libapache2-mod-wirehook
CLIPKG=wirehook
ETC=$SYS_ETC
STATE=$SYS_STATE

# A make of our own: the parent make's flags must not leak in.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s -C "$WH_TOP" BUILD="$WH_BUILD" SHARED_DIR="$WH_SHARED" "$@"; }
installed() { [ "$(pkg_status "$1")" = installed ]; }
sys_apache() { cat "$SYS_PIDFILE" 2>/dev/null; }

# One run at a time on a machine: the packages and /etc/apache2 are global.
sys_lock || wh_done

# Installed by someone else: this test would replace and then purge them.
for p in $MODPKG $CLIPKG; do
    s=$(pkg_status "$p")
    if [ -n "$s" ] && [ "$s" != not-installed ]; then
        _wh_bad "$p is already on this machine ($s): test_deb.sh installs and purges it; remove it first (dpkg --purge $p)"
        wh_done
    fi
done

# ----------------------------------------------------- 1. build, lintian ---
DEB="$WH_BUILD/deb"
t0=$(date +%s)
# nocheck: `make check` has just run the same unit suites; a plain
# `make deb` runs them inside the package build.
# noautodbgsym: the -dbgsym packages are dh_strip's, the same for every
# package, and not what this test installs.
out=$(DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-nocheck noautodbgsym}" mk deb 2>&1)
rc=$?
assert_eq 0 "$rc" "make deb succeeds"
[ $rc -ne 0 ] && { echo "$out" | tail -n 30 >&2; wh_done; }
echo "  make deb: $(( $(date +%s) - t0 )) s"
MODDEB=$(ls "$DEB"/${MODPKG}_*.deb 2>/dev/null | head -n 1)
CLIDEB=$(ls "$DEB"/${CLIPKG}_*_*.deb 2>/dev/null | grep -v dbgsym | head -n 1)
CHANGES=$(ls "$DEB"/${CLIPKG}_*.changes 2>/dev/null | head -n 1)
assert_file_exists "$MODDEB" "build/deb has the $MODPKG .deb"
assert_file_exists "$CLIDEB" "build/deb has the $CLIPKG .deb"
assert_file_exists "$CHANGES" "build/deb has the .changes"
assert_true "build/deb has the .buildinfo" wh_glob_exists "$DEB/${CLIPKG}_*.buildinfo"
stray=$(cd "$WH_TOP/debian" && ls -d .debhelper files debhelper-build-stamp tmp ./*.substvars ./*.debhelper \
    ./*.debhelper.log $MODPKG $CLIPKG 2>/dev/null)
assert_eq "" "$stray" "the build left nothing in debian/ (it ran in a copy under build/deb)"

if command -v lintian >/dev/null 2>&1; then
    t0=$(date +%s)
    lint=$(lintian --pedantic -I "$CHANGES" 2>&1 | grep -v '^running with root privileges')
    echo "  lintian: $(( $(date +%s) - t0 )) s"
    assert_eq "" "$(grep -E '^[EW]: ' <<<"$lint")" "lintian: no error or warning (source and both packages)"
    [ -n "$lint" ] && printf '  lintian says:\n%s\n' "$lint"
else
    _wh_bad "lintian is installed (build/deps-extra.txt)"
fi

# ------------------------------------------------ 2. what the packages hold ---
X="$T/x"; mkdir -p "$X/mod" "$X/cli"
dpkg-deb -x "$MODDEB" "$X/mod" && dpkg-deb -x "$CLIDEB" "$X/cli"
modlist=$(dpkg-deb -c "$MODDEB" | awk '{print $6}' | sed 's|^\./|/|' | grep -v '/$')
clilist=$(dpkg-deb -c "$CLIDEB" | awk '{print $6}' | sed 's|^\./|/|' | grep -v '/$')
for f in /usr/lib/apache2/modules/mod_wirehook.so /etc/apache2/mods-available/wirehook.load \
         /etc/apache2/mods-available/wirehook.conf /usr/share/man/man8/mod_wirehook.8.gz \
         /usr/share/doc/$MODPKG/copyright /usr/share/doc/$MODPKG/README.Debian; do
    assert_true "$MODPKG ships $f" grep -qxF "$f" <<<"$modlist"
done
for f in /usr/bin/wirehook /usr/lib/cgi-bin/wirehook.cgi /usr/share/man/man1/wirehook.1.gz \
         /usr/share/doc/$CLIPKG/copyright /usr/share/doc/$CLIPKG/README.Debian \
         /usr/share/doc/$CLIPKG/README.md; do
    assert_true "$CLIPKG ships $f" grep -qxF "$f" <<<"$clilist"
done
missing=""
for f in "$WH_TOP"/docs/*.md; do
    b=$(basename "$f"); grep -qE "^/usr/share/doc/$CLIPKG/docs/$b\$" <<<"$clilist" || missing="$missing $b"
done
(cd "$WH_TOP" && find examples -type f) >"$T/examples.list"
while read -r f; do
    grep -qE "^/usr/share/doc/$CLIPKG/$f(\.gz)?\$" <<<"$clilist" || missing="$missing $f"
done <"$T/examples.list"
assert_eq "" "$missing" "$CLIPKG ships every docs/*.md and every example under /usr/share/doc/$CLIPKG"
links=$("$WH_PYTHON" "$WH_TOP/tests/integration/doc_links.py" "$X/cli/usr/share/doc/$CLIPKG" 2>&1)
assert_eq "" "$links" "every link between the packaged documents points at a packaged file"
assert_eq "" "$(grep -E '^/usr/local|^/usr/share/wirehook' <<<"$modlist$clilist")" "nothing under /usr/local or /usr/share/wirehook"
unit=$(grep -E '^(/usr)?/lib/systemd/system/wirehook-forward@\.service$' <<<"$clilist")
assert_true "$CLIPKG ships the forwarder's unit template wirehook-forward@.service" test -n "$unit"
assert_true "... which runs the packaged /usr/bin/wirehook" \
    grep -q '^ExecStart=/usr/bin/wirehook forward ' "$X/cli$unit"
deps=$(dpkg-deb -f "$MODDEB" Depends)
assert_contains "$deps" "apache2-api-20120211" "$MODPKG depends on the Apache module API"
cgi_needed=$(readelf -d "$X/cli/usr/lib/cgi-bin/wirehook.cgi" 2>/dev/null | grep NEEDED)
assert_contains "$cgi_needed" "libcrypto.so" "the packaged CGI links libcrypto dynamically (CGI_LINK=dynamic)"
assert_contains "$cgi_needed" "libjson-c.so" "the packaged CGI links json-c dynamically"
for b in mod/usr/lib/apache2/modules/mod_wirehook.so cli/usr/bin/wirehook cli/usr/lib/cgi-bin/wirehook.cgi; do
    h=$(readelf -dlW "$X/$b" 2>/dev/null)
    assert_contains "$h" "GNU_RELRO" "$(basename "$b"): RELRO (dpkg-buildflags)"
    assert_contains "$h" "BIND_NOW" "$(basename "$b"): BIND_NOW (hardening=+all)"
    assert_contains "$(nm -D "$X/$b" 2>/dev/null)" "__stack_chk_fail" "$(basename "$b"): stack protector"
done

# The a2enmod pair is what `make install` writes for the same paths.
I="$T/install"
mk DESTDIR="$I" PREFIX=/usr PKGDATADIR=/usr/share/doc/wirehook DOCDIR=/usr/share/doc/wirehook \
   MODULEDIR=/usr/lib/apache2/modules APACHE_CONFDIR=/etc/apache2 DEBIAN_LAYOUT=yes install >/dev/null 2>&1
for f in wirehook.load wirehook.conf; do
    assert_true "packaged $f = make install's $f" cmp -s "$I/etc/apache2/mods-available/$f" "$X/mod/etc/apache2/mods-available/$f"
done
assert_true "wirehook.load: # Depends: socache_dbm (the default ReplayCache)" \
    grep -qx '# Depends: socache_dbm' "$X/mod/etc/apache2/mods-available/wirehook.load"
assert_eq "" "$(grep -v '^#' "$X/mod/etc/apache2/mods-available/wirehook.conf")" "mods-available/wirehook.conf is comments only"

# ----------------------------------------------------------- 3. snapshot ---
sys_snapshot "$T/snap"
SNAP=$SYS_SNAP
sys_before=$(sys_apache)
dbm_before=no; [ -e "$ETC/mods-enabled/socache_dbm.load" ] && dbm_before=yes
# the default replay store's directory, made by the module's package
VARLIB=/var/lib/wirehook
varlib_before=no; [ -e "$VARLIB" ] && varlib_before=yes

policy_made=""
deb_restore() {
    wh_httpd_stop >/dev/null 2>&1
    [ -n "$policy_made" ] && rm -f /usr/sbin/policy-rc.d
    # disabled first, so that removal has nothing to reload
    [ -e "$ETC/mods-enabled/wirehook.load" ] && a2dismod -q -f wirehook >/dev/null 2>&1
    local p
    for p in $MODPKG $CLIPKG; do
        s=$(pkg_status "$p")
        [ -n "$s" ] && [ "$s" != not-installed ] && dpkg_w --purge "$p"
    done
    sys_as_found || echo "test_deb.sh: restoring $ETC and $STATE from the snapshot" >&2
    sys_restore
}
trap 'rc=$?; deb_restore; sys_mandb_restore; (exit $rc); _wh_cleanup' EXIT

# man-db's trigger rebuilds the whole manual database at each dpkg -i and
# -r (seconds of CPU, nothing this test checks: man reads the installed
# pages without it). Off while the test runs, as the machine had it after.
sys_mandb_off

configtest=$(apache2ctl configtest 2>&1)
assert_eq 0 $? "apache2ctl configtest passes before the install (the machine's own configuration)"

# ------------------------------------------------------------ 4. install ---
t_install=$(date +%s)
dpkg_w -i "$MODDEB" "$CLIDEB"
assert_eq 0 $? "dpkg -i both packages"
assert_true "$MODPKG installed" installed $MODPKG
assert_true "$CLIPKG installed" installed $CLIPKG
dpkg -L $MODPKG | grep -vx '/\.' >"$T/mod.files"; dpkg -L $CLIPKG | grep -vx '/\.' >"$T/cli.files"
conffiles=$(dpkg-query -W -f='${Conffiles}\n' $MODPKG | awk 'NF {print $1}' | LC_ALL=C sort | tr '\n' ' ')
assert_eq "/etc/apache2/mods-available/wirehook.conf /etc/apache2/mods-available/wirehook.load " "$conffiles" \
    "the a2enmod pair are conffiles"
assert_false "installing does not enable the module" test -e "$ETC/mods-enabled/wirehook.load"
if [ $varlib_before = no ]; then
    assert_eq "root:root 755" "$(stat -c '%U:%G %a' "$VARLIB" 2>&1)" \
        "the package made $VARLIB, root's (httpd's parent writes there as root)"
fi
assert_eq "$sys_before" "$(sys_apache)" "installing did not start or restart the system's apache2"
assert_contains "$(/usr/bin/wirehook --help 2>&1)" "configtest" "/usr/bin/wirehook runs"
assert_true "man wirehook finds the installed page" test "$(man -w wirehook 2>/dev/null)" = /usr/share/man/man1/wirehook.1.gz
assert_true "man mod_wirehook finds the installed page" test "$(man -w mod_wirehook 2>/dev/null)" = /usr/share/man/man8/mod_wirehook.8.gz
cgi_out=$(env -i REQUEST_METHOD=GET REQUEST_URI=/cgi-bin/wirehook.cgi /usr/lib/cgi-bin/wirehook.cgi 2>/dev/null)
assert_contains "$cgi_out" "Status: 500" "the unconfigured CGI answers 500 (README.Debian)"

# ------------------------------------- 4b. the upgrade in the maintainer scripts ---
# What each postinst does on an upgrade (configure OLD-VERSION), run
# directly with the commands it calls replaced by ones that record their
# arguments: the module's reloads apache2 gracefully through Debian's
# helper (configtest first) only when the module is enabled; the tools'
# restarts the running forwarders under systemd. The systemd case runs in
# a mount namespace of its own, where /run is empty but for
# /run/systemd/system, so this machine's /run is untouched.
C="$T/control"; mkdir -p "$C/mod" "$C/cli" "$T/shim"
dpkg-deb -e "$MODDEB" "$C/mod" && dpkg-deb -e "$CLIDEB" "$C/cli"
for cmd in apache2ctl invoke-rc.d systemctl deb-systemd-invoke; do
    printf '#!/bin/sh\necho "%s $*" >>"%s/shim.log"\nexit 0\n' "$cmd" "$T" >"$T/shim/$cmd"
done
printf '#!/bin/sh\n[ -f "%s/enabled" ]\n' "$T" >"$T/shim/a2query"
chmod 755 "$T/shim"/*
postinst() {   # postinst mod|cli ARGS... -> what it called, in $T/shim.log
    : >"$T/shim.log"
    PATH="$T/shim:$PATH" DPKG_MAINTSCRIPT_NAME=postinst DPKG_MAINTSCRIPT_PACKAGE=$([ "$1" = mod ] && echo $MODPKG || echo $CLIPKG) \
        APACHE2_MAINTSCRIPT_HELPER_QUIET=1 sh "$C/$1/postinst" "${@:2}" >"$T/postinst.out" 2>&1
}
touch "$T/enabled"
postinst mod configure 1.1.0
assert_eq 0 "$?" "$MODPKG postinst, upgrade from 1.1.0 with the module enabled: exit 0"
assert_eq "apache2ctl configtest|invoke-rc.d apache2 reload" "$(paste -sd'|' "$T/shim.log")" \
    "... checks the configuration, then reloads apache2 gracefully (invoke-rc.d apache2 reload)"
rm -f "$T/enabled"
postinst mod configure 1.1.0
assert_eq "" "$(cat "$T/shim.log")" "... with the module not enabled: apache2 left alone"
touch "$T/enabled"
postinst mod configure
assert_eq "" "$(cat "$T/shim.log")" "... on a first install: apache2 left alone (nothing is enabled yet)"
if command -v unshare >/dev/null 2>&1 &&
   unshare -m sh -c 'mount -t tmpfs tmpfs /run' 2>/dev/null; then
    : >"$T/shim.log"
    unshare -m sh -c 'mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/system &&
        PATH="$1/shim:$PATH" DPKG_MAINTSCRIPT_NAME=postinst DPKG_MAINTSCRIPT_PACKAGE=wirehook \
        sh "$1/control/cli/postinst" configure 1.1.0' sh "$T" >"$T/postinst.out" 2>&1
    assert_eq 0 "$?" "$CLIPKG postinst, upgrade from 1.1.0 under systemd: exit 0"
    assert_eq "systemctl --system daemon-reload|deb-systemd-invoke try-restart wirehook-forward@*.service" \
        "$(paste -sd'|' "$T/shim.log")" "... restarts the running forwarders (try-restart wirehook-forward@*)"
    : >"$T/shim.log"
    unshare -m sh -c 'mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/system &&
        PATH="$1/shim:$PATH" sh "$1/control/cli/postinst" configure' sh "$T" >"$T/postinst.out" 2>&1
    assert_eq "" "$(cat "$T/shim.log")" "... on a first install: no forwarder touched"
else
    _wh_bad "a mount namespace (unshare -m, util-linux) for the systemd case of $CLIPKG's postinst"
fi

# ------------------------------------------------------------- 5. enable ---
out=$(a2enmod wirehook 2>&1)
assert_eq 0 $? "a2enmod wirehook"
assert_eq ../mods-available/wirehook.load "$(readlink "$ETC/mods-enabled/wirehook.load")" "a2enmod linked wirehook.load"
assert_eq ../mods-available/wirehook.conf "$(readlink "$ETC/mods-enabled/wirehook.conf")" "a2enmod linked wirehook.conf"
assert_true "a2enmod wirehook enabled socache_dbm too" test -L "$ETC/mods-enabled/socache_dbm.load"
[ $dbm_before = no ] && assert_contains "$out" "socache_dbm" "a2enmod said it enabled the dependency socache_dbm"
configtest=$(apache2ctl configtest 2>&1)
assert_eq 0 $? "apache2ctl configtest passes with wirehook enabled"
assert_contains "$configtest" "Syntax OK" "apache2ctl configtest: Syntax OK"
mods=$(apache2ctl -M 2>/dev/null)
assert_contains "$mods" "wirehook_module (shared)" "the system configuration loads wirehook_module"
assert_contains "$mods" "socache_dbm_module (shared)" "the system configuration loads socache_dbm_module"

# ------------------------------------------------ 6. serve on loopback only ---
# The system's apache2 and the modules enabled in /etc/apache2, with our own
# listener, pid file, logs and locations: /etc/apache2/apache2.conf is not
# used because it would also Listen on :80 (ports.conf) and write to
# /var/log/apache2. The module is the inbox (/inbox, SetHandler wirehook);
# the installed CGI serves /cgi/wires (not behind the module: the CGI reads
# WIREHOOK_* variables as its settings and refuses the ones the module
# publishes). Both store into one SQLite inbox. socache_shmcb is loaded too
# when nothing else loads it: it was the default ReplayCache before dbm.
assert_eq "Syntax OK" "$(/usr/bin/wirehook configtest "$WH_CONF" 2>&1 | tail -n 1)" "installed wirehook configtest: Syntax OK"
# the CGI runs as www-data: it reads the secret and htpasswd files too
chgrp www-data "$WH_SECRETS" "$WH_HTPASSWD" && chmod 640 "$WH_SECRETS" "$WH_HTPASSWD"
WH_HTTPD_CONF="$T/system.conf"
cat >"$WH_HTTPD_CONF" <<EOF
# test_deb.sh: the system's apache2 and modules, a private loopback listener
ServerRoot $ETC
ServerName 127.0.0.1
IncludeOptional $ETC/mods-enabled/*.load
IncludeOptional $ETC/mods-enabled/*.conf
<IfModule !mod_cgi.c>
<IfModule !mod_cgid.c>
<IfModule mpm_prefork_module>
Include $ETC/mods-available/cgi.load
</IfModule>
<IfModule !mpm_prefork_module>
Include $ETC/mods-available/cgid.load
</IfModule>
</IfModule>
</IfModule>
<IfModule mod_cgid.c>
ScriptSock $T/run/cgid.sock
</IfModule>
<IfModule !mod_socache_shmcb.c>
Include $ETC/mods-available/socache_shmcb.load
</IfModule>
User www-data
Group www-data
Listen 127.0.0.1:$WH_PORT
PidFile $T/run/httpd.pid
DefaultRuntimeDir $T/run
Mutex file:$T/run default
ErrorLog $T/logs/error.log
LogLevel warn wirehook:info
<IfModule log_config_module>
LogFormat "%h \"%r\" %>s %B" short
CustomLog $T/logs/access.log short
</IfModule>
DocumentRoot "$T/htdocs"
<Directory />
    AllowOverride None
    Require all denied
</Directory>
<Directory "$T/htdocs">
    Require all granted
</Directory>
<Directory /usr/lib/cgi-bin>
    Options +ExecCGI
    Require all granted
</Directory>
ScriptAlias /cgi/wires /usr/lib/cgi-bin/wirehook.cgi
<Location /cgi/wires>
    CGIPassAuth On
    SetEnv WIREHOOK_CONFIG $WH_CONF
</Location>
<Location /inbox>
    SetHandler wirehook
    WirehookConfig $WH_CONF
</Location>
# a location in front of another handler (the default one): there the
# configuration needs the replay store, the default one (an inbox alone
# opens none)
<Location /protected>
    WirehookConfig $WH_CONF
</Location>
EOF
# apache2 with the environment apache2ctl gives it (/etc/apache2/envvars)
cat >"$T/apache2" <<EOF
#!/bin/sh
[ -f $ETC/envvars ] && . $ETC/envvars
exec /usr/sbin/apache2 "\$@"
EOF
chmod 755 "$T/apache2"
WH_HTTPD="$T/apache2"
wh_httpd_configtest
assert_eq 0 $? "apache2 -t with the system modules and the test locations"
if wh_httpd_start; then
    startlog=$(wh_errlog)
    # (WH00989: the console's advice for an inbox without one, docs/console.md)
    assert_eq "" "$(grep -E '\[[a-z_]+:(warn|error|crit|alert|emerg)\]' <<<"$startlog" | grep -v 'WH00989: ')" \
        "the packaged module starts without a warning (no edit after install)"
    assert_contains "$startlog" "replay store lmdb ($VARLIB/replay)" \
        "its default replay store is $VARLIB/replay (WH00993)"
    assert_contains "$startlog" "WH00992: mod_wirehook $(dpkg-deb -f "$MODDEB" Version):" \
        "its start-up line gives the package's version"
    assert_eq "www-data" "$(stat -c %U "$VARLIB/replay" 2>&1)" "the store's file is given to www-data"
    listen=$(ss -Hltnp 2>/dev/null | grep "pid=$WH_HTTPD_PID," | awk '{print $4}' | sort -u | tr '\n' ' ')
    assert_eq "127.0.0.1:$WH_PORT " "$listen" "httpd listens on 127.0.0.1:$WH_PORT only"

    out=$(/usr/bin/wirehook send --config "$WH_CONF" --url "$WH_URL/inbox" \
        --user "$WH_USER:$WH_PASSWD" --sample Complete 2>&1)
    assert_eq 0 $? "installed wirehook send -> installed module (SetHandler wirehook): exit 0"
    assert_contains "$out" '200 {"status":"accepted"' "the module accepts a signed notification"
    body=$(wh_body Processing)
    id1=$(wh_body_id "$body")
    out=$(/usr/bin/wirehook send --config "$WH_CONF" --url "$WH_URL/inbox" \
        --user "$WH_USER:$WH_PASSWD" --count 2 "$body" 2>&1)
    assert_eq 2 "$(grep -c '^200 ' <<<"$out")" "the same notification twice to the module: 200 both times"
    assert_contains "$out" '"status":"duplicate"' "the module: the second copy is a duplicate"
    WH_SIG=- wh_post "$WH_URL/inbox" "$body"
    assert_status 401 "an unsigned request to the module: 401"
    assert_json_code signature_missing "an unsigned request to the module: signature_missing"

    body=$(wh_body Complete)
    id2=$(wh_body_id "$body")
    out=$(/usr/bin/wirehook send --config "$WH_CONF" --url "$WH_URL/cgi/wires" \
        --user "$WH_USER:$WH_PASSWD" --count 2 "$body" 2>&1)
    assert_eq 0 $? "installed wirehook send -> installed CGI: exit 0"
    assert_contains "$out" '200 {"status":"accepted"' "the installed CGI accepts a signed notification"
    assert_contains "$out" '"status":"duplicate"' "the installed CGI: the second copy is a duplicate"
    WH_SIG=- wh_post "$WH_URL/cgi/wires" "$body"
    assert_status 401 "an unsigned request to the CGI: 401"

    wh_curl -u "$WH_USER:$WH_PASSWD" "$WH_URL/inbox?limit=50"
    assert_status 200 "the module lists the inbox"
    assert_contains "$WH_BODY" "$id1" "the module lists what it stored"
    assert_contains "$WH_BODY" "$id2" "the module lists what the installed CGI stored"
    assert_eq 3 "$(wh_json_get "$WH_BODY" 'len(d["events"])')" "three notifications stored, each duplicate once"
    wh_curl -u "$WH_USER:$WH_PASSWD" "$WH_URL/cgi/wires?limit=50"
    assert_status 200 "the installed CGI lists the inbox"
    assert_eq 3 "$(wh_json_get "$WH_BODY" 'len(d["events"])')" "the CGI lists the same three"
    assert_contains "$(wh_errlog)" "WH009" "the module logged to the private error log"

    # An upgrade while the bank sends: dpkg installs the packages again
    # (their postinst's upgrade path; the system's apache2 is kept out of
    # it by policy-rc.d), then this apache2 is restarted gracefully, as the
    # postinst does the system's. Every notification is answered 200 and
    # stored once.
    S="$T/sender"; mkdir -p "$S"
    wh_sender_creds "$S" "$WH_USER" "$WH_PASSWD" "$WH_SECRET"
    "$WH_PYTHON" "$WH_APP_SRC/bank_sender.py" "$WH_URL/inbox" "$WH_SAMPLE_SRC" "$S" 0.03 2>"$S/err" &
    sender=$!
    wh_bg_add $sender
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\n# test_deb.sh: no service is started or reloaded meanwhile\nexit 101\n' \
            >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && policy_made=yes
    fi
    for _ in $(seq 1 100); do [ -s "$S/answers" ] && break; sleep 0.1; done
    dpkg_w -i "$MODDEB" "$CLIDEB"
    assert_eq 0 $? "dpkg -i of both packages over themselves (the upgrade path) while the bank sends"
    [ -n "$policy_made" ] && rm -f /usr/sbin/policy-rc.d && policy_made=""
    assert_true "this apache2 restarts gracefully on the module dpkg put in place" wh_httpd_graceful
    n=$(grep -c . "$S/answers"); for _ in $(seq 1 100); do [ "$(grep -c . "$S/answers")" -gt $((n + 20)) ] && break; sleep 0.1; done
    : >"$S/stop"; wait "$sender" 2>/dev/null
    assert_eq 0 "$(grep -vc '^200 ' "$S/answers")" \
        "every one of the $(grep -c . "$S/answers") notifications sent across the upgrade was answered 200"
    /usr/bin/wirehook pull "$WH_URL/inbox" --user "$WH_USER:$WH_PASSWD" >"$T/pulled.ndjson" 2>/dev/null
    missing=$(comm -23 <(cut -d' ' -f2 "$S/answers" | sort) \
        <("$WH_PYTHON" -c 'import json,sys; [print(json.loads(l)["notificationId"]) for l in sys.stdin if l.strip()]' \
          <"$T/pulled.ndjson" | sort))
    assert_eq "" "$missing" "... and every one is in the inbox"

    wh_httpd_stop
    assert_false "httpd stopped" _wh_port_open
else
    _wh_bad "the system's apache2 starts with the installed module" "$(wh_errlog | tail -n 5)"
fi
assert_eq "$sys_before" "$(sys_apache)" "the system's apache2 was neither started nor stopped"

# ------------------------------------------------- 7. disable, remove, purge ---
out=$(a2dismod wirehook 2>&1)
assert_eq 0 $? "a2dismod wirehook"
assert_false "a2dismod removed wirehook.load's link" test -e "$ETC/mods-enabled/wirehook.load"
assert_false "a2dismod removed wirehook.conf's link" test -e "$ETC/mods-enabled/wirehook.conf"
if [ $dbm_before = no ]; then
    a2dismod -q -p socache_dbm >/dev/null 2>&1
    assert_false "socache_dbm disabled again (it was not enabled before)" test -e "$ETC/mods-enabled/socache_dbm.load"
fi

# a configuration that still uses the module: removal names it
USES="$ETC/conf-enabled/zz-wirehook-test-uses.conf"
printf '<Location /wh-test-uses>\n    WirehookConfig %s\n</Location>\n' "$WH_CONF" >"$USES"
dpkg_w -r $MODPKG $CLIPKG
assert_eq 0 $? "dpkg -r both packages"
assert_contains "$(cat "$T/dpkg.log")" "these apache2 files still use the module:" \
    "removal warns about the configuration that still uses the module"
assert_contains "$(cat "$T/dpkg.log")" "$USES" "... naming it"
rm -f "$USES"
left=""
for f in $(cat "$T/mod.files" "$T/cli.files"); do
    # (a directory stays; with merged /usr, /lib is the system's own link)
    [ -f "$f" ] || { [ -L "$f" ] && [ ! -d "$f" ]; } || continue
    case " $conffiles " in *" $f "*) ;; *) left="$left $f" ;; esac
done
assert_eq "" "$left" "dpkg -r removed every file but the conffiles"
for f in $conffiles; do assert_file_exists "$f" "dpkg -r keeps the conffile $f"; done

dpkg_w --purge $MODPKG $CLIPKG
assert_eq 0 $? "dpkg --purge both packages"
left=""
for f in $(cat "$T/mod.files" "$T/cli.files"); do
    if [ -d "$f" ] && [ -L "$f" ]; then
        :   # the system's own link to a directory (merged /usr: /lib)
    elif [ -d "$f" ]; then
        # a directory stays only when another package owns it
        dpkg -S "$f" >/dev/null 2>&1 || left="$left $f"
    elif [ -e "$f" ] || [ -L "$f" ]; then
        left="$left $f"
    fi
done
assert_eq "" "$left" "nothing the packages installed is left after purge"
for f in $conffiles; do assert_file_absent "$f" "purge removed the conffile $f"; done
assert_eq "" "$(ls "$VARLIB"/replay* 2>/dev/null)" "purge removed the default replay store"
if [ $varlib_before = no ]; then
    assert_file_absent "$VARLIB" "purge removed $VARLIB, which the package made"
fi
assert_eq "" "$(pkg_status $MODPKG | grep -v not-installed)" "$MODPKG is gone from dpkg's database"
assert_eq "" "$(pkg_status $CLIPKG | grep -v not-installed)" "$CLIPKG is gone from dpkg's database"

# ------------------------------------------------------ 8. as it was found ---
# a2enmod and a2dismod (run above as an admin would, not by the packages)
# leave their state directories behind, empty: removed when they were not
# there before.
sys_drop_new_empty_dirs
now=$(sys_sum)
assert_eq "$(grep -c . "$SNAP/sum")" "$(grep -c . <<<"$now")" "as many entries in /etc/apache2 and /var/lib/apache2 as before"
if [ "$now" = "$(cat "$SNAP/sum")" ]; then
    _wh_ok "/etc/apache2 and /var/lib/apache2 are exactly as found (type, mode, owner, link, checksum)"
else
    _wh_bad "/etc/apache2 and /var/lib/apache2 are exactly as found" \
        "$(diff <(cat "$SNAP/sum") <(printf '%s\n' "$now") | head -n 20)"
fi
assert_eq "$sys_before" "$(sys_apache)" "the system's apache2 is as it was"
echo "  test_deb.sh: $(( $(date +%s) - started )) s in all; install to purge: $(( $(date +%s) - t_install )) s"

wh_done
