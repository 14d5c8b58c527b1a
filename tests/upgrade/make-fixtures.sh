#!/usr/bin/env bash
# How the fixtures in tests/upgrade/RELEASE/ were made: an inbox written by
# each released wirehook, which the unit suites inbox_releases and
# inbox_releases_pg (tests/unit/test_inbox_releases.c) open with the
# current code. Not part of `make check`, which only reads the files this
# writes; run it again (as root, from the top of the tree, with
# PostgreSQL's server installed) when a release is added to RELEASES, and
# commit what it writes.
#
# For each release it builds that release's `wirehook` and `wirehook.cgi`
# in a git worktree of its commit outside the tree (the commits are
# debian/changelog's releases), then, with those programs alone and
# nothing of the current code:
#   - stores seven notifications through the CGI (fixed notificationIds,
#     eventDateTimes and payments, one of them arriving late with an older
#     time), a duplicate of the first, and an authentic body the schema
#     refuses (the quarantine); the CGI's successful Basic-auth checks fill
#     the auth cache (the table wh_auth_cache, or DATABASE-auth beside an
#     SQLite inbox from 1.1.1 on);
#   - from 1.1.0 on, runs `wirehook forward` against an application that
#     answers 400 for payment P-BRAVO (a dead letter), 503 for P-CHARLIE
#     (a retry an hour later, its second event waiting behind it) and 200
#     otherwise, stops it with SIGTERM, then stores one more notification
#     (not yet taken into the forward queue);
#   - reads the listing back through the CGI (GET offset/limit).
# It does so on SQLite (the database file, checkpointed, and the -auth
# file are kept as the release wrote them) and on a throwaway PostgreSQL
# (kept as a plain SQL dump: pg_dump --inserts, without the SET lines that
# would change the loading session and psql's \restrict lines, so that one
# PQexec loads it), checks that each release wrote what
# it was asked to, and writes expected.txt: the listing in order and what
# the forward queue holds, which the unit suites compare with what the
# current code reads.
#
#   tests/upgrade/make-fixtures.sh            # every release in RELEASES
#   tests/upgrade/make-fixtures.sh 1.2.0      # one
#   KEEP=1 ...                                # keep the work directory
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
# version commit forwarding(0|1)
RELEASES="1.0.0 01bee54 0
1.1.0 f364ce6 1
1.1.1 2220438 1
1.2.0 0b960e6 1"
WORK=${WORK:-/tmp/wh-fixtures.$$}
SAMPLE=${SHARED_DIR:-$TOP/../shared}/samples/wire-status-complete.json
URL=https://hooks.example.com/v1/wires

