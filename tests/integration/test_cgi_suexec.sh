#!/usr/bin/env bash
# examples/shared-hosting-cgi as written, under suEXEC (Debian's
# apache2-suexec-pristine): a throwaway account owns the site's directory
# under /var/www, the CGI, its .htaccess and ~/.wirehook (mode 600 files),
# the example's server.conf gives the site SuexecUserGroup. suEXEC passes
# the program no SetEnv variable, so wirehook.cgi finds its configuration
# by its own rule (~/.wirehook/NAME.conf, .htNAME.conf beside the
# script): a signed notification is stored, a forged one refused, the
# listing shows it, the inbox's files belong to the account with mode
# 0600; a Wirehook-Config request header and a `?--configtest` query
# change nothing; two scripts of one account each read their own file;
# with no file anywhere the error log names every place and suEXEC;
# `wirehook.cgi --configtest` run as the account reports the same.
# The account, its home and its site are removed at exit.
#
# Needs root (an account, httpd started as root for User www-data, which
# is suexec's caller) and the suexec wrapper; without them it is skipped.
. "$(dirname "$0")/lib.sh"

SUEXEC=/usr/lib/apache2/suexec
[ "$(id -u)" -eq 0 ] || wh_skip "suEXEC needs httpd started as root"
[ -u "$(readlink -f "$SUEXEC" 2>/dev/null)" ] || wh_skip "no setuid $SUEXEC (apt install apache2-suexec-pristine)"
[ -f "$WH_MODDIR/mod_suexec.so" ] || wh_skip "no mod_suexec.so"
command -v useradd >/dev/null && command -v runuser >/dev/null || wh_skip "no useradd or runuser"
[ "${CGI_LINK:-static}" = static ] || wh_skip "the example's CGI is the self-contained build"

wh_init
EX="$WH_TOP/examples/shared-hosting-cgi"
CGI="$WH_BUILD/wirehook.cgi"

# ----------------------------------------------------- account, cleanup ---
sx_cleanup() { wh_httpd_stop >/dev/null 2>&1; wh_site_account_remove; }
trap 'rc=$?; sx_cleanup; (exit $rc); _wh_cleanup' EXIT
wh_site_account whsx || wh_done
ACCT=$WH_ACCT SITE=$WH_SITE
HOOKS="$SITE/hooks"
HOME_DIR="/home/$ACCT"
U="$HOME_DIR/.wirehook"
as_acct() { runuser -u "$ACCT" -- "$@"; }

# ex FILE: an example file for this account (alice is $ACCT)
ex() { sed -e "s|/var/www/alice|$SITE|g" -e "s|alice|$ACCT|g" "$EX/$1"; }

# ------------------------------------------------ the example's layout ---
# What README.md has the account do, as the account (umask 022 as a
# shell's), with the harness's secret and htpasswd as its credentials.
install -d -o "$ACCT" -g "$ACCT" -m 755 "$SITE"
as_acct sh -c "umask 022 && mkdir -p '$HOOKS' '$U/inbox' && chmod 700 '$U' '$U/inbox'"
cp "$CGI" "$HOOKS/wirehook.cgi" && chown "$ACCT:$ACCT" "$HOOKS/wirehook.cgi" && chmod 755 "$HOOKS/wirehook.cgi"
ex htaccess >"$HOOKS/.htaccess"
ex wirehook.conf >"$U/wirehook.conf"
cp "$WH_SECRETS" "$U/secrets"
cp "$WH_HTPASSWD" "$U/htpasswd"
chown "$ACCT:$ACCT" "$HOOKS/.htaccess" "$U/wirehook.conf" "$U/secrets" "$U/htpasswd"
chmod 644 "$HOOKS/.htaccess"
chmod 600 "$U/wirehook.conf" "$U/secrets" "$U/htpasswd"

# The account's own check, from a shell, as the account.
out=$(cd "$HOOKS" && as_acct ./wirehook.cgi --configtest 2>&1)
assert_eq 0 $? "--configtest as the account: exit 0"
assert_contains "$out" "configuration: $U/wirehook.conf" "--configtest: names the file it would use"
assert_contains "$out" "$HOOKS/.htwirehook.conf (no such file)" "--configtest: says where else it looked"
assert_contains "$out" "InboxParams $U/inbox/inbox.db: can be created and written" \
    "--configtest: the inbox can be created"
