#!/usr/bin/env bash
# make install / make uninstall (build/install.mk): into a DESTDIR with the
# defaults, with another PREFIX and no Debian layout, and for real into a
# temp prefix that a2enmod enables and httpd then loads and serves from.
. "$(dirname "$0")/lib.sh"
wh_init

# A make of our own: the parent make's flags (-j jobserver, variables given
# to `make check`) must not leak into what is being tested.
# (install.mk's defaults are what is checked: a PREFIX in the caller's
# environment, as perf record exports, would move every file)
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u PREFIX -u DESTDIR -u MODULEDIR -u APACHE_CONFDIR \
    -u DEBIAN_LAYOUT make --no-print-directory -s -C "$WH_TOP" BUILD="$WH_BUILD" "$@"; }
# files and symlinks under a tree, relative to it, sorted
tree_files() { [ -d "$1" ] && (cd "$1" && find . \( -type f -o -type l \) | sed 's|^\./|/|' | LC_ALL=C sort); }
mode_of() { stat -c %a "$1" 2>/dev/null; }

APXS=$(command -v apxs || command -v apxs2)
MODDIR=$("$APXS" -q LIBEXECDIR)
CONFDIR=$("$APXS" -q SYSCONFDIR)
assert_ne "" "$MODDIR" "apxs -q LIBEXECDIR answers"

