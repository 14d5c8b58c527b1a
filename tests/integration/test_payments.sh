#!/usr/bin/env bash
# The current state of every payment and the quarantine, on SQLite and on
# PostgreSQL: GET <inbox>/payments/{id} and /payments?status= from the CGI
# (PATH_INFO) and the module (the path after its <Location>), the same JSON
# from `wirehook inbox payment(s)`; out-of-order notifications (offsets,
# fractions, ties broken by arrival) never move a payment backwards; the
# sub-paths the inbox does not know are 404; the quarantine's list, show
# and release, both ways.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/inbox_lib.sh"
. "$(dirname "$0")/pg.sh"
. "$(dirname "$0")/forward_lib.sh"

ib_cgi_install
ib_cgi_location /cgi/inbox
# quarantine: the inbox refuses statuses outside the spec's list
QDB="$T/data/q.db"
wh_write_config "$T/etc/q-reject.conf" "InboxParams $QDB" "UnknownStatus reject"
wh_write_config "$T/etc/q-accept.conf" "InboxParams $QDB" "UnknownStatus accept"
wh_httpd_extra "<Location /q>
    SetHandler wirehook
    WirehookConfig $T/etc/q-reject.conf
</Location>"
PGOK=""
if pg_start; then
    PGOK=1
    PG_CONF="$T/etc/pg.conf"
    wh_write_config "$PG_CONF" "InboxDriver pgsql" "InboxParams \"$PG_CONNINFO\""
    chmod 640 "$PG_CONF"; [ "$(id -u)" -eq 0 ] && chgrp www-data "$PG_CONF"
    ib_cgi_pg_location /cgi/pg "SetEnv WIREHOOK_CONFIG $PG_CONF"
else
    _wh_bad "PostgreSQL starts" "see above"
fi
wh_httpd_conf
wh_httpd_start || exit 1

# send URL PAYMENT STATUS EVENTDATETIME [ID] -- one signed notification
send() {
    local b
    b=$(wh_body "$3" "${5:-$(wh_uuid)}")
    python3 - "$b" "$2" "$4" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["data"]["wireEventInfo"]["paymentId"] = sys.argv[2]
d["eventDateTime"] = sys.argv[3]
open(sys.argv[1], "w").write(json.dumps(d))
EOF
    wh_post "$1" "$b"
}

# events of one ENGINE's inbox, posted to URL
fill() {
    local u=$1
    send "$u" P-OOO Review 2026-11-22T14:00:00Z
    send "$u" P-OOO Complete 2026-11-22T14:05:09.123-05:00
    # 123 ms earlier than Complete, arriving later: no change
    send "$u" P-OOO Exception 2026-11-22T19:05:09Z
    # the same instant as Complete, arriving later: arrival decides
    send "$u" P-OOO Reject 2026-11-22T19:05:09.123Z
    # far earlier, in another zone: no change
    send "$u" P-OOO Error 2026-11-22T18:00:00+01:00
    send "$u" P-A Exception 2026-11-22T10:00:00Z
    send "$u" P-B Review 2026-11-22T10:00:00Z
    send "$u" P-B Exception 2026-11-22T10:00:01Z
    send "$u" P-C Exception 2026-11-22T10:00:00Z
    send "$u" P-C Complete 2026-11-22T10:00:00.5Z
    assert_json_code accepted "$L: ten notifications stored"
}

# the payment view against what it must say
check_view() {
    local what=$1 json=$2
    python3 - "$json" <<'EOF' && _wh_ok "$L $what: P-OOO is Reject, history in eventDateTime order" || _wh_bad "$L $what: P-OOO view" "$json"
import json, sys
d = json.loads(sys.argv[1])
h = d["history"]
ok = (d["paymentId"] == "P-OOO" and d["status"] == "Reject" and d["statusKnown"] is True
      and d["eventDateTime"] == "2026-11-22T19:05:09.123Z" and d["events"] == 5
      and [x["status"] for x in h] == ["Review", "Error", "Exception", "Complete", "Reject"]
      and h[-1]["notificationId"] == d["notificationId"]
      and all(set(x) == {"notificationId", "eventType", "eventDateTime", "status", "receivedAt"} for x in h)
      and d["historyTruncated"] is False and d["updatedAt"].endswith("Z"))
sys.exit(0 if ok else 1)
EOF
}

