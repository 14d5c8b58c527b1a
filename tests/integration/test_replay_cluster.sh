#!/usr/bin/env bash
# Delivered once across servers: two httpd (A and B, each its own port on
# 127.0.0.1; A with the worker MPM, B prefork) in front of the recording
# application, sharing one replay
# store -- a redis, a memcached (both started here) and a PostgreSQL
# (pg.sh), each in turn -- with the store's claim atomic in the store
# itself.
#
#  1. Each of WH_CLUSTER_IDS notifications is sent to both servers at the
#     same moment, for each shared store: every sender ends with a 200
#     (after Retry-After when it got 503), and the application receives
#     every id exactly once.
#  2. The same while server A is killed whole (kill -9 of its process
#     group: parent, children, CGI) mid-burst; its senders move to B, and
#     A is started again: every id is delivered, nothing acknowledged is
#     missing, and an id is delivered a second time only when its first
#     delivery ran on A when A was killed (that delivery never finished:
#     its claim lapses after its lease, and the bank's retry is delivered,
#     as docs/reliability.md promises).
#  3. An application that takes 3 leases, longer than a claim's lease: the
#     bank's copy at a lease and a half is answered 503
#     delivery_in_progress, on the same server with lmdb (the claim holds
#     while its process lives) and on the other server with redis (the
#     delivery's child renews its claim), and the notification is
#     delivered exactly once.
#
# Every configuration here has the shortest lease, ReplayLease 10s (the
# default is 2m), so that a lapse is waited for in seconds. The slow
# deliveries run on B beside phase 1; their copies are answered before
# phase 2 kills A.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/pg.sh"
N=${WH_CLUSTER_IDS:-$(wh_size 150)}
NK=${WH_CLUSTER_KILL_IDS:-$(wh_size 100)}
LEASE=10                        # ReplayLease: its minimum
SLOW=$((3 * LEASE))             # the slow application's delivery
COPY_AT=$((3 * LEASE / 2))      # the bank's copy of it, past the lease

# ------------------------------------------------------------ stores ---
RPORT=$(wh_free_port); MPORT=$(wh_free_port)
while [ "$MPORT" = "$RPORT" ]; do MPORT=$(wh_free_port); done
redis-server --bind 127.0.0.1 --port "$RPORT" --save "" --appendonly no \
    --maxmemory-policy noeviction >"$T/logs/redis.log" 2>&1 &
wh_bg_add $!
mc=(memcached -l 127.0.0.1 -p "$MPORT" -U 0 -m 32 -M)
[ "$(id -u)" -eq 0 ] && mc+=(-u nobody)
"${mc[@]}" >"$T/logs/memcached.log" 2>&1 &
wh_bg_add $!
wh_wait_port "$RPORT" && wh_wait_port "$MPORT" || { _wh_bad "redis and memcached start"; wh_done; }
pg_start || { _wh_bad "PostgreSQL starts" "see above"; wh_done; }

STORES="redis memcache pgsql"
wh_write_config "$T/etc/redis.conf" "ReplayCache redis:127.0.0.1:$RPORT" "ReplayLease ${LEASE}s"
wh_write_config "$T/etc/memcache.conf" "ReplayCache memcache:127.0.0.1:$MPORT" "ReplayLease ${LEASE}s"
wh_write_config "$T/etc/pgsql.conf" "InboxDriver pgsql" "InboxParams $PG_CONNINFO" "ReplayCache pgsql" \
    "ReplayLease ${LEASE}s"
# lmdb's (the standard configuration's) too: its claims outlive any lease
wh_write_config "$WH_CONF" "InboxParams $WH_INBOX_DB" "ReplayLease ${LEASE}s"
# a new store, made usable by one command (pgsql: a table wirehook
# creates is new)
for s in redis memcache; do
    out=$("$WIREHOOK" replay init --config "$T/etc/$s.conf" 2>&1)
    assert_contains "$out" "marked new" "$s: wirehook replay init marks the new store new"
done

# ----------------------------------------------------------- servers ---
extra=""
for s in $STORES; do
    extra="$extra
ScriptAlias /c/$s \"$T/cgi-bin/record.cgi\"
<Location /c/$s>
    WirehookConfig $T/etc/$s.conf
