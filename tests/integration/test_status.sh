#!/usr/bin/env bash
# wirehook's counters in mod_status (mod_wirehook/wh_mod_status.c): per
# configuration (one WirehookConfig file) accepted, duplicate, every rejection
# code and the inbox's results, read back through /server-status?auto and the
# HTML page with exact numbers; concurrent requests over several children add
# up; two configurations count apart; a graceful restart and a plain restart
# keep the numbers, a configuration dropped and re-added keeps its slot, a new
# one starts at zero; a stop and start starts everything at zero.
# The same numbers in Prometheus's format (SetHandler wirehook-metrics, as
# examples/prometheus/apache.conf sets it up): every counter equal to its
# ?auto line, the latency histogram, the replay store and the inbox;
# `promtool check metrics` on the real output, `promtool check rules`,
# `promtool test rules` and `promtool check config` on the example's alert
# rules and scrape configuration; every metric documented.
. "$(dirname "$0")/lib.sh"
wh_init

# ------------------------------------------------------------- set-up ---
CONF_A=$WH_CONF                                  # /v1/wires, /ignore, /inbox
CONF_B="$T/etc/second.conf"                      # /v2/wires
CONF_C="$T/etc/down.conf"                        # /down: inbox that cannot open
CONF_D="$T/etc/later.conf"                       # added by a graceful restart
wh_write_config "$CONF_B"
wh_write_config "$CONF_C" "InboxParams $T/no-such-dir/inbox.db"
wh_write_config "$CONF_D"
WH_EXTRA_MODULES="status ${WH_EXTRA_MODULES:-}" wh_httpd_conf
wh_httpd_extra "<Location /server-status>
    SetHandler server-status
    Require ip 127.0.0.1
</Location>
$(<"$WH_TOP/examples/prometheus/apache.conf")
<Location /wirehook-metrics-elsewhere>
    SetHandler wirehook-metrics
    Require ip 192.0.2.1
</Location>
ScriptAlias /v2/wires \"$T/cgi-bin/record.cgi\"
<Location /v2/wires>
    WirehookConfig $CONF_B
</Location>
<Location /down>
    SetHandler wirehook
    WirehookConfig $CONF_C
</Location>"
cp "$T/extra.conf" "$T/extra.base"
wh_httpd_start || exit 1

