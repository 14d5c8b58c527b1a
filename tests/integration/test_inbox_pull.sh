#!/usr/bin/env bash
# `wirehook pull` against the CGI and the module's inbox, and against a
# scripted server on loopback for what a real one may do: fail for a
# while (5xx, 429 with Retry-After, refused connections), spell the
# pagination its own way, or never end.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/inbox_lib.sh"
ib_cgi_install
ib_cgi_location /cgi/inbox
wh_httpd_conf
wh_httpd_start || exit 1
C="$WH_URL/cgi/inbox"
M="$WH_URL/inbox"
PULL=("$WIREHOOK" pull)
ib_load_py   # the listing walker, as an independent reference

# ------------------------------------------------------ real endpoints ---
for s in Review "Send Ready" Complete Exception Reject Error Review Complete Complete Review Review Error; do
    wh_post "$C" "$(wh_body "$s")"
done
assert_json_code accepted "12 events stored"
for ep in "$C" "$M"; do
    "${PULL[@]}" "$ep" --user "$WH_USER:$WH_PASSWD" >"$T/all.ndjson" 2>"$T/err"
    assert_eq 0 $? "pull $ep: exit 0"
    assert_eq 12 "$(wc -l <"$T/all.ndjson")" "pull $ep: one line per record"
    "${PULL[@]}" "$ep" --user "$WH_USER:$WH_PASSWD" --limit 1 >"$T/l1.ndjson" 2>/dev/null
    "${PULL[@]}" "$ep" --user "$WH_USER:$WH_PASSWD" --limit 100 >"$T/l100.ndjson" 2>/dev/null
    assert_eq "$(sha256sum <"$T/l100.ndjson")" "$(sha256sum <"$T/l1.ndjson")" \
        "pull $ep: --limit 1 and --limit 100 print the same"
    assert_eq "$(sha256sum <"$T/all.ndjson")" "$(sha256sum <"$T/l1.ndjson")" \
        "pull $ep: the server's default page size too"
    python3 - "$T/all.ndjson" "$T" "$ep" "$WH_USER" "$WH_PASSWD" <<'PY' && _wh_ok "pull $ep: every line is the listed record, compact, in order" || _wh_bad "pull $ep: lines match the listing"
import json, sys
sys.path.insert(0, sys.argv[2])
import ib_load
events, _ = ib_load.walk(sys.argv[3], sys.argv[4], sys.argv[5], 5)
lines = open(sys.argv[1]).read().splitlines()
ok = len(lines) == len(events) and all(
    "\n" not in l and json.loads(l) == e for l, e in zip(lines, events))
sys.exit(0 if ok else 1)
PY
    "${PULL[@]}" "$ep" --user "$WH_USER:$WH_PASSWD" --since-offset 10 --limit 1 >"$T/tail.ndjson" 2>/dev/null
    assert_eq "$(tail -n 2 "$T/all.ndjson")" "$(cat "$T/tail.ndjson")" "pull $ep: --since-offset 10 prints the last two"
    "${PULL[@]}" "$ep" --user "$WH_USER:Zq9-notit" >"$T/out" 2>"$T/err"
    assert_eq 1 $? "pull $ep: wrong password exits 1"
    assert_contains "$(cat "$T/err")" "HTTP 401" "pull $ep: says why"
    assert_not_contains "$(cat "$T/err")" "Zq9-notit" "pull $ep: never prints the password"
    assert_eq 0 "$(wc -c <"$T/out")" "pull $ep: nothing on stdout on failure"
done
printf '%s:%s\n' "$WH_USER" "$WH_PASSWD" >"$T/cred"; chmod 600 "$T/cred"
"${PULL[@]}" "$C?status=Complete" --user-file "$T/cred" >"$T/f.ndjson" 2>/dev/null
assert_eq 3 "$(wc -l <"$T/f.ndjson")" "pull with a filter in the URL and --user-file"
"${PULL[@]}" "$C?offset=3" --user-file "$T/cred" >/dev/null 2>&1
assert_eq 2 $? "pull: offset in the URL is a usage error"
"${PULL[@]}" --help >"$T/help" 2>&1
assert_eq 0 $? "pull --help exits 0"
assert_contains "$(cat "$T/help")" "moreResults" "pull --help documents what it accepts"

