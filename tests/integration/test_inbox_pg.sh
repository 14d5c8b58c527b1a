#!/usr/bin/env bash
# The inbox on a real PostgreSQL (a throwaway cluster on 127.0.0.1, see
# pg.sh): the unit cases on the pgsql driver, then the CGI and the
# module's `SetHandler wirehook` sharing one database: store, duplicates,
# listing, 8 writers x 100 with 10% duplicates, kill -9 of writers, an
# outage (503 while down, service resumes when it is back) and no password
# in any log. Sizes: WH_LOAD_WRITERS (8), WH_LOAD_EVENTS (100 x WH_SCALE)
# for the module, WH_LOAD_CGI_EVENTS (30 x WH_SCALE) for the CGI, whose
# every request is a process with its own PostgreSQL session (about 90 ms
# each here): 8 x 30 with 10% racing duplicates proves the same thing, and
# `make soak` runs 8 x 150.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/inbox_lib.sh"
. "$(dirname "$0")/pg.sh"
W=${WH_LOAD_WRITERS:-8}
E=${WH_LOAD_EVENTS:-$(wh_size 100)}
CE=${WH_LOAD_CGI_EVENTS:-$(wh_size 30)}

pg_start || { _wh_bad "PostgreSQL starts" "see above"; wh_done; }
_wh_ok "PostgreSQL started on 127.0.0.1:$PG_PORT"

# ------------------------------------------- unit cases on the driver ---
# Every unit suite that names this script as the one that gives it a
# PostgreSQL (the inbox suites' twins; forward_queue_pg is
# test_forward_pg's): run.sh's unit run leaves them to it.
if [ -x "$WH_BUILD/unit_tests" ]; then
    pg_sql "CREATE DATABASE wh_unit OWNER wirehook" postgres >/dev/null
    suites=$("$WH_BUILD/unit_tests" --suites-for "$(basename "$0")")
    assert_contains "$suites" inbox_order_pg "the PostgreSQL unit suites are found"
    for suite in $suites; do
        WH_TEST_PG_CONNINFO="${PG_CONNINFO/dbname=wirehook/dbname=wh_unit}" \
        WH_TEST_PG_STOP="$(declare -f _pg_as _pg_ctl pg_bin pg_stop); PG_DIR=$PG_DIR; pg_stop" \
        WH_TEST_PG_START="$(declare -f _pg_as _pg_ctl pg_bin pg_resume); PG_DIR=$PG_DIR; pg_resume" \
        WH_SHARED_DIR="$WH_SHARED" wh_unit_suite "$suite"
    done
else
    _wh_bad "unit_tests built" "no $WH_BUILD/unit_tests (make unit first)"
fi

# ------------------------------------------------ the HTTP endpoints ---
ib_cgi_install
PG_CONF="$T/etc/pg.conf"
wh_write_config "$PG_CONF" "InboxDriver pgsql" "InboxParams \"$PG_CONNINFO\""
# it holds the database password: readable by the httpd user only
chmod 640 "$PG_CONF"; [ "$(id -u)" -eq 0 ] && chgrp www-data "$PG_CONF"
C="$WH_URL/cgi/pg"
M="$WH_URL/pginbox"
ib_cgi_pg_location /cgi/pg "SetEnv WIREHOOK_CONFIG $PG_CONF" "SetEnv WIREHOOK_CGILogLevel info"
wh_httpd_extra "<Location /pginbox>
    SetHandler wirehook
    WirehookConfig $PG_CONF
</Location>"
wh_httpd_conf
wh_httpd_start || exit 1

b=$(wh_body Complete)
wh_post "$C" "$b"
assert_json_code accepted "pg CGI: stored"
wh_post "$C" "$b"
assert_json_code duplicate "pg CGI: second copy is a duplicate"
wh_post "$M" "$b"
assert_json_code duplicate "pg module: the CGI's copy is a duplicate here too"
wh_post "$M" "$(wh_body Exception)"
assert_json_code accepted "pg module: stored"
wh_curl -u "$WH_USER:$WH_PASSWD" "$C?limit=10"
assert_eq 2 "$(wh_json_get "$WH_BODY" 'len(d["events"])')" "pg CGI lists both"
wh_curl -u "$WH_USER:$WH_PASSWD" "$M?offset=1&limit=10"
assert_eq "1 2 False" "$(wh_json_get "$WH_BODY" '"%d %s %s" % (len(d["events"]), d["pagination"]["offset"], d["pagination"]["moreRecords"])')" \
    "pg module pages the same records"
