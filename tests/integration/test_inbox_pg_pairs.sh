#!/usr/bin/env bash
# Two servers on one PostgreSQL inbox, every notification sent to both at
# the same moment (a load balancer's retry storm): each is stored once,
# one server answers "accepted" and the other "duplicate", both list the
# same events in the same order, and no group commit ever waits for the
# other server's in a cycle: no "deadlock detected" in either error log
# (batches take their rows by notificationId, then their payments by
# paymentId). Size: WH_PAIRS (500 x WH_SCALE) notifications, 16 senders
# per server.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/pg.sh"
PAIRS=${WH_PAIRS:-$(wh_size 500)}

pg_start || { _wh_bad "PostgreSQL starts" "see above"; wh_done; }
PG_CONF="$T/etc/pg.conf"
wh_write_config "$PG_CONF" "InboxDriver pgsql" "InboxParams \"$PG_CONNINFO\""
chmod 640 "$PG_CONF"; [ "$(id -u)" -eq 0 ] && chgrp www-data "$PG_CONF"
wh_httpd_extra "<Location /pginbox>
    SetHandler wirehook
    WirehookConfig $PG_CONF
</Location>"
wh_httpd_conf
wh_httpd_start || exit 1

# The second server: the same configuration on its own port, pid file,
# logs and runtime directory.
B_PORT=$(wh_free_port) || exit 1
B_CONF="$T/httpd-b.conf"
mkdir -p "$T/run-b"; chmod 1777 "$T/run-b"
sed -e "s|^Listen 127.0.0.1:$WH_PORT\$|Listen 127.0.0.1:$B_PORT|" \
    -e "s|$T/run\\b|$T/run-b|g" \
    -e "s|$T/logs/error.log|$T/logs/error-b.log|" \
    -e "s|$T/logs/access.log|$T/logs/access-b.log|" "$WH_HTTPD_CONF" >"$B_CONF"
