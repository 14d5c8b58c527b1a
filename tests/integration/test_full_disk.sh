#!/usr/bin/env bash
# A full disk is a 503, never a crash. The lmdb replay store, the module's
# inbox and two CGI inboxes (one that exists, one that does not yet) live
# on a small loop-mounted ext4 file system, filled to the last block while
# notifications arrive: no httpd child and no CGI process dies, every
# answer is 200 (and that notification was delivered or stored) or the
# retryable 503 (replay_cache_unavailable, inbox_unavailable), every
# refused one is accepted once space is freed, and the databases pass
# PRAGMA integrity_check. Then the CGI creates its wal-index on a disk
# with only a few KiB left, one amount after another (SQLite allocates a
# new -shm page by writing its last byte, which on 1 KiB blocks leaves the
# rest of the page without a block).
# Needs root and a loop device (mount -o loop); elsewhere it is skipped.
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/inbox_lib.sh"

N=${WH_FULL_DISK_EACH:-$(wh_size 12)}
IMG="$T/fs.img"
MNT="$T/full"
MOUNTED=""
fd_umount() {
    [ -n "$MOUNTED" ] || return 0
    umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
    MOUNTED=""
}
# httpd holds files on it: stopped before the file system is unmounted
trap '_rc=$?; wh_httpd_stop >/dev/null 2>&1; fd_umount; (exit $_rc); _wh_cleanup' EXIT

if [ "$(id -u)" -ne 0 ] || ! command -v mkfs.ext4 >/dev/null 2>&1; then
    wh_skip "a loop mount needs root and mkfs.ext4 (e2fsprogs)"
fi
mkdir -p "$MNT"
# 1 KiB blocks (mkfs's choice for a file system this small), no blocks
# kept for root: httpd's user and the filler see the same free space
if ! dd if=/dev/zero of="$IMG" bs=1M count=24 status=none ||
    ! mkfs.ext4 -q -F -m 0 "$IMG" || ! mount -o loop "$IMG" "$MNT"; then
    wh_skip "no loop device to mount the small file system on"
fi
MOUNTED=1
chmod 1777 "$MNT"

STORE="$MNT/replay.mdb"
MAP=$((8 * 1024 * 1024))
wh_write_config "$WH_CONF" "InboxParams $MNT/module.db" "ReplayCache lmdb:$STORE($MAP)"
wh_write_config "$T/etc/cgi-old.conf" "InboxParams $MNT/cgi-old.db"
wh_write_config "$T/etc/cgi-new.conf" "InboxParams $MNT/cgi-new.db"
ib_cgi_install || exit 1
ib_cgi_location /cgi/old "SetEnv WIREHOOK_CONFIG $T/etc/cgi-old.conf"
ib_cgi_location /cgi/new "SetEnv WIREHOOK_CONFIG $T/etc/cgi-new.conf"
wh_httpd_conf
wh_httpd_start || exit 1

declare -A URL=([app]=/v1/wires [inbox]=/inbox [old]=/cgi/old [new]=/cgi/new)
declare -A REFUSAL=([app]=replay_cache_unavailable [inbox]=inbox_unavailable
                    [old]=inbox_unavailable [new]=inbox_unavailable)

# the inboxes that exist before the disk fills
for t in inbox old; do
    wh_post "$WH_URL${URL[$t]}" "$(wh_body Complete)"
    assert_status 200 "$t: stores while there is room"
done
assert_file_absent "$MNT/cgi-new.db" "the new CGI inbox does not exist yet"

# The store's blocks past its tree were reserved when it was created;
# punched out again, it is the sparse file an older wirehook left (the
# case that faulted): its next record needs blocks the disk will not have.
fallocate --punch-hole --offset $((1024 * 1024)) --length $((MAP - 1024 * 1024)) "$STORE" 2>/dev/null

# fill: whole MiBs, then single KiBs up to the last block; then keep
# taking whatever is freed while the notifications arrive
fill_up() {
    dd if=/dev/zero of="$MNT/fill" bs=1M oflag=append conv=notrunc status=none 2>/dev/null
    dd if=/dev/zero of="$MNT/fill" bs=1k oflag=append conv=notrunc status=none 2>/dev/null
}
fill_up
assert_eq 0 "$(stat -f -c %a "$MNT")" "the file system is full"
(
    while [ ! -e "$T/stop-fill" ]; do
        dd if=/dev/zero of="$MNT/fill" bs=1k count=64 oflag=append conv=notrunc status=none 2>/dev/null
        sleep 0.05
    done
) &
FILLER=$!
wh_bg_add $FILLER

# send TARGET: N fresh notifications, "i id status code" lines in
# $T/TARGET.log (its own answer files: the four run at once)
send() {
    local t=$1 i f id ts sig st body url="$WH_URL${URL[$1]}"
    for i in $(seq 1 "$N"); do
        f=$(wh_body Complete "" "$T/$t.$i.json")
        id=$(wh_body_id "$f")
        printf -v ts '%(%s)T' -1
        sig=$(wh_sign "$WH_SECRETS" POST "$url" "$f" "$ts")
        st=$(curl -sS -o "$T/$t.resp" -w '%{http_code}' --max-time 30 -X POST -H "Expect:" \
            -H "Content-Type: application/json" -u "$WH_USER:$WH_PASSWD" \
            -H "$WH_TS_HEADER: $ts" -H "$WH_SIG_HEADER: $sig" --data-binary "@$f" "$url" 2>/dev/null)
        body=$(cat "$T/$t.resp" 2>/dev/null)
        printf '%s %s %s %s\n' "$i" "$id" "$st" "$(wh_json_code "$body")" >>"$T/$t.log"
    done
}
for t in app inbox old new; do send "$t" & done
wait $(jobs -p | grep -vx "$FILLER")
touch "$T/stop-fill"
wait "$FILLER" 2>/dev/null

