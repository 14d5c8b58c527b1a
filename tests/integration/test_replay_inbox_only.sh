#!/usr/bin/env bash
# The inbox decides duplicates in its own database and ignores
# ReplayCache: a configuration named only beside SetHandler wirehook opens
# no replay store (no lmdb file, no WH00962 at start, no replay line in
# server-status), even when its ReplayCache names a server that is not
# there. A request that still reaches an application under it (another
# section gives its path another handler) is refused 503, never delivered
# without replay protection.
. "$(dirname "$0")/lib.sh"
wh_init
INBOX_ONLY="$T/etc/inbox-only.conf"
wh_write_config "$INBOX_ONLY" "InboxParams $T/data/only.db" \
    "ReplayCache redis:127.0.0.1:$(wh_free_port)"
# the standard layout's protected locations are left out: this server has the inbox alone
WH_EXTRA_MODULES="status" wh_httpd_conf
sed -i -e '/^<Location \/v1\/wires>$/,/^<\/Location>$/d' \
       -e '/^<Location \/ignore>$/,/^<\/Location>$/d' \
       -e '/^<Location \/static\/>$/,/^<\/Location>$/d' \
       -e '/^<Location \/inbox>$/,/^<\/Location>$/d' "$WH_HTTPD_CONF"
wh_httpd_extra "<Location /server-status>
    SetHandler server-status
    Require ip 127.0.0.1
</Location>
<Location /only>
    SetHandler wirehook
    WirehookConfig $INBOX_ONLY
</Location>
# an application under the inbox's path, by another section: the configuration
# was judged the inbox's alone, so this is refused
ScriptAlias /only/app \"$T/cgi-bin/record.cgi\"
<Location /only/app>
    SetHandler cgi-script
</Location>"
wh_httpd_start || exit 1

log=$(wh_errlog)
assert_not_contains "$log" "WH00962" "no replay store is announced at start"
assert_contains "$log" "WH00993: WirehookConfig $INBOX_ONLY: replay store none" "... the configuration's start-up line says it has none"
assert_false "no lmdb file is made" wh_glob_exists "$T/run/wirehook-replay.mdb*"
assert_not_contains "$log" "WH00982" "... nor warned about"
b=$(wh_body Complete)
wh_post "$WH_URL/only" "$b"
assert_status 200 "the inbox stores a notification (its ReplayCache's server is not there)"
assert_json_code accepted "... accepted"
wh_post "$WH_URL/only" "$b"
assert_json_code duplicate "... and decides its duplicate itself"
wh_curl "$WH_URL/server-status?auto"
assert_contains "$WH_BODY" "WirehookSite[0]Config: $INBOX_ONLY" "server-status lists the configuration"
assert_not_contains "$WH_BODY" "ReplayStore" "... without a replay store line"
wh_post "$WH_URL/only/app" "$(wh_body Complete)"
assert_status 503 "an application reached under the inbox-only configuration: 503"
assert_json_code replay_cache_unavailable "... replay_cache_unavailable"
assert_eq 0 "$(wh_app_calls)" "... never delivered"
assert_contains "$(wh_errlog)" "WH00995" "... and logged with the reason"

wh_done
