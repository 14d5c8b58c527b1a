#!/usr/bin/env bash
# The stores on an operator's bad day, under a bank that never stops
# sending (app/fault_sender.py: one new notification after another, each
# until it is answered 200, a 503 retried after its Retry-After, signed
# anew). One httpd in front of the recording application, a location per
# store, each store broken at once:
#
#   redis stalled       SIGSTOP for longer than two replies' timeouts,
#                       then SIGCONT: claims sent meanwhile run when it
#                       resumes, for deliveries that never happen (one of
#                       them the suite's own, sent once: released by the
#                       child that sent it, then a copy delivered)
#   redis emptied       kill -9 and started again without its data
#   memcached stalled   SIGSTOP, SIGCONT
#   PostgreSQL          stalled (SIGSTOP of the server and every backend),
#                       restarted (fast shutdown), crashed (immediate
#                       shutdown: crash recovery at the start), one after
#                       the other; under it the replay store (ReplayCache
#                       pgsql), and from the restart on the inbox
#                       (SetHandler wirehook), a forwarder (wirehook
#                       forward) with events in flight through the restart
#                       and another through the crash (the inbox and the
#                       forwarder through a stall: test_inbox_faults.sh)
#
# For each sender: every answer is 200, or 503 with Retry-After; each
# notificationId reaches the application exactly once (the inbox: stored
# once); and what was held back is answered 200 within WH_FAULT_BOUND s of
# its store's return (waited for, not timed), well inside a claim's lease
# (120 s), which is how long a claim nobody held blocked its id before.
# The emptied redis: WH00957, notifications answered 503 until it can
# judge, and a copy of a notification accepted before the kill (signed
# then, as a replay is) is never delivered again. The forwarders: through
# the restart and through the crash every event forwarded exactly once
# (its leases and outcomes are durable, docs/forwarding.md).
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/pg.sh"
. "$(dirname "$0")/forward_lib.sh"

BOUND=${WH_FAULT_BOUND:-60}      # s after a store's return (lease: 120 s)
# a stall longer than the bank waits for an answer (WAIT), which is more
# than twice the longest a request should take then (two store timeouts)
WAIT=12
STALL=${WH_FAULT_STALL:-$(wh_size 14)}
NFWD=${WH_FAULT_EVENTS:-$(wh_size 100)}
# each sender's pause between notifications (s): the faults break the
# stores under whatever is in flight, however fast the bank sends, so
# make check sends at a pace its CPU can spare; make soak faster
PAUSE=${WH_FAULT_PAUSE:-$(awk -v s="$WH_SCALE" 'BEGIN { printf "%.3f", 0.2 / s }')}
CHECK="$WH_APP_SRC/fault_check.py"

now() { printf '%s\n' "${EPOCHREALTIME/,/.}"; }

# ------------------------------------------------------------ stores ---
R1=$(wh_free_port); R2=$(wh_free_port); MC=$(wh_free_port)
while [ "$R2" = "$R1" ]; do R2=$(wh_free_port); done
while [ "$MC" = "$R1" ] || [ "$MC" = "$R2" ]; do MC=$(wh_free_port); done
redis_start() { # PORT LOG -> pid in REDIS_PID
    redis-server --bind 127.0.0.1 --port "$1" --save "" --appendonly no \
        --maxmemory-policy noeviction >>"$2" 2>&1 &
    REDIS_PID=$!
    wh_bg_add $!
}
redis_start "$R1" "$T/logs/redis-stall.log"; R1_PID=$REDIS_PID
redis_start "$R2" "$T/logs/redis-empty.log"; R2_PID=$REDIS_PID
mc=(memcached -l 127.0.0.1 -p "$MC" -U 0 -m 16)
[ "$(id -u)" -eq 0 ] && mc+=(-u nobody)
"${mc[@]}" >"$T/logs/memcached.log" 2>&1 &
MC_PID=$!
wh_bg_add $!
wh_wait_port "$R1" && wh_wait_port "$R2" && wh_wait_port "$MC" ||
    { _wh_bad "redis and memcached start"; wh_done; }
