#!/usr/bin/env bash
# wirehook.cgi under a real httpd: every verdict code, the listing, the
# environment-based configuration and its errors, and a clean CGI answer
# on every path. Runs under mod_cgid (event MPM) by default; with
# WH_MPM=prefork under mod_cgi (test_cgi_prefork.sh does that).
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/inbox_lib.sh"
[ -x "$WH_BUILD/wirehook.cgi" ] || { echo "no $WH_BUILD/wirehook.cgi: build first" >&2; exit 1; }
ib_cgi_install
C="$WH_URL/cgi/inbox"
MPM=${WH_MPM:-event}
# What depends on how httpd runs the program (mod_cgid's socket or
# mod_cgi's pipes: the body in, the answer and its status line out,
# Authorization passed, stderr into the error log) runs under both MPMs;
# what the program does with its input (the listing's queries, SetEnv
# configuration, the auth cache, the WAL cap) is the same bytes either
# way and runs once, under event, unless WH_CGI_ALL=1.
ALL=""
[ "$MPM" = event ] || [ -n "${WH_CGI_ALL:-}" ] && ALL=1

# The standard config ($WH_CONF, the SQLite inbox the module's /inbox
# shares); variants configured through SetEnv only.
ib_cgi_location /cgi/inbox
ib_cgi_location /cgi/small "SetEnv WIREHOOK_CONFIG $WH_CONF" \
    "SetEnv WIREHOOK_MAXBODYSIZE 300" "SetEnv WIREHOOK_TimestampHeader X-Ts"
ib_cgi_location /cgi/envonly "SetEnv WIREHOOK_SIGNINGSECRETFILE $WH_SECRETS" \
    "SetEnv WIREHOOK_BASICAUTHFILE $WH_HTPASSWD" "SetEnv WIREHOOK_INBOXPARAMS $T/data/envonly.db" \
    "SetEnv WIREHOOK_AUTHREALM EnvRealm"
printf 'SigningSecretFile %s\nBasicAuthFile %s\nInboxParams %s\nBogusKey 1\n' \
    "$WH_SECRETS" "$WH_HTPASSWD" "$WH_INBOX_DB" >"$T/etc/broken.conf"
chmod 644 "$T/etc/broken.conf"
ib_cgi_location /cgi/badconf "SetEnv WIREHOOK_CONFIG $T/etc/broken.conf"
ib_cgi_location /cgi/unknownenv "SetEnv WIREHOOK_CONFIG $WH_CONF" "SetEnv WIREHOOK_NOSUCHKEY 1"
ib_cgi_location /cgi/configcase "SetEnv WIREHOOK_Config $WH_CONF"
ib_cgi_location /cgi/badvalue "SetEnv WIREHOOK_CONFIG $WH_CONF" "SetEnv WIREHOOK_MAXBODYSIZE lots"
ib_cgi_location /cgi/authcache "SetEnv WIREHOOK_CONFIG $WH_CONF" \
    "SetEnv WIREHOOK_INBOXPARAMS $T/data/authcache.db" "SetEnv WIREHOOK_CGILogLevel info"
ib_cgi_location /cgi/walcap "SetEnv WIREHOOK_CONFIG $WH_CONF" \
    "SetEnv WIREHOOK_INBOXPARAMS $T/data/walcap.db"
