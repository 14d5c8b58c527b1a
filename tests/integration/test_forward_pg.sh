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
pg_sql "CREATE DATABASE wh_unit_fwd OWNER wirehook" postgres >/dev/null
out=$(WH_TEST_PG_CONNINFO="${PG_CONNINFO/dbname=wirehook/dbname=wh_unit_fwd}" \
      WH_SHARED_DIR="$WH_SHARED" "$WH_BUILD/unit_tests" forward_queue_pg 2>&1)
line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
echo "   unit suite forward_queue_pg: $line"
case "$line" in
    [1-9]*" passed, 0 failed") _wh_ok "queue unit cases pass on PostgreSQL ($line)" ;;
    *) _wh_bad "queue unit cases pass on PostgreSQL" "$(printf '%s\n' "$out" | tail -n 30)" ;;
esac

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
WH_BG_PIDS="$WH_BG_PIDS $pa $pb"
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
