#!/usr/bin/env bash
# PostgreSQL on an operator's bad day, under the inbox (SetHandler
# wirehook, InboxDriver pgsql) and the forwarder (wirehook forward):
#
#   stalled     SIGSTOP of the server and every backend for longer than
#               the bank waits for an answer, then SIGCONT, while a bank
#               sends to the inbox without a pause (app/fault_sender.py)
#               and a forwarder has events in flight
#   restarted   fast shutdown and a start, a forwarder's events in flight
#   crashed     SIGKILL of the server and every backend at once, then a
#               start (crash recovery), a forwarder's events in flight and
#               nothing else writing, the WAL writer made lazy, so that a
#               commit not waited for (synchronous_commit off) is still
#               unwritten when the server dies
#
# The inbox: every answer 200, or 503 with Retry-After, each within the
# bank's wait (a request waiting on the stopped server would be no
# answer); every notification answered 200 stored once; and what was held
# back answered 200 within BOUND s of the server's return (waited for,
# not timed). The forwarders: every stored event forwarded, none twice
# (counted at the application), through each fault. test_replay_faults.sh
# tries the replay stores, and the inbox through a restart and a crash.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/pg.sh"
. "$(dirname "$0")/forward_lib.sh"

BOUND=${WH_FAULT_BOUND:-30}      # s after the server's return
# the bank's wait for an answer: a stalled statement is given up after
# 7 s (the statement timeout and a margin), a new connection to a
# stalled server after its connect_timeout (pg.sh: 5 s)
WAIT=12
STALL=${WH_INBOX_FAULT_STALL:-14}    # longer than WAIT
NFWD=${WH_INBOX_FAULT_EVENTS:-$(wh_size 60)}
CHECK="$WH_APP_SRC/fault_check.py"

now() { printf '%s\n' "${EPOCHREALTIME/,/.}"; }

pg_start || { _wh_bad "PostgreSQL starts" "see above"; wh_done; }
pg_sql "CREATE DATABASE faults_inbox OWNER wirehook" postgres >/dev/null
PG_INBOX="${PG_CONNINFO/dbname=wirehook/dbname=faults_inbox}"
# a lazy WAL writer (its longest delay): a commit not waited for stays in
# the server's memory, where a crash loses it, until another commit or
# this delay writes it
pg_sql "ALTER SYSTEM SET wal_writer_delay = '10s'" postgres >/dev/null
pg_sql "SELECT pg_reload_conf()" postgres >/dev/null

# Stopped processes are let go on every way out (a stopped PostgreSQL
# would outlive us).
STOPPED="$T/stopped"; : >"$STOPPED"
fs_stop() { local p; for p in "$@"; do echo "$p" >>"$STOPPED"; kill -STOP "$p"; done; }
fs_cont() { local p; while read -r p; do kill -CONT "$p" 2>/dev/null; done <"$STOPPED"; : >"$STOPPED"; }
pg_pids() {
    local pm; pm=$(head -n 1 "$PG_DIR/data/postmaster.pid" 2>/dev/null) || return 0
    [ -n "$pm" ] || return 0
    echo "$pm"
    ps -o pid= --ppid "$pm" 2>/dev/null
}
trap 'rc=$?; fs_cont; (exit $rc); _pg_on_exit' EXIT

# ------------------------------------------------- configurations ---
wh_write_config "$T/etc/inbox.conf" "InboxDriver pgsql" "InboxParams $PG_INBOX"
wh_httpd_extra "<Location /f/inbox>
    SetHandler wirehook
    WirehookConfig $T/etc/inbox.conf
</Location>"
# leases that outlive each fault; a request in flight while the
# forwarder waits for the database (at most 7 s) is answered within its
# ForwardTimeout
fw_engine pgsql
for f in stall restart crash; do
    fw_scenario "$f" "ForwardTimeout 10s" "ForwardConcurrency 4"
