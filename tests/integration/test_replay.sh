#!/usr/bin/env bash
# Replay protection that never forgets inside the window: with the default
# store (ReplayCache lmdb, wirehook's own LMDB file) an accepted
# notificationId is a duplicate after thousands of others (past the old
# shmcb default's ~2,000), across full and graceful restarts, a killed
# httpd, and a reboot after a clean stop; after a reboot without one the
# file is discarded and what it cannot judge is 503. dbm (mod_socache_dbm)
# keeps the same promise more slowly; a fixed-size shmcb answers 503 rather
# than evict, and 503 after each start for what it cannot judge; a store
# emptied behind httpd's back (its epoch marker gone) answers 503. A
# replayed request is never delivered a second time. WH_FLOOD sets the
# flood size (make soak: 120,000).
. "$(dirname "$0")/lib.sh"
wh_init
FLOOD=${WH_FLOOD:-3000}
SMALL_TOL=10
wh_write_config "$T/etc/small.conf" "ReplayCache shmcb:$T/run/small(16384)" \
    "TimestampTolerance $SMALL_TOL" "ReplayWindow 300"
wh_write_config "$T/etc/tiny.conf" "ReplayCache lmdb:$T/run/tiny(65536)"
wh_write_config "$T/etc/mk.conf" "ReplayCache dbm:$T/run/mk-replay" \
    "TimestampTolerance $SMALL_TOL" "ReplayWindow 60"
WH_EXTRA_MODULES="rewrite"
wh_httpd_extra "ScriptAlias /small \"$T/cgi-bin/record.cgi\"
ScriptAlias /mk \"$T/cgi-bin/record.cgi\"
ScriptAlias /slow \"$T/cgi-bin/record.cgi\"
<Location /slow>
    SetEnv WH_APP_SLEEP 3
    WirehookConfig $WH_CONF
</Location>
<Location /small>
    WirehookConfig $T/etc/small.conf
</Location>
<Location /mk>
    WirehookConfig $T/etc/mk.conf
</Location>
ScriptAlias /linger \"$T/cgi-bin/record.cgi\"
<Location /linger>
    SetEnv WH_APP_LINGER 30
    WirehookConfig $WH_CONF
</Location>
ScriptAlias /mkslow \"$T/cgi-bin/record.cgi\"
<Location /mkslow>
    SetEnv WH_APP_SLEEP 2
    WirehookConfig $T/etc/mk.conf
</Location>
# the cheapest application: verified, recorded, answered 204
<Location /flood>
    WirehookConfig $WH_CONF
    RewriteEngine On
    RewriteRule ^ - [R=204]
</Location>
ScriptAlias /tiny \"$T/cgi-bin/record.cgi\"
<Location /tiny>
    WirehookConfig $T/etc/tiny.conf
</Location>
<Location /tiny-flood>
    WirehookConfig $T/etc/tiny.conf
    RewriteEngine On
    RewriteRule ^ - [R=204]
</Location>
<Location /small-flood>
    WirehookConfig $T/etc/small.conf
    RewriteEngine On
    RewriteRule ^ - [R=204]
</Location>"
wh_httpd_conf
started=$(date +%s)
wh_httpd_start || exit 1
W="$WH_URL/v1/wires"
log=$(wh_errlog)
assert_contains "$log" "WH00962: ReplayCache lmdb:" "startup states what the default lmdb store guarantees"
assert_contains "$log" "survives graceful and full restarts and killed processes" "... it survives restarts and crashes"
assert_contains "$log" "answers 503 rather than evict" "... and never evicts"
assert_contains "$log" "WH00975: ReplayCache lmdb:: a new store ($T/run/wirehook-replay.mdb)" "a default store created by this start is new"
assert_true "... its files are the User's, mode 0600" test "$(stat -c '%U %a' "$T/run/wirehook-replay.mdb")" = "www-data 600"
assert_contains "$log" "WH00962: ReplayCache dbm:$T/run/mk-replay" "startup states what a dbm store guarantees"
assert_contains "$log" "no fixed capacity" "... no fixed capacity"
assert_contains "$log" "WH00960: ReplayCache dbm:$T/run/mk-replay: a new store" "a dbm store created by this start is new"
cap=$(grep -oE 'ReplayCache shmcb:[^ ]* \(WirehookConfig [^)]*\): holds [0-9]+' "$T/logs/error.log" | grep -oE '[0-9]+$' | head -n 1)
assert_eq 256 "$cap" "startup states the shmcb store's capacity in ids (16384 bytes: 8 subcaches of 32)"
assert_contains "$log" "does NOT survive a restart" "... and that it does not survive a restart"

