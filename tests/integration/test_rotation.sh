#!/usr/bin/env bash
# Rotating every credential while the bank sends, as docs/security.md
# ("Rotating credentials") says, with a sender posting to the inbox
# throughout and a forwarder forwarding what it stores: the bank's
# password (a second user in the htpasswd file, then the first removed),
# the signing secret (a second line, then the first removed), and the
# forwarder's secret (the application accepts both, ForwardSecretFile gets
# the new one first, the application drops the old). Every notification is
# answered 200, the application refuses nothing, and every one is
# forwarded; afterwards the old credentials are refused.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/forward_lib.sh"

APP_SECRETS="$T/etc/app.secrets"        # what the application accepts
FWD_SECRET="$T/etc/rot-forward.secret"  # what the forwarder signs with
OLD_FWD="fwd-old-$RANDOM$RANDOM"
NEW_FWD="fwd-new-$RANDOM$RANDOM"
wh_make_secrets "$APP_SECRETS" "$OLD_FWD"
wh_make_secrets "$FWD_SECRET" "$OLD_FWD"
# as docs/files.md has them: httpd's children re-read the bank's files as
# their user after a change
if [ "$(id -u)" -eq 0 ]; then
    chgrp www-data "$WH_SECRETS" "$WH_HTPASSWD" && chmod 640 "$WH_SECRETS" "$WH_HTPASSWD"
fi
FW_SECRET_FILE=$APP_SECRETS
fw_scenario rot "ForwardSecretFile $FWD_SECRET"
wh_httpd_conf
wh_httpd_start || exit 1
fw_app_start rot || { _wh_bad "the application starts"; wh_done; }
D=$(fw_dir rot)
URL="$WH_URL/fw/rot"
# the inbox made by httpd's user, before the forwarder opens it
fw_send rot "P-first:Complete" || _wh_bad "the first notification is stored"
fw_start rot --interval 0 --verbose

# The bank: one notification after another, each with the credentials in
# $S/creds (user, password, secret, read before every request; replaced
# whole by wh_sender_creds), every answer in $S/answers as "STATUS
# notificationId".
S="$T/sender"
mkdir -p "$S"
wh_sender_creds "$S" "$WH_USER" "$WH_PASSWD" "$WH_SECRET"
python3 "$WH_APP_SRC/bank_sender.py" "$URL" "$WH_SAMPLE_SRC" "$S" 2>"$S/err" &
SENDER=$!
wh_bg_add $SENDER

answers() { local n=0 l; while IFS= read -r l; do n=$((n + 1)); done <"$S/answers"; echo "$n"; } 2>/dev/null
# more N: until the sender has N more answers (60 s at most)
more() {
    local want=$(( $(answers) + $1 )) i
    for i in $(seq 1 600); do [ "$(answers)" -ge "$want" ] && return 0; sleep 0.1; done
    return 1
}
# every request that starts a second after a change is checked against it
settle() { sleep 2; }

assert_true "the sender is answered" more 10

# ---------------------------------------------------- the bank's password ---
NEWPW="bank-2027-$RANDOM"
htpasswd -bB "$WH_HTPASSWD" bank-2027 "$NEWPW" >/dev/null 2>&1
settle
wh_sender_creds "$S" bank-2027 "$NEWPW" "$WH_SECRET"
assert_true "password: the sender goes on with the new user" more 10
htpasswd -D "$WH_HTPASSWD" "$WH_USER" >/dev/null 2>&1
settle
assert_true "password: and after the old user is removed" more 10
body=$(wh_body Complete)
wh_post "$URL" "$body"
assert_status 401 "password: the old user is refused afterwards"
assert_json_code auth_failed "... auth_failed"

# ------------------------------------------------------ the signing secret ---
NEWSECRET="bank-secret-2027-$RANDOM$RANDOM"
printf '%s\n' "$NEWSECRET" >>"$WH_SECRETS"
settle
wh_sender_creds "$S" bank-2027 "$NEWPW" "$NEWSECRET"
assert_true "signing secret: the sender signs with the new secret" more 10
# the old line removed in place, as an editor does: owner and mode kept
printf '%s\n' "$NEWSECRET" >"$WH_SECRETS"
settle
assert_true "signing secret: and after the old one is removed" more 10
body=$(wh_body Complete)
printf '%s\n' "$WH_SECRET" >"$T/etc/old.secret"
WH_AUTH="bank-2027:$NEWPW" WH_SIGN_FILE="$T/etc/old.secret" wh_post "$URL" "$body"
assert_status 401 "signing secret: the old one is refused afterwards"
assert_json_code signature_mismatch "... signature_mismatch"

# ------------------------------------------------- the forwarder's secret ---
wh_make_secrets "$APP_SECRETS.new" "$OLD_FWD" "$NEW_FWD" && mv "$APP_SECRETS.new" "$APP_SECRETS"
wh_make_secrets "$FWD_SECRET.new" "$NEW_FWD" "$OLD_FWD" && mv "$FWD_SECRET.new" "$FWD_SECRET"
for _ in $(seq 1 100); do grep -q "ForwardSecretFile .* changed: re-read" "$D/fwd.err" && break; sleep 0.1; done
assert_contains "$(cat "$D/fwd.err")" "info: ForwardSecretFile $FWD_SECRET changed: re-read; its first line signs from now on" \
    "forward secret: the forwarder took the new one without a restart"
assert_true "forward secret: the sender goes on" more 10
# ForwardTimeout (2 s here) later no request signed with the old one is left
sleep 3
wh_make_secrets "$APP_SECRETS.new" "$NEW_FWD" && mv "$APP_SECRETS.new" "$APP_SECRETS"
assert_true "forward secret: and after the application dropped the old one" more 10

# ------------------------------------------------------------ what came of it ---
: >"$S/stop"
wait "$SENDER" 2>/dev/null
total=$(answers)
not200=$(grep -vc '^200 ' "$S/answers")
echo "  $total notifications sent during the rotations"
assert_eq 0 "$not200" "every notification during the three rotations was answered 200"
[ "$not200" -gt 0 ] && grep -v '^200 ' "$S/answers" | sort | uniq -c | head -n 5
assert_eq "" "$(cat "$S/err")" "the sender saw no error"
fw_wait_forwarded rot $((total + 1)) 60
assert_eq $((total + 1)) "$(fw_app_ok rot)" "the application answered 2xx once for each (and the first)"
assert_eq 0 "$(awk '$6 == 401' "$D/app/requests.log" | grep -c .)" \
    "the application refused no forwarded request (no 401: each was signed with a secret it held)"
fw_stop rot TERM
assert_eq 0 "$FW_RC" "the forwarder stops cleanly"
assert_not_contains "$(cat "$D/fwd.err")" "retry:" "no attempt had to be retried"
assert_eq "" "$(cut -d' ' -f2 "$S/answers" | sort | comm -23 - <(cut -d' ' -f2 "$D/app/requests.log" | sort -u))" \
    "every notification answered 200 reached the application"

wh_done