wh_write_config "$T/etc/noinbox.conf"
ib_cgi_location /cgi/noinbox "SetEnv WIREHOOK_CONFIG $T/etc/noinbox.conf"
# No SetEnv: beside.cgi reads .htbeside.conf beside it (as under suEXEC,
# test_cgi_suexec.sh); with SetEnv WIREHOOK_CONFIG, that file.
cp "$IB_CGI" "$T/cgi-bin/beside.cgi"
wh_write_config "$T/cgi-bin/.htbeside.conf" "InboxParams $T/data/beside.db"
IB_CGI_BIN="$T/cgi-bin/beside.cgi" ib_cgi_location /cgi/beside "SetEnv WH_UNRELATED 1"
IB_CGI_BIN="$T/cgi-bin/beside.cgi" ib_cgi_location /cgi/beside-env "SetEnv WIREHOOK_CONFIG $WH_CONF"
# what a query without '=' becomes for a CGI program: its arguments
printf '#!/bin/sh\nprintf "Content-Type: text/plain\\r\\n\\r\\n%%s" "$*"\n' >"$T/cgi-bin/argv.cgi"
chmod 755 "$T/cgi-bin/argv.cgi"
wh_httpd_extra "ScriptAlias /cgi/argv \"$T/cgi-bin/argv.cgi\""
# a configuration a client would like the CGI to read instead
wh_write_config "$T/etc/evil.conf" "InboxParams $T/data/evil.db"
# the self-contained CGI has no PostgreSQL client
wh_write_config "$T/etc/pgsql.conf" "InboxDriver pgsql" "InboxParams \"host=127.0.0.1 dbname=none\""
ib_cgi_location /cgi/pgsql "SetEnv WIREHOOK_CONFIG $T/etc/pgsql.conf"
wh_write_config "$T/etc/mysql.conf" "InboxDriver mysql" "InboxParams \"host=127.0.0.1 dbname=none\""
ib_cgi_location /cgi/mysql "SetEnv WIREHOOK_CONFIG $T/etc/mysql.conf"
# no CGIPassAuth: httpd withholds Authorization from the script
wh_httpd_extra "ScriptAlias /cgi/noauth \"$IB_CGI\"
<Location /cgi/noauth>
    SetEnv WIREHOOK_CONFIG $WH_CONF
</Location>
# the CGI as an error document: httpd runs it as a GET for the failed request
<Location /ecgi>
    ErrorDocument 404 /cgi/inbox
    CGIPassAuth On
</Location>"
wh_httpd_conf
wh_httpd_start || exit 1

inbox_count() { ib_sqlite "SELECT count(*) FROM $1"; }

# ------------------------------------------------------------ accepted ---
b=$(wh_body Complete)
id=$(wh_json_get "$(cat "$b")" 'd["notificationId"]')
wh_post "$C" "$b"
assert_status 200 "[$MPM] good event: 200"
assert_json_code accepted "[$MPM] good event: accepted"
assert_eq "$id" "$(wh_json_get "$WH_BODY" 'd["notificationId"]')" "[$MPM] ack names the notificationId"
assert_header Content-Type application/json "[$MPM] ack is JSON"
wh_post "$C" "$b"
assert_status 200 "[$MPM] second copy: 200"
assert_json_code duplicate "[$MPM] second copy: duplicate"
assert_eq 1 "$(ib_sqlite "SELECT count(*) FROM wh_events WHERE notification_id = '$id'")" \
    "[$MPM] stored once"
WH_SIGN_FILE="$WH_SECRET2_FILE" wh_post "$C" "$(wh_body Review)"
assert_json_code accepted "[$MPM] signed with the second (rotated) secret"
WH_AUTH="md5user:md5pass" wh_post "$C" "$(wh_body Reject)"
assert_json_code accepted "[$MPM] MD5 htpasswd user"
WH_AUTH="shauser:shapass" wh_post "$C" "$(wh_body Error)"
assert_json_code accepted "[$MPM] SHA htpasswd user"
wh_post "$C" "$(wh_body Processed)"
assert_json_code accepted "[$MPM] status outside the spec's list accepted (UnknownStatus accept)"
wh_post "$C" "$(wh_body Complete)" -H 'Transfer-Encoding: chunked'
assert_json_code accepted "[$MPM] chunked body (no CONTENT_LENGTH) within the limit"

# ------------------------------------------------------------- refused ---
# one fresh body for all of these: none of them may store it
nb=$(wh_body Complete)
WH_METHOD=PUT wh_post "$C" "$b"
assert_status 405 "[$MPM] PUT: 405"
assert_json_code method_not_allowed "[$MPM] PUT: method_not_allowed"
assert_header Allow "GET, HEAD, POST" "[$MPM] 405 names the allowed methods"
WH_METHOD=DELETE wh_curl -X DELETE "$C"
assert_status 405 "[$MPM] DELETE: 405"

