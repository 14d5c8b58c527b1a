#!/usr/bin/env bash
# The replay stores several servers share, against real servers: a redis
# and a memcached started here on free loopback ports and a throwaway
# PostgreSQL (pg.sh) run the unit suites replay_redis, replay_memcache and
# replay_pgsql (tests/unit/test_replay_shared.c: claim, confirm, forget
# and renew only the holder's, a lease that lapses unless renewed, an
# emptied store, racing claims from threads, an unreachable server), and
# `wirehook replay init` marks each new store new once, and never again.
# A redis that is down is answered 503 with its connection back-off as
# Retry-After, and the notification is delivered once it is back.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/pg.sh"


RPORT=$(wh_free_port); MPORT=$(wh_free_port)
while [ "$MPORT" = "$RPORT" ]; do MPORT=$(wh_free_port); done
redis-server --bind 127.0.0.1 --port "$RPORT" --save "" --appendonly no >"$T/logs/redis.log" 2>&1 &
wh_bg_add $!     # stopped on exit (lib.sh)
mc=(memcached -l 127.0.0.1 -p "$MPORT" -U 0 -m 16)
[ "$(id -u)" -eq 0 ] && mc+=(-u nobody)
"${mc[@]}" >"$T/logs/memcached.log" 2>&1 &
wh_bg_add $!     # stopped on exit (lib.sh)
assert_true "redis listens on 127.0.0.1:$RPORT" wh_wait_port "$RPORT"
assert_true "memcached listens on 127.0.0.1:$MPORT" wh_wait_port "$MPORT"
pg_start || { _wh_bad "PostgreSQL starts" "see above"; wh_done; }
pg_sql "CREATE DATABASE wh_unit_replay OWNER wirehook" postgres >/dev/null
PGCI="${PG_CONNINFO/dbname=wirehook/dbname=wh_unit_replay}"

# ------------------------------------------------- the unit suites ---
# (every unit suite that names this script; run.sh's unit run leaves them
# to it)
suites=$("$WH_BUILD/unit_tests" --suites-for "$(basename "$0")")
assert_eq "replay_redis replay_memcache replay_pgsql" "$(echo $suites)" \
    "the shared stores' unit suites are found"
for suite in $suites; do
    WH_TEST_REDIS="127.0.0.1:$RPORT" WH_TEST_MEMCACHE="127.0.0.1:$MPORT" \
    WH_TEST_REPLAY_PG="$PGCI" WH_SHARED_DIR="$WH_SHARED" wh_unit_suite "$suite"
done
assert_not_contains "$(grep -h 'password' "$PG_DIR/server.log" 2>/dev/null)" "$PG_PASSWORD" \
    "pgsql: no conninfo password in the server's log"

# --------------------------------------------- wirehook replay init ---
# A new store is made usable by one command: the epoch marker "new" is
# written only when the store has none, so an emptied store is never
# taken for a new one by running it again.
init_case() { # LABEL SPEC
    local conf="$T/etc/init-$1.conf" out rc
    wh_write_config "$conf" "ReplayCache $2" "InboxDriver pgsql" "InboxParams $PG_CONNINFO"
    out=$("$WIREHOOK" replay init --config "$conf" 2>&1); rc=$?
    assert_eq 0 "$rc" "$1: replay init succeeds on a new store"
    assert_contains "$out" "marked new" "$1: ... and says it marked the store new"
    assert_not_contains "$out" "$PG_PASSWORD" "$1: ... without a conninfo password"
    out=$("$WIREHOOK" replay init --config "$conf" 2>&1); rc=$?
    assert_eq 0 "$rc" "$1: replay init again succeeds"
    assert_contains "$out" "already" "$1: ... and changes nothing: the store had a marker"
}
redis-cli -p "$RPORT" FLUSHALL >/dev/null
init_case redis "redis:127.0.0.1:$RPORT"
assert_eq "since=0" "$(redis-cli -p "$RPORT" GET wirehook-replay:77697265686f6f6b3a65706f6368 | cut -d' ' -f1)" \
    "redis: the marker says new (since=0)"
