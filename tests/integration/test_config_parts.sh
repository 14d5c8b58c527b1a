#!/usr/bin/env bash
# Each process needs only the files it uses. With the bank's signing secret
# and the htpasswd file readable by root alone (0600, as an administrator
# may well make them: only the module, which reads them as root at start,
# and the CGI need them), `wirehook forward` and `wirehook inbox`, run as
# the web server's user as their systemd unit and docs/forwarding.md run
# them, start with the inbox and forwarding settings alone: the forwarder
# forwards what the module stored, the dead letters are listed. Before,
# both exited with "cannot open: Permission denied" for the secret file
# (and under Restart=on-failure the unit looped).
#
# Needs root (to run as www-data); without it, skipped.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! id www-data >/dev/null 2>&1; then
    wh_skip "running as another user needs root and www-data"
fi

wh_init
. "$(dirname "$0")/forward_lib.sh"
as_www() { runuser -u www-data -- "$@"; }

fw_engine sqlite3
fw_scenario parts
wh_httpd_conf
wh_httpd_start || exit 1
CONF=$(fw_conf parts)

# the bank's secret and the htpasswd: root's alone; the forwarder's own
# secret and the configuration file: readable by www-data
chown root:root "$WH_SECRETS" "$WH_HTPASSWD"
chmod 600 "$WH_SECRETS" "$WH_HTPASSWD"
chgrp www-data "$FW_SECRET_FILE" && chmod 640 "$FW_SECRET_FILE"
chmod 644 "$CONF"
as_www cat "$WH_SECRETS" >/dev/null 2>&1
assert_ne 0 $? "(control) www-data cannot read the signing secret file"
as_www cat "$WH_HTPASSWD" >/dev/null 2>&1
assert_ne 0 $? "(control) www-data cannot read the htpasswd file"

fw_app_start parts
fw_send parts P-1:Review P-1:Complete P-2:Complete
assert_eq 0 $? "the module (secrets read as root at start) stores three notifications"

out=$(as_www "$WIREHOOK" inbox --config "$CONF" dead list 2>&1)
assert_eq 0 $? "wirehook inbox ... dead list runs as www-data"
assert_not_contains "$out" "Permission denied" "... without reading the secret or the htpasswd file"

out=$(as_www timeout -s KILL 60 "$WIREHOOK" forward --config "$CONF" --drain --interval 0 2>&1)
assert_eq 0 $? "wirehook forward --drain runs as www-data"
assert_not_contains "$out" "Permission denied" "... without reading the secret or the htpasswd file"
assert_true "the forwarder forwarded the three notifications" fw_wait_forwarded parts 3 30
fw_check parts "forwarded as www-data"

# What the forwarder reads it still needs: its own secret, unreadable, is
# named with the key and the line that gave it.
chmod 600 "$FW_SECRET_FILE"; chown root:root "$FW_SECRET_FILE"
out=$(as_www "$WIREHOOK" forward --config "$CONF" --drain --interval 0 2>&1)
assert_eq 1 $? "the forwarder's own secret unreadable: exit 1"
assert_contains "$out" "ForwardSecretFile" "... naming the key"
assert_contains "$out" "Permission denied" "... and why"

# The parts of the other programs: wirehook send signs with the secret
# alone (no htpasswd needed); the module's and the CGI's checks still
# require both files.
printf 'SigningSecretFile %s\n' "$WH_SECRETS" >"$T/etc/send-only.conf"
out=$("$WIREHOOK" send --config "$T/etc/send-only.conf" --url "$WH_URL/fw/parts" \
      --user "$WH_USER:$WH_PASSWD" --sample Complete 2>&1)
assert_contains "$out" '200 {"status":"accepted"' "wirehook send needs only SigningSecretFile"
out=$("$WIREHOOK" configtest "$T/etc/send-only.conf" 2>&1)
assert_contains "$out" "missing required key BasicAuthFile" "configtest (the module's and CGI's needs) requires BasicAuthFile"

wh_done
