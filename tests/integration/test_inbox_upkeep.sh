#!/usr/bin/env bash
# An inbox kept for a year, as docs/inbox.md has it: configtest says what
# the retention keeps and refuses one shorter than the replay promise; a
# purge while the bank sends deletes only the events older than
# InboxRetention that the forwarder has finished, every notification is
# answered 200 and listed once, and the listing's offsets go on; a purged
# notificationId sent again is a duplicate (its tombstone), never stored
# or forwarded twice; the metrics show the last purge; the forwarder
# purges by itself; a backup made while the bank sends is restored into a
# new directory, passes PRAGMA integrity_check and lists what the inbox
# listed. The purge of a million events is `make bench`'s.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || wh_skip "sqlite3 (build/deps.sh --test) is not installed"
wh_init
. "$(dirname "$0")/inbox_lib.sh"
. "$(dirname "$0")/forward_lib.sh"

# TimestampTolerance 4 s: ReplayWindow is at least 8 s, so the shortest
# retention the promise allows is 12 s
KEEP=12
fw_scenario keep "TimestampTolerance 4" "InboxRetention ${KEEP}s"
C=$(fw_conf keep)
D=$(fw_dir keep)
DB="$T/data/fw-keep.db"
URL="$WH_URL/fw/keep"

# --------------------------------------------------------- configtest ---
out=$("$WIREHOOK" configtest "$WH_CONF" 2>&1)
assert_contains "$out" "InboxRetention is not set: every event" "configtest: unset keeps everything, and says so"
out=$("$WIREHOOK" configtest "$C" 2>&1)
assert_contains "$out" "retention: events 12s, dead letters 12s, quarantine 12s" \
    "configtest: what the retention keeps"
assert_contains "$out" "notificationId (its tombstone) for ever" "  and that purged notificationIds stay known"
wh_write_config "$T/etc/short.conf" "InboxParams $T/data/short.db" "TimestampTolerance 4" \
    "InboxRetention 11s"
out=$("$WIREHOOK" configtest "$T/etc/short.conf" 2>&1)
assert_eq 1 "$?" "configtest: a retention shorter than the replay promise is refused"
assert_contains "$out" "at least ReplayWindow + TimestampTolerance (12s)" "  and the message names the floor"
out=$("$WIREHOOK" inbox --config "$T/etc/short.conf" purge 2>&1)
assert_eq 1 "$?" "  and so does every program that loads it"
wh_write_config "$T/etc/short.conf" "InboxParams $T/data/short.db" "TimestampTolerance 4" \
    "InboxRetention 12s" "InboxTombstoneRetention 11s"
out=$("$WIREHOOK" configtest "$T/etc/short.conf" 2>&1)
assert_eq 1 "$?" "configtest: tombstones kept shorter than the replay promise are refused"
assert_contains "$out" "InboxTombstoneRetention (11s) must be 0" "  and the message names the key"

# as the unit runs them: the inbox's owner
as_owner() { if [ "$(id -u)" -eq 0 ]; then setpriv --reuid=www-data --regid=www-data --init-groups -- "$@"; else "$@"; fi; }
[ "$(id -u)" -eq 0 ] && chown www-data:www-data "$FW_SECRET_FILE"
ib_cgi_install
RDIR="$T/restored"
RCONF="$T/etc/restored.conf"
wh_write_config "$RCONF" "InboxParams $RDIR/inbox.db"
ib_cgi_location /restored "SetEnv WIREHOOK_CONFIG $RCONF"
wh_httpd_extra "$(<"$WH_TOP/examples/prometheus/apache.conf")"
wh_httpd_conf
wh_httpd_start || exit 1
fw_app_start keep || { _wh_bad "the application starts"; wh_done; }

# ------------------------------------------------------------- purge ---
fw_send keep A:Review A:Complete B:Review -:wire.other C:Review C:Complete || _wh_bad "6 sent"
old=$(cut -d' ' -f1 "$D/sent")
as_owner "$WIREHOOK" forward --config "$C" --drain --interval 0 >"$D/drain.out" 2>&1
assert_contains "$(cat "$D/drain.out")" "delivered=6" "the first six are forwarded"
# stored, never taken into the forward queue
fw_send keep D:Review E:Review || _wh_bad "2 more sent"
held=$(tail -n 2 "$D/sent" | cut -d' ' -f1)
t_old=$(date +%s)
out=$(as_owner "$WIREHOOK" inbox --config "$C" purge --dry-run)
assert_contains "$out" "would purge: events=0" "a purge before the retention has passed deletes nothing"
assert_contains "$out" "last purge: none yet" "  and no purge is recorded yet"