die() { echo "make-fixtures: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run it as root (the throwaway PostgreSQL runs as its own user)"
[ -f "$SAMPLE" ] || die "no $SAMPLE (SHARED_DIR)"
command -v sqlite3 >/dev/null || die "needs sqlite3"
command -v htpasswd >/dev/null || die "needs htpasswd"
mkdir -p "$WORK"

# a throwaway PostgreSQL, as the integration suites start one
BUILD=${BUILD:-build}
. "$TOP/tests/integration/lib.sh"
wh_init
. "$TOP/tests/integration/pg.sh"
pg_start || die "PostgreSQL does not start"
trap 'pg_destroy >/dev/null 2>&1; for w in "$WORK"/wt-*; do [ -d "$w" ] && git -C "$TOP" worktree remove --force "$w"; done; [ -z "${KEEP:-}" ] && rm -rf "$WORK"; _wh_cleanup' EXIT

# the application the old forwarders forward to
APP_PORT=$(wh_free_port)
cat >"$WORK/app.py" <<'PY'
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        pay = self.headers.get("Wirehook-Payment-Id")
        code = 400 if pay == "P-BRAVO" else 503 if pay == "P-CHARLIE" else 200
        with open(sys.argv[2], "a") as f:
            f.write("%s %d\n" % (self.headers.get("Wirehook-Notification-Id"), code))
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY

nid() { printf '00000000-0000-4000-8000-%012d' "$1"; }
# body N PAYMENT STATUS TIME -> a notification (the shared sample with
# these fields), the same bytes in every release
body() {
    python3 - "$SAMPLE" "$(nid "$1")" "$2" "$3" "$4" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["notificationId"], d["eventDateTime"] = sys.argv[2], sys.argv[5]
d["data"]["wireEventInfo"]["paymentId"] = sys.argv[3]
d["data"]["wireEventInfo"]["status"] = sys.argv[4]
print(json.dumps(d, indent=2))
PY
}

# cgi CONF METHOD [BODYFILE] [QUERY] -> the CGI's whole answer
cgi() {
    local conf=$1 method=$2 file=${3:-/dev/null} query=${4:-} ts sig len
    ts=$(date +%s)
    sig=$("$B/wirehook" sign --secret-file "$D/secrets" --url "$URL" --timestamp "$ts" "$file")
    len=$(stat -c %s "$file")
    env -i PATH=/usr/bin:/bin WIREHOOK_CONFIG="$conf" REQUEST_METHOD="$method" \
        REQUEST_SCHEME=https HTTP_HOST=hooks.example.com REQUEST_URI="/v1/wires${query:+?$query}" \
        QUERY_STRING="$query" CONTENT_TYPE=application/json CONTENT_LENGTH="$len" \
        HTTP_AUTHORIZATION="Basic $(printf 'bank:fixture-password' | base64)" \
        HTTP_X_TIMESTAMP="$ts" HTTP_X_SIGNATURE="$sig" "$B/wirehook.cgi" <"$file"
}
expect() {   # expect WHAT TEXT PATTERN
    grep -q -- "$3" <<<"$2" || die "$V $ENGINE: $1: wanted $3, got: $(head -c 300 <<<"$2")"
}

# fill CONF FORWARD: the notifications, the forwarder, the listing
fill() {
    local conf=$1 fwd=$2 out
    body 1 P-ALPHA Review 2026-11-20T10:00:00Z >"$D/b1"
    body 2 P-ALPHA Complete 2026-11-20T11:00:00Z >"$D/b2"
    body 3 P-BRAVO Complete 2026-11-20T11:05:00Z >"$D/b3"
    body 4 P-CHARLIE Review 2026-11-20T11:10:00Z >"$D/b4"
    body 5 P-CHARLIE Complete 2026-11-20T11:20:00Z >"$D/b5"
    body 6 P-DELTA Exception 2026-11-20T12:00:00Z >"$D/b6"
    body 7 P-DELTA Review 2026-11-20T09:00:00Z >"$D/b7"      # late, older
    for i in 1 2 3 4 5 6 7; do
        out=$(cgi "$conf" POST "$D/b$i"); expect "store $i" "$out" '"status":"accepted"'
    done
    out=$(cgi "$conf" POST "$D/b1"); expect "duplicate" "$out" '"status":"duplicate"'
    # authentic, but the schema refuses it: quarantined
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["data"]; print(json.dumps(d))' \
        "$D/b1" | sed "s/$(nid 1)/$(nid 90)/" >"$D/bq"
    out=$(cgi "$conf" POST "$D/bq"); expect "quarantine" "$out" 'Status: 400'
    if [ "$fwd" = 1 ]; then
        : >"$D/app.log"
        python3 "$WORK/app.py" "$APP_PORT" "$D/app.log" & local app=$!
        sleep 0.5
        "$B/wirehook" forward --config "$conf" --interval 0 >"$D/fwd.out" 2>"$D/fwd.err" & local f=$!
        for _ in $(seq 1 100); do
            [ "$(cut -d' ' -f1 "$D/app.log" | sort -u | grep -c .)" -ge 6 ] && break
            sleep 0.1
        done
        kill -TERM "$f"; wait "$f"
        kill "$app"; wait "$app" 2>/dev/null
        body 8 P-ECHO Complete 2026-11-20T13:00:00Z >"$D/b8"
        out=$(cgi "$conf" POST "$D/b8"); expect "store 8" "$out" '"status":"accepted"'
    fi
    cgi "$conf" GET /dev/null "offset=0&limit=100" | sed '1,/^\r\{0,1\}$/d' >"$D/listing.json"
    python3 -c 'import json,sys; [print(e["notificationId"]) for e in json.load(open(sys.argv[1]))["events"]]' \
        "$D/listing.json" >"$D/listing.txt" || die "$V $ENGINE: the listing is not JSON"
}

# expected FORWARD -> expected.txt: what every release was asked to hold
expected() {
    local fwd=$1 i
    echo "# written by tests/upgrade/make-fixtures.sh with wirehook $V ($C)"
    echo "release $V"
    echo "schema $SCHEMA"
    while read -r id; do echo "listed $id"; done <"$D/listing.txt"
    echo "quarantined 1"
    echo "payment P-ALPHA Complete"
    echo "payment P-CHARLIE Complete"
    echo "payment P-DELTA Exception"
    if [ "$fwd" = 1 ]; then
        for i in 1 2 6 7; do echo "forwarded $(nid "$i")"; done
        echo "dead $(nid 3)"
        for i in 4 5 8; do echo "pending $(nid "$i")"; done
    else
        # no forwarder yet: the first one forwards everything stored
        for i in 1 2 3 4 5 6 7; do echo "pending $(nid "$i")"; done
    fi
}

while read -r V C FWD; do
    [ $# -gt 0 ] && [ "$1" != "$V" ] && continue
    echo "== $V ($C)"
    WT="$WORK/wt-$V"
    git -C "$TOP" worktree add --detach "$WT" "$C" >/dev/null 2>&1 || die "git worktree add $C"
    (cd "$WT" && make -j2 BUILD=build CGI_LINK=dynamic build/wirehook build/wirehook.cgi \
        >"$WORK/build-$V.log" 2>&1) || die "building $V: see $WORK/build-$V.log"
    B="$WT/build"
    OUT="$HERE/$V"
    rm -rf "$OUT"; mkdir -p "$OUT"
    for ENGINE in sqlite3 pgsql; do
        D="$WORK/$V-$ENGINE"
        rm -rf "$D"; mkdir -p "$D"
        printf '%s\n' fixture-signing-secret >"$D/secrets"
        htpasswd -cbB -C 5 "$D/htpasswd" bank fixture-password >/dev/null 2>&1
        printf '%s\n' fixture-forward-secret >"$D/forward.secret"
        chmod 600 "$D/secrets" "$D/htpasswd" "$D/forward.secret"
        if [ "$ENGINE" = pgsql ]; then
            db="fx_${V//./_}"
            pg_sql "DROP DATABASE IF EXISTS $db" postgres >/dev/null
            pg_sql "CREATE DATABASE $db OWNER wirehook" postgres >/dev/null
            params="\"${PG_CONNINFO/dbname=wirehook/dbname=$db}\""
        else
            params="$D/inbox.db"
        fi
        {
            echo "SigningSecretFile secrets"
            echo "BasicAuthFile htpasswd"
            echo "SignedUrl $URL"
            echo "InboxDriver $ENGINE"
            echo "InboxParams $params"
            echo "AuthCacheTTL 3600"
            if [ "$FWD" = 1 ]; then
                echo "ForwardUrl http://127.0.0.1:$APP_PORT/app"
                echo "ForwardSecretFile forward.secret"
                echo "ForwardBackoffMin 1h"
                echo "ForwardBackoffMax 1h"
                echo "ForwardTimeout 5s"
            fi
        } >"$D/wirehook.conf"
        fill "$D/wirehook.conf" "$FWD"
        if [ "$ENGINE" = pgsql ]; then
            SCHEMA=$(pg_sql "SELECT schema_version FROM wh_meta" "$db")
        else
            SCHEMA=$(sqlite3 "$D/inbox.db" "SELECT schema_version FROM wh_meta")
        fi
        expected "$FWD" >"$D/expected.txt"
        if [ "$ENGINE" = sqlite3 ]; then
            # the WAL folded into the file, as the release's last close does
            sqlite3 "$D/inbox.db" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
            cp "$D/inbox.db" "$OUT/inbox.db"
            [ -f "$D/inbox.db-auth" ] && cp "$D/inbox.db-auth" "$OUT/inbox.db-auth"
            cp "$D/expected.txt" "$OUT/expected.txt"
        else
            cmp -s <(grep -v '^#' "$D/expected.txt") <(grep -v '^#' "$OUT/expected.txt") ||
                die "$V: PostgreSQL and SQLite hold different listings"
            PGPASSWORD="$PG_SUPERPW" "$(pg_bin)/pg_dump" -h 127.0.0.1 -p "$PG_PORT" -U postgres \
                --inserts --no-owner --no-privileges --no-comments --no-tablespaces "$db" |
                grep -v -e '^SET ' -e 'set_config(' -e '^--' -e '^\\restrict' -e '^\\unrestrict' |
                cat -s >"$OUT/pgsql.sql"
            [ -s "$OUT/pgsql.sql" ] || die "$V: pg_dump wrote nothing"
        fi
    done
    git -C "$TOP" worktree remove --force "$WT"
    ls -l "$OUT"
done <<<"$RELEASES"
echo "make-fixtures: done; commit tests/upgrade/"
exit 0