views() {
    local base=$1 label=$2
    local L="$L $label"
    wh_curl -u "$WH_USER:$WH_PASSWD" "$base/payments/P-OOO"
    assert_status 200 "$L: GET /payments/P-OOO"
    assert_header Content-Type application/json "$L: JSON"
    check_view "$label" "$WH_BODY"
    VIEW_JSON=$WH_BODY
    wh_curl -u "$WH_USER:$WH_PASSWD" "$base/payments?status=Exception"
    assert_eq '200 ["P-A", "P-B"] {"offset": "2", "moreRecords": false}' \
        "$WH_STATUS $(wh_json_get "$WH_BODY" '[p["paymentId"] for p in d["payments"]]') $(wh_json_get "$WH_BODY" 'd["pagination"]')" \
        "$L: ?status=Exception lists P-A and P-B (P-C moved on to Complete)"
    wh_curl -u "$WH_USER:$WH_PASSWD" "$base/payments?status=Exception&limit=1"
    assert_eq '["P-A"] {"offset": "1", "moreRecords": true}' \
        "$(wh_json_get "$WH_BODY" '[p["paymentId"] for p in d["payments"]]') $(wh_json_get "$WH_BODY" 'd["pagination"]')" \
        "$L: limit=1: the first page"
    wh_curl -u "$WH_USER:$WH_PASSWD" "$base/payments?status=Exception&limit=1&offset=1"
    assert_eq '["P-B"] {"offset": "2", "moreRecords": false}' \
        "$(wh_json_get "$WH_BODY" '[p["paymentId"] for p in d["payments"]]') $(wh_json_get "$WH_BODY" 'd["pagination"]')" \
        "$L: offset=1: the last page"
    wh_curl -u "$WH_USER:$WH_PASSWD" "$base/payments"
    assert_eq '["P-A", "P-B", "P-C", "P-OOO"]' "$(wh_json_get "$WH_BODY" '[p["paymentId"] for p in d["payments"]]')" \
        "$L: every payment, by paymentId"
    assert_eq "false" "$(wh_json_get "$WH_BODY" '"history" in d["payments"][0]')" "$L: list entries carry no history"
    wh_curl -u "$WH_USER:$WH_PASSWD" "$base/payments?status=Send+Ready"
    assert_eq '200 []' "$WH_STATUS $(wh_json_get "$WH_BODY" 'd["payments"]')" "$L: a status nobody has: empty"
    wh_curl -u "$WH_USER:$WH_PASSWD" -I "$base/payments"
    assert_status 200 "$L: HEAD /payments"
    # refusals
    wh_curl -u "$WH_USER:$WH_PASSWD" "$base/payments/P-NONE"
    assert_eq "404 not_found" "$WH_STATUS $(wh_json_code "$WH_BODY")" "$L: an unknown payment is 404 not_found"
    wh_curl -u "$WH_USER:$WH_PASSWD" "$base/nothing-here"
    assert_eq "404 not_found" "$WH_STATUS $(wh_json_code "$WH_BODY")" "$L: an unknown sub-path is 404 not_found"
    wh_curl -u "$WH_USER:$WH_PASSWD" "$base/payments/P-OOO/more"
    assert_eq "404 not_found" "$WH_STATUS $(wh_json_code "$WH_BODY")" "$L: /payments/ID/more is 404"
    wh_curl "$base/payments/P-OOO"
    assert_eq "401 auth_required" "$WH_STATUS $(wh_json_code "$WH_BODY")" "$L: the view needs Basic auth"
    wh_curl -u "$WH_USER:wrong-$RANDOM" "$base/payments?status=Exception"
    assert_eq "401 auth_failed" "$WH_STATUS $(wh_json_code "$WH_BODY")" "$L: the list needs the right password"
    wh_curl -u "$WH_USER:$WH_PASSWD" -X POST --data-binary '{}' -H 'Content-Type: application/json' "$base/payments"
    assert_eq "405 method_not_allowed" "$WH_STATUS $(wh_json_code "$WH_BODY")" "$L: POST /payments is 405"
    assert_header Allow "GET, HEAD" "$L: Allow: GET, HEAD"
    for q in "ofset=1" "paymentId=P-A" "limit=0" "limit=101" "offset=-1" "status=" "status=a&status=b"; do
        wh_curl -u "$WH_USER:$WH_PASSWD" "$base/payments?$q"
        assert_eq "400 invalid_pagination" "$WH_STATUS $(wh_json_code "$WH_BODY")" "$L: ?$q is 400 invalid_pagination"
    done
    wh_curl -u "$WH_USER:$WH_PASSWD" "$base/payments/P-OOO?limit=1"
    assert_eq "400 invalid_pagination" "$WH_STATUS $(wh_json_code "$WH_BODY")" "$L: a payment takes no query"
    # the listing itself is unchanged
    wh_curl -u "$WH_USER:$WH_PASSWD" "$base?paymentId=P-OOO&limit=10"
    assert_eq 5 "$(wh_json_get "$WH_BODY" 'len(d["events"])')" "$L: the listing still lists a payment's bodies"
}

