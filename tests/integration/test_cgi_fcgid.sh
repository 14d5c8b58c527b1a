#!/usr/bin/env bash
# wirehook.cgi under mod_fcgid: the same file speaks FastCGI when mod_fcgid
# starts it. Without suEXEC (a site's <Directory>, SetEnv reaching each
# request): verdicts, the listing, the console; one process answers many
# requests (the pids of its debug lines) and nothing of one request
# reaches the next (Authorization, query, headers, body); a new htpasswd
# user, a rotated secret, a changed configuration file and a new console
# reader count at the next request; a body past MaxBodySize is 413; a
# process recycled by FcgidMaxRequestsPerProcess stops on SIGTERM after
# its request; writers in parallel across several processes lose nothing.
# Under suEXEC (Debian's apache2-suexec-pristine, a throwaway account, its
# ~/.wirehook, SuexecUserGroup in a virtual host, the .htaccess of
# examples/shared-hosting-cgi/htaccess-fcgid): stored, duplicate, forged, listing, the
# inbox's files and the process the account's, one process for all.
# The suEXEC half needs root and the suexec wrapper (said when skipped).
. "$(dirname "$0")/lib.sh"

[ -f "$WH_MODDIR/mod_fcgid.so" ] || wh_skip "no mod_fcgid.so (apt install libapache2-mod-fcgid)"
wh_init
. "$(dirname "$0")/inbox_lib.sh"
ib_cgi_install
SX=1
SUEXEC=/usr/lib/apache2/suexec
if [ "$(id -u)" -ne 0 ]; then SX="suEXEC needs httpd started as root"
elif [ ! -u "$(readlink -f "$SUEXEC" 2>/dev/null)" ]; then SX="no setuid $SUEXEC (apt install apache2-suexec-pristine)"
elif [ ! -f "$WH_MODDIR/mod_suexec.so" ]; then SX="no mod_suexec.so"
elif ! command -v useradd >/dev/null; then SX="no useradd"
fi

# ------------------------------------------------------- the plain site ---
F="$T/fcgi"
mkdir -p "$F" && chmod 755 "$F"
cp "$IB_CGI" "$F/wirehook.cgi"
cp "$IB_CGI" "$F/small.cgi"
# the console's readers and operators: files of their own, watched too
wh_make_htpasswd "$T/etc/readers" creader creader-pass -B
wh_make_htpasswd "$T/etc/operators" cop cop-pass -B
CONF="$T/etc/fcgid.conf"
wh_write_config "$CONF" "InboxParams $WH_INBOX_DB" "CGILogLevel debug" \
    "ConsoleReaders $T/etc/readers" "ConsoleOperators $T/etc/operators"
if [ "$(id -u)" -eq 0 ]; then
    chgrp www-data "$T/etc/readers" "$T/etc/operators" && chmod 640 "$T/etc/readers" "$T/etc/operators"
fi
chmod 644 "$CONF"

# ------------------------------------------------------ the suEXEC site ---
fx_cleanup() { wh_httpd_stop >/dev/null 2>&1; wh_site_account_remove; }
trap 'rc=$?; fx_cleanup; (exit $rc); _wh_cleanup' EXIT
SXVHOST=""
if [ "$SX" = 1 ]; then
    wh_site_account whfx || wh_done
    ACCT=$WH_ACCT SITE=$WH_SITE
    U="/home/$ACCT/.wirehook"
    install -d -o "$ACCT" -g "$ACCT" -m 755 "$SITE" "$SITE/hooks"
    install -d -o "$ACCT" -g "$ACCT" -m 700 "$U" "$U/inbox"
    install -o "$ACCT" -g "$ACCT" -m 755 "$IB_CGI" "$SITE/hooks/wirehook.cgi"
    printf 'SigningSecretFile secrets\nBasicAuthFile htpasswd\nInboxParams inbox/inbox.db\nCGILogLevel debug\n' \
        >"$U/wirehook.conf"
    cp "$WH_SECRETS" "$U/secrets"
    cp "$WH_HTPASSWD" "$U/htpasswd"
    chown "$ACCT:$ACCT" "$U/wirehook.conf" "$U/secrets" "$U/htpasswd"
    chmod 600 "$U/wirehook.conf" "$U/secrets" "$U/htpasswd"
    sed -e "s|/var/www/alice|$SITE|g" -e "s|alice|$ACCT|g" \
        "$WH_TOP/examples/shared-hosting-cgi/htaccess-fcgid" >"$SITE/hooks/.htaccess"
    chown "$ACCT:$ACCT" "$SITE/hooks/.htaccess"
    SXVHOST="<VirtualHost *:$WH_PORT>
    ServerName sx.localhost
    DocumentRoot $SITE
    SuexecUserGroup $ACCT $ACCT
    <Directory $SITE>
        Options SymLinksIfOwnerMatch
        AllowOverride FileInfo AuthConfig Options=ExecCGI
        Require all granted
    </Directory>
