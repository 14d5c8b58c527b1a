#!/usr/bin/env bash
# wirehook forward on MariaDB (a throwaway server on 127.0.0.1, see
# mariadb.sh): the queue's unit cases on the mysql driver, the scenarios
# of test_forward.sh (forward_scenarios.sh), and two forwarders sharing
# one inbox: each event forwarded once, never two of a payment at once
# (their leases taken with FOR UPDATE SKIP LOCKED).
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/mariadb.sh"
. "$(dirname "$0")/forward_lib.sh"
. "$(dirname "$0")/forward_scenarios.sh"

mariadb_available || { wh_skip "no MariaDB server here (apt-get install mariadb-server)"; }
mariadb_start || { _wh_bad "MariaDB starts" "see above"; wh_done; }
_wh_ok "MariaDB started on 127.0.0.1:$MARIADB_PORT"

# ------------------------------------------- unit cases on the driver ---
# (every unit suite that names this script; run.sh's unit run leaves them
# to it)
mariadb_sql "CREATE DATABASE wh_unit_fwd CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    GRANT ALL ON wh_unit_fwd.* TO 'wirehook'@'127.0.0.1';" mysql >/dev/null
suites=$("$WH_BUILD/unit_tests" --suites-for "$(basename "$0")")
assert_contains "$suites" forward_queue_mysql "the queue's MySQL unit suite is found"
for suite in $suites; do
    WH_TEST_MYSQL_CONNINFO="${MARIADB_PARAMS/dbname=wirehook/dbname=wh_unit_fwd}" \
    WH_SHARED_DIR="$WH_SHARED" wh_unit_suite "$suite"
done

# ------------------------------------------------------ the scenarios ---
fws_server_suite mysql mariadb_sql "$MARIADB_PASSWORD"

wh_done