assert_not_contains "$out" "warning" "--configtest: mode 600 files, no warning"
assert_contains "$out" "Syntax OK" "--configtest: Syntax OK"
assert_false "--configtest created no inbox" test -e "$U/inbox/inbox.db"

# Two more endpoints of the same account: orders.cgi reads .htorders.conf
# beside it (a SetEnv there is dropped by suEXEC), nowhere.cgi finds nothing.
cp -p "$HOOKS/wirehook.cgi" "$HOOKS/orders.cgi"
cp -p "$HOOKS/wirehook.cgi" "$HOOKS/nowhere.cgi"
printf 'SigningSecretFile %s\nBasicAuthFile %s\nInboxParams %s\n' \
    "$U/secrets" "$U/htpasswd" "$U/inbox/orders.db" >"$HOOKS/.htorders.conf"
chown "$ACCT:$ACCT" "$HOOKS/.htorders.conf"; chmod 600 "$HOOKS/.htorders.conf"
printf '\n# dropped by suEXEC\nSetEnv WIREHOOK_CONFIG /nonexistent.conf\n' >>"$HOOKS/.htaccess"
# A configuration a client would like the CGI to use instead.
mkdir -p "$T/evil"
wh_write_config "$T/evil/evil.conf" "InboxParams $T/evil/evil.db"
chmod 755 "$T/evil"; chmod 644 "$T/evil/evil.conf"

# --------------------------------------------------------------- httpd ---
ex server.conf | sed "s|<VirtualHost \*:80>|<VirtualHost *:$WH_PORT>|" >"$T/site.conf"
WH_EXTRA_MODULES="rewrite suexec" wh_httpd_conf
wh_httpd_extra "Include $T/site.conf"
wh_httpd_start || exit 1
assert_contains "$(wh_errlog)" "suEXEC mechanism enabled" "httpd: suEXEC enabled"
H="$WH_URL/hooks"
E="$H/v1/wires"
LOG=/var/log/apache2/suexec.log

# ----------------------------------------------------------- requests ---
b=$(wh_body Complete)
id=$(wh_json_get "$(cat "$b")" 'd["notificationId"]')
WH_SIGN_URL="$E" wh_post "$E" "$b"
assert_status 200 "suEXEC: a signed notification is stored"
assert_json_code accepted "suEXEC: accepted"
assert_contains "$(grep "/$ACCT) gid:" "$LOG" 2>/dev/null | tail -n 1)" "cmd: wirehook.cgi" \
    "suexec.log: wirehook.cgi ran as $ACCT"
WH_SIGN_URL="$E" wh_post "$E" "$b"
assert_json_code duplicate "suEXEC: the second copy is a duplicate"
WH_SIG=$(printf '0%.0s' $(seq 64)) wh_post "$E" "$(wh_body Review)"
assert_status 401 "suEXEC: a forged notification is refused"
assert_json_code signature_mismatch "suEXEC: signature_mismatch"
wh_curl -u "$WH_USER:$WH_PASSWD" "$E?offset=0&limit=10"
assert_status 200 "suEXEC: GET lists"
assert_eq "1 $id" "$(wh_json_get "$WH_BODY" '"%d %s" % (len(d["events"]), d["events"][0]["notificationId"])')" \
    "suEXEC: the listing shows the stored notification, and only it"
for f in inbox.db inbox.db-wal inbox.db-shm inbox.db-lock inbox.db-auth; do
    assert_eq "600 $ACCT:$ACCT" "$(stat -c '%a %U:%G' "$U/inbox/$f" 2>/dev/null)" \
        "suEXEC: $f belongs to the account, mode 0600"
done

# A client naming another configuration: a header arrives as
# HTTP_WIREHOOK_CONFIG, which nothing reads.
WH_SIGN_URL="$E" wh_post "$E" "$(wh_body Review)" -H "Wirehook-Config: $T/evil/evil.conf"
assert_json_code accepted "Wirehook-Config header: stored as before"
wh_curl -u "$WH_USER:$WH_PASSWD" -H "Wirehook-Config: $T/evil/evil.conf" "$E?limit=10"
assert_eq 2 "$(wh_json_get "$WH_BODY" 'len(d["events"])')" "Wirehook-Config header: the listing is the account's inbox"
assert_false "Wirehook-Config header: the other configuration's inbox was never created" \
    test -e "$T/evil/evil.db"