S="$T/sender"
mkdir -p "$S"
wh_sender_creds "$S" "$WH_USER" "$WH_PASSWD" "$WH_SECRET"
answers() { local n=0 l; while IFS= read -r l; do n=$((n + 1)); done <"$S/answers"; echo "$n"; } 2>/dev/null
more() {
    local want=$(( $(answers) + $1 )) i
    for i in $(seq 1 600); do [ "$(answers)" -ge "$want" ] && return 0; sleep 0.1; done
    return 1
}
send_start() {
    rm -f "$S/stop"
    python3 "$WH_APP_SRC/bank_sender.py" "$URL" "$WH_SAMPLE_SRC" "$S" 0.02 2>>"$S/err" &
    SENDER=$!
    wh_bg_add $SENDER
}
send_stop() { : >"$S/stop"; wait "$SENDER" 2>/dev/null; }

# the first eight are older than the retention (a lower bound: no timing
# is asserted)
while [ $(( $(date +%s) - t_old )) -le $((KEEP + 1)) ]; do sleep 0.5; done
send_start
assert_true "the bank sends" more 20
out=$(as_owner "$WIREHOOK" inbox --config "$C" purge --dry-run)
assert_contains "$out" "would purge: events=6 (dead letters 0)" "--dry-run: the six forwarded would go"
assert_eq 8 "$(sqlite3 "$DB" "SELECT count(*) FROM wh_events WHERE id > 0 AND notification_id IN ($(printf "'%s'," $old $held | sed 's/,$//'))")" \
    "  and nothing went"
wh_curl "$WH_URL/wirehook-metrics"
assert_not_contains "$WH_BODY" "wirehook_inbox_last_purge_timestamp_seconds{config=\"$C\"}" \
    "metrics: no last purge before the first"
t_purge=$(date +%s)
out=$(as_owner "$WIREHOOK" inbox --config "$C" purge)
assert_eq 0 "$?" "purge while the bank sends"
assert_contains "$out" "purged: events=6 (dead letters 0)" "  the six forwarded events go"
assert_contains "$out" "older events wait for wirehook forward" "  the two not yet taken in by the forwarder stay, and it says why"
assert_contains "$out" "last purge: " "  the purge is recorded"
assert_not_contains "$out" "none yet" "  (not none)"
assert_true "the bank goes on sending" more 20
send_stop
assert_eq 0 "$(sqlite3 "$DB" "SELECT count(*) FROM wh_events WHERE id > 0 AND notification_id IN ($(printf "'%s'," $old | sed 's/,$//'))")" \
    "the purged events are gone"
assert_eq 6 "$(sqlite3 "$DB" "SELECT count(*) FROM wh_events WHERE id < 0 AND body = '' AND payment_id IS NULL AND notification_id IN ($(printf "'%s'," $old | sed 's/,$//'))")" \
    "  each leaves its tombstone: the notificationId, no body, no facts"
# the bank sends a purged one again, signed afresh
first=${old%%[[:space:]]*}
wh_post "$URL" "$(wh_body Complete "$first")"
assert_status 200 "a purged notificationId sent again is answered 200"
assert_json_code duplicate "  duplicate: its tombstone holds the id, nothing is stored twice"
wh_curl "$WH_URL/wirehook-metrics"
last=$(grep -F "wirehook_inbox_last_purge_timestamp_seconds{config=\"$C\"} " "$T/resp.body" | cut -d' ' -f2)
assert_true "metrics: the last purge's time ($last), at or after it began ($t_purge)" \
    test "${last:-0}" -ge "$t_purge"
assert_eq 0 "$(grep -vc '^200 ' "$S/answers")" "every notification was answered 200 ($(answers) sent)"
"$WIREHOOK" pull "$URL" --user "$WH_USER:$WH_PASSWD" --limit 7 >"$T/listed.ndjson" 2>"$T/pull.err"
assert_eq 0 "$?" "the inbox lists, page by page"
python3 -c 'import json,sys; [print(json.loads(l)["notificationId"]) for l in open(sys.argv[1]) if l.strip()]' \
    "$T/listed.ndjson" >"$T/listed.ids"
assert_eq "$(printf '%s\n' $held; cut -d' ' -f2 "$S/answers")" "$(cat "$T/listed.ids")" \
    "the listing: the two held events, then every notification sent, once each, in order"