</Location>"
done
wh_httpd_extra "$extra
ScriptAlias /slow/lmdb \"$T/cgi-bin/record.cgi\"
ScriptAlias /slow/redis \"$T/cgi-bin/record.cgi\"
<Location /slow/lmdb>
    SetEnv WH_APP_SLEEP $SLOW
    WirehookConfig $WH_CONF
</Location>
<Location /slow/redis>
    SetEnv WH_APP_SLEEP $SLOW
    WirehookConfig $T/etc/redis.conf
</Location>
<IfModule cgid_module>
    CGIDScriptTimeout 400
</IfModule>
<IfModule cgi_module>
    CGIScriptTimeout 400
</IfModule>"
# A runs the worker MPM, B prefork (one thread a child, the claims'
# renewal thread beside it); the other suites run the event MPM
WH_MPM=prefork wh_httpd_conf "$T/httpd-b.conf"
WH_MPM=worker wh_httpd_conf
BDIR="$T/b"
mkdir -p "$BDIR/run" "$BDIR/logs"
chmod 1777 "$BDIR/run"; chmod 755 "$BDIR" "$BDIR/logs"
BPORT=$(wh_free_port)
while [ "$BPORT" = "$WH_PORT" ]; do BPORT=$(wh_free_port); done
sed -e "s|^Listen 127.0.0.1:$WH_PORT\$|Listen 127.0.0.1:$BPORT|" \
    -e "s|^PidFile $T/run/|PidFile $BDIR/run/|" \
    -e "s|^DefaultRuntimeDir $T/run\$|DefaultRuntimeDir $BDIR/run|" \
    -e "s|^Mutex file:$T/run |Mutex file:$BDIR/run |" \
    -e "s|^ErrorLog $T/logs/|ErrorLog $BDIR/logs/|" \
    -e "s|^CustomLog $T/logs/|CustomLog $BDIR/logs/|" \
    "$T/httpd-b.conf" >"$BDIR/httpd.conf"
b_start() { "$WH_HTTPD" -f "$BDIR/httpd.conf" -k start >"$BDIR/start.out" 2>&1 && wh_wait_port "$BPORT"; }
b_stop() { "$WH_HTTPD" -f "$BDIR/httpd.conf" -k stop >/dev/null 2>&1; }
trap 'rc=$?; b_stop; (exit $rc); _pg_on_exit' EXIT
wh_httpd_start || { _wh_bad "server A starts"; wh_done; }
b_start || { _wh_bad "server B starts" "$(cat "$BDIR/start.out"; tail -n 20 "$BDIR/logs/error.log")"; wh_done; }
A="$WH_URL" B="http://127.0.0.1:$BPORT"
logs() { cat "$T/logs/error.log" "$BDIR/logs/error.log" 2>/dev/null; }
for s in redis memcache pgsql; do
    assert_contains "$(logs)" "WH00962: ReplayCache $s:" "startup states what the $s store guarantees"
done
assert_contains "$(logs)" "shared by every server naming it" "... a store the servers share"
assert_not_contains "$(logs)" "WH00957" "no store was taken for an emptied one (init, a new table)"

# ----------------------------------------- 3. the slow application ---
# started first: it runs for $SLOW s while phase 1 goes on
# slow_post URL BODY OUT: one signed POST in the background; "STATUS BODY"
# into OUT when it is answered
slow_post() {
    local url=$1 body=$2 out=$3 ts sig
    printf -v ts '%(%s)T' -1
    sig=$(wh_sign "$WH_SECRETS" POST "$url" "$body" "$ts")
    ( curl -sS -o "$out.body" -w '%{http_code}' --max-time 400 -X POST \
          --data-binary "@$body" -H "Expect:" -H "Content-Type: application/json" \
          -u "$WH_USER:$WH_PASSWD" -H "X-Timestamp: $ts" -H "X-Signature: $sig" \
          "$url" >"$out.status" 2>/dev/null
      printf '%s %s\n' "$(cat "$out.status")" "$(cat "$out.body")" >"$out" ) &
}
SL=$(wh_body Complete); SL_ID=$(wh_body_id "$SL")
SR=$(wh_body Complete); SR_ID=$(wh_body_id "$SR")
printf -v slow_started '%(%s)T' -1
slow_post "$B/slow/lmdb" "$SL" "$T/slow-lmdb"
slow_post "$B/slow/redis" "$SR" "$T/slow-redis"
# the bank's copies at $COPY_AT s, while phase 1 goes on: lmdb's to the
# same server, redis's to the other (A; phase 2, which kills it, waits for
# these answers)
(
    while printf -v now '%(%s)T' -1; [ $((now - slow_started)) -lt "$COPY_AT" ]; do sleep 0.2; done
    { [ -s "$T/slow-lmdb" ] || [ -s "$T/slow-redis" ]; } && echo finished >"$T/slow-early"
    slow_post "$B/slow/lmdb" "$SL" "$T/copy-lmdb"
    slow_post "$A/slow/redis" "$SR" "$T/copy-redis"
    wait
) &
COPIES=$!

