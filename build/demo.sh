#!/usr/bin/env bash
# wirehook demo: builds what is missing, starts Apache httpd on 127.0.0.1
# with mod_wirehook in front of a small CGI app, sends one good and several
# bad notifications with `wirehook send`, prints the answers, then shows the
# built-in inbox (SetHandler wirehook) storing notifications exactly once and
# listing them with offset/limit pages and `wirehook pull`; stops httpd.
#
#   build/demo.sh            (or: make demo)
#
# Everything runs in a temp dir under /tmp that is removed afterwards
# (WH_KEEP_TMP=1 keeps it). Honours BUILD (default build) and WH_SHARED_DIR.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
BUILD=${BUILD:-build}
export BUILD

if [ ! -x "$BUILD/wirehook" ] || [ ! -f "$BUILD/mod_wirehook.so" ]; then
    echo "== building (make BUILD=$BUILD)"
    make BUILD="$BUILD" all >/dev/null || { echo "build failed: run make" >&2; exit 1; }
fi

# The integration harness does the plumbing: temp dir, free port, secrets,
# htpasswd, wirehook config, httpd.conf, start/stop (always stopped on exit).
. tests/integration/lib.sh
wh_init
wh_httpd_conf
wh_httpd_start || { echo "httpd did not start; see above" >&2; exit 1; }

W="$WH_URL/v1/wires"
CRED="$WH_USER:$WH_PASSWD"
send() { "$WIREHOOK" send --config "$WH_CONF" --url "$W" "$@" 2>/dev/null; }
say() { printf '\n%s\n' "$*"; }
show() { sed 's/^/    /'; }

cat <<EOF
wirehook demo
  httpd        $WH_HTTPD (pid $(cat "$T/run/httpd.pid")), listening on $WH_URL
  protected    <Location /v1/wires> WirehookConfig $WH_CONF
  application  a CGI that records the body and the WIREHOOK_* facts it is handed
  config       $(grep -v '^#' "$WH_CONF" | tr '\n' ';' | sed 's/;$//; s/;/; /g')
EOF

say "1. A good notification (fresh id, signed with the first secret):"
send --user "$CRED" --sample Complete | show
d=$(wh_app_last)
if [ -n "$d" ]; then
    echo "    the app received $(wc -c <"$d/body" | tr -d ' ') bytes and:"
    grep '^WIREHOOK_' "$d/env" | sed 's/^/      /'
fi

good=$(wh_body Complete)
say "2. The same notification delivered twice (the bank retries):"
send --user "$CRED" "$good" | show
send --user "$CRED" "$good" | show

say "3. A status the spec does not list (Processed): accepted, flagged WIREHOOK_STATUS_KNOWN=0:"
send --user "$CRED" --sample Processed | show

say "4. Wrong password:"
send --user "$WH_USER:not-the-password" --sample Complete | show

say "5. No credentials at all:"
send --sample Complete | show

say "6. A timestamp 10 minutes old (replayed capture):"
send --user "$CRED" --timestamp "$(($(date +%s) - 600))" --sample Complete | show

say "7. A forged signature:"
send --user "$CRED" --header "X-Signature: $(printf '0%.0s' $(seq 64))" --sample Complete | show

say "8. Signed for another URL:"
send --user "$CRED" --signed-url "https://attacker.example/v1/wires" --sample Complete | show

say "9. Not JSON:"
printf '{"notificationId": ' >"$T/broken.json"
send --user "$CRED" "$T/broken.json" | show

say "10. JSON that breaks the schema (bad amount, short id):"
python3 - "$good" "$T/schema.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["notificationId"] = "12345"
d["data"]["wireEventInfo"]["originalWire"]["wireInfo"]["paymentAmount"] = "1,000"
open(sys.argv[2], "w").write(json.dumps(d))
PY
send --user "$CRED" "$T/schema.json" | show

say "11. Wrong Content-Type and wrong method:"
send --user "$CRED" --content-type text/plain --sample Complete | show
send --user "$CRED" --method GET --sample Complete | show

say "The app ran $(wh_app_calls) time(s): only for the verified, first-time notifications."
say "From the error log (LogLevel wirehook:debug):"
grep -o 'AH109[0-9][0-9]: .*' "$T/logs/error.log" | cut -c1-150 | head -n 14 | show

I="$WH_URL/inbox"
say "12. The built-in inbox (<Location /inbox> SetHandler wirehook, SQLite $WH_INBOX_DB):"
echo "    three notifications and one duplicate, each stored durably before the 200:"
"$WIREHOOK" send --config "$WH_CONF" --url "$I" --user "$CRED" --sample Review 2>/dev/null | show
"$WIREHOOK" send --config "$WH_CONF" --url "$I" --user "$CRED" --sample "Send Ready" 2>/dev/null | show
"$WIREHOOK" send --config "$WH_CONF" --url "$I" --user "$CRED" "$good" 2>/dev/null | show
"$WIREHOOK" send --config "$WH_CONF" --url "$I" --user "$CRED" "$good" 2>/dev/null | show

say "13. Listing with the spec's pagination: GET $I?offset=0&limit=2, then the next page:"
page() {
    curl -s -u "$CRED" "$I?$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for e in d.get("events", []):
    w = e["data"]["wireEventInfo"]
    print("    event", e["notificationId"], w["status"])
print("    pagination", json.dumps(d.get("pagination", d)))'
}
page "offset=0&limit=2"
page "offset=2&limit=2"
echo "    a bad query is refused:"
curl -s -u "$CRED" "$I?ofset=2" | show

say "14. wirehook pull walks every page (limit 1) until moreRecords is false, one record per line:"
"$WIREHOOK" pull "$I" --user "$CRED" --limit 1 2>/dev/null | cut -c1-110 | show

wh_httpd_stop
echo
echo "httpd stopped."