done
for c in "$T"/etc/*.conf; do
    chmod 640 "$c"; [ "$(id -u)" -eq 0 ] && chgrp www-data "$c"
done
wh_httpd_conf
wh_httpd_start || exit 1

fw_slow_inboxes "$NFWD" stall restart crash
# fw_under_way NAME: a forwarder started, some of its events forwarded
fw_under_way() {
    fw_start "$1" --interval 0
    fw_wait_forwarded "$1" 5 30 || _wh_bad "$1: the forwarder begins"
}

# ---------------------------------------------------------- stalled ---
mkdir -p "$T/s-inbox"
python3 "$WH_APP_SRC/fault_sender.py" --url "$WH_URL/f/inbox" \
    --secret-file "$WH_SECRETS" --user "$WH_USER:$WH_PASSWD" --sample "$WH_SAMPLE" \
    --dir "$T/s-inbox" --concurrency 3 --timeout "$WAIT" >"$T/s-inbox/log" 2>&1 &
spid=$!
wh_bg_add $spid
for _ in $(seq 1 300); do
    [ "$(cat "$T/s-inbox/done" 2>/dev/null | wc -l)" -ge 5 ] && break
    sleep 0.1
done
fw_under_way stall
# shellcheck disable=SC2046
fs_stop $(pg_pids)
sleep "$STALL"
fs_cont
t_back=$(now)

n=1
while :; do
    n=$(python3 "$CHECK" held "$T/s-inbox" "$t_back")
    [ "$n" = 0 ] && break
    awk -v a="$t_back" -v b="$(now)" -v m="$BOUND" 'BEGIN { exit !(b - a > m) }' && break
    sleep 0.5
done
echo "   inbox: PostgreSQL stalled $STALL s: the last held back answered 200 $(python3 "$CHECK" late "$T/s-inbox" "$t_back") s after"
assert_eq 0 "$n" "inbox: what was held back by the stall is stored within $BOUND s of the return"
fw_wait_each_forwarded stall "$NFWD" "$BOUND" || _wh_bad "stall: the forwarder forwards every event"
fw_stop stall
assert_eq 0 "$FW_RC" "stall: the forwarder stops cleanly"
fw_check stall "forwarder through PostgreSQL's stall" max_dup=0

touch "$T/s-inbox/stop"
wait "$spid"
assert_eq 0 "$?" "inbox: every notification sent ended with a 200"
r=$(python3 "$CHECK" check "$T/s-inbox")
echo "   inbox: $(head -n 1 <<<"$r")"
assert_contains "$r" " bad=0 no_answer=0 " \
    "inbox: every answer within the bank's wait, 200 or 503 with Retry-After" "$r"
case "$r" in *" waited_503=0"*) _wh_bad "inbox: the stall held notifications back (503)" "$r" ;;
             *) _wh_ok "inbox: the stall held notifications back (503)" ;; esac
assert_eq "$(wc -l <"$T/s-inbox/done")" "$(pg_sql "SELECT count(*) FROM wh_events" faults_inbox)" \
    "inbox: every notification answered 200 is stored, once"
# given up by the watch on the silent server, not by anything else
assert_contains "$(cat "$T/logs/error.log")" "no answer within 7 s" \
    "inbox: the stalled server's silence is what ended the wait"
assert_true "stall: the forwarder's wait for the stalled server ended" \
    grep -q "no answer within 7 s" "$(fw_dir stall)/fwd.err"

# -------------------------------------------------------- restarted ---
fw_under_way restart
pg_stop
pg_resume || _wh_bad "PostgreSQL starts again after its restart"
fw_wait_each_forwarded restart "$NFWD" "$BOUND" || _wh_bad "restart: the forwarder forwards every event"
fw_stop restart
assert_eq 0 "$FW_RC" "restart: the forwarder stops cleanly"
fw_check restart "forwarder through PostgreSQL's restart" max_dup=0

# ---------------------------------------------------------- crashed ---
fw_under_way crash
# shellcheck disable=SC2046
kill -9 $(pg_pids) 2>/dev/null
for _ in $(seq 1 100); do
    [ -z "$(pg_pids | xargs -r ps -o pid= -p 2>/dev/null)" ] && break
    sleep 0.1
done
pg_resume || _wh_bad "PostgreSQL starts again after its crash"
fw_wait_each_forwarded crash "$NFWD" "$BOUND" || _wh_bad "crash: the forwarder forwards every event"
fw_stop crash
assert_eq 0 "$FW_RC" "crash: the forwarder stops cleanly"
fw_check crash "forwarder through PostgreSQL's crash" max_dup=0

wh_done
