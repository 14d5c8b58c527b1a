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
fw_engine pgsql
fws_setup
fw_scenario two "ForwardConcurrency 4"
# the configurations hold the database password: the httpd user reads them
for c in "$T"/etc/fw-*.conf; do
    chmod 640 "$c"; [ "$(id -u)" -eq 0 ] && chgrp www-data "$c"
done
wh_httpd_conf
wh_httpd_start || exit 1

fws_run pgsql

# ------------------------------------ two forwarders, one PostgreSQL ---
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
assert_eq 300 "$(pg_sql "SELECT count(*) FROM wh_delivery WHERE state = 3" fw_two)" \
    "two forwarders: every event recorded forwarded"

# no password in any log or output
leak=$(grep -rlF "$PG_PASSWORD" "$T/logs" "$T"/fw-*/ 2>/dev/null | grep -v '\.conf$' | head -n 3)
assert_eq "" "$leak" "the database password is in no log or output"

wh_done
