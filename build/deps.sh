#!/bin/sh
# Installs the Debian packages wirehook needs, only when something is
# missing, so that a fresh Debian 12 machine builds and tests.
#
#   build/deps.sh          to build: make all, make deb (make deps)
#   build/deps.sh --test   to test: make check's httpd, databases, tools,
#                          and build/deps-extra.txt (make test-deps)
set -e
BUILD_PKGS="build-essential pkg-config apache2-dev libapr1-dev libaprutil1-dev
libjson-c-dev libssl-dev libcurl4-openssl-dev liblmdb-dev libhiredis-dev libmemcached-dev libsqlite3-dev
libfcgi-dev debhelper dpkg-dev"
TEST_PKGS="apache2 apache2-utils libaprutil1-dbd-sqlite3 libaprutil1-dbd-pgsql
libcunit1-dev curl openssl iproute2 sqlite3 postgresql valgrind cppcheck"
case "${1:-}" in
    "")     PKGS=$BUILD_PKGS ;;
    --test)
        PKGS=$TEST_PKGS
        # Packages only some tests, examples or benchmarks need, one per line.
        extra="$(dirname "$0")/deps-extra.txt"
        [ -f "$extra" ] && PKGS="$PKGS $(grep -v '^#' "$extra")" ;;
    *)      echo "usage: build/deps.sh [--test]" >&2; exit 2 ;;
esac
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