# send_many CONF URL N -> "accepted rejected_503 other" counts
send_many() {
    "$WIREHOOK" send --config "$1" --url "$2" --user "$WH_USER:$WH_PASSWD" \
        --sample Complete --count "$3" --concurrency 8 2>/dev/null |
        awk '$1 ~ /^2/ && $0 !~ /duplicate/ {a++} $1 == 503 {u++} $1 !~ /^2/ && $1 != 503 {o++}
             END {printf "%d %d %d\n", a, u, o}'
}
# exact REQUEST-FILE: replays a captured request byte for byte (body, timestamp, signature)
capture() { printf '%s %s\n' "$2" "$3" >"$1"; }   # file ts body
exact() {
    local ts body
    read -r ts body <"$1"
    WH_TS=$ts wh_post "$2" "$body"
}
# assert_retry_after LOW HIGH MESSAGE: the last answer's Retry-After is
# whole seconds from LOW to HIGH (bounds the suite measured, never a
# duration it expects)
assert_retry_after() {
    local ra
    ra=$(wh_header Retry-After)
    if [[ $ra =~ ^[0-9]+$ ]] && [ "$ra" -ge "$1" ] && [ "$ra" -le "$2" ]; then
        _wh_ok "$3 (Retry-After: $ra)"
    else
        _wh_bad "$3" "Retry-After: [$ra], expected $1 to $2"
    fi
}

# ---- shmcb right after a start: it cannot judge, so 503 ---------------
b=$(wh_body Complete)
wh_post "$WH_URL/small" "$b"
assert_status 503 "shmcb just started: a notification it cannot judge is 503"
assert_json_code replay_cache_unavailable "... replay_cache_unavailable"
# it judges one signed TimestampTolerance after its start: no later
assert_retry_after 1 "$SMALL_TOL" "... back when it judges, at most TimestampTolerance after its start"
assert_eq 0 "$(wh_app_calls)" "... and not delivered"
assert_contains "$(wh_errlog)" "WH00964" "... with the reason logged"

# ---- the default store past the old default's capacity ----------------
b0=$(wh_body Complete)
ts0=$(date +%s)
WH_TS=$ts0 wh_post "$W" "$b0"
assert_status 200 "lmdb: a notification is delivered"
capture "$T/req0" "$ts0" "$b0"
read -r acc u o <<<"$(send_many "$WH_CONF" "$WH_URL/flood" "$FLOOD")"
assert_eq "$FLOOD 0 0" "$acc $u $o" "lmdb: $FLOOD more notifications are all accepted (no fixed capacity)"
calls=$(wh_app_calls)
exact "$T/req0" "$W"
assert_json_code duplicate "lmdb: the first one, replayed byte for byte after $FLOOD others, is a duplicate"
assert_eq "$calls" "$(wh_app_calls)" "... and not delivered again"
wh_post "$W" "$b0"
assert_json_code duplicate "lmdb: re-signed by the sender (a retry), still a duplicate"