cli_views() {
    local conf=$1 out
    out=$("$WIREHOOK" inbox --config "$conf" payment P-OOO 2>&1)
    assert_eq 0 $? "$L cli: inbox payment exits 0"
    check_view "cli" "$out"
    [ -n "${VIEW_JSON:-}" ] && assert_eq "$(wh_json_get "$VIEW_JSON" 'json.dumps(d, sort_keys=True)')" \
        "$(wh_json_get "$out" 'json.dumps(d, sort_keys=True)')" "$L cli: the same JSON as the endpoint"
    out=$("$WIREHOOK" inbox --config "$conf" payments --status Exception --limit 1 --offset 1 2>&1)
    assert_eq '["P-B"] {"offset": "2", "moreRecords": false}' \
        "$(wh_json_get "$out" '[p["paymentId"] for p in d["payments"]]') $(wh_json_get "$out" 'd["pagination"]')" \
        "$L cli: inbox payments --status --limit --offset"
    "$WIREHOOK" inbox --config "$conf" payment P-NONE >/dev/null 2>"$T/err"
    assert_eq 1 $? "$L cli: an unknown payment exits 1"
    assert_contains "$(cat "$T/err")" "no event of payment P-NONE" "$L cli: and says so"
}

# ------------------------------------------------------------- SQLite ---
L=sqlite
fill "$WH_URL/inbox"
views "$WH_URL/cgi/inbox" "CGI"
views "$WH_URL/inbox" "module"
# A signed POST under the module's inbox is stored only at the inbox itself:
# the same notification sent afterwards to the inbox is new, not a duplicate.
body=$(wh_body Complete)
wh_post "$WH_URL/inbox/nothing-here" "$body"
assert_eq "404 not_found" "$WH_STATUS $(wh_json_code "$WH_BODY")" "module: a signed POST to an unknown sub-path is 404"
wh_post "$WH_URL/inbox/payments" "$body"
assert_eq "405 method_not_allowed" "$WH_STATUS $(wh_json_code "$WH_BODY")" "module: a signed POST to /payments is 405"
wh_post "$WH_URL/inbox/" "$body"
assert_json_code accepted "module: the same notification at the inbox is stored (nothing was before)"
cli_views "$WH_CONF"

# ---------------------------------------------------------- PostgreSQL ---
if [ -n "$PGOK" ]; then
    L=pgsql VIEW_JSON=""
    fill "$WH_URL/cgi/pg"
    views "$WH_URL/cgi/pg" "CGI"
    cli_views "$PG_CONF"
fi

