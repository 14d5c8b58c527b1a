#!/usr/bin/env bash
# mod_wirehook in front of mod_proxy (app/backend.py on a second loopback
# port, outside httpd) and across a mod_rewrite internal redirect.
. "$(dirname "$0")/lib.sh"
WH_EXTRA_MODULES="proxy proxy_http rewrite headers setenvif"
wh_init
BACK=$(wh_free_port)
wh_backend_start "$BACK" || exit 1
DEAD=$(wh_free_port)
mkdir -p "$T/htdocs/rw" "$T/htdocs/rwp"
wh_httpd_extra "<Location /proxied>
    WirehookConfig $WH_CONF
    ProxyPass http://127.0.0.1:$BACK/backend
</Location>
<Location /proxied-trailers>
    WirehookConfig $WH_CONF
    ProxyPass http://127.0.0.1:$BACK/backend
</Location>
<Location /open-proxied>
    ProxyPass http://127.0.0.1:$BACK/open
</Location>
MergeTrailers on
<Location /proxied-dead>
    WirehookConfig $WH_CONF
    ProxyPass http://127.0.0.1:$DEAD/nothing
</Location>
Alias /rw \"$T/htdocs/rw\"
<Directory \"$T/htdocs/rw\">
    WirehookConfig $WH_CONF
    RewriteEngine On
    RewriteRule ^ /v1/wires [PT]
</Directory>
<Location /proxied-env>
    WirehookConfig $WH_CONF
    SetEnvIf Request_URI . WIREHOOK_STATUS=Forged
    RequestHeader set X-Env-Status \"%{WIREHOOK_STATUS}e\"
    ProxyPass http://127.0.0.1:$BACK/backend
</Location>
Alias /rwp \"$T/htdocs/rwp\"
<Directory \"$T/htdocs/rwp\">
    WirehookConfig $WH_CONF
    RewriteEngine On
    RewriteRule ^ /proxied [PT]
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

# a fact the configuration set before the module ran (SetEnvIf) is
# replaced, not shadowed: what the rest of the request reads is the
# verified value (mod_headers, after the module, reads the environment)
wh_post "$WH_URL/proxied-env" "$(wh_body Complete)"
assert_status 200 "SetEnvIf WIREHOOK_STATUS: accepted"
d=$(wh_app_last)
assert_eq Complete "$(wh_app_env "$d" HTTP_X_ENV_STATUS)" "SetEnvIf WIREHOOK_STATUS: replaced by the verified status"

# an internal redirect to a proxied location: the new request shares the
# headers the facts were published on, and publishes them again; each
# reaches the backend once
n=$(wh_app_calls)
r=$(wh_body Complete)
wh_post "$WH_URL/rwp/anything" "$r" -H 'Wirehook-Status: Forged'
assert_status 200 "rewrite to a proxy: accepted"
assert_eq $((n + 1)) "$(wh_app_calls)" "rewrite to a proxy: forwarded once"
d=$(wh_app_last)
for h in VERIFIED NOTIFICATION_ID EVENT_TYPE EVENT_TIME PAYMENT_ID STATUS STATUS_KNOWN; do
    assert_eq 1 "$(grep -c "^HTTP_WIREHOOK_$h=" "$d/env")" "rewrite to a proxy: one Wirehook-${h} header"
done
assert_eq Complete "$(wh_app_env "$d" HTTP_WIREHOOK_STATUS)" "rewrite to a proxy: the status is the verified one"

# ---- client facts in every spelling ----------------------------------
# backend.py, like WSGI and CGI environments, folds '_' and '-' together:
# a client's Wirehook_Verified would arrive as HTTP_WIREHOOK_VERIFIED
mkdir -p "$T/open-proxy"
u=$(wh_body Complete)
wh_post "$P" "$u" -H 'Wirehook_Verified: forged' -H 'wirehook_payment_id: FORGED' \
    -H 'WIREHOOK-STATUS: Forged' -H 'wIrEhOoK_uSeR: mallory' -H 'Wirehook_Anything: x'
