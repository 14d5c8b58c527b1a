#!/usr/bin/env bash
# Every configuration in examples/ started for real: each example's files
# are put where its README says (under a temp root $R instead of /), with
# only the paths (and in tls-proxy the Define'd ports) changed, httpd runs
# them on 127.0.0.1, and signed requests from `wirehook send` (curl for the
# TLS hop) check the answers. shared-hosting-cgi, whose layout is suEXEC's,
# is test_cgi_suexec.sh's.
. "$(dirname "$0")/lib.sh"
wh_init

EX="$WH_TOP/examples"
R="$T/root"
mkdir -p "$R"
www=""
[ "$(id -u)" -eq 0 ] && www=www-data

# ------------------------------------------------------------- helpers ---
# Background servers of this test (second httpd, redis, memcached): stopped
# on exit before lib.sh's own cleanup.
EX_PIDS=()
EX_CONFS=()
ex_cleanup() {
    local c p
    for c in "${EX_CONFS[@]}"; do "$WH_HTTPD" -f "$c" -k stop >/dev/null 2>&1; done
    wh_kill_ours "${EX_PIDS[@]}"
    sleep 0.2
}
trap 'rc=$?; ex_cleanup; (exit $rc); _wh_cleanup' EXIT

# ex_path FILE: an example file with its absolute paths moved under $R
ex_paths() {
    sed -e "s|/etc/wirehook|$R/etc/wirehook|g" \
        -e "s|/var/www/wirehook|$R/var/www/wirehook|g" \
        -e "s|/var/lib/wirehook|$R/var/lib/wirehook|g" \
        -e "s|/home/alice|$R/home/alice|g" \
        -e "s|/etc/ssl/certs/hooks.example.com|$R/etc/ssl/certs/hooks.example.com|g" \
        -e "s|/etc/ssl/private/hooks.example.com|$R/etc/ssl/private/hooks.example.com|g" \
        "$1"
}
# ex_put SRC DEST [MODE]: install an example file at DEST (a path as the
# README gives it), rewritten by ex_paths
ex_put() {
    local dst="$R$2"
    mkdir -p "$(dirname "$dst")"
    ex_paths "$1" >"$dst"
    chmod "${3:-644}" "$dst"
}
# ex_credentials DIR [GROUP]: the secret and htpasswd files next to a
# wirehook.conf, 640 in the server's group (GROUP, or www-data as root: the
# module re-reads them as that user after a change; 600 when neither)
ex_credentials() {
    local g=${2:-$www}
    mkdir -p "$1"
    cp "$WH_SECRETS" "$1/secrets"
    cp "$WH_HTPASSWD" "$1/htpasswd"
    chmod 600 "$1/secrets" "$1/htpasswd"
    if [ -n "$g" ]; then
        chgrp "$g" "$1/secrets" "$1/htpasswd" && chmod 640 "$1/secrets" "$1/htpasswd"
    fi
}
# ex_writable DIR: a directory the httpd user writes to
ex_writable() {
    mkdir -p "$1"
    if [ -n "$www" ]; then chown "$www:$www" "$1"; chmod 750 "$1"; else chmod 1777 "$1"; fi
}
ex_mods() {
    local m out=""
    for m in "$@"; do
        [ -f "$WH_MODDIR/mod_$m.so" ] || { echo "# missing mod_$m.so" ; continue; }
        out="$out
LoadModule ${m}_module $WH_MODDIR/mod_$m.so"
    done
    printf '%s\n' "$out"
}
# ex_conf FILE PORT DIR MODULES INCLUDE...: a main httpd.conf as a Debian
# apache2.conf would be, for one instance whose run/ and logs/ live in DIR,
# including the example's files. EX_PORTS: Listen lines that stand for
# Debian's ports.conf (which listens on 443 once mod_ssl is on); Debian's
# serve-cgi-bin.conf is there as Debian ships it, so that an example that
# locks down /usr/lib/cgi-bin shows.
ex_conf() {
    local f=$1 port=$2 dir=$3 mods=$4 i; shift 4
    mkdir -p "$dir/run" "$dir/logs"
    chmod 755 "$dir/logs"; chmod 1777 "$dir/run"
    {
        echo "ServerRoot \"$dir\""
        # shellcheck disable=SC2086
        ex_mods mpm_event authz_core authz_host mime cgid env headers log_config \
            unixd alias dir setenvif socache_dbm $mods
        [ -z "${EX_NO_MODULE:-}" ] && echo "LoadModule wirehook_module $WH_MOD_SO"
        [ -n "$www" ] && printf 'User %s\nGroup %s\n' "$www" "$www"
        cat <<EOF
ServerName 127.0.0.1
Listen 127.0.0.1:$port
PidFile $dir/run/httpd.pid
DefaultRuntimeDir $dir/run
Mutex file:$dir/run default
ScriptSock $dir/run/cgid.sock
ErrorLog $dir/logs/error.log
LogLevel warn$([ -z "${EX_NO_MODULE:-}" ] && echo " wirehook:debug")
LogFormat "%h \"%r\" %>s %B" short
CustomLog $dir/logs/access.log short
TypesConfig /etc/mime.types
DocumentRoot "$T/htdocs"
Timeout 20
StartServers 1
ThreadsPerChild 8
MaxRequestWorkers 16
<Directory />
    AllowOverride None
    Require all denied
</Directory>
<Directory "$T/htdocs">
    Require all granted
</Directory>
PassEnv PATH
${EX_PORTS:-}
<IfModule mod_alias.c>
    ScriptAlias /cgi-bin/ /usr/lib/cgi-bin/
    <Directory "/usr/lib/cgi-bin">
        AllowOverride None
        Options +ExecCGI -MultiViews +SymLinksIfOwnerMatch
        Require all granted
    </Directory>
</IfModule>
EOF
        for i in "$@"; do echo "Include $i"; done
    } >"$f"
}
# The primary instance: lib.sh's start/stop (pid in $T/run, log in $T/logs)
ex_start() {
    local mods=$1; shift
    wh_httpd_stop
    : >"$T/logs/error.log"
    WH_HTTPD_CONF="$T/httpd.conf"
    ex_conf "$WH_HTTPD_CONF" "$WH_PORT" "$T" "$mods" "$@"
    wh_httpd_start
}
# A second, independent instance in DIR on PORT
ex_start_second() {
    local dir=$1 port=$2 mods=$3; shift 3
    ex_conf "$dir/httpd.conf" "$port" "$dir" "$mods" "$@"
    EX_CONFS+=("$dir/httpd.conf")
    # its log says what this start did, as ex_start's does
    [ -f "$dir/logs/error.log" ] && : >"$dir/logs/error.log"
    "$WH_HTTPD" -f "$dir/httpd.conf" -k start >"$dir/start.out" 2>&1 || { cat "$dir/start.out" >&2; return 1; }
    wh_wait_port "$port" && return 0
    tail -n 20 "$dir/logs/error.log" >&2
    return 1
}
ex_stop_second() {
    local dir=$1 pid i
    pid=$(cat "$dir/run/httpd.pid" 2>/dev/null)
    "$WH_HTTPD" -f "$dir/httpd.conf" -k stop >/dev/null 2>&1
    for i in $(seq 1 100); do
        [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
}
# ex_send CONFIG URL ARGS... -> WH_STATUS, WH_BODY from `wirehook send`
# (one request; its output line is "<status> <body>")
ex_send() {
    local conf=$1 url=$2 line; shift 2
    line=$("$WIREHOOK" send --config "$conf" --url "$url" "$@" 2>"$T/send.err" | head -n 1)
    WH_STATUS=${line%% *}
    WH_BODY=${line#* }
    [ -n "${WH_VERBOSE:-}" ] && printf '       -> %s\n' "$line"
    return 0
}
json_id() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["notificationId"])' "$1"; }
spool_count() { find "$1" -maxdepth 1 -name '*.json' 2>/dev/null | wc -l | tr -d ' '; }
need() {
    if command -v "$1" >/dev/null 2>&1; then return 0; fi
    _wh_bad "$1 is installed (build/deps-extra.txt: $2)"
    return 1
}
BAD_SIG=$(printf 'a%.0s' $(seq 64))
CRED="$WH_USER:$WH_PASSWD"

# ================================================ 1. cgi-app (CGI + PHP) ===
echo "-- cgi-app"
E="$EX/cgi-app"
ex_put "$E/apache.conf" /etc/apache2/conf-available/wirehook-app.conf
ex_put "$E/wirehook.conf" /etc/wirehook/wirehook.conf
ex_put "$E/receive.cgi" /var/www/wirehook/app/receive.cgi 755
ex_put "$E/receive.php" /var/www/wirehook/app/receive.php
ex_credentials "$R/etc/wirehook"
SPOOL="$R/var/lib/wirehook/spool"
ex_writable "$R/var/lib/wirehook"; ex_writable "$SPOOL"
CONF="$R/etc/wirehook/wirehook.conf"
out=$("$WIREHOOK" configtest "$CONF" 2>&1 | wh_no_notes)
assert_eq "Syntax OK" "$out" "cgi-app: wirehook configtest passes the example config, no warning"
if ex_start "actions" "$R/etc/apache2/conf-available/wirehook-app.conf"; then
    b=$(wh_body Complete)
    id=$(json_id "$b")
    ex_send "$CONF" "$WH_URL/v1/wires" --user "$CRED" "$b"
    assert_status 200 "cgi-app: signed notification accepted"
    assert_eq "{\"received\":\"$id\",\"app\":\"cgi\"}" "$WH_BODY" "cgi-app: the CGI app answered"
    assert_true "cgi-app: the app stored the exact body" cmp -s "$b" "$SPOOL/$id.json"
    assert_contains "$(cat "$SPOOL/received.log" 2>/dev/null)" "$id WP-2026-000481 Complete 1" "cgi-app: the app saw WIREHOOK_* facts"
    n=$(spool_count "$SPOOL")
    ex_send "$CONF" "$WH_URL/v1/wires" --user "$CRED" "$b"
    assert_eq '200 duplicate' "$WH_STATUS $(wh_json_code "$WH_BODY")" "cgi-app: the same notification again is a duplicate"
    ex_send "$CONF" "$WH_URL/v1/wires" --user "$CRED" --sample Complete --header "X-Signature: $BAD_SIG"
    assert_eq '401 signature_mismatch' "$WH_STATUS $(wh_json_code "$WH_BODY")" "cgi-app: a bad signature is refused"
    ex_send "$CONF" "$WH_URL/v1/wires" --user "$WH_USER:wrong" --sample Complete
    assert_eq '401 auth_failed' "$WH_STATUS $(wh_json_code "$WH_BODY")" "cgi-app: a wrong password is refused"
    assert_eq "$n" "$(spool_count "$SPOOL")" "cgi-app: nothing refused reached the app"
    wh_curl -X POST -H 'Content-Type: application/json' --data-binary @"$b" "$WH_URL/wirehook-php-cgi/php"
    assert_status 403 "cgi-app: php-cgi cannot be called directly"
    wh_curl "$WH_URL/cgi-bin/wirehook-no-such-program"
    assert_status 404 "cgi-app: Debian's /cgi-bin/ is not locked down (a missing program is 404, not 403)"

    if need php-cgi php-cgi; then
        p=$(wh_body Exception)
        pid=$(json_id "$p")
        ex_send "$CONF" "$WH_URL/v1/wires-php" --user "$CRED" "$p"
        assert_status 200 "cgi-app/php: signed notification accepted"
        assert_eq "{\"received\":\"$pid\",\"app\":\"php\"}" "$WH_BODY" "cgi-app/php: the PHP app answered"
        assert_true "cgi-app/php: the PHP app stored the exact body" cmp -s "$p" "$SPOOL/$pid.json"
        assert_contains "$(cat "$SPOOL/received.log" 2>/dev/null)" "$pid WP-2026-000481 Exception 1" "cgi-app/php: PHP saw WIREHOOK_* facts"
        n=$(spool_count "$SPOOL")
        ex_send "$CONF" "$WH_URL/v1/wires-php" --user "$CRED" --sample Complete --timestamp $(( $(date +%s) - 3600 ))
        assert_eq '401 timestamp_expired' "$WH_STATUS $(wh_json_code "$WH_BODY")" "cgi-app/php: an old timestamp is refused"
        ex_send "$CONF" "$WH_URL/v1/wires-php" --user "$CRED" "$p"
        assert_eq '200 duplicate' "$WH_STATUS $(wh_json_code "$WH_BODY")" "cgi-app/php: duplicate"
        assert_eq "$n" "$(spool_count "$SPOOL")" "cgi-app/php: nothing refused reached PHP"
    fi
else
    _wh_bad "cgi-app: httpd starts with the example"
fi

# ====================================== 2. tls-proxy (front + backend) ===
echo "-- tls-proxy"
E="$EX/tls-proxy"
TLS_PORT=$(wh_free_port); BACK_PORT=$(wh_free_port)
while [ "$BACK_PORT" = "$TLS_PORT" ]; do BACK_PORT=$(wh_free_port); done
mkdir -p "$R/etc/ssl/certs" "$R/etc/ssl/private"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=hooks.example.com \
    -addext "subjectAltName=DNS:hooks.example.com,IP:127.0.0.1" \
    -keyout "$R/etc/ssl/private/hooks.example.com.key" \
    -out "$R/etc/ssl/certs/hooks.example.com.pem" >/dev/null 2>&1
CERT="$R/etc/ssl/certs/hooks.example.com.pem"
assert_file_exists "$CERT" "tls-proxy: a test certificate for hooks.example.com"
# the Define'd addresses are the only lines changed besides paths
ex_put "$E/front.conf" /etc/apache2/sites-available/hooks-tls.conf
sed -i -e "s|^Define WIREHOOK_TLS_LISTEN .*|Define WIREHOOK_TLS_LISTEN 127.0.0.1:$TLS_PORT|" \
       -e "s|^Define WIREHOOK_BACKEND .*|Define WIREHOOK_BACKEND http://127.0.0.1:$BACK_PORT|" \
    "$R/etc/apache2/sites-available/hooks-tls.conf"
ex_put "$E/backend.conf" /etc/apache2/sites-available/hooks-backend.conf
sed -i -e "s|^Define WIREHOOK_BACKEND_LISTEN .*|Define WIREHOOK_BACKEND_LISTEN 127.0.0.1:$BACK_PORT|" \
    "$R/etc/apache2/sites-available/hooks-backend.conf"
assert_eq "> Define > Define" "$(diff "$E/front.conf" <(sed "s|$R||g" "$R/etc/apache2/sites-available/hooks-tls.conf") |
    grep '^>' | cut -d' ' -f1-2 | tr '\n' ' ' | sed 's/ $//')" "tls-proxy: only two Define lines of front.conf were changed"