assert_eq "-1" "$(redis-cli -p "$RPORT" TTL wirehook-replay:77697265686f6f6b3a65706f6368)" \
    "redis: ... and never expires"
printf 'flush_all\r\nquit\r\n' >"$T/mcflush"
exec 5<>"/dev/tcp/127.0.0.1/$MPORT"; cat "$T/mcflush" >&5; head -c 4 <&5 >/dev/null; exec 5>&-
init_case memcache "memcache:127.0.0.1:$MPORT"
pg_sql "DROP TABLE IF EXISTS wh_replay; DROP TABLE IF EXISTS wh_replay_meta" >/dev/null
init_case pgsql "pgsql"
assert_contains "$(pg_sql "SELECT holder FROM wh_replay WHERE id = 'wirehook:epoch'")" "since=0 " \
    "pgsql: the inbox's database holds the replay table, its marker new"
assert_eq 1 "$(pg_sql "SELECT value FROM wh_replay_meta WHERE name = 'version'")" \
    "pgsql: the schema is versioned"
out=$("$WIREHOOK" replay init --config "$WH_CONF" 2>&1); rc=$?
assert_eq 0 "$rc" "lmdb: replay init has nothing to do, and says so"
assert_contains "$out" "nothing to do" "... the state file decides at startup"
wh_write_config "$T/etc/dead.conf" "ReplayCache redis:127.0.0.1:1"
out=$("$WIREHOOK" replay init --config "$T/etc/dead.conf" 2>&1); rc=$?
assert_eq 1 "$rc" "an unreachable store: replay init fails"
assert_contains "$out" "127.0.0.1:1" "... naming the server"

# ------------------------------------------- a store that is down ---
# The module's children try a new connection at most every 2 s
# (WH_REPLAY_POOL_RETRY): until then a notification is answered 503 at
# once, saying when the next attempt is.
DPORT=$(wh_free_port)
while [ "$DPORT" = "$RPORT" ] || [ "$DPORT" = "$MPORT" ]; do DPORT=$(wh_free_port); done
wh_write_config "$T/etc/down.conf" "ReplayCache redis:127.0.0.1:$DPORT"
wh_httpd_extra "<Location /v1/wires>
    WirehookConfig $T/etc/down.conf
</Location>"
wh_httpd_conf
wh_httpd_start || exit 1
body=$(wh_body Complete)
wh_post "$WH_URL/v1/wires" "$body"
assert_status 503 "redis down: a notification is answered 503"
assert_json_code replay_cache_unavailable "... replay_cache_unavailable"
ra=$(wh_header Retry-After)
assert_true "... with the connection back-off as Retry-After (1 or 2 s, got [$ra])" \
    test "$ra" = 1 -o "$ra" = 2
assert_eq 0 "$(wh_app_calls)" "... and not delivered"
assert_contains "$(wh_errlog)" "no connection to redis at 127.0.0.1:$DPORT" \
    "... the error log names the server"
redis-server --bind 127.0.0.1 --port "$DPORT" --save "" --appendonly no >"$T/logs/redis-down.log" 2>&1 &
wh_bg_add $!     # stopped on exit (lib.sh)
assert_true "redis is started on 127.0.0.1:$DPORT" wh_wait_port "$DPORT"
out=$("$WIREHOOK" replay init --config "$T/etc/down.conf" 2>&1)
assert_contains "$out" "marked new" "... and marked new"
sleep 3                          # past any child's back-off (a lower bound)
wh_post "$WH_URL/v1/wires" "$body"
assert_status 200 "redis back: the bank's retry is delivered"
assert_no_header Retry-After "... with no Retry-After"
assert_eq 1 "$(wh_app_calls)" "... once"

wh_done
