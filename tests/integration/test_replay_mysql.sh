#!/usr/bin/env bash
# ReplayCache mysql against a throwaway MariaDB on loopback (mariadb.sh):
# the unit suites that name this script (replay_mysql: the shared stores'
# cases on MariaDB, racing claims and takeovers, a dropped table, the
# purge), `wirehook replay init`, and the module in front of the recording
# application with real signed notifications: delivered once, a copy a
# duplicate, a copy while the delivery runs 503 delivery_in_progress; the
# server stopped: 503 replay_cache_unavailable with Retry-After, and
# delivered once it is back; the server stalled (SIGSTOP): every answer a
# 503 with Retry-After while it is still stopped (bounded by the store's
# timeout, not the stall), then, once it runs again, every held-back
# notification delivered exactly once, the claims the stall left behind
# released rather than held for a lease. No password in any log.
#
# One httpd child (ServerLimit 1), so that the claims of the stall are
# sent on a connection the child already holds, as a busy server's are.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/mariadb.sh"

mariadb_available || wh_skip "no MariaDB server (apt-get install mariadb-server)"
mariadb_start || { _wh_bad "MariaDB starts" "see above"; wh_done; }
_wh_ok "MariaDB started on 127.0.0.1:$MARIADB_PORT"

# ---------------------------------------------------- the unit suites ---
# (every unit suite that names this script; run.sh's unit run leaves them
# to it)
mariadb_sql "CREATE DATABASE wh_unit_replay CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    GRANT ALL ON wh_unit_replay.* TO 'wirehook'@'127.0.0.1';" mysql >/dev/null
suites=$("$WH_BUILD/unit_tests" --suites-for "$(basename "$0")")
assert_contains "$suites" replay_mysql "the MySQL replay unit suites are found"
for suite in $suites; do
    WH_TEST_MYSQL_CONNINFO="${MARIADB_PARAMS/dbname=wirehook/dbname=wh_unit_replay}" \
        wh_unit_suite "$suite"
done

# --------------------------------------------- wirehook replay init ---
CONF="$T/etc/mysql.conf"
wh_write_config "$CONF" "ReplayCache mysql:$MARIADB_PARAMS"
# it holds the database password: readable by the httpd user only
chmod 640 "$CONF"; [ "$(id -u)" -eq 0 ] && chgrp www-data "$CONF"
out=$("$WIREHOOK" configtest "$CONF" 2>&1)
assert_contains "$out" "Syntax OK" "wirehook configtest accepts ReplayCache mysql:PARAMS"
out=$("$WIREHOOK" replay init --config "$CONF" 2>&1); rc=$?
assert_eq 0 "$rc" "replay init on a new store succeeds"
assert_contains "$out" "marked new" "... and says the store is new (a table wirehook created)"
assert_contains "$out" "pass=***" "... its parameters shown with the password hidden"
assert_not_contains "$out" "$MARIADB_PASSWORD" "... never the password"
assert_contains "$(mariadb_sql "SELECT holder FROM wh_replay WHERE id = 'wirehook:epoch'")" \
    "since=0 " "the marker says new"
assert_eq 1 "$(mariadb_sql "SELECT value FROM wh_replay_meta WHERE name = 'version'")" \
    "the schema is versioned"
assert_contains "$(mariadb_sql "SHOW CREATE TABLE wh_replay")" "ENGINE=InnoDB" \
    "the table is InnoDB's"
wh_write_config "$T/etc/dead.conf" "ReplayCache mysql:host=127.0.0.1 port=1 user=u pass=topsecret dbname=x"
out=$("$WIREHOOK" replay init --config "$T/etc/dead.conf" 2>&1); rc=$?
assert_eq 1 "$rc" "an unreachable server: replay init fails"
assert_contains "$out" "no connection to the replay store's database" "... and says so"
assert_not_contains "$out" "topsecret" "... without the password"

# ------------------------------------------------------- the module ---
wh_httpd_extra "ServerLimit 1
MaxRequestWorkers 16
ScriptAlias /r/mysql \"$T/cgi-bin/record.cgi\"
ScriptAlias /slow/mysql \"$T/cgi-bin/record.cgi\"
<Location /r/mysql>
    WirehookConfig $CONF
</Location>
<Location /slow/mysql>
    SetEnv WH_APP_SLEEP 6
    WirehookConfig $CONF
</Location>"
wh_httpd_conf
wh_httpd_start || exit 1
R="$WH_URL/r/mysql"
assert_contains "$(wh_errlog)" "WH00962: ReplayCache mysql:" "startup states what the mysql store guarantees"
assert_contains "$(wh_errlog)" "INSERT ... ON DUPLICATE KEY UPDATE" "... an atomic claim in the database"

