#!/usr/bin/env bash
# The operator's console (docs/console.md) on a real httpd: httpd's own
# authn/authz decides readers (Require user reader1 op1) and operators
# (Require user op1 on /actions); headless Chromium (chromedriver, Debian's
# packages) loads every page with no console error, shows a script-like
# remittanceInformation as text and runs nothing, and retries a dead
# letter with a real click, which `wirehook forward` then forwards to the
# test application. A POST without the token or from another origin is
# refused and changes nothing; a reader cannot act; the bank's
# credentials read nothing; an unauthenticated console location fails
# configtest (one marked public passes); the CGI's console with its own
# readers and operators files. Screenshots land in $BUILD/console-shots
# (make console-shots copies them into docs/console/).
. "$(dirname "$0")/lib.sh"
wh_init
WH_EXTRA_MODULES="auth_basic authn_core authn_file authz_user"
. "$WH_LIB_DIR/forward_lib.sh"

SHOTS="$WH_BUILD/console-shots"
CON_HT="$T/etc/console.htpasswd"
wh_make_htpasswd "$CON_HT" reader1 reader-pass -B
wh_make_htpasswd "$CON_HT" op1 op-pass -B
chmod 644 "$CON_HT"
HOSTILE='<img src=x onerror=alert(1)>'

fw_scenario con "ForwardMaxAttempts 1"
CONF=$(fw_conf con)
wh_httpd_extra "<Location /wirehook>
    SetHandler wirehook-console
    WirehookConfig $CONF
    AuthType Basic
    AuthName \"wirehook console\"
    AuthBasicProvider file
    AuthUserFile $CON_HT
    Require user reader1 op1
</Location>
<Location /wirehook/actions>
    Require user op1
</Location>
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
    "ConsoleReaders $T/etc/cgi-readers" "ConsoleOperators $T/etc/cgi-operators"
wh_make_htpasswd "$T/etc/cgi-readers" creader creader-pass -B
wh_make_htpasswd "$T/etc/cgi-operators" cop cop-pass -B
chmod 644 "$T/etc/cgi-readers" "$T/etc/cgi-operators" "$WH_HTPASSWD" "$WH_SECRETS"
wh_httpd_conf

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
fw_ctl con '{"rules": [{"payment": "P-DEAD", "answer": 400, "body": "refused <b>by</b> the app"}]}'