for t in app inbox old new; do
    bad=0 refused=0
    while read -r i id st code; do
        case "$st $code" in
            "200 "*) ;;
            "503 ${REFUSAL[$t]}") refused=$((refused + 1)) ;;
            *) bad=$((bad + 1)); echo "  $t: $id answered $st $code" >&2 ;;
        esac
    done <"$T/$t.log"
    assert_eq 0 "$bad" "$t: every answer on the full disk is 200 or 503 ${REFUSAL[$t]}"
    assert_true "$t: the full disk was felt (some 503s: $refused of $N)" [ "$refused" -gt 0 ]
done
log=$(wh_errlog)
assert_not_contains "$log" "exit signal" "no httpd child died"
assert_not_contains "$log" "End of script output before headers" "no CGI process died before its answer"

# room again: every refused notification is retried, as the bank does,
# until it is accepted (the module's inbox reconnects within seconds)
rm -f "$MNT/fill"
for t in app inbox old new; do
    left=0
    while read -r i id st code; do
        [ "$st" = 200 ] && continue
        for _ in $(seq 1 40); do
            wh_post "$WH_URL${URL[$t]}" "$T/$t.$i.json"
            [ "$WH_STATUS" = 200 ] && break
            sleep 0.5
        done
        [ "$WH_STATUS" = 200 ] || { left=$((left + 1)); echo "  $t: $id still $WH_STATUS $WH_BODY" >&2; }
    done <"$T/$t.log"
    assert_eq 0 "$left" "$t: every refused notification is accepted once space is back"
done

# what was acknowledged is there: delivered once each, or stored
for i in $(seq 1 "$N"); do
    id=$(wh_body_id "$T/app.$i.json")
    n=0
    for d in "$T/app/calls"/*; do grep -qs "$id" "$d/body" && n=$((n + 1)); done
    [ "$n" = 1 ] || echo "  app: $id delivered $n times" >&2
    [ "$n" = 1 ] && echo ok
done >"$T/delivered"
assert_eq "$N" "$(grep -c ok "$T/delivered")" "app: every notification delivered exactly once"
for t in inbox old new; do
    db=$MNT/module.db
    [ "$t" = inbox ] || db=$MNT/cgi-$t.db
    ids=""
    for i in $(seq 1 "$N"); do ids="$ids'$(wh_body_id "$T/$t.$i.json")',"; done
    assert_eq "$N" "$(sqlite3 -cmd ".timeout 5000" "$db" "SELECT count(*) FROM wh_events WHERE notification_id IN (${ids%,})")" \
        "$t: every notification stored once"
    assert_eq ok "$(sqlite3 -cmd ".timeout 5000" "$db" "PRAGMA integrity_check")" "$t: integrity_check"
done
f=$(wh_body Complete)
wh_post "$WH_URL/v1/wires" "$f"
assert_status 200 "app: the replay store records again"
wh_post "$WH_URL/v1/wires" "$f"
assert_json_code duplicate "app: ... and remembers"

# A new wal-index on a nearly full disk, with 4 to 40 KiB left: each
# answer is 200 or 503, never a dead process.
bad=0
for kib in 4 8 12 16 20 24 28 32 36 40; do
    # the last connection out removes -wal and -shm (nothing else has
    # the file open: the CGI's processes are gone)
    sqlite3 -cmd ".timeout 5000" "$MNT/cgi-old.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
    fill_up
    size=$(stat -c %s "$MNT/fill")
    truncate -s $((size - kib * 1024)) "$MNT/fill"
    wh_post "$WH_URL/cgi/old" "$(wh_body Complete)"
    case "$WH_STATUS $(wh_json_code "$WH_BODY")" in
        "200 accepted" | "503 inbox_unavailable") ;;
        *) bad=$((bad + 1)); echo "  $kib KiB left: $WH_STATUS $WH_BODY" >&2 ;;
    esac
    rm -f "$MNT/fill"
done
assert_eq 0 "$bad" "cgi: a wal-index made on a nearly full disk: 200 or 503 each time"
log=$(wh_errlog)
assert_not_contains "$log" "exit signal" "no httpd child died (wal-index)"
assert_not_contains "$log" "End of script output before headers" "no CGI process died (wal-index)"
assert_eq ok "$(sqlite3 -cmd ".timeout 5000" "$MNT/cgi-old.db" "PRAGMA integrity_check")" "cgi: integrity_check after the wal-index runs"
# for docs/reliability.md (bench/reliability.sh)
mkdir -p "$WH_BUILD/reliability" 2>/dev/null &&
    printf '%s: %d passed, %d failed\n' "$(basename "$0")" "$WH_PASS" "$WH_FAIL" \
        >"$WH_BUILD/reliability/$(basename "$0" .sh).last" 2>/dev/null
wh_done
