#!/usr/bin/env bash
# wirehook.cgi under mod_cgid answers 413 body_too_large for a body of any
# size, also far past what it reads and drops after its answer (8 MiB):
# stdin and stdout are one socket there, and a process that exited with
# body left unread in it reset it, so httpd read ECONNRESET instead of the
# answer (curl: "Empty reply from server"). And an upload that never ends
# does not hold the CGI process: it is gone while the client still sends.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/inbox_lib.sh"
ib_cgi_install || exit 1
ib_cgi_location /cgi/inbox
wh_httpd_conf
wh_httpd_start || exit 1
C="$WH_URL/cgi/inbox"

# big MIB: a well-formed body of MIB MiB (a padded notification)
big() {
    python3 -c 'import sys; sys.stdout.write("{\"pad\":\"" + "x" * (int(sys.argv[1]) * 1048576) + "\"}")' "$1" \
        >"$T/big-$1.json"
}
for mib in 9 16 48; do
    big "$mib"
    for try in 1 2 3; do
        WH_CURL_TIMEOUT=120 wh_post "$C" "$T/big-$mib.json"
        assert_status 413 "$mib MiB (try $try): 413, never a reset connection"
        assert_json_code body_too_large "$mib MiB (try $try): body_too_large"
    done
done
WH_CURL_TIMEOUT=120 wh_post "$C" "$T/big-16.json" -H 'Transfer-Encoding: chunked'
assert_status 413 "16 MiB chunked (no Content-Length): 413"
assert_json_code body_too_large "16 MiB chunked: body_too_large"

# An upload that stalls after 12 MiB of a declared 1 GiB: the CGI answers,
# reads and drops its budget, stops reading and exits, while the client
# still holds the connection.
cat >"$T/stall.py" <<'EOF'
import base64, socket, sys, time
port, auth, hold = int(sys.argv[1]), sys.argv[2], sys.argv[3]
s = socket.create_connection(("127.0.0.1", port), timeout=60)
s.sendall(("POST /cgi/inbox HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Basic %s\r\n"
           "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
           % (port, base64.b64encode(auth.encode()).decode(), 1 << 30)).encode())
chunk = b"x" * 65536
sent = 0
s.settimeout(5)
try:
    while sent < 12 << 20:
        s.sendall(chunk)
        sent += len(chunk)
except OSError:
    pass
open(hold, "w").write("%d\n" % sent)
while True:                     # the test removes the file to end the hold
    try:
        open(hold).close()
    except OSError:
        break
    time.sleep(0.1)
s.close()
EOF
python3 "$T/stall.py" "$WH_PORT" "$WH_USER:$WH_PASSWD" "$T/holding" >"$T/stall.log" 2>&1 &
STALL=$!
wh_bg_add $STALL
for _ in $(seq 1 200); do [ -s "$T/holding" ] && break; sleep 0.1; done
assert_file_exists "$T/holding" "the stalled upload has sent its 12 MiB"
gone=""
for _ in $(seq 1 200); do
    pgrep -f "$T/cgi-bin/wirehook.cgi" >/dev/null || { gone=1; break; }
    sleep 0.1
done
assert_eq 1 "$gone" "no wirehook.cgi process waits for the rest of a stalled upload"
kill -0 "$STALL" 2>/dev/null && _wh_ok "... while the client still holds the connection" ||
    _wh_bad "... while the client still holds the connection" "the client was gone first"
rm -f "$T/holding"
wait "$STALL" 2>/dev/null
wh_post "$C" "$(wh_body Complete)"
assert_status 200 "the next notification is stored"
assert_not_contains "$(wh_errlog)" "Connection reset by peer" "httpd never read a reset from the script"
# for docs/reliability.md (bench/reliability.sh)
mkdir -p "$WH_BUILD/reliability" 2>/dev/null &&
    printf '%s: %d passed, %d failed\n' "$(basename "$0")" "$WH_PASS" "$WH_FAIL" \
        >"$WH_BUILD/reliability/$(basename "$0" .sh).last" 2>/dev/null
wh_done
