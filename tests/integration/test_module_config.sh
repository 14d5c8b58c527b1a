#!/usr/bin/env bash
# mod_wirehook configuration: custom header names, millisecond timestamps,
# SignedUrl behind a pretend proxy, merging, relative paths, restarts,
# `apache2 -t` and startup failures.
. "$(dirname "$0")/lib.sh"
WH_EXTRA_MODULES="socache_memcache"
wh_init

CUSTOM="$T/etc/custom.conf"
wh_write_config "$CUSTOM" "TimestampHeader X-Bank-Ts" "SignatureHeader X-Bank-Sig" \
    "TimestampUnit milliseconds" "MaxBodySize 4096"
PATHFORM="$T/etc/pathform.conf"
wh_write_config "$PATHFORM" "SignedUrlForm path"
PROXIED="$T/etc/proxied.conf"
PUBLIC_URL="https://bank-facing.example.com/v1/wires"
wh_write_config "$PROXIED" "SignedUrl $PUBLIC_URL"
EXPLICIT="$T/etc/explicit-cache.conf"
EXPLICIT_TOLERANCE=3
wh_write_config "$EXPLICIT" "ReplayCache \"shmcb:$T/run/replay-explicit(256000)\"" "ReplayWindow 900" \
    "TimestampTolerance $EXPLICIT_TOLERANCE"

MEMCACHE="$T/etc/memcache.conf"
DEADMC=$(wh_free_port)
wh_write_config "$MEMCACHE" "ReplayCache memcache:127.0.0.1:$DEADMC"
VPORT=$(wh_free_port)
wh_httpd_extra "Listen 127.0.0.1:$VPORT
<VirtualHost 127.0.0.1:$VPORT>
    WirehookConfig $WH_CONF
    ScriptAlias /anything \"$T/cgi-bin/record.cgi\"
</VirtualHost>
ScriptAlias /memcache \"$T/cgi-bin/record.cgi\"
<Location /memcache>
    WirehookConfig $MEMCACHE
</Location>
ScriptAlias /limited \"$T/cgi-bin/record.cgi\"
<Location /limited>
    LimitRequestBody 100
    WirehookConfig $WH_CONF
</Location>"
wh_httpd_extra "ScriptAlias /custom \"$T/cgi-bin/record.cgi\"
<Location /custom>
    WirehookConfig $CUSTOM
</Location>
ScriptAlias /path-signed \"$T/cgi-bin/record.cgi\"
<Location /path-signed>
    WirehookConfig $PATHFORM
</Location>
ScriptAlias /behind-proxy \"$T/cgi-bin/record.cgi\"
<Location /behind-proxy>
    WirehookConfig $PROXIED
</Location>
ScriptAlias /relative \"$T/cgi-bin/record.cgi\"
<Location /relative>
    WirehookConfig etc/wirehook.conf
</Location>
ScriptAlias /explicit \"$T/cgi-bin/record.cgi\"
<Location /explicit>
    WirehookConfig $EXPLICIT
</Location>
<Location /v1/wires/unprotected>
    WirehookConfig off
</Location>
<Location /v1/wires/custom>
    WirehookConfig $CUSTOM
</Location>"
wh_httpd_conf
wh_httpd_start || exit 1
HTTPD_STARTED=$(printf '%(%s)T' -1)
W="$WH_URL/v1/wires"

# ------------------------------------------------------- header names ---
b=$(wh_body Complete)
ms=$(($(date +%s) * 1000 + 123))
WH_TS_HEADER=X-Bank-Ts WH_SIG_HEADER=X-Bank-Sig WH_TS=$ms wh_post "$WH_URL/custom" "$b"
assert_status 200 "custom header names + millisecond timestamp accepted"
WH_TS_HEADER=X-Bank-Ts WH_SIG_HEADER=X-Bank-Sig WH_TS=$(date +%s) wh_post "$WH_URL/custom" "$(wh_body Complete)"
assert_json_code timestamp_expired "seconds where milliseconds are configured: expired (1970)"
wh_post "$WH_URL/custom" "$(wh_body Complete)"
assert_json_code timestamp_missing "default header names are not read when renamed"
out=$("$WIREHOOK" send --config "$CUSTOM" --url "$WH_URL/custom" --user "$WH_USER:$WH_PASSWD" --sample Complete 2>&1)
assert_contains "$out" "200 " "wirehook send follows the config's header names and unit"
python3 -c 'import sys; sys.stdout.write("{\"pad\":\"" + "x" * 5000 + "\"}")' >"$T/5k.json"
WH_TS_HEADER=X-Bank-Ts WH_SIG_HEADER=X-Bank-Sig WH_TS=$ms wh_post "$WH_URL/custom" "$T/5k.json"
assert_json_code body_too_large "MaxBodySize of the custom config applies"

