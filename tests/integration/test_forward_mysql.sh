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
fw_engine mysql
fws_setup
fw_scenario two "ForwardConcurrency 4"
# the configurations hold the database password: the httpd user reads them
for c in "$T"/etc/fw-*.conf; do
    chmod 640 "$c"; [ "$(id -u)" -eq 0 ] && chgrp www-data "$c"
done
wh_httpd_conf
wh_httpd_start || exit 1

fws_run mysql

# ---------------------------------------- two forwarders, one MariaDB ---
specs=()
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
assert_eq 300 "$(mariadb_sql "SELECT count(*) FROM wh_delivery WHERE state = 3" fw_two)" \
    "two forwarders: every event recorded forwarded"

# no password in any log or output
leak=$(grep -rlF "$MARIADB_PASSWORD" "$T/logs" "$T"/fw-*/ 2>/dev/null | grep -v '\.conf$' | head -n 3)
assert_eq "" "$leak" "the database password is in no log or output"

wh_done