wh_curl -u "$WH_USER:$WH_PASSWD" "$URL?offset=0&limit=1"
assert_eq "7" "$(wh_json_get "$WH_BODY" 'd["pagination"]["offset"]')" \
    "the next offset is the last position read (7), not a count"

# ---------------------------------------------- the forwarder purges ---
fw_start keep --interval 0 --purge-interval 1s
all=$(( $(grep -c . "$D/sent") + $(answers) ))
assert_true "the forwarder forwards the rest" fw_wait_forwarded keep "$all" 60
gone() { [ "$(sqlite3 "$DB" "SELECT count(*) FROM wh_events WHERE id > 0 AND notification_id IN ($(printf "'%s'," $held | sed 's/,$//'))")" = 0 ]; }
for _ in $(seq 1 $(( (KEEP + 30) * 2 ))); do gone && break; sleep 0.5; done
assert_true "once forwarded and old, the held two are purged by the forwarder itself" gone
assert_contains "$(cat "$D/fwd.err")" "purged: events=" "  and it logs what it purged"
fw_stop keep TERM
assert_eq 0 "$FW_RC" "the forwarder stops cleanly"
assert_eq "" "$(awk '$6 ~ /^2/ {print $2}' "$D/app/requests.log" | sort | uniq -d)" \
    "no event was forwarded twice"

# --------------------------------------------- backup under load ------
mkdir -p "$T/backups"; chmod 700 "$T/backups"
[ "$(id -u)" -eq 0 ] && chown www-data:www-data "$T/backups"
out=$(as_owner "$WIREHOOK" inbox --config "$C" backup "$T/backups/inbox.db" 2>&1)
assert_eq 0 "$?" "backup, as the inbox's owner"
# the answers of this sending only: the first sending's events were
# forwarded and are old enough to have been purged since
: >"$S/answers"
send_start
assert_true "the bank sends" more 20
before=$(answers)
out=$("$WIREHOOK" inbox --config "$C" backup "$T/backups/inbox.db" 2>&1)
assert_eq 0 "$?" "backup while the bank sends (as root), over the first"
assert_contains "$out" "integrity ok" "  the copy checks itself"
assert_true "the bank goes on sending" more 20
send_stop
assert_eq 0 "$(grep -vc '^200 ' "$S/answers")" "every notification was answered 200"
assert_eq "600 $(stat -c %U:%G "$DB")" "$(stat -c '%a %U:%G' "$T/backups/inbox.db")" \
    "the copy: mode 0600, owned like the inbox"
assert_eq "" "$(ls "$T/backups" | grep -v '^inbox.db$')" "  one file, nothing beside it"

# the restore, as docs/inbox.md has it: a new directory, the copy as its
# database, owned like the inbox
install -d -m 750 "$RDIR"
install -m 600 "$T/backups/inbox.db" "$RDIR/inbox.db"
[ "$(id -u)" -eq 0 ] && chown -R www-data:www-data "$RDIR"
assert_eq ok "$(sqlite3 "$RDIR/inbox.db" 'PRAGMA integrity_check')" "the restored database passes PRAGMA integrity_check"
"$WIREHOOK" pull "$WH_URL/restored" --user "$WH_USER:$WH_PASSWD" --limit 50 >"$T/restored.ndjson" 2>"$T/pull.err"
assert_eq 0 "$?" "the restored inbox lists"
"$WIREHOOK" pull "$URL" --user "$WH_USER:$WH_PASSWD" --limit 50 >"$T/live.ndjson" 2>>"$T/pull.err"
n=$(grep -c . "$T/restored.ndjson")
assert_true "the bank's later notifications are not in the copy ($n of $(grep -c . "$T/live.ndjson"))" \
    test "$n" -lt "$(grep -c . "$T/live.ndjson")"
assert_eq "$(cat "$T/restored.ndjson")" "$(head -n "$n" "$T/live.ndjson")" \
    "the restored listing is the live one up to the moment of the copy, byte for byte"
head -n "$before" "$S/answers" | cut -d' ' -f2 | sort >"$T/acked.ids"
python3 -c 'import json,sys; [print(json.loads(l)["notificationId"]) for l in open(sys.argv[1]) if l.strip()]' \
    "$T/restored.ndjson" | sort >"$T/restored.ids"
assert_eq "" "$(comm -23 "$T/acked.ids" "$T/restored.ids")" \
    "every notification answered before the backup began is in it ($before)"
wh_post "$WH_URL/restored" "$(wh_body Complete)"
assert_json_code accepted "the restored inbox stores new notifications"

wh_done
