#!/usr/bin/env bash
# The inbox on a real MariaDB (a throwaway server on 127.0.0.1, see
# mariadb.sh): the unit cases on the mysql driver, then the dynamic CGI
# and the module's `SetHandler wirehook` sharing one database: store,
# duplicates, pages, the payment view, the quarantine, names with 4-byte
# characters, writers racing with duplicates, an outage (503 with
# Retry-After while down, 200 once it is back), a stalled server (503,
# never a hang), the GRANT a user without
# rights is told, the warning for a server that does not flush each
# commit, and no password in any log. Sizes: WH_LOAD_WRITERS (8),
# WH_LOAD_EVENTS (60 x WH_SCALE) for the module, WH_LOAD_CGI_EVENTS
# (20 x WH_SCALE) for the CGI, whose every request is a process with its
# own MariaDB session.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/inbox_lib.sh"
. "$(dirname "$0")/mariadb.sh"
W=${WH_LOAD_WRITERS:-8}
E=${WH_LOAD_EVENTS:-$(wh_size 60)}
CE=${WH_LOAD_CGI_EVENTS:-$(wh_size 20)}

mariadb_available || wh_skip "no MariaDB server here (apt-get install mariadb-server)"
mariadb_start || { _wh_bad "MariaDB starts" "see above"; wh_done; }
_wh_ok "MariaDB started on 127.0.0.1:$MARIADB_PORT"

# ------------------------------------------- unit cases on the driver ---
# Every unit suite that names this script (the inbox suites' MySQL twins;
# forward_queue_mysql is test_forward_mysql's): run.sh's unit run leaves
# them to it.
if [ -x "$WH_BUILD/unit_tests" ]; then
    mariadb_sql "CREATE DATABASE wh_unit CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
        GRANT ALL ON wh_unit.* TO 'wirehook'@'127.0.0.1';" mysql >/dev/null
    suites=$("$WH_BUILD/unit_tests" --suites-for "$(basename "$0")")
    assert_contains "$suites" inbox_mysql "the MySQL unit suites are found"
    # The unit cases stop and start the server through this script, which
    # first closes what they leave open (their connections, the pipes the
    # harness reads): the server it starts outlives it and would hold them.
    cat >"$T/mariadb_ctl" <<EOF
#!/usr/bin/env bash
for fd in \$(ls /proc/\$\$/fd); do
    case \$fd in 0|1|2|255) ;; *) eval "exec \$fd>&-" ;; esac
done
. "$(cd "$(dirname "$0")" && pwd)/mariadb.sh"
MARIADB_DIR=$MARIADB_DIR MARIADB_PORT=$MARIADB_PORT
exec </dev/null >/dev/null 2>&1
"\$1"
EOF
    chmod 755 "$T/mariadb_ctl"
    for suite in $suites; do
        WH_TEST_MYSQL_CONNINFO="${MARIADB_PARAMS/dbname=wirehook/dbname=wh_unit}" \
        WH_TEST_MYSQL_STOP="$T/mariadb_ctl mariadb_stop" \
        WH_TEST_MYSQL_START="$T/mariadb_ctl mariadb_resume" \
        WH_SHARED_DIR="$WH_SHARED" wh_unit_suite "$suite"
    done
else
    _wh_bad "unit_tests built" "no $WH_BUILD/unit_tests (make unit first)"
fi

# ------------------------------------------------ the HTTP endpoints ---
ib_cgi_install
MY_CONF="$T/etc/mysql.conf"
wh_write_config "$MY_CONF" "InboxDriver mysql" "InboxParams \"$MARIADB_PARAMS\""
# it holds the database password: readable by the httpd user only
chmod 640 "$MY_CONF"; [ "$(id -u)" -eq 0 ] && chgrp www-data "$MY_CONF"
# a user with no right to make the tables, on its own database
mariadb_sql "CREATE DATABASE wh_norights CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    CREATE USER 'reader'@'127.0.0.1' IDENTIFIED BY 'reader-pw-$MARIADB_PORT';
    GRANT SELECT ON wh_norights.* TO 'reader'@'127.0.0.1';" mysql >/dev/null
NR_CONF="$T/etc/norights.conf"
wh_write_config "$NR_CONF" "InboxDriver mysql" \
    "InboxParams \"host=127.0.0.1 port=$MARIADB_PORT user=reader pass=reader-pw-$MARIADB_PORT dbname=wh_norights\""
chmod 640 "$NR_CONF"; [ "$(id -u)" -eq 0 ] && chgrp www-data "$NR_CONF"
C="$WH_URL/cgi/my"
M="$WH_URL/myinbox"
# the dynamic build (the self-contained one refuses mysql: test_cgi_link)
ib_cgi_pg_location /cgi/my "SetEnv WIREHOOK_CONFIG $MY_CONF" "SetEnv WIREHOOK_CGILogLevel info"
wh_httpd_extra "<Location /myinbox>
    SetHandler wirehook
    WirehookConfig $MY_CONF