# app_count ID -> deliveries the application recorded for ID
app_ids() { grep -h '"notificationId"' "$T"/app/calls/*/body 2>/dev/null | sed 's/.*: "\([^"]*\)".*/\1/'; }

# ----------------------------- 1. both servers at once, each store ---
# check_burst LABEL OUT: every sender 200, every id delivered once
check_burst() {
    python3 - "$1" "$2" "$T/app/calls" "$WH_PORT" "$BPORT" "$WH_APP_SRC" <<'PY'
import json, sys
label, out, calls, aport, bport = sys.argv[1:6]
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[6])
from app_calls import deliveries
recs = [json.loads(l) for l in open(out)]
seen = deliveries(calls)
bad_final = sum(1 for r in recs for s in r["senders"] if s["final"] != 200)
waited = sum(1 for r in recs for s in r["senders"] if any(a[1] == 503 for a in s["attempts"]))
counts = [len(seen.get(r["id"], [])) for r in recs]
print("ids=%d senders_not_200=%d never=%d once=%d twice_or_more=%d waited_503=%d" % (
    len(recs), bad_final, counts.count(0), counts.count(1),
    sum(1 for c in counts if c > 1), waited))
PY
}
pids=()
for s in $STORES; do
    python3 "$WH_APP_SRC/pair_sender.py" --urls "$A/c/$s,$B/c/$s" \
        --secret-file "$WH_SECRETS" --user "$WH_USER:$WH_PASSWD" --sample "$WH_SAMPLE" \
        --count "$N" --concurrency 6 --out "$T/burst-$s" --deadline 300 \
        >"$T/burst-$s.log" 2>&1 &
    pids+=($!)
done
i=0
for s in $STORES; do
    wait "${pids[$i]}"; rc=$?; i=$((i + 1))
    r=$(check_burst "$s" "$T/burst-$s")
    echo "   $s, both servers at once: $r"
    assert_eq 0 "$rc" "$s: every sender of $N notifications, each sent to A and B at once, ended with 200"
    assert_contains "$r" "ids=$N senders_not_200=0 never=0 once=$N twice_or_more=0" \
        "$s: the application received each of the $N ids exactly once"
done
assert_not_contains "$(logs)" "WH00940" "no claim failed in the store"

# ----------------------------- 2. server A killed whole, mid-burst ---
wait "$COPIES"                      # the slow deliveries' copies are answered
pids=()
for s in $STORES; do
    python3 "$WH_APP_SRC/pair_sender.py" --urls "$A/c/$s,$B/c/$s" \
        --secret-file "$WH_SECRETS" --user "$WH_USER:$WH_PASSWD" --sample "$WH_SAMPLE" \
        --count "$NK" --concurrency 6 --out "$T/kill-$s" --deadline 360 \
        >"$T/kill-$s.log" 2>&1 &
    pids+=($!)
done
# once the fastest store's sender is a third of the way through: every
# sender still has ids to send, so each has senders that must move to B
# (waiting on one store let a faster one finish before the kill)
for _ in $(seq 1 600); do
    most=0
    for s in $STORES; do
        p=$(cat "$T/kill-$s.progress" 2>/dev/null || echo 0)
        [ "${p:-0}" -gt "$most" ] && most=${p:-0}
    done
    [ "$most" -ge $((2 * NK / 3)) ] && break
    sleep 0.1
