# The forwarding scenarios, run on SQLite by test_forward.sh and on a
# database server by test_forward_pg.sh and test_forward_mysql.sh
# (fws_server_suite; sourced after forward_lib.sh). Each
# scenario has a setup (before httpd starts: its inbox location) and a run.
#
# The outage scenario runs in the background while the others run: its
# application stays down while they run and for at least WH_FWD_OUTAGE
# seconds of the forwarder retrying (default 6; `make soak` and WH_SOAK=1
# use the real 60), long enough for the backoff (ForwardBackoffMax 1s
# here) to retry several times across it.

FW_OUTAGE=${WH_FWD_OUTAGE:-$([ -n "${WH_SOAK:-}" ] && echo 60 || echo 6)}

fws_setup() {
    fw_scenario basic
    fw_scenario flaky
    fw_scenario later
    fw_scenario poison
    fw_scenario maxed "ForwardMaxAttempts 3"
    fw_scenario outage
    fw_scenario crash "ForwardTimeout 1s"
    fw_scenario bulk "ForwardMaxAttempts 1"
}

# ------------------------------------------------------------- basic ---
fws_basic() {
    local L=$1 d nid ts sig
    d=$(fw_dir basic)
    fw_app_start basic || return 1
    fw_send basic A:Review B:Review A:Send_Ready C:Review -:wire.audit B:Exception \
        A:Complete C:Complete D:Review -:wire.audit B:Complete D:Complete
    fw_drain basic --verbose --verbose
    assert_eq 0 "$FW_RC" "$L basic: --drain exits 0"
    assert_contains "$FW_OUT" "drained: delivered=12 retries=0 dead=0" "$L basic: the summary line" ||
        fw_explain basic
    assert_contains "$FW_ERR" "forwarded " "$L basic: --verbose twice logs each event forwarded"
    fw_check basic "$L basic"
    # the last request, as the application saw it, against what was sent
    python3 - "$d/app/last.json" "$d/sent" >"$d/last.vars" <<'EOF'
import json, shlex, sys
d = json.load(open(sys.argv[1]))
h = {k.lower(): v for k, v in d["headers"].items()}
open(sys.argv[1] + ".body", "w").write(d["body"])
for k in ("x-timestamp", "x-signature", "idempotency-key", "wirehook-verified",
          "wirehook-notification-id", "wirehook-event-type", "wirehook-event-time",
          "wirehook-payment-id", "wirehook-status", "wirehook-status-known",
          "wirehook-attempt", "content-type"):
    print("H_%s=%s" % (k.replace("-", "_"), shlex.quote(h.get(k, ""))))
body = json.loads(d["body"])
sent = {l.split()[0]: l.split() for l in open(sys.argv[2])}
s = sent.get(body["notificationId"], ["", "-", "", ""])
print("B_nid=%s" % shlex.quote(body["notificationId"]))
print("B_time=%s" % shlex.quote(body["eventDateTime"]))
print("B_type=%s" % shlex.quote(body["eventType"]))
print("S_pay=%s" % shlex.quote(s[1] if s[1] != "-" else ""))
print("S_status=%s" % shlex.quote(s[2].replace("_", " ") if s[1] != "-" else ""))
known = s[1] != "-" and s[2] in ("Review", "Send_Ready", "Reject", "Error", "Exception", "Complete")
print("S_known=%d" % known)
EOF
    # shellcheck disable=SC1091
    . "$d/last.vars"
    nid=$B_nid
    assert_true "$L basic: the last request is an event that was sent" grep -q "^$nid " "$d/sent"
    assert_eq "$nid" "$H_idempotency_key" "$L basic: Idempotency-Key is the notificationId"
    assert_eq "$nid" "$H_wirehook_notification_id" "$L basic: Wirehook-Notification-Id"
    assert_eq "1|$B_type|$S_pay|$S_status|$S_known|1|$B_time" \
        "$H_wirehook_verified|$H_wirehook_event_type|$H_wirehook_payment_id|$H_wirehook_status|$H_wirehook_status_known|$H_wirehook_attempt|$H_wirehook_event_time" \
        "$L basic: Wirehook-Verified, -Event-Type, -Payment-Id, -Status, -Status-Known, -Attempt, -Event-Time"
    assert_eq "application/json" "$H_content_type" "$L basic: Content-Type"
    sig=$("$WIREHOOK" sign --secret-file "$FW_SECRET_FILE" --url "$(fw_url basic)" \
        --timestamp "$H_x_timestamp" "$d/app/last.json.body")
    assert_eq "$sig" "$H_x_signature" "$L basic: wirehook sign reproduces the forwarder's signature"
    # nothing left: a second run forwards nothing
    fw_drain basic
    assert_contains "$FW_OUT" "drained: delivered=0 retries=0 dead=0" "$L basic: a second drain finds nothing to do"
    assert_eq 12 "$(wc -l <"$d/app/requests.log")" "$L basic: each event forwarded once"
    fw_inbox basic dead list
    assert_eq "0 1" "$FW_RC $(grep -c . <<<"$FW_OUT")" "$L basic: no dead letters (header line only)"
}