pg_start || { _wh_bad "PostgreSQL starts" "see above"; wh_done; }
for db in faults_replay faults_inbox; do
    pg_sql "CREATE DATABASE $db OWNER wirehook" postgres >/dev/null
done
PG_REPLAY="${PG_CONNINFO/dbname=wirehook/dbname=faults_replay}"
PG_INBOX="${PG_CONNINFO/dbname=wirehook/dbname=faults_inbox}"

# Stopped processes are let go on every way out (a SIGTERM waits for a
# stopped process's SIGCONT, and a stopped PostgreSQL would outlive us).
STOPPED="$T/stopped"; : >"$STOPPED"
fs_stop() { local p; for p in "$@"; do echo "$p" >>"$STOPPED"; kill -STOP "$p"; done; }
fs_cont() { local p; while read -r p; do kill -CONT "$p" 2>/dev/null; done <"$STOPPED"; : >"$STOPPED"; }
# the PostgreSQL server and its processes
pg_pids() {
    local pm; pm=$(head -n 1 "$PG_DIR/data/postmaster.pid" 2>/dev/null) || return 0
    [ -n "$pm" ] || return 0
    echo "$pm"
    ps -o pid= --ppid "$pm" 2>/dev/null
}
trap 'rc=$?; fs_cont; (exit $rc); _pg_on_exit' EXIT

# ------------------------------------------------- configurations ---
STORES="redis_stall redis_empty memcache pgsql"
wh_write_config "$T/etc/redis_stall.conf" "ReplayCache redis:127.0.0.1:$R1"
# a short tolerance: an emptied store judges again that long after it began
wh_write_config "$T/etc/redis_empty.conf" "ReplayCache redis:127.0.0.1:$R2" \
    "TimestampTolerance 10s"
wh_write_config "$T/etc/memcache.conf" "ReplayCache memcache:127.0.0.1:$MC"
wh_write_config "$T/etc/pgsql.conf" "InboxDriver pgsql" "InboxParams $PG_REPLAY" "ReplayCache pgsql"
wh_write_config "$T/etc/inbox.conf" "InboxDriver pgsql" "InboxParams $PG_INBOX"
for s in redis_stall redis_empty memcache; do
    out=$("$WIREHOOK" replay init --config "$T/etc/$s.conf" 2>&1)
    assert_contains "$out" "marked new" "$s: a new store, marked new"
done
extra=""
for s in $STORES; do
    extra="$extra
ScriptAlias /f/$s \"$T/cgi-bin/record.cgi\"
<Location /f/$s>
    WirehookConfig $T/etc/$s.conf
</Location>"
done
wh_httpd_extra "$extra
<Location /f/inbox>
    SetHandler wirehook
    WirehookConfig $T/etc/inbox.conf
</Location>"
# the forwarders' inboxes: leases (ForwardTimeout and as much again) that
# outlive a restart (an event whose outcome cannot be written for longer
# than its lease is forwarded again: docs/forwarding.md)
fw_engine pgsql
for f in restart crash; do
    fw_scenario "$f" "ForwardTimeout 10s" "ForwardConcurrency 4"
