#!/usr/bin/env bash
# Group commit in the module's inbox, on SQLite and on PostgreSQL:
#   1. concurrent requests through httpd share commits (the module logs
#      each shared commit at debug: "group commit: N stores in one
#      transaction"), and every answer is right: accepted once per id,
#      duplicate for copies sent at the same moment; on SQLite the
#      connection gathers each commit's WAL writes (logged at debug);
#   2. kill -9 of the whole httpd (parent and children) while batches are
#      being committed, under concurrent load, a few times: afterwards every
#      notification answered 200 is in the inbox, the listing has no gap and
#      no repeat, and a request cut off or answered 5xx, sent again as a
#      sender would, is stored exactly once (its retry says accepted or
#      duplicate).
# Sizes: WH_GROUP_WRITERS (8), WH_GROUP_EVENTS (40 per writer, part 1),
# WH_GROUP_CRASH_EVENTS (120 per writer per round: the load must outlast
# the kill), WH_GROUP_ROUNDS (3; 5 with WH_SOAK).
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/inbox_lib.sh"
. "$(dirname "$0")/pg.sh"
W=${WH_GROUP_WRITERS:-8}
E=${WH_GROUP_EVENTS:-40}
CE=${WH_GROUP_CRASH_EVENTS:-120}
ROUNDS=${WH_GROUP_ROUNDS:-3}
[ -n "${WH_SOAK:-}" ] && ROUNDS=5

HAVE_PG=""
if pg_start; then HAVE_PG=1; else _wh_bad "PostgreSQL starts" "see above"; fi

wh_write_config "$T/etc/sq.conf" "InboxParams $T/data/group.db"
wh_httpd_extra "<Location /sq>
    SetHandler wirehook
    WirehookConfig $T/etc/sq.conf
</Location>"
if [ -n "$HAVE_PG" ]; then
    wh_write_config "$T/etc/pg.conf" "InboxDriver pgsql" "InboxParams \"$PG_CONNINFO\""
    chmod 640 "$T/etc/pg.conf"; [ "$(id -u)" -eq 0 ] && chgrp www-data "$T/etc/pg.conf"
    wh_httpd_extra "<Location /pg>
    SetHandler wirehook
    WirehookConfig $T/etc/pg.conf
</Location>"
fi
wh_httpd_conf
wh_httpd_start || exit 1

# The driver: W writer threads, fresh signed notifications, one keep-alive
# connection each (a new one after a failure). A request without an answer
# (httpd killed) or answered 5xx is sent again, same id and body, fresh
# timestamp and signature, for up to RETRY seconds. Every answer is logged
# "id status code attempt".
cat >"$T/group.py" <<'PYEOF'
import base64, hashlib, hmac, http.client, json, sys, threading, time, uuid

def main(port, path, secret, user, password, sample, writers, events, logf, retry, copies):
    secret = secret.encode()
    auth = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
    base = json.load(open(sample))
    out = open(logf, "a", buffering=1)
    lock = threading.Lock()
    shared = [str(uuid.uuid4()) for _ in range(events)]

    def body(nid):
        d = json.loads(json.dumps(base))
        d["notificationId"] = nid
        return json.dumps(d, separators=(",", ":")).encode()

    def writer(w):
        conn = None
        for i in range(events):
            # with copies: every writer sends the same id at the same step
            nid = shared[i] if copies and i % 4 == 3 else str(uuid.uuid4())
            b = body(nid)
            deadline = time.time() + retry
            attempt = 0
            while True:
                attempt += 1
                ts = str(int(time.time()))
                url = "http://127.0.0.1:%d%s" % (port, path)
                sig = hmac.new(secret, b"POST" + url.encode() + b + ts.encode(), hashlib.sha256).hexdigest()
                st, code = "000", "-"
                try:
                    if conn is None:
                        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                    conn.request("POST", path, body=b, headers={
                        "Content-Type": "application/json", "Authorization": auth,
                        "X-Timestamp": ts, "X-Signature": sig})
                    r = conn.getresponse()
                    data = r.read()
                    st = str(r.status)
                    try:
                        d = json.loads(data)
                        code = d["error"]["code"] if "error" in d else d.get("status", "")
                    except ValueError:
                        code = "not-json"
                except (OSError, http.client.HTTPException):
                    conn = None
                with lock:
                    out.write("%s %s %s %d\n" % (nid, st, code, attempt))
                if st == "200" or time.time() > deadline:
                    break
                time.sleep(0.05)

    ts = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for t in ts: t.start()
    for t in ts: t.join()

