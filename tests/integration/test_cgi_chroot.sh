#!/usr/bin/env bash
# The self-contained wirehook.cgi copied alone into an empty root: itself,
# the .htwirehook.conf beside it, the secret and htpasswd files, a data
# directory, /dev/urandom and /dev/null; no libc, no loader, no /etc,
# no /proc. Run with chroot as an unprivileged user, a CGI environment and
# the body on stdin (no httpd): it verifies, stores into SQLite, answers a
# duplicate and a forged notification, and lists with offset/limit,
# exactly as anywhere else.
#
# Needs root (chroot, mknod) and CGI_LINK=static; otherwise skipped.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || wh_skip "chroot and mknod need root"
[ "${CGI_LINK:-static}" = static ] || wh_skip "only the self-contained CGI runs without a libc"
CHROOT=$(command -v chroot) || wh_skip "no chroot"

wh_init
CGI="$WH_BUILD/wirehook.cgi"
R="$T/root"
RUN_AS=65534:65534     # nobody: numeric, nothing to look up

# ------------------------------------------------------------- the root ---
mkdir -p "$R/cgi-bin" "$R/private" "$R/data" "$R/dev"
cp "$CGI" "$R/cgi-bin/wirehook.cgi"
cp "$WH_SECRETS" "$R/private/secrets"
cp "$WH_HTPASSWD" "$R/private/htpasswd"
printf 'SigningSecretFile /private/secrets\nBasicAuthFile /private/htpasswd\nInboxParams /data/inbox.db\n' \
    >"$R/cgi-bin/.htwirehook.conf"
mknod -m 666 "$R/dev/null" c 1 3
mknod -m 444 "$R/dev/urandom" c 1 9
chown -R "$RUN_AS" "$R/private" "$R/data" "$R/cgi-bin/.htwirehook.conf"
chmod 700 "$R/private" "$R/data"
chmod 600 "$R/private/secrets" "$R/private/htpasswd" "$R/cgi-bin/.htwirehook.conf"
chmod 755 "$R" "$R/cgi-bin" "$R/dev" "$R/cgi-bin/wirehook.cgi"
assert_eq "cgi-bin cgi-bin/.htwirehook.conf cgi-bin/wirehook.cgi data dev dev/null dev/urandom private private/htpasswd private/secrets" \
    "$(cd "$R" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')" \
    "the root holds the CGI, its files and two devices, nothing else"

URL=http://127.0.0.1/cgi-bin/wirehook.cgi
AUTH="Basic $(printf '%s:%s' "$WH_USER" "$WH_PASSWD" | base64 -w0)"
# in_root METHOD QUERY BODY-FILE [ENV=VALUE...] -> $T/out (status in $OUT_STATUS, body in $OUT_BODY)
in_root() {
    local method=$1 query=$2 body=$3; shift 3
    env -i REQUEST_METHOD="$method" GATEWAY_INTERFACE=CGI/1.1 SCRIPT_FILENAME=/cgi-bin/wirehook.cgi \
        REQUEST_SCHEME=http HTTP_HOST=127.0.0.1 REQUEST_URI="/cgi-bin/wirehook.cgi${query:+?$query}" \
        QUERY_STRING="$query" HTTP_AUTHORIZATION="$AUTH" "$@" \
        "$CHROOT" --userspec="$RUN_AS" "$R" /cgi-bin/wirehook.cgi <"$body" >"$T/out" 2>"$T/err"
    OUT_STATUS=$(head -n 1 "$T/out" | tr -d '\r')
    OUT_BODY=$(sed '1,/^\r*$/d' "$T/out")
}
post() {   # post BODY-FILE [SIGNATURE]
    local ts sig
    printf -v ts '%(%s)T' -1
    sig=${2:-$(wh_sign "$WH_SECRETS" POST "$URL" "$1" "$ts")}
    in_root POST "" "$1" CONTENT_TYPE=application/json CONTENT_LENGTH="$(stat -c %s "$1")" \
        HTTP_X_TIMESTAMP="$ts" HTTP_X_SIGNATURE="$sig"
}

b1=$(wh_body Complete)
id1=$(wh_json_get "$(cat "$b1")" 'd["notificationId"]')
post "$b1"
assert_eq "Status: 200 OK" "$OUT_STATUS" "empty root: a signed notification is stored"
assert_eq accepted "$(wh_json_code "$OUT_BODY")" "empty root: accepted" || cat "$T/err" >&2
post "$b1"
assert_eq "Status: 200 OK" "$OUT_STATUS" "empty root: the same again: 200"
assert_eq duplicate "$(wh_json_code "$OUT_BODY")" "empty root: duplicate"
b2=$(wh_body Review)
id2=$(wh_json_get "$(cat "$b2")" 'd["notificationId"]')
post "$b2"
assert_eq accepted "$(wh_json_code "$OUT_BODY")" "empty root: a second one stored"
post "$(wh_body Exception)" "$(printf '0%.0s' $(seq 64))"
assert_eq "Status: 401 Unauthorized" "$OUT_STATUS" "empty root: a forged notification: 401"
assert_eq signature_mismatch "$(wh_json_code "$OUT_BODY")" "empty root: signature_mismatch"

in_root GET "offset=0&limit=1" /dev/null
assert_eq "Status: 200 OK" "$OUT_STATUS" "empty root: GET lists"
assert_eq "1 $id1 1 True" "$(wh_json_get "$OUT_BODY" '"%d %s %s %s" % (len(d["events"]), d["events"][0]["notificationId"], d["pagination"]["offset"], d["pagination"]["moreRecords"])')" \
    "empty root: offset=0&limit=1: the first, more to come"
in_root GET "offset=1&limit=5" /dev/null
assert_eq "1 $id2 2 False" "$(wh_json_get "$OUT_BODY" '"%d %s %s %s" % (len(d["events"]), d["events"][0]["notificationId"], d["pagination"]["offset"], d["pagination"]["moreRecords"])')" \
    "empty root: offset=1&limit=5: the second, the end"
in_root GET "limit=0" /dev/null
assert_eq invalid_pagination "$(wh_json_code "$OUT_BODY")" "empty root: a bad limit: invalid_pagination"

for f in inbox.db inbox.db-wal inbox.db-shm inbox.db-lock inbox.db-auth; do
    assert_eq "600 65534" "$(stat -c '%a %u' "$R/data/$f" 2>/dev/null)" "empty root: $f is 0600, the user's"
done
assert_eq 2 "$(sqlite3 "$R/data/inbox.db" 'SELECT count(*) FROM wh_events')" "empty root: two events in SQLite"
assert_false "empty root: nothing was created outside the data directory" \
    test -e "$R/etc" -o -e "$R/tmp" -o -e "$R/lib" -o -e "$R/proc"

# --configtest inside the root: the file beside the script, no /etc/passwd
out=$(env -i "$CHROOT" --userspec="$RUN_AS" "$R" /cgi-bin/wirehook.cgi --configtest 2>&1)
assert_contains "$out" "configuration: /cgi-bin/.htwirehook.conf" "empty root: --configtest finds the file beside it"
assert_contains "$out" "Syntax OK" "empty root: --configtest: Syntax OK"

wh_done