WH_AUTH=- wh_post "$C" "$nb"
assert_status 401 "[$MPM] no Authorization: 401"
assert_json_code auth_required "[$MPM] no Authorization: auth_required"
assert_header WWW-Authenticate 'Basic realm="wirehook"' "[$MPM] challenge with the realm"
WH_AUTH="$WH_USER:wrong" wh_post "$C" "$nb"
assert_json_code auth_failed "[$MPM] wrong password: auth_failed"
assert_header WWW-Authenticate Basic "[$MPM] auth_failed challenges too"
wh_post "$WH_URL/cgi/noauth" "$nb"
assert_json_code auth_required "[$MPM] without CGIPassAuth the script never sees Authorization"

WH_CT=- wh_post "$C" "$nb"
assert_status 415 "[$MPM] no Content-Type: 415"
assert_json_code unsupported_media_type "[$MPM] no Content-Type: unsupported_media_type"
WH_CT=text/plain wh_post "$C" "$nb"
assert_json_code unsupported_media_type "[$MPM] text/plain: unsupported_media_type"

WH_TS_HEADER=X-Ts wh_post "$WH_URL/cgi/small" "$nb"
assert_status 413 "[$MPM] Content-Length over WIREHOOK_MAXBODYSIZE: 413"
assert_json_code body_too_large "[$MPM] body_too_large"
WH_TS_HEADER=X-Ts wh_post "$WH_URL/cgi/small" "$nb" -H 'Transfer-Encoding: chunked'
assert_status 413 "[$MPM] chunked body over the limit: 413"
python3 -c 'import sys; sys.stdout.write("{\"pad\":\"" + "x" * 70000 + "\"}")' >"$T/big.json"
wh_post "$C" "$T/big.json"
assert_status 413 "[$MPM] 70 kB over the default 64 KiB: 413"

WH_TS=- wh_post "$C" "$nb"
assert_json_code timestamp_missing "[$MPM] timestamp_missing"
WH_TS=17000x wh_post "$C" "$nb"
assert_json_code timestamp_malformed "[$MPM] timestamp_malformed"
WH_TS=$(( $(date +%s) - 1000 )) wh_post "$C" "$nb"
assert_json_code timestamp_expired "[$MPM] timestamp_expired"
WH_TS=$(( $(date +%s) + 1000 )) wh_post "$C" "$nb"
assert_json_code timestamp_in_future "[$MPM] timestamp_in_future"
wh_post "$C" "$nb" -H "X-Timestamp: $(date +%s)"
assert_json_code timestamp_malformed "[$MPM] two timestamp headers (joined by httpd): malformed"
WH_SIG=- wh_post "$C" "$nb"
assert_json_code signature_missing "[$MPM] signature_missing"
WH_SIG=abc123 wh_post "$C" "$nb"
assert_json_code signature_malformed "[$MPM] signature_malformed"
WH_SIG=$(printf '0%.0s' $(seq 64)) wh_post "$C" "$nb"
assert_status 401 "[$MPM] signature mismatch: 401"
assert_json_code signature_mismatch "[$MPM] signature_mismatch"
WH_SIGN_URL="$WH_URL/elsewhere" wh_post "$C" "$nb"
assert_json_code signature_mismatch "[$MPM] signed for another URL: mismatch"

q_before=$(inbox_count wh_quarantine)
printf '{"notificationId": "x", ' >"$T/broken.json"
wh_post "$C" "$T/broken.json"
assert_status 400 "[$MPM] signed broken JSON: 400"
assert_json_code invalid_json "[$MPM] invalid_json"
assert_eq $((q_before + 1)) "$(inbox_count wh_quarantine)" "[$MPM] authentic invalid JSON is quarantined"
WH_SIG=$(printf 'f%.0s' $(seq 64)) wh_post "$C" "$T/broken.json"
assert_json_code signature_mismatch "[$MPM] unsigned broken JSON: signature_mismatch first"
assert_eq $((q_before + 1)) "$(inbox_count wh_quarantine)" "[$MPM] inauthentic bodies are not kept"
assert_eq 0 "$(ib_sqlite "SELECT count(*) FROM wh_events WHERE body = CAST(readfile('$nb') AS TEXT)")" \
    "[$MPM] no refused request stored anything"
