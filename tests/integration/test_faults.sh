#!/usr/bin/env bash
# wh-serial: kill -9 and slow clients race the clock (reqtimeout, retries)
# Fault and abuse tests (make check; WH_SOAK=1 for the longer `make soak`):
#   1. ~60 malformed requests (truncated bodies, Content-Length lies, chunked
#      bodies over the limit, header injection, duplicate headers, 10k-char
#      header values, NUL bytes, invalid UTF-8, deep nesting, huge numbers),
#      against the module's inbox (SetHandler wirehook) and wirehook.cgi:
#      each gets its documented status, the module's JSON error code where
#      the request reached wirehook (httpd's own answer, "-", for requests
#      httpd refuses before any module runs), and the server answers the
#      next valid notification with 200.
#   2. slow clients (one byte a second, in the headers or in the body) are
#      cut off by mod_reqtimeout while other requests are served.
#   3. kill -9 of the whole httpd during a signed load (writers retry what
#      got no answer, as a sender does): every notification answered 200 is
#      in the inbox after the restart (events lost = 0).
# Figures go to $BUILD/reliability/faults.kv for docs/reliability.md.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/inbox_lib.sh"

SOAK=${WH_SOAK:-}
CASE_ROUNDS=1; SLOW_CLIENTS=2; CRASH_ROUNDS=1; CRASH_EVENTS=200
if [ -n "$SOAK" ]; then CASE_ROUNDS=5; SLOW_CLIENTS=8; CRASH_ROUNDS=5; CRASH_EVENTS=150; fi
FIG="$WH_BUILD/reliability"
mkdir -p "$FIG" 2>/dev/null
KV="$T/faults.kv"
: >"$KV"
fig() { printf '%s %s\n' "$1" "$2" >>"$KV"; }

WH_INBOX_DB="$T/data/inbox.db"
wh_write_config "$WH_CONF" "InboxParams $WH_INBOX_DB"
HAVE_CGI=""
if [ -x "$WH_BUILD/wirehook.cgi" ]; then
    ib_cgi_install && ib_cgi_location /cgi/inbox && HAVE_CGI=1
else
    _wh_bad "the CGI is built" "no $WH_BUILD/wirehook.cgi (make first)"
fi
# short read timeouts so slow clients are cut off within seconds
WH_EXTRA_MODULES="reqtimeout ${WH_EXTRA_MODULES:-}" wh_httpd_conf
wh_httpd_extra "RequestReadTimeout handshake=0 header=3-6,MinRate=500 body=3,MinRate=100"
wh_httpd_start || exit 1
parent=$(cat "$T/run/httpd.pid")

cat >"$T/faults.py" <<'PYEOF'
#!/usr/bin/env python3
"""Raw-socket fault and abuse driver for tests/integration/test_faults.sh.

  faults.py cases  PORT SECRET USER PASSWORD PATH   -> one TSV line per case
  faults.py slow   PORT SECRET USER PASSWORD PATH WHAT SECONDS
                                                   -> "closed_after=S got=..."

`cases` sends each malformed request on its own connection (127.0.0.1
only), reads the answer, then sends one valid signed notification on a
fresh connection to show the server still serves. Output columns:
    name  expected-status  expected-code  got-status  got-code  next-status
(code "-" means the answer is httpd's own, not the module's JSON; "json"
means any JSON error body). Everything is bounded: socket timeouts, a
fixed case list, at most SECONDS of slow sending.
"""
import base64
import hashlib
import hmac
import json
import socket
import sys
import time
import uuid

TIMEOUT = 10


