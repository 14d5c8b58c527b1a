#!/usr/bin/env bash
# A captured notification sent again within TimestampTolerance, its last
# body byte held back until the first copy's id has left the replay store,
# is never delivered a second time: freshness is judged when the body is
# complete, not when the request line came. With TimestampTolerance 3
# (ReplayWindow 6) and no body-read timeout in wirehook, each copy is
# delivered once: the module in front of an application (one call), the
# module's inbox and wirehook.cgi (one stored event); the held copy is
# answered 401 timestamp_expired. And a notification whose record in the
# replay store is made only after its tolerance (the store's lock held) is
# taken back and answered 503, then delivered once on the bank's retry.
# The holds are lower bounds (past the id's expiry), never timed
# assertions.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/inbox_lib.sh"

TOL=3
wh_write_config "$WH_CONF" "InboxParams $WH_INBOX_DB" "TimestampTolerance $TOL"
CGI_DB="$T/data/cgi.db"
CGI_CONF="$T/etc/cgi.conf"
wh_write_config "$CGI_CONF" "InboxParams $CGI_DB" "TimestampTolerance $TOL"
ib_cgi_install || exit 1
ib_cgi_location /cgi/inbox "SetEnv WIREHOOK_CONFIG $CGI_CONF"
wh_httpd_conf
wh_httpd_start || exit 1

# slow.py PORT PATH HEADERFILE BODYFILE UNTIL -> "STATUS BODY": sends the
# request without its last body byte, waits until the epoch second UNTIL,
# sends the byte and reads the answer (bounded by socket timeouts).
cat >"$T/slow.py" <<'EOF'
import socket, sys, time
port, path, hfile, bfile, until = sys.argv[1:6]
body = open(bfile, "rb").read()
# HTTP/1.0: the answer comes whole, never chunked
head = "POST %s HTTP/1.0\r\nHost: 127.0.0.1:%s\r\n" % (path, port)
head += open(hfile, newline="").read() + "Content-Length: %d\r\n\r\n" % len(body)
s = socket.create_connection(("127.0.0.1", int(port)), timeout=60)
s.sendall(head.encode() + body[:-1])
while time.time() < float(until):
    time.sleep(0.05)
s.sendall(body[-1:])
data = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
text = data.decode("utf-8", "replace")
status = text.split(" ", 2)[1] if text.startswith("HTTP/") else "000"
print(status, text.split("\r\n\r\n", 1)[-1].strip())
EOF

# send_twice NAME PATH: the copy at once (200), then the same signed
# request again with its last byte held past the first copy's expiry, in
# the background; its answer lands in $T/NAME.slow
send_twice() {
    local name=$1 path=$2 ts sig url="$WH_URL$2" until
    wh_body Complete "" "$T/$name.json" >/dev/null
    printf -v ts '%(%s)T' -1
    sig=$(wh_sign "$WH_SECRETS" POST "$url" "$T/$name.json" "$ts")
    WH_TS=$ts WH_SIG=$sig wh_post "$url" "$T/$name.json"
    assert_status 200 "$name: the first copy is accepted"
    # (the application's own answer, or the inbox's)
    [ "$name" = app ] || assert_json_code accepted "$name: the first copy is stored"
    {
        printf 'Authorization: Basic %s\r\n' "$(printf '%s' "$WH_USER:$WH_PASSWD" | base64 -w0)"
        printf 'Content-Type: application/json\r\n%s: %s\r\n%s: %s\r\n' \
            "$WH_TS_HEADER" "$ts" "$WH_SIG_HEADER" "$sig"
    } >"$T/$name.head"
    # past the window the first copy's id is kept for (recorded no
    # earlier than ts, kept 2 x TOL), with a second to spare
    until=$((ts + 2 * TOL + 2))
    python3 "$T/slow.py" "$WH_PORT" "$path" "$T/$name.head" "$T/$name.json" "$until" \
        >"$T/$name.slow" 2>&1 &
    eval "PID_$name=\$!"
}