# ?--configtest: a query without '=' is handed to a CGI as its arguments
wh_curl "$E?--configtest"
assert_status 401 "?--configtest without credentials: 401, a request like any other"
wh_curl -u "$WH_USER:$WH_PASSWD" "$H/wirehook.cgi?--configtest"
assert_status 400 "?--configtest with credentials: 400"
assert_json_code invalid_pagination "?--configtest: an invalid query, not the check's output"
assert_not_contains "$WH_BODY" "looked for" "?--configtest: nothing of --configtest answered"
# .ht* files are never served
wh_curl "$H/.htorders.conf"
assert_status 403 "the .htorders.conf beside the script is not served"
wh_curl "$H/.htaccess"
assert_status 403 ".htaccess is not served"

# Several endpoints: each script its own configuration and inbox.
O="$H/orders.cgi"
WH_SIGN_URL="$O" wh_post "$O" "$(wh_body Exception)"
assert_json_code accepted "orders.cgi: stored, with .htorders.conf (SetEnv WIREHOOK_CONFIG dropped by suEXEC)"
assert_eq 1 "$(sqlite3 "$U/inbox/orders.db" 'SELECT count(*) FROM wh_events' 2>/dev/null)" \
    "orders.cgi: into its own inbox"
assert_eq 2 "$(sqlite3 "$U/inbox/inbox.db" 'SELECT count(*) FROM wh_events' 2>/dev/null)" \
    "wirehook.cgi's inbox unchanged"

# Nothing found: 500, and the error log says where it looked.
N="$H/nowhere.cgi"
WH_SIGN_URL="$N" wh_post "$N" "$(wh_body Complete)"
assert_status 500 "nowhere.cgi: no configuration: 500"
assert_json_code internal_error "nowhere.cgi: internal_error"
sleep 0.2
log=$(grep 'nowhere.cgi\|no configuration file found' "$T/logs/error.log")
assert_contains "$log" "WIREHOOK_CONFIG (not set)" "the error log: WIREHOOK_CONFIG did not reach it"
assert_contains "$log" "$HOOKS/.htnowhere.conf (no such file)" "the error log: the file beside the script"
assert_contains "$log" "$U/nowhere.conf (no such file)" "the error log: the file in the home directory"
assert_contains "$log" "suEXEC passes no SetEnv variable" "the error log: says suEXEC drops SetEnv"

# --configtest warns about a secret others can read
chmod 644 "$U/secrets"
out=$(cd "$HOOKS" && as_acct ./wirehook.cgi --configtest 2>&1)
assert_contains "$out" "warning: SigningSecretFile $U/secrets is readable by others" \
    "--configtest: warns about a secret others can read"
assert_contains "$out" "InboxParams $U/inbox/inbox.db: can be written" "--configtest: the inbox can be written"
chmod 600 "$U/secrets"
# ... and says so when a file beside the inbox is someone else's (as the
# web server's would be on a site moved to suEXEC)
chown root:root "$U/inbox/inbox.db-auth"
out=$(cd "$HOOKS" && as_acct ./wirehook.cgi --configtest 2>&1)
assert_eq 1 $? "--configtest: an inbox file the account cannot write: exit 1"
assert_contains "$out" "error: InboxParams $U/inbox/inbox.db: $U/inbox/inbox.db-auth cannot be read and written" \
    "--configtest: names the file the account cannot write"
chown "$ACCT:$ACCT" "$U/inbox/inbox.db-auth"
# ... and, on each request too, about a configuration file others can write
chmod 660 "$U/wirehook.conf"
WH_SIGN_URL="$E" wh_post "$E" "$(wh_body Error)"
assert_json_code accepted "a group-writable configuration still works"
sleep 0.2
assert_contains "$(wh_errlog)" "the configuration file $U/wirehook.conf is writable by its group (chmod 600)" \
    "the error log warns about a configuration file others can write"
chmod 600 "$U/wirehook.conf"

wh_done