# ------------------------------------------------ 500 twice, then 200 ---
fws_flaky() {
    local L=$1 first
    fw_app_start flaky || return 1
    fw_ctl flaky '{"rules":[{"payment":"F","answer":500,"times":2}]}'
    fw_send flaky F:Review G:Review F:Send_Ready F:Complete G:Complete
    first=$(fw_sent_id flaky 1)
    fw_drain flaky --verbose
    assert_eq 0 "$FW_RC" "$L flaky: --drain exits 0"
    assert_contains "$FW_OUT" "delivered=5 retries=2 dead=0" "$L flaky: two retries, nothing dead"
    assert_eq "500 500 200" "$(fw_attempts flaky "$first")" "$L flaky: 500, 500, then 200 for the first event"
    assert_contains "$FW_ERR" "retry: notificationId $first attempt 1: HTTP 500" "$L flaky: the retry is logged with the answer"
    fw_check flaky "$L flaky"
    # W3C traceparent: the event's trace (its notificationId's digits) at
    # every attempt, a span of each attempt's own
    local tp trace=${first//-/} spans="" n=0 bad=""
    while read -r nid_ attempt_ tp; do
        [ "$nid_" = "$first" ] || continue
        n=$((n + 1))
        [[ $tp =~ ^00-${trace}-([0-9a-f]{16})-01$ ]] || { bad+=" $attempt_:$tp"; continue; }
        [[ " $spans " == *" ${BASH_REMATCH[1]} "* ]] && bad+=" $attempt_:span-again"
        spans+=" ${BASH_REMATCH[1]}"
    done <"$(fw_dir flaky)/app/traces.log"
    assert_eq "3 " "$n $bad" "$L flaky: each attempt's traceparent: the event's trace, a new span"
}

# ------------------------------------------------------- Retry-After ---
fws_later() {
    local L=$1 first delay
    fw_app_start later || return 1
    fw_ctl later '{"rules":[{"payment":"R","answer":503,"times":1,"retry_after":"1"}]}'
    fw_send later R:Review
    first=$(fw_sent_id later 1)
    fw_drain later --verbose
    assert_contains "$FW_OUT" "delivered=1 retries=1 dead=0" "$L Retry-After: one retry"
    delay=$(sed -n "s/.*retry: notificationId $first attempt 1: HTTP 503.*; next in \([0-9]*\) ms (Retry-After).*/\1/p" <<<"$FW_ERR")
    assert_true "$L Retry-After: 1 s honoured over a 100 ms backoff (next in ${delay:-?} ms)" \
        test "${delay:-0}" -ge 1000 -a "${delay:-0}" -le 1001
    assert_eq "503 200" "$(fw_attempts later "$first")" "$L Retry-After: then forwarded"
}

# ---------------------------------------------------- a poison event ---
fws_poison() {
    local L=$1 bad
    fw_app_start poison || return 1
    fw_send poison X:Review Y:Review X:Send_Ready Y:Complete X:Complete
    bad=$(fw_sent_id poison 1)
    fw_ctl poison "{\"rules\":[{\"nid\":\"$bad\",\"answer\":400,\"body\":\"{\\\"error\\\":\\\"poison pill\\\"}\"}]}"
    fw_drain poison
    assert_eq 0 "$FW_RC" "$L poison: --drain exits 0 with a dead letter"
    assert_contains "$FW_OUT" "delivered=4 retries=0 dead=1" "$L poison: one dead at once (no retries), four forwarded"
    assert_eq "400" "$(fw_attempts poison "$bad")" "$L poison: tried once"
    assert_contains "$FW_ERR" "dead letter: notificationId $bad after attempt 1: HTTP 400" "$L poison: the dead letter is logged"
    # the later events of the same payment went on: dead is not pending
    fw_check poison "$L poison" dead="$bad"
    fw_inbox poison dead list
    assert_eq 0 "$FW_RC" "$L poison: dead list exits 0"
    assert_contains "$FW_OUT" "$bad X" "$L poison: dead list shows the event and its payment"
    assert_contains "$FW_OUT" 'HTTP 400: {"error":"poison pill"}' "$L poison: dead list shows the answer"
    fw_inbox poison dead show "$bad"
    assert_contains "$FW_OUT" "reason:         rejected by the application" "$L poison: dead show gives the reason"
    assert_contains "$FW_OUT" "last status:    400" "$L poison: dead show gives the status"
    assert_contains "$FW_OUT" "\"notificationId\":\"$bad\"" "$L poison: dead show prints the body"
    fw_inbox poison dead show 999999
    assert_eq 1 "$FW_RC" "$L poison: dead show of an unknown id exits 1"
    # fixed: back in the queue, forwarded with a fresh count
    fw_ctl poison '{"rules":[]}'
    fw_inbox poison dead retry "$bad"
    assert_eq "0" "$FW_RC" "$L poison: dead retry exits 0"
    assert_contains "$FW_OUT" "1 dead letter back in the forward queue" "$L poison: dead retry says so"
    fw_drain poison
    assert_contains "$FW_OUT" "delivered=1 retries=0 dead=0" "$L poison: the retried event is forwarded"
    assert_eq "400 200" "$(fw_attempts poison "$bad")" "$L poison: ... on attempt 1 of its new count"
    assert_contains "$(tail -n 1 "$(fw_dir poison)/app/requests.log")" "$bad X Review 1 200" \
        "$L poison: Wirehook-Attempt starts again at 1"
    fw_inbox poison dead list
    assert_eq 1 "$(grep -c . <<<"$FW_OUT")" "$L poison: no dead letters left"
    fw_inbox poison dead retry --all
    assert_contains "$FW_OUT" "0 dead letters" "$L poison: retry --all with none is fine"
}

# ------------------------------------- dead letters and quarantine in bulk ---
# What the console's bulk actions do, from a shell (wirehook inbox): the
# dead letters a filter picks counted, listed and retried together; the
# quarantine's bodies discarded and acknowledged with who did it.
fws_bulk() {
    local L=$1 b1 b1b b2 b3 future past
    fw_app_start bulk || return 1
    fw_ctl bulk '{"rules":[{"payment":"B1","answer":503},{"payment":"B2","answer":503},
                          {"payment":"B3","answer":400}]}'
    fw_send bulk B1:Review B2:Review B1:Complete B3:Review OK:Review
    b1=$(fw_sent_id bulk 1); b2=$(fw_sent_id bulk 2); b1b=$(fw_sent_id bulk 3); b3=$(fw_sent_id bulk 4)
    fw_drain bulk
    assert_contains "$FW_OUT" "delivered=1 retries=0 dead=4" "$L bulk: four dead letters, three of a 503" ||
        fw_explain bulk
    fw_inbox bulk dead count
    assert_eq "0 4" "$FW_RC $FW_OUT" "$L bulk: dead count, no filter"
    fw_inbox bulk dead count --http 503
    assert_eq "3" "$FW_OUT" "$L bulk: dead count --http 503"
    fw_inbox bulk dead count --http none
    assert_eq "0" "$FW_OUT" "$L bulk: dead count --http none (every one had an answer)"
    fw_inbox bulk dead count --reason "rejected by the application"
    assert_eq "1" "$FW_OUT" "$L bulk: dead count --reason"
    fw_inbox bulk dead count --payment B1
    assert_eq "2" "$FW_OUT" "$L bulk: dead count --payment"
    fw_inbox bulk dead count --payment B1 --http 400
    assert_eq "0" "$FW_OUT" "$L bulk: filters combine"
    future=$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)
    past=$(date -u -d '-1 hour' +%Y-%m-%dT%H:%M:%SZ)
    fw_inbox bulk dead count --from "$future"
    assert_eq "0" "$FW_OUT" "$L bulk: dead count --from a later time"
    fw_inbox bulk dead count --from "$past" --to "$future"
    assert_eq "4" "$FW_OUT" "$L bulk: dead count --from --to around them"
    fw_inbox bulk dead count --http 999
    assert_eq 2 "$FW_RC" "$L bulk: --http out of range is a usage error"
    assert_contains "$FW_ERR" "--http: a status from 100 to 599, or none" "$L bulk: and says so"
    fw_inbox bulk dead count --from yesterday
    assert_eq 2 "$FW_RC" "$L bulk: --from not RFC 3339 is a usage error"
    fw_inbox bulk dead list --http 503
    assert_eq 0 "$FW_RC" "$L bulk: dead list with a filter"
    assert_eq 4 "$(grep -c . <<<"$FW_OUT")" "$L bulk: lists the three (and its header)"
    assert_not_contains "$FW_OUT" "$b3" "$L bulk: and not the 400"
    assert_true "$L bulk: the newest first" python3 -c '