# ---------------------------------------------------------- quarantine ---
L=quarantine
Q="$WH_URL/q"
qcli() { "$WIREHOOK" inbox --config "$T/etc/q-$1.conf" quarantine "${@:2}"; }
P1=$(wh_uuid)
send "$Q" P-Q Processed 2026-11-22T15:00:00Z "$P1"
assert_eq "400 schema_violation" "$WH_STATUS $(wh_json_code "$WH_BODY")" "an unknown status is refused (UnknownStatus reject)"
printf '{"notificationId":"broken\001", ' >"$T/broken.json"
wh_post "$Q" "$T/broken.json"
assert_eq "400 invalid_json" "$WH_STATUS $(wh_json_code "$WH_BODY")" "broken JSON is refused"
P3=$(wh_uuid)
send "$Q" P-D Processed 2026-11-22T15:00:00Z "$P3"
# the bank corrects P3: the same notificationId with a known status
send "$Q" P-D Complete 2026-11-22T15:00:00Z "$P3"
assert_json_code accepted "the corrected copy is stored"

out=$(qcli reject list 2>&1)
assert_eq 4 "$(grep -c . <<<"$out")" "quarantine list: a header and three rows"
assert_true "quarantine list: code and notificationId" grep -qE "^1 .* schema_violation +$P1 +no$" <<<"$out"
assert_true "quarantine list: invalid_json without an id" grep -qE "^2 .* invalid_json +- +no$" <<<"$out"
out=$(qcli reject show 1 2>&1)
assert_contains "$out" "code:           schema_violation" "quarantine show: the code"
assert_contains "$out" "/data/wireEventInfo/status:" "quarantine show: the problem's field"
assert_contains "$out" "\"notificationId\": \"$P1\"" "quarantine show: the body"
out=$(qcli reject show 2 2>&1)
assert_contains "$out" 'broken\x01' "quarantine show: control bytes escaped"
assert_not_contains "$out" $'\001' "quarantine show: no raw control byte on the terminal"
out=$(qcli reject show 2 --raw 2>&1)
assert_contains "$out" $'broken\001' "quarantine show --raw: the bytes as stored"
qcli reject show 99 >/dev/null 2>&1
assert_eq 1 $? "quarantine show of an unknown id exits 1"

out=$(qcli reject release 1 2>&1)
assert_eq 1 $? "release with UnknownStatus reject: still invalid, exit 1"
assert_contains "$out" "/data/wireEventInfo/status" "release: prints the problems"
before=$(ib_walk "$Q" 100 | wc -l)
out=$(qcli accept release 1 2>&1)
assert_eq 0 $? "release with UnknownStatus accept: exit 0"
assert_contains "$out" "released as event" "release: says as which event"
assert_eq "$((before + 1))" "$(ib_walk "$Q" 100 | wc -l)" "release: listed as one more event"
assert_eq "$P1" "$(ib_walk "$Q" 100 | tail -n 1)" "release: in arrival order from now on (last)"
out=$("$WIREHOOK" inbox --config "$T/etc/q-accept.conf" payment P-Q 2>&1)
assert_eq "Processed false" "$(wh_json_get "$out" 'd["status"]') $(wh_json_get "$out" 'd["statusKnown"]')" \
    "release: the payment view counts it"
out=$(qcli accept list 2>&1)
assert_true "quarantine list: released, as which event" grep -qE "^1 .* released|^1 .*as event" <<<"$out"
out=$(qcli accept release 1 2>&1)
assert_eq 1 $? "release twice: exit 1"
assert_contains "$out" "already released" "release twice: says so"
out=$(qcli accept release 2 2>&1)
assert_eq 1 $? "release of broken JSON: exit 1"
assert_contains "$out" "invalid_json" "release of broken JSON: says why"
out=$(qcli accept release 3 2>&1)
assert_eq 0 $? "release of a notification stored meanwhile: exit 0"
assert_contains "$out" "already in the inbox" "release of a duplicate: nothing stored twice"
assert_eq 1 "$(ib_walk "$Q" 100 | grep -c "$P3")" "release of a duplicate: listed once"

wh_done