ex_put "$E/wirehook.conf" /etc/wirehook/wirehook.conf      # replaces cgi-app's
CONF="$R/etc/wirehook/wirehook.conf"
SIGNED=$(sed -n 's/^SignedUrl[[:space:]]*//p' "$CONF")
assert_eq "https://hooks.example.com/v1/wires" "$SIGNED" "tls-proxy: the example signs the public URL"
out=$("$WIREHOOK" configtest "$CONF" 2>&1 | wh_no_notes)
assert_eq "Syntax OK" "$out" "tls-proxy: configtest passes"
# front.conf has no Listen: Debian's ports.conf gives it, here on the test port
if EX_PORTS="Listen 127.0.0.1:$TLS_PORT https" ex_start "ssl proxy proxy_http" \
        "$R/etc/apache2/sites-available/hooks-tls.conf" "$R/etc/apache2/sites-available/hooks-backend.conf"; then
    TLS_URL="https://127.0.0.1:$TLS_PORT/v1/wires"
    b=$(wh_body Complete)
    id=$(json_id "$b")
    n=$(spool_count "$SPOOL")
    # the bank signs the public URL and connects to the terminator
    WH_SIGN_URL=$SIGNED wh_post "$TLS_URL" "$b" --cacert "$CERT" -H "Host: hooks.example.com"
    assert_status 200 "tls-proxy: signed over TLS, verified behind the proxy"
    assert_eq "{\"received\":\"$id\",\"app\":\"cgi\"}" "$WH_BODY" "tls-proxy: the app behind the backend answered"
    assert_true "tls-proxy: the app got the exact body" cmp -s "$b" "$SPOOL/$id.json"
    WH_SIGN_URL=$SIGNED wh_post "$TLS_URL" "$b" --cacert "$CERT" -H "Host: hooks.example.com"
    assert_json_code duplicate "tls-proxy: replay through the proxy is a duplicate"
    # signed over the URL the backend sees: wrong, SignedUrl wins
    WH_SIGN_URL="http://hooks.example.com/v1/wires" wh_post "$TLS_URL" "$(wh_body Complete)" --cacert "$CERT" -H "Host: hooks.example.com"
    assert_json_code signature_mismatch "tls-proxy: a signature over another URL is refused"
    assert_eq "$((n + 1))" "$(spool_count "$SPOOL")" "tls-proxy: only the good one reached the app"
    # wirehook send signs SignedUrl from the config even when it talks to
    # the backend directly (how to test a backend without the proxy)
    ex_send "$CONF" "http://127.0.0.1:$BACK_PORT/v1/wires" --user "$CRED" --sample Complete
    assert_status 200 "tls-proxy: wirehook send signs SignedUrl from the config"
    # without SignedUrl the backend rebuilds http://hooks.example.com/...:
    # what the troubleshooting guide shows
    grep -v '^SignedUrl' "$CONF" >"$T/nosigned.conf"
    mv "$T/nosigned.conf" "$CONF"
    wh_httpd_restart
    : >"$T/logs/error.log"
    WH_SIGN_URL=$SIGNED wh_post "$TLS_URL" "$(wh_body Complete)" --cacert "$CERT" -H "Host: hooks.example.com"
    assert_json_code signature_mismatch "tls-proxy: without SignedUrl every signature fails"
    sleep 0.2
    assert_contains "$(wh_errlog)" "signed text was method=POST url=http://hooks.example.com/v1/wires " \
        "tls-proxy: LogLevel wirehook:debug shows the URL the backend used"