assert_status 200 "underscores: accepted"
d=$(wh_app_last)
assert_eq 1 "$(grep -c '^HTTP_WIREHOOK_VERIFIED=' "$d/env")" "underscores: one Wirehook-Verified reaches the backend, not two"
assert_eq 1 "$(wh_app_env "$d" HTTP_WIREHOOK_VERIFIED)" "underscores: it is the module's"
assert_eq WP-2026-000481 "$(wh_app_env "$d" HTTP_WIREHOOK_PAYMENT_ID)" "underscores: the payment id is the verified one"
assert_eq 1 "$(grep -c '^HTTP_WIREHOOK_PAYMENT_ID=' "$d/env")" "underscores: no second payment id"
assert_eq Complete "$(wh_app_env "$d" HTTP_WIREHOOK_STATUS)" "upper case: the status is the verified one"
assert_eq "" "$(wh_app_env "$d" HTTP_WIREHOOK_USER)" "mixed case: the forged user is gone"
assert_eq "" "$(wh_app_env "$d" HTTP_WIREHOOK_ANYTHING)" "any Wirehook_ header is gone"
assert_contains "$(wh_errlog)" "removed client-sent request header Wirehook_Verified" "the removal is logged at debug"
# chunked, with forged facts as trailers merged into the headers
python3 - "$WH_PORT" "$u" "$WH_USER:$WH_PASSWD" "$WH_SECRETS" "$WIREHOOK" >"$T/trailer.out" 2>&1 <<'EOF'
import base64, socket, subprocess, sys, time
port, path, cred, secrets, wirehook = sys.argv[1:6]
body = open(path, "rb").read().replace(b"WP-2026-000481", b"WP-TRAILER-0001")
import re, uuid
body = re.sub(rb'"notificationId": "[^"]*"', b'"notificationId": "' + str(uuid.uuid4()).encode() + b'"', body)
ts = str(int(time.time()))
url = "http://127.0.0.1:%s/proxied-trailers" % port
open(path + ".t", "wb").write(body)
sig = subprocess.check_output([wirehook, "sign", "--secret-file", secrets, "--url", url,
                               "--timestamp", ts, path + ".t"]).decode().strip()
req = ("POST /proxied-trailers HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/json\r\n"
       "Authorization: Basic %s\r\nX-Timestamp: %s\r\nX-Signature: %s\r\n"
       "Transfer-Encoding: chunked\r\nTrailer: Wirehook_Verified\r\nConnection: close\r\n\r\n"
       % (port, base64.b64encode(cred.encode()).decode(), ts, sig)).encode()
req += b"%x\r\n" % len(body) + body + b"\r\n0\r\nWirehook_Verified: forged\r\nWirehook-Payment-Id: FORGED\r\n\r\n"
s = socket.create_connection(("127.0.0.1", int(port)))
s.sendall(req)
s.settimeout(10)
print(s.recv(300).decode(errors="replace").split("\r\n")[0])
EOF
assert_contains "$(cat "$T/trailer.out")" " 200 " "trailers: accepted"
d=$(wh_app_last)
assert_eq WP-TRAILER-0001 "$(wh_app_env "$d" HTTP_WIREHOOK_PAYMENT_ID)" "trailers: merged trailers bring no forged facts"
assert_eq 1 "$(grep -c '^HTTP_WIREHOOK_VERIFIED=' "$d/env")" "trailers: one Wirehook-Verified, the module's"
# unprotected proxied locations get no client facts either
n=$(wh_app_calls)
wh_curl -X POST --data-binary @"$u" -H 'Content-Type: application/json' \
    -H 'Wirehook_Verified: 1' -H 'Wirehook-Payment-Id: FORGED' "$WH_URL/open-proxied"
assert_eq $((n + 1)) "$(wh_app_calls)" "open proxied location: forwarded (no WirehookConfig there)"
d=$(wh_app_last)
assert_eq "" "$(wh_app_env "$d" HTTP_WIREHOOK_VERIFIED)" "open proxied location: no Wirehook_Verified reaches the backend"
assert_eq "" "$(wh_app_env "$d" HTTP_WIREHOOK_PAYMENT_ID)" "open proxied location: no Wirehook-Payment-Id"

# keep-alive survives an early rejection with a small body
curl -s -o /dev/null -o /dev/null -w '%{http_code} %{num_connects}\n' -X POST -H 'Content-Type: application/json' \
    --data-binary @"$b" "$P" "$P" >"$T/ka.out" 2>&1
assert_eq "401 0" "$(tail -n 1 "$T/ka.out")" "keep-alive: second request on the same connection after a 401"

wh_done