# ------------------------------------------------------- SignedUrl ---
b=$(wh_body Complete)
WH_SIGN_URL=$PUBLIC_URL wh_post "$WH_URL/behind-proxy" "$b"
assert_status 200 "signed with SignedUrl, delivered on the local URL: accepted"
wh_post "$WH_URL/behind-proxy" "$(wh_body Complete)"
assert_json_code signature_mismatch "signed with the local URL while SignedUrl is set: mismatch"
out=$("$WIREHOOK" send --config "$PROXIED" --url "$WH_URL/behind-proxy" --user "$WH_USER:$WH_PASSWD" --sample Complete 2>&1)
assert_contains "$out" "200 " "wirehook send signs the config's SignedUrl"
out=$("$WIREHOOK" send --config "$WH_CONF" --signed-url "$PUBLIC_URL" --url "$WH_URL/behind-proxy" --user "$WH_USER:$WH_PASSWD" --sample Complete 2>&1)
assert_contains "$out" "200 " "wirehook send --signed-url"
# without SignedUrl the URL is the one the request carried, Host included
WH_SIGN_URL="http://localhost:$WH_PORT/v1/wires" wh_post "$W" "$(wh_body Complete)" -H "Host: localhost:$WH_PORT"
assert_status 200 "the signed URL follows the Host header"
WH_SIGN_URL="$W?tenant=7" wh_post "$W?tenant=7" "$(wh_body Complete)"
assert_status 200 "the query string is part of the signed URL"

# SignedUrlForm path: the sender signs only path and query
WH_SIGN_URL="/path-signed?tenant=7" wh_post "$WH_URL/path-signed?tenant=7" "$(wh_body Complete)"
assert_status 200 "SignedUrlForm path: path and query signed, accepted"
wh_post "$WH_URL/path-signed" "$(wh_body Complete)"
assert_json_code signature_mismatch "SignedUrlForm path: the absolute URL signed is a mismatch"
out=$("$WIREHOOK" send --config "$PATHFORM" --url "$WH_URL/path-signed?x=1" --user "$WH_USER:$WH_PASSWD" --sample Complete 2>&1)
assert_contains "$out" "200 " "wirehook send signs the path when SignedUrlForm is path"

# ------------------------------------------------------- merging ---
wh_curl -X POST -H 'Content-Type: application/json' --data-binary @"$b" "$W/unprotected"
assert_status 200 "WirehookConfig off inside a protected Location"
assert_eq "" "$(wh_app_env "$(wh_app_last)" WIREHOOK_VERIFIED)" "nothing verified under off"
wh_post "$W/custom" "$(wh_body Complete)"
assert_json_code timestamp_missing "the inner WirehookConfig wins"
wh_post "$WH_URL/relative" "$(wh_body Complete)"
assert_status 200 "a relative path resolves against ServerRoot"

# ------------------------------------------------------- server context ---
V="http://127.0.0.1:$VPORT/anything"
wh_post "$V" "$(wh_body Complete)"
assert_status 200 "WirehookConfig in a <VirtualHost> protects it"
WH_AUTH=- wh_post "$V" "$(wh_body Complete)"
assert_status 401 "<VirtualHost> context: unsigned refused"

# ------------------------------------------------------- replay store down ---
n=$(wh_app_calls)
wh_post "$WH_URL/memcache" "$(wh_body Complete)"
assert_status 503 "replay store unreachable: 503"
assert_json_code replay_cache_unavailable "replay store unreachable: replay_cache_unavailable"
assert_eq "$n" "$(wh_app_calls)" "replay store unreachable: nothing delivered"