else
    _wh_bad "tls-proxy: httpd starts with front.conf and backend.conf"
fi

# ======================================================= 3. inbox ===
echo "-- inbox"
E="$EX/inbox"
ex_put "$E/apache.conf" /etc/apache2/conf-available/wirehook-inbox.conf
ex_put "$E/wirehook.conf" /etc/wirehook/wirehook.conf
CONF="$R/etc/wirehook/wirehook.conf"
# the inbox's own directory, as the README makes it
ex_writable "$R/var/lib/wirehook/inbox"
rm -f "$R/var/lib/wirehook/inbox/inbox.db"
out=$("$WIREHOOK" configtest "$CONF" 2>&1 | wh_no_notes)
assert_eq "Syntax OK" "$out" "inbox: configtest passes"
if ex_start "" "$R/etc/apache2/conf-available/wirehook-inbox.conf"; then
    U="$WH_URL/v1/wires"
    out=$("$WIREHOOK" send --config "$CONF" --url "$U" --user "$CRED" --sample Complete --count 3 2>&1)
    assert_eq 3 "$(grep -c '^200 {"status":"accepted"' <<<"$out")" "inbox: three notifications stored"
    b=$(wh_body Review)
    id=$(json_id "$b")
    ex_send "$CONF" "$U" --user "$CRED" "$b"
    assert_eq "200 accepted" "$WH_STATUS $(wh_json_code "$WH_BODY")" "inbox: a fourth one stored"
    ex_send "$CONF" "$U" --user "$CRED" "$b"
    assert_eq "200 duplicate" "$WH_STATUS $(wh_json_code "$WH_BODY")" "inbox: the same one again is a duplicate"
    ex_send "$CONF" "$U" --user "$CRED" --sample Complete --header "X-Signature: $BAD_SIG"
    assert_eq "401 signature_mismatch" "$WH_STATUS $(wh_json_code "$WH_BODY")" "inbox: a bad signature is not stored"
    bad=$(wh_body Complete)
    python3 - "$bad" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["data"]["wireEventInfo"]["originalWire"]["wireInfo"]["paymentAmount"] = ".50"
