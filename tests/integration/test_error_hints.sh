#!/usr/bin/env bash
# Errors that say what to do: each names the file, the key and line that
# set it, and the user that lacked a permission.
#  - an inbox directory the server's user cannot write (the module's
#    children run as www-data, not as the root who made the directory);
#  - wirehook configtest, run as root, checks what www-data will read and
#    write (--as USER for another user);
#  - a CGI without CGIPassAuth: the bank's signed request arrives without
#    Authorization, and the CGI logs why;
#  - a missing htpasswd file: path:line: BasicAuthFile: cannot open ...;
#  - TimestampTolerance 5m, as the Forward* keys take durations.
# Needs root for the user switches; without it, skipped.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" -ne 0 ] || ! id www-data >/dev/null 2>&1; then
    wh_skip "checking as www-data needs root"
fi
wh_init
. "$(dirname "$0")/inbox_lib.sh"
ib_cgi_install                 # secret and htpasswd: 640, group www-data
ib_cgi_location /cgi/inbox

# an inbox in a directory only root can write (as root makes it by default)
mkdir -p "$T/var/rootdir"; chmod 755 "$T/var" "$T/var/rootdir"
wh_write_config "$T/etc/rootdir.conf" "# the inbox, in a directory root made" \
    "InboxParams $T/var/rootdir/inbox.db"
wh_httpd_extra "<Location /rootdir>
    SetHandler wirehook
    WirehookConfig $T/etc/rootdir.conf
</Location>
ScriptAlias /cgi/noauth \"$IB_CGI\"
<Location /cgi/noauth>
    SetEnv WIREHOOK_CONFIG $WH_CONF
</Location>"
wh_httpd_conf
wh_httpd_start || exit 1

# -------------------------------------------- an unwritable inbox dir ---
wh_post "$WH_URL/rootdir" "$(wh_body Complete)"
assert_status 503 "an inbox www-data cannot create: 503 inbox_unavailable"
line=""
for _ in $(seq 1 40); do
    line=$(grep -m1 "InboxParams $T/var/rootdir/inbox.db" "$T/logs/error.log") && break
    sleep 0.1
done
assert_contains "$line" "$T/etc/rootdir.conf:5: InboxParams $T/var/rootdir/inbox.db" \
    "the error log names the configuration line, the key and the file"
assert_contains "$line" "as user www-data: Permission denied" "... the user and why"
assert_contains "$line" "create files beside it in $T/var/rootdir" "... and what that user needs"

# ----------------------------------------- configtest as the server's user ---
out=$("$WIREHOOK" configtest "$T/etc/rootdir.conf" 2>&1); rc=$?
assert_eq 1 "$rc" "configtest as root: exit 1 for an inbox www-data cannot create"
assert_not_contains "$out" "Syntax OK" "... no Syntax OK"
assert_contains "$out" "$T/etc/rootdir.conf:5: InboxParams $T/var/rootdir/inbox.db: user www-data cannot create files in $T/var/rootdir" \
    "... naming the line, the key, the user and the directory"
out=$("$WIREHOOK" configtest --as root "$T/etc/rootdir.conf" 2>&1); rc=$?
assert_eq 0 "$rc" "configtest --as root: the same file is fine for root"
assert_contains "$out" "Syntax OK" "... Syntax OK"
runuser -u www-data -- "$WIREHOOK" configtest --as root "$WH_CONF" >/dev/null 2>&1
assert_eq 2 $? "configtest --as another user needs root: exit 2"
out=$("$WIREHOOK" configtest "$WH_CONF" 2>&1); rc=$?
assert_eq 0 "$rc" "a configuration www-data can use: exit 0"
assert_eq "Syntax OK" "$(printf '%s\n' "$out" | wh_no_notes)" "... Syntax OK and no warning"
# the credentials root's alone: it still works (the module reads them as
# root at start), with a warning naming the user and the consequences
cp "$WH_SECRETS" "$T/etc/root.secret"; chmod 600 "$T/etc/root.secret"; chown root:root "$T/etc/root.secret"
wh_write_config "$T/etc/rootsecret.conf" "InboxParams $WH_INBOX_DB"
sed -i "s|^SigningSecretFile .*|SigningSecretFile $T/etc/root.secret|" "$T/etc/rootsecret.conf"
out=$("$WIREHOOK" configtest "$T/etc/rootsecret.conf" 2>&1); rc=$?
assert_eq 0 "$rc" "a secret file root's alone: configtest still exits 0"
assert_contains "$out" "warning: $T/etc/rootsecret.conf:2: SigningSecretFile $T/etc/root.secret: user www-data cannot read it (Permission denied)" \
    "... and warns, naming the line, the key, the file and the user"