</VirtualHost>"
fi

# --------------------------------------------------------------- httpd ---
# The main server answers 127.0.0.1 (the first virtual host is the
# default), the suEXEC site sx.localhost.
WH_EXTRA_MODULES="fcgid rewrite $([ "$SX" = 1 ] && echo suexec)" wh_httpd_conf
wh_httpd_extra "FcgidIPCDir $T/run/fcgid
FcgidProcessTableFile $T/run/fcgid_shm
FcgidMaxProcessesPerClass 3
FcgidMaxRequestsPerProcess 40
FcgidMaxRequestLen 1048576
<VirtualHost *:$WH_PORT>
    ServerName 127.0.0.1
    DocumentRoot $T/htdocs
    Alias /f $F
    <Directory $F>
        Options +ExecCGI
        SetHandler fcgid-script
        CGIPassAuth On
        SetEnv WIREHOOK_CONFIG $CONF
        Require all granted
    </Directory>
    <Files small.cgi>
        SetEnv WIREHOOK_MAXBODYSIZE 300
    </Files>
    Alias /noauth $F/wirehook.cgi
    <Location /noauth>
        CGIPassAuth Off
    </Location>
</VirtualHost>
$SXVHOST"
wh_httpd_start || exit 1
E="$WH_URL/f/wirehook.cgi"

pids_of() { grep -o "wirehook.cgi\[[0-9]*\] debug: FastCGI: $1" "$T/logs/error.log" | grep -o '\[[0-9]*\]' | sort -u; }
nlines() { local n=0 l; while IFS= read -r l; do [ -n "$l" ] && n=$((n + 1)); done <<<"$1"; echo "$n"; }

# ------------------------------------------------------------ verdicts ---
b=$(wh_body Complete)
id=$(wh_json_get "$(cat "$b")" 'd["notificationId"]')
wh_post "$E" "$b"
assert_status 200 "FastCGI: a signed notification is stored"
assert_json_code accepted "FastCGI: accepted"
wh_post "$E" "$b"
assert_status 200 "FastCGI: the second copy, 200"
assert_json_code duplicate "FastCGI: duplicate"
WH_SIG=$(printf '0%.0s' $(seq 64)) wh_post "$E" "$(wh_body Review)"
assert_status 401 "FastCGI: a forged signature is refused"
assert_json_code signature_mismatch "FastCGI: signature_mismatch"
wh_curl -u "$WH_USER:$WH_PASSWD" "$E?limit=10"
assert_status 403 "FastCGI: with a console, the bank's credentials list nothing"
wh_curl -u creader:creader-pass "$E/console/api/events?limit=10"
assert_status 200 "FastCGI: the console's reader lists"
assert_contains "$WH_BODY" "$id" "FastCGI: the listing shows the stored notification"
assert_eq 1 "$(ib_sqlite 'SELECT count(*) FROM wh_events')" "FastCGI: one row for two copies"