if __name__ == "__main__":
    a = sys.argv[1:]
    main(int(a[0]), a[1], a[2], a[3], a[4], a[5], int(a[6]), int(a[7]), a[8], float(a[9]), a[10] == "1")
PYEOF

# check LOG STORED_IDS LISTED_IDS -> one line: "acked=N stored=N listed=N" and PROBLEM lines
cat >"$T/groupcheck.py" <<'PYEOF'
import sys, collections
log, stored_f, listed_f = sys.argv[1:4]
answers = collections.defaultdict(list)
for line in open(log):
    p = line.split()
    if len(p) == 4:
        answers[p[0]].append((p[1], p[2]))
stored = [l.strip() for l in open(stored_f) if l.strip()]
listed = [l.strip() for l in open(listed_f) if l.strip()]
sset = set(stored)
problems = []
acked = {k for k, v in answers.items() if any(s == "200" for s, c in v)}
if acked - sset:
    problems.append("%d ids answered 200 are not stored" % len(acked - sset))
if sset - set(answers):
    problems.append("%d stored ids were never sent" % len(sset - set(answers)))
if len(set(listed)) != len(listed):
    problems.append("listed twice: %d" % (len(listed) - len(set(listed))))
if set(listed) != sset:
    problems.append("listing (%d) differs from the table (%d)" % (len(listed), len(sset)))
never = [k for k, v in answers.items() if not any(s == "200" for s, c in v)]
if never:
    problems.append("%d ids never answered 200 despite retries" % len(never))
bad = [(k, s, c) for k, v in answers.items() for s, c in v if s == "200" and c not in ("accepted", "duplicate")]
if bad:
    problems.append("200 without accepted/duplicate: %s" % bad[:3])
# an id whose first answer was lost or 5xx is stored once: by its retry
# (accepted) or by the lost commit (then the retry says duplicate)
cut = [k for k, v in answers.items() if v and v[0][0] != "200"]
accepted = sum(1 for v in answers.values() for s, c in v if s == "200" and c == "accepted")
print("acked=%d stored=%d listed=%d cut_or_5xx=%d accepted_answers=%d" %
      (len(acked), len(sset), len(listed), len(cut), accepted))
for p in problems:
    print("PROBLEM " + p)
PYEOF

gload() {  # gload PATH LOG COPIES EVENTS [RETRY]
    python3 "$T/group.py" "$WH_PORT" "$1" "$WH_SECRET" "$WH_USER" "$WH_PASSWD" "$WH_SAMPLE_SRC" \
        "$W" "$4" "$2" "${5:-20}" "$3"
}


stored_ids() {  # stored_ids ENGINE -> every notification_id in wh_events, one a line
    if [ "$1" = sq ]; then sqlite3 -cmd '.timeout 5000' "$T/data/group.db" 'SELECT notification_id FROM wh_events'
    else pg_sql 'SELECT notification_id FROM wh_events'; fi
}

shared_commits() { grep -c 'stores in one transaction' "$T/logs/error.log"; }

