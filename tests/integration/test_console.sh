#!/usr/bin/env bash
# The operator's console (docs/console.md) on a real httpd: httpd's own
# authn/authz decides readers (Require user reader1 op1) and operators
# (Require user op1 on /actions); one headless Chromium (chromedriver,
# Debian's packages) drives every page as the reader and as the operator
# with no console error, shows a script-like remittanceInformation as text
# and runs nothing, shows bidirectional controls as code points; finds an
# event by its notificationId and payments by IMAD; retries a dead letter
# with a real click, and every dead letter of a 503 after a preview and a
# confirmation, which `wirehook forward` then forwards to the test
# application; discards a quarantined body. A page for a foreign Host is
# refused (DNS rebinding); behind an httpd TLS proxy (ConsoleOrigin) the
# cookie is __Host- and Secure and an action is not refused as
# cross-origin; a reader's page views leave no authz error in the log, and
# every page checks the password once (a counting FastCGI authenticator),
# never again to decide its buttons. A
# POST without the token, with another target's, from another origin is
# refused and changes nothing; a notice cannot be made from a URL; the
# bank's credentials read nothing; an unauthenticated console location
# fails configtest (one marked public passes); the CGI's console with its
# own readers and operators files logs an action with its operator at the
# default CGILogLevel, and with ConsoleOrigin refuses a rebound name. Screenshots land in $BUILD/console-shots (make
# console-shots copies them into docs/console/).
. "$(dirname "$0")/lib.sh"
wh_init
WH_EXTRA_MODULES="auth_basic authn_core authn_file authz_user authnz_fcgi ssl proxy proxy_http"
. "$WH_LIB_DIR/forward_lib.sh"

SHOTS="$WH_BUILD/console-shots"
CON_HT="$T/etc/console.htpasswd"
wh_make_htpasswd "$CON_HT" reader1 reader-pass -B
wh_make_htpasswd "$CON_HT" op1 op-pass -B
chmod 644 "$CON_HT"
HOSTILE='<img src=x onerror=alert(1)>'
RLO=$'\u202e'

fw_scenario con "ForwardMaxAttempts 1"
CONF=$(fw_conf con)
# The same inbox behind a TLS-terminating proxy: a vhost of this httpd on
# its own port proxies to a backend vhost whose console has ConsoleOrigin.
TLS_PORT=$(wh_free_port)
BACK_PORT=$(wh_free_port)
while [ "$BACK_PORT" = "$TLS_PORT" ]; do BACK_PORT=$(wh_free_port); done
ORIGIN="https://console.test:$TLS_PORT"
PCONF="$T/etc/proxied.conf"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj /CN=console.test -addext "subjectAltName=DNS:console.test" \
    -keyout "$T/etc/tls.key" -out "$T/etc/tls.pem" >/dev/null 2>&1
# The same console once more, its passwords checked by a FastCGI
# authenticator that counts every check (app/fcgi_authn.py).
AUTHN_PORT=$(wh_free_port)
CHECKS="$T/password-checks"
CONSOLE_AUTH="    AuthType Basic
    AuthName \"wirehook console\"
    AuthBasicProvider file
    AuthUserFile $CON_HT
    Require user reader1 op1"
wh_httpd_extra "<Location /wirehook>
    SetHandler wirehook-console
    WirehookConfig $CONF
$CONSOLE_AUTH
</Location>
<Location /wirehook/actions>
    Require user op1
</Location>
AuthnzFcgiDefineProvider authn counted fcgi://127.0.0.1:$AUTHN_PORT/
<Location /counted>
    SetHandler wirehook-console
    WirehookConfig $CONF
    AuthType Basic
    AuthName \"wirehook console\"
    AuthBasicProvider counted
    Require user reader1 op1
</Location>
<Location /counted/actions>
    Require user op1
</Location>
Listen 127.0.0.1:$BACK_PORT
<VirtualHost 127.0.0.1:$BACK_PORT>
    ServerName backend.internal
    <Location /tlsconsole>
        SetHandler wirehook-console
        WirehookConfig $PCONF
$CONSOLE_AUTH
    </Location>
    <Location /tlsconsole/actions>
        Require user op1
    </Location>