import sys
ids = [l.split()[1] for l in sys.stdin.read().splitlines()[1:]]
sys.exit(0 if ids == sys.argv[1:] else 1)' "$b1b" "$b2" "$b1" <<<"$FW_OUT"
    fw_inbox bulk dead retry --http 503 --all
    assert_eq 2 "$FW_RC" "$L bulk: a filter and --all together is a usage error"
    # the application is back: all of a 503 retried in one go, the 400 stays
    fw_ctl bulk '{"rules":[{"payment":"B3","answer":400}]}'
    fw_inbox bulk dead retry --http 503
    assert_eq "0" "$FW_RC" "$L bulk: dead retry --http 503 exits 0"
    assert_contains "$FW_OUT" "3 dead letters back in the forward queue" "$L bulk: and says how many"
    fw_drain bulk
    assert_contains "$FW_OUT" "delivered=3 retries=0 dead=0" "$L bulk: the three are forwarded"
    assert_eq "503 200 503 200" "$(fw_attempts bulk "$b1") $(fw_attempts bulk "$b1b")" "$L bulk: both of B1's events, each once more"
    assert_true "$L bulk: a payment's retried in listing order" python3 -c '
import sys
ids = [l.split()[1] for l in open(sys.argv[1]) if l.split()[5] == "200"]
sys.exit(0 if ids.index(sys.argv[2]) < ids.index(sys.argv[3]) else 1)' \
        "$(fw_dir bulk)/app/requests.log" "$b1" "$b1b"
    fw_inbox bulk dead count
    assert_eq "1" "$FW_OUT" "$L bulk: the 400 is still dead"
    fw_inbox bulk dead list
    assert_contains "$FW_OUT" "$b3" "$L bulk: ... and listed"

    # the quarantine: two authentic bodies that are not JSON
    printf '{"notificationId": "x", <b>' >"$(fw_dir bulk)/bad.json"
    wh_post "$WH_URL/fw/bulk" "$(fw_dir bulk)/bad.json"
    assert_status 400 "$L bulk: an authentic bad body is quarantined"
    wh_post "$WH_URL/fw/bulk" "$(fw_dir bulk)/bad.json"
    fw_inbox bulk quarantine discard 1 --by alice
    assert_eq "0" "$FW_RC" "$L bulk: quarantine discard exits 0"
    assert_contains "$FW_OUT" "quarantined notification 1 discarded by alice" "$L bulk: and says who"
    fw_inbox bulk quarantine acknowledge 2 --by bob
    assert_contains "$FW_OUT" "quarantined notification 2 acknowledged by bob" "$L bulk: quarantine acknowledge"
    fw_inbox bulk quarantine list
    assert_contains "$FW_OUT" "no: discarded by alice" "$L bulk: the list says who discarded"
    assert_contains "$FW_OUT" "no: acknowledged by bob" "$L bulk: and who acknowledged"
    fw_inbox bulk quarantine show 1
    assert_contains "$FW_OUT" "body (0 bytes)" "$L bulk: a discarded body's bytes are gone"
    fw_inbox bulk quarantine discard 1
    assert_eq 1 "$FW_RC" "$L bulk: a body no longer held is not discarded twice"
    assert_contains "$FW_ERR" "is no longer held" "$L bulk: and says why"
    fw_inbox bulk quarantine release 1
    assert_eq 1 "$FW_RC" "$L bulk: a discarded body cannot be released"
    assert_contains "$FW_ERR" "was discarded" "$L bulk: and says why"
    fw_inbox bulk quarantine discard 2 --by carol
    assert_eq 0 "$FW_RC" "$L bulk: an acknowledged body may still be discarded"
    fw_inbox bulk quarantine acknowledge 99
    assert_eq 1 "$FW_RC" "$L bulk: an unknown id exits 1"
}