python3 - "$(wh_body Complete)" "$T/schema.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["notificationId"] = "not-a-uuid"
del d["data"]["wireEventInfo"]["originalWire"]["wireInfo"]["paymentAmount"]
open(sys.argv[2], "w").write(json.dumps(d))
EOF
wh_post "$C" "$T/schema.json"
assert_status 400 "[$MPM] schema violation: 400"
assert_json_code schema_violation "[$MPM] schema_violation"
assert_ne "0" "$(wh_json_get "$WH_BODY" 'len(d["error"]["details"])')" "[$MPM] schema details listed"
assert_eq $((q_before + 2)) "$(inbox_count wh_quarantine)" "[$MPM] schema violation quarantined"
assert_eq "schema_violation" "$(ib_sqlite "SELECT code FROM wh_quarantine ORDER BY id DESC LIMIT 1")" \
    "[$MPM] quarantine keeps the code"

# ------------------------------------------------------------- listing ---
stored=$(inbox_count wh_events)
wh_curl "$C"
assert_status 401 "[$MPM] GET without credentials: 401"
assert_json_code auth_required "[$MPM] GET: auth_required"
assert_header WWW-Authenticate 'Basic realm="wirehook"' "[$MPM] GET challenge"
wh_curl -u "$WH_USER:nope" "$C"
assert_json_code auth_failed "[$MPM] GET wrong password: auth_failed"
wh_curl -u "$WH_USER:$WH_PASSWD" "$C?offset=0&limit=100"
assert_status 200 "[$MPM] GET lists"
assert_header Content-Type application/json "[$MPM] list is JSON"
assert_eq "$stored" "$(wh_json_get "$WH_BODY" 'len(d["events"])')" "[$MPM] every stored event listed"
assert_eq "$stored" "$(wh_json_get "$WH_BODY" 'd["pagination"]["offset"]')" "[$MPM] next offset = count"
assert_eq "<class 'str'>" "$(wh_json_get "$WH_BODY" 'str(type(d["pagination"]["offset"]))')" \
    "[$MPM] offset is a string, as in the spec"
assert_eq false "$(wh_json_get "$WH_BODY" 'd["pagination"]["moreRecords"]')" "[$MPM] nothing more"
assert_eq "$id" "$(wh_json_get "$WH_BODY" 'd["events"][0]["notificationId"]')" "[$MPM] arrival order"
# the body comes back byte for byte (wh_body writes indented JSON)
python3 - "$T/resp.body" "$b" <<'EOF' && _wh_ok "[$MPM] first event spliced in exactly as received" || _wh_bad "[$MPM] first event spliced in exactly as received"
import sys
listing = open(sys.argv[1], "rb").read()
body = open(sys.argv[2], "rb").read()
sys.exit(0 if listing.startswith(b'{"events":[' + body + b",") else 1)
EOF
wh_curl -u "$WH_USER:$WH_PASSWD" "$C?offset=0&limit=2"
assert_eq 2 "$(wh_json_get "$WH_BODY" 'len(d["events"])')" "[$MPM] limit=2: two"
assert_eq true "$(wh_json_get "$WH_BODY" 'd["pagination"]["moreRecords"]')" "[$MPM] limit=2: more"
wh_curl -u "$WH_USER:$WH_PASSWD" "$C?offset=2&limit=2"
assert_eq 4 "$(wh_json_get "$WH_BODY" 'd["pagination"]["offset"]')" "[$MPM] offset=2&limit=2: next is 4"
wh_curl -u "$WH_USER:$WH_PASSWD" "$C?offset=9999"
assert_eq "0 9999 False" "$(wh_json_get "$WH_BODY" '"%d %s %s" % (len(d["events"]), d["pagination"]["offset"], d["pagination"]["moreRecords"])')" \
    "[$MPM] past the end: nothing, offset stays, no more"
wh_curl -u "$WH_USER:$WH_PASSWD" "$C?status=Processed"
assert_eq 1 "$(wh_json_get "$WH_BODY" 'len(d["events"])')" "[$MPM] status filter"
wh_post "$C" "$(wh_body 'Send Ready')" >/dev/null
wh_curl -u "$WH_USER:$WH_PASSWD" "$C?status=Send+Ready"
assert_eq "1 Send Ready" "$(wh_json_get "$WH_BODY" '"%d %s" % (len(d["events"]), d["events"][0]["data"]["wireEventInfo"]["status"])')" \
    "[$MPM] status=Send+Ready"
