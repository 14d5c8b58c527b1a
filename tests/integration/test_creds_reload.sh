#!/usr/bin/env bash
# The credentials files are re-read when they change, as mod_authn_file
# reads its file on each request: with the module, a user added with
# htpasswd is accepted, a user removed (whose success the auth cache held)
# is refused and a secret added for a rotation is accepted, all without a
# graceful restart (each child looks at the files at most once a second).
# The CGI reads them at each request. A change the children (httpd's
# User) cannot read is logged with the file and the user, and the version
# read before stays in use.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/inbox_lib.sh"
ib_cgi_install            # the secret and htpasswd files readable by www-data
ib_cgi_location /cgi/inbox
wh_httpd_conf
wh_httpd_start || exit 1
pid=$(_wh_pid)

# wait_children: every child has looked at the files since a change. A child
# looks at most once a second, on a request: past a second after the change,
# each child's next request looks (a lower bound, not a timing assertion).
wait_children() { sleep 1.5; }

# until_status URL STATUS [CURL...]: POSTs a fresh notification until the
# answer is STATUS (at most 15 s); 0 when it came
until_status() {
    local url=$1 want=$2 i
    for i in $(seq 1 60); do
        wh_post "$url" "$(wh_body Complete)"
        [ "$WH_STATUS" = "$want" ] && return 0
        sleep 0.25
    done
    return 1
}

# ---------------------------------------------------- a user added ---
WH_AUTH="carol:carol-pass" wh_post "$WH_URL/inbox" "$(wh_body Complete)"
assert_status 401 "a user not in the htpasswd file: 401"
htpasswd -b "$WH_HTPASSWD" carol carol-pass >/dev/null 2>&1
assert_true "htpasswd kept the file readable by the server's group" \
    test "$(stat -c %G "$WH_HTPASSWD")" = www-data
WH_AUTH="carol:carol-pass" until_status "$WH_URL/inbox" 200
assert_eq 0 $? "the module accepts the user added with htpasswd, without a restart"
WH_AUTH="carol:carol-pass" wh_post "$WH_URL/cgi/inbox" "$(wh_body Complete)"
assert_status 200 "the CGI accepts the added user at once (it reads the file per request)"

# ------------------------------------------- a cached user removed ---
for _ in 1 2 3 4; do WH_AUTH="carol:carol-pass" wh_post "$WH_URL/inbox" "$(wh_body Complete)"; done
assert_status 200 "carol's success is in the children's auth cache"
htpasswd -D "$WH_HTPASSWD" carol >/dev/null 2>&1
WH_AUTH="carol:carol-pass" until_status "$WH_URL/inbox" 401
assert_eq 0 $? "the module refuses the removed user, cached success or not"
wait_children
for _ in 1 2 3 4 5 6; do
    WH_AUTH="carol:carol-pass" wh_post "$WH_URL/inbox" "$(wh_body Complete)"
    [ "$WH_STATUS" = 401 ] || break
done
assert_status 401 "... in every child, every time"
assert_json_code auth_failed "... auth_failed"
WH_AUTH="carol:carol-pass" wh_post "$WH_URL/cgi/inbox" "$(wh_body Complete)"
assert_status 401 "the CGI refuses the removed user"

# ---------------------------------------------- a password changed ---
htpasswd -b "$WH_HTPASSWD" "$WH_USER" new-pass >/dev/null 2>&1
until_status "$WH_URL/inbox" 401
assert_eq 0 $? "the old password of a changed user is refused"
WH_AUTH="$WH_USER:new-pass" until_status "$WH_URL/inbox" 200
assert_eq 0 $? "... and the new one accepted"
htpasswd -b "$WH_HTPASSWD" "$WH_USER" "$WH_PASSWD" >/dev/null 2>&1
until_status "$WH_URL/inbox" 200
wait_children

# ------------------------------------------ a secret added (rotation) ---
NEW_SECRET="rotated-$RANDOM-$RANDOM"
wh_make_secrets "$T/etc/new.secret" "$NEW_SECRET"
wh_write_config "$T/etc/sender.conf"
sed -i "s|^SigningSecretFile .*|SigningSecretFile $T/etc/new.secret|" "$T/etc/sender.conf"
sendnew() { "$WIREHOOK" send --config "$T/etc/sender.conf" --url "$1" --user "$WH_USER:$WH_PASSWD" --sample Complete 2>&1; }
out=$(sendnew "$WH_URL/inbox")
assert_contains "$out" "signature_mismatch" "a secret the server does not have: signature_mismatch"
printf '%s\n' "$NEW_SECRET" >>"$WH_SECRETS"
ok=""
for _ in $(seq 1 60); do
    out=$(sendnew "$WH_URL/inbox")
    case "$out" in 200*) ok=1; break ;; esac
    sleep 0.25
done
assert_eq 1 "$ok" "the module accepts a secret added to SigningSecretFile, without a restart"
assert_contains "$(sendnew "$WH_URL/cgi/inbox")" '200 {"status":"accepted"' "the CGI accepts it too"
wh_post "$WH_URL/inbox" "$(wh_body Complete)"
assert_status 200 "the secrets already there still verify"

assert_eq "$pid" "$(_wh_pid)" "httpd was neither restarted nor reloaded"
assert_eq 1 "$(grep -c 'resuming normal operations' "$T/logs/error.log")" "no graceful restart happened (one start in the log)"

# ------------------------- a change the server's user cannot read ---
chmod 600 "$WH_SECRETS"; chown root:root "$WH_SECRETS"
printf 'another-%s\n' "$RANDOM" >>"$WH_SECRETS"
found=""
for _ in $(seq 1 60); do
    wh_post "$WH_URL/inbox" "$(wh_body Complete)"
    grep -q "SigningSecretFile $WH_SECRETS changed but cannot be read" "$T/logs/error.log" && { found=1; break; }
    sleep 0.25
done
assert_eq 1 "$found" "an unreadable change is logged, naming the key and the file"
line=$(grep -m1 "changed but cannot be read" "$T/logs/error.log")
assert_contains "$line" "as user www-data" "... and the user that could not read it"
assert_contains "$line" "Permission denied" "... and why"
assert_contains "$line" "the version read before stays in use" "... and what happens meanwhile"
assert_status 200 "the version read before stays in use"

wh_done