# app_count ID -> deliveries the application recorded for ID
app_count() { grep -l "\"$1\"" "$T"/app/calls/*/body 2>/dev/null | wc -l; }

b=$(wh_body Complete); id=$(wh_body_id "$b")
wh_post "$R" "$b"
assert_status 200 "a notification is delivered"
wh_post "$R" "$b"
assert_status 200 "its copy is answered 200"
assert_json_code duplicate "... duplicate"
assert_eq 1 "$(app_count "$id")" "... and the application had it once"
assert_eq 1 "$(mariadb_sql "SELECT COUNT(*) FROM wh_replay WHERE id = '$id' AND holder IS NULL")" \
    "the id is a confirmed row"

# a copy while the delivery runs
s=$(wh_body Complete); sid=$(wh_body_id "$s")
( WH_CURL_TIMEOUT=60 wh_post "$WH_URL/slow/mysql" "$s"
  echo "$WH_STATUS" >"$T/slow.status" ) &
slow=$!
sleep 2                                   # the delivery is under way
wh_post "$R" "$s"
assert_status 503 "a copy while its delivery runs: 503"
assert_json_code delivery_in_progress "... delivery_in_progress"
ra=$(wh_header Retry-After)
assert_true "... with Retry-After (got [$ra])" test -n "$ra"
wait "$slow"
assert_eq 200 "$(cat "$T/slow.status")" "the delivery ends with the application's 200"
wh_post "$R" "$s"
assert_json_code duplicate "a copy after it is a duplicate"
assert_eq 1 "$(app_count "$sid")" "... delivered once"

# ------------------------------------------------ the server stopped ---
mariadb_stop
d=$(wh_body Complete); did=$(wh_body_id "$d")
wh_post "$R" "$d"
assert_status 503 "MariaDB stopped: 503"
assert_json_code replay_cache_unavailable "... replay_cache_unavailable"
ra=$(wh_header Retry-After)
assert_true "... with Retry-After (got [$ra])" test -n "$ra"
assert_eq 0 "$(app_count "$did")" "... and not delivered"
mariadb_resume || _wh_bad "MariaDB starts again"
sleep 3                                   # past the connection back-off
wh_post "$R" "$d"
assert_status 200 "MariaDB back: the bank's retry is delivered"
assert_no_header Retry-After "... with no Retry-After"
assert_eq 1 "$(app_count "$did")" "... once"

# ------------------------------------------------ the server stalled ---
# mr_state -> the server's process state (T: stopped)
mr_state() { local s; read -r _ _ s _ <"/proc/$(cat "$MARIADB_DIR/pid")/stat"; echo "$s"; }
# mr_cont: the server runs again, and so does the runuser(1) that started
# it as the mysql user, which stopped itself when its child stopped (it
# would hold our output open, and never reap the server)
STOPPED=""
mr_cont() {
    local pp
    [ -n "$STOPPED" ] || return 0
    read -r _ _ _ pp _ <"/proc/$STOPPED/stat" 2>/dev/null
    kill -CONT "$STOPPED" 2>/dev/null
    [ -n "$pp" ] && [ "$pp" != 1 ] && kill -CONT "$pp" 2>/dev/null
    STOPPED=""
}
trap 'rc=$?; mr_cont; (exit $rc); _mariadb_on_exit' EXIT
STOPPED=$(cat "$MARIADB_DIR/pid")
kill -STOP "$STOPPED"
held=()
for i in 1 2 3 4; do
    h=$(wh_body Complete); held+=("$h")
    WH_CURL_TIMEOUT=30 wh_post "$R" "$h"
    echo "$WH_STATUS $(wh_json_code "$WH_BODY") $(wh_header Retry-After)" >>"$T/stall-answers"
done
assert_eq T "$(mr_state)" "MariaDB was still stopped when the last answer came"
i=0
while read -r st code ra; do
    i=$((i + 1))
    assert_eq "503 replay_cache_unavailable" "$st $code" "stalled: notification $i answered 503"
    assert_true "... with Retry-After (got [$ra])" test -n "$ra"
done <"$T/stall-answers"
mr_cont
# the bank retries each until 200, as Retry-After says (60 s at most: a
# claim left for its lease would hold 120 s)
for h in "${held[@]}"; do
    for _ in $(seq 1 60); do
        wh_post "$R" "$h"
        [ "$WH_STATUS" = 200 ] && break
        sleep 1
    done
    assert_status 200 "after the stall: $(wh_body_id "$h") is delivered"
    assert_eq 1 "$(app_count "$(wh_body_id "$h")")" "... once"
done
# the release is the renewal thread's, once MariaDB answers: waited
# for, with a bound, on a loaded machine
for _ in $(seq 1 600); do
    grep -q "WH01002: replay store mysql: released the claim" <<<"$(wh_errlog)" && break
    sleep 0.1
done
assert_contains "$(wh_errlog)" "WH01002: replay store mysql: released the claim" \
    "a claim the stall left behind was released when MariaDB answered again"

# ------------------------------------------------------- no secrets ---
assert_not_contains "$(wh_errlog)" "$MARIADB_PASSWORD" "no database password in httpd's error log"
assert_not_contains "$(cat "$MARIADB_DIR/server.log" 2>/dev/null)" "$MARIADB_PASSWORD" \
    "... nor in MariaDB's"
assert_contains "$(wh_errlog)" "pass=***" "the error log shows the parameters with the password hidden"

wh_done