# What the source tree says must be installed (same rules as install.mk).
cd "$WH_TOP" || exit 1
mapfile -t EXAMPLES < <(find examples -type f ! -name '*~' ! -name '.*.swp' | LC_ALL=C sort)
mapfile -t DOCS < <(find docs -type f ! -name '*~' ! -name '.*.swp' | LC_ALL=C sort)
mapfile -t TOPDOCS < <(ls README.md CONTRIBUTING.md 2>/dev/null)
# (mod_wirehook.8 is built from man/mod_wirehook.8.in)
mapfile -t MANS < <(ls man/*.1 man/*.8.in 2>/dev/null | sed 's/\.in$//')
have_cgi=""; compgen -G "cgi/*.c" >/dev/null && have_cgi=1
cd - >/dev/null || exit 1
assert_true "examples exist to install (5 or more directories)" \
    test "$(printf '%s\n' "${EXAMPLES[@]}" | cut -d/ -f2 | sort -u | wc -l)" -ge 5
assert_true "docs exist to install" test "${#DOCS[@]}" -ge 5
assert_eq 2 "${#MANS[@]}" "two man pages to install"

# expected_files PREFIX MODULEDIR CONFDIR-or-empty -> sorted list
expected_files() {
    local prefix=$1 moddir=$2 confdir=$3 f
    {
        echo "$prefix/bin/wirehook"
        echo "$moddir/mod_wirehook.so"
        [ -n "$have_cgi" ] && echo "$prefix/share/wirehook/wirehook.cgi"
        # the documentation keeps the source tree's layout: links work
        for f in "${EXAMPLES[@]}" "${DOCS[@]}" "${TOPDOCS[@]}"; do echo "$prefix/share/doc/wirehook/$f"; done
        for f in "${MANS[@]}"; do echo "$prefix/share/man/man${f##*.}/$(basename "$f")"; done
        echo "$prefix/lib/systemd/system/wirehook-forward@.service"
        if [ -n "$confdir" ]; then
            echo "$confdir/mods-available/wirehook.conf"
            echo "$confdir/mods-available/wirehook.load"
        fi
    } | LC_ALL=C sort
}

# The real system must not be touched by a DESTDIR install. test_deb.sh
# (this run's or another worktree's) installs the packages for real and
# holds its lock meanwhile: the comparison is made only while nothing
# holds it, and a shared hold keeps test_deb from starting until this
# suite ends.
real_check=""
lock=/run/lock/wirehook-test-deb.lock; [ -d /run/lock ] || lock=/tmp/wirehook-test-deb.lock
[ -e "$lock" ] || : >>"$lock" 2>/dev/null
# (the open's error silenced in a group: "exec 8<f 2>/dev/null" would send
# the rest of the suite's stderr, its FAIL lines, to /dev/null)
if { exec 8<"$lock"; } 2>/dev/null && flock -s -n 8; then
    real_check=1
else
    echo "  (test_deb.sh is installing the packages: the real system is not compared)"
fi
real_before=$(ls -l /usr/local/bin/wirehook "$MODDIR/mod_wirehook.so" \
    "$CONFDIR/mods-available/wirehook.load" /usr/local/share/wirehook 2>&1)

# --------------------------------------------- 1. defaults into DESTDIR ---
S="$T/stage"
debian=""
{ [ -d "$CONFDIR/mods-available" ] || [ "$CONFDIR" = /etc/apache2 ]; } && debian=$CONFDIR
out=$(mk DESTDIR="$S" install 2>&1)
rc=$?
assert_eq 0 "$rc" "make install DESTDIR=... succeeds"
[ $rc -ne 0 ] && echo "$out" >&2
assert_eq "$(expected_files /usr/local "$MODDIR" "$debian")" "$(tree_files "$S")" \
    "DESTDIR install puts exactly the expected files (PREFIX=/usr/local)"
assert_true "the module is the built one" cmp -s "$WH_MOD_SO" "$S$MODDIR/mod_wirehook.so"
assert_eq 644 "$(mode_of "$S$MODDIR/mod_wirehook.so")" "module mode 644"
assert_true "the CLI is the built one" cmp -s "$WIREHOOK" "$S/usr/local/bin/wirehook"
assert_eq 755 "$(mode_of "$S/usr/local/bin/wirehook")" "CLI mode 755"
help=$("$S/usr/local/bin/wirehook" --help 2>&1)
assert_contains "$help" "configtest" "the installed CLI runs"
if [ -n "$have_cgi" ]; then
    assert_true "the CGI is the built one" cmp -s "$WH_BUILD/wirehook.cgi" "$S/usr/local/share/wirehook/wirehook.cgi"
    assert_eq 755 "$(mode_of "$S/usr/local/share/wirehook/wirehook.cgi")" "CGI mode 755"
fi
bad=""
for f in "${EXAMPLES[@]}"; do
    cmp -s "$WH_TOP/$f" "$S/usr/local/share/doc/wirehook/$f" || bad="$bad $f"
    if [ -x "$WH_TOP/$f" ]; then want=755; else want=644; fi
    [ "$(mode_of "$S/usr/local/share/doc/wirehook/$f")" = "$want" ] || bad="$bad $f(mode)"
done
assert_eq "" "$bad" "every example installed byte for byte, executables stay executable"
assert_eq "ExecStart=/usr/local/bin/wirehook forward --config /etc/wirehook/%i.conf --interval 60" \
    "$(grep '^ExecStart=' "$S/usr/local/lib/systemd/system/wirehook-forward@.service")" \
    "the forwarder's systemd unit runs the installed wirehook"
assert_file_exists "$S/usr/local/share/doc/wirehook/README.md" "make install installs README.md"
links=$("$WH_PYTHON" "$WH_TOP/tests/integration/doc_links.py" "$S/usr/local/share/doc/wirehook" 2>&1)
assert_eq "" "$links" "every link between the installed documents points at an installed file"
for f in "${MANS[@]}"; do
    w=$(MANWIDTH=80 man -l --warnings "$S/usr/local/share/man/man${f##*.}/$(basename "$f")" 2>&1 >/dev/null)
    assert_eq "" "$w" "installed $(basename "$f") renders without warnings"
done
if [ -n "$debian" ]; then
    load="$S$CONFDIR/mods-available/wirehook.load"
    assert_eq "LoadModule wirehook_module $MODDIR/mod_wirehook.so" \
        "$(grep -v '^#' "$load")" "wirehook.load: LoadModule names the installed path, without DESTDIR"
    assert_not_contains "$(cat "$load")" "$S" "wirehook.load does not mention the DESTDIR"
    assert_true "wirehook.load declares its dependency for a2enmod" grep -qx '# Depends: socache_dbm' "$load"
    conf="$S$CONFDIR/mods-available/wirehook.conf"
    assert_eq "" "$(grep -v '^#' "$conf")" "wirehook.conf is comments only (enabling it changes nothing)"
    assert_contains "$(cat "$conf")" "WirehookConfig" "wirehook.conf shows WirehookConfig"
    assert_contains "$out" "a2enmod wirehook" "install tells how to enable the module"
fi

out2=$(mk DESTDIR="$S" install 2>&1)
assert_eq 0 $? "a second install over the first succeeds"
assert_eq "$(expected_files /usr/local "$MODDIR" "$debian")" "$(tree_files "$S")" "the second install changes no file list"

if [ -n "$debian" ]; then
    # an edited wirehook.conf is the admin's: kept by install and uninstall
    echo "# local change" >>"$S$CONFDIR/mods-available/wirehook.conf"
    out2=$(mk DESTDIR="$S" install 2>&1)
    assert_contains "$(tail -n 1 "$S$CONFDIR/mods-available/wirehook.conf")" "# local change" "install keeps an edited wirehook.conf"
    assert_contains "$out2" "kept" "install says it kept wirehook.conf"
    out2=$(mk DESTDIR="$S" uninstall 2>&1)
    assert_eq 0 $? "make uninstall succeeds"
    assert_eq "$CONFDIR/mods-available/wirehook.conf" "$(tree_files "$S")" "uninstall leaves only the edited wirehook.conf"
    rm -f "$S$CONFDIR/mods-available/wirehook.conf"
    # reinstall, then a clean uninstall
    mk DESTDIR="$S" install >/dev/null 2>&1
fi
out=$(mk DESTDIR="$S" uninstall 2>&1)
assert_eq 0 $? "make uninstall DESTDIR=... succeeds"
assert_eq "" "$(tree_files "$S")" "uninstall leaves no file behind"
assert_eq "" "$(find "$S" -name '*wirehook*')" "uninstall removes wirehook's own directories"
[ -n "$real_check" ] && assert_eq "$real_before" "$(ls -l /usr/local/bin/wirehook "$MODDIR/mod_wirehook.so" \
    "$CONFDIR/mods-available/wirehook.load" /usr/local/share/wirehook 2>&1)" \
    "the real system was not touched"

# ------------------------------- 2. PREFIX, no Debian layout, DESTDIR ---
S2="$T/stage2"
out=$(mk DESTDIR="$S2" PREFIX=/opt/wirehook DEBIAN_LAYOUT=no install 2>&1)
assert_eq 0 $? "make install PREFIX=/opt/wirehook DEBIAN_LAYOUT=no"
assert_eq "$(expected_files /opt/wirehook "$MODDIR" "")" "$(tree_files "$S2")" "PREFIX honoured, no mods-available files"
assert_true "the systemd unit names BINDIR under another PREFIX" \
    grep -q '^ExecStart=/opt/wirehook/bin/wirehook forward ' "$S2/opt/wirehook/lib/systemd/system/wirehook-forward@.service"
assert_contains "$out" "LoadModule wirehook_module $MODDIR/mod_wirehook.so" "install prints the LoadModule line to add"
mk DESTDIR="$S2" PREFIX=/opt/wirehook DEBIAN_LAYOUT=no uninstall >/dev/null 2>&1
assert_eq "" "$(tree_files "$S2")" "uninstall with the same PREFIX leaves nothing"

# ---------------- 3. a real install that a2enmod enables and httpd loads ---
P="$T/prefix" M="$T/modules" A="$T/apache2"
mkdir -p "$A/mods-available" "$A/mods-enabled" "$T/a2state"
: >"$A/envvars"
if [ -f /etc/apache2/mods-available/socache_dbm.load ]; then
    cp /etc/apache2/mods-available/socache_dbm.load "$A/mods-available/"
else
    echo "LoadModule socache_dbm_module $WH_MODDIR/mod_socache_dbm.so" >"$A/mods-available/socache_dbm.load"
fi
out=$(mk PREFIX="$P" MODULEDIR="$M" APACHE_CONFDIR="$A" install 2>&1)
assert_eq 0 $? "make install PREFIX=\$T/prefix MODULEDIR=... APACHE_CONFDIR=... (no DESTDIR)"
got=$( { tree_files "$P" | sed "s|^|$P|"; tree_files "$M" | sed "s|^|$M|"
         tree_files "$A" | grep -v '^/envvars$' | grep -v '/socache_dbm.load$' | sed "s|^|$A|"; } | LC_ALL=C sort)
assert_eq "$(expected_files "$P" "$M" "$A")" "$got" "every file where PREFIX, MODULEDIR and APACHE_CONFDIR say"
assert_eq "LoadModule wirehook_module $M/mod_wirehook.so" "$(grep -v '^#' "$A/mods-available/wirehook.load")" \
    "wirehook.load names MODULEDIR"

a2() { APACHE_CONFDIR="$A" APACHE_ENVVARS="$A/envvars" APACHE_STATE_DIRECTORY="$T/a2state" "$@"; }
out=$(a2 a2enmod wirehook 2>&1)
assert_eq 0 $? "a2enmod wirehook succeeds"
assert_eq ../mods-available/wirehook.load "$(readlink "$A/mods-enabled/wirehook.load")" "a2enmod linked wirehook.load"
assert_eq ../mods-available/wirehook.conf "$(readlink "$A/mods-enabled/wirehook.conf")" "a2enmod linked wirehook.conf"
assert_true "a2enmod enabled the dependency socache_dbm" test -L "$A/mods-enabled/socache_dbm.load"

# httpd with lib.sh's standard layout, but the module and socache_dbm from
# mods-enabled (lib.sh's own socache_shmcb line stays: shmcb was the default
# ReplayCache before dbm)
wh_httpd_conf
sed -i -e "s|^LoadModule wirehook_module .*|IncludeOptional $A/mods-enabled/*.load\nIncludeOptional $A/mods-enabled/*.conf|" \
       -e '/^LoadModule socache_dbm_module /d' "$WH_HTTPD_CONF"
assert_true "httpd.conf loads the module only through mods-enabled" grep -q "mods-enabled" "$WH_HTTPD_CONF"
mods=$("$WH_HTTPD" -f "$WH_HTTPD_CONF" -t -D DUMP_MODULES 2>&1)
assert_contains "$mods" "wirehook_module (shared)" "httpd loads the installed module"
if wh_httpd_start; then
    out=$("$P/bin/wirehook" send --config "$WH_CONF" --url "$WH_URL/v1/wires" \
        --user "$WH_USER:$WH_PASSWD" --sample Complete 2>&1)
    assert_eq 0 $? "installed wirehook send -> installed module: exit 0"
    assert_contains "$out" "200 " "a signed notification is accepted by the installed module"
    out=$("$P/bin/wirehook" send --config "$WH_CONF" --url "$WH_URL/v1/wires" \
        --user "$WH_USER:wrong" --sample Complete 2>&1)
    assert_contains "$out" "401 " "a wrong password is refused by the installed module"
    wh_httpd_stop
else
    _wh_bad "httpd starts with the installed, a2enmod-enabled module"
fi

out=$(mk PREFIX="$P" MODULEDIR="$M" APACHE_CONFDIR="$A" uninstall 2>&1)
assert_contains "$out" "a2dismod wirehook" "uninstall warns while the module is still enabled"
mk PREFIX="$P" MODULEDIR="$M" APACHE_CONFDIR="$A" install >/dev/null 2>&1
out=$(a2 a2dismod wirehook 2>&1)
assert_eq 0 $? "a2dismod wirehook succeeds"
assert_false "a2dismod removed the links" test -e "$A/mods-enabled/wirehook.load"
out=$(mk PREFIX="$P" MODULEDIR="$M" APACHE_CONFDIR="$A" uninstall 2>&1)
assert_eq 0 $? "make uninstall (no DESTDIR) succeeds"
assert_not_contains "$out" "a2dismod" "no warning once disabled"
assert_eq "" "$(tree_files "$P")" "nothing left under PREFIX"
assert_eq "" "$(tree_files "$M")" "nothing left in MODULEDIR"
assert_eq "/mods-available/socache_dbm.load" "$(tree_files "$A" | grep -v envvars | grep -v mods-enabled)" \
    "only the pre-existing files left in APACHE_CONFDIR"

wh_done
