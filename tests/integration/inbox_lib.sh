# Helpers for the inbox/CGI integration tests (test_cgi*.sh, test_inbox*.sh),
# sourced after lib.sh and wh_init. Not a test itself (run.sh only runs
# test_*.sh).
#
#   ib_cgi_install                      copy wirehook.cgi into $T/cgi-bin
#   ib_cgi_location PATH [DIRECTIVE...] ScriptAlias PATH to it, CGIPassAuth On
#   ib_cgi_pg_location PATH [DIRECTIVE...]  the same, the CGI for PostgreSQL
#   ib_load_run NAME URL WRITERS EVENTS [KILL_AFTER_S]
#                                       signed writers, 10% duplicates
#   ib_load_verify NAME URL LIMIT       the listing against what was acked
#   ib_check_verify LABEL               one assertion per verify problem
#   ib_walk URL LIMIT [QUERY]           ids of a full listing walk, one a line
#   ib_load_py                          writes $T/ib_load.py (walker, driver)
#
# The CGI runs as the httpd user (www-data when the tests run as root): it
# gets group read access to the secrets and htpasswd files, which the
# module reads as root at start-up anyway.

IB_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
IB_CGI="$T/cgi-bin/wirehook.cgi"
# The CGI that reaches PostgreSQL: the self-contained one (CGI_LINK=static)
# has no PostgreSQL client; its dynamic twin, built beside it for make
# check, does.
IB_CGI_PG="$IB_CGI"
IB_CGI_PG_SRC="$WH_BUILD/wirehook.cgi"
if [ "${CGI_LINK:-static}" = static ]; then
    IB_CGI_PG="$T/cgi-bin/wirehook-dynamic.cgi"
    IB_CGI_PG_SRC="$WH_BUILD/cgi-dynamic/wirehook.cgi"
fi

ib_cgi_install() {
    cp "$WH_BUILD/wirehook.cgi" "$IB_CGI" && chmod 755 "$IB_CGI" || return 1
    if [ "$IB_CGI_PG" != "$IB_CGI" ] && [ -x "$IB_CGI_PG_SRC" ]; then
        cp "$IB_CGI_PG_SRC" "$IB_CGI_PG" && chmod 755 "$IB_CGI_PG"
    fi
    if [ "$(id -u)" -eq 0 ]; then
        chgrp www-data "$WH_SECRETS" "$WH_HTPASSWD" && chmod 640 "$WH_SECRETS" "$WH_HTPASSWD"
    fi
}