# ---- events: ordinary ones, a dead letter to be, a hostile one ------------
fw_send con P-1:Sent P-1:Complete P-2:Sent P-DEAD:Sent || exit 1
hostile_body=$T/hostile.json
python3 - "$WH_SAMPLE_SRC" "$hostile_body" "$HOSTILE" <<'EOF'
import json, sys, uuid, datetime
d = json.load(open(sys.argv[1]))
d["notificationId"] = str(uuid.uuid4())
d["eventDateTime"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
d["data"]["wireEventInfo"]["paymentId"] = "P-X</script>"
d["data"]["wireEventInfo"]["originalWire"]["remittanceInformation"] = sys.argv[3]
d["data"]["wireEventInfo"]["originalWire"]["originatorInfo"]["name"] = "\"><script>window.__pwned=1</script>"
open(sys.argv[2], "w").write(json.dumps(d, indent=2))
EOF
wh_post "$WH_URL/fw/con" "$hostile_body"
assert_status 200 "the hostile notification is accepted (it is valid)"
HOSTILE_ID=$(wh_body_id "$hostile_body")
# a quarantined one: authentic, not JSON
printf '{"notificationId": "x", <b>' >"$T/bad.json"
wh_post "$WH_URL/fw/con" "$T/bad.json"
assert_status 400 "an authentic bad body is refused (and quarantined)"
fw_drain con
assert_eq 0 "$FW_RC" "the forwarder forwards everything: $FW_ERR"
# the four the application takes (P-DEAD's it refuses: a dead letter)
assert_true "the application took four events" fw_wait_forwarded con 4 30

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
wh_curl "${R[@]}" "$WH_URL/wirehook/events"
EVENTS=$WH_BODY
hostile_event=$(python3 -c '
import re, sys
m = re.search(r"/wirehook/events/(\d+)\">" + re.escape(sys.argv[1]), sys.stdin.read())
print(m.group(1) if m else "")' "$HOSTILE_ID" <<<"$EVENTS")
assert_ne "" "$hostile_event" "the events page lists the hostile event"
assert_not_contains "$EVENTS" "<script>" "no script element on the events page"
wh_curl "${R[@]}" "$WH_URL/wirehook/dead"
assert_contains "$WH_BODY" "refused &lt;b&gt;by&lt;/b&gt; the app" "the dead letter's last answer, escaped"
assert_not_contains "$WH_BODY" 'form class="act"' "a reader is shown no action"
dead_event=$(python3 -c '
import re, sys
m = re.search(r"/wirehook/events/(\d+)\"", sys.stdin.read())
print(m.group(1) if m else "")' <<<"$WH_BODY")
assert_ne "" "$dead_event" "the dead letters page lists the dead letter"
wh_curl "${R[@]}" "$WH_URL/wirehook/api/events?limit=10"
assert_status 200 "readers read the JSON listing under the console"
assert_contains "$WH_BODY" "$HOSTILE_ID" "which holds the events"
wh_curl -u "$WH_USER:$WH_PASSWD" "$WH_URL/fw/con"
assert_status 403 "the bank's credentials read nothing where readers are configured"
assert_json_code forbidden
assert_contains "$WH_BODY" "/wirehook/api/events" "and the answer says where readers read"
wh_curl -u "$WH_USER:$WH_PASSWD" "$WH_URL/wirehook/"
assert_status 401 "the bank is no reader of the console"

# ---- actions that must be refused --------------------------------------------
dead_before=$("$WIREHOOK" inbox --config "$CONF" dead list 2>/dev/null | grep -c .)
wh_curl "${R[@]}" -X POST -H "Origin: $WH_URL" -d "event=$dead_event&token=x" "$WH_URL/wirehook/actions/retry"
assert_status 401 "a reader's direct POST is refused by httpd's authz"
wh_curl "${O[@]}" -c "$T/jar" "$WH_URL/wirehook/dead"
token=$(sed -n 's/.*name="token" value="\([0-9a-f]\{64\}\)".*/\1/p' <<<"$WH_BODY" | head -n 1)
assert_eq 64 "${#token}" "an operator's page carries an action token"
wh_curl "${O[@]}" -b "$T/jar" -X POST -H "Origin: $WH_URL" -d "event=$dead_event" "$WH_URL/wirehook/actions/retry"
assert_status 403 "a POST without the token is refused"
wh_curl "${O[@]}" -b "$T/jar" -X POST -H "Origin: http://evil.example" -d "event=$dead_event&token=$token" "$WH_URL/wirehook/actions/retry"
assert_status 403 "a POST from another origin is refused"
wh_curl "${O[@]}" -b "$T/jar" -X POST -d "event=$dead_event&token=$token" "$WH_URL/wirehook/actions/retry"
assert_status 403 "a POST without Origin is refused"
wh_curl "${O[@]}" -X POST -H "Origin: $WH_URL" -d "event=$dead_event&token=$token" "$WH_URL/wirehook/actions/retry"
assert_status 403 "a POST without the session cookie is refused"
dead_after=$("$WIREHOOK" inbox --config "$CONF" dead list 2>/dev/null | grep -c .)
assert_eq "$dead_before" "$dead_after" "the refused POSTs changed nothing"
assert_contains "$(wh_errlog)" "WH00984" "refusals are logged"

# ---- the browser --------------------------------------------------------------
if ! command -v chromedriver >/dev/null || ! [ -x /usr/bin/chromium ]; then
    _wh_bad "chromium and chromedriver are installed (build/deps-extra.txt)"
    wh_done
fi
rm -rf "$SHOTS"
cat >"$T/plan-reader.json" <<EOF
{"pages": [["overview", "/"], ["events", "/events"], ["dead", "/dead"]], "hostile": "/events/$hostile_event"}
EOF
cat >"$T/plan-op.json" <<EOF
{"pages": [["overview", "/"], ["events", "/events"], ["event", "/events/$hostile_event"],
           ["payments", "/payments"], ["payment", "/payments/P-1"], ["dead", "/dead"],
           ["quarantine", "/quarantine"], ["quarantined", "/quarantine/1"]],
 "dead": "/dead", "retry": true}
EOF
python3 "$WH_APP_SRC/console_browser.py" "$WH_URL/wirehook" reader1:reader-pass reader - \
    "$T/plan-reader.json" >"$T/reader.json" 2>"$T/reader.err"
assert_eq 0 $? "the reader's browser run: $(tail -n 3 "$T/reader.err")"
fw_ctl con '{"rules": []}'          # the application takes it now
fw_start con --interval 0
python3 "$WH_APP_SRC/console_browser.py" "$WH_URL/wirehook" op1:op-pass operator "$SHOTS" \
    "$T/plan-op.json" >"$T/op.json" 2>"$T/op.err"
assert_eq 0 $? "the operator's browser run: $(tail -n 3 "$T/op.err")"
check() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }
for run in reader op; do
    for page in $(check "$T/$run.json" '" ".join(d["pages"])'); do
        assert_eq "[]" "$(check "$T/$run.json" "json.dumps(d['pages']['$page']['errors'])")" \
            "$run: $page loads with no browser console error"
    done
done
assert_contains "$(check "$T/op.json" "d['pages']['events']['text']")" "$HOSTILE_ID" "the events page shows what the inbox holds"
assert_contains "$(check "$T/op.json" "d['pages']['event']['text']")" "$HOSTILE" "the remittance shows as text"
assert_contains "$(check "$T/op.json" "d['pages']['payment']['text']")" "Timeline by eventDateTime" "the payment page"
assert_contains "$(check "$T/op.json" "d['pages']['quarantined']['text']")" "invalid_json" "the quarantined body's page"
assert_eq "undefined" "$(check "$T/reader.json" "d['hostile']['pwned']")" "the hostile event runs nothing (window.__pwned)"
assert_eq "None" "$(check "$T/reader.json" "d['hostile']['alert']")" "no alert is open"
assert_eq "True" "$(check "$T/reader.json" "d['hostile']['shown']")" "the remittance is shown as text"
assert_eq "0" "$(check "$T/reader.json" "d['hostile']['imgs']")" "no img element was made from data"
assert_eq "0" "$(check "$T/reader.json" "d['pages']['dead']['actions']")" "the reader sees no Retry button"
assert_ne "0" "$(check "$T/op.json" "d['pages']['dead']['actions']")" "the operator sees a Retry button"
assert_contains "$(check "$T/op.json" "d['retry']['notice']")" "1 dead letter put back" "the click retried it"
assert_true "the application took a fifth" fw_wait_forwarded con 5 30
assert_contains "$(cat "$(fw_dir con)/app/requests.log")" "P-DEAD Sent 1 200" \
    "the retried dead letter is forwarded to the application"
fw_stop con
assert_contains "$(wh_errlog)" "WH00983" "the action is logged"
assert_contains "$(grep WH00983 "$T/logs/error.log")" "user op1 retried dead letter event $dead_event" "with the operator's name"
wh_curl "${O[@]}" "$WH_URL/wirehook/events/$dead_event"
assert_contains "$WH_BODY" "forwarded" "the event page shows its attempts, the last one forwarded"

# ---- the CGI's console ---------------------------------------------------------
CGI="$WH_URL/cgi/wirehook.cgi"
wh_post "$CGI" "$(wh_body Sent)"
assert_status 200 "the CGI stores a notification"
wh_curl "$CGI/console/"
assert_status 401 "the CGI's console asks for a login"
wh_curl -u creader:creader-pass "$CGI/console/"
assert_status 200 "a CGI reader sees the overview"
assert_contains "$WH_BODY" "keeps no counters" "which says the CGI keeps no counters"
wh_curl -u creader:creader-pass "$CGI/console/quarantine"
assert_not_contains "$WH_BODY" 'form class="act"' "a CGI reader is shown no action"
wh_curl -u cop:cop-pass "$CGI/console/events"
assert_status 200 "a CGI operator reads too"
wh_curl -u "$WH_USER:$WH_PASSWD" "$CGI/console/"
assert_status 401 "the bank is no reader of the CGI's console"
wh_curl -u "$WH_USER:$WH_PASSWD" "$CGI"
assert_status 403 "the bank's credentials read nothing from the CGI either"
assert_json_code forbidden
wh_curl -u creader:creader-pass -X POST -H "Origin: $WH_URL" -d "id=1&token=x" "$CGI/console/actions/release"
assert_status 403 "a CGI reader cannot act"
wh_curl "$CGI/console/assets/console.css"
assert_status 200 "the stylesheet needs no login"
assert_header ETag '"' "with an ETag"
assert_header Cache-Control "max-age=31536000" "and a year's lifetime"

wh_done