wh_curl -u "$WH_USER:$WH_PASSWD" "$C?status=Send%20Ready&paymentId=WP-2026-000481"
assert_eq 1 "$(wh_json_get "$WH_BODY" 'len(d["events"])')" "[$MPM] status=Send%20Ready and paymentId"
wh_curl -u "$WH_USER:$WH_PASSWD" -I "$C?limit=1"
assert_status 200 "[$MPM] HEAD: 200"
[ -n "$ALL" ] && for q in "ofset=1" "offset=-1" "offset=abc" "offset=" "limit=0" "limit=101" "limit=1.5" \
         "offset=1&offset=2" "limit=1&limit=1" "offset=99999999999999999999" "status=" \
         "paymentId=%FF" "offset=%zz" "Offset=1" "page=2"; do
    wh_curl -u "$WH_USER:$WH_PASSWD" "$C?$q"
    assert_status 400 "[$MPM] GET ?$q: 400"
    assert_json_code invalid_pagination "[$MPM] GET ?$q: invalid_pagination"
done

# the module's /inbox and the CGI share the SQLite file: each lists the other's
wh_post "$WH_URL/inbox" "$(wh_body Review)"
if [ "$WH_STATUS" = 200 ]; then
    wh_curl -u "$WH_USER:$WH_PASSWD" "$C?limit=100"
    assert_eq "$(inbox_count wh_events)" "$(wh_json_get "$WH_BODY" 'len(d["events"])')" \
        "[$MPM] the CGI lists what the module stored"
    wh_curl -u "$WH_USER:$WH_PASSWD" "$WH_URL/inbox?limit=100"
    assert_eq "$(inbox_count wh_events)" "$(wh_json_get "$WH_BODY" 'len(d["events"])')" \
        "[$MPM] the module lists what the CGI stored"
else
    _wh_bad "[$MPM] module /inbox stores (SetHandler wirehook)" "HTTP $WH_STATUS $WH_BODY"
fi

if [ -n "$ALL" ]; then
# ------------------------------------------------------- configuration ---
wh_post "$WH_URL/cgi/envonly" "$(wh_body Complete)"
assert_json_code accepted "[$MPM] configured by SetEnv alone"
WH_AUTH=- wh_post "$WH_URL/cgi/envonly" "$(wh_body Complete)"
assert_header WWW-Authenticate 'realm="EnvRealm"' "[$MPM] WIREHOOK_AUTHREALM applied"
WH_TS_HEADER=X-Ts wh_post "$WH_URL/cgi/small" "$T/broken.json"
assert_json_code invalid_json "[$MPM] WIREHOOK_TimestampHeader renames the header"
# absolute-form request target: REQUEST_URI is the whole URL, signed as
# the sender addressed it (as the module does)
wh_post "$C" "$(wh_body Complete)" --request-target "$C"
assert_json_code accepted "[$MPM] absolute-form request target, signed as addressed: accepted"
for path in badconf unknownenv badvalue noinbox configcase; do
    wh_post "$WH_URL/cgi/$path" "$(wh_body Complete)"
    assert_status 500 "[$MPM] /cgi/$path: 500"
    assert_json_code internal_error "[$MPM] /cgi/$path: internal_error"
    assert_eq "server misconfigured" "$(wh_json_get "$WH_BODY" 'd["error"]["message"]')" \
        "[$MPM] /cgi/$path: no detail for the client"
done
assert_contains "$(wh_errlog)" "broken.conf:4" "[$MPM] the config error's detail is in the error log"
assert_contains "$(wh_errlog)" "WIREHOOK_NOSUCHKEY" "[$MPM] unknown WIREHOOK_ variable named in the log"
assert_contains "$(wh_errlog)" "InboxParams is required" "[$MPM] missing InboxParams named in the log"
assert_contains "$(wh_errlog)" "WIREHOOK_Config: the configuration file is named by WIREHOOK_CONFIG" \
    "[$MPM] WIREHOOK_Config (another spelling of WIREHOOK_CONFIG) is refused, not ignored"

