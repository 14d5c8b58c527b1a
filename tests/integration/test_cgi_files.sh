#!/usr/bin/env bash
# wirehook.cgi checks Basic auth before it touches the database, and the
# inbox files it creates are not world-readable:
#   - a request without credentials, with an unknown user, or with a known
#     user and a wrong password (GET or POST) creates no file at all;
#   - once a database exists, such requests leave it and the auth cache
#     (DATABASE-auth, read before the password is checked) byte for byte
#     as they were;
#   - under a 022 umask the database, -wal, -shm, -lock and -auth are
#     0600, and 0640 in InboxGroup's group;
#   - the CGI and the module warn about inbox files others can read.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/inbox_lib.sh"
ib_cgi_install
umask 022   # httpd and its CGI processes inherit it

mkdir -p "$T/data/fresh" "$T/data/grp" "$T/data/warn"
chmod 1777 "$T/data/fresh" "$T/data/grp" "$T/data/warn"
wh_write_config "$T/etc/fresh.conf" "InboxParams $T/data/fresh/inbox.db"
GROUP=$(id -gn)
[ "$(id -u)" -eq 0 ] && GROUP=www-data   # the CGI runs as www-data, a member of it
wh_write_config "$T/etc/grp.conf" "InboxParams $T/data/grp/inbox.db" "InboxGroup $GROUP"
wh_write_config "$T/etc/warn.conf" "InboxParams $T/data/warn/inbox.db"
ib_cgi_location /cgi/fresh "SetEnv WIREHOOK_CONFIG $T/etc/fresh.conf"
ib_cgi_location /cgi/grp "SetEnv WIREHOOK_CONFIG $T/etc/grp.conf"
ib_cgi_location /cgi/warn "SetEnv WIREHOOK_CONFIG $T/etc/warn.conf"
wh_httpd_extra "<Location /warned>
    SetHandler wirehook
    WirehookConfig $T/etc/warn.conf
</Location>"
wh_httpd_conf
wh_httpd_start || exit 1

F="$WH_URL/cgi/fresh"
listing() { ls -A "$1" | tr '\n' ' '; }
fp() {  # fingerprint of the database, its WAL and the auth cache
    ( cd "$T/data/fresh" && sha256sum inbox.db inbox.db-wal inbox.db-auth 2>/dev/null
      stat -c '%n %s %Y' inbox.db inbox.db-wal inbox.db-auth ) | sha256sum
}

# ------------------------------------------ before any database exists ---
probe() {  # probe LABEL: unauthenticated, unknown-user and wrong-password requests
    local b
    b=$(wh_body Complete)
    WH_AUTH=- wh_post "$F" "$b";                   assert_status 401 "$1: POST without credentials: 401"
    WH_AUTH="nobody:x" wh_post "$F" "$b";          assert_status 401 "$1: POST, unknown user: 401"
    WH_AUTH="$WH_USER:wrong" wh_post "$F" "$b";    assert_status 401 "$1: POST, known user, wrong password: 401"
    wh_curl "$F?limit=1";                          assert_status 401 "$1: GET without credentials: 401"
    wh_curl -u "nobody:x" "$F?limit=1";            assert_status 401 "$1: GET, unknown user: 401"
    wh_curl -u "$WH_USER:wrong" "$F?limit=1";      assert_status 401 "$1: GET, known user, wrong password: 401"
    WH_AUTH="$WH_USER:wrong" WH_SIG=bad wh_post "$F" "$b"
    assert_status 401 "$1: POST, wrong password and bad signature: 401"
}
probe "no database yet"
assert_eq "" "$(listing "$T/data/fresh")" "no database yet: nothing was created"

# ------------------------------------------------ the first real store ---
wh_post "$F" "$(wh_body Complete)"
assert_json_code accepted "an authenticated POST stores"
for f in inbox.db inbox.db-wal inbox.db-shm inbox.db-lock inbox.db-auth; do
    assert_eq 600 "$(stat -c %a "$T/data/fresh/$f" 2>/dev/null)" "umask 022: $f is 0600"
done
wh_curl -u "$WH_USER:$WH_PASSWD" "$F?limit=5"
assert_status 200 "an authenticated GET lists"

# ------------------------------------ a database exists: left untouched ---
before=$(fp)
probe "database exists"
assert_eq "$before" "$(fp)" "database exists: refused requests left the database, its WAL and the auth cache as they were"
assert_eq 1 "$(sqlite3 -cmd '.timeout 5000' "$T/data/fresh/inbox.db" 'SELECT count(*) FROM wh_events')" \
    "database exists: still exactly the one stored event"

# ----------------------------------------------------------- InboxGroup ---
wh_post "$WH_URL/cgi/grp" "$(wh_body Complete)"
assert_json_code accepted "InboxGroup $GROUP: stored"
for f in inbox.db inbox.db-wal inbox.db-shm inbox.db-lock inbox.db-auth; do
    assert_eq "640 $GROUP" "$(stat -c '%a %G' "$T/data/grp/$f" 2>/dev/null)" "InboxGroup: $f is 0640, group $GROUP"
done

# ------------------------------------------------------------- warnings ---
wh_post "$WH_URL/cgi/warn" "$(wh_body Complete)"
assert_json_code accepted "warn: stored"
chmod 644 "$T/data/warn/inbox.db"
wh_post "$WH_URL/cgi/warn" "$(wh_body Complete)"
assert_contains "$(wh_errlog)" "InboxParams $T/data/warn/inbox.db is readable by others" \
    "the CGI warns about a database others can read"
wh_httpd_restart || exit 1
assert_true "the module warns at start (WH00901) about a database others can read" \
    grep -q "WH00901: WirehookConfig $T/etc/warn.conf: InboxParams $T/data/warn/inbox.db is readable by others" \
    "$T/logs/error.log"

wh_done