# ---- across restarts ---------------------------------------------------
wh_httpd_restart || exit 1
exact "$T/req0" "$W"
assert_json_code duplicate "lmdb: after a full restart (stop, start), the captured request is a duplicate"
assert_eq "$calls" "$(wh_app_calls)" "... not delivered"
wh_httpd_graceful || exit 1
exact "$T/req0" "$W"
assert_json_code duplicate "lmdb: after a graceful restart, still a duplicate"
assert_eq "$calls" "$(wh_app_calls)" "... not delivered"
assert_not_contains "$(wh_errlog)" "WH00977" "lmdb: the file was trusted across both restarts"
# the old generation's children have exited by now: an exiting child is
# not a stop, and must not mark the store clean while others write
for _ in 1 2 3 4 5 6 7 8 9 10; do [ "$(ps -o pid= --ppid "$(cat "$T/run/httpd.pid")" | wc -l)" -le 2 ] && break; sleep 0.3; done
assert_contains "$(cat "$T/run/wirehook-replay.mdb-state")" "clean 0" "lmdb: while httpd runs (old children gone after a graceful restart) the state says in use"
assert_not_contains "$(wh_errlog)" "WH00972" "... and no child tried to mark it"
wh_httpd_kill9
wh_httpd_start || exit 1
exact "$T/req0" "$W"
assert_json_code duplicate "lmdb: after httpd was killed (kill -9, no clean stop) and started, still a duplicate"
assert_eq "$calls" "$(wh_app_calls)" "... not delivered"
assert_not_contains "$(wh_errlog)" "WH00977" "... the same boot: the page cache held every id, the file is trusted"

# ---- a delivery under way, and one killed with httpd ------------------
# The id is claimed while the application runs and confirmed once it has
# answered. A copy meanwhile is 503 delivery_in_progress (answered
# "duplicate", it would be lost if that delivery failed); a handler killed
# with httpd (kill -9, or a full restart) leaves a claim whose process is
# gone, so the bank's retry is delivered, never answered "duplicate".
S="$WH_URL/slow"
sb=$(wh_body Complete)
( wh_post "$S" "$sb" >/dev/null 2>&1 ) &
slow=$!
for _ in $(seq 1 40); do [ "$(wh_app_calls)" -gt "$calls" ] && break; sleep 0.1; done
assert_eq $((calls + 1)) "$(wh_app_calls)" "claim: the slow application is running"
wh_post "$S" "$sb"
assert_status 503 "claim: a copy while the first delivery is under way: 503"
assert_json_code delivery_in_progress "claim: delivery_in_progress"
assert_header Retry-After 10 "claim: with Retry-After"
wait "$slow"
wh_post "$S" "$sb"
assert_json_code duplicate "claim: once the application answered, a copy is a duplicate"
assert_eq $((calls + 1)) "$(wh_app_calls)" "claim: delivered once"
calls=$(wh_app_calls)
kb=$(wh_body Complete)
( wh_post "$S" "$kb" >/dev/null 2>&1 ) &
slow=$!
for _ in $(seq 1 40); do [ "$(wh_app_calls)" -gt "$calls" ] && break; sleep 0.1; done
assert_eq $((calls + 1)) "$(wh_app_calls)" "claim: a second slow delivery is running"
wh_httpd_kill9
wait "$slow" 2>/dev/null
wh_httpd_start || exit 1
calls=$(wh_app_calls)
wh_post "$S" "$kb"
assert_status 200 "claim: after httpd was killed during the delivery, the bank's retry is answered 200"
assert_contains "$WH_BODY" '"app":"received"' "... by the application: delivered, not answered duplicate"
assert_eq $((calls + 1)) "$(wh_app_calls)" "... the application ran for it"
wh_post "$S" "$kb"
assert_json_code duplicate "... and the retry's own delivery confirmed it: a duplicate now"
calls=$(wh_app_calls)
# A 200 the client has read is a confirmed id, even if httpd dies before
# its handler returns: the application below answers at once and runs on
# for 30 s (its answer never ends; the client gives up reading after 5 s,
# the 200 and the body in hand), and httpd is killed while it still runs.
# A copy afterwards is a duplicate, never a second delivery.
lb=$(wh_body Complete)
WH_CURL_TIMEOUT=5 wh_post "$WH_URL/linger" "$lb"
assert_status 200 "confirm: an application that answers and runs on: its 200 read while the handler runs"
assert_contains "$WH_BODY" '"app":"received"' "... with the application's body"
wh_httpd_kill9
wh_httpd_start || exit 1
wh_post "$WH_URL/linger" "$lb"
assert_json_code duplicate "confirm: httpd killed right after the 200 was read: the copy is a duplicate"
assert_eq $((calls + 1)) "$(wh_app_calls)" "... delivered once"
calls=$(wh_app_calls)