# ------------------------------------- where the configuration is found ---
wh_post "$WH_URL/cgi/beside" "$(wh_body Complete)"
assert_json_code accepted "[$MPM] no SetEnv: beside.cgi reads .htbeside.conf beside it"
assert_eq 1 "$(sqlite3 "$T/data/beside.db" 'SELECT count(*) FROM wh_events')" \
    "[$MPM] .htbeside.conf: stored in its inbox"
n=$(inbox_count wh_events)
wh_post "$WH_URL/cgi/beside-env" "$(wh_body Complete)"
assert_json_code accepted "[$MPM] SetEnv WIREHOOK_CONFIG: accepted"
assert_eq $((n + 1)) "$(inbox_count wh_events)" \
    "[$MPM] SetEnv WIREHOOK_CONFIG, where it reaches the program, wins over .htbeside.conf"
# a request header arrives as HTTP_WIREHOOK_CONFIG, which nothing reads
wh_post "$WH_URL/cgi/beside" "$(wh_body Review)" -H "Wirehook-Config: $T/etc/evil.conf"
assert_json_code accepted "[$MPM] a Wirehook-Config header: stored as before"
assert_eq 2 "$(sqlite3 "$T/data/beside.db" 'SELECT count(*) FROM wh_events')" \
    "[$MPM] a Wirehook-Config header: into the script's own inbox"
wh_curl -u "$WH_USER:$WH_PASSWD" -H "Wirehook-Config: $T/etc/evil.conf" "$WH_URL/cgi/beside?limit=5"
assert_eq 2 "$(wh_json_get "$WH_BODY" 'len(d["events"])')" "[$MPM] a Wirehook-Config header: the listing is the script's"
assert_false "[$MPM] a Wirehook-Config header: its configuration is never read" test -e "$T/data/evil.db"
# a query without '=' reaches a CGI program as its arguments: never options
wh_curl "$WH_URL/cgi/argv?--configtest"
assert_eq "--configtest" "$WH_BODY" "[$MPM] httpd hands ?--configtest to a CGI program as its argument"
wh_curl "$WH_URL/cgi/beside?--configtest"
assert_status 401 "[$MPM] ?--configtest without credentials: 401, a request like any other"
wh_curl -u "$WH_USER:$WH_PASSWD" "$WH_URL/cgi/beside?--configtest"
assert_json_code invalid_pagination "[$MPM] ?--configtest: an invalid query (400), not --configtest"
assert_not_contains "$WH_BODY" "looked for" "[$MPM] ?--configtest: nothing of --configtest answered"
wh_curl "$WH_URL/cgi/beside?--version"
assert_status 401 "[$MPM] ?--version: 401, a request like any other"
if [ "${CGI_LINK:-static}" = static ]; then
    wh_post "$WH_URL/cgi/pgsql" "$(wh_body Complete)"
    assert_status 500 "[$MPM] self-contained CGI, InboxDriver pgsql: 500"
    assert_json_code internal_error "[$MPM] self-contained CGI, InboxDriver pgsql: internal_error"
    assert_contains "$(wh_errlog)" "InboxDriver pgsql needs the dynamic build: make CGI_LINK=dynamic" \
        "[$MPM] self-contained CGI, InboxDriver pgsql: the error log says why"
    out=$(WIREHOOK_CONFIG="$T/etc/pgsql.conf" "$IB_CGI" --configtest 2>&1)
    assert_contains "$out" "error: InboxDriver pgsql needs the dynamic build: make CGI_LINK=dynamic" \
        "[$MPM] self-contained CGI, InboxDriver pgsql: --configtest says why"
    wh_post "$WH_URL/cgi/mysql" "$(wh_body Complete)"
    assert_status 500 "[$MPM] self-contained CGI, InboxDriver mysql: 500"
    assert_json_code internal_error "[$MPM] self-contained CGI, InboxDriver mysql: internal_error"
    assert_contains "$(wh_errlog)" "InboxDriver mysql needs the dynamic build: make CGI_LINK=dynamic" \
        "[$MPM] self-contained CGI, InboxDriver mysql: the error log says why"
    out=$(WIREHOOK_CONFIG="$T/etc/mysql.conf" "$IB_CGI" --configtest 2>&1)
    assert_contains "$out" "error: InboxDriver mysql needs the dynamic build: make CGI_LINK=dynamic" \
        "[$MPM] self-contained CGI, InboxDriver mysql: --configtest says why"
    assert_contains "$out" "authentication plugins" \
        "[$MPM] self-contained CGI, InboxDriver mysql: --configtest gives the reason"