open(sys.argv[1], "w").write(json.dumps(d))
PY
    ex_send "$CONF" "$U" --user "$CRED" "$bad"
    assert_eq "400 schema_violation" "$WH_STATUS $(wh_json_code "$WH_BODY")" "inbox: an authentic but invalid body is refused"
    wh_curl -u "$CRED" "$U?offset=0&limit=3"
    assert_status 200 "inbox: GET lists"
    assert_eq "3 True 3" "$(wh_json_get "$WH_BODY" '"%d %s %s" % (len(d["events"]), d["pagination"]["moreRecords"], d["pagination"]["offset"])')" \
        "inbox: first page of 3, moreRecords, next offset 3"
    wh_curl -u "$CRED" "$U?offset=3&limit=3"
    assert_eq "1 False" "$(wh_json_get "$WH_BODY" '"%d %s" % (len(d["events"]), d["pagination"]["moreRecords"])')" \
        "inbox: last page of 1"
    wh_curl "$U"
    assert_status 401 "inbox: listing needs the Basic-auth user"
    out=$("$WIREHOOK" pull "$U" --user "$CRED" --limit 2 2>"$T/pull.err")
    assert_eq 0 $? "inbox: wirehook pull walks the inbox"
    assert_eq 4 "$(grep -c . <<<"$out")" "inbox: pull prints the 4 stored notifications"
    assert_contains "$(tail -n 1 <<<"$out")" "$id" "inbox: in arrival order, the last one last"