</Location>
<Location /norights>
    SetHandler wirehook
    WirehookConfig $NR_CONF
</Location>"
wh_httpd_conf
wh_httpd_start || exit 1

b=$(wh_body Complete)
wh_post "$C" "$b"
assert_json_code accepted "mysql CGI: stored"
wh_post "$C" "$b"
assert_json_code duplicate "mysql CGI: second copy is a duplicate"
wh_post "$M" "$b"
assert_json_code duplicate "mysql module: the CGI's copy is a duplicate here too"
wh_post "$M" "$(wh_body Exception)"
assert_json_code accepted "mysql module: stored"
wh_curl -u "$WH_USER:$WH_PASSWD" "$C?limit=10"
assert_eq 2 "$(wh_json_get "$WH_BODY" 'len(d["events"])')" "mysql CGI lists both"
wh_curl -u "$WH_USER:$WH_PASSWD" "$M?offset=1&limit=10"
assert_eq "1 2 False" "$(wh_json_get "$WH_BODY" '"%d %s %s" % (len(d["events"]), d["pagination"]["offset"], d["pagination"]["moreRecords"])')" \
    "mysql module pages the same records"
wh_curl -u "$WH_USER:$WH_PASSWD" "$C?limit=0"
assert_json_code invalid_pagination "mysql CGI: bad limit is 400"
printf '{"broken": ' >"$T/broken.json"
wh_post "$C" "$T/broken.json"
assert_json_code invalid_json "mysql CGI: invalid JSON 400"
wh_post "$M" "$T/broken.json"
assert_json_code invalid_json "mysql module: invalid JSON 400"
assert_eq 2 "$(mariadb_sql 'SELECT count(*) FROM wh_quarantine')" "mysql: authentic invalid JSON quarantined"
"$WIREHOOK" inbox --config "$MY_CONF" quarantine list >"$T/q.out" 2>&1
assert_eq "0 2" "$? $(grep -c invalid_json "$T/q.out")" "mysql: wirehook inbox quarantine list shows both"
assert_eq "2 2" "$(mariadb_sql "SELECT concat(count(*), ' ', max(seq)) FROM wh_order")" "mysql: two stored, no gap"
assert_eq 1 "$(mariadb_sql 'SELECT count(*) FROM wh_auth_cache')" "mysql CGI: its auth cache is the table"

# a name and a paymentId with characters outside the BMP, byte for byte
python3 - "$(wh_body Review)" "$T/emoji.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
w = d["data"]["wireEventInfo"]
w["paymentId"] = "WP-\U0001F600-\U0001D11E"
w.setdefault("originalWire", {}).setdefault("beneficiaryInfo", {})["name"] = "Zo\u00eb \U0001F680 \U00020000"
open(sys.argv[2], "w", encoding="utf-8").write(json.dumps(d, ensure_ascii=False))
EOF
wh_post "$M" "$T/emoji.json"
assert_json_code accepted "mysql module: a body with 4-byte characters is stored"
pay=$(python3 -c 'import urllib.parse; print(urllib.parse.quote("WP-\U0001F600-\U0001D11E"))')
wh_curl -u "$WH_USER:$WH_PASSWD" "$C?paymentId=$pay"
assert_true "mysql CGI: the body comes back byte for byte, found by its paymentId" \
    python3 -c 'import sys; sys.exit(open(sys.argv[1], "rb").read() not in open(sys.argv[2], "rb").read())' \
    "$T/emoji.json" "$T/resp.body"
wh_curl -u "$WH_USER:$WH_PASSWD" "$M/payments/$pay"
assert_eq "Review" "$(wh_json_get "$WH_BODY" 'd["status"]')" "mysql module: the payment view of a 4-byte paymentId"
# the sample's payment: Complete, then Exception (later, or the same
# second and arrived later)
wh_curl -u "$WH_USER:$WH_PASSWD" "$C/payments?status=Exception"
assert_eq 1 "$(wh_json_get "$WH_BODY" 'len(d["payments"])')" "mysql CGI: the payments page by status"