done
for c in "$T"/etc/*.conf; do
    chmod 640 "$c"; [ "$(id -u)" -eq 0 ] && chgrp www-data "$c"
done
wh_httpd_conf
wh_httpd_start || exit 1
errlog() { cat "$T/logs/error.log" 2>/dev/null; }

# events in the forwarders' inboxes, forwarded slowly across a fault
fw_slow_inboxes "$NFWD" restart crash

# --------------------------------------------------------- senders ---
SENDERS="$STORES inbox"
spids=()
# fs_send NAME: its sender, until $T/s-NAME/stop; under way (5 answered)
fs_send() {
    mkdir -p "$T/s-$1"
    python3 "$WH_APP_SRC/fault_sender.py" --url "$WH_URL/f/$1" \
        --secret-file "$WH_SECRETS" --user "$WH_USER:$WH_PASSWD" --sample "$WH_SAMPLE" \
        --dir "$T/s-$1" --concurrency 3 --pause "$PAUSE" --timeout "$WAIT" >"$T/s-$1/log" 2>&1 &
    spids+=($!)
    wh_bg_add $!
    for _ in $(seq 1 300); do
        [ "$(cat "$T/s-$1/done" 2>/dev/null | wc -l)" -ge 5 ] && break
        sleep 0.1
    done
}
for s in $STORES; do fs_send "$s"; done

# a copy of each of three notifications accepted before the kill, as a
# replay would send it: the same bytes, signed then
for i in 1 2 3; do
    b=$(wh_body Complete); printf -v ts '%(%s)T' -1
    WH_TS=$ts wh_post "$WH_URL/f/redis_empty" "$b"
    assert_status 200 "emptied redis: notification $i accepted before the kill"
    echo "$b $ts" >>"$T/replays"
done

# ---------------------------------------------------------- faults ---
t_stall=$(now)
fs_stop "$R1_PID" "$MC_PID"
# shellcheck disable=SC2046
fs_stop $(pg_pids)
{ kill -9 "$R2_PID"; wait "$R2_PID"; } 2>/dev/null
sleep 3
redis_start "$R2" "$T/logs/redis-empty.log"
wh_wait_port "$R2" || _wh_bad "the emptied redis starts again"
t_empty_back=$(now)
# the replays, at once: the store cannot judge them
while read -r b ts; do
    WH_TS=$ts wh_post "$WH_URL/f/redis_empty" "$b"
    echo "$WH_STATUS $(wh_json_code "$WH_BODY") $(wh_header Retry-After)" >>"$T/replay-answers"
done <"$T/replays"
# a notification of the suite's own, sent to the stalled redis until its
# claim went out unanswered (not refused at once while a child waits out
# its back-off): redis makes that claim when it runs again, for a delivery
# that never happens, and nothing else sends that id meanwhile
lost_b=$(wh_body Complete); lost_id=$(wh_body_id "$lost_b"); lost_sent=0
for _ in $(seq 1 20); do
    wh_post "$WH_URL/f/redis_stall" "$lost_b"
    grep -q "notificationId=$lost_id: .*(the claim was sent without an answer" \
        "$T/logs/error.log" && { lost_sent=1; break; }
    sleep 0.5
done
assert_eq 1 "$lost_sent" "redis stalled: a claim of the suite's own went out and its answer never came"
left=$(awk -v a="$t_stall" -v b="$(now)" -v s="$STALL" 'BEGIN { d = s - (b - a); print (d > 0 ? d : 0) }')
sleep "$left"
fs_cont
t_stall_back=$(now)
fs_send inbox
fw_start restart --interval 0
sleep 3
# PostgreSQL restarted (fast shutdown, sessions ended), then crashed
pg_stop
pg_resume || _wh_bad "PostgreSQL starts again after its restart"
t_restart_back=$(now)
fw_wait_each_forwarded restart "$NFWD" "$BOUND" || _wh_bad "restart: the forwarder forwards every event"
fw_stop restart
assert_eq 0 "$FW_RC" "restart: the forwarder stops cleanly"
fw_start crash --interval 0
sleep 2
_pg_ctl -m immediate stop >/dev/null 2>&1
pg_resume || _wh_bad "PostgreSQL starts again after its crash"
t_crash_back=$(now)

# --------------------------------------------- held back, then back ---
# held SENDER BACK LABEL: what was sent before BACK is answered 200
# within BOUND s of it
held() {
    local s=$1 back=$2 label=$3 n=1 late
    while :; do
        n=$(python3 "$CHECK" held "$T/s-$s" "$back")
        [ "$n" = 0 ] && break
        awk -v a="$back" -v b="$(now)" -v m="$BOUND" 'BEGIN { exit !(b - a > m) }' && break
        sleep 0.5
    done
    late=$(python3 "$CHECK" late "$T/s-$s" "$back")
    echo "   $s: $label: the last held back answered 200 ${late} s after"
    assert_eq 0 "$n" "$s: $label: what was held back is delivered within $BOUND s of its return"
}
held redis_stall "$t_stall_back" "redis stalled $STALL s"
held memcache "$t_stall_back" "memcached stalled $STALL s"
held redis_empty "$t_empty_back" "redis emptied"
held pgsql "$t_stall_back" "PostgreSQL stalled $STALL s"
for s in pgsql inbox; do
    held "$s" "$t_restart_back" "PostgreSQL restarted"
    held "$s" "$t_crash_back" "PostgreSQL crashed"
done

for s in $SENDERS; do touch "$T/s-$s/stop"; done
i=0
for s in $SENDERS; do
    wait "${spids[$i]}"; rc=$?; i=$((i + 1))
    assert_eq 0 "$rc" "$s: every notification sent ended with a 200"
done

# ---------------------------------------------------------- checks ---
for s in $STORES; do
    r=$(python3 "$CHECK" check "$T/s-$s" "$T/app/calls")
    echo "   $s: $(head -n 1 <<<"$r")"
    assert_contains "$r" " bad=0 no_answer=0 never=0 " \
        "$s: every answer 200, or 503 with Retry-After; every notification delivered" "$r"
    assert_contains "$r" " twice=0 " "$s: no notification delivered twice"
    case "$r" in *" waited_503=0"*) _wh_bad "$s: the fault held notifications back (503)" "$r" ;;
                 *) _wh_ok "$s: the fault held notifications back (503)" ;; esac
done
r=$(python3 "$CHECK" check "$T/s-inbox")
echo "   inbox: $(head -n 1 <<<"$r")"
assert_contains "$r" " bad=0 no_answer=0 " "inbox: every answer 200, or 503 with Retry-After" "$r"
ndone=$(wc -l <"$T/s-inbox/done")
assert_eq "$ndone" "$(pg_sql "SELECT count(*) FROM wh_events" faults_inbox)" \
    "inbox: every notification answered 200 is stored, once"

# the stall's claims, made when redis resumed for deliveries that never
# happened, were taken back rather than left for their lease: the suite's
# own is, by the child that sent it, once redis answers (its renewal
# thread's; waited for, with a bound, on a loaded machine); then a copy of
# it is delivered, once
released="WH01002: replay store redis: released the claim on notificationId=$lost_id,"
for _ in $(seq 1 $((BOUND * 10))); do
    [[ $(errlog) == *"$released"* ]] && break
    sleep 0.1
done
assert_contains "$(errlog)" "$released" \
    "redis stalled: the suite's own claim, made when redis ran again, was released"
assert_contains "$(errlog)" "WH01002: replay store redis: released the claim" \
    "redis stalled: a claim nobody held was released when redis answered again"
wh_post "$WH_URL/f/redis_stall" "$lost_b"
assert_status 200 "redis stalled: a copy of the released notification is delivered"
assert_eq 1 "$(grep -l "\"$lost_id\"" "$T"/app/calls/*/body 2>/dev/null | wc -l)" "... once"
assert_contains "$(errlog)" "WH00957: ReplayCache redis:127.0.0.1:$R2 has no epoch marker" \
    "redis emptied: the lost marker is noticed"
n=0
while read -r st code ra; do
    n=$((n + 1))
    assert_eq "503 replay_cache_unavailable" "$st $code" \
        "redis emptied: a copy of notification $n accepted before, sent again as signed then: 503"
    assert_true "... with Retry-After (got [$ra])" test -n "$ra"
done <"$T/replay-answers"
while read -r b ts; do
    id=$(wh_body_id "$b")
    assert_eq 1 "$(grep -l "\"$id\"" "$T"/app/calls/*/body 2>/dev/null | wc -l)" \
        "redis emptied: notification $id delivered once, never again"
done <"$T/replays"

# the forwarders: through the restart and the crash, exactly once
fw_check restart "forwarder through PostgreSQL's restart" max_dup=0
# (found on its next statement, or on the ping before one)
assert_true "restart: the forwarder lost its connection, and went on" \
    grep -Eq "pgsql connection lost|inbox database failed" "$(fw_dir restart)/fwd.err"
fw_wait_each_forwarded crash "$NFWD" "$BOUND" || _wh_bad "crash: the forwarder forwards every event"
fw_stop crash
assert_eq 0 "$FW_RC" "crash: the forwarder stops cleanly"
fw_check crash "forwarder through PostgreSQL's crash" max_dup=0

wh_done