</VirtualHost>
Listen 127.0.0.1:$TLS_PORT
<VirtualHost 127.0.0.1:$TLS_PORT>
    ServerName console.test
    SSLEngine on
    SSLCertificateFile $T/etc/tls.pem
    SSLCertificateKeyFile $T/etc/tls.key
    ProxyPreserveHost On
    ProxyPass /tlsconsole http://127.0.0.1:$BACK_PORT/tlsconsole
    ProxyPassReverse /tlsconsole http://127.0.0.1:$BACK_PORT/tlsconsole
</VirtualHost>
ScriptAlias /cgi/wirehook.cgi $WH_BUILD/wirehook.cgi
<Directory $WH_BUILD>
    Options +ExecCGI
    Require all granted
</Directory>
<Location /cgi/wirehook.cgi>
    CGIPassAuth On
    SetEnv WIREHOOK_CONFIG $T/etc/cgi.conf
</Location>"
wh_write_config "$T/etc/cgi.conf" "InboxParams $T/data/cgi.db" \
    "ConsoleReaders $T/etc/cgi-readers" "ConsoleOperators $T/etc/cgi-operators" \
    "ConsoleOrigin http://console.cgi.test:$WH_PORT"
wh_make_htpasswd "$T/etc/cgi-readers" creader creader-pass -B
wh_make_htpasswd "$T/etc/cgi-operators" cop cop-pass -B
chmod 644 "$T/etc/cgi-readers" "$T/etc/cgi-operators" "$WH_HTPASSWD" "$WH_SECRETS"
wh_httpd_conf
{ cat "$CONF"; echo "ConsoleOrigin $ORIGIN"; } >"$PCONF"

# ---- configtest ------------------------------------------------------------
wh_httpd_configtest
assert_eq 0 $? "configtest passes with the console's logins"
open_conf=$(wh_conf_variant open "/^    Require user reader1 op1\$/d")
WH_HTTPD_CONF=$open_conf wh_httpd_configtest
assert_ne 0 $? "configtest fails for a console anyone can reach"
assert_contains "$WH_OUT" "WH00986" "and says why (WH00986)"
granted_conf=$(wh_conf_variant granted "s/^    Require user reader1 op1\$/    Require all granted/")
WH_HTTPD_CONF=$granted_conf wh_httpd_configtest
assert_ne 0 $? "configtest fails for Require all granted on a console"
public_conf=$(wh_conf_variant public "s/^    Require user reader1 op1\$/    Require all granted\n    WirehookConsole public/")
WH_HTTPD_CONF=$public_conf wh_httpd_configtest
assert_eq 0 $? "a console marked 'WirehookConsole public' passes configtest"
wh_write_config "$T/etc/modkeys.conf" "InboxParams $T/data/x.db" "ConsoleReaders $CON_HT"
keys_conf=$(wh_conf_variant keys "s|WirehookConfig $CONF\$|WirehookConfig $T/etc/modkeys.conf|")
WH_HTTPD_CONF=$keys_conf wh_httpd_configtest
assert_ne 0 $? "the module refuses ConsoleReaders (readers are httpd's Require)"
assert_contains "$WH_OUT" "ConsoleReaders and ConsoleOperators are wirehook.cgi's" "with a message"

