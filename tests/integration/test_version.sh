#!/usr/bin/env bash
# One version, from one place (the first line of debian/changelog, through
# shared/verify/wh_version.c), everywhere a user looks: wirehook --version,
# the module's start-up line (WH00992, at each start and graceful
# restart), and server-status (?auto's WirehookVersion line, and the HTML
# page). The start is quiet: that line, one short line per
# configuration (WH00993), and no replay store essay (WH00962 is debug).
. "$(dirname "$0")/lib.sh"
wh_init
VERSION=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$WH_TOP/debian/changelog")
assert_ne "" "$VERSION" "debian/changelog names a version"

out=$("$WIREHOOK" --version)
assert_eq 0 $? "wirehook --version exits 0"
assert_eq "wirehook $VERSION" "$out" "wirehook --version prints the changelog's version"
assert_contains "$("$WIREHOOK" --help)" "--version" "wirehook --help shows --version"

wh_write_config "$T/etc/second.conf" "InboxDriver pgsql" "InboxParams \"host=127.0.0.1 password=hunter2-secret dbname=x\""
wh_httpd_extra "<Location /second>
    WirehookConfig $T/etc/second.conf
</Location>
<Location /server-status>
    SetHandler server-status
    Require ip 127.0.0.1
</Location>"
WH_LOGLEVEL=warn WH_EXTRA_MODULES="status ${WH_EXTRA_MODULES:-}" wh_httpd_conf
wh_httpd_start || exit 1

log=$(wh_errlog)
assert_eq 1 "$(grep -c "WH00992: mod_wirehook $VERSION: 2 WirehookConfig files" <<<"$log")" \
    "one start-up line with the version (LogLevel warn shows notices)"
assert_eq 2 "$(grep -c 'WH00993: ' <<<"$log")" "one line per configuration"
line=$(grep 'WH00993: ' <<<"$log" | grep "$WH_CONF")
assert_contains "$line" "replay store lmdb (" "... naming the replay store"
assert_contains "$line" "inbox sqlite3 $WH_INBOX_DB" "... and an SQLite inbox by its file"
second=$(grep 'WH00993: ' <<<"$log" | grep "second.conf")
assert_contains "$second" "inbox pgsql" "a PostgreSQL inbox by its driver"
assert_not_contains "$second" "hunter2" "... never by its conninfo"
assert_not_contains "$log" "WH00962" "no replay store essay at the default level"
long=$(grep 'WH0099[23]: ' <<<"$log" | awk -F'WH0099' '{ if (length($2) > 200) print }')
assert_eq "" "$long" "the start-up lines are short"
# (WH00989 is the console's advice for an inbox without one: docs/console.md)
assert_eq "" "$(grep -E '\[(wirehook|core):(warn|error|crit)\]' <<<"$log" | grep -v 'WH00989: ')" \
    "no warning at a normal start"

wh_curl "$WH_URL/server-status?auto"
assert_status 200 "server-status?auto answers"
assert_contains "$WH_BODY" "WirehookVersion: $VERSION" "?auto has WirehookVersion"
wh_curl "$WH_URL/server-status"
assert_contains "$WH_BODY" "mod_wirehook $VERSION" "the HTML page shows the version"

wh_httpd_graceful
assert_eq 2 "$(grep -c "WH00992: mod_wirehook $VERSION" "$T/logs/error.log")" "a graceful restart logs the line again"
wh_done