class Ctx:
    def __init__(self, port, secret, user, password, path):
        self.port = int(port)
        self.secret = secret.encode()
        self.auth = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
        self.host = "127.0.0.1:%d" % self.port
        self.path = path
        self.url = "http://%s%s" % (self.host, path)
        sample = json.load(open(SAMPLE))
        self.sample = sample

    def body(self, **over):
        d = json.loads(json.dumps(self.sample))
        d["notificationId"] = str(uuid.uuid4())
        d["eventDateTime"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        d.update(over)
        return json.dumps(d, indent=2).encode()

    def sign(self, body, ts, method=b"POST", url=None):
        u = (url or self.url).encode()
        return hmac.new(self.secret, method + u + body + ts, hashlib.sha256).hexdigest().encode()

    def request(self, body, method=b"POST", headers=None, drop=(), extra=(), sign_body=None,
                cl=None, path=None, ts=None, sig=None):
        """Raw bytes of a request; headers are (name, value) byte pairs."""
        ts = ts if ts is not None else str(int(time.time())).encode()
        p = (path or self.path).encode()
        if sig is None:
            sig = self.sign(body if sign_body is None else sign_body, ts, method,
                            "http://%s%s" % (self.host, p.decode("latin-1")))
        h = [(b"Host", self.host.encode()),
             (b"Authorization", self.auth.encode()),
             (b"Content-Type", b"application/json"),
             (b"Content-Length", str(len(body)).encode() if cl is None else cl),
             (b"X-Timestamp", ts),
             (b"X-Signature", sig)]
        h = [(k, v) for k, v in h if k not in drop]
        h += list(headers or [])
        # one request per connection: the answer ends when the server closes
        h.append((b"Connection", b"close"))
        lines = [method + b" " + p + b" HTTP/1.1"]
        lines += [k + b": " + v for k, v in h]
        return b"\r\n".join(lines) + b"\r\n" + b"".join(extra) + b"\r\n" + body


def exchange(ctx, raw, half_close=False, chunks=None):
    """Sends raw (or chunks), returns (status, code) of the first answer."""
    s = socket.create_connection(("127.0.0.1", ctx.port), timeout=TIMEOUT)
    try:
        try:
            if chunks:
                for c in chunks:
                    s.sendall(c)
            else:
                s.sendall(raw)
            if half_close:
                s.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the server may close while we still send: read what it said
        data = b""
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            try:
                got = s.recv(65536)
            except socket.timeout:
                break
            except OSError:
                break
            if not got:
                break
            data += got
            if response_complete(data):
                break
    finally:
        s.close()
    return parse(data)


def response_complete(data):
    head, sep, rest = data.partition(b"\r\n\r\n")
    if not sep:
        return False
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            try:
                return len(rest) >= int(v.strip())
            except ValueError:
                return False
    return False


def dechunk(rest):
    out = b""
    while rest:
        size, _, rest = rest.partition(b"\r\n")
        try:
            n = int(size.split(b";")[0], 16)
        except ValueError:
            break
        if n == 0:
            break
        out += rest[:n]
        rest = rest[n + 2:]
    return out


def parse(data):
    if not data.startswith(b"HTTP/"):
        return ("000", "-")
    head, _, rest = data.partition(b"\r\n\r\n")
    status = head.split(b" ", 2)[1].decode()
    ctype = b""
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-type":
            ctype = v.strip().lower()
        if k.strip().lower() == b"transfer-encoding" and b"chunked" in v.lower():
            rest = dechunk(rest)
    code = "-"
    if ctype.startswith(b"application/json"):
        try:
            d = json.loads(rest.decode("utf-8"))
            code = d["error"]["code"] if "error" in d else d.get("status", "json")
        except (ValueError, KeyError, TypeError):
            code = "bad-json"
    return (status, code)


def chunked(body, size=512):
    out = b""
    for i in range(0, len(body), size):
        part = body[i:i + size]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


def cases(ctx):
    """(name, expected status, expected code, send-function)"""
    C = []

    def add(name, status, code, fn):
        C.append((name, status, code, fn))

    def signed(body, **kw):
        return lambda: exchange(ctx, ctx.request(body, **kw))

    good = ctx.body()
    # -- truncated bodies and Content-Length lies
    add("truncated JSON body (signed)", "400", "invalid_json", signed(good[:len(good) // 2]))
    u = good.replace(b"Oakland", b"Oakland\xc3\xa9")
    add("body cut inside a UTF-8 sequence", "400", "invalid_json", signed(u[:u.index(b"\xc3\xa9") + 1]))
    add("Content-Length larger than the body, client half-closes", "400", "-",
        lambda: exchange(ctx, ctx.request(good, cl=str(len(good) + 100).encode()), half_close=True))
    add("Content-Length smaller than the body", "401", "signature_mismatch",
        signed(good, cl=str(len(good) - 10).encode()))
    add("Content-Length not a number", "400", "-", signed(good, cl=b"12abc"))
    add("Content-Length negative", "400", "-", signed(good, cl=b"-1"))
    add("two different Content-Length headers", "400", "-",
        signed(good, headers=[(b"Content-Length", b"7")]))
    add("Content-Length over MaxBodySize", "413", "body_too_large",
        signed(b"{" + b" " * 70000 + b"}"))
    # -- chunked
    big = b'{"pad":"' + b"x" * 70000 + b'"}'
    add("chunked body over MaxBodySize", "413", "body_too_large",
        lambda: exchange(ctx, ctx.request(chunked(big), drop=(b"Content-Length",),
                                          headers=[(b"Transfer-Encoding", b"chunked")], sign_body=big)))
    add("chunked body, invalid chunk size", "400", "-",
        lambda: exchange(ctx, ctx.request(b"zz\r\nabc\r\n0\r\n\r\n", drop=(b"Content-Length",),
                                          headers=[(b"Transfer-Encoding", b"chunked")], sign_body=good)))
    add("chunked body cut before the last chunk", "400", "-",
        lambda: exchange(ctx, ctx.request(chunked(good)[:-7], drop=(b"Content-Length",),
                                          headers=[(b"Transfer-Encoding", b"chunked")], sign_body=good),
                         half_close=True))
    add("chunked body with an oversized chunk extension", "413", "-",
        lambda: exchange(ctx, ctx.request(b"5;" + b"e" * 20000 + b"\r\nhello\r\n0\r\n\r\n",
                                          drop=(b"Content-Length",),
                                          headers=[(b"Transfer-Encoding", b"chunked")], sign_body=b"hello")))
    add("Transfer-Encoding other than chunked", "400", "-",
        signed(good, drop=(b"Content-Length",), headers=[(b"Transfer-Encoding", b"gzip")]))
    # -- header injection and malformed header lines
    add("bare CR inside a header value", "400", "-",
        signed(good, headers=[(b"X-Note", b"a\rX-Injected: 1")]))
    add("bare LF inside a header value (injected header)", "400", "-",
        signed(good, headers=[(b"X-Note", b"a\nX-Signature: " + b"0" * 64)]))
    # httpd unfolds obs-fold into one value: harmless in another header,
    # and a folded signature becomes "half half", which is malformed
    add("obsolete line folding in an unrelated header", "200", "accepted",
        signed(ctx.body(), headers=[(b"X-Note", b"a\r\n  folded")]))
    fb = ctx.body()
    fts = str(int(time.time())).encode()
    fsig = ctx.sign(fb, fts)
    add("signature folded over two lines", "401", "signature_malformed",
        signed(fb, ts=fts, sig=fsig[:32] + b"\r\n " + fsig[32:]))
    add("header name with a space", "400", "-", signed(good, headers=[(b"Bad Name", b"x")]))
    add("NUL byte in a header value", "400", "-", signed(good, headers=[(b"X-Note", b"a\x00b")]))
    add("NUL byte in the signature header", "400", "-", signed(good, sig=b"0" * 30 + b"\x00" + b"0" * 33))
    add("request line garbage", "400", "-", lambda: exchange(ctx, b"\x16\x03\x01\x02\x00GARBAGE\r\n\r\n"))
    # HTTP/0.9 has no status line: whatever httpd answers, it must not hang
    add("HTTP/0.9 request line", "000", "-", lambda: exchange(ctx, b"GET /\r\n\r\n"))
    add("10,000-character URL", "414", "-", signed(good, path=ctx.path + "?" + "a" * 10000))
    add("101 header fields", "400", "-",
        signed(good, headers=[(b"X-H%d" % i, b"v") for i in range(101)]))
    # -- duplicate headers
    add("duplicate X-Signature", "401", "signature_malformed",
        signed(good, headers=[(b"X-Signature", b"0" * 64)]))
    add("duplicate X-Timestamp", "401", "timestamp_malformed",
        signed(good, headers=[(b"X-Timestamp", str(int(time.time())).encode())]))
    add("duplicate Authorization", "401", "auth_required",
        signed(good, headers=[(b"Authorization", ctx.auth.encode())]))
    add("duplicate Content-Type", "415", "unsupported_media_type",
        signed(good, headers=[(b"Content-Type", b"application/json")]))
    # -- very long header values
    add("10,000-character header value", "400", "-", signed(good, headers=[(b"X-Note", b"a" * 10000)]))
    add("8,000-character signature", "401", "signature_malformed", signed(good, sig=b"a" * 8000))
    add("8,000-digit timestamp", "401", "timestamp_malformed", signed(good, ts=b"1" * 8000))
    add("8,000-character Authorization", "401", "auth_required",
        signed(good, headers=[(b"Authorization", b"Basic " + b"QUFB" * 1998)], drop=(b"Authorization",)))
    # -- header values the core must refuse
    add("signature of 63 hex digits", "401", "signature_malformed", signed(good, sig=b"a" * 63))
    add("timestamp with a sign", "401", "timestamp_malformed", signed(good, ts=b"+" + str(int(time.time())).encode()))
    add("timestamp of 19 digits", "401", "timestamp_malformed", signed(good, ts=b"9" * 19))
    add("Basic credentials with a NUL byte", "401", "auth_required",
        signed(good, drop=(b"Authorization",),
               headers=[(b"Authorization", b"Basic " + base64.b64encode(b"bank\x00:x"))]))
    add("Basic credentials without a colon", "401", "auth_required",
        signed(good, drop=(b"Authorization",),
               headers=[(b"Authorization", b"Basic " + base64.b64encode(b"banknocolon"))]))
    add("charset other than UTF-8", "415", "unsupported_media_type",
        signed(good, drop=(b"Content-Type",), headers=[(b"Content-Type", b"application/json; charset=latin1")]))
    add("Content-Encoding gzip", "415", "unsupported_media_type",
        signed(ctx.body(), headers=[(b"Content-Encoding", b"gzip")]))
    add("unknown method", "405", "method_not_allowed", signed(good, method=b"FROB"))
    # -- bodies: NUL, UTF-8, nesting, numbers, grammar
    add("NUL byte in the body", "400", "invalid_json", signed(good.replace(b"Complete", b"Comp\x00ete")))
    for name, bad in [("overlong UTF-8", b"\xc0\xaf"), ("UTF-16 surrogate in UTF-8", b"\xed\xa0\x80"),
                      ("lone continuation byte", b"\x80"), ("byte 0xFF", b"\xff"),
                      ("code point above U+10FFFF", b"\xf4\x90\x80\x80")]:
        add("invalid UTF-8: " + name, "400", "invalid_json", signed(good.replace(b"Oakland", b"Oak" + bad)))
    add("byte order mark", "400", "invalid_json", signed(b"\xef\xbb\xbf" + good))
    add("nesting 33 deep", "400", "invalid_json", signed(b"[" * 33 + b"]" * 33))
    add("nesting 100,000 deep (over the limit)", "413", "body_too_large", signed(b"[" * 100000))
    add("nesting 30,000 deep", "400", "invalid_json", signed(b"[" * 30000 + b"]" * 30000))
    add("huge number in an unknown member", "200", "accepted",
        signed(ctx.body().replace(b"{", b'{"big": 1' + b"9" * 5000 + b"e99999,", 1)))
    nid = json.loads(good)["notificationId"].encode()
    add("huge number as the notificationId", "400", "schema_violation",
        signed(good.replace(b'"' + nid + b'"', b"1" + b"0" * 400)))
    add("NaN literal", "400", "invalid_json", signed(good.replace(b"{", b'{"x": NaN,', 1)))
    add("\\u0000 escape", "400", "invalid_json", signed(good.replace(b"Oakland", b"Oak\\u0000land")))
    add("raw control character in a string", "400", "invalid_json", signed(good.replace(b"Oakland", b"Oak\x01land")))
    add("duplicate member name", "400", "invalid_json",
        signed(good.replace(b"{", b'{"eventType": "x",', 1)))
    add("trailing bytes after the JSON", "400", "invalid_json", signed(good + b"{}"))
    add("empty body", "400", "invalid_json", signed(b""))
    add("a JSON array instead of an object", "400", "schema_violation", signed(b"[]"))
    return C


def run_cases(ctx):
    out = []
    for name, status, code, fn in cases(ctx):
        t0 = time.time()
        try:
            got_status, got_code = fn()
        except OSError as e:
            got_status, got_code = "000", "error:" + e.__class__.__name__
        try:
            nxt, _ = exchange(ctx, ctx.request(ctx.body()))
        except OSError:
            nxt = "000"
        out.append("\t".join([name, status, code, got_status, got_code, nxt,
                               "%.0f" % ((time.time() - t0) * 1000)]))
        print(out[-1], flush=True)


def slow(ctx, what, seconds):
    """Sends a valid request one byte a second (headers or body); reports
    when the server closed the connection and what it answered."""
    seconds = min(int(seconds), 60)
    body = ctx.body()
    raw = ctx.request(body)
    head_len = raw.index(b"\r\n\r\n") + 4
    s = socket.create_connection(("127.0.0.1", ctx.port), timeout=2)
    t0 = time.time()
    if what == "body":
        s.sendall(raw[:head_len])
        rest = raw[head_len:]
    else:
        rest = raw
    got = b""
    closed = None
    for i in range(min(len(rest), seconds)):
        try:
            s.sendall(rest[i:i + 1])
        except OSError:
            closed = time.time() - t0
            break
        try:
            s.settimeout(1.0)
            data = s.recv(4096)
            if not data:
                closed = time.time() - t0
                break
            got += data
        except socket.timeout:
            pass
        except OSError:
            closed = time.time() - t0
            break
    if closed is None:
        # give the server one more second to answer what it already has
        try:
            s.settimeout(1.0)
            while True:
                data = s.recv(4096)
                if not data:
                    closed = time.time() - t0
                    break
                got += data
        except OSError:
            pass
    s.close()
    status, _ = parse(got)
    print("closed_after=%s status=%s" % ("%.1f" % closed if closed is not None else "never", status))


def load(ctx, writers, events, logdir, budget):
    """writers threads, each sending `events` fresh notifications one at a
    time. A request that gets no answer (httpd killed or restarting) is
    retried with the same id and body, fresh timestamp and signature, every
    50 ms for at most `budget` seconds, as a sender retries. Each answer is
    logged as "id status code"; a request given up on as "id 000 gave_up"."""
    import threading

    def writer(w):
        with open("%s/w%d.log" % (logdir, w), "w", buffering=1) as log:
            for _ in range(events):
                body = ctx.body()
                nid = json.loads(body)["notificationId"]
                deadline = time.time() + budget
                while True:
                    try:
                        st, code = exchange(ctx, ctx.request(body))
                    except OSError:
                        st, code = "000", "-"
                    if st != "000":
                        log.write("%s %s %s\n" % (nid, st, code))
                        break
                    log.write("%s 000 no_answer\n" % nid)
                    if time.time() > deadline:
                        break
                    time.sleep(0.05)

    ts = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def check(logdir, db):
    """every id answered 200 must be a stored event"""
    import os
    import sqlite3
    acked, refused = set(), 0
    for f in os.listdir(logdir):
        for line in open(os.path.join(logdir, f)):
            parts = line.split()
            if len(parts) != 3:
                continue
            if parts[1] == "200":
                acked.add(parts[0])
            elif parts[1] == "000":
                refused += 1
    con = sqlite3.connect(db, timeout=10)
    stored = {r[0] for r in con.execute("SELECT notification_id FROM wh_events")}
    con.close()
    lost = sorted(acked - stored)
    print("acked=%d refused=%d lost=%d%s" % (len(acked), refused, len(lost),
                                              (" first_lost=" + lost[0]) if lost else ""))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "check":
        check(sys.argv[2], sys.argv[3])
        sys.exit(0)
    SAMPLE = sys.argv[2]
    ctx = Ctx(*sys.argv[3:8])
    if mode == "cases":
        run_cases(ctx)
    elif mode == "slow":
        slow(ctx, sys.argv[8], sys.argv[9])
    elif mode == "load":
        load(ctx, int(sys.argv[8]), int(sys.argv[9]), sys.argv[10], float(sys.argv[11]))
    else:
        raise SystemExit("usage: faults.py cases|slow|load SAMPLE PORT SECRET USER PASSWORD PATH ... | check LOGDIR DB")
PYEOF

faults() { python3 "$T/faults.py" "$1" "$WH_SAMPLE_SRC" "$WH_PORT" "$WH_SECRET" "$WH_USER" "$WH_PASSWD" "${@:2}"; }

# ------------------------------------------------------ 1. malformed ---
# run_cases PATH LABEL CGI: asserts every line of `faults.py cases`
run_cases() {
    local path=$1 label=$2 cgi=$3 name es ec gs gc next n=0
    faults cases "$path" >"$T/cases.out" 2>"$T/cases.err"
    assert_eq 0 "$?" "$label: the case driver ran"
    while IFS=$'\t' read -r name es ec gs gc next _; do
        n=$((n + 1))
        # mod_cgid resets the connection when a CGI stops reading a body it
        # refused (httpd's behaviour, see test_module.sh): the 413 may be lost
        if [ -n "$cgi" ] && [ "$es" = 413 ] && [ "$gs" = 000 ]; then gs=413; gc=$ec; fi
        assert_eq "$es $ec" "$gs $gc" "$label: $name"
        assert_eq 200 "$next" "$label: next request served after: $name"
    done <"$T/cases.out"
    CASES=$((CASES + n))
}
CASES=0
for r in $(seq 1 "$CASE_ROUNDS"); do
    run_cases /inbox module ""
    [ -n "$HAVE_CGI" ] && run_cases /cgi/inbox cgi 1
done
assert_true "at least 50 malformed requests per endpoint" test "$CASES" -ge 50
fig malformed_requests "$CASES"
assert_eq "$parent" "$(cat "$T/run/httpd.pid")" "httpd parent unchanged after the malformed requests"
assert_not_contains "$(wh_errlog)" "exit signal" "no httpd child died (segfault, abort)"

# ------------------------------------------------------ 2. slow clients ---
# Each client would need 40 s to send its 40 bytes; reqtimeout must cut it
# off long before. Meanwhile valid notifications are answered.
pids=()
for i in $(seq 1 "$SLOW_CLIENTS"); do
    what=body; [ $((i % 2)) -eq 0 ] && what=headers
    faults slow /inbox "$what" 40 >"$T/slow.$i" 2>&1 &
    pids+=($!)
done
sleep 1
served=0
for i in 1 2 3 4 5; do
    wh_post "$WH_URL/inbox" "$(wh_body Complete)"
    [ "$WH_STATUS" = 200 ] && served=$((served + 1))
done
assert_eq 5 "$served" "valid notifications served while $SLOW_CLIENTS slow clients hold connections"
for p in "${pids[@]}"; do wait "$p"; done
cut=0
for i in $(seq 1 "$SLOW_CLIENTS"); do
    out=$(cat "$T/slow.$i")
    assert_not_contains "$out" "closed_after=never" "slow client $i was cut off by the server ($out)"
    case "$out" in *closed_after=never*) ;; *) cut=$((cut + 1)) ;; esac
    case $((i % 2)) in
        1) assert_contains "$out" "status=408" "slow body $i answered 408 Request Timeout" ;;
    esac
done
fig slow_clients "$SLOW_CLIENTS"
fig slow_clients_cut "$cut"
wh_post "$WH_URL/inbox" "$(wh_body Complete)"
assert_status 200 "served after the slow clients"

# ------------------------------------------------------ 3. kill -9 httpd ---
# Four signed writers POST fresh notifications, retrying unanswered ones
# for up to 15 s as a sender would; once some are acknowledged the whole
# httpd (parent and every child) gets SIGKILL and is started again half a
# second later. Afterwards every notification that was answered 200 must be
# in the inbox database.
acked_in() { cat "$1"/w*.log 2>/dev/null | grep -c ' 200 '; }
crash_round() {
    local name=$1 path=$2 dir="$T/crash-$1" i before out acked refused lost
    mkdir -p "$dir"
    faults load "$path" 4 "$CRASH_EVENTS" "$dir" 15 &
    local loader=$!
    for i in $(seq 1 200); do
        [ "$(acked_in "$dir")" -ge 10 ] && break
        kill -0 "$loader" 2>/dev/null || break
        sleep 0.05
    done
    before=$(acked_in "$dir")
    wh_httpd_kill9
    sleep 0.5
    wh_httpd_start || { _wh_bad "$name: httpd restarts after kill -9"; wait "$loader"; return 1; }
    wait "$loader"
    out=$(python3 "$T/faults.py" check "$dir" "$WH_INBOX_DB" 2>&1)
    acked=$(printf '%s' "$out" | sed -n 's/.*acked=\([0-9]*\).*/\1/p')
    refused=$(printf '%s' "$out" | sed -n 's/.*refused=\([0-9]*\).*/\1/p')
    lost=$(printf '%s' "$out" | sed -n 's/.*lost=\([0-9]*\).*/\1/p')
    assert_eq 0 "${lost:-x}" "$name: every notification answered 200 is in the inbox after kill -9 ($out)"
    assert_true "$name: the kill hit the load (acknowledged before the kill: $before, unanswered tries: ${refused:-0})" \
        test "${before:-0}" -gt 0 -a "${refused:-0}" -gt 0
    assert_true "$name: the load went on after the restart (${acked:-0} acknowledged in all)" \
        test "${acked:-0}" -gt "${before:-0}"
    CRASH_REQ=$((CRASH_REQ + 4 * CRASH_EVENTS))
    CRASH_ACKED=$((CRASH_ACKED + ${acked:-0}))
    CRASH_REFUSED=$((CRASH_REFUSED + ${refused:-0}))
    CRASH_LOST=$((CRASH_LOST + ${lost:-0}))
    CRASH_KILLS=$((CRASH_KILLS + 1))
}
CRASH_REQ=0; CRASH_ACKED=0; CRASH_LOST=0; CRASH_KILLS=0; CRASH_REFUSED=0
for r in $(seq 1 "$CRASH_ROUNDS"); do
    crash_round "module-$r" /inbox
    [ -n "$HAVE_CGI" ] && crash_round "cgi-$r" /cgi/inbox
done
fig crash_kills "$CRASH_KILLS"
fig crash_requests "$CRASH_REQ"
fig crash_acked "$CRASH_ACKED"
fig crash_refused "$CRASH_REFUSED"
fig crash_lost "$CRASH_LOST"
assert_eq 0 "$CRASH_LOST" "events lost over $CRASH_KILLS kill -9 of httpd"
wh_post "$WH_URL/inbox" "$(wh_body Complete)"
assert_status 200 "served after the last restart"

fig assertions_passed "$WH_PASS"
fig assertions_failed "$WH_FAIL"
fig mode "${SOAK:+soak}${SOAK:-check}"
cp "$KV" "$FIG/faults${SOAK:+-soak}.kv" 2>/dev/null
wh_done
