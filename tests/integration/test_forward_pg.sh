#!/usr/bin/env bash
# wirehook forward on PostgreSQL (a throwaway cluster on 127.0.0.1, see
# pg.sh): the queue's unit cases on the pgsql driver, the scenarios of
# test_forward.sh (forward_scenarios.sh), and two forwarders sharing one
# inbox: each event forwarded once, never two of a payment at once.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/pg.sh"
. "$(dirname "$0")/forward_lib.sh"
. "$(dirname "$0")/forward_scenarios.sh"

pg_start || { _wh_bad "PostgreSQL starts" "see above"; wh_done; }
_wh_ok "PostgreSQL started on 127.0.0.1:$PG_PORT"

# ------------------------------------------- unit cases on the driver ---
# (every unit suite that names this script; run.sh's unit run leaves them
# to it)
pg_sql "CREATE DATABASE wh_unit_fwd OWNER wirehook" postgres >/dev/null
suites=$("$WH_BUILD/unit_tests" --suites-for "$(basename "$0")")
assert_contains "$suites" forward_queue_pg "the queue's PostgreSQL unit suite is found"
for suite in $suites; do
    WH_TEST_PG_CONNINFO="${PG_CONNINFO/dbname=wirehook/dbname=wh_unit_fwd}" \
    WH_SHARED_DIR="$WH_SHARED" wh_unit_suite "$suite"
done

# ------------------------------------------------------ the scenarios ---
fws_server_suite pgsql pg_sql "$PG_PASSWORD"

wh_done
