#!/bin/sh
# build/static-deps.sh PREFIX -- what the self-contained wirehook.cgi
# (CGI_LINK=static) links that Debian ships no usable .a of: APR-util,
# whose packaged libaprutil-1.a loads its database drivers with dlopen.
# It is rebuilt here from Debian's own source package of the installed
# version, with the SQLite driver compiled in and no other driver, and
# installed into PREFIX (the Makefile's $(BUILD)/static). Everything else
# the CGI carries is Debian's own .a (libc, libcrypto, json-c, APR,
# SQLite, libcrypt, libuuid).
#
# Done once per APR-util version: PREFIX/.apr-util-VERSION says it is
# there, and an update of libaprutil1-dev rebuilds it at the next make.
# apt-get source needs a deb-src entry for the archive that has the
# installed version; when apt lacks one, one is added in
# /etc/apt/sources.list.d/wirehook-deb-src.list (as root, or with sudo)
# and only that entry's index is fetched.
set -eu
prefix=${1:?usage: build/static-deps.sh PREFIX}
case "$prefix" in /*) ;; *) prefix=$(pwd)/$prefix ;; esac

binver=$(dpkg-query -W -f='${Version}' libaprutil1-dev 2>/dev/null) || binver=""
srcver=$(dpkg-query -W -f='${source:Version}' libaprutil1-dev 2>/dev/null) || srcver=""
[ -n "$binver" ] && [ -n "$srcver" ] || {
    echo "static-deps: libaprutil1-dev is not installed (make deps installs it)" >&2; exit 1; }
stamp="$prefix/.apr-util-$(echo "$srcver" | tr : _)"   # the Makefile's name for it
[ -f "$stamp" ] && [ -f "$prefix/lib/libaprutil-1.a" ] && exit 0

echo "static-deps: building APR-util $srcver from Debian's source package, SQLite" \
     "driver built in, into $prefix (once per version)" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
apt_lock="-o DPkg::Lock::Timeout=300"

work="$prefix/src"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

# The deb-src entry: a copy of the apt entry that offers the installed
# binary version, narrowed to its suite and component, with the same
# options (Signed-By must match the binary entry's).
if ! apt-get source --print-uris "apr-util=$srcver" >/dev/null 2>&1; then
    want=$(apt-cache madison libaprutil1-dev |
           awk -F' *[|] *' -v v="$binver" '$2 == v && $3 ~ / Packages$/ {
               split($3, a, " "); split(a[2], s, "/"); print a[1], s[1], s[2] }' | sort -u)
    entries=$(apt-get indextargets --format '$(SITE) $(RELEASE) $(COMPONENT) $(SOURCESENTRY)' \
                  'Identifier: Packages' | sort -u)
    sources="" list=""
    for e in $(echo "$want" | tr ' ' '|'); do
        site=${e%%|*}; rest=${e#*|}; suite=${rest%%|*}; comp=${rest#*|}
        at=$(echo "$entries" | awk -v s="$site" -v r="$suite" -v c="$comp" \
                 '$1 == s && $2 == r && $3 == c { print $4; exit }')
        file=${at%:*}; n=${at##*:}
        [ -n "$at" ] && [ -f "$file" ] || continue
        case "$file" in
        *.sources)
            sources="$sources$(awk -v n="$n" -v s="$site" -v r="$suite" -v c="$comp" '
                /^[ \t]*$/ { in_stanza = 0; next }
                !in_stanza { in_stanza = 1; k++ }
                k == n && !/^#/ && !/^(Types|URIs|Suites|Components):/ { keep = keep $0 "\n" }
                END { printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n%s\n", s, r, c, keep }' "$file")
"
            ;;
        *)
            list="$list$(sed -n "${n}p" "$file" |
                awk -v r="$suite" -v c="$comp" '{ sub(/^deb[ \t]+/, "deb-src ")
                    out = ""; for (i = 1; i <= NF; i++) { out = out $i " "; if ($i == r) break }
                    print out c }')
"
            ;;
        esac
    done
    [ -n "$sources$list" ] || {
        echo "static-deps: no apt entry offers libaprutil1-dev $binver:" \
             "apt-get update && apt-get install libaprutil1-dev, then make again" >&2; exit 1; }
    tmp=$(mktemp -d)
    [ -n "$sources" ] && printf '# added by wirehook: build/static-deps.sh\n%s\n' "$sources" >"$tmp/wirehook-deb-src.sources"
    [ -n "$list" ] && printf '# added by wirehook: build/static-deps.sh\n%s\n' "$list" >"$tmp/wirehook-deb-src.list"
    for f in "$tmp"/*; do
        echo "static-deps: adding /etc/apt/sources.list.d/${f##*/} (deb-src of APR-util)" >&2
    done
    # only the new entries' indexes are fetched; the others stay as they are
    $SUDO apt-get update -qq $apt_lock -o Dir::Etc::sourcelist=- -o Dir::Etc::sourceparts="$tmp" \
        -o APT::Get::List-Cleanup=0 >&2
    # readable by everyone, as apt run by a user (apt-get source) reads it
    $SUDO install -m 644 "$tmp"/* /etc/apt/sources.list.d/
    rm -rf "$tmp"
fi

apt-get source -qq "apr-util=$srcver" >apt-source.log 2>&1 || {
    cat apt-source.log >&2
    echo "static-deps: apt-get source apr-util=$srcver failed (an archive drops a" \
         "version its update replaced: apt-get update && apt-get install" \
         "libaprutil1-dev, then make again)" >&2; exit 1; }
src=$(find . -mindepth 1 -maxdepth 1 -type d -name 'apr-util-*' | head -n 1)
[ -n "$src" ] || { echo "static-deps: apt-get source unpacked nothing" >&2; exit 1; }
cd "$src"

# Debian's options for the package (debian/rules), less what needs a
# shared object: no DSO drivers (apr_dbd finds sqlite3 in its built-in
# table, never through dlopen), no PostgreSQL, MySQL or ODBC driver, no
# LDAP, no DBM library (its own SDBM only), no iconv (glibc loads its
# converters as shared objects); the OpenSSL crypto driver is
# built in as Debian's is. Debian's compiler flags. The source is as
# Debian patched it; its patches to configure.in only concern the -L and
# -I flags apu-config prints, so the shipped configure is used as is
# (no autoconf run).
CFLAGS=$(dpkg-buildflags --get CFLAGS)
CPPFLAGS=$(dpkg-buildflags --get CPPFLAGS)
export CFLAGS CPPFLAGS
./configure --prefix="$prefix" --with-apr=/usr/bin/apr-1-config \
    --disable-util-dso --with-sqlite3=/usr --without-sqlite2 --without-pgsql \
    --without-mysql --without-odbc --without-oracle --without-freetds \
    --without-ldap --without-berkeley-db --without-gdbm --without-ndbm \
    --with-crypto --with-openssl=/usr --with-expat=/usr --without-iconv \
    ac_cv_func_pthread_mutexattr_setpshared=no ac_cv_func_sem_open=no \
    >configure.log 2>&1 || {
    tail -n 30 configure.log >&2; echo "static-deps: configure failed ($work/$src/configure.log)" >&2; exit 1; }
grep -q '^#define APU_HAVE_SQLITE3 *1' include/apu.h || {
    echo "static-deps: configure found no SQLite 3 (libsqlite3-dev)" >&2; exit 1; }
make -j"$(nproc 2>/dev/null || echo 1)" >make.log 2>&1 && make install >>make.log 2>&1 || {
    tail -n 30 make.log >&2; echo "static-deps: make failed ($work/$src/make.log)" >&2; exit 1; }

cd "$prefix"
rm -rf "$work" "$prefix"/.apr-util-*
touch "$stamp"