# ---- shmcb across restarts: what it cannot know is 503 ----------------
# after its own start it judges only notifications signed TimestampTolerance
# later; a request captured before a restart, replayed byte for byte within
# its timestamp's tolerance, is 503 (or, once older, 401): never delivered
wait_judging() { local t0; t0=$(date +%s); while [ $(( $(date +%s) - t0 )) -le $((SMALL_TOL + 1)) ]; do sleep 1; done; }
# refused_replay LABEL: the captured request $T/smallr, replayed exactly
refused_replay() {
    local ts body age calls
    read -r ts body <"$T/smallr"
    calls=$(wh_app_calls)
    age=$(( $(date +%s) - ts ))
    exact "$T/smallr" "$WH_URL/small"
    if [ "$age" -lt "$SMALL_TOL" ]; then
        assert_status 503 "shmcb $1: the captured request ($age s old) is 503"
    else
        assert_status 401 "shmcb $1: the captured request ($age s old, the machine was slow) is refused by its timestamp"
    fi
    assert_eq "$calls" "$(wh_app_calls)" "shmcb $1: ... never delivered again"
}
wh_httpd_restart || exit 1
wait_judging
b=$(wh_body Complete); ts=$(date +%s)
WH_TS=$ts wh_post "$WH_URL/small" "$b"
assert_status 200 "shmcb: once it can judge, a notification is delivered"
capture "$T/smallr" "$ts" "$b"
wh_httpd_graceful || exit 1
refused_replay "after a graceful restart"
wh_httpd_restart || exit 1
refused_replay "after a full restart"

# A store filled past capacity must refuse, never evict: 12 notifications
# go to /NAME (delivered, kept in $T/NAME.N) before the flood, and after it
# every one of them sent again is still a duplicate, delivered only once.
send_early() { # NAME LABEL
    local calls i b
    calls=$(wh_app_calls)
    for i in $(seq 1 12); do
        b=$(wh_body Complete)
        wh_post "$WH_URL/$1" "$b"
        [ "$WH_STATUS" = 200 ] && cp "$b" "$T/$1.$i"
    done
    assert_eq $((calls + 12)) "$(wh_app_calls)" "$2: 12 notifications delivered"
}
resend_early() { # NAME MESSAGE
    local calls i dups=0
    calls=$(wh_app_calls)
    for i in $(seq 1 12); do
        [ -f "$T/$1.$i" ] || continue
        wh_post "$WH_URL/$1" "$T/$1.$i"
        [ "$(wh_json_code "$WH_BODY")" = duplicate ] && dups=$((dups + 1))
    done
    assert_eq 12 "$dups" "$2"
    assert_eq "$calls" "$(wh_app_calls)" "... none delivered twice"
}

# ---- shmcb: full means 503, never an eviction -------------------------
wait_judging
early=$(date +%s)
send_early small "shmcb"
read -r acc u o <<<"$(send_many "$T/etc/small.conf" "$WH_URL/small-flood" 400)"
assert_true "shmcb: of 400 more, no more are accepted than it holds ($acc + 12 <= $cap)" test $((acc + 12)) -le "$cap"
assert_true "shmcb: the rest are 503, not evictions ($u)" test "$u" -ge $((400 - cap))
assert_eq 0 "$o" "shmcb: nothing else went wrong"
assert_contains "$(wh_errlog)" "WH00965" "shmcb: 'full' is logged"
# a refusal says when the subcache's oldest ids lapse: within ReplayWindow
# (300 s, + a 5 s bucket) of the oldest, sent after $early
for _ in $(seq 1 40); do
    wh_post "$WH_URL/small-flood" "$(wh_body Complete)"
    [ "$WH_STATUS" = 503 ] && break
done
assert_status 503 "shmcb full: a refusal"
assert_retry_after $((300 - ($(date +%s) - early) - 1)) 305 \
    "shmcb full: back when its oldest ids lapse, not at a guess"
resend_early small "shmcb: every early notification, sent again past the capacity, is still a duplicate"

