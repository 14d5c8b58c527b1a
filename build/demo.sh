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
say "2. The same notification sent twice (the bank retries):"
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
# the module's own tags (mod_wirehook/wh_mod_logtags.h); an empty section
# means the demo no longer matches what the module logs: it fails
logged=$(grep -oE 'WH[0-9]{5}: .*' "$T/logs/error.log" | cut -c1-150 | head -n 14)
printf '%s\n' "$logged" | show
demo_rc=0
if [ -z "$logged" ]; then
    echo "demo: the error log has no wirehook line (WHnnnnn): the section above is empty" >&2
    demo_rc=1
fi

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

# ------------------------------------------------------- forwarding ---
# wirehook forward pushes what the inbox stored to an application: here
# tests/integration/app/forward_app.py, which checks the forwarder's own
# signature and starts out down.
{
    FS="$T/etc/forward.secret"
    wh_make_secrets "$FS" "demo-forward-secret-$RANDOM$RANDOM"
    APORT=$(wh_free_port); CPORT=$(wh_free_port)
    AURL="http://127.0.0.1:$APORT/wires"
    FCONF="$T/etc/forward.conf"
    cp "$WH_CONF" "$FCONF"
    printf '%s\n' "ForwardUrl $AURL" "ForwardSecretFile $FS" "ForwardBackoffMin 250ms" \
        "ForwardBackoffMax 2s" >>"$FCONF"
    python3 "$WH_APP_SRC/forward_app.py" --port "$APORT" --control-port "$CPORT" \
        --secret-file "$FS" --url "$AURL" --out "$T/fwd-app" --down >"$T/fwd-app.log" 2>&1 &
    wh_bg_add $!
    wh_wait_port "$CPORT" 5

    say "15. Forwarding: the bank's three notifications for payment WP-DEMO-7 are stored at once;"
    echo "    the third (Exception at 14:03) arrives after Complete (14:05), as a late retry would:"
    for ev in "Review 2026-11-22T14:01:00Z" "Complete 2026-11-22T14:05:00-00:00" "Exception 2026-11-22T09:03:00-05:00"; do
        set -- $ev
        python3 - "$WH_SAMPLE_SRC" "$1" "$2" "$T/ev.json" <<'PY'
import json, sys, uuid
d = json.load(open(sys.argv[1]))
d["notificationId"] = str(uuid.uuid4())
d["eventDateTime"] = sys.argv[3]
d["data"]["wireEventInfo"]["paymentId"] = "WP-DEMO-7"
d["data"]["wireEventInfo"]["status"] = sys.argv[2]
open(sys.argv[4], "w").write(json.dumps(d))
PY
        printf '    %-9s %-26s ' "$1" "$2"
        "$WIREHOOK" send --config "$WH_CONF" --url "$I" --user "$CRED" "$T/ev.json" 2>/dev/null
    done

    say "16. wirehook forward --config forward.conf, with the application DOWN for 3 seconds:"
    "$WIREHOOK" forward --config "$FCONF" --interval 1 --verbose >"$T/fwd.out" 2>"$T/fwd.err" &
    FPID=$!
    wh_bg_add $FPID
    sleep 3
    curl -s -X POST --data-binary '{"up": true}' "http://127.0.0.1:$CPORT/control" >/dev/null
    for _ in $(seq 1 100); do
        [ "$(grep -c ' 200 ' "$T/fwd-app/requests.log" 2>/dev/null)" -ge 6 ] && break
        sleep 0.1
    done
    kill -TERM "$FPID" 2>/dev/null; wait "$FPID" 2>/dev/null
    echo "    what the forwarder logged (retries with growing, jittered delays, then the 2xx):"
    grep -E 'retry:|dead' "$T/fwd.err" | sed -E 's/notificationId ([0-9a-f]{8})[0-9a-f-]*/\1…/; s/Failed to connect.*Couldn.t connect to server/connection refused/' | head -n 8 | show
    echo "    its status lines:"
    sed -n '1,4p' "$T/fwd.out" | show
    echo "    what the application received (seq, notificationId, payment, status, attempt, answer):"
    cut -d' ' -f1-6 "$T/fwd-app/requests.log" | show
    echo "    (the earlier events of the inbox went too: one payment's in arrival order, one at a time)"

    say "17. The current state of payment WP-DEMO-7: the latest by eventDateTime (Complete, 14:05),"
    echo "    not the last to arrive (Exception, 14:03 in New York time):"
    "$WIREHOOK" inbox --config "$FCONF" payment WP-DEMO-7 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("    status", d["status"], "set by the event of", d["eventDateTime"], "-", d["events"], "events")
for h in d["history"]:
    print("      history:", h["eventDateTime"], h["status"])'
    view=$(curl -s -u "$CRED" "$I/payments/WP-DEMO-7")
    case $view in
        '{"paymentId":'*)
            echo "    the same from the inbox: GET $I/payments/WP-DEMO-7"
            printf '%s\n' "$view" | cut -c1-110 | show ;;
        *)  echo "    (GET <inbox>/payments/ID answers the same JSON from wirehook.cgi; from the"
            echo "    module once it passes the sub-path to the core)" ;;
    esac
    echo "    payments by current status: wirehook inbox payments --status Complete"
    "$WIREHOOK" inbox --config "$FCONF" payments --status Complete 2>/dev/null | cut -c1-110 | show
}

wh_httpd_stop
echo
echo "httpd stopped."
exit "$demo_rc"
