#!/bin/sh
# Installs the Debian packages wirehook needs, only when something is
# missing, so `make check` works on a fresh Debian 12 machine.
set -e
PKGS="build-essential pkg-config apache2 apache2-dev apache2-utils libapr1-dev libaprutil1-dev
libaprutil1-dbd-sqlite3 libaprutil1-dbd-pgsql libjson-c-dev libssl-dev libcunit1-dev
libcurl4-openssl-dev liblmdb-dev libsqlite3-dev curl openssl iproute2 sqlite3 postgresql valgrind cppcheck"
# Packages only some tests, examples or benchmarks need, one per line.
extra="$(dirname "$0")/deps-extra.txt"
[ -f "$extra" ] && PKGS="$PKGS $(grep -v '^#' "$extra")"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >&2