wh_curl -u "$WH_USER:$WH_PASSWD" "$C?limit=0"
assert_json_code invalid_pagination "pg CGI: bad limit is 400"
printf '{"broken": ' >"$T/broken.json"
wh_post "$C" "$T/broken.json"
assert_json_code invalid_json "pg CGI: invalid JSON 400"
assert_eq 1 "$(pg_sql 'SELECT count(*) FROM wh_quarantine')" "pg: authentic invalid JSON quarantined"
assert_eq "2 2" "$(pg_sql "SELECT count(*) || ' ' || max(seq) FROM wh_order")" "pg: two stored, no gap"
# no file beside a PostgreSQL inbox: the CGI keeps its auth cache in the
# database (read-only session before Basic auth has passed)
assert_eq 1 "$(pg_sql 'SELECT count(*) FROM wh_auth_cache')" "pg CGI: its auth cache is the table"
assert_eq 1 "$(grep -c "wirehook.cgi.*password of user $WH_USER checked" "$T/logs/error.log")" \
    "pg CGI: the password was checked once, later requests hit the table"

# ---------------------------------------------------------------- load ---
ib_load_run pgcgi "$C" "$W" "$CE"
echo "   CGI (mod_cgid, PostgreSQL): $W x $CE requests in ${IB_LOAD_SECS}s"
ib_load_verify pgcgi "$C" 100 complete
ib_check_verify "pg CGI ${W}x${CE}"
ib_load_run pgmod "$M" "$W" "$E"
echo "   module (PostgreSQL): $W x $E requests in ${IB_LOAD_SECS}s"
ib_load_verify pgmod "$M" 100 complete
ib_check_verify "pg module ${W}x${E}"
n=$(pg_sql 'SELECT count(*) FROM wh_events')
assert_eq "$n 1 $n" "$(pg_sql "SELECT count(*) || ' ' || min(seq) || ' ' || max(seq) FROM wh_order")" \
    "pg: every stored event has a position after the load, no gaps, duplicates took none"
ib_walk "$M" 1 >"$T/w1"
ib_walk "$M" 100 >"$T/w100"
assert_eq "$n" "$(wc -l <"$T/w1")" "pg: limit 1 walks every record"
assert_eq "$(sha256sum <"$T/w100")" "$(sha256sum <"$T/w1")" "pg: limit 1 and limit 100 give the same sequence"
ib_walk "$C" 100 >"$T/c100"
assert_eq "$(sha256sum <"$T/w100")" "$(sha256sum <"$T/c100")" "pg: the CGI and the module list the same"

ib_load_run pgkill "$C" "$W" "$CE" 2
ib_load_verify pgkill "$C" 100
ib_check_verify "pg kill -9 of half the writers"
ib_walk "$C" 100 >/dev/null   # a listing numbers what killed writers left pending
n=$(pg_sql 'SELECT count(*) FROM wh_events')
assert_eq "$n $n" "$(pg_sql "SELECT count(*) || ' ' || max(seq) FROM wh_order")" "pg kill -9: sequence has no gaps"

# -------------------------------------------------------------- outage ---
pg_stop
wh_post "$C" "$(wh_body Review)"
assert_status 503 "pg down: CGI answers 503"
assert_json_code inbox_unavailable "pg down: inbox_unavailable (CGI)"
wh_post "$M" "$(wh_body Review)"
assert_status 503 "pg down: module answers 503"
assert_json_code inbox_unavailable "pg down: inbox_unavailable (module)"
wh_curl -u "$WH_USER:$WH_PASSWD" "$M"
assert_status 503 "pg down: listing answers 503"
WH_AUTH=- wh_post "$C" "$(wh_body Review)"
assert_status 401 "pg down: a bad request is still answered as such"
pg_resume || _wh_bad "PostgreSQL restarts" ""
after=$(wh_body Review)
# the child tries again at most every 2 s (WH_INBOX_RETRY_MS)
ib_post_retry "$M" "$after" 4
assert_status 200 "pg back: the module serves again within its retry interval (${IB_RETRY_MS} ms)"
assert_json_code accepted "pg back: module stores"
wh_post "$C" "$after"
assert_json_code duplicate "pg back: CGI stores (a duplicate of the module's)"
wh_post "$C" "$(wh_body Complete)"
assert_json_code accepted "pg back: CGI stores"

assert_not_contains "$(wh_errlog)" "$PG_PASSWORD" "the database password is in no log"
assert_contains "$(wh_errlog)" "pgsql" "outage logged"

wh_done