# ------------------------------------------------------------ helpers ---
# st_fetch -- /server-status?auto into $T/status.auto, read into ST (key ->
# value) and IDX (config path -> index)
declare -A ST=() IDX=()
st_fetch() {
    local k v line
    curl -sS --max-time 20 "$WH_URL/server-status?auto" >"$T/status.auto"
    ST=(); IDX=()
    while IFS= read -r line; do
        [[ $line == *": "* ]] || continue
        k=${line%%: *}; v=${line#*: }
        ST[$k]=$v
        [[ $k =~ ^WirehookSite\[([0-9]+)\]Config$ ]] && IDX[$v]=${BASH_REMATCH[1]}
    done <"$T/status.auto"
}
# st_index CONF -> the configuration's index in the ?auto keys ("" if not shown)
st_index() { printf '%s\n' "${IDX[$1]:-}"; }
# st CONF KEY -> the value of WirehookSite[i]KEY for the configuration CONF
st() {
    local i=${IDX[$1]:-}
    [ -n "$i" ] || return 0
    printf '%s\n' "${ST[WirehookSite[$i]$2]:-}"
}
# The codes a notification can be refused with: the counted rows of
# WH_CODES in shared/verify/wh_verdict.h.
mapfile -t CODES < <(sed -n 's/^[[:space:]]*X([A-Z_]*, "\([a-z_]*\)", 1).*/\1/p' "$WH_TOP/shared/verify/wh_verdict.h")
assert_true "wh_verdict.h lists 15 or more counted codes" test "${#CODES[@]}" -ge 15
# expect CONF LABEL KEY=N... -- every counter of the configuration: those named are
# N, all others 0 (so an unexpected count anywhere fails)
expect() {
    local conf=$1 label=$2 kv k c
    declare -A want=()
    shift 2
    for kv in "$@"; do [ -n "$kv" ] && want[${kv%%=*}]=${kv#*=}; done
    for k in Accepted Duplicate InboxStored InboxDuplicate InboxUnavailable "Rejected[other]"; do
        assert_eq "${want[$k]:-0}" "$(st "$conf" "$k")" "$label: $k"
    done
    for c in "${CODES[@]}"; do
        assert_eq "${want[$c]:-0}" "$(st "$conf" "Rejected[$c]")" "$label: Rejected[$c]"
    done
}
post() { wh_post "$WH_URL$1" "$(wh_body Complete)" "${@:2}"; }

# mt_fetch -- the metrics into $T/metrics.txt, read into MT (series -> value)
declare -A MT=()
mt_fetch() {
    local line
    wh_curl "$WH_URL/wirehook-metrics"
    cp "$T/resp.body" "$T/metrics.txt"
    MT=()
    while IFS= read -r line; do
        [[ -z $line || $line == "#"* ]] && continue
        MT[${line% *}]=${line##* }
    done <"$T/metrics.txt"
}
# mt SERIES -> its value ("" when absent), e.g. mt 'wirehook_inbox_up{config="/x"}'
mt() { printf '%s\n' "${MT[$1]:-}"; }
# mt_agrees CONF LABEL [noinbox] -- every answer counted in ?auto is the
# metric's, and so are the inbox's results (none for a configuration
# without an inbox)
mt_agrees() {
    local conf=$1 kv k code bad="" n=0
    local -a pairs=(Accepted=accepted Duplicate=duplicate "Rejected[other]=other")
    for code in "${CODES[@]}"; do pairs+=("Rejected[$code]=$code"); done
    for kv in "${pairs[@]}"; do
        k=${kv%%=*}; code=${kv#*=}
        [ "$(st "$conf" "$k")" = "$(mt "wirehook_notifications_total{config=\"$conf\",code=\"$code\"}")" ] ||
            bad+=" $code"
    done
    assert_eq "" "$bad" "$2: every answer of ?auto is the metric's"
    for k in stored:InboxStored duplicate:InboxDuplicate unavailable:InboxUnavailable; do
        if [ "${3:-}" = noinbox ]; then
            [ -z "$(mt "wirehook_inbox_stores_total{config=\"$conf\",result=\"${k%%:*}\"}")" ] || bad+=" ${k%%:*}"
        else
            [ "$(st "$conf" "${k#*:}")" = "$(mt "wirehook_inbox_stores_total{config=\"$conf\",result=\"${k%%:*}\"}")" ] ||
                bad+=" ${k%%:*}"
        fi
    done
    assert_eq "" "$bad" "$2: the inbox's results are the metric's${3:+ (none: no inbox)}"
}
# mt_count CONF -> the configuration's latency histogram's count
mt_count() { mt "wirehook_verification_duration_seconds_count{config=\"$1\"}"; }
# mt_answers CONF -> the sum of its answers in ?auto
mt_answers() {
    local k sum=0
    for k in Accepted Duplicate "Rejected[other]"; do sum=$((sum + $(st "$1" "$k"))); done
    for k in "${CODES[@]}"; do sum=$((sum + $(st "$1" "Rejected[$k]"))); done
    echo "$sum"
}
# promtool_check WHAT ARGS... -- promtool ARGS passes (its report when not)
HAVE_PROMTOOL=""
command -v promtool >/dev/null && HAVE_PROMTOOL=1
promtool_check() {
    local what=$1; shift
    if [ -z "$HAVE_PROMTOOL" ]; then
        wh_skip_case "$what: promtool is not installed (prometheus, build/deps-extra.txt)"
        return 0
    fi
    if promtool "$@" >"$T/promtool.out" 2>&1; then _wh_ok "$what"
    else _wh_bad "$what" "$(<"$T/promtool.out")"; fi
}
ZEROS=$(printf '0%.0s' $(seq 64))

# ------------------------------------------------------ at start: zero ---
st_fetch
assert_contains "$(cat "$T/status.auto")" "Total Accesses:" "mod_status answers ?auto"
assert_eq 3 "$(grep -c '^WirehookSite\[[0-9]*\]Config: ' "$T/status.auto")" "?auto: three configurations listed"
assert_eq 3 "$(sed -n 's/^WirehookSites: //p' "$T/status.auto")" "?auto: WirehookSites: 3"
since=$(sed -n 's/^WirehookCountersSince: //p' "$T/status.auto")
assert_true "?auto: WirehookCountersSince is a time ($since)" test "${since:-0}" -gt 1000000000
IA=$(st_index "$CONF_A"); IB=$(st_index "$CONF_B"); IC=$(st_index "$CONF_C")
# down.conf < second.conf < wirehook.conf
assert_eq "2 1 0" "$IA $IB $IC" "first start: configurations numbered in path order"
for c in "${CODES[@]}"; do
    assert_eq 1 "$(grep -c "^WirehookSite\[$IA\]Rejected\[$c\]: " "$T/status.auto")" "?auto has a line for $c"
done
expect "$CONF_A" "fresh" ""
assert_eq lmdb "$(st "$CONF_A" ReplayStore)" "?auto: the replay store is named (the default, lmdb)"

# ---------------------------------------------- requests of every kind ---
# configuration A in front of the app
good=$(wh_body Complete)
wh_post "$WH_URL/v1/wires" "$good"; assert_status 200 "A: accepted"
post /v1/wires; post /v1/wires
wh_post "$WH_URL/v1/wires" "$good"; assert_json_code duplicate "A: duplicate"
WH_AUTH=- post /v1/wires; assert_json_code auth_required "A: auth_required"
WH_AUTH="$WH_USER:wrong" post /v1/wires; assert_json_code auth_failed "A: auth_failed"
WH_SIG=$ZEROS post /v1/wires; WH_SIG=$ZEROS post /ignore
assert_json_code signature_mismatch "A: signature_mismatch"
WH_SIG=abc post /v1/wires; assert_json_code signature_malformed "A: signature_malformed"
WH_TS=$(( $(date +%s) - 4000 )) post /v1/wires; assert_json_code timestamp_expired "A: timestamp_expired"
WH_TS=- post /v1/wires; assert_json_code timestamp_missing "A: timestamp_missing"
WH_CT=text/plain post /v1/wires; assert_json_code unsupported_media_type "A: unsupported_media_type"
WH_METHOD=PUT post /v1/wires; assert_json_code method_not_allowed "A: method_not_allowed"
printf '{"broken": ' >"$T/broken.json"
wh_post "$WH_URL/v1/wires" "$T/broken.json"; assert_json_code invalid_json "A: invalid_json"
python3 -c 'import sys; sys.stdout.write("{\"pad\":\"" + "x" * 70000 + "\"}")' >"$T/big.json"
wh_post "$WH_URL/v1/wires" "$T/big.json"; assert_json_code body_too_large "A: body_too_large"
# configuration A's inbox: two stored, one duplicate, one quarantined
ib=$(wh_body Review)
wh_post "$WH_URL/inbox" "$ib"; assert_json_code accepted "A inbox: stored"
post /inbox
wh_post "$WH_URL/inbox" "$ib"; assert_json_code duplicate "A inbox: duplicate"
python3 - "$ib" "$T/schema.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["notificationId"] = "not-a-uuid"
open(sys.argv[2], "w").write(json.dumps(d))
EOF
wh_post "$WH_URL/inbox" "$T/schema.json"; assert_json_code schema_violation "A inbox: schema_violation"
wh_curl -u "$WH_USER:$WH_PASSWD" "$WH_URL/inbox?limit=5"
assert_status 200 "A inbox: a listing (not counted)"
# concurrent requests, over the threads of several children
out=$("$WIREHOOK" send --config "$CONF_A" --url "$WH_URL/v1/wires" --user "$WH_USER:$WH_PASSWD" \
    --sample Complete --count 40 --concurrency 8 2>/dev/null)
assert_eq 40 "$(grep -c '^200 ' <<<"$out")" "A: 40 concurrent notifications accepted"
# configuration B
post /v2/wires; assert_status 200 "B: accepted"
WH_SIG=$ZEROS post /v2/wires; assert_json_code signature_mismatch "B: signature_mismatch"
# configuration C: the inbox cannot be opened
post /down; assert_json_code inbox_unavailable "C: inbox_unavailable"

A_WANT=(Accepted=45 Duplicate=2 InboxStored=2 InboxDuplicate=1 auth_required=1 auth_failed=1
        signature_mismatch=2 signature_malformed=1 timestamp_expired=1 timestamp_missing=1
        unsupported_media_type=1 method_not_allowed=1 invalid_json=1 body_too_large=1
        schema_violation=1)
B_WANT=(Accepted=1 signature_mismatch=1)
C_WANT=(InboxUnavailable=1 inbox_unavailable=1)
st_fetch
expect "$CONF_A" "A" "${A_WANT[@]}"
expect "$CONF_B" "B" "${B_WANT[@]}"
expect "$CONF_C" "C" "${C_WANT[@]}"

# ------------------------------------------------------------- metrics ---
mt_fetch
assert_status 200 "metrics: answered"
assert_header Content-Type "text/plain; version=0.0.4; charset=utf-8" "metrics: the exposition format's type"
promtool_check "promtool check metrics passes on the real output" check metrics <"$T/metrics.txt"
mt_agrees "$CONF_A" "metrics, A"
mt_agrees "$CONF_B" "metrics, B" noinbox
mt_agrees "$CONF_C" "metrics, C"
for c in "$CONF_A" "$CONF_B" "$CONF_C"; do
    assert_eq $(( ${#CODES[@]} + 3 )) "$(grep -c "^wirehook_notifications_total{config=\"$c\"," "$T/metrics.txt")" \
        "metrics: accepted, duplicate, each counted code of WH_CODES and other for $c"
done
assert_eq 1 "$(mt "wirehook_build_info{version=\"$(sed -n 's/^WirehookVersion: //p' "$T/status.auto")\"}")" \
    "metrics: wirehook_build_info names the version ?auto does"
assert_eq "$since" "$(mt wirehook_start_time_seconds)" "metrics: the counters' start, as WirehookCountersSince"
# the latency histogram: C's one POST was answered by the inbox handler; A's
# inbox answers are all in it, and nothing that was not answered
assert_eq 1 "$(mt_count "$CONF_C")" "metrics: C's latency counts its one answer"
nA=$(mt_count "$CONF_A"); inboxA=$(( $(st "$CONF_A" InboxStored) + $(st "$CONF_A" InboxDuplicate) + 1 ))
assert_true "metrics: A's latency counts every inbox answer ($nA >= $inboxA)" test "${nA:-0}" -ge "$inboxA"
assert_eq "$(mt_answers "$CONF_A")" "$nA" "metrics: A's latency counts every answer"
assert_eq "$nA" "$(mt "wirehook_verification_duration_seconds_bucket{config=\"$CONF_A\",le=\"+Inf\"}")" \
    "metrics: A's +Inf bucket is its count"
assert_true "metrics: A's latency buckets grow with le, each at most the count" awk -v n="$nA" '
    /^wirehook_verification_duration_seconds_bucket\{config="[^"]*wirehook.conf"/ {
        v = $NF + 0; if (v < last || v > n) bad = 1; last = v; k++ }
    END { exit bad || k != 15 }' "$T/metrics.txt"
assert_true "metrics: A's latency sum is a time in seconds above 0" awk -v s="$(mt "wirehook_verification_duration_seconds_sum{config=\"$CONF_A\"}")" \
    'BEGIN { exit !(s > 0 && s < 100) }'
# the replay store and the inbox
assert_eq 1 "$(mt "wirehook_replay_store_info{config=\"$CONF_A\",provider=\"lmdb\"}")" "metrics: A's replay store is lmdb"
assert_eq 1 "$(mt "wirehook_replay_store_up{config=\"$CONF_A\"}")" "metrics: A's replay store is up"
assert_eq "$(st "$CONF_A" ReplayLive)" "$(mt "wirehook_replay_store_entries{config=\"$CONF_A\"}")" "metrics: replay entries as ReplayLive"
assert_eq "$(st "$CONF_A" ReplayCapacity)" "$(mt "wirehook_replay_store_entries_limit{config=\"$CONF_A\"}")" "metrics: replay limit as ReplayCapacity"
assert_eq "1 2 1" "$(mt "wirehook_inbox_up{config=\"$CONF_A\"}") $(mt "wirehook_inbox_events{config=\"$CONF_A\"}") $(mt "wirehook_quarantine_notifications{config=\"$CONF_A\"}")" \
    "metrics: A's inbox answers, lists two events, holds one in quarantine"
assert_eq "0 " "$(mt "wirehook_inbox_up{config=\"$CONF_C\"}") $(mt "wirehook_inbox_events{config=\"$CONF_C\"}")" \
    "metrics: C's inbox is down, and no figure is made up for it"
assert_eq "" "$(mt "wirehook_inbox_up{config=\"$CONF_B\"}")" "metrics: B keeps no inbox"
assert_false "metrics: no forwarding figures without ForwardUrl" grep -q '^wirehook_forward_' "$T/metrics.txt"
# every family is documented
undocumented=""
while read -r _ _ fam _; do
    grep -q "\`$fam\`" "$WH_TOP/docs/monitoring.md" || undocumented+=" $fam"
done < <(grep '^# TYPE ' "$T/metrics.txt")
assert_eq "" "$undocumented" "metrics: every family is in docs/monitoring.md"
# HEAD, another method, another client
wh_curl -I "$WH_URL/wirehook-metrics"
assert_status 200 "metrics: HEAD"
wh_curl -X POST --data x "$WH_URL/wirehook-metrics"
assert_status 405 "metrics: POST is refused"
wh_curl "$WH_URL/wirehook-metrics-elsewhere"
assert_status 403 "metrics: httpd's Require decides who scrapes"
# the example's alert rules and scrape configuration
promtool_check "promtool check rules: the example's alert rules" check rules "$WH_TOP/examples/prometheus/wirehook-alerts.yml"
promtool_check "promtool test rules: each alert fires when it should" test rules "$WH_LIB_DIR/prometheus/wirehook-alerts.test.yml"
promtool_check "promtool check config: the example's scrape configuration" check config "$WH_TOP/examples/prometheus/prometheus.yml"
# docs/monitoring.md shows the example's <Location> and scrape: the same
# in_example LANG FILE -- the first LANG block of the page's Prometheus
# section, comments aside, is in FILE
in_example() {
    python3 -c '
import re, sys
page, lang, path = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
m = re.search(r"^```" + lang + r"\n(.*?)^```", page[page.index("## Prometheus"):], re.S | re.M)
block = "".join(l for l in m.group(1).splitlines(True) if not l.lstrip().startswith("#")) if m else None
sys.exit(0 if block and block in open(path).read() else 1)' "$WH_TOP/docs/monitoring.md" "$1" "$2"
}
assert_true "docs/monitoring.md's <Location> is examples/prometheus/apache.conf's" \
    in_example apache "$WH_TOP/examples/prometheus/apache.conf"
assert_true "docs/monitoring.md's scrape is examples/prometheus/prometheus.yml's" \
    in_example yaml "$WH_TOP/examples/prometheus/prometheus.yml"

# ------------------------------------------------------ the HTML page ---
curl -sS --max-time 20 "$WH_URL/server-status" >"$T/status.html"
# html CONF LABEL -> the count in the configuration's table row LABEL
html() {
    python3 - "$T/status.html" "$1" "$2" <<'EOF'
import html, re, sys
page, conf, label = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
for m in re.finditer(r"<h3>Configuration \d+: (.*?)</h3>(.*?)(?=<h3>|<hr|$)", page, re.S):
    if html.unescape(m.group(1)) == conf:
        r = re.search(r"<tr><td>%s</td><td>(\d+)</td></tr>" % re.escape(label), m.group(2))
        print(r.group(1) if r else "")
EOF
}
assert_contains "$(cat "$T/status.html")" "<h2>wirehook</h2>" "HTML: a wirehook section"
assert_eq 45 "$(html "$CONF_A" accepted)" "HTML: A accepted"
assert_eq 2 "$(html "$CONF_A" duplicate)" "HTML: A duplicate"
assert_eq 2 "$(html "$CONF_A" signature_mismatch)" "HTML: A signature_mismatch"
assert_eq 2 "$(html "$CONF_A" "inbox: stored")" "HTML: A inbox stored"
assert_eq 0 "$(html "$CONF_A" replay_cache_unavailable)" "HTML: A replay_cache_unavailable"
assert_eq 1 "$(html "$CONF_B" accepted)" "HTML: B accepted"
assert_eq 1 "$(html "$CONF_C" "inbox: unavailable")" "HTML: C inbox unavailable"
assert_contains "$(cat "$T/status.html")" "replay store lmdb" "HTML: the replay store is named"

# ------------------------------------------------- graceful restart ---
assert_true "graceful restart" wh_httpd_graceful
st_fetch
assert_eq "$since" "$(sed -n 's/^WirehookCountersSince: //p' "$T/status.auto")" "graceful: counters not restarted"
assert_eq "$IA $IB $IC" "$(st_index "$CONF_A") $(st_index "$CONF_B") $(st_index "$CONF_C")" "graceful: same indexes"
expect "$CONF_A" "after graceful, A" "${A_WANT[@]}"
expect "$CONF_B" "after graceful, B" "${B_WANT[@]}"
mt_fetch
mt_agrees "$CONF_A" "metrics after graceful, A"
assert_eq "$nA" "$(mt_count "$CONF_A")" "metrics: graceful keeps A's latency"
post /v1/wires; assert_status 200 "graceful: the new generation serves"
st_fetch
assert_eq 46 "$(st "$CONF_A" Accepted)" "graceful: the new generation adds to the same counter"

# --------------------------------------------- plain restart (SIGHUP) ---
assert_true "restart (SIGHUP)" wh_httpd_hup
st_fetch
expect "$CONF_B" "after SIGHUP, B" "${B_WANT[@]}"
assert_eq 46 "$(st "$CONF_A" Accepted)" "SIGHUP: A kept"

# ------ a configuration dropped, one added, the first back ---
sed "s|WirehookConfig $CONF_B|WirehookConfig $CONF_D|" "$T/extra.base" >"$T/extra.conf"
assert_true "graceful restart: B replaced by D" wh_httpd_graceful
st_fetch
assert_eq "" "$(st_index "$CONF_B")" "B no longer listed"
assert_eq 3 "$(st_index "$CONF_D")" "D takes a free slot (3), B's stays reserved"
expect "$CONF_D" "D new" ""
post /v2/wires; assert_status 200 "D: accepted"
st_fetch
assert_eq 1 "$(st "$CONF_D" Accepted)" "D counts apart"
assert_eq 46 "$(st "$CONF_A" Accepted)" "A untouched by D"
cp "$T/extra.base" "$T/extra.conf"
assert_true "graceful restart: B back" wh_httpd_graceful
st_fetch
assert_eq "$IB" "$(st_index "$CONF_B")" "B back in its own slot"
expect "$CONF_B" "B back" "${B_WANT[@]}"

# --------------------------------------------------- stop and start ---
wh_httpd_stop
sleep 1
wh_httpd_start || exit 1
st_fetch
assert_true "stop/start: WirehookCountersSince moves on" \
    test "$(sed -n 's/^WirehookCountersSince: //p' "$T/status.auto")" -gt "$since"
expect "$CONF_A" "after stop/start, A" ""
expect "$CONF_B" "after stop/start, B" ""
mt_fetch
mt_agrees "$CONF_A" "metrics after stop/start, A"
assert_eq 0 "$(mt_count "$CONF_A")" "metrics: stop/start starts the latency from zero"

assert_false "no counter problem logged (WH00955-WH00957)" grep -qE 'WH0095[5-7]' "$T/logs/error.log"
wh_done