# ------------------------------------------------------- lower filters ---
# errors below the module keep httpd's own status (never a 401)
wh_post "$WH_URL/limited" "$(wh_body Complete)" -H 'Transfer-Encoding: chunked'
assert_status 413 "LimitRequestBody below MaxBodySize: httpd's 413 passes through"
ts=$(date +%s)
python3 - "$WH_PORT" "$WH_USER:$WH_PASSWD" "$ts" >"$T/badchunk.out" <<'EOF2'
import base64, socket, sys
port, cred, ts = int(sys.argv[1]), sys.argv[2], sys.argv[3]
s = socket.create_connection(("127.0.0.1", port))
req = ("POST /v1/wires HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
       "Authorization: Basic %s\r\nX-Timestamp: %s\r\nX-Signature: %s\r\n"
       "Transfer-Encoding: chunked\r\n\r\nzz-not-hex\r\n{}\r\n0\r\n\r\n") % (
       port, base64.b64encode(cred.encode()).decode(), ts, "0" * 64)
s.sendall(req.encode())
s.settimeout(10)
print(s.recv(200).decode(errors="replace").split("\r\n")[0])
EOF2
assert_contains "$(cat "$T/badchunk.out")" " 400 " "bad chunked encoding: httpd's 400, not a 401"
wh_post "$W" "$(wh_body Complete)" -H 'Expect: 100-continue'
assert_status 200 "Expect: 100-continue is honoured while the body is read"
WH_AUTH=- wh_post "$W" "$(wh_body Complete)" -H 'Expect: 100-continue'
assert_status 401 "Expect: 100-continue refused early without the body"

# ------------------------------------------------------- explicit cache ---
# shmcb remembers only since httpd started: for its TimestampTolerance
# after the start it answers 503 to anything signed before then (see
# test_replay.sh). This suite can get here sooner; wait that out first
# (one second more: the start was a little before HTTPD_STARTED).
while [ $(( $(printf '%(%s)T' -1) - HTTPD_STARTED )) -le $((EXPLICIT_TOLERANCE + 1)) ]; do sleep 0.2; done
e=$(wh_body Complete)
wh_post "$WH_URL/explicit" "$e"
assert_status 200 "explicit ReplayCache shmcb:path(size)"
wh_post "$WH_URL/explicit" "$e"
assert_json_code duplicate "explicit ReplayCache detects the duplicate"

# ------------------------------------------------------- restarts ---
g=$(wh_body Complete)
wh_post "$W" "$g"
assert_status 200 "before graceful restart"
pid=$(cat "$T/run/httpd.pid")
assert_true "graceful restart" wh_httpd_graceful
assert_eq "$pid" "$(cat "$T/run/httpd.pid")" "same parent after graceful restart"
wh_post "$W" "$(wh_body Complete)"
assert_status 200 "works after graceful restart"
wh_post "$W" "$g"
assert_status 200 "a copy sent before the restart is answered 200 after it"
# (shmcb lives with the configuration generation: a restart starts it
# empty, see wh_mod_replay.c; the copy above may be delivered again)
WH_TS_HEADER=X-Bank-Ts WH_SIG_HEADER=X-Bank-Sig WH_TS=$(($(date +%s) * 1000)) wh_post "$WH_URL/custom" "$(wh_body Complete)"
assert_status 200 "custom config kept after graceful restart"
assert_true "full restart" wh_httpd_restart
wh_post "$W" "$(wh_body Complete)"
assert_status 200 "works after a full restart"
WH_SIGN_URL=$PUBLIC_URL wh_post "$WH_URL/behind-proxy" "$(wh_body Complete)"
assert_status 200 "SignedUrl config kept after a full restart"
wh_post "$W" "$(wh_body Complete)" -H 'Authorization: Basic Zm9v'
assert_json_code auth_required "verdicts unchanged after restart"
wh_httpd_stop