else
    _wh_bad "inbox: httpd starts with the example"
fi

# ============================================ 4. shared-hosting-cgi ===
# Its layout is suEXEC's (files owned by an account under /var/www and in
# its home directory): tests/integration/test_cgi_suexec.sh runs it as
# written, with an account of its own.
echo "-- shared-hosting-cgi: see test_cgi_suexec.sh"

# ============ 5. cluster: two servers, one PostgreSQL, two forwarders ===
echo "-- cluster"
E="$EX/cluster"
. "$WH_LIB_DIR/pg.sh"
ex_put "$E/apache.conf" /etc/apache2/conf-available/wirehook-cluster.conf
ex_put "$EX/cgi-app/receive.cgi" /var/www/wirehook/app/receive.cgi 755
B_DIR="$T/server-b"
mkdir -p "$B_DIR"
FPORT=$(wh_free_port)
# pair_send URL_A URL_B N OUT: N notifications, each sent to both servers
# at once (tests/integration/app/pair_sender.py); its exit status
pair_send() {
    python3 "$WH_APP_SRC/pair_sender.py" --urls "$1,$2" --secret-file "$R/etc/wirehook/secrets" \
        --user "$CRED" --sample "$WH_SAMPLE" --count "$3" --concurrency 4 --out "$4" --deadline 120 \
        >"$4.log" 2>&1
}
if pg_start; then
    ex_put "$E/wirehook.conf" /etc/wirehook/cluster.conf 640
    CONF="$R/etc/wirehook/cluster.conf"
    # the only lines changed: the database's conninfo and the application's URL
    sed -i -e "s|^InboxParams .*|InboxParams        \"$PG_CONNINFO\"|" \
           -e "s|^ForwardUrl .*|ForwardUrl         http://127.0.0.1:$FPORT/wires|" "$CONF"
    [ -n "$www" ] && chgrp "$www" "$CONF"
    openssl rand -hex 32 >"$R/etc/wirehook/forward.secret"
    chmod 600 "$R/etc/wirehook/forward.secret"
    [ -n "$www" ] && chown "$www" "$R/etc/wirehook/forward.secret"
    assert_eq "ReplayCache        pgsql" "$(grep '^ReplayCache' "$CONF")" "cluster: the replay store is the inbox's database"
    out=$("$WIREHOOK" configtest "$CONF" 2>&1 | wh_no_notes)
    assert_eq "Syntax OK" "$out" "cluster: configtest passes"
    bport=$(wh_free_port)
    while [ "$bport" = "$WH_PORT" ] || [ "$bport" = "$FPORT" ]; do bport=$(wh_free_port); done
    if ex_start "" "$R/etc/apache2/conf-available/wirehook-cluster.conf" &&
       ex_start_second "$B_DIR" "$bport" "" "$R/etc/apache2/conf-available/wirehook-cluster.conf"; then
        A="$WH_URL" B="http://127.0.0.1:$bport"
        n=$(spool_count "$SPOOL")
        # the inbox: every notification to both servers at once, stored once
        pair_send "$A/v1/wires" "$B/v1/wires" 20 "$T/cl-inbox"
        assert_eq 0 $? "cluster: 20 notifications to the inbox, each to A and B at once: every sender 200"
        assert_eq 20 "$(pg_sql 'SELECT count(*) FROM wh_events')" "cluster: each stored once in the shared inbox"
        # the application behind the module: one shared replay store
        pair_send "$A/v1/wires-app" "$B/v1/wires-app" 20 "$T/cl-app"
        assert_eq 0 $? "cluster: 20 notifications to the application, each to A and B at once: every sender 200"
        assert_eq $((n + 20)) "$(spool_count "$SPOOL")" "cluster: the application kept 20"
        assert_eq "" "$(cut -d' ' -f1 "$SPOOL/received.log" | sort | uniq -d)" "cluster: ... each exactly once"
        assert_contains "$(pg_sql "SELECT count(*) > 0 FROM wh_replay WHERE holder IS NULL")" t \
            "cluster: the replay store is the table wh_replay of the same database"
        # two forwarders on the one inbox: each event forwarded once
        FORWARD_SECRET_FILE="$R/etc/wirehook/forward.secret" FORWARD_URL="http://127.0.0.1:$FPORT/wires" \
            RECEIVER_DB="$T/cl-received.db" python3 "$EX/forward/receiver.py" >"$T/cl-receiver.log" 2>&1 &
        EX_PIDS+=("$(wh_pid_tag $!)")
        wh_wait_port "$FPORT" 5
        "$WIREHOOK" forward --config "$CONF" --drain >"$T/fwd1.out" 2>"$T/fwd1.err" &
        f1=$!
        "$WIREHOOK" forward --config "$CONF" --drain >"$T/fwd2.out" 2>"$T/fwd2.err" &
        f2=$!
        wait "$f1"; r1=$?; wait "$f2"; r2=$?
        assert_eq "0 0" "$r1 $r2" "cluster: two forwarders empty the shared inbox's queue"
        d1=$(grep -oE 'delivered=[0-9]+' "$T/fwd1.out" | tail -n 1 | cut -d= -f2)
        d2=$(grep -oE 'delivered=[0-9]+' "$T/fwd2.out" | tail -n 1 | cut -d= -f2)
        assert_eq 20 $(( ${d1:-0} + ${d2:-0} )) "cluster: between them, each of the 20 events forwarded once ($d1 + $d2)"
        assert_eq 20 "$(sqlite3 "$T/cl-received.db" 'SELECT count(*) FROM seen')" \
            "cluster: the application checked and kept 20"
        # a server lost: B goes on with what A accepted
        b=$(wh_body Complete); id=$(json_id "$b")
        ex_send "$CONF" "$A/v1/wires-app" --user "$CRED" "$b"
        assert_eq "200 {\"received\":\"$id\",\"app\":\"cgi\"}" "$WH_STATUS $WH_BODY" "cluster: server A delivers one more"
        apid=$(cat "$T/run/httpd.pid")
        kill -9 -- "-$apid" 2>/dev/null || kill -9 "$apid"
        rm -f "$T/run/httpd.pid"
        ex_send "$CONF" "$B/v1/wires-app" --user "$CRED" "$b"
        assert_eq "200 duplicate" "$WH_STATUS $(wh_json_code "$WH_BODY")" "cluster: A lost, B answers what A accepted as a duplicate"
        ex_send "$CONF" "$B/v1/wires" --user "$CRED" --sample Complete
        assert_eq "200 accepted" "$WH_STATUS $(wh_json_code "$WH_BODY")" "cluster: ... and stores in the shared inbox"
        ex_stop_second "$B_DIR"
    else
        _wh_bad "cluster: servers A and B start"
    fi
    pg_destroy