# ---- lmdb: a full map means 503, never an eviction ---------------------
# 64 KiB hold a few hundred ids: a flood fills it, and every id it took
# before stays a duplicate
send_early tiny "lmdb (64 KiB map)"
read -r acc u o <<<"$(send_many "$T/etc/tiny.conf" "$WH_URL/tiny-flood" 3000)"
assert_true "lmdb: a flood of 3000 fills the map: the rest are 503 ($acc accepted, $u refused)" test "$u" -gt 0
assert_eq 0 "$o" "lmdb: nothing else went wrong"
assert_contains "$(wh_errlog)" "WH00980" "lmdb: 'full' is logged"
resend_early tiny "lmdb: every early notification, sent again with the map full, is still a duplicate"

# ---- a store emptied behind httpd's back -------------------------------
wh_post "$WH_URL/mk" "$(wh_body Complete)"
assert_status 200 "dbm store created at start: trusted as new, delivers at once"
# dbm claims an id for the delivery's lease and confirms it after: a copy
# meanwhile is 503 delivery_in_progress, a copy after it a duplicate
calls=$(wh_app_calls)
mb=$(wh_body Complete)
( wh_post "$WH_URL/mkslow" "$mb" >/dev/null 2>&1 ) &
slow=$!
for _ in $(seq 1 40); do [ "$(wh_app_calls)" -gt "$calls" ] && break; sleep 0.1; done
wh_post "$WH_URL/mkslow" "$mb"
assert_json_code delivery_in_progress "dbm: a copy while the first delivery is under way: 503 delivery_in_progress"
assert_header Retry-After 10 "dbm: ... back in 10 s (a delivery usually ends sooner)"
wait "$slow"
wh_post "$WH_URL/mkslow" "$mb"
assert_json_code duplicate "dbm: once the application answered, a copy is a duplicate"
assert_eq $((calls + 1)) "$(wh_app_calls)" "dbm: delivered once"
rm -f "$T"/run/mk-replay*
calls=$(wh_app_calls)
wh_post "$WH_URL/mk" "$(wh_body Complete)"
assert_status 503 "dbm file deleted while running: the store lost its marker: 503"
assert_eq "$calls" "$(wh_app_calls)" "... not delivered"
assert_contains "$(wh_errlog)" "WH00957" "... logged as an emptied store"

# ---- the default store across a reboot -----------------------------------
# A reboot is simulated by giving the state file another boot id.
state="$T/run/wirehook-replay.mdb-state"
other_boot() { sed -i 's/^boot .*/boot 00000000-0000-4000-8000-000000000000/' "$state"; }
wh_httpd_stop
assert_contains "$(cat "$state")" "clean 1" "lmdb: a clean stop syncs the file and marks it clean"
other_boot
wh_httpd_start || exit 1
exact "$T/req0" "$W"
assert_json_code duplicate "lmdb: after a reboot that followed a clean stop, the captured request is a duplicate"
assert_eq "$calls" "$(wh_app_calls)" "... not delivered"
assert_not_contains "$(wh_errlog)" "WH00977" "... the synced file was trusted"
assert_contains "$(cat "$state")" "clean 0" "... and is marked in use again"
calls=$(wh_app_calls)
wh_httpd_kill9
other_boot
started=$(date +%s)
wh_httpd_start || exit 1
assert_contains "$(wh_errlog)" "WH00977" "lmdb: after a crash and a reboot the unsynced file is discarded, and that is logged"
exact "$T/req0" "$W"
assert_status 503 "... the captured request (it cannot be judged now) is 503, never delivered"
assert_json_code replay_cache_unavailable "... replay_cache_unavailable"
wh_post "$W" "$(wh_body Complete)"
assert_status 503 "... and so is a new one signed now, for TimestampTolerance"
# the default TimestampTolerance, 300 s, from the start
assert_retry_after $((300 - ($(date +%s) - started) - 1)) 300 \
    "... back when the store judges one signed then, TimestampTolerance after its start"
assert_eq "$calls" "$(wh_app_calls)" "... none delivered"

wh_done