# hold.py STORE UNTIL READY: holds the lmdb replay store's writer lock
# (an open write transaction, through liblmdb) until the epoch second
# UNTIL, as a worker held up between its body and its store would be
cat >"$T/hold.py" <<'EOF'
import ctypes, sys, time
store, until, ready = sys.argv[1], float(sys.argv[2]), sys.argv[3]
lib = ctypes.CDLL("liblmdb.so.0")
env, txn = ctypes.c_void_p(), ctypes.c_void_p()
MDB_NOSUBDIR = 0x4000
assert lib.mdb_env_create(ctypes.byref(env)) == 0
assert lib.mdb_env_open(env, store.encode(), MDB_NOSUBDIR, 0o600) == 0
assert lib.mdb_txn_begin(env, None, 0, ctypes.byref(txn)) == 0
open(ready, "w").close()
while time.time() < until:
    time.sleep(0.05)
lib.mdb_txn_abort(txn)
lib.mdb_env_close(env)
EOF

send_twice app /v1/wires
send_twice inbox /inbox
send_twice cgi /cgi/inbox

# The second line: a notification whose body came at once, judged fresh,
# but whose record in the replay store could only be made after its
# timestamp's tolerance (the store's writer lock held meanwhile): the
# record proves nothing then (a copy's record may just have lapsed), so
# it is taken back and answered 503; the bank's retry is delivered.
wh_body Complete "" "$T/held.json" >/dev/null
printf -v ts '%(%s)T' -1
python3 "$T/hold.py" "$T/run/wirehook-replay.mdb" $((ts + TOL + 2)) "$T/held.ready" \
    >"$T/hold.log" 2>&1 &
PID_hold=$!
for _ in $(seq 1 100); do [ -e "$T/held.ready" ] && break; sleep 0.1; done
assert_file_exists "$T/held.ready" "held: the store's writer lock is taken"
WH_TS=$ts WH_CURL_TIMEOUT=60 wh_post "$WH_URL/v1/wires" "$T/held.json"
held_status=$WH_STATUS held_body=$WH_BODY
wait "$PID_hold" "$PID_app" "$PID_inbox" "$PID_cgi"
assert_eq 503 "$held_status" "held: recorded past its timestamp's tolerance: refused ($held_body)"
WH_BODY=$held_body
assert_json_code replay_cache_unavailable "held: ... as replay_cache_unavailable (retryable)"
assert_contains "$(wh_errlog)" "WH00991" "held: ... and logged"
wh_post "$WH_URL/v1/wires" "$T/held.json"
assert_status 200 "held: its record was taken back: the bank's fresh retry is delivered"
assert_contains "$WH_BODY" '"app":"received"' "held: ... by the application, not as a duplicate"

for name in app inbox cgi; do
    read -r got rest <"$T/$name.slow"
    WH_BODY=$rest
    assert_eq 401 "$got" "$name: the copy whose body completed past the window is refused ($rest)"
    assert_json_code timestamp_expired "$name: ... as timestamp_expired"
done
# calls_for FILE -> how many times the application received its notification
calls_for() {
    local id d n=0
    id=$(wh_body_id "$1")
    for d in "$T/app/calls"/*; do grep -qs "$id" "$d/body" && n=$((n + 1)); done
    echo "$n"
}
assert_eq 1 "$(calls_for "$T/app.json")" "app: the application received the notification once"
assert_eq 1 "$(calls_for "$T/held.json")" "held: the application received the retry only"
assert_eq 2 "$(wh_app_calls)" "the application received nothing else"
assert_eq 1 "$(sqlite3 "$WH_INBOX_DB" "SELECT count(*) FROM wh_events WHERE notification_id = '$(wh_body_id "$T/inbox.json")'")" \
    "inbox: stored once"
assert_eq 1 "$(sqlite3 "$CGI_DB" "SELECT count(*) FROM wh_events WHERE notification_id = '$(wh_body_id "$T/cgi.json")'")" \
    "cgi: stored once"
assert_not_contains "$(wh_errlog)" "exit signal" "no child died"
# for docs/reliability.md (bench/reliability.sh)
mkdir -p "$WH_BUILD/reliability" 2>/dev/null &&
    printf '%s: %d passed, %d failed\n' "$(basename "$0")" "$WH_PASS" "$WH_FAIL" \
        >"$WH_BUILD/reliability/$(basename "$0" .sh).last" 2>/dev/null
wh_done