else
    _wh_bad "cluster: PostgreSQL starts"
fi

# The variants without PostgreSQL: the replay store in redis or memcached.
# This server still loads mod_socache_redis/memcache, as configurations
# written for wirehook's earlier versions did: they keep working, unused.
# cluster_run KIND PROVIDER-PORT-IN-EXAMPLE START-COMMAND...
cluster_run() {
    local kind=$1 example_port=$2 cport cpid b id y yid n bport; shift 2
    cport=$(wh_free_port)
    "$@" "$cport" >"$T/$kind.log" 2>&1 &
    cpid=$!
    EX_PIDS+=("$(wh_pid_tag "$cpid")")
    local i
    wh_wait_port "$cport" 5
    ex_put "$E/wirehook-$kind.conf" /etc/wirehook/wirehook.conf
    CONF="$R/etc/wirehook/wirehook.conf"
    sed -i "s|replay-store.example.com:$example_port|127.0.0.1:$cport|" "$CONF"
    assert_true "$kind: the example names a $kind ReplayCache" grep -q "^ReplayCache  *$kind:127.0.0.1:$cport\$" "$CONF"
    out=$("$WIREHOOK" configtest "$CONF" 2>&1 | wh_no_notes)
    assert_eq "Syntax OK" "$out" "$kind: configtest passes"
    # a new store: made usable before the first server uses it
    out=$("$WIREHOOK" replay init --config "$CONF" 2>&1)
    assert_contains "$out" "marked new" "$kind: wirehook replay init marks the new $kind new"
    sed -i "s|$R/etc/wirehook/cluster.conf|$R/etc/wirehook/wirehook.conf|" \
        "$R/etc/apache2/conf-available/wirehook-cluster.conf"
    bport=$(wh_free_port)
    while [ "$bport" = "$WH_PORT" ]; do bport=$(wh_free_port); done
    if ! ex_start "socache_$kind" "$R/etc/apache2/conf-available/wirehook-cluster.conf"; then
        _wh_bad "$kind: server A starts"; return
    fi
    if ! ex_start_second "$B_DIR" "$bport" "socache_$kind" "$R/etc/apache2/conf-available/wirehook-cluster.conf"; then
        _wh_bad "$kind: server B starts"; return
    fi
    assert_not_contains "$(cat "$T/logs/error.log" "$B_DIR/logs/error.log")" "WH00957" \
        "$kind: the initialised store is judged new: no 503 for what it cannot judge"
    A="$WH_URL/v1/wires-app" B="http://127.0.0.1:$bport/v1/wires-app"
    n=$(spool_count "$SPOOL")
    b=$(wh_body Complete); id=$(json_id "$b")
    ex_send "$CONF" "$A" --user "$CRED" "$b"
    assert_eq "200 {\"received\":\"$id\",\"app\":\"cgi\"}" "$WH_STATUS $WH_BODY" "$kind: server A accepts a notification"
    ex_send "$CONF" "$B" --user "$CRED" "$b"
    assert_eq "200 duplicate" "$WH_STATUS $(wh_json_code "$WH_BODY")" "$kind: server B answers it as a duplicate"
    y=$(wh_body Reject); yid=$(json_id "$y")
    ex_send "$CONF" "$B" --user "$CRED" "$y"
    assert_eq "200 {\"received\":\"$yid\",\"app\":\"cgi\"}" "$WH_STATUS $WH_BODY" "$kind: server B accepts another"
    ex_send "$CONF" "$A" --user "$CRED" "$y"
    assert_eq "200 duplicate" "$WH_STATUS $(wh_json_code "$WH_BODY")" "$kind: server A answers that one as a duplicate"
    assert_eq "$((n + 2))" "$(spool_count "$SPOOL")" "$kind: the app got each notification once"
    # the shared store goes away: no delivery without replay protection
    kill "$cpid" 2>/dev/null; wait "$cpid" 2>/dev/null
    ex_send "$CONF" "$A" --user "$CRED" --sample Complete
    assert_eq "503 replay_cache_unavailable" "$WH_STATUS $(wh_json_code "$WH_BODY")" "$kind: store down: 503, not delivered"
    assert_eq "$((n + 2))" "$(spool_count "$SPOOL")" "$kind: nothing delivered while the store is down"
    # ... and comes back empty (restarted, flushed): it remembers nothing,
    # so what it cannot judge is 503, the replay of y above included
    "$@" "$cport" >>"$T/$kind.log" 2>&1 &
    cpid=$!
    EX_PIDS+=("$(wh_pid_tag "$cpid")")
    wh_wait_port "$cport" 5
    for i in $(seq 1 40); do
        ex_send "$CONF" "$A" --user "$CRED" --sample Complete
        ex_send "$CONF" "$B" --user "$CRED" --sample Complete
        [ "$(cat "$T/logs/error.log" "$B_DIR/logs/error.log" | grep -c WH00957)" -ge 1 ] && break
        sleep 0.5
    done
    assert_contains "$(cat "$T/logs/error.log" "$B_DIR/logs/error.log")" "WH00957" "$kind: the emptied store is noticed (no epoch marker)"
    ex_send "$CONF" "$A" --user "$CRED" "$y"
    assert_eq "503 replay_cache_unavailable" "$WH_STATUS $(wh_json_code "$WH_BODY")" "$kind: store back empty: a copy through A is 503"
    ex_send "$CONF" "$B" --user "$CRED" "$y"
    assert_eq "503 replay_cache_unavailable" "$WH_STATUS $(wh_json_code "$WH_BODY")" "$kind: ... and through B"
    ex_send "$CONF" "$A" --user "$CRED" --sample Complete
    assert_eq "503 replay_cache_unavailable" "$WH_STATUS $(wh_json_code "$WH_BODY")" "$kind: store back empty: a fresh one is 503 too, for TimestampTolerance"
    assert_eq "$((n + 2))" "$(spool_count "$SPOOL")" "$kind: nothing delivered by an emptied store"
    ex_stop_second "$B_DIR"
    wh_httpd_stop
    sed -i "s|$R/etc/wirehook/wirehook.conf|$R/etc/wirehook/cluster.conf|" \
        "$R/etc/apache2/conf-available/wirehook-cluster.conf"
}
if need redis-server redis-server; then
    cluster_run redis 6379 redis-server --bind 127.0.0.1 --save "" --appendonly no --port
