#!/usr/bin/env bash
# examples/forward started for real, as its README says, under a temp root:
# the inbox location (apache.conf), the configuration (wirehook.conf, with
# ForwardUrl moved to a free port), the receiver sketch (receiver.py), the
# command line of the systemd unit; signed notifications go in, the
# receiver checks and keeps each one once.
. "$(dirname "$0")/lib.sh"
wh_init
EX="$WH_TOP/examples/forward"
R="$T/root"
RPORT=$(wh_free_port)
ex() {
    sed -e "s|/etc/wirehook|$R/etc/wirehook|g" -e "s|/var/lib/wirehook|$R/var/lib/wirehook|g" \
        -e "s|http://127.0.0.1:8090/wires|http://127.0.0.1:$RPORT/wires|g" "$1"
}
mkdir -p "$R/etc/wirehook" "$R/var/lib/wirehook/inbox" "$R/etc/apache2/conf-available"
chmod 1777 "$R/var/lib/wirehook/inbox"
ex "$EX/wirehook.conf" >"$R/etc/wirehook/inbox.conf"
ex "$EX/apache.conf" >"$R/etc/apache2/conf-available/wirehook-forward.conf"
cp "$WH_SECRETS" "$R/etc/wirehook/secrets"
cp "$WH_HTPASSWD" "$R/etc/wirehook/htpasswd"
openssl rand -hex 32 >"$R/etc/wirehook/forward.secret"
chmod 600 "$R/etc/wirehook/secrets" "$R/etc/wirehook/htpasswd" "$R/etc/wirehook/forward.secret"
if [ "$(id -u)" -eq 0 ]; then
    # as the README makes them: the forwarder's secret www-data's (its
    # unit's user), the credentials 640 in its group (the re-reads)
    chown www-data "$R/etc/wirehook/forward.secret"
    chgrp www-data "$R/etc/wirehook/secrets" "$R/etc/wirehook/htpasswd"
    chmod 640 "$R/etc/wirehook/secrets" "$R/etc/wirehook/htpasswd"
fi
CONF="$R/etc/wirehook/inbox.conf"

out=$("$WIREHOOK" configtest "$CONF" 2>&1 | wh_no_notes)
assert_eq "Syntax OK" "$out" "forward example: configtest passes"
assert_true "forward example: the configuration names a ForwardUrl and its secret" \
    grep -qE '^ForwardSecretFile +forward.secret$' "$CONF"

wh_httpd_extra "Include $R/etc/apache2/conf-available/wirehook-forward.conf"
wh_httpd_conf
wh_httpd_start || exit 1

FORWARD_SECRET_FILE="$R/etc/wirehook/forward.secret" FORWARD_URL="http://127.0.0.1:$RPORT/wires" \
    RECEIVER_DB="$T/received.db" python3 "$EX/receiver.py" >"$T/receiver.log" 2>&1 &
wh_bg_add $!
wh_wait_port "$RPORT" 5

out=$("$WIREHOOK" send --config "$CONF" --user "$WH_USER:$WH_PASSWD" --url "$WH_URL/v1/wires" \
    --sample Complete --count 3 2>&1)
assert_eq 3 "$(grep -c '^200 {"status":"accepted"' <<<"$out")" "forward example: three notifications stored"

# the unit's command line, with its instance name
cmd=$(sed -n 's/^ExecStart=//p' "$EX/wirehook-forward@.service")
assert_eq "/usr/bin/wirehook forward --config /etc/wirehook/%i.conf --interval 60" "$cmd" \
    "forward example: the unit runs wirehook forward on /etc/wirehook/NAME.conf"
read -r -a argv <<<"${cmd//%i/inbox}"
argv[0]=$WIREHOOK
argv[3]=$CONF
timeout 60 "${argv[@]}" --drain >"$T/fwd.out" 2>"$T/fwd.err"
assert_eq 0 $? "forward example: the unit's command empties the forward queue (with --drain)"
assert_contains "$(cat "$T/fwd.out")" "delivered=3 retries=0 dead=0" "forward example: all three forwarded at once"
assert_eq 3 "$(sqlite3 "$T/received.db" 'SELECT count(*) FROM seen')" \
    "forward example: the receiver checked the signature and kept each once"
assert_eq "Complete" "$(sqlite3 "$T/received.db" 'SELECT DISTINCT status FROM seen')" \
    "forward example: with the facts from the Wirehook-* headers"
assert_true "forward example: the unit runs as the inbox's owner, may write its directory" \
    grep -qx 'ReadWritePaths=/var/lib/wirehook' "$EX/wirehook-forward@.service"

wh_done