# ------------------------------------------------ ForwardMaxAttempts ---
fws_maxed() {
    local L=$1 m
    fw_app_start maxed || return 1
    fw_ctl maxed '{"rules":[{"payment":"M","answer":502}]}'
    fw_send maxed M:Review N:Review
    m=$(fw_sent_id maxed 1)
    fw_drain maxed
    assert_contains "$FW_OUT" "delivered=1 retries=2 dead=1" "$L max attempts: dead after 3 attempts" ||
        fw_explain maxed
    assert_eq "502 502 502" "$(fw_attempts maxed "$m")" "$L max attempts: three 502s"
    fw_inbox maxed dead show "$m"
    assert_contains "$FW_OUT" "gave up after 3 attempts (ForwardMaxAttempts)" "$L max attempts: the reason"
    assert_contains "$FW_OUT" "attempts:       3" "$L max attempts: the count"
}

# -------------------------------------------------------- the outage ---
# Down before the first event; up again once the forwarder has been
# retrying for FW_OUTAGE seconds and has retried the first event three
# times. (A timer started with the outage ran out before the forwarder
# did when sending the 40 events took longer than the outage on a busy
# machine: nothing was retried.)
fws_outage_start() {
    local specs=() i
    fw_app_start outage || return 1
    fw_ctl outage '{"down": -1}'
    for i in $(seq 0 39); do specs+=("O$((i % 8)):Review"); done
    fw_send outage "${specs[@]}"
    fw_start outage --verbose --interval 1
    FW_OUTAGE_T0=$(date +%s)
}

