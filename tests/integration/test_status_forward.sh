#!/usr/bin/env bash
# `wirehook forward`'s progress in mod_status (docs/monitoring.md): a
# configuration that forwards its inbox shows ForwardState "not started" until
# a forwarder has run; with the application down, the events stored are queued
# and retrying and the lag grows; once the application is back and the
# forwarder has forwarded them, everything is 0. A configuration without
# ForwardUrl shows no Forward lines. Read through /server-status?auto and the
# HTML page of a real httpd. The metrics (SetHandler wirehook-metrics) agree
# at each step, and count the attempts by outcome; a dead letter shows; with
# the forwarder stopped, a new event is not taken in and the lag counts it;
# `promtool check metrics` passes on each scrape. wirehook.cgi's /metrics on
# the same inbox says the same of it (for a console reader only), and has
# no counters.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/forward_lib.sh"

fw_engine sqlite3
fw_scenario st "ForwardBackoffMin 200ms" "ForwardBackoffMax 500ms"
WH_EXTRA_MODULES="status ${WH_EXTRA_MODULES:-}" wh_httpd_conf
wh_httpd_extra "<Location /server-status>
    SetHandler server-status
    Require ip 127.0.0.1
</Location>
$(<"$WH_TOP/examples/prometheus/apache.conf")
ScriptAlias /cgi/wirehook.cgi $WH_BUILD/wirehook.cgi
<Directory $WH_BUILD>
    Options +ExecCGI
    Require all granted
</Directory>
<Location /cgi/wirehook.cgi>
    CGIPassAuth On
    SetEnv WIREHOOK_CONFIG $(fw_conf st)
    SetEnv WIREHOOK_ConsoleReaders $T/etc/readers
</Location>"
wh_make_htpasswd "$T/etc/readers" reader reader-pass -B
chmod 644 "$T/etc/readers" "$WH_HTPASSWD" "$WH_SECRETS"
wh_httpd_start || exit 1

# config_lines CONF -> the ?auto lines of the configuration CONF, "KEY: value"
# with the WirehookSite[i] prefix taken off
config_lines() {
    awk -v conf="$1" -F': ' '
        $1 ~ /^WirehookSite\[[0-9]+\]Config$/ { i = ($2 == conf) ? substr($1, 1, length($1) - 6) : "" }
        i != "" && index($1, i) == 1 { print substr($0, length(i) + 1) }' "$T/status.auto"
}
# fwd KEY -> the forwarding configuration's KEY ("" when absent)
fwd() { config_lines "$(fw_conf st)" | sed -n "s/^$1: //p"; }
fetch() { curl -sS --max-time 20 "$WH_URL/server-status?auto" >"$T/status.auto"; }
# mt_fetch -- the metrics into $T/metrics.txt, checked by promtool; mt NAME
# [LABELS] -> the forwarding configuration's series NAME{config=...,LABELS}
mt_fetch() {
    curl -sS --max-time 20 "$WH_URL/wirehook-metrics" >"$T/metrics.txt"
    if ! command -v promtool >/dev/null; then
        wh_skip_case "promtool check metrics ($1): promtool is not installed (prometheus, build/deps-extra.txt)"
    elif promtool check metrics <"$T/metrics.txt" >"$T/promtool.out" 2>&1; then
        _wh_ok "promtool check metrics ($1)"
    else
        _wh_bad "promtool check metrics ($1)" "$(<"$T/promtool.out")"
    fi
}
mt() {
    local key="$1{config=\"$(fw_conf st)\"${2:+,$2}}" line
    while IFS= read -r line; do
        [ "${line% *}" = "$key" ] && { printf '%s\n' "${line##* }"; return; }
    done <"$T/metrics.txt"
}
# mt_agrees LABEL -- the forwarding metrics say what ?auto's Forward lines say
mt_agrees() {
    assert_eq "$(fwd ForwardUnqueued) $(( $(fwd ForwardQueued) + $(fwd ForwardUnqueued) )) $(fwd ForwardRetrying) $(fwd ForwardDead)" \
        "$(mt wirehook_forward_unqueued_events) $(mt wirehook_forward_backlog_events) $(mt wirehook_forward_retrying_events) $(mt wirehook_forward_dead_letters)" \
        "$1: unqueued, backlog, retrying, dead as ?auto says"
}

