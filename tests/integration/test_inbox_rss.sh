#!/usr/bin/env bash
# An inbox that cannot be opened costs nothing per request: while the
# database stays unusable (here: a schema newer than this build), 10,000
# requests to the module's inbox are answered 503 inbox_unavailable, the
# child tries to open it again at most every few seconds, and the httpd
# children's memory (RSS, from /proc) stays flat. Then the database is
# fixed and the inbox serves again without a restart.
# Size: WH_RSS_REQUESTS (10000); margin WH_RSS_MARGIN_KB (2048, all children).
. "$(dirname "$0")/lib.sh"
wh_init
. "$(dirname "$0")/inbox_lib.sh"
N=${WH_RSS_REQUESTS:-10000}
MARGIN=${WH_RSS_MARGIN_KB:-2048}

DB="$T/data/newer.db"
wh_write_config "$T/etc/newer.conf" "InboxParams $DB"
wh_httpd_extra "<Location /newer>
    SetHandler wirehook
    WirehookConfig $T/etc/newer.conf
</Location>"
wh_httpd_conf
wh_httpd_start || exit 1

# A database from a newer wirehook: this one refuses it.
wh_post "$WH_URL/newer" "$(wh_body Complete)"
assert_json_code accepted "the inbox works at first"
sqlite3 -cmd '.timeout 5000' "$DB" "UPDATE wh_meta SET schema_version = 99"
wh_httpd_restart || exit 1

# rss PID... -> their RSS in kB, summed
rss() {
    local kid sum=0 v
    for kid in "$@"; do
        v=$(awk '/^VmRSS:/ {print $2}' "/proc/$kid/status" 2>/dev/null)
        sum=$((sum + ${v:-0}))
    done
    echo "$sum"
}
# the parent's children (mod_cgid's daemon too: its RSS does not move)
children() { pgrep -P "$(cat "$T/run/httpd.pid")" | sort -n | tr '\n' ' '; }

# a fast client: keep-alive, several connections (ab, from apache2-utils)
hammer() {
    ab -q -k -n "$1" -c 8 -H "Authorization: Basic $(printf '%s:%s' "$WH_USER" "$WH_PASSWD" | base64 -w0)" \
        "$WH_URL/newer?limit=1" >"$T/ab.out" 2>&1
}
command -v ab >/dev/null || { _wh_bad "ab (apache2-utils) installed"; wh_done; }

hammer 500                      # warm up: every thread has served requests
kids=$(children)
# shellcheck disable=SC2086  # one pid a word
before=$(rss $kids)
t0=$(date +%s)
hammer "$N"
secs=$(( $(date +%s) - t0 ))
# shellcheck disable=SC2086
after=$(rss $kids)
kids_after=$(children)
done_n=$(awk '/^Complete requests:/ {print $3}' "$T/ab.out")
non2xx=$(awk '/^Non-2xx responses:/ {print $3}' "$T/ab.out")
echo "   $done_n requests in ${secs}s, all children: RSS ${before} kB -> ${after} kB"
assert_eq "$N" "$done_n" "$N requests answered"
assert_eq "$N" "${non2xx:-0}" "every one of them refused (503)"
assert_eq "$kids" "$kids_after" "the same children served them (none replaced)"
assert_true "children's RSS flat while the inbox is unavailable (${before} -> ${after} kB, margin ${MARGIN} kB)" \
    test "$after" -le $((before + MARGIN))

wh_curl -u "$WH_USER:$WH_PASSWD" "$WH_URL/newer?limit=1"
assert_status 503 "listing: 503"
assert_json_code inbox_unavailable "listing: inbox_unavailable"
attempts=$(grep -c 'cannot open the inbox' "$T/logs/error.log")
echo "   open attempts logged over ${secs}s: $attempts"
assert_true "the children tried to open it at most every few seconds ($attempts attempts in ${secs}s)" \
    test "$attempts" -le $(( (secs / 5 + 2) * 4 ))
assert_contains "$(wh_errlog)" "newer than this wirehook" "the reason is in the error log"

# fixed: served again within the retry interval, no restart
sqlite3 -cmd ".timeout 5000" "$DB" "UPDATE wh_meta SET schema_version = 5"
ib_post_retry "$WH_URL/newer" "$(wh_body Complete)" 8
assert_json_code accepted "the database fixed: stored again without a restart (${IB_RETRY_MS} ms)"

wh_done
