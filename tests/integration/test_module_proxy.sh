#!/usr/bin/env bash
# mod_wirehook in front of mod_proxy (app/backend.py on a second loopback
# port, outside httpd) and across a mod_rewrite internal redirect.
. "$(dirname "$0")/lib.sh"
WH_EXTRA_MODULES="proxy proxy_http rewrite"
wh_init
BACK=$(wh_free_port)
wh_backend_start "$BACK" || exit 1
DEAD=$(wh_free_port)
mkdir -p "$T/htdocs/rw"
wh_httpd_extra "<Location /proxied>
    WirehookConfig $WH_CONF
    ProxyPass http://127.0.0.1:$BACK/backend
</Location>
<Location /proxied-dead>
    WirehookConfig $WH_CONF
    ProxyPass http://127.0.0.1:$DEAD/nothing
</Location>
Alias /rw \"$T/htdocs/rw\"
<Directory \"$T/htdocs/rw\">
    WirehookConfig $WH_CONF
    RewriteEngine On
    RewriteRule ^ /v1/wires [PT]
</Directory>"
wh_httpd_conf
wh_httpd_start || exit 1
P="$WH_URL/proxied"

b=$(wh_body Complete)
id=$(wh_body_id "$b")
wh_post "$P" "$b" -H 'Wirehook-Verified: forged' -H 'Wirehook-Status: Forged'
assert_status 200 "proxied: accepted and forwarded"
assert_contains "$WH_BODY" '"app":"received"' "proxied: the backend answered"
d=$(wh_app_last)
assert_true "proxied: backend received the exact bytes" cmp -s "$b" "$d/body"
assert_eq 1 "$(wh_app_env "$d" HTTP_WIREHOOK_VERIFIED)" "proxied: Wirehook-Verified: 1"
assert_eq "$id" "$(wh_app_env "$d" HTTP_WIREHOOK_NOTIFICATION_ID)" "proxied: Wirehook-Notification-Id"
assert_eq wire.status "$(wh_app_env "$d" HTTP_WIREHOOK_EVENT_TYPE)" "proxied: Wirehook-Event-Type"
assert_eq WP-2026-000481 "$(wh_app_env "$d" HTTP_WIREHOOK_PAYMENT_ID)" "proxied: Wirehook-Payment-Id"
assert_eq Complete "$(wh_app_env "$d" HTTP_WIREHOOK_STATUS)" "proxied: Wirehook-Status (forged value replaced)"
assert_eq 1 "$(wh_app_env "$d" HTTP_WIREHOOK_STATUS_KNOWN)" "proxied: Wirehook-Status-Known"
assert_ne "" "$(wh_app_env "$d" HTTP_WIREHOOK_EVENT_TIME)" "proxied: Wirehook-Event-Time"

c=$(wh_body Processed)
wh_post "$P" "$c" -H 'Transfer-Encoding: chunked'
assert_status 200 "proxied: chunked request forwarded"
d=$(wh_app_last)
assert_true "proxied: chunked body forwarded byte for byte" cmp -s "$c" "$d/body"
assert_eq "$(wc -c <"$c" | tr -d ' ')" "$(wh_app_env "$d" CONTENT_LENGTH)" "proxied: backend sees Content-Length"
assert_eq 0 "$(wh_app_env "$d" HTTP_WIREHOOK_STATUS_KNOWN)" "proxied: Processed flagged unknown"

n=$(wh_app_calls)
WH_AUTH=- wh_post "$P" "$(wh_body Complete)"
assert_status 401 "proxied: unauthenticated refused"
WH_SIG=$(printf 'a%.0s' $(seq 64)) wh_post "$P" "$(wh_body Complete)"
assert_json_code signature_mismatch "proxied: mismatch refused"
wh_post "$P" "$b"
assert_json_code duplicate "proxied: duplicate not forwarded"
assert_eq "$n" "$(wh_app_calls)" "proxied: nothing rejected reached the backend"

# backend down: 5xx, the id is forgotten, the retry is tried again
x=$(wh_body Complete)
wh_post "$WH_URL/proxied-dead" "$x"
assert_ne 200 "$WH_STATUS" "proxied-dead: backend down answers 5xx ($WH_STATUS)"
wh_post "$WH_URL/proxied-dead" "$x"
assert_ne duplicate "$(wh_json_code "$WH_BODY")" "proxied-dead: the retry is not a duplicate"

# internal redirect (mod_rewrite [PT]) to another protected location
wh_app_reset
r=$(wh_body Complete)
wh_post "$WH_URL/rw/anything" "$r"
assert_status 200 "rewrite: accepted across the internal redirect"
assert_eq 1 "$(wh_app_calls)" "rewrite: delivered once"
d=$(wh_app_last)
assert_true "rewrite: exact bytes after the redirect" cmp -s "$r" "$d/body"
assert_eq 1 "$(wh_app_env "$d" WIREHOOK_VERIFIED)" "rewrite: facts survive the redirect"
WH_AUTH=- wh_post "$WH_URL/rw/anything" "$(wh_body Complete)"
assert_status 401 "rewrite: unsigned refused before the rewrite"
assert_eq 1 "$(wh_app_calls)" "rewrite: refused request did not reach the app"

# keep-alive survives an early rejection with a small body
curl -s -o /dev/null -o /dev/null -w '%{http_code} %{num_connects}\n' -X POST -H 'Content-Type: application/json' \
    --data-binary @"$b" "$P" "$P" >"$T/ka.out" 2>&1
assert_eq "401 0" "$(tail -n 1 "$T/ka.out")" "keep-alive: second request on the same connection after a 401"

wh_done