else
    out=$(WIREHOOK_CONFIG="$T/etc/mysql.conf" "$IB_CGI" --configtest 2>&1)
    assert_contains "$out" "InboxParams: a MariaDB or MySQL database, not checked here" \
        "[$MPM] dynamic CGI, InboxDriver mysql: --configtest takes it"
fi

# ------------------------------------------ auth cache beside the inbox ---
# One process per request: the bcrypt check of the first is remembered in
# the file DATABASE-auth (wh_auth_file.c), so the next process (a fresh
# one) does not run it, and checking a credential opens no database.
# The CGI logs one line each time the password check really runs.
A="$WH_URL/cgi/authcache"
AF="$T/data/authcache.db-auth"
checked() { grep -c "password of user $WH_USER checked" "$T/logs/error.log"; }
# the live slots of the file: 16-byte header, 64 slots of 305 bytes
slots() {
    "$WH_PYTHON" - "$AF" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
print(sum(1 for i in range(64) if any(d[16 + i * 305:16 + i * 305 + 32])))
PY
}
n0=$(checked)
wh_post "$A" "$(wh_body Complete)"
assert_json_code accepted "[$MPM] auth cache: first request accepted"
assert_eq $((n0 + 1)) "$(checked)" "[$MPM] auth cache: the first request runs bcrypt"
assert_eq 600 "$(stat -c %a "$AF")" "[$MPM] auth cache: its file is created 0600"
wh_post "$A" "$(wh_body Complete)"
assert_json_code accepted "[$MPM] auth cache: second request (fresh process) accepted"
wh_post "$A" "$(wh_body Review)"
assert_json_code accepted "[$MPM] auth cache: third request accepted"
assert_eq $((n0 + 1)) "$(checked)" "[$MPM] auth cache: later processes never run bcrypt"
WH_AUTH="$WH_USER:wrong-password" wh_post "$A" "$(wh_body Complete)"
assert_status 401 "[$MPM] auth cache: a wrong password is still refused"
assert_eq 1 "$(slots)" "[$MPM] auth cache: one entry, failures never stored"
assert_eq 0 "$(sqlite3 "$T/data/authcache.db" 'SELECT count(*) FROM wh_auth_cache')" \
    "[$MPM] auth cache: nothing in the database's table (SQLite keeps it in the file)"
plain=$(printf 'Basic %s' "$(printf '%s:%s' "$WH_USER" "$WH_PASSWD" | base64 -w0)" | sha256sum | cut -c1-64)
assert_not_contains "$(od -An -tx1 -v "$AF" | tr -d ' \n')" "$plain" \
    "[$MPM] auth cache: no SHA-256 of the header in the file"
assert_eq 0 "$(grep -c -a -F "$WH_PASSWD" "$AF")" "[$MPM] auth cache: no password in the file"
# a damaged file is a miss (one bcrypt), then written afresh
printf 'garbage!' | dd of="$AF" bs=1 seek=0 conv=notrunc status=none   # the header
wh_post "$A" "$(wh_body Complete)"
assert_json_code accepted "[$MPM] auth cache: damaged file: accepted"
assert_eq $((n0 + 2)) "$(checked)" "[$MPM] auth cache: damaged file: one check"
wh_post "$A" "$(wh_body Complete)"
assert_eq $((n0 + 2)) "$(checked)" "[$MPM] auth cache: damaged file: rewritten, remembered again"
# the credential alone, never the database, decides: without the file,
# without credentials, no database is opened
rm -f "$AF" "$T/data/authcache.db"*
WH_AUTH=- wh_post "$A" "$(wh_body Complete)"
assert_status 401 "[$MPM] auth cache: no credentials: 401"
assert_false "[$MPM] auth cache: no credentials: no database, no cache file created" \
    test -e "$T/data/authcache.db" -o -e "$AF"