# (what the other scenarios leave of FW_OUTAGE and of the three retries is
# waited for here, at most two minutes)
_fws_outage_end() {
    local first n i
    first=$(fw_sent_id outage 1)
    for i in $(seq 1 1200); do
        n=$(grep -c "retry: notificationId $first attempt " "$(fw_dir outage)/fwd.err" 2>/dev/null)
        [ "${n:-0}" -ge 3 ] && [ $(( $(date +%s) - FW_OUTAGE_T0 )) -ge "$FW_OUTAGE" ] && break
        sleep 0.1
    done
    fw_ctl outage '{"up": true}'
}

fws_outage_finish() {
    local L=$1 first delays
    _fws_outage_end
    if fw_wait_forwarded outage 40 $((FW_OUTAGE + 60)); then
        _wh_ok "$L outage: all 40 forwarded after ${FW_OUTAGE}s down"
    else
        _wh_bad "$L outage: all 40 forwarded after ${FW_OUTAGE}s down" "$(fw_app_ok outage) forwarded"
    fi
    fw_stop outage TERM
    assert_eq 0 "$FW_RC" "$L outage: SIGTERM stops the forwarder cleanly (exit 0)"
    assert_contains "$(cat "$(fw_dir outage)/fwd.err")" "stopped: delivered=40" "$L outage: and it says what it did"
    fw_check outage "$L outage"
    first=$(fw_sent_id outage 1)
    # the schedule spanned the outage, each delay within the jittered
    # exponential schedule of its attempt (100ms doubling, capped at 1s)
    delays=$(sed -n "s/.*retry: notificationId $first attempt \([0-9]*\): .*; next in \([0-9]*\) ms.*/\1:\2/p" \
        "$(fw_dir outage)/fwd.err" | tr '\n' ' ')
    assert_true "$L outage: the first event was retried across the outage (attempt:delay $delays)" \
        test "$(wc -w <<<"$delays")" -ge 3
    python3 - "$delays" <<'EOF' && _wh_ok "$L outage: every delay in [d/2, d], d = min(1s, 100ms * 2^(n-1))" || _wh_bad "$L outage: backoff schedule" "$delays"
import sys
pairs = [tuple(int(x) for x in p.split(":")) for p in sys.argv[1].split()]
ok = bool(pairs) and all(min(1000, 100 * 2 ** (n - 1)) // 2 <= ms <= min(1000, 100 * 2 ** (n - 1))
                         for n, ms in pairs)
sys.exit(0 if ok else 1)
EOF
    assert_true "$L outage: the first event was forwarded with Wirehook-Attempt > 1" \
        grep -qE "^[0-9]+ $first O0 Review ([2-9]|[1-9][0-9]+) 200 " "$(fw_dir outage)/app/requests.log"
    assert_true "$L outage: status lines every interval" \
        grep -qE '^[0-9T:-]+Z delivered=[0-9]+ rate=[0-9.]+/s retrying=[0-9]+ dead=0 lag=[0-9.]+s inflight=[0-9]+ queued=[0-9]+ unqueued=[0-9]+$' \
        "$(fw_dir outage)/fwd.out"
    assert_true "$L outage: a status line saw the retrying events" \
        grep -qE ' retrying=[1-9]' "$(fw_dir outage)/fwd.out"
}