for eng in sq ${HAVE_PG:+pg}; do
    U="$WH_URL/$eng"
    # ---------------------------------------------------- 1. shared commits ---
    before=$(shared_commits)
    gload "/$eng" "$T/share-$eng.log" 1 "$E"
    n=$(( $(shared_commits) - before ))
    largest=$(grep -o 'group commit: [0-9]* stores' "$T/logs/error.log" | awk '{print $3}' | sort -n | tail -n 1)
    echo "   $eng: $W writers x $E: $n shared commits, largest ${largest:-0} stores"
    assert_true "$eng: concurrent requests shared commits ($n commits of more than one store)" \
        test "$n" -gt 0
    ib_walk "$U" 100 >"$T/listed-$eng"
    stored_ids "$eng" >"$T/stored-$eng"
    out=$(python3 "$T/groupcheck.py" "$T/share-$eng.log" "$T/stored-$eng" "$T/listed-$eng")
    echo "   $eng: $(printf '%s\n' "$out" | head -n 1)"
    assert_not_contains "$out" "PROBLEM" "$eng: every answer right, listing whole ($out)"
    # the copies every writer sent at the same step: one accepted, the rest duplicates
    copies=$(awk '$2 == 200 {print $1, $3}' "$T/share-$eng.log" | sort | uniq -c |
             awk '$3 == "accepted" && $1 > 1' | wc -l)
    assert_eq 0 "$copies" "$eng: no id accepted twice"
    dups=$(awk '$2 == 200 && $3 == "duplicate"' "$T/share-$eng.log" | wc -l)
    assert_true "$eng: copies sent at the same moment answered duplicate ($dups)" test "$dups" -gt 0
    if [ "$eng" = sq ]; then
        # the commits' WAL writes went through the gathering layer
        # (shared/inbox/wh_sqlite_wal.c): httpd's SQLite is the driver's library
        assert_contains "$(grep -h 'sqlite3 connection opened' "$T/logs/error.log" | tail -n 1)" \
            "WAL writes gathered per commit" "sq: the module's inbox connection gathers WAL writes"
    fi

    # ------------------------------------------- 2. kill -9 during commits ---
    for r in $(seq 1 "$ROUNDS"); do
        log="$T/crash-$eng-$r.log"
        : >"$log"
        gload "/$eng" "$log" 0 "$CE" 30 &
        loader=$!
        wh_bg_add $loader
        for _ in $(seq 1 300); do
            [ "$(grep -c ' 200 ' "$log")" -ge "$W" ] && break
            kill -0 "$loader" 2>/dev/null || break
            sleep 0.02
        done
        acked_before=$(grep -c ' 200 ' "$log")
        wh_httpd_kill9
        sleep 0.3
        wh_httpd_start || { _wh_bad "$eng round $r: httpd restarts after kill -9"; wait "$loader"; continue; }
        wait "$loader"
        cat "$log" >>"$T/crash-$eng.log"
        ib_walk "$U" 100 >"$T/listed-$eng"
        stored_ids "$eng" >"$T/stored-$eng"
        cat "$T/share-$eng.log" "$T/crash-$eng.log" >"$T/all-$eng.log"
        out=$(python3 "$T/groupcheck.py" "$T/all-$eng.log" "$T/stored-$eng" "$T/listed-$eng")
        cut=$(awk '$2 != 200' "$log" | wc -l)
        echo "   $eng round $r: killed after $acked_before answers; $cut requests cut off or 5xx; $(printf '%s\n' "$out" | head -n 1)"
        assert_true "$eng round $r: the kill hit the load (answered before: $acked_before, cut off: $cut)" \
            test "$acked_before" -gt 0 -a "$cut" -gt 0
        assert_not_contains "$out" "PROBLEM" "$eng round $r: every 200 stored, listing without gaps or repeats, retries stored once ($out)"
    done
    if [ "$eng" = sq ]; then
        assert_eq ok "$(sqlite3 "$T/data/group.db" 'PRAGMA integrity_check')" "sq: database intact after the kills"
        assert_eq "$(sqlite3 "$T/data/group.db" 'SELECT count(*) FROM wh_events')" \
            "$(sqlite3 "$T/data/group.db" "SELECT max(seq) FROM wh_order")" "sq: positions without gaps"
    else
        assert_eq "$(pg_sql 'SELECT count(*) FROM wh_events')" "$(pg_sql 'SELECT max(seq) FROM wh_order')" \
            "pg: positions without gaps"
    fi
done
assert_not_contains "$(wh_errlog)" "exit signal Segmentation" "no child crashed"

wh_done
