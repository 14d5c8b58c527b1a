#!/usr/bin/env bash
# An upgrade while the bank sends, as docs/upgrade.md has it for a
# package or `make install`: httpd serves the inbox from the newest
# release's database (tests/upgrade/, as that release left it) with a
# forwarder running, a sender posts without a pause, and then the module
# file is replaced the way dpkg replaces it (a new file renamed over the
# old), httpd restarted gracefully, and the forwarder stopped with SIGTERM
# and started again. The new module file is this build with another
# version string: a file httpd has not loaded, whose start-up line shows
# that it runs. Every notification is answered 200, listed once after the
# release's own events, and forwarded once.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/forward_lib.sh"

FIX="$WH_TOP/tests/upgrade"
LAST=$(for d in "$FIX"/*/; do basename "$d"; done | sort -V | tail -n 1)
[ -f "$FIX/$LAST/inbox.db" ] || { _wh_bad "a release's fixture in $FIX"; wh_done; }

# the module from a directory of its own, as /usr/lib/apache2/modules
MODS="$T/modules"
mkdir -p "$MODS"
cp "$WH_MOD_SO" "$MODS/mod_wirehook.so"
WH_MOD_SO="$MODS/mod_wirehook.so"
OLD=$("$WIREHOOK" --version 2>/dev/null | awk '{print $2; exit}')
# the same build under another version: the same length, so nothing moves
NEW=$(sed 's/[0-9]$/9/' <<<"$OLD"); [ "$NEW" = "$OLD" ] && NEW=$(sed 's/[0-9]$/8/' <<<"$OLD")
python3 - "$MODS/mod_wirehook.so" "$T/new.so" "$OLD" "$NEW" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
old, new = (b"\0" + a.encode() + b"\0" for a in sys.argv[3:5])
assert d.count(old) == 1, "the version string is not there once"
open(sys.argv[2], "wb").write(d.replace(old, new))
PY
assert_eq 0 "$?" "a new module file: this build, version $NEW instead of $OLD"

fw_scenario up
DB="$T/data/fw-up.db"
cp "$FIX/$LAST/inbox.db" "$DB"
[ -f "$FIX/$LAST/inbox.db-auth" ] && cp "$FIX/$LAST/inbox.db-auth" "$DB-auth"
chmod 600 "$DB"*
[ "$(id -u)" -eq 0 ] && chown www-data:www-data "$DB"*
wh_httpd_conf
wh_httpd_start || exit 1
assert_contains "$(wh_errlog)" "WH00992: mod_wirehook $OLD:" "httpd runs the module $OLD"
fw_app_start up || { _wh_bad "the application starts"; wh_done; }
D=$(fw_dir up)
URL="$WH_URL/fw/up"
if [ "$(id -u)" -eq 0 ]; then
    # as the unit runs it: the inbox's owner
    fw_start() { setpriv --reuid=www-data --regid=www-data --init-groups -- \
        "$WIREHOOK" forward --config "$(fw_conf up)" --interval 0 >>"$D/fwd.out" 2>>"$D/fwd.err" &
        wh_pid_tag $! >"$D/fwd.tag"; wh_bg_add $!; }
    chown www-data:www-data "$FW_SECRET_FILE"
fi
fw_start up

S="$T/sender"
mkdir -p "$S"
wh_sender_creds "$S" "$WH_USER" "$WH_PASSWD" "$WH_SECRET"
python3 "$WH_APP_SRC/bank_sender.py" "$URL" "$WH_SAMPLE_SRC" "$S" 0.03 2>"$S/err" &
SENDER=$!
wh_bg_add $SENDER
answers() { local n=0 l; while IFS= read -r l; do n=$((n + 1)); done <"$S/answers"; echo "$n"; } 2>/dev/null
more() {
    local want=$(( $(answers) + $1 )) i
    for i in $(seq 1 600); do [ "$(answers)" -ge "$want" ] && return 0; sleep 0.1; done
    return 1
}
assert_true "the bank sends" more 30

# ----------------------------------------------------------- the upgrade ---
install -m 644 "$T/new.so" "$MODS/.mod_wirehook.so.new"
mv -f "$MODS/.mod_wirehook.so.new" "$MODS/mod_wirehook.so"
assert_true "httpd restarts gracefully with the new file" wh_httpd_graceful
fw_stop up TERM
assert_eq 0 "$FW_RC" "the old forwarder stops with SIGTERM (exit 0)"
fw_start up
assert_true "the bank goes on sending" more 30
: >"$S/stop"
wait "$SENDER" 2>/dev/null
assert_contains "$(wh_errlog)" "WH00992: mod_wirehook $NEW:" "httpd now runs the new module file ($NEW)"

# ------------------------------------------------------- nothing lost ---
total=$(answers)
echo "  $total notifications sent across the upgrade; sent again on a new connection" \
     "after a kept-alive one closed under them: $(cat "$S/resent" 2>/dev/null | grep -c .)"
assert_eq 0 "$(grep -vc '^200 ' "$S/answers")" "every notification was answered 200"
grep -v '^200 ' "$S/answers" | cut -d' ' -f1 | sort | uniq -c | head -n 5
cut -d' ' -f2 "$S/answers" >"$T/sent.ids"
"$WIREHOOK" pull "$URL" --user "$WH_USER:$WH_PASSWD" >"$T/listed.ndjson" 2>"$T/pull.err"
assert_eq 0 "$?" "the inbox lists"
python3 -c 'import json,sys; [print(json.loads(l)["notificationId"]) for l in open(sys.argv[1]) if l.strip()]' \
    "$T/listed.ndjson" >"$T/listed.ids"
grep '^listed ' "$FIX/$LAST/expected.txt" | cut -d' ' -f2 >"$T/release.ids"
n=$(grep -c . "$T/release.ids")
assert_eq "$(cat "$T/release.ids")" "$(head -n "$n" "$T/listed.ids")" \
    "the release's own events are listed first, in their order"
assert_eq "$(sort "$T/sent.ids")" "$(tail -n +$((n + 1)) "$T/listed.ids" | sort)" \
    "then every notification sent, once each"
forwarded() { awk '$6 ~ /^2/ {print $2}' "$D/app/requests.log" | sort; }
for _ in $(seq 1 600); do
    [ -z "$(comm -23 <(sort "$T/sent.ids") <(forwarded | uniq))" ] && break
    sleep 0.1
done
got=$(forwarded)
assert_eq "" "$(comm -23 <(sort "$T/sent.ids") <(uniq <<<"$got"))" "every notification sent was forwarded"
assert_eq "" "$(uniq -d <<<"$got")" "none was forwarded twice across the forwarder's restart"
fw_stop up TERM
assert_eq 0 "$FW_RC" "the new forwarder stops cleanly"

wh_done
