#!/usr/bin/env bash
# `wirehook forward` in the foreground, as a container or another init
# runs it (docs/forwarding.md, "In the foreground"): SIGTERM, SIGINT and
# SIGHUP each stop it with a request in flight: the request finishes, its
# outcome is recorded (the event is not sent again) and the exit status is
# 0; a second signal while stopping exits 1 at once; it exits 1 when it
# cannot start and 2 on a usage error; log lines go to stderr with their
# level, status lines to stdout.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/forward_lib.sh"

fw_scenario sig "ForwardTimeout 5s"
wh_httpd_conf
wh_httpd_start || exit 1
fw_app_start sig || { _wh_bad "the application starts"; wh_done; }
D=$(fw_dir sig)
# each answer takes a second: long enough to signal with one in flight
fw_ctl sig '{"delay_ms": 1000}'

# in_flight ID: until the application has the request (it writes last.json
# when a request arrives, before it answers)
in_flight() {
    local i
    for i in $(seq 1 100); do
        grep -qF "$1" "$D/app/last.json" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
received() { grep -cF " $1 " "$D/app/requests.log" 2>/dev/null; }

n=0
for sig in TERM INT HUP; do
    fw_send sig "P-$sig:Complete" || _wh_bad "SIG$sig: the event is stored"
    n=$((n + 1))
    id=$(fw_sent_id sig "$n")
    : >"$D/fwd.err"
    fw_start sig --interval 0
    assert_true "SIG$sig: the request is in flight" in_flight "$id"
    fw_stop sig "$sig"
    assert_eq 0 "$FW_RC" "SIG$sig: the forwarder stops with exit status 0"
    assert_contains "$(cat "$D/fwd.err")" "wirehook forward: info: stopped: delivered=1 in this run" \
        "SIG$sig: the request in flight finished and was recorded first"
    assert_eq 1 "$(received "$id")" "SIG$sig: the application got the event once"
done
fw_drain sig
assert_eq 0 "$FW_RC" "--drain afterwards: exit 0"
assert_contains "$FW_OUT" "drained: delivered=0 retries=0 dead=0" "--drain afterwards: nothing to send again"
for i in 1 2 3; do
    assert_eq 1 "$(received "$(fw_sent_id sig "$i")")" "event $i still received once"
done

# a second signal while the first one's stop waits for its request
fw_send sig "P-twice:Complete"
id=$(fw_sent_id sig 4)
fw_start sig --interval 0
tag=$(cat "$D/fwd.tag")
assert_true "twice: the request is in flight" in_flight "$id"
wh_kill_ours -TERM "$tag"; sleep 0.2
fw_stop sig TERM
assert_eq 1 "$FW_RC" "a second SIGTERM while stopping: exit status 1 at once"
assert_eq 0 "$(received "$id")" "... before the request in flight was answered"

# logging: stderr lines with their level, the status lines on stdout
fw_ctl sig '{"delay_ms": 0}'
: >"$D/fwd.out"; : >"$D/fwd.err"
fw_start sig --interval 500ms
for _ in $(seq 1 100); do grep -q "delivered=" "$D/fwd.out" && break; sleep 0.1; done
fw_stop sig INT
assert_eq 0 "$FW_RC" "with status lines: SIGINT, exit 0"
assert_contains "$(head -n 1 "$D/fwd.out")" " delivered=" "status lines go to stdout"
assert_not_contains "$(cat "$D/fwd.out")" "wirehook forward:" "... and nothing else"
assert_contains "$(head -n 1 "$D/fwd.err")" "wirehook forward: info: forwarding sqlite3 to " "log lines go to stderr, with their level"

# exit statuses when it cannot run
"$WIREHOOK" forward >/dev/null 2>&1
assert_eq 2 "$?" "no --config: a usage error, exit 2"
"$WIREHOOK" forward --config "$T/etc/none.conf" >/dev/null 2>"$T/none.err"
assert_eq 1 "$?" "a configuration that cannot be read: exit 1"
cp "$(fw_conf sig)" "$T/etc/nosecret.conf"
sed -i "s|^ForwardSecretFile .*|ForwardSecretFile $T/etc/no-such.secret|" "$T/etc/nosecret.conf"
out=$("$WIREHOOK" forward --config "$T/etc/nosecret.conf" 2>&1)
assert_eq 1 "$?" "a ForwardSecretFile that cannot be read: exit 1"
assert_contains "$out" "ForwardSecretFile: " "... naming the key"
# a secret in quotes is legal, and said at the start
printf '"quoted"\n' >"$T/etc/quoted.secret"; chmod 600 "$T/etc/quoted.secret"
sed -i -e "s|^ForwardSecretFile .*|ForwardSecretFile $T/etc/quoted.secret|" \
    -e "s|^InboxParams .*|InboxParams $T/data/quoted.db|" "$T/etc/nosecret.conf"
timeout 30 "$WIREHOOK" forward --config "$T/etc/nosecret.conf" --drain --interval 0 >/dev/null 2>"$T/quoted.err"
assert_contains "$(cat "$T/quoted.err")" "wirehook forward: warn: ForwardSecretFile $T/etc/quoted.secret:1: is in quotes" \
    "a ForwardSecretFile line in quotes is warned about at the start"

wh_done