# --------------------------------------------------- request isolation ---
# Each request after one that carried what it lacks: nothing carries over.
wh_post "$E" "$(wh_body Review)" -H "X-Extra: 1"
assert_json_code accepted "isolation: a full request"
WH_AUTH=- wh_post "$E" "$(wh_body Review)"
assert_status 401 "isolation: the next, without Authorization, is 401"
assert_json_code auth_required "isolation: auth_required (the last one's credentials are not kept)"
WH_SIG=- wh_post "$E" "$(wh_body Review)"
assert_json_code signature_missing "isolation: without a signature: signature_missing"
wh_curl -u creader:creader-pass "$E/console/api/events?limit=1"
assert_eq 1 "$(wh_json_get "$WH_BODY" 'len(d["events"])')" "isolation: limit=1 lists one"
wh_curl -u creader:creader-pass "$E/console/api/events"
assert_eq 2 "$(wh_json_get "$WH_BODY" 'len(d["events"])')" "isolation: the next, without a query, lists both"
e=$(wh_body Error)
wh_post "$E" "$e" -H "Content-Type: text/plain"
assert_json_code unsupported_media_type "isolation: a wrong Content-Type"
wh_post "$E" "$e"
assert_json_code accepted "isolation: the same body next, right type: accepted"
wh_curl "$WH_URL/noauth" -u "$WH_USER:$WH_PASSWD" -X POST -H "Content-Type: application/json" --data-binary "@$e"
assert_status 401 "CGIPassAuth Off: no Authorization reaches the program"
sleep 0.2
assert_contains "$(wh_errlog)" "FcgidPassHeader Authorization" "the error log names FcgidPassHeader too"

# ----------------------------------------- one process, many requests ---
for i in 1 2 3 4 5 6 7 8 9 10; do wh_curl "$E/console/assets/console.css"; done
assert_status 200 "the console's stylesheet"
pids=$(pids_of "GET /f/wirehook.cgi/console/assets")
n=$(nlines "$pids")
reqs=$(grep -c 'debug: FastCGI: ' "$T/logs/error.log")
assert_true "ten requests, at most $n processes ($n <= 3): processes serve many requests" test "$n" -le 3 -a "$n" -ge 1
assert_true "the processes served $reqs requests in all" test "$reqs" -ge 20
assert_contains "$(grep 'mod_fcgid: stderr' "$T/logs/error.log" | head -n 1)" "wirehook.cgi[" \
    "log lines reach the error log through FastCGI's stderr"

# -------------------------------------------------------- file changes ---
wh_make_htpasswd "$WH_HTPASSWD" newbank newbank-pass -B
[ "$(id -u)" -eq 0 ] && chmod 640 "$WH_HTPASSWD"
WH_AUTH=newbank:newbank-pass wh_post "$E" "$(wh_body Exception)"
assert_json_code accepted "a user added to htpasswd counts at the next request"
NEWSECRET="it-new-secret-$RANDOM$RANDOM"
cp -p "$WH_SECRETS" "$T/etc/old.secret"
printf '%s\n' "$NEWSECRET" >"$T/etc/new.secret"
cp "$T/etc/new.secret" "$WH_SECRETS.tmp" && chmod --reference="$WH_SECRETS" "$WH_SECRETS.tmp" &&
    chown --reference="$WH_SECRETS" "$WH_SECRETS.tmp" && mv "$WH_SECRETS.tmp" "$WH_SECRETS"
WH_SIGN_FILE="$T/etc/new.secret" wh_post "$E" "$(wh_body Reject)"
assert_json_code accepted "a rotated secret counts at the next request"
WH_SIGN_FILE="$T/etc/old.secret" wh_post "$E" "$(wh_body Reject)"
assert_json_code signature_mismatch "and the old one no longer"
mv "$T/etc/old.secret" "$WH_SECRETS"
wh_post "$E" "$(wh_body Reject)"
assert_json_code accepted "the secret put back counts again"
before=$(nlines "$(pids_of 'POST')")
printf 'AuthRealm Changed Realm\n' >>"$CONF"
WH_AUTH=- wh_post "$E" "$(wh_body Reject)"
assert_header WWW-Authenticate 'Basic realm="Changed Realm"' "a changed configuration file counts at the next request"
assert_contains "$(wh_errlog)" "the configuration or a file it names changed: read again" "the process says it read it again"
wh_make_htpasswd "$T/etc/readers" late late-pass -B
[ "$(id -u)" -eq 0 ] && chmod 640 "$T/etc/readers"
wh_curl -u late:late-pass "$E/console/"
assert_status 200 "a reader added to ConsoleReaders counts at the next request"
assert_contains "$WH_BODY" "FastCGI server starts and stops its processes" "the console says how the CGI runs"
wh_curl -u cop:cop-pass "$E/console/events"
assert_status 200 "the console: an operator reads too"
wh_curl "$E/console/"
assert_status 401 "the console: no login, 401"
assert_eq "$before" "$(nlines "$(pids_of 'POST')")" "the changes were read by the same processes"