# ------------------------------------------------------ the WAL size ---
# One process per request, none holding the database between requests:
# each one would re-read the whole WAL, so a process that leaves it past
# WH_INBOX_EXIT_WAL_MAX lets SQLite checkpoint it away. 40 events write
# several times that.
walmax=$(( $(sed -n 's/^#define WH_INBOX_EXIT_WAL_MAX //p' "$WH_TOP/shared/inbox/wh_inbox_sql.h") ))
W="$WH_URL/cgi/walcap"
wal_largest=0 wal_gone=0 ok=0
for _ in $(seq 1 40); do
    wh_post "$W" "$(wh_body Review)"
    [ "$WH_STATUS" = 200 ] && ok=$((ok + 1))
    size=$(stat -c %s "$T/data/walcap.db-wal" 2>/dev/null || echo 0)
    [ "$size" -gt "$wal_largest" ] && wal_largest=$size
    [ "$size" -eq 0 ] && wal_gone=$((wal_gone + 1))
done
assert_eq 40 "$ok" "[$MPM] WAL cap: 40 events accepted"
assert_eq 40 "$(sqlite3 -cmd '.timeout 5000' "$T/data/walcap.db" 'SELECT count(*) FROM wh_events')" \
    "[$MPM] WAL cap: all 40 stored"
assert_true "[$MPM] WAL cap: the WAL never stays past $walmax bytes (largest $wal_largest)" \
    test "$wal_largest" -gt 0 -a "$wal_largest" -le "$walmax"
assert_true "[$MPM] WAL cap: checkpointed away along the way ($wal_gone times)" \
    test "$wal_gone" -ge 1
fi

# ------------------------------------------- never an error document ---
# ErrorDocument 404 /cgi/inbox: a notification POSTed to a missing URL
# must not be answered 200 with the listing (the bank would take it as
# stored); the CGI answers the failed request's 404
stored=$(inbox_count wh_events)
wh_post "$WH_URL/ecgi/missing" "$(wh_body Complete)"
assert_status 404 "[$MPM] ErrorDocument -> the CGI: a signed POST gets the original 404, never a 200 listing"
assert_json_code not_found "[$MPM] ErrorDocument -> the CGI: not_found"
assert_not_contains "$WH_BODY" '"events"' "[$MPM] ErrorDocument -> the CGI: no listing"
assert_eq "$stored" "$(inbox_count wh_events)" "[$MPM] ErrorDocument -> the CGI: nothing stored"
assert_contains "$(wh_errlog)" "not an error document: 404 for /ecgi/missing" "[$MPM] ErrorDocument -> the CGI: logged"

# ------------------------------------------------- clean CGI answers ---
curl -sS -i -u "$WH_USER:$WH_PASSWD" "$C?limit=1" | tr -d '\r' >"$T/raw.txt"
assert_eq "HTTP/1.1 200 OK" "$(head -n 1 "$T/raw.txt")" "[$MPM] status line from the Status header"
assert_eq "HTTP/1.1 405 Method Not Allowed" "$(curl -sS -i -X PATCH "$C" | head -n 1 | tr -d '\r')" \
    "[$MPM] 405 with its reason phrase"
assert_eq "HTTP/1.1 413 Content Too Large" \
    "$(curl -sS -i -u "$WH_USER:$WH_PASSWD" -H 'Content-Type: application/json' \
        --data-binary @"$T/big.json" "$C" | head -n 1 | tr -d '\r')" "[$MPM] 413 status line"
hdrs=$(sed -n '2,/^$/p' "$T/raw.txt" | cut -d: -f1 | tr 'A-Z' 'a-z' | sort | tr '\n' ' ')
assert_not_contains "$hdrs" "x-" "[$MPM] no stray headers from the script"
assert_not_contains "$(wh_errlog)" "malformed header" "[$MPM] httpd never saw a malformed CGI header"
assert_not_contains "$(wh_errlog)" "$WH_PASSWD" "[$MPM] no password in the error log"
assert_not_contains "$(wh_errlog)" "$WH_SECRET" "[$MPM] no signing secret in the error log"
n=$(grep -c 'wirehook.cgi\[' "$T/logs/error.log")
assert_ne 0 "$n" "[$MPM] the CGI's log lines reach the error log"

wh_done
