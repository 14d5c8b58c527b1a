#!/usr/bin/env bash
# `wirehook forward`'s progress in mod_status (docs/monitoring.md): a
# configuration that forwards its inbox shows ForwardState "not started" until
# a forwarder has run; with the application down, the events stored are queued
# and retrying and the lag grows; once the application is back and the
# forwarder has forwarded them, everything is 0. A configuration without
# ForwardUrl shows no Forward lines. Read through /server-status?auto and the
# HTML page of a real httpd.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/forward_lib.sh"

fw_engine sqlite3
fw_scenario st "ForwardBackoffMin 200ms" "ForwardBackoffMax 500ms"
WH_EXTRA_MODULES="status ${WH_EXTRA_MODULES:-}" wh_httpd_conf
wh_httpd_extra "<Location /server-status>
    SetHandler server-status
    Require ip 127.0.0.1
</Location>"
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

fw_app_start st --down
fw_send st P-1:Review P-1:Complete P-2:Review

fetch
assert_eq "not started" "$(fwd ForwardState)" "before any forwarder: not started"
assert_eq "" "$(fwd ForwardQueued)" "before any forwarder: no figures"
assert_eq 1 "$(config_lines "$WH_CONF" | grep -c "^Accepted: ")" "the configuration without ForwardUrl is listed"
main_forward=$(config_lines "$WH_CONF" | grep -c "^Forward")
assert_eq 0 "$main_forward" "a configuration without ForwardUrl shows no Forward lines"

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

wh_done
