# Helpers for the forwarding tests (test_forward*.sh), sourced after lib.sh
# and wh_init (and pg.sh + pg_start for PostgreSQL, mariadb.sh +
# mariadb_start for MariaDB). Not a test itself.
#
# A scenario NAME has its own inbox (a module location /fw/NAME with its own
# database), its own application (app/forward_app.py on two free ports) and
# its own configuration $T/etc/fw-NAME.conf, so scenarios can run side by
# side (a slow one in the background while quick ones run):
#
#   fw_engine sqlite3|pgsql|mysql       engine of the inboxes made after it
#   fw_scenario NAME [Key value]...     config + httpd location (before start)
#   fw_app_start NAME [--down]          the application (after httpd start)
#   fw_ctl NAME JSON                    tell the application what to do
#   fw_send NAME SPEC...                POST notifications to the inbox, in
#                                       order; SPEC is PAYMENT[:STATUS] or
#                                       -:EVENTTYPE for one without a payment
#   fw_drain NAME [ARGS]...             wirehook forward --drain (60 s cap)
#   fw_start NAME [ARGS]... / fw_stop NAME   a forwarder in the background
#   fw_verify NAME [KEY=VALUE]...       the requests against what was sent
#   fw_check NAME LABEL [KEY=VALUE]...  fw_verify as assertions
#   fw_wait_forwarded NAME N [SECS]     until the app answered 2xx N times
#   fw_inbox NAME ARGS...               wirehook inbox --config for NAME
#
# The application checks every request's signature with the forwarder's
# secret $FW_SECRET_FILE and records it in $T/fw-NAME/app/requests.log.

FW_SECRET_FILE="$T/etc/forward.secret"
wh_make_secrets "$FW_SECRET_FILE" "fw-secret-$(date +%s%N | sha256sum | cut -c1-24)"
FW_ENGINE=sqlite3
FW_APP_PY="$WH_APP_SRC/forward_app.py"

fw_engine() { FW_ENGINE=$1; }

# fw_dir NAME -> the scenario's directory
fw_dir() { echo "$T/fw-$1"; }

_fw_conninfo() {
    # one PostgreSQL (or MariaDB) database per scenario
    local db="fw_$1"
    if [ "$FW_ENGINE" = mysql ]; then
        mariadb_sql "CREATE DATABASE $db CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
            GRANT ALL ON $db.* TO 'wirehook'@'127.0.0.1';" mysql >/dev/null || return 1
        printf '%s\n' "${MARIADB_PARAMS/dbname=wirehook/dbname=$db}"
        return 0
    fi
    pg_sql "CREATE DATABASE $db OWNER wirehook" postgres >/dev/null || return 1
    printf '%s\n' "${PG_CONNINFO/dbname=wirehook/dbname=$db}"
}

# fw_scenario NAME [Key value]... -- before wh_httpd_start
fw_scenario() {
    local name=$1; shift
    local d; d=$(fw_dir "$name")
    mkdir -p "$d/app"
    local port ctl params
    port=$(wh_free_port) || return 1
    ctl=$(wh_free_port) || return 1
    while [ "$ctl" = "$port" ]; do ctl=$(wh_free_port); done
    echo "$port" >"$d/port"
    echo "$ctl" >"$d/ctl"
    echo "http://127.0.0.1:$port/app/$name" >"$d/url"
    if [ "$FW_ENGINE" = pgsql ] || [ "$FW_ENGINE" = mysql ]; then
        params=$(_fw_conninfo "$name") || return 1
        wh_write_config "$T/etc/fw-$name.conf" "InboxDriver $FW_ENGINE" "InboxParams \"$params\""
    else
        wh_write_config "$T/etc/fw-$name.conf" "InboxParams $T/data/fw-$name.db"
    fi
    # the scenario's own lines replace these defaults
    local l k
    for l in "ForwardUrl $(cat "$d/url")" "ForwardSecretFile $FW_SECRET_FILE" \
             "ForwardBackoffMin 100ms" "ForwardBackoffMax 1s" "ForwardTimeout 2s" \
             "ForwardConcurrency 8" "$@"; do
        k=${l%% *}
        sed -i "/^$k /d" "$T/etc/fw-$name.conf"
        printf '%s\n' "$l" >>"$T/etc/fw-$name.conf"
    done
    wh_httpd_extra "<Location /fw/$name>
    SetHandler wirehook
    WirehookConfig $T/etc/fw-$name.conf
</Location>"
}