assert_contains "$out" "chgrp www-data $T/etc/root.secret && chmod 640" "... and how to fix it"

# ------------------------------------------- a CGI without CGIPassAuth ---
wh_post "$WH_URL/cgi/noauth" "$(wh_body Complete)"
assert_status 401 "a signed notification to a CGI without CGIPassAuth: 401"
assert_json_code auth_required "... auth_required"
hint=$(grep 'no Authorization header reached wirehook.cgi' "$T/logs/error.log")
assert_eq 1 "$(grep -c . <<<"$hint")" "one hint for the request"
assert_contains "$hint" "although the request is signed" "... saying the request was the bank's"
assert_contains "$hint" 'CGIPassAuth On' "... naming CGIPassAuth On"
assert_contains "$hint" "warn:" "... at warn (shown by default)"
WH_AUTH=- WH_SIG=- WH_TS=- wh_post "$WH_URL/cgi/noauth" "$(wh_body Complete)"
assert_status 401 "an unsigned request without credentials: 401"
assert_eq 1 "$(grep -c 'no Authorization header reached' "$T/logs/error.log")" \
    "... and no hint at the default CGILogLevel (a scanner does not fill the log)"
WH_AUTH=- wh_post "$WH_URL/cgi/inbox" "$(wh_body Complete)"
assert_eq 2 "$(grep -c 'no Authorization header reached' "$T/logs/error.log")" \
    "with CGIPassAuth On, a signed request that really has no credentials logs it too"
wh_post "$WH_URL/cgi/inbox" "$(wh_body Complete)"
assert_status 200 "with CGIPassAuth On: accepted"
assert_eq 0 "$(grep -c 'wirehook.cgi.* info: ' "$T/logs/error.log")" \
    "the CGI writes no info line at the default CGILogLevel (httpd logs them as errors)"

# ------------------------------------------------ a missing htpasswd ---
wh_write_config "$T/etc/nohtpasswd.conf"
sed -i "s|^BasicAuthFile .*|BasicAuthFile $T/etc/no-such-htpasswd|" "$T/etc/nohtpasswd.conf"
out=$("$WIREHOOK" configtest "$T/etc/nohtpasswd.conf" 2>&1)
assert_contains "$out" "$T/etc/nohtpasswd.conf:3: BasicAuthFile: cannot open $T/etc/no-such-htpasswd: No such file or directory" \
    "configtest: path:line: BasicAuthFile: cannot open FILE: reason"
v=$(wh_conf_variant nohtpasswd "s|WirehookConfig $WH_CONF\$|WirehookConfig $T/etc/nohtpasswd.conf|")
out=$("$WH_HTTPD" -f "$v" -t 2>&1)
assert_contains "$out" "$T/etc/nohtpasswd.conf:3: BasicAuthFile: cannot open $T/etc/no-such-htpasswd" \
    "apache2 -t says the same"

# ----------------------------------------- one duration syntax for all ---
wh_write_config "$T/etc/durations.conf" "TimestampTolerance 5m" "ReplayWindow 1h" \
    "AuthCacheTTL 2m" "InboxBatchWait 1ms" "ForwardTimeout 5m"
out=$("$WIREHOOK" configtest "$T/etc/durations.conf" 2>&1)
assert_contains "$out" "Syntax OK" "TimestampTolerance 5m (and every duration key with a unit) is accepted"
wh_write_config "$T/etc/badduration.conf" "TimestampTolerance 5 minutes"
out=$("$WIREHOOK" configtest "$T/etc/badduration.conf" 2>&1)
assert_contains "$out" "badduration.conf:4: TimestampTolerance: must be a duration from 1s to 1d" \
    "a bad duration names the rule"
wh_done