# ----------------------------------------------- kill -9 under load ---
fws_crash() {
    local L=$1 specs=() i
    fw_app_start crash || return 1
    fw_ctl crash '{"delay_ms": 30}'
    for i in $(seq 0 199); do specs+=("K$((i % 20)):Review"); done
    fw_send crash "${specs[@]}"
    fw_start crash
    if fw_wait_forwarded crash 60 30; then
        { wh_kill_ours -KILL "$(cat "$(fw_dir crash)/fwd.tag")"; fw_stop crash; } 2>/dev/null
        _wh_ok "$L kill -9: the forwarder killed after $(fw_app_ok crash) events forwarded"
    else
        _wh_bad "$L kill -9: forwarding started" "$(fw_app_ok crash)"
        fw_stop crash KILL
    fi
    # a new forwarder takes over once the leases of the old one ran out
    fw_drain crash
    assert_eq 0 "$FW_RC" "$L kill -9: the next forwarder forwards the rest"
    fw_check crash "$L kill -9" max_dup=8
    fw_inbox crash dead list
    assert_eq 1 "$(grep -c . <<<"$FW_OUT")" "$L kill -9: nothing dead"
}

# All of them, the outage around the others.
fws_run() {
    local L=$1
    fws_outage_start
    fws_basic "$L"
    fws_flaky "$L"
    fws_later "$L"
    fws_poison "$L"
    fws_maxed "$L"
    fws_crash "$L"
    fws_bulk "$L"
    fws_outage_finish "$L"
}

# fws_server_suite ENGINE SQL-FUNCTION PASSWORD -- the scenarios on a
# database server (InboxDriver ENGINE), then two forwarders draining one
# inbox: each event forwarded once, never two of a payment at once; and
# the server's PASSWORD in no log or output. SQL-FUNCTION "QUERY DB"
# prints a query's answer (pg_sql, mariadb_sql).
fws_server_suite() {
    local engine=$1 sql=$2 password=$3 c i d pa pb ra rb leak
    local specs=()
    fw_engine "$engine"
    fws_setup
    fw_scenario two "ForwardConcurrency 4"
    # the configurations hold the database password: the httpd user reads them
    for c in "$T"/etc/fw-*.conf; do
        chmod 640 "$c"; [ "$(id -u)" -eq 0 ] && chgrp www-data "$c"
    done
    wh_httpd_conf
    wh_httpd_start || exit 1

    fws_run "$engine"

    for i in $(seq 0 299); do specs+=("T$((i % 30)):Review"); done
    fw_app_start two
    fw_ctl two '{"delay_ms": 5}'
    fw_send two "${specs[@]}"
    d=$(fw_dir two)
    "$WIREHOOK" forward --config "$(fw_conf two)" --drain --interval 0 >"$d/a.out" 2>"$d/a.err" &
    pa=$!
    "$WIREHOOK" forward --config "$(fw_conf two)" --drain --interval 0 >"$d/b.out" 2>"$d/b.err" &
    pb=$!
    wh_bg_add $pa $pb
    wait "$pa"; ra=$?
    wait "$pb"; rb=$?
    assert_eq "0 0" "$ra $rb" "two forwarders: both empty the queue and exit 0"
    # one may finish while the other still has events in flight: the rest
    fw_drain two
    fw_check two "two forwarders" max_dup=0
    echo "   two forwarders: $(sed -n 's/^drained: //p' "$d/a.out") | $(sed -n 's/^drained: //p' "$d/b.out")"
    assert_eq 300 "$("$sql" "SELECT count(*) FROM wh_delivery WHERE state = 3" fw_two)" \
        "two forwarders: every event recorded forwarded"

    leak=$(grep -rlF "$password" "$T/logs" "$T"/fw-*/ 2>/dev/null | grep -v '\.conf$' | head -n 3)
    assert_eq "" "$leak" "the database password is in no log or output"
}