# ----------------------------------------------------------- body sizes ---
big="$T/big.json"
python3 -c "import sys; sys.stdout.write(open('$(wh_body Complete)').read().replace('}', ', \"pad\": \"' + 'x' * 200000 + '\"}', 1))" >"$big"
S="$WH_URL/f/small.cgi"
wh_post "$S" "$(wh_body Complete)"
assert_status 413 "MaxBodySize 300 (SetEnv for small.cgi): 413"
assert_json_code body_too_large "body_too_large"
wh_post "$S" "$big"
assert_status 413 "a 200 KB body, under FcgidMaxRequestLen: 413, cleanly"
wh_post "$E" "$(wh_body Complete)"
assert_status 200 "the next request of the process that read it out is answered"

# -------------------------------------------------- writers in parallel ---
# More requests than FcgidMaxRequestsPerProcess allows one process: several
# processes write at once, and processes are stopped (SIGTERM) and
# replaced while the others go on.
ib_load_run fcgid "$E" 4 30
WH_USER=creader WH_PASSWD=creader-pass ib_load_verify fcgid "$E/console/api/events" 100
ib_check_verify "4 writers in parallel, 120 requests"
sleep 0.5
assert_contains "$(wh_errlog)" "stopped by SIGTERM after" \
    "a process at FcgidMaxRequestsPerProcess stops on SIGTERM, after its request"
assert_true "several processes served the writers" test "$(nlines "$(pids_of 'POST')")" -ge 2

# ------------------------------------------------------------- suEXEC ---
if [ "$SX" != 1 ]; then
    wh_skip_case "the suEXEC half: $SX"
    wh_done
fi
X="http://sx.localhost:$WH_PORT/hooks/v1/wires"
R=(--resolve "sx.localhost:$WH_PORT:127.0.0.1")
assert_contains "$(wh_errlog)" "suEXEC mechanism enabled" "httpd: suEXEC enabled"
b=$(wh_body Complete)
id=$(wh_json_get "$(cat "$b")" 'd["notificationId"]')
wh_post "$X" "$b" "${R[@]}"
assert_status 200 "suEXEC + FastCGI: stored"
assert_json_code accepted "suEXEC + FastCGI: accepted"
wh_post "$X" "$b" "${R[@]}"
assert_json_code duplicate "suEXEC + FastCGI: duplicate"
WH_SIG=$(printf '0%.0s' $(seq 64)) wh_post "$X" "$(wh_body Review)" "${R[@]}"
assert_status 401 "suEXEC + FastCGI: a forged signature is refused"
wh_curl -u "$WH_USER:$WH_PASSWD" "${R[@]}" "$X?limit=10"
assert_status 200 "suEXEC + FastCGI: the listing"
assert_eq "1 $id" "$(wh_json_get "$WH_BODY" '"%d %s" % (len(d["events"]), d["events"][0]["notificationId"])')" \
    "suEXEC + FastCGI: the listing shows the stored notification"
for f in inbox.db inbox.db-wal inbox.db-shm inbox.db-lock; do
    assert_eq "600 $ACCT:$ACCT" "$(stat -c '%a %U:%G' "$U/inbox/$f" 2>/dev/null)" \
        "suEXEC + FastCGI: $f belongs to the account, mode 0600"
done
xp=$(grep -o "wirehook.cgi\[[0-9]*\] debug: FastCGI: [A-Z]* /hooks" "$T/logs/error.log" | grep -o '\[[0-9]*\]' | sort -u | head -n 1)
xp=${xp//[\[\]]/}
assert_eq "$ACCT" "$(stat -c %U "/proc/$xp" 2>/dev/null)" "suEXEC + FastCGI: the process runs as the account"
assert_contains "$(grep "/$ACCT) gid:" /var/log/apache2/suexec.log 2>/dev/null | tail -n 1)" "cmd: wirehook.cgi" \
    "suexec.log: wirehook.cgi started as $ACCT"
for i in 1 2 3 4 5; do WH_SIG=- wh_post "$X" "$b" "${R[@]}"; done
assert_eq 1 "$(nlines "$(grep -o "wirehook.cgi\[[0-9]*\] debug: FastCGI: [A-Z]* /hooks" "$T/logs/error.log" | grep -o '\[[0-9]*\]' | sort -u)")" \
    "suEXEC + FastCGI: one process answered all of them"

wh_done