# ------------------------------------------------------- apache2 -t ---
printf 'SigningSecretFile %s\nBasicAuthFile %s\nTimestampToleranse 300\nFrobnicate 1\nMaxBodySize lots\n' "$WH_SECRETS" "$WH_HTPASSWD" >"$T/etc/broken.conf"
wh_conf_variant broken "s|WirehookConfig $CUSTOM|WirehookConfig $T/etc/broken.conf|" >/dev/null
WH_HTTPD_CONF="$T/httpd-broken.conf" wh_httpd_configtest
assert_ne 0 "$?" "apache2 -t fails on a broken wirehook config"
assert_contains "$WH_OUT" "$T/etc/broken.conf:3" "apache2 -t names the wirehook config's file:line"
# Each problem on a line of its own, with the key named and a suggestion;
# no literal "\n" escapes in the output.
line3=$(printf '%s\n' "$WH_OUT" | grep -c "WH00954: WirehookConfig $T/etc/broken.conf: $T/etc/broken.conf:3: unknown key 'TimestampToleranse' (did you mean TimestampTolerance?)$")
assert_eq 1 "$line3" "apache2 -t: the misspelt key is named on its own line, with 'did you mean'"
line4=$(printf '%s\n' "$WH_OUT" | grep -c "broken.conf:4: unknown key 'Frobnicate'$")
assert_eq 1 "$line4" "apache2 -t: a second unknown key gets its own line"
line5=$(printf '%s\n' "$WH_OUT" | grep -c "broken.conf:5: MaxBodySize")
assert_eq 1 "$line5" "apache2 -t: a bad value gets its own line"
assert_not_contains "$WH_OUT" '\n' "apache2 -t prints no literal \\n escapes"
assert_contains "$WH_OUT" "3 errors in the configuration file" "apache2 -t summarises with the count"
WH_QUIET_START=1 WH_HTTPD_CONF="$T/httpd-broken.conf" wh_httpd_start
assert_ne 0 "$?" "httpd refuses to start with a broken wirehook config"
assert_false "nothing listens after the refused start" _wh_port_open

wh_write_config "$T/etc/nosecret.conf"
sed -i "s|^SigningSecretFile .*|SigningSecretFile $T/etc/does-not-exist.secret|" "$T/etc/nosecret.conf"
wh_conf_variant nosecret "s|WirehookConfig $CUSTOM|WirehookConfig $T/etc/nosecret.conf|" >/dev/null
WH_HTTPD_CONF="$T/httpd-nosecret.conf" wh_httpd_configtest
assert_ne 0 "$?" "apache2 -t fails when the secrets file is missing"
assert_contains "$WH_OUT" "does-not-exist.secret" "the missing secrets file is named"
WH_QUIET_START=1 WH_HTTPD_CONF="$T/httpd-nosecret.conf" wh_httpd_start
assert_ne 0 "$?" "httpd refuses to start without the secrets file"

wh_conf_variant noconf "s|WirehookConfig $CUSTOM|WirehookConfig $T/etc/not-there.conf|" >/dev/null
WH_HTTPD_CONF="$T/httpd-noconf.conf" wh_httpd_configtest
assert_ne 0 "$?" "apache2 -t fails when the wirehook config itself is missing"

wh_conf_variant nosocache "/socache_shmcb/d" >/dev/null
WH_HTTPD_CONF="$T/httpd-nosocache.conf" wh_httpd_configtest
assert_ne 0 "$?" "apache2 -t fails when the ReplayCache provider is not loaded"
assert_contains "$WH_OUT" "socache_shmcb" "the message names the module to load"
WH_QUIET_START=1 WH_HTTPD_CONF="$T/httpd-nosocache.conf" wh_httpd_start
assert_ne 0 "$?" "httpd refuses to start without the ReplayCache provider"

WH_HTTPD_CONF="$T/httpd.conf" wh_httpd_configtest
assert_eq 0 "$?" "apache2 -t passes on the good configuration"

# permission hygiene: a world-readable secrets file is warned about
chmod 644 "$WH_SECRETS"
: >"$T/logs/error.log"
wh_httpd_start || exit 1
assert_contains "$(wh_errlog)" "WH00901" "startup warns about a world-readable secrets file"
assert_not_contains "$(wh_errlog)" "$WH_SECRET" "the warning does not reveal the secret"
wh_httpd_stop
chmod 600 "$WH_SECRETS"

wh_done
