#!/usr/bin/env bash
# The SQLite inbox under load through both hosts: 8 writers x 100 signed
# events with 10% duplicates racing across writers; exactly the unique
# ones stored, each listed once, every writer's events in the order it
# sent them; walking with limit 1 and limit 100 gives the same sequence;
# kill -9 of writers mid-stream loses no acknowledged event and tears
# nothing; the CGI and the module writing one file at once. Sizes:
# WH_LOAD_WRITERS (8), WH_LOAD_EVENTS (100 x WH_SCALE),
# WH_LOAD_MIX_EVENTS (25 x WH_SCALE, 4 writers per host).
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/inbox_lib.sh"
ib_cgi_install
W=${WH_LOAD_WRITERS:-8}
E=${WH_LOAD_EVENTS:-$(wh_size 100)}

wh_write_config "$T/etc/cgi.conf" "InboxParams $T/data/cgi.db"
wh_write_config "$T/etc/kill.conf" "InboxParams $T/data/kill.db"
ib_cgi_location /cgi/inbox "SetEnv WIREHOOK_CONFIG $T/etc/cgi.conf"
ib_cgi_location /cgi/kill "SetEnv WIREHOOK_CONFIG $T/etc/kill.conf"
wh_write_config "$T/etc/mix.conf" "InboxParams $T/data/mix.db"
ib_cgi_location /cgi/mix "SetEnv WIREHOOK_CONFIG $T/etc/mix.conf"
wh_httpd_extra "<Location /mix>
    SetHandler wirehook
    WirehookConfig $T/etc/mix.conf
</Location>"
wh_httpd_conf
wh_httpd_start || exit 1

# ------------------------------------------------------------ the CGI ---
ib_load_run cgi "$WH_URL/cgi/inbox" "$W" "$E"
echo "   CGI (mod_cgid, SQLite): $W x $E requests in ${IB_LOAD_SECS}s"
ib_load_verify cgi "$WH_URL/cgi/inbox" 100 complete
ib_check_verify "CGI ${W}x${E}"
db="$T/data/cgi.db"
assert_eq "$((W * E * 9 / 10))" "$(sqlite3 "$db" 'SELECT count(*) FROM wh_events')" "CGI: exactly the unique events stored"
assert_eq "$((W * E * 9 / 10)) 1 $((W * E * 9 / 10))" \
    "$(sqlite3 "$db" "SELECT count(*) || ' ' || min(seq) || ' ' || max(seq) FROM wh_order")" \
    "CGI: every stored event has a position, no gaps, duplicates took none"

# limit 1 and limit 100 walk the same sequence (limit 1 over the CGI costs
# one process per record, so over the first 300 only; in full below)
ib_walk "$WH_URL/cgi/inbox" 100 >"$T/walk100"
python3 - "$T" "$WH_URL/cgi/inbox" "$WH_USER" "$WH_PASSWD" >"$T/walk1" <<'PY'
import sys, json, base64, http.client, urllib.parse
sys.path.insert(0, sys.argv[1])
u = urllib.parse.urlsplit(sys.argv[2])
auth = "Basic " + base64.b64encode(("%s:%s" % (sys.argv[3], sys.argv[4])).encode()).decode()
c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
off = 0
for _ in range(300):
    c.request("GET", "%s?offset=%d&limit=1" % (u.path, off), headers={"Authorization": auth})
    d = json.loads(c.getresponse().read())
    for e in d["events"]:
        print(e["notificationId"])
    off = int(d["pagination"]["offset"])
PY
assert_eq "$(head -n 300 "$T/walk100" | sha256sum)" "$(sha256sum <"$T/walk1")" \
    "CGI: limit 1 and limit 100 give the same first 300"

# ------------------------------------------------- the module's /inbox ---
if [ -f "$WH_MOD_SO" ]; then
    ib_load_run mod "$WH_URL/inbox" "$W" "$E"
    echo "   module (SetHandler wirehook, SQLite): $W x $E requests in ${IB_LOAD_SECS}s"
    ib_load_verify mod "$WH_URL/inbox" 100 complete
    ib_check_verify "module ${W}x${E}"
    ib_walk "$WH_URL/inbox" 100 >"$T/mwalk100"
    ib_walk "$WH_URL/inbox" 1 >"$T/mwalk1"
    assert_eq "$((W * E * 9 / 10))" "$(wc -l <"$T/mwalk1")" "module: limit 1 walks every record"
    assert_eq "$(sha256sum <"$T/mwalk100")" "$(sha256sum <"$T/mwalk1")" \
        "module: limit 1 and limit 100 give the same sequence"
    ib_walk "$WH_URL/inbox" 7 "status=Send+Ready" >"$T/f7"
    ib_walk "$WH_URL/inbox" 100 "status=Send+Ready" >"$T/f100"
    assert_eq "$(sha256sum <"$T/f100")" "$(sha256sum <"$T/f7")" "module: a filtered walk pages the same"
    assert_ne 0 "$(wc -l <"$T/f7")" "module: the filter matched"
else
    _wh_bad "module built" "no $WH_MOD_SO"
fi

# ------------------------------------- the CGI and the module at once ---
# One SQLite file written by both hosts at the same time: the self-
# contained CGI (static glibc) and the module's children (the system's
# glibc) queue on the same robust pthread mutex in DATABASE-lock, whose
# layout must be the same in both.
if [ -f "$WH_MOD_SO" ]; then
    MW=4 ME=${WH_LOAD_MIX_EVENTS:-$(wh_size 25)}
    ( ib_load_run mixcgi "$WH_URL/cgi/mix" "$MW" "$ME" ) &
    ( ib_load_run mixmod "$WH_URL/mix" "$MW" "$ME" ) &
    wait
    IB_LOAD_WRITERS=$MW IB_LOAD_EVENTS=$ME
    ib_load_verify mixcgi "$WH_URL/mix" 100 complete
    ib_check_verify "CGI and module at once, the CGI's ${MW}x${ME}"
    [[ $IB_VERIFY_OUT =~ unique=([0-9]+) ]] && u1=${BASH_REMATCH[1]}
    ib_load_verify mixmod "$WH_URL/cgi/mix" 100 complete
    ib_check_verify "CGI and module at once, the module's ${MW}x${ME}"
    [[ $IB_VERIFY_OUT =~ unique=([0-9]+) ]] && u2=${BASH_REMATCH[1]}
    assert_eq "$((u1 + u2))" "$(sqlite3 "$T/data/mix.db" 'SELECT count(*) FROM wh_events')" \
        "CGI and module at once: every unique event of both stored once"
fi

# ------------------------------------------------ kill -9 mid-stream ---
ib_load_run kill "$WH_URL/cgi/kill" "$W" "$E" 2
ib_load_verify kill "$WH_URL/cgi/kill" 100
ib_check_verify "kill -9 of half the writers"
db="$T/data/kill.db"
assert_eq ok "$(sqlite3 "$db" 'PRAGMA integrity_check')" "kill -9: database intact"
assert_eq "$(sqlite3 "$db" 'SELECT count(*) FROM wh_events')" "$(sqlite3 "$db" 'SELECT max(seq) FROM wh_order')" \
    "kill -9: sequence has no gaps"
assert_eq 0 "$(sqlite3 "$db" "SELECT count(*) FROM wh_events WHERE json_valid(body) = 0")" \
    "kill -9: every stored body is whole JSON"

wh_done