# ib_cgi_location PATH [DIRECTIVE...] -- directives go inside <Location>;
# without any, the standard config $WH_CONF is used. IB_CGI_BIN (when set)
# is the program served instead of $IB_CGI.
ib_cgi_location() {
    local path=$1; shift
    local d body=""
    [ $# -eq 0 ] && set -- "SetEnv WIREHOOK_CONFIG $WH_CONF"
    for d in "$@"; do body="$body    $d
"; done
    wh_httpd_extra "ScriptAlias $path \"${IB_CGI_BIN:-$IB_CGI}\"
<Location $path>
    CGIPassAuth On
$body</Location>"
}

# ib_cgi_pg_location PATH [DIRECTIVE...] -- the same with the CGI that
# reaches PostgreSQL ($IB_CGI_PG).
ib_cgi_pg_location() {
    [ -x "$IB_CGI_PG" ] || _wh_bad "the PostgreSQL-capable CGI is built" \
        "no $IB_CGI_PG_SRC (make $WH_BUILD/cgi-dynamic/wirehook.cgi)"
    IB_CGI_BIN="$IB_CGI_PG" ib_cgi_location "$@"
}

# The load driver: one process per writer (so a test can kill -9 some),
# each POSTing signed notifications over one keep-alive connection and
# logging "<id> <status> <ack-status-or-error-code>" after each answer.
# Event i of writer w has a fixed id and body; every tenth event is instead
# a copy of event i-5 of the next writer (duplicates that race across
# processes). Verification regenerates the same ids and bodies.
ib_load_py() {
    cat >"$T/ib_load.py" <<'EOF'
import hashlib, hmac, http.client, json, os, sys, time, uuid, base64, urllib.parse

def ident(run, w, i):
    return str(uuid.UUID(bytes=hashlib.sha256(("%s/%d/%d" % (run, w, i)).encode()).digest()[:16], version=4))

STATUSES = ["Review", "Send Ready", "Complete", "Exception", "Reject", "Error"]

def body(sample, run, w, i):
    d = json.loads(sample)
    d["notificationId"] = ident(run, w, i)
    d["data"]["wireEventInfo"]["paymentId"] = "LOAD-%s-%d-%d" % (run, w, i // 4)
    d["data"]["wireEventInfo"]["status"] = STATUSES[i % len(STATUSES)]
    return json.dumps(d, separators=(",", ":")).encode()

def event(sample, run, w, i, writers):
    if i % 10 == 9:
        return body(sample, run, (w + 1) % writers, i - 5)
    return body(sample, run, w, i)

def writer(a):
    url = urllib.parse.urlsplit(a["url"])
    sample = open(a["sample"]).read()
    auth = "Basic " + base64.b64encode(("%s:%s" % (a["user"], a["password"])).encode()).decode()
    secret = a["secret"].encode()
    w, n, W = int(a["w"]), int(a["events"]), int(a["writers"])
    log = open(a["out"], "a", buffering=1)
    conn = None
    for i in range(n):
        b = event(sample, a["run"], w, i, W)
        nid = json.loads(b)["notificationId"]
        ts = str(int(time.time()))
        sig = hmac.new(secret, b"POST" + a["url"].encode() + b + ts.encode(), hashlib.sha256).hexdigest()
        hdrs = {"Content-Type": "application/json", "Authorization": auth,
                a["ts_header"]: ts, a["sig_header"]: sig}
        for attempt in range(3):
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
                conn.request("POST", url.path, body=b, headers=hdrs)
                r = conn.getresponse()
                data = r.read()
                break
            except (ConnectionError, http.client.HTTPException, OSError):
                conn = None
                if attempt == 2:
                    log.write("%s 000 connection_error\n" % nid)
                    data = None
        if data is None:
            continue
        try:
            d = json.loads(data)
            code = d["error"]["code"] if "error" in d else d.get("status", "")
        except Exception:
            code = "not_json"
        log.write("%s %d %s\n" % (nid, r.status, code))

def expected(a):
    """ids each writer sends, and the unique bodies by id"""
    sample = open(a["sample"]).read()
    W, n = int(a["writers"]), int(a["events"])
    bodies = {}
    for w in range(W):
        for i in range(n):
            if i % 10 != 9:
                bodies[ident(a["run"], w, i)] = json.loads(body(sample, a["run"], w, i))
    return bodies

def walk(url, user, password, limit, query=""):
    u = urllib.parse.urlsplit(url)
    auth = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    off, events, pages = 0, [], 0
    while True:
        q = "offset=%d&limit=%d%s" % (off, limit, ("&" + query) if query else "")
        conn.request("GET", u.path + "?" + q, headers={"Authorization": auth})
        r = conn.getresponse()
        data = r.read()
        if r.status != 200:
            raise SystemExit("walk: HTTP %d at offset %d: %s" % (r.status, off, data[:200]))
        d = json.loads(data)
        pages += 1
        events.extend(d["events"])
        nxt = int(d["pagination"]["offset"])
        if nxt != off + len(d["events"]):
            raise SystemExit("walk: offset %d + %d events != next offset %d" % (off, len(d["events"]), nxt))
        off = nxt
        if not d["pagination"]["moreRecords"]:
            return events, pages
        if pages > 1000000:
            raise SystemExit("walk: no end")

def verify(a):
    bodies = expected(a)
    events, pages = walk(a["url"], a["user"], a["password"], int(a["limit"]))
    ids = [e["notificationId"] for e in events]
    problems = []
    mine = [x for x in ids if x in bodies]
    if len(set(ids)) != len(ids):
        problems.append("listed twice: %d ids" % (len(ids) - len(set(ids))))
    acks = {}
    for f in sorted(os.listdir(a["outdir"])):
        if not f.endswith(".log"):
            continue
        wr = []
        for line in open(os.path.join(a["outdir"], f)):
            parts = line.split()
            if len(parts) != 3:
                continue      # a writer killed mid-line
            nid, st, code = parts
            acks.setdefault(nid, []).append((st, code))
            if st == "200" and code == "accepted":
                wr.append(nid)
        # each writer's stored events appear in the order it sent them
        pos = {x: k for k, x in enumerate(ids)}
        order = [pos.get(x, -1) for x in wr]
        if any(p < 0 for p in order):
            problems.append("%s: %d acknowledged events not listed" % (f, sum(1 for p in order if p < 0)))
        elif order != sorted(order):
            problems.append("%s: stored events listed out of order" % f)
    acked = {k for k, v in acks.items() if any(s == "200" for s, c in v)}
    accepted = sum(1 for v in acks.values() for s, c in v if s == "200" and c == "accepted")
    missing_acked = acked - set(ids)
    if missing_acked:
        problems.append("%d acknowledged ids not listed" % len(missing_acked))
    for e in events:
        exp = bodies.get(e["notificationId"])
        if exp is not None and e != exp:
            problems.append("body differs for %s" % e["notificationId"])
            break
    complete = a.get("complete") == "1"
    if complete:
        if set(mine) != set(bodies):
            problems.append("listed %d of %d unique events" % (len(set(mine)), len(bodies)))
        bad = sorted({(s, c) for v in acks.values() for s, c in v if s != "200"})
        if bad:
            problems.append("non-200 answers: %s" % bad[:5])
        if accepted != len(bodies):
            problems.append("%d 'accepted' acks for %d unique events" % (accepted, len(bodies)))
    print("listed=%d unique=%d acked=%d accepted=%d pages=%d" %
          (len(mine), len(bodies), len(acked), accepted, pages))
    for p in problems:
        print("PROBLEM " + p)

if __name__ == "__main__":
    a = dict(x.split("=", 1) for x in sys.argv[2:])
    {"writer": writer, "verify": verify}[sys.argv[1]](a)
EOF
}

# ib_load_run NAME URL WRITERS EVENTS [KILL_AFTER_S] -- runs the writers
# (in the background), waits for them; with KILL_AFTER_S, kill -9 half of
# them after that many seconds. Logs in $T/load-NAME/. Sets IB_LOAD_SECS.
ib_load_run() {
    local name=$1 url=$2 writers=$3 events=$4 kill_after=${5:-} w tags=() t0 t1
    [ -f "$T/ib_load.py" ] || ib_load_py
    mkdir -p "$T/load-$name"
    t0=$(date +%s.%N)
    for w in $(seq 0 $((writers - 1))); do
        python3 "$T/ib_load.py" writer run="$name" w="$w" writers="$writers" events="$events" \
            url="$url" sample="$WH_SAMPLE_SRC" user="$WH_USER" password="$WH_PASSWD" \
            secret="$WH_SECRET" ts_header="$WH_TS_HEADER" sig_header="$WH_SIG_HEADER" \
            out="$T/load-$name/w$w.log" &
        tags+=("$(wh_pid_tag $!)")
        wh_bg_add $!
    done
    if [ -n "$kill_after" ]; then
        sleep "$kill_after"
        for w in $(seq 0 2 $((writers - 1))); do wh_kill_ours -KILL "${tags[$w]}"; done
    fi
    for w in "${tags[@]}"; do wait "${w%@*}" 2>/dev/null; done
    t1=$(date +%s.%N)
    IB_LOAD_SECS=$(python3 -c "print('%.1f' % ($t1 - $t0))")
    IB_LOAD_WRITERS=$writers
    IB_LOAD_EVENTS=$events
}

# ib_load_verify NAME URL LIMIT [complete] -- prints the summary line and
# one "PROBLEM ..." line per broken promise; sets IB_VERIFY_OUT.
ib_load_verify() {
    local name=$1 url=$2 limit=$3 complete=${4:-}
    IB_VERIFY_OUT=$(python3 "$T/ib_load.py" verify run="$name" writers="$IB_LOAD_WRITERS" \
        events="$IB_LOAD_EVENTS" url="$url" sample="$WH_SAMPLE_SRC" user="$WH_USER" \
        password="$WH_PASSWD" outdir="$T/load-$name" limit="$limit" \
        complete="${complete:+1}" 2>&1)
}

# ib_check_verify LABEL -- turns the last ib_load_verify into assertions
ib_check_verify() {
    local p
    echo "   $1: $(printf '%s\n' "$IB_VERIFY_OUT" | grep '^listed=')"
    if printf '%s\n' "$IB_VERIFY_OUT" | grep -q '^listed='; then _wh_ok "$1: verified"
    else _wh_bad "$1: verifier ran" "$IB_VERIFY_OUT"; fi
    while IFS= read -r p; do
        [ -n "$p" ] && _wh_bad "$1" "$p"
    done < <(printf '%s\n' "$IB_VERIFY_OUT" | grep -v '^listed=')
}

# ib_walk URL LIMIT [QUERY] -- every notificationId of a listing walk, in
# order, one a line (the same walker the load check uses).
ib_walk() {
    [ -f "$T/ib_load.py" ] || ib_load_py
    python3 - "$T" "$1" "$WH_USER" "$WH_PASSWD" "$2" "${3:-}" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import ib_load
events, pages = ib_load.walk(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6])
for e in events:
    print(e["notificationId"])
EOF
}

# ib_post_retry URL BODYFILE SECONDS -- wh_post until the answer is not 503
# or SECONDS have passed: a module child tries a database it could not use
# again only once its retry interval (2 s) is over. Sets IB_RETRY_MS.
ib_post_retry() {
    local t0 end
    t0=$(date +%s%N); end=$(( t0 + $3 * 1000000000 ))
    while :; do
        wh_post "$1" "$2"
        [ "$WH_STATUS" != 503 ] && break
        [ "$(date +%s%N)" -ge "$end" ] && break
        sleep 0.2
    done
    IB_RETRY_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
}

# ib_sqlite SQL -- query the standard SQLite inbox directly
ib_sqlite() { sqlite3 -cmd ".timeout 5000" "$WH_INBOX_DB" "$1"; }