fw_app_start st --down
fw_send st P-1:Review P-1:Complete P-2:Review

fetch
assert_eq "not started" "$(fwd ForwardState)" "before any forwarder: not started"
assert_eq "" "$(fwd ForwardQueued)" "before any forwarder: no figures"
assert_eq 1 "$(config_lines "$WH_CONF" | grep -c "^Accepted: ")" "the configuration without ForwardUrl is listed"
main_forward=$(config_lines "$WH_CONF" | grep -c "^Forward")
assert_eq 0 "$main_forward" "a configuration without ForwardUrl shows no Forward lines"
mt_fetch "before any forwarder"
assert_eq "3 3 0 0" "$(mt wirehook_forward_backlog_events) $(mt wirehook_forward_unqueued_events) $(mt wirehook_forward_retrying_events) $(mt wirehook_forward_dead_letters)" \
    "metrics before any forwarder: all three wait, none taken in"
assert_true "metrics before any forwarder: the lag counts from the first ($(mt wirehook_forward_lag_seconds))" \
    awk -v l="$(mt wirehook_forward_lag_seconds)" 'BEGIN { exit !(l > 0) }'
assert_eq "0 0 0" "$(mt wirehook_forward_attempts_total 'outcome="forwarded"') $(mt wirehook_forward_attempts_total 'outcome="retried"') $(mt wirehook_forward_attempts_total 'outcome="dead"')" \
    "metrics before any forwarder: no attempt"
assert_false "metrics: no forwarding figures for the configuration without ForwardUrl" \
    grep -q "^wirehook_forward_[a-z_]*{config=\"$WH_CONF\"" "$T/metrics.txt"

# the application is down: the forwarder queues and retries
fw_start st --interval 0
for i in $(seq 1 100); do
    fetch
    [ "$(fwd ForwardRetrying)" -ge 1 ] 2>/dev/null && break
    sleep 0.1
done
assert_eq "started" "$(fwd ForwardState)" "forwarder running: started"
assert_true "application down: an event is retrying ($(fwd ForwardRetrying))" test "$(fwd ForwardRetrying)" -ge 1
# P-1's Complete waits behind its Review: three events queued
assert_eq 3 "$(fwd ForwardQueued)" "application down: three events queued"
assert_eq 0 "$(fwd ForwardDead)" "application down: nothing dead"
assert_eq 0 "$(fwd ForwardUnqueued)" "application down: everything taken in"
sleep 1.2
fetch
assert_true "application down: the lag grows ($(fwd ForwardLagSeconds) s)" \
    awk -v l="$(fwd ForwardLagSeconds)" 'BEGIN { exit !(l >= 1.0) }'
curl -sS --max-time 20 "$WH_URL/server-status" >"$T/status.html"
assert_contains "$(cat "$T/status.html")" "forwarding: lag " "HTML: the forwarding line"
mt_fetch "application down"
fetch
mt_agrees "metrics, application down"
assert_true "metrics, application down: attempts retried ($(mt wirehook_forward_attempts_total 'outcome="retried"'))" \
    test "$(mt wirehook_forward_attempts_total 'outcome="retried"')" -ge 1
assert_eq 0 "$(mt wirehook_forward_attempts_total 'outcome="forwarded"')" "metrics, application down: none forwarded"
assert_true "metrics, application down: the lag grows ($(mt wirehook_forward_lag_seconds) s)" \
    awk -v l="$(mt wirehook_forward_lag_seconds)" 'BEGIN { exit !(l >= 1.0) }'

# back up: forwarded, everything 0
fw_ctl st '{"up": true}'
assert_true "the application gets all three" fw_wait_forwarded st 3 30
for i in $(seq 1 50); do
    fetch
    [ "$(fwd ForwardQueued)" = 0 ] && break
    sleep 0.1
done
fw_stop st
fetch
assert_eq "started 0 0 0 0 0.0" \
    "$(fwd ForwardState) $(fwd ForwardQueued) $(fwd ForwardRetrying) $(fwd ForwardDead) $(fwd ForwardUnqueued) $(fwd ForwardLagSeconds)" \
    "forwarded: state, queued, retrying, dead, unqueued, lag"