done
apid=$(cat "$T/run/httpd.pid")
kill -9 -- "-$apid" 2>/dev/null || kill -9 "$apid"
for _ in $(seq 1 50); do kill -0 "$apid" 2>/dev/null || break; sleep 0.1; done
rm -f "$T/run/httpd.pid"; WH_HTTPD_PID=""
assert_false "server A is gone (kill -9 of its process group)" kill -0 "$apid" 2>/dev/null
sleep 3
wh_httpd_start || _wh_bad "server A starts again after the kill"
i=0
for s in $STORES; do
    wait "${pids[$i]}"; rc=$?; i=$((i + 1))
    r=$(python3 - "$T/kill-$s" "$T/app/calls" "$WH_PORT" "$WH_APP_SRC" <<'PY'
import json, sys
out, calls, aport = sys.argv[1:4]
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[4])
from app_calls import deliveries
recs = [json.loads(l) for l in open(out)]
seen = deliveries(calls)
missing = unexplained = again = 0
odd = []
for r in recs:
    got = seen.get(r["id"], [])
    if not got:
        missing += 1
        continue
    if len(got) == 1:
        continue
    # a second delivery is only the retry of one that ran on A when A was
    # killed: delivered twice, once on A, and A never answered it 200
    a_ok = any(a[0] == "A" and a[1] == 200 for s in r["senders"] for a in s["attempts"])
    # (a recording without its environment: a CGI killed as it wrote it,
    # which only A's were)
    if len(got) == 2 and got.count(aport) + got.count("?") >= 1 and not a_ok:
        again += 1
    else:
        unexplained += 1
        odd.append("%s delivered by %s, senders %s" % (r["id"], got, r["senders"]))
bad_final = sum(1 for r in recs for s in r["senders"] if s["final"] != 200)
moved = sum(1 for r in recs for s in r["senders"] if s["start"] == "A" and any(a[0] == "B" for a in s["attempts"]))
print("ids=%d senders_not_200=%d missing=%d unexplained=%d redelivered_after_kill=%d moved=%d" % (
    len(recs), bad_final, missing, unexplained, again, moved))
for o in odd:
    print("     unexplained: " + o)
PY
)
    echo "   $s, A killed mid-burst: $r"
    assert_eq 0 "$rc" "$s: with A killed mid-burst, every sender ended with 200 (A's moved to B)"
    assert_contains "$r" "senders_not_200=0 missing=0 unexplained=0" \
        "$s: nothing acknowledged is missing, and nothing is delivered twice but deliveries killed with A"
    case "$r" in *" moved=0") _wh_bad "$s: A's senders moved to B" "$r" ;; *) _wh_ok "$s: A's senders moved to B" ;; esac
done

# ------------------------------------------ 3. the slow application ---
assert_file_absent "$T/slow-early" "both $SLOW s deliveries still ran when the copies were sent at $COPY_AT s"
assert_contains "$(cat "$T/copy-lmdb" 2>/dev/null)" '503 {"error":{"code":"delivery_in_progress"' \
    "lmdb: the bank's copy at $COPY_AT s (past the $LEASE s lease), same server: 503 delivery_in_progress"
assert_contains "$(cat "$T/copy-redis" 2>/dev/null)" '503 {"error":{"code":"delivery_in_progress"' \
    "redis: the bank's copy at $COPY_AT s on the other server: 503 delivery_in_progress (the delivery renews its claim)"
for _ in $(seq 1 600); do [ -s "$T/slow-lmdb" ] && [ -s "$T/slow-redis" ] && break; sleep 0.5; done
assert_contains "$(cat "$T/slow-lmdb" 2>/dev/null)" '200 {"app":"received"' "lmdb: the $SLOW s delivery ends with the application's 200"
assert_contains "$(cat "$T/slow-redis" 2>/dev/null)" '200 {"app":"received"' "redis: the $SLOW s delivery ends with the application's 200"
wh_post "$B/slow/lmdb" "$SL"
assert_json_code duplicate "lmdb: a copy after it is a duplicate"
wh_post "$A/slow/redis" "$SR"
assert_json_code duplicate "redis: a copy after it, on the other server, is a duplicate"
assert_eq 1 "$(app_ids | grep -c "$SL_ID")" "lmdb: the slow notification was delivered exactly once"
assert_eq 1 "$(app_ids | grep -c "$SR_ID")" "redis: the slow notification was delivered exactly once"
assert_not_contains "$(logs)" "WH00987" "no running delivery's claim lapsed or failed to renew"

wh_done