wh_httpd_start || exit 1
assert_contains "$(grep WH00989 "$T/logs/error.log")" "$WH_CONF" "a configuration with an inbox and no console is warned about at startup"
assert_not_contains "$(grep WH00989 "$T/logs/error.log")" "$CONF" "a configuration with a console is not"
fw_app_start con || exit 1
fw_ctl con "{\"rules\": [{\"payment\": \"P-DEAD\", \"answer\": 400, \"body\": \"refused <b>by</b> the app ${RLO}00.000,1\$\"},
                         {\"payment\": \"P-BULK1\", \"answer\": 503}, {\"payment\": \"P-BULK2\", \"answer\": 503},
                         {\"payment\": \"P-BULK3\", \"answer\": 503}]}"

# ---- events: ordinary ones, dead letters to be, a hostile one, bidi ------
fw_send con P-1:Sent P-1:Complete P-2:Sent P-DEAD:Sent P-BULK1:Sent P-BULK2:Sent \
    P-BULK3:Sent "P-BIDI:${RLO}etelpmoC" || exit 1
hostile_body=$T/hostile.json
python3 - "$WH_SAMPLE_SRC" "$hostile_body" "$HOSTILE" <<'EOF'
import json, sys, uuid, datetime
d = json.load(open(sys.argv[1]))
d["notificationId"] = str(uuid.uuid4())
d["eventDateTime"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
d["data"]["wireEventInfo"]["paymentId"] = "P-X</script>"
d["data"]["wireEventInfo"]["IMAD"] = "IMAD-OF-P-X"
d["data"]["wireEventInfo"]["originalWire"]["remittanceInformation"] = sys.argv[3]
d["data"]["wireEventInfo"]["originalWire"]["originatorInfo"]["name"] = "\"><script>window.__pwned=1</script>"
open(sys.argv[2], "w").write(json.dumps(d, indent=2))
EOF
wh_post "$WH_URL/fw/con" "$hostile_body"
assert_status 200 "the hostile notification is accepted (it is valid)"
HOSTILE_ID=$(wh_body_id "$hostile_body")
# quarantined: authentic, not JSON (two: one to discard, one to acknowledge)
printf '{"notificationId": "x", <b>' >"$T/bad.json"
wh_post "$WH_URL/fw/con" "$T/bad.json"
assert_status 400 "an authentic bad body is refused (and quarantined)"
wh_post "$WH_URL/fw/con" "$T/bad.json"
# refusals for the overview's chart: a bad signature, no timestamp
WH_SIG=00 wh_post "$WH_URL/fw/con" "$hostile_body"
assert_status 401 "a bad signature is refused"
WH_TS=- wh_post "$WH_URL/fw/con" "$hostile_body"
fw_drain con
assert_eq 0 "$FW_RC" "the forwarder forwards everything: $FW_ERR"
# 6 forwarded: P-1 twice, P-2, P-BIDI, the hostile one
assert_true "the application took the good ones" fw_wait_forwarded con 5 30
NID1=$(fw_sent_id con 1)
BIDI_NID=$(fw_sent_id con 8)

R=(-u reader1:reader-pass) O=(-u op1:op-pass)
wh_curl "$WH_URL/wirehook/"
assert_status 401 "no login, no console (httpd's authz)"
wh_curl "${R[@]}" "$WH_URL/wirehook/"
assert_status 200 "a reader sees the overview"
assert_header Content-Security-Policy "default-src 'none'" "the page's CSP"
assert_header Content-Security-Policy "frame-ancestors 'none'" "no framing by CSP"
assert_header X-Frame-Options DENY "X-Frame-Options"
assert_header X-Content-Type-Options nosniff "nosniff"
assert_header Referrer-Policy same-origin "Referrer-Policy"
assert_header Cache-Control no-store "no-store"
assert_header Set-Cookie "HttpOnly; SameSite=Strict" "the session cookie"
assert_not_contains "$WH_BODY" "$WH_SECRET" "no secret on the page"
assert_not_contains "$WH_BODY" '$2y$' "no password hash on the page"
assert_contains "$WH_BODY" "Refused, by code" "the overview charts refusals"
assert_contains "$WH_BODY" "signature_malformed" "by code"
assert_contains "$WH_BODY" "Forward attempts, by outcome" "and forward outcomes"
assert_contains "$WH_BODY" ">now</text>" "the last bin is now's"
wh_curl "${R[@]}" "$WH_URL/wirehook/events"
EVENTS=$WH_BODY
hostile_event=$(python3 -c '
import re, sys
m = re.search(r"/wirehook/events/(\d+)\">" + re.escape(sys.argv[1]), sys.stdin.read())
print(m.group(1) if m else "")' "$HOSTILE_ID" <<<"$EVENTS")
assert_ne "" "$hostile_event" "the events page lists the hostile event"
assert_not_contains "$EVENTS" "<script>" "no script element on the events page"
assert_contains "$EVENTS" "&lt;U+202E&gt;etelpmoC" "a bidi control is shown as its code point"
assert_not_contains "$EVENTS" "$RLO" "and never as itself"
assert_true "the newest first" python3 -c '
import re, sys
seqs = [int(s) for s in re.findall(r"<tr><td class=\"n\">(\d+)</td>", sys.stdin.read())]
sys.exit(0 if seqs and seqs == sorted(seqs, reverse=True) else 1)' <<<"$EVENTS"
wh_curl "${R[@]}" "$WH_URL/wirehook/events?status=complete"
assert_contains "$WH_BODY" "P-1" "the status filter whatever its case"
assert_not_contains "$WH_BODY" "P-2" "and only that status"
wh_curl "${R[@]}" "$WH_URL/wirehook/events?state=dead"
assert_contains "$WH_BODY" "P-BULK2" "the events by forwarding state: dead"
assert_not_contains "$WH_BODY" "/payments/P-1\"" "and not the forwarded"
wh_curl "${R[@]}" "$WH_URL/wirehook/dead"
assert_contains "$WH_BODY" "refused &lt;b&gt;by&lt;/b&gt; the app &lt;U+202E&gt;00.000,1\$" "the dead letter's last answer, escaped, its bidi control visible"
assert_not_contains "$WH_BODY" 'form class="act"' "a reader is shown no action"
dead_event=$(python3 -c '
import re, sys
m = re.search(r"/wirehook/events/(\d+)\">[^<]*</a></td><td><a href=\"/wirehook/payments/P-DEAD\"", sys.stdin.read())
print(m.group(1) if m else "")' <<<"$WH_BODY")
assert_ne "" "$dead_event" "the dead letters page lists the dead letter"
wh_curl "${R[@]}" "$WH_URL/wirehook/payments"
assert_contains "$WH_BODY" 'class="has-dead"' "payments with dead letters are marked"
assert_contains "$WH_BODY" "1 dead" "with how many"
wh_curl "${R[@]}" "$WH_URL/wirehook/api/events?limit=10"
assert_status 200 "readers read the JSON listing under the console"
assert_contains "$WH_BODY" "$HOSTILE_ID" "which holds the events"
wh_curl "${R[@]}" "$WH_URL/wirehook/api/events?notificationId=$NID1"
assert_contains "$WH_BODY" "$NID1" "the API takes notificationId"
assert_eq 1 "$(grep -o '"notificationId"' <<<"$WH_BODY" | grep -c .)" "one event"
wh_curl -u "$WH_USER:$WH_PASSWD" "$WH_URL/fw/con"
assert_status 403 "the bank's credentials read nothing where readers are configured"
assert_json_code forbidden
assert_contains "$WH_BODY" "/wirehook/api/events" "and the answer says where readers read"
wh_curl -u "$WH_USER:$WH_PASSWD" "$WH_URL/wirehook/"
assert_status 401 "the bank is no reader of the console"

# ---- find ---------------------------------------------------------------------
wh_curl "${R[@]}" "$WH_URL/wirehook/find?q=$NID1"
assert_status 303 "a notificationId finds its event"
assert_header Location "/wirehook/events/" "there"
wh_curl "${R[@]}" "$WH_URL/wirehook/events/$BIDI_NID"
assert_status 200 "/events/<notificationId> is the event"
assert_contains "$WH_BODY" "$BIDI_NID" "that one"
wh_curl "${R[@]}" "$WH_URL/wirehook/find?q=IMAD-OF-P-X"
assert_status 303 "an IMAD only one payment's events carry finds that payment"
wh_curl "${R[@]}" "$WH_URL/wirehook/find?q=20261122MMQFMP9K000481"
assert_status 200 "an IMAD many payments carry lists them"
assert_contains "$WH_BODY" "P-BULK3" "each"
wh_curl "${R[@]}" "$WH_URL/wirehook/find?q=nothing-here"
assert_status 404 "nothing found is said"

# ---- the server's names ----------------------------------------------------------
wh_curl "${R[@]}" -H "Host: rebound.example:$WH_PORT" "$WH_URL/wirehook/api/events"
assert_status 403 "a request for another name is refused (DNS rebinding)"
assert_not_contains "$WH_BODY" "$HOSTILE_ID" "and reads nothing"
assert_contains "$(grep WH01003 "$T/logs/error.log")" "rebound.example" "logged (WH01003)"
wh_curl "${R[@]}" -H "Host: 127.0.0.1:$WH_PORT" "$WH_URL/wirehook/"
assert_status 200 "the server's own address is its own"

# ---- actions that must be refused --------------------------------------------
dead_before=$("$WIREHOOK" inbox --config "$CONF" dead count 2>/dev/null)
assert_eq 4 "$dead_before" "four dead letters (wirehook inbox dead count)"
wh_curl "${R[@]}" -X POST -H "Origin: $WH_URL" -d "event=$dead_event&token=x" "$WH_URL/wirehook/actions/retry"
assert_status 401 "a reader's direct POST is refused by httpd's authz"
wh_curl "${O[@]}" -c "$T/jar" "$WH_URL/wirehook/events/$dead_event"
token=$(sed -n 's/.*name="token" value="\([0-9]*\.[0-9a-f]\{64\}\)".*/\1/p' <<<"$WH_BODY" | head -n 1)
assert_ne "" "$token" "an operator's page carries an action token"
wh_curl "${O[@]}" -b "$T/jar" -X POST -H "Origin: $WH_URL" -d "event=$dead_event" "$WH_URL/wirehook/actions/retry"
assert_status 403 "a POST without the token is refused"
other=$(( dead_event + 1 ))
wh_curl "${O[@]}" -b "$T/jar" -X POST -H "Origin: $WH_URL" -d "event=$other&token=$token" "$WH_URL/wirehook/actions/retry"
assert_status 403 "another event's token is refused"
wh_curl "${O[@]}" -b "$T/jar" -X POST -H "Origin: http://evil.example" -d "event=$dead_event&token=$token" "$WH_URL/wirehook/actions/retry"
assert_status 403 "a POST from another origin is refused"
wh_curl "${O[@]}" -b "$T/jar" -X POST -d "event=$dead_event&token=$token" "$WH_URL/wirehook/actions/retry"
assert_status 403 "a POST without Origin is refused"
wh_curl "${O[@]}" -X POST -H "Origin: $WH_URL" -d "event=$dead_event&token=$token" "$WH_URL/wirehook/actions/retry"
assert_status 403 "a POST without the session cookie is refused"
dead_after=$("$WIREHOOK" inbox --config "$CONF" dead count 2>/dev/null)
assert_eq "$dead_before" "$dead_after" "the refused POSTs changed nothing"
assert_contains "$(wh_errlog)" "WH00984" "refusals are logged"
wh_curl "${O[@]}" -b "$T/jar" "$WH_URL/wirehook/quarantine/1?done=released&n=4242"
assert_not_contains "$WH_BODY" "Released" "a notice cannot be made from a URL"

# ---- behind the TLS proxy (curl) --------------------------------------------------
TLS=(--resolve "console.test:$TLS_PORT:127.0.0.1" --cacert "$T/etc/tls.pem")
wh_curl "${TLS[@]}" "${O[@]}" -c "$T/tlsjar" "$ORIGIN/tlsconsole/events/$dead_event"
assert_status 200 "the console answers through the TLS proxy (ConsoleOrigin)"
assert_header Set-Cookie "__Host-wirehook-console=" "behind it the cookie is __Host-"
assert_header Set-Cookie "Path=/; Secure; HttpOnly" "and Secure"
wh_curl "${O[@]}" -H "Host: 127.0.0.2:$BACK_PORT" "http://127.0.0.1:$BACK_PORT/tlsconsole/"
assert_status 403 "the backend refuses a Host that is neither its name nor ConsoleOrigin's"

# ---- one password check a page ------------------------------------------------------
# Whether a page shows the action buttons is httpd's authz for /actions,
# evaluated for the user the page authenticated: never a second password
# check (bcrypt at cost 12 is hundreds of ms), never an authz failure
# logged for a reader (fail2ban's apache-auth filter counts those).
python3 "$WH_APP_SRC/fcgi_authn.py" "$AUTHN_PORT" "$CHECKS" reader1:reader-pass op1:op-pass \
    2>"$T/fcgi_authn.err" &
wh_bg_add $!
authz_before=$(grep -c "authorization failure" "$T/logs/error.log")
for i in 1 2 3 4 5 6 7 8 9 10; do
    wh_curl "${R[@]}" "$WH_URL/counted/" && [ "$WH_STATUS" = 200 ] && break
    sleep 0.2                   # until the authenticator listens
done
assert_status 200 "a reader's page through a counting authenticator"
: >"$CHECKS"
for p in / /events /dead /payments /quarantine; do
    wh_curl "${R[@]}" "$WH_URL/counted$p"
    assert_not_contains "$WH_BODY" 'form class="act"' "the reader's $p: no action button"
done
assert_eq 5 "$(grep -c '^reader1 .* ok$' "$CHECKS")" "five pages, five password checks: none for the buttons"
: >"$CHECKS"
wh_curl "${O[@]}" "$WH_URL/counted/dead"
assert_contains "$WH_BODY" 'form class="act"' "the operator's page shows the buttons"
assert_eq "op1 /counted/dead ok" "$(cat "$CHECKS")" "after one password check"
assert_eq "$authz_before" "$(grep -c "authorization failure" "$T/logs/error.log")" \
    "the reader's page views logged no authorization failure"

# ---- the browser: the reader, then the operator, one Chromium -------------------
# (Debian's chromium and chromium-driver, build/deps-extra.txt: without them
# these cases are one counted skip)
browser_cases() {
    rm -rf "$SHOTS"
    authz_before=$(grep -c "user reader1: authorization failure" "$T/logs/error.log")
    fw_ctl con '{"rules": []}'          # the application takes everything now
    fw_start con --interval 0
    C="$WH_URL/wirehook"
    # the quarantined bodies: the newest first
    cat >"$T/plan.json" <<EOF
{"map": ["console.test", "rebound.test"], "steps": [
 {"auth": "reader1:reader-pass"},
 {"go": "$C/", "name": "r-overview"},
 {"go": "$C/events", "name": "r-events"},
 {"go": "$C/dead", "name": "r-dead"},
 {"go": "$C/payments", "name": "r-payments"},
 {"go": "$C/quarantine", "name": "r-quarantine"},
 {"go": "$C/events/$hostile_event", "name": "r-hostile"}, {"probe": "hostile"},
 {"go": "$C/events/$BIDI_NID", "name": "r-bidi"},
 {"go": "$C/events?state=retrying", "name": "r-retrying"},
 {"go": "http://rebound.test:$WH_PORT/wirehook/", "name": "rebound"},
 {"auth": "op1:op-pass"},
 {"go": "$C/", "name": "overview", "shot": "operator-overview"},
 {"go": "$C/events", "name": "events", "shot": "operator-events"},
 {"go": "$C/events/$hostile_event", "name": "event", "shot": "operator-event"},
 {"go": "$C/payments", "name": "payments", "shot": "operator-payments"},
 {"go": "$C/payments/P-1", "name": "payment", "shot": "operator-payment"},
 {"go": "$C/quarantine/1", "name": "quarantined"},
 {"go": "$C/find?q=20261122MMQFMP9K000481", "name": "find", "shot": "operator-find"},
 {"go": "$C/dead", "name": "dead", "shot": "operator-dead"},
 {"go": "$C/events/$dead_event", "name": "before-retry"},
 {"click": "form.act button", "name": "retried", "shot": "operator-retried",
  "wait": "return location.search.indexOf('done=retry') >= 0"},
 {"go": "$C/dead?http=503", "name": "dead-503"},
 {"click": "a.bulk", "name": "preview", "shot": "operator-bulk-preview",
  "wait": "return location.pathname.indexOf('/dead/retry') >= 0"},
 {"click": "form.confirm button", "name": "bulk-done", "shot": "operator-bulk-retried",
  "wait": "return location.search.indexOf('done=retry') >= 0"},
 {"go": "$C/quarantine", "name": "quarantine", "shot": "operator-quarantine"},
 {"click": "form.act button.danger", "name": "discarded", "shot": "operator-discarded",
  "wait": "return location.search.indexOf('done=discarded') >= 0"},
 {"go": "$ORIGIN/tlsconsole/quarantine", "name": "tls-quarantine"},
 {"click": "form.act button.quiet", "name": "tls-acknowledged",
  "wait": "return location.search.indexOf('done=acknowledged') >= 0"}
]}
EOF
    python3 "$WH_APP_SRC/console_browser.py" "$SHOTS" "$T/plan.json" >"$T/browser.json" 2>"$T/browser.err"
    assert_eq 0 $? "the browser run: $(tail -n 3 "$T/browser.err")"
    check() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$T/browser.json" 2>/dev/null; }
    # (the page for a rebound name is a refusal: its 403s are the point)
    for page in $(check '" ".join(p for p in d["pages"] if p != "rebound")'); do
        assert_eq "[]" "$(check "json.dumps(d['pages']['$page']['errors'])")" "$page: no browser console error"
    done
    page() { check "d['pages']['$1']['$2']"; }
    assert_contains "$(page events text)" "$HOSTILE_ID" "the events page shows what the inbox holds"
    assert_contains "$(page event text)" "$HOSTILE" "the remittance shows as text"
    assert_contains "$(page payment text)" "Timeline by eventDateTime" "the payment page"
    assert_ne "0" "$(check "d['pages']['overview']['bars'][0]")" "the overview's charts have bars"
    assert_eq "0" "$(check "d['pages']['overview']['bars'][1]")" "each coloured as its legend's series (a refusal's code, an outcome)"
    assert_contains "$(page quarantined text)" "invalid_json" "the quarantined body's page"
    assert_eq "undefined" "$(check "d['probes']['hostile']['pwned']")" "the hostile event runs nothing (window.__pwned)"
    assert_eq "None" "$(check "d['probes']['hostile']['alert']")" "no alert is open"
    assert_eq "True" "$(check "d['probes']['hostile']['shown']")" "the remittance is shown as text"
    assert_eq "0" "$(check "d['probes']['hostile']['imgs']")" "no img element was made from data"
    assert_contains "$(page r-bidi text)" "<U+202E>etelpmoC" "the browser shows the bidi control as its code point"
    assert_not_contains "$(page r-bidi text)" "Complete" "and the status never reads Complete"
    assert_eq "0" "$(page r-dead actions)" "the reader sees no Retry button"
    assert_eq "0" "$(page r-quarantine actions)" "nor a quarantine action"
    assert_eq "403" "$(page rebound status)" "the browser's page for a rebound name is refused"
    assert_ne "0" "$(page dead actions)" "the operator sees Retry buttons"
    assert_contains "$(page find text)" "P-BULK1" "find lists the payments of an IMAD"
    assert_contains "$(page retried notice)" "1 dead letter put back" "the click retried it"
    assert_contains "$(page preview text)" "3 dead letters with last status 503 match now" "the preview counts what a retry of all takes"
    assert_contains "$(page bulk-done notice)" "3 dead letters put back" "the confirmation retried them all"
    assert_contains "$(page discarded notice)" "Discarded" "a quarantined body discarded"
    assert_contains "$(page tls-acknowledged notice)" "Acknowledged" "behind the TLS proxy an action is not refused"
    assert_eq "$authz_before" "$(grep -c "user reader1: authorization failure" "$T/logs/error.log")" \
        "a reader's page views leave no authz error in the log"
    wait_for() {
        local i
        for i in $(seq 1 300); do grep -q "$1" "$2" 2>/dev/null && return 0; sleep 0.1; done
        return 1
    }
    log="$(fw_dir con)/app/requests.log"
    assert_eq 0 "$(wait_for "P-DEAD Sent 1 200" "$log"; echo $?)" "the retried dead letter is forwarded to the application"
    assert_eq 0 "$(wait_for "P-BULK3 Sent 1 200" "$log"; echo $?)" "and those retried together"
    fw_stop con
    assert_contains "$(grep WH00983 "$T/logs/error.log")" "user op1 retried dead letter event $dead_event" "the action is logged with the operator's name (WH00983)"
    assert_contains "$(grep WH00983 "$T/logs/error.log")" "user op1 retried the dead letters with last status 503: 3 put back" "the retry of all matching too"
    assert_contains "$(grep WH00983 "$T/logs/error.log")" "user op1 discarded quarantined notification" "and the discard"
    assert_eq 0 "$("$WIREHOOK" inbox --config "$CONF" dead count 2>/dev/null)" "no dead letter is left"
    wh_curl "${O[@]}" "$WH_URL/wirehook/events/$dead_event"
    assert_contains "$WH_BODY" "forwarded" "the event page shows its attempts, the last one forwarded"
    wh_curl "${O[@]}" "$WH_URL/wirehook/"
    assert_contains "$WH_BODY" "stopped" "the forwarder's clean stop is shown"
}
if command -v chromedriver >/dev/null && [ -x /usr/bin/chromium ]; then
    browser_cases
else
    wh_skip_case "the browser's cases: no chromium and chromedriver (build/deps-extra.txt)"
fi

# ---- the CGI's console ---------------------------------------------------------
CGI="$WH_URL/cgi/wirehook.cgi"
wh_post "$CGI" "$(wh_body Sent)"
assert_status 200 "the CGI stores a notification"
wh_post "$CGI" "$T/bad.json"
assert_status 400 "the CGI quarantines a bad body"
wh_curl "$CGI/console/"
assert_status 401 "the CGI's console asks for a login"
wh_curl -u creader:creader-pass "$CGI/console/"
assert_status 200 "a CGI reader sees the overview"
assert_contains "$WH_BODY" "keeps no counters" "which says the CGI keeps no counters"
wh_curl -u creader:creader-pass "$CGI/console/quarantine"
assert_not_contains "$WH_BODY" 'form class="act"' "a CGI reader is shown no action"
wh_curl -u cop:cop-pass "$CGI/console/events"
assert_status 200 "a CGI operator reads too"
# httpd's default UseCanonicalName Off makes SERVER_NAME the Host itself:
# with ConsoleOrigin, the CGI's names are its host and the address
wh_curl -u creader:creader-pass -H "Host: rebound.example:$WH_PORT" "$CGI/console/events"
assert_status 403 "the CGI's console refuses a rebound name (ConsoleOrigin)"
assert_contains "$(grep 'wirehook.cgi' "$T/logs/error.log")" "refused a request for host rebound.example" \
    "and logs it"
wh_curl -u creader:creader-pass -H "Host: console.cgi.test:$WH_PORT" "$CGI/console/events"
assert_status 200 "and answers under ConsoleOrigin's host"
wh_curl -u "$WH_USER:$WH_PASSWD" "$CGI/console/"
assert_status 401 "the bank is no reader of the CGI's console"
wh_curl -u "$WH_USER:$WH_PASSWD" "$CGI"
assert_status 403 "the bank's credentials read nothing from the CGI either"
assert_json_code forbidden
wh_curl -u creader:creader-pass -X POST -H "Origin: $WH_URL" -d "id=1&token=x" "$CGI/console/actions/release"
assert_status 403 "a CGI reader cannot act"
wh_curl -u cop:cop-pass -c "$T/cgijar" "$CGI/console/quarantine"
ack=$(python3 -c '
import re, sys
m = re.search(r"actions/acknowledge\"><input type=\"hidden\" name=\"token\" value=\"([^\"]+)\"><input type=\"hidden\" name=\"id\" value=\"(\d+)\"", sys.stdin.read())
print("id=%s&token=%s" % (m.group(2), m.group(1)) if m else "")' <<<"$WH_BODY")
wh_curl -u cop:cop-pass -b "$T/cgijar" -X POST -H "Origin: http://console.cgi.test:$WH_PORT" \
    -d "$ack&back=list" "$CGI/console/actions/acknowledge"
assert_status 303 "a CGI operator acknowledges a quarantined body"
assert_contains "$(grep 'wirehook.cgi.*notice: console: user cop acknowledged' "$T/logs/error.log")" "quarantined notification" \
    "the CGI logs the action with its operator at the default CGILogLevel"
wh_curl "$CGI/console/assets/console.css"
assert_status 200 "the stylesheet needs no login"
assert_header ETag '"' "with an ETag"
assert_header Cache-Control "max-age=31536000" "and a year's lifetime"

wh_done