fi
if need memcached memcached; then
    mc=(memcached -l 127.0.0.1 -U 0 -m 16)
    [ "$(id -u)" -eq 0 ] && mc+=(-u nobody)
    cluster_run memcache 11211 "${mc[@]}" -p
fi

# ===================== 6. secrets hygiene: module startup = configtest ===
echo "-- secrets hygiene"
ex_put "$EX/cgi-app/wirehook.conf" /etc/wirehook/wirehook.conf
CONF="$R/etc/wirehook/wirehook.conf"
chmod 644 "$R/etc/wirehook/secrets"
chmod 666 "$R/etc/wirehook/htpasswd"
ct=$("$WIREHOOK" configtest "$CONF" 2>&1 | wh_no_notes)
assert_contains "$ct" "Syntax OK" "hygiene: configtest still passes"
W1="SigningSecretFile $R/etc/wirehook/secrets is readable by others (chmod o-rw)"
W2="BasicAuthFile $R/etc/wirehook/htpasswd is readable and writable by others (chmod o-rw)"
assert_contains "$ct" "warning: $W1" "hygiene: configtest warns about the secret file"
assert_contains "$ct" "$W2" "hygiene: configtest warns about the htpasswd file"
if ex_start "actions" "$R/etc/apache2/conf-available/wirehook-app.conf"; then
    log=$(wh_errlog)
    # the same sentences, in the error log at startup
    assert_contains "$log" "WirehookConfig $CONF: $W1" "hygiene: httpd logs the secret file warning at startup"
    assert_contains "$log" "$W2" "hygiene: httpd logs the htpasswd warning at startup"
assert_contains "$log" "[wirehook:warn]" "hygiene: logged as a warning"
    ex_send "$CONF" "$WH_URL/v1/wires" --user "$CRED" --sample Complete
    assert_status 200 "hygiene: a warning does not stop the service"
fi
chmod 640 "$R/etc/wirehook/secrets" "$R/etc/wirehook/htpasswd"
ct=$("$WIREHOOK" configtest "$CONF" 2>&1 | wh_no_notes)
assert_eq "Syntax OK" "$ct" "hygiene: mode 640: configtest has no warning"
if ex_start "actions" "$R/etc/apache2/conf-available/wirehook-app.conf"; then
    assert_not_contains "$(wh_errlog)" "by others" "hygiene: mode 640: no startup warning"
fi

wh_done