# ---------------------------------------------------- scripted server ---
cat >"$T/fake.py" <<'PY'
import json, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs
hits = {}
RECS = [{"id": i, "note": "r%d" % i} for i in range(7)]
class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def send(self, code, obj=None, raw=None, headers=()):
        body = raw if raw is not None else json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
    def page(self, off, lim, name="events", more_key="moreRecords", numeric=False):
        recs = RECS[off:off + lim]
        nxt = off + len(recs)
        return {name: recs, "pagination": {"offset": nxt if numeric else str(nxt),
                                           more_key: nxt < len(RECS)}}
    def do_GET(self):
        u = urlsplit(self.path)
        q = parse_qs(u.query)
        off = int(q.get("offset", ["0"])[0]); lim = int(q.get("limit", ["3"])[0])
        n = hits[u.path] = hits.get(u.path, 0) + 1
        p = u.path
        if p == "/ok":
            self.send(200, self.page(off, lim))
        elif p == "/flaky":                 # 503, 502, then fine
            if n <= 2:
                self.send(503 if n == 1 else 502, {"error": {"code": "busy"}})
            else:
                self.send(200, self.page(off, lim))
        elif p == "/ratelimited":           # 429 + Retry-After on the first call
            if n == 1:
                self.send(429, {"error": {"code": "slow_down"}}, headers=[("Retry-After", "1")])
            else:
                self.send(200, self.page(off, lim))
        elif p == "/alt":                   # the sample's spelling, numbers, another name
            self.send(200, self.page(off, lim, name="transactions", more_key="moreResults", numeric=True))
        elif p == "/stuck":                 # records, more, but the offset never moves
            self.send(200, {"events": [RECS[0]], "pagination": {"offset": "0", "moreRecords": True}})
        elif p == "/endless":               # always one more page
            self.send(200, {"events": [{"n": off}], "pagination": {"offset": str(off + 1), "moreRecords": True}})
        elif p == "/gone":
            self.send(404, {"error": {"code": "not_found", "message": "no such list"}})
        elif p == "/down":
            self.send(500, {"error": {"code": "internal_error"}})
        elif p == "/notjson":
            self.send(200, raw=b"<html>oops</html>")
        elif p == "/nopagination":
            self.send(200, {"events": []})
        elif p == "/hits":
            self.send(200, hits)
        else:
            self.send(404, {})
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
FP=$(wh_free_port)
python3 "$T/fake.py" "$FP" >"$T/fake.log" 2>&1 &
wh_bg_add $!
wh_wait_port "$FP" 5
F="http://127.0.0.1:$FP"

"${PULL[@]}" "$F/ok" --limit 3 >"$T/ok" 2>"$T/err"
assert_eq "0 7" "$? $(wc -l <"$T/ok")" "fake /ok: 7 records over 3 pages"
assert_eq '{"id":0,"note":"r0"}' "$(head -n 1 "$T/ok")" "fake /ok: compact JSON lines"
"${PULL[@]}" "$F/flaky" --limit 3 --verbose >"$T/flaky" 2>"$T/err"
assert_eq "0 7" "$? $(wc -l <"$T/flaky")" "fake /flaky: 503 and 502 retried, then complete"
assert_contains "$(cat "$T/err")" "retrying" "fake /flaky: retries are reported with --verbose"
t0=$(date +%s%N)
"${PULL[@]}" "$F/ratelimited" --limit 3 >"$T/rl" 2>"$T/err"
rc=$?; ms=$(( ($(date +%s%N) - t0) / 1000000 ))
assert_eq "0 7" "$rc $(wc -l <"$T/rl")" "fake /ratelimited: 429 retried"
assert_true "fake /ratelimited: Retry-After 1 honoured (${ms} ms)" test "$ms" -ge 950
"${PULL[@]}" "$F/alt" --limit 3 >"$T/alt" 2>"$T/err"
assert_eq "0 7" "$? $(wc -l <"$T/alt")" "fake /alt: moreResults, numeric offset, records not named events"
"${PULL[@]}" "$F/stuck" --limit 3 >"$T/stuck" 2>"$T/err"
assert_eq 1 $? "fake /stuck: a non-advancing offset stops the walk (exit 1)"
assert_contains "$(cat "$T/err")" "does not advance" "fake /stuck: says why"
"${PULL[@]}" "$F/endless" --max-pages 5 >"$T/endless" 2>"$T/err"
assert_eq "1 5" "$? $(wc -l <"$T/endless")" "fake /endless: --max-pages 5 stops it after 5 pages"
assert_contains "$(cat "$T/err")" "max-pages" "fake /endless: says why"
"${PULL[@]}" "$F/gone" >"$T/gone" 2>"$T/err"
rc=$?
assert_eq 1 "$rc" "fake /gone: 404 exits 1"
assert_contains "$(cat "$T/err")" "not_found" "fake /gone: the server's error code is shown"
# counted by the server, not timed: a loaded machine must not decide it
assert_eq 1 "$(wh_json_get "$(curl -sS "$F/hits")" 'd.get("/gone", 0)')" \
    "fake /gone: no retries on a 4xx (asked once)"
"${PULL[@]}" "$F/down" --retries 3 >/dev/null 2>"$T/err"
assert_eq 1 $? "fake /down: gives up after the retries (exit 1)"
assert_contains "$(cat "$T/err")" "gave up after 3 attempts" "fake /down: says how often it tried"
"${PULL[@]}" "$F/notjson" >/dev/null 2>"$T/err"
assert_eq 1 $? "fake /notjson: exit 1"
"${PULL[@]}" "$F/nopagination" >/dev/null 2>"$T/err"
assert_eq 1 $? "fake /nopagination: exit 1"
assert_contains "$(cat "$T/err")" "pagination" "fake /nopagination: says what is missing"
CP=$(wh_free_port)
"${PULL[@]}" "http://127.0.0.1:$CP/x" --retries 2 >/dev/null 2>"$T/err"
assert_eq 1 $? "closed port: exit 1 after retrying"
assert_contains "$(cat "$T/err")" "gave up after 2 attempts" "closed port: retried"
"${PULL[@]}" "ftp://127.0.0.1/x" >/dev/null 2>&1
assert_eq 2 $? "pull: only http(s) URLs"
"${PULL[@]}" "http://u:topsecret@127.0.0.1:$FP/gone" >/dev/null 2>"$T/err"
assert_not_contains "$(cat "$T/err")" "topsecret" "pull: userinfo in the URL is never printed"

wh_done
