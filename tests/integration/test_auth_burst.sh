#!/usr/bin/env bash
# A burst of requests with one credential on a fresh httpd (after a start,
# a reload, or an idle spell past AuthCacheTTL the cache is empty): one
# bcrypt check per child process answers them all, the other requests
# wait for it instead of each running their own (wh_auth_flight.c); a
# wrong password in a burst is refused to every request, as alone.
. "$(dirname "$0")/lib.sh"
wh_init
N=12
# cost 10: a check takes tens of milliseconds, so the whole burst is in
# flight while the first request checks
PW="burst-pass-$RANDOM"
htpasswd -bBC 10 "$WH_HTPASSWD" burst "$PW" >/dev/null 2>&1
assert_eq 1 "$(grep -c '^burst:\$2y\$10\$' "$WH_HTPASSWD")" "a cost-10 bcrypt user for the burst"
wh_httpd_conf
wh_httpd_start || exit 1
W="$WH_URL/v1/wires"

# burst NAME USER:PASS: N signed requests at once, new ids (all signed
# first, so they leave together); their statuses in $T/NAME.status.*
burst() {
    local name=$1 auth=$2 i ts sig
    local -a bodies=() sigs=() pids=()
    printf -v ts '%(%s)T' -1
    for i in $(seq 1 "$N"); do
        bodies[i]=$(wh_body Complete)
        _wh_sign_fast sig "$WH_SECRETS" POST "$W" "${bodies[i]}" "$ts" ||
            sig=$(wh_sign "$WH_SECRETS" POST "$W" "${bodies[i]}" "$ts")
        sigs[i]=$sig
    done
    for i in $(seq 1 "$N"); do
        curl -s -o /dev/null -w '%{http_code}' --max-time 20 -X POST --data-binary "@${bodies[i]}" \
            -H "Expect:" -H "Content-Type: application/json" -u "$auth" \
            -H "$WH_TS_HEADER: $ts" -H "$WH_SIG_HEADER: ${sigs[i]}" "$W" >"$T/$name.status.$i" &
        pids+=($!)
    done
    wait "${pids[@]}"
}
CHECKED="password of user burst checked against BasicAuthFile"
checks() { grep -c "$CHECKED" "$T/logs/error.log"; }
# the child processes that checked it
checkers() { grep "$CHECKED" "$T/logs/error.log" | grep -o '\[pid [0-9]*' | sort -u | wc -l; }

burst good "burst:$PW"
ok=0
for i in $(seq 1 "$N"); do [ "$(cat "$T/good.status.$i")" = 200 ] && ok=$((ok + 1)); done
assert_eq "$N" "$ok" "all $N requests of the burst are accepted"
n=$(checks)
procs=$(checkers)
assert_true "one password check per child process, not one per request ($n for $N requests, $procs processes)" \
    test "$n" -ge 1 -a "$n" -eq "$procs" -a "$n" -lt "$N"
assert_eq "$N" "$(wh_app_calls)" "the application got each notification once"

# the same burst again: a child that checked answers from its cache. (The
# test's httpd starts two children, and a loaded machine may hand the
# whole first burst to one: the other then checks once now.)
burst again "burst:$PW"
n2=$(checks); procs2=$(checkers)
assert_true "a second burst checks no password a child checked before ($n2 checks, $procs2 processes)" \
    test "$n2" -eq "$procs2"

# a wrong password: every request refused, whoever ran the check
calls=$(wh_app_calls)
burst wrong "burst:not-$PW"
bad=0
for i in $(seq 1 "$N"); do [ "$(cat "$T/wrong.status.$i")" = 401 ] && bad=$((bad + 1)); done
assert_eq "$N" "$bad" "a burst with a wrong password is refused, every request of it"
assert_eq "$calls" "$(wh_app_calls)" "no refused request reached the application"
wh_done