# ---------------------------------------------------------------- load ---
ib_load_run mycgi "$C" "$W" "$CE"
echo "   CGI (mod_cgid, MariaDB): $W x $CE requests in ${IB_LOAD_SECS}s"
ib_load_verify mycgi "$C" 100 complete
ib_check_verify "mysql CGI ${W}x${CE}"
ib_load_run mymod "$M" "$W" "$E"
echo "   module (MariaDB): $W x $E requests in ${IB_LOAD_SECS}s"
ib_load_verify mymod "$M" 100 complete
ib_check_verify "mysql module ${W}x${E}"
n=$(mariadb_sql 'SELECT count(*) FROM wh_events')
assert_eq "$n 1 $n" "$(mariadb_sql "SELECT concat(count(*), ' ', min(seq), ' ', max(seq)) FROM wh_order")" \
    "mysql: every stored event has a position after the load, no gaps, duplicates took none"
ib_walk "$M" 1 >"$T/w1"
ib_walk "$M" 100 >"$T/w100"
assert_eq "$n" "$(wc -l <"$T/w1")" "mysql: limit 1 walks every record"
assert_eq "$(sha256sum <"$T/w100")" "$(sha256sum <"$T/w1")" "mysql: limit 1 and limit 100 give the same sequence"
ib_walk "$C" 100 >"$T/c100"
assert_eq "$(sha256sum <"$T/w100")" "$(sha256sum <"$T/c100")" "mysql: the CGI and the module list the same"
assert_not_contains "$(wh_errlog)" "Deadlock" "mysql: no deadlock under racing duplicates"

# -------------------------------------------------------------- outage ---
mariadb_stop
wh_post "$C" "$(wh_body Review)"
assert_status 503 "mysql down: CGI answers 503"
assert_json_code inbox_unavailable "mysql down: inbox_unavailable (CGI)"
assert_header Retry-After "" "mysql down: the CGI's 503 says when to come back"
wh_post "$M" "$(wh_body Review)"
assert_status 503 "mysql down: module answers 503"
assert_json_code inbox_unavailable "mysql down: inbox_unavailable (module)"
assert_header Retry-After "" "mysql down: the module's 503 says when to come back"
wh_curl -u "$WH_USER:$WH_PASSWD" "$M"
assert_status 503 "mysql down: listing answers 503"
mariadb_resume || _wh_bad "MariaDB restarts" ""
after=$(wh_body Review)
# the child tries again at most every 2 s (WH_INBOX_RETRY_MS)
ib_post_retry "$M" "$after" 4
assert_status 200 "mysql back: the module serves again within its retry interval (${IB_RETRY_MS} ms)"
assert_json_code accepted "mysql back: module stores"
wh_post "$C" "$after"
assert_json_code duplicate "mysql back: CGI stores (a duplicate of the module's)"
wh_post "$C" "$(wh_body Complete)"
assert_json_code accepted "mysql back: CGI stores"

# --------------------------------------------------------------- stall ---
# A server that stops answering (SIGSTOP: a frozen machine, a cut link)
# keeps every connection open: the client would wait for ever, so the
# module's wait is ended by its socket watch (an open connection) or
# connecttimeout (a new one), and the bank gets 503, never a hang.
mid=$(wh_body Review)
mariadb_pause
WH_CURL_TIMEOUT=30 wh_post "$M" "$mid"
mariadb_unpause
assert_status 503 "mysql stalled: the module answers 503 within its bound, not a hang"
assert_json_code inbox_unavailable "mysql stalled: inbox_unavailable"
assert_header Retry-After "" "mysql stalled: the 503 says when to come back"
ib_post_retry "$M" "$mid" 8
assert_json_code accepted "mysql back from the stall: the bank's retry is stored"
assert_eq 1 "$(mariadb_sql "SELECT COUNT(*) FROM wh_events WHERE notification_id = '$(wh_body_id "$mid")'")" \
    "mysql back from the stall: stored once"

# ------------------------------------------------ rights, durability ---
wh_post "$WH_URL/norights" "$(wh_body Review)"
assert_status 503 "mysql: a user without rights: 503"
assert_contains "$(wh_errlog)" "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE ON \`wh_norights\`.* TO 'reader'@'127.0.0.1'" \
    "mysql: the log names the GRANT the user needs"
mariadb_sql "SET GLOBAL innodb_flush_log_at_trx_commit = 2" mysql >/dev/null
wh_post "$C" "$(wh_body Complete)"
assert_json_code accepted "mysql: stored while the server flushes once a second"
assert_contains "$(wh_errlog)" "innodb_flush_log_at_trx_commit = 2, not 1" \
    "mysql: a server that does not flush each commit is warned of"
mariadb_sql "SET GLOBAL innodb_flush_log_at_trx_commit = 1" mysql >/dev/null

assert_not_contains "$(wh_errlog)" "$MARIADB_PASSWORD" "the database password is in no log"
assert_not_contains "$(wh_errlog)" "reader-pw-$MARIADB_PORT" "the reader's password is in no log"
assert_contains "$(wh_errlog)" "mysql" "outage logged"

wh_done