mt_fetch "forwarded"
mt_agrees "metrics, forwarded"
assert_eq "3 0" "$(mt wirehook_forward_attempts_total 'outcome="forwarded"') $(mt wirehook_forward_lag_seconds)" \
    "metrics, forwarded: three attempts forwarded, no lag"
retried=$(mt wirehook_forward_attempts_total 'outcome="retried"')

# wirehook.cgi's metrics of the same inbox: the inbox's and the forwarder's
# figures as the module's (the lag aside: a moment later), no counters
inbox_lines() { grep -E '^wirehook_(inbox|quarantine|forward)_' "$1" | grep -vE '^wirehook_(forward_lag_seconds|inbox_stores_total)' | sort; }
wh_curl -u reader:reader-pass "$WH_URL/cgi/wirehook.cgi/metrics"
assert_status 200 "CGI metrics: a reader scrapes"
assert_header Content-Type "text/plain; version=0.0.4; charset=utf-8" "CGI metrics: the exposition format's type"
cp "$T/resp.body" "$T/cgi-metrics.txt"
if command -v promtool >/dev/null; then
    assert_true "CGI metrics: promtool check metrics passes" promtool check metrics <"$T/cgi-metrics.txt"
else
    wh_skip_case "CGI metrics: promtool check metrics: promtool is not installed (prometheus, build/deps-extra.txt)"
fi
assert_eq "$(inbox_lines "$T/metrics.txt" | grep -F "config=\"$(fw_conf st)\"")" "$(inbox_lines "$T/cgi-metrics.txt")" \
    "CGI metrics: the inbox's and the forwarder's figures are the module's"
assert_true "CGI metrics: the figures are there" grep -q '^wirehook_forward_attempts_total{.*outcome="forwarded"} 3$' "$T/cgi-metrics.txt"
assert_false "CGI metrics: no counters, no latency" grep -qE '^wirehook_(notifications|verification|inbox_stores|start_time)' "$T/cgi-metrics.txt"
assert_true "CGI metrics: the version" grep -q '^wirehook_build_info{version="[^"]*"} 1$' "$T/cgi-metrics.txt"
wh_curl "$WH_URL/cgi/wirehook.cgi/metrics"
assert_status 401 "CGI metrics: no login, no metrics"
wh_curl -u reader:wrong "$WH_URL/cgi/wirehook.cgi/metrics"
assert_status 401 "CGI metrics: a wrong password, no metrics"
wh_curl -u "$WH_USER:$WH_PASSWD" "$WH_URL/cgi/wirehook.cgi/metrics"
assert_status 401 "CGI metrics: the bank's credentials are no reader's"
wh_curl -X POST -u reader:reader-pass --data x "$WH_URL/cgi/wirehook.cgi/metrics"
assert_status 405 "CGI metrics: POST is refused"
wh_curl -I -u reader:reader-pass "$WH_URL/cgi/wirehook.cgi/metrics"
assert_status 200 "CGI metrics: HEAD"

# the application refuses P-3: a dead letter
fw_ctl st '{"rules": [{"payment": "P-3", "answer": 400}]}'
fw_send st P-3:Review
fw_start st --interval 0
for i in $(seq 1 100); do
    fetch
    [ "$(fwd ForwardDead)" = 1 ] && break
    sleep 0.1
done
fw_stop st
mt_fetch "a dead letter"
fetch
mt_agrees "metrics, a dead letter"
assert_eq "1 1 3 $retried" "$(mt wirehook_forward_dead_letters) $(mt wirehook_forward_attempts_total 'outcome="dead"') $(mt wirehook_forward_attempts_total 'outcome="forwarded"') $(mt wirehook_forward_attempts_total 'outcome="retried"')" \
    "metrics, a dead letter: counted, and its attempt; the others unchanged"

# the forwarder stopped: a new event waits untaken, and the lag is its age
fw_send st P-4:Review
sleep 1.2
mt_fetch "forwarder stopped"
assert_eq "1 1" "$(mt wirehook_forward_unqueued_events) $(mt wirehook_forward_backlog_events)" \
    "metrics, forwarder stopped: the new event is not taken in"
assert_true "metrics, forwarder stopped: the lag is the new event's age ($(mt wirehook_forward_lag_seconds) s)" \
    awk -v l="$(mt wirehook_forward_lag_seconds)" 'BEGIN { exit !(l >= 1.0) }'

wh_done