fw_conf() { echo "$T/etc/fw-$1.conf"; }
fw_url() { cat "$(fw_dir "$1")/url"; }

# fw_app_start NAME [--down]
fw_app_start() {
    local name=$1 d i pid; d=$(fw_dir "$name")
    python3 "$FW_APP_PY" --port "$(cat "$d/port")" --control-port "$(cat "$d/ctl")" \
        --secret-file "$FW_SECRET_FILE" --url "$(cat "$d/url")" --out "$d/app" \
        ${2:-} >>"$d/app.err" 2>&1 &
    pid=$!
    echo "$pid" >"$d/app.pid"
    wh_bg_add $pid
    # up means this application answers its control port: a listener
    # that is someone else's, with ours dead on a port it could not bind,
    # would turn every forward into a dead letter
    for i in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        curl -sf --max-time 2 "http://127.0.0.1:$(cat "$d/ctl")/" 2>/dev/null | grep -q '"listening"' &&
            kill -0 "$pid" 2>/dev/null && return 0
        sleep 0.05
    done
    _wh_bad "forward application $name starts" "$(tail -n 5 "$d/app.err" 2>/dev/null)"
    return 1
}

# fw_ctl NAME JSON
fw_ctl() {
    curl -sS --max-time 10 -X POST --data-binary "$2" \
        "http://127.0.0.1:$(cat "$(fw_dir "$1")/ctl")/control" >/dev/null
}