b_stop() {
    local pid
    pid=$(cat "$T/run-b/httpd.pid" 2>/dev/null) || return 0
    "$WH_HTTPD" -f "$B_CONF" -k stop >/dev/null 2>&1
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    _wh_httpd_ours "$pid" && kill -KILL "$pid" 2>/dev/null
    return 0
}
_PAIRS_PREV_TRAP=$(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//")
trap '_rc=$?; b_stop; (exit $_rc); eval "$_PAIRS_PREV_TRAP"' EXIT
"$WH_HTTPD" -f "$B_CONF" -k start >"$T/b-start.log" 2>&1 || { cat "$T/b-start.log" >&2; exit 1; }
wh_wait_port "$B_PORT"
A="$WH_URL/pginbox"
B="http://127.0.0.1:$B_PORT/pginbox"

# pairs.py: PAIRS notifications (a payment has four events), each POSTed
# to both servers at once (both requests written before either answer is
# read), by 16 senders; a 503 is retried, as the bank does. One line per
# answer: "id server status code".
cat >"$T/pairs.py" <<'EOF'
import base64, hashlib, hmac, http.client, json, sys, threading, time, urllib.parse, uuid
a = dict(x.split("=", 1) for x in sys.argv[1:])
urls = [urllib.parse.urlsplit(a["a"]), urllib.parse.urlsplit(a["b"])]
sample = json.load(open(a["sample"]))
secret = open(a["secrets"]).readline().strip().encode()
auth = "Basic " + base64.b64encode(a["auth"].encode()).decode()
n, senders = int(a["pairs"]), 16
out, lock = open(a["out"], "w"), threading.Lock()

def body(i):
    d = json.loads(json.dumps(sample))
    d["notificationId"] = str(uuid.uuid4())
    d["data"]["wireEventInfo"]["paymentId"] = "PAIR-%s-%d" % (a["run"], i // 4)
    return d["notificationId"], json.dumps(d, separators=(",", ":")).encode()

def headers(url, b):
    ts = str(int(time.time()))
    sig = hmac.new(secret, b"POST" + url.encode() + b + ts.encode(), hashlib.sha256).hexdigest()
    return {"Content-Type": "application/json", "Authorization": auth,
            "X-Timestamp": ts, "X-Signature": sig}

def sender(k):
    conns = [None, None]
    for i in range(k, n, senders):
        nid, b = body(i)
        todo = [0, 1]
        for attempt in range(20):
            sent = []
            for s in todo:
                u = urls[s]
                url = "%s://%s%s" % (u.scheme, u.netloc, u.path)
                try:
                    if conns[s] is None:
                        conns[s] = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
                    conns[s].request("POST", u.path, body=b, headers=headers(url, b))
                    sent.append(s)
                except OSError:
                    conns[s] = None
            retry = [s for s in todo if s not in sent]
            for s in sent:
                try:
                    r = conns[s].getresponse()
                    data = r.read()
                    d = json.loads(data)
                    code = d["error"]["code"] if "error" in d else d.get("status", "")
                    with lock:
                        out.write("%s %s %d %s\n" % (nid, "ab"[s], r.status, code))
                    if r.status == 503:
                        retry.append(s)
                except (OSError, http.client.HTTPException, ValueError):
                    conns[s] = None
                    retry.append(s)
            if not retry:
                break
            todo = retry
            time.sleep(0.5)

threads = [threading.Thread(target=sender, args=(k,)) for k in range(senders)]
for t in threads: t.start()
for t in threads: t.join()
out.close()
EOF
python3 "$T/pairs.py" a="$A" b="$B" sample="$WH_SAMPLE" secrets="$WH_SECRETS" \
    auth="$WH_USER:$WH_PASSWD" pairs="$PAIRS" run="$RANDOM" out="$T/answers"

# each id: exactly one "accepted" and one "duplicate", both 200 in the end
# (a 503 on the way was retried)
read -r ids accepted duplicates final_bad < <(awk '
    { ids[$1] = 1; last[$1 " " $2] = $3 " " $4 }
    END { n = 0; for (i in ids) n++
          acc = 0; dup = 0; bad = 0
          for (k in last) { if (last[k] == "200 accepted") acc++
                            else if (last[k] == "200 duplicate") dup++
                            else bad++ }
          print n, acc, dup, bad }' "$T/answers")
assert_eq "$PAIRS" "$ids" "every notification was sent to both servers"
assert_eq 0 "$final_bad" "both servers answered 200 for every copy in the end"
assert_eq "$PAIRS" "$accepted" "one copy of each was accepted"
assert_eq "$PAIRS" "$duplicates" "the other copy was a duplicate"
assert_eq "$PAIRS|$PAIRS" "$(pg_sql 'SELECT count(*), count(DISTINCT notification_id) FROM wh_events')" \
    "each notification is stored once"
# the two listings, page by page
walk() {
    local url=$1 off=0 out=""
    while :; do
        wh_curl -u "$WH_USER:$WH_PASSWD" "$url?offset=$off&limit=100"
        [ "$WH_STATUS" = 200 ] || { echo "walk: $WH_STATUS"; return; }
        out+=$(wh_json_get "$WH_BODY" '"\n".join(e["notificationId"] for e in d["events"])')$'\n'
        off=$(wh_json_get "$WH_BODY" 'd["pagination"]["offset"]')
        [ "$(wh_json_get "$WH_BODY" 'd["pagination"]["moreRecords"]')" = true ] || break
    done
    printf '%s' "$out"
}
la=$(walk "$A"); lb=$(walk "$B")
assert_eq "$PAIRS" "$(printf '%s' "$la" | grep -c .)" "server A lists every notification"
assert_true "both servers list the same events in the same order" [ "$la" = "$lb" ]
for log in error.log error-b.log; do
    n=$(grep -c "deadlock detected" "$T/logs/$log")
    assert_eq 0 "$n" "no 'deadlock detected' in $log"
done
# for docs/reliability.md (bench/reliability.sh)
mkdir -p "$WH_BUILD/reliability" 2>/dev/null &&
    printf '%s: %d passed, %d failed\n' "$(basename "$0")" "$WH_PASS" "$WH_FAIL" \
        >"$WH_BUILD/reliability/$(basename "$0" .sh).last" 2>/dev/null
wh_done