_fw_send_py() {
    cat >"$T/fw_send.py" <<'EOF'
import base64, datetime, hashlib, hmac, http.client, json, sys, time, urllib.parse, uuid
a = dict(x.split("=", 1) for x in sys.argv[1:6])
specs = sys.argv[6:]
url = urllib.parse.urlsplit(a["url"])
sample = json.load(open(a["sample"]))
secret = a["secret"].encode()
auth = "Basic " + base64.b64encode(a["user"].encode()).decode()
out = open(a["out"], "a")
conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
now = datetime.datetime.now(datetime.timezone.utc)
for i, spec in enumerate(specs):
    parts = spec.split(":", 2)
    pay, st = parts[0], parts[1] if len(parts) > 1 else "Complete"
    when = parts[2] if len(parts) > 2 else (now + datetime.timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
    nid = str(uuid.uuid4())
    if pay == "-":
        d = {"notificationId": nid, "eventType": st, "eventDateTime": when, "data": {"note": i}}
    else:
        d = json.loads(json.dumps(sample))
        d["notificationId"] = nid
        d["eventDateTime"] = when
        d["data"]["wireEventInfo"]["paymentId"] = pay
        d["data"]["wireEventInfo"]["status"] = st
    b = json.dumps(d, separators=(",", ":")).encode()
    ts = str(int(time.time()))
    sig = hmac.new(secret, b"POST" + a["url"].encode() + b + ts.encode(), hashlib.sha256).hexdigest()
    conn.request("POST", url.path, body=b, headers={"Content-Type": "application/json",
                 "Authorization": auth, "X-Timestamp": ts, "X-Signature": sig})
    r = conn.getresponse()
    data = r.read()
    if r.status != 200 or b'"accepted"' not in data:
        print("send %s: HTTP %d %s" % (spec, r.status, data[:200]), file=sys.stderr)
        sys.exit(1)
    out.write("%s %s %s %s\n" % (nid, pay, st.replace(" ", "_"), hashlib.sha256(b).hexdigest()))
EOF
}

# fw_send NAME SPEC... -- every one must be accepted; appends to sent
fw_send() {
    local name=$1; shift
    [ -f "$T/fw_send.py" ] || _fw_send_py
    python3 "$T/fw_send.py" url="$WH_URL/fw/$name" sample="$WH_SAMPLE_SRC" \
        user="$WH_USER:$WH_PASSWD" out="$(fw_dir "$name")/sent" secret="$WH_SECRET" "$@"
}

# fw_sent_id NAME N -> the notificationId of the N-th event sent (from 1)
fw_sent_id() { sed -n "${2}p" "$(fw_dir "$1")/sent" | cut -d' ' -f1; }

# fw_drain NAME [ARGS]... -- sets FW_RC, FW_OUT (stdout), FW_ERR (stderr);
# the bound only stops a hang: a drain through retries on a loaded
# machine has taken over a minute
fw_drain() {
    local name=$1; shift
    local d; d=$(fw_dir "$name")
    timeout -s KILL "${FW_DRAIN_TIMEOUT:-240}" "$WIREHOOK" forward --config "$(fw_conf "$name")" \
        --drain --interval 0 "$@" >"$d/drain.out" 2>"$d/drain.err"
    FW_RC=$?
    FW_OUT=$(cat "$d/drain.out")
    FW_ERR=$(cat "$d/drain.err")
}

# fw_explain NAME -- after a drain that went wrong: why each attempt
# failed (the forwarder's log), what the application said, and whether it
# still listens
fw_explain() {
    local d; d=$(fw_dir "$1")
    {
        echo "       forwarder (last lines):"; tail -n 8 "$d/drain.err" 2>/dev/null | sed 's/^/         /'
        echo "       application:"; tail -n 5 "$d/app.err" 2>/dev/null | sed 's/^/         /'
        echo "         control: $(curl -s --max-time 2 "http://127.0.0.1:$(cat "$d/ctl")/" 2>&1)"
        echo "         listening on $(cat "$d/port"): $(ss -Hltnp "sport = :$(cat "$d/port")" 2>/dev/null | awk '{print $NF}')"
    } >&2
}

# fw_start NAME [ARGS]... -- in the background; stdout/stderr in fwd.out/err,
# its PID@START (wh_pid_tag) in fwd.tag
fw_start() {
    local name=$1; shift
    local d; d=$(fw_dir "$name")
    "$WIREHOOK" forward --config "$(fw_conf "$name")" "$@" >>"$d/fwd.out" 2>>"$d/fwd.err" &
    wh_pid_tag $! >"$d/fwd.tag"
    wh_bg_add $!
}

# fw_stop NAME [SIGNAL] -- signals the background forwarder and waits;
# sets FW_RC to its exit status
fw_stop() {
    local d tag pid i; d=$(fw_dir "$1"); tag=$(cat "$d/fwd.tag" 2>/dev/null)
    FW_RC=""
    [ -n "$tag" ] || return 0
    pid=${tag%@*}
    wh_kill_ours -"${2:-TERM}" "$tag"
    for i in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    wait "$pid" 2>/dev/null
    FW_RC=$?
    rm -f "$d/fwd.tag"
}

# fw_app_ok NAME -> how many requests the app answered 2xx
fw_app_ok() {
    awk '$6 ~ /^2/ {n++} END {print n + 0}' "$(fw_dir "$1")/app/requests.log" 2>/dev/null
}

# fw_app_ok_events NAME -> how many different events the app answered 2xx
# (a copy forwarded again counts once)
fw_app_ok_events() {
    awk '$6 ~ /^2/ && !seen[$2]++ {n++} END {print n + 0}' "$(fw_dir "$1")/app/requests.log" 2>/dev/null
}

# _fw_wait_count COUNT NAME N SECS -- 0 once "COUNT NAME" reaches N
_fw_wait_count() {
    local i
    for ((i = 0; i < $4 * 10; i++)); do
        [ "$("$1" "$2")" -ge "$3" ] && return 0
        sleep 0.1
    done
    return 1
}

# fw_wait_forwarded NAME N [SECS] -- 0 once the app answered 2xx N times
fw_wait_forwarded() { _fw_wait_count fw_app_ok "$1" "$2" "${3:-30}"; }

# fw_wait_each_forwarded NAME N [SECS] -- 0 once N different events were
# answered 2xx, each at least once
fw_wait_each_forwarded() { _fw_wait_count fw_app_ok_events "$1" "$2" "${3:-30}"; }

# fw_slow_inboxes N NAME... -- for each scenario NAME its application,
# answering after 200 ms, and N events of 20 payments in its inbox: a
# forwarder started on it is still forwarding when a fault strikes
fw_slow_inboxes() {
    local n=$1 f i specs=()
    shift
    for i in $(seq 1 "$n"); do specs+=("F$((i % 20)):Review"); done
    for f in "$@"; do
        fw_app_start "$f"
        fw_ctl "$f" '{"delay_ms": 200}'
        fw_send "$f" "${specs[@]}" || _wh_bad "$f: the forwarder's events are accepted"
    done
}

_fw_verify_py() {
    cat >"$T/fw_verify.py" <<'EOF'
"""The requests of a scenario against what was sent: every event not
expected dead forwarded (2xx) with its exact body, in each payment's order,
never two of one payment at once, every request authentic; duplicates
counted. Prints one summary line and one PROBLEM line per broken promise."""
import os, sys
a = dict(x.split("=", 1) for x in sys.argv[1:])
d = a["dir"]
sent = [l.split() for l in open(os.path.join(d, "sent"))]
dead = set(x for x in a.get("dead", "").split(",") if x)
max_dup = int(a.get("max_dup", "0"))
rows = []
p = os.path.join(d, "app", "requests.log")
if os.path.exists(p):
    rows = [l.split() for l in open(p)]
problems = []
ok = {}
for r in rows:
    seq, nid, pay, st, attempt, code, sha = r
    if code == "401":
        problems.append("a request failed the application's signature check: %s" % nid)
    if code.startswith("2"):
        ok.setdefault(nid, []).append((int(seq), sha))
sha_of = {s[0]: s[3] for s in sent}
missing = [s[0] for s in sent if s[0] not in ok and s[0] not in dead]
if missing:
    problems.append("%d events never forwarded (first %s)" % (len(missing), missing[0]))
for nid in dead:
    if nid in ok:
        problems.append("expected dead but forwarded: %s" % nid)
for nid, ds in ok.items():
    if nid not in sha_of:
        problems.append("forwarded an event never sent: %s" % nid)
    elif any(sha != sha_of[nid] for _, sha in ds):
        problems.append("body not forwarded byte for byte: %s" % nid)
dups = sum(1 for ds in ok.values() if len(ds) > 1)
if dups > max_dup:
    problems.append("%d events forwarded more than once (at most %d allowed)" % (dups, max_dup))
# each payment's first requests in the order the events were sent
by_pay = {}
for nid, pay, st, sha in sent:
    if pay != "-" and nid in ok:
        by_pay.setdefault(pay, []).append(min(s for s, _ in ok[nid]))
bad = [pay for pay, seqs in by_pay.items() if seqs != sorted(seqs)]
if bad:
    problems.append("out of order within payment(s) %s" % ",".join(sorted(bad)[:5]))
applog = os.path.join(d, "app", "app.log")
if os.path.exists(applog):
    ov = [l for l in open(applog) if l.startswith("OVERLAP")]
    if ov:
        problems.append("%d requests overlapped another of the same payment: %s" % (len(ov), ov[0].strip()))
print("sent=%d forwarded=%d requests=%d duplicates=%d payments=%d" %
      (len(sent), len(ok), len(rows), dups, len(by_pay)))
for x in problems:
    print("PROBLEM " + x)
EOF
}

# fw_verify NAME [dead=ID,ID] [max_dup=N] -- sets FW_VERIFY
fw_verify() {
    local name=$1; shift
    [ -f "$T/fw_verify.py" ] || _fw_verify_py
    FW_VERIFY=$(python3 "$T/fw_verify.py" dir="$(fw_dir "$name")" "$@" 2>&1)
}

# fw_check NAME LABEL [dead=...] [max_dup=N] -- fw_verify as assertions
fw_check() {
    local name=$1 label=$2 p; shift 2
    fw_verify "$name" "$@"
    echo "   $label: $(printf '%s\n' "$FW_VERIFY" | grep '^sent=')"
    if printf '%s\n' "$FW_VERIFY" | grep -q '^sent='; then _wh_ok "$label: verified"
    else _wh_bad "$label: the verifier ran" "$FW_VERIFY"; fi
    while IFS= read -r p; do
        [ -n "$p" ] && _wh_bad "$label" "$p"
    done < <(printf '%s\n' "$FW_VERIFY" | grep -v '^sent=')
}

# fw_inbox NAME ARGS... -- wirehook inbox with the scenario's config; sets
# FW_RC, FW_OUT, FW_ERR
fw_inbox() {
    local name=$1; shift
    local d; d=$(fw_dir "$name")
    "$WIREHOOK" inbox --config "$(fw_conf "$name")" "$@" >"$d/inbox.out" 2>"$d/inbox.err"
    FW_RC=$?
    FW_OUT=$(cat "$d/inbox.out")
    FW_ERR=$(cat "$d/inbox.err")
}

# fw_attempts NAME NID -> the answers the app gave NID, in order ("500 500 200")
fw_attempts() {
    awk -v n="$2" '$2 == n {printf "%s%s", sep, $6; sep = " "} END {print ""}' \
        "$(fw_dir "$1")/app/requests.log" 2>/dev/null
}
