#!/usr/bin/env bash
# Where the module's instructions go, per request, inside httpd: runs one
# httpd (-X, event MPM) under callgrind, sends N pre-signed requests to
# /v1/sink (mod_wirehook in front of mod_benchok) and N to /floor/sink (the
# floor: HMAC + json_tokener_parse only), and prints instructions per
# request by function: the module's hooks against the floor's handler.
# Instruction counts do not depend on what else the machine is doing.
#
#   make bench-tools && bash bench/callgrind_module.sh [N]
#   CG_REPLAY=lmdb|shmcb|dbm (default lmdb: the default store)  CG_KEEP=1 keeps the profile
#   CG_SELF=N also prints the N functions with the most instructions of
#   their own per request on the module path (where to cut next)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cd "$top" || exit 1
N=${1:-300}
BUILD=$(cd "${BUILD:-build}" && pwd)
BENCH_DIR=$BUILD/bench
SHARED=$(cd "${WH_SHARED_DIR:-../shared}" && pwd)
MODDIR=${WH_MODDIR:-/usr/lib/apache2/modules}
T=$(mktemp -d /tmp/wh-cg.XXXXXX)
trap '[ -n "${CG_KEEP:-}" ] && echo "kept $T" >&2 || rm -rf "$T"' EXIT
mkdir -p "$T"/{etc,run,logs,htdocs}
chmod 755 "$T" "$T/run" "$T/logs"
PASSWORD=cg-pass
SECRET=cg-secret-$$
printf '%s\n' "$SECRET" >"$T/etc/secrets"; chmod 600 "$T/etc/secrets"
htpasswd -cbB -C 5 "$T/etc/htpasswd" bank "$PASSWORD" >/dev/null 2>&1
replay=${CG_REPLAY:-lmdb}
# shmcb judges only notifications signed TimestampTolerance (300 s) after
# its start: sign that far ahead
LEAD=0; case $replay in shmcb*) LEAD=300 ;; esac
{ echo "SigningSecretFile $T/etc/secrets"; echo "BasicAuthFile $T/etc/htpasswd"
  [ "$replay" = lmdb ] || echo "ReplayCache $replay"; } >"$T/etc/mod.conf"
PORT=$((20000 + RANDOM % 10000))
user=""; [ "$(id -u)" -eq 0 ] && user="User www-data
Group www-data"
# httpd switches to www-data; callgrind writes its profile as that user
[ -n "$user" ] && chown -R www-data "$T/run" "$T/logs"
cat >"$T/httpd.conf" <<EOF
ServerRoot "$T"
$(for m in mpm_event authz_core unixd socache_dbm socache_shmcb log_config; do
      [ -f "$MODDIR/mod_$m.so" ] && echo "LoadModule ${m}_module $MODDIR/mod_$m.so"; done)
LoadModule wirehook_module $BUILD/mod_wirehook.so
LoadModule benchok_module $BENCH_DIR/mod_benchok.so
$user
ServerName 127.0.0.1
Listen 127.0.0.1:$PORT
PidFile $T/run/httpd.pid
DefaultRuntimeDir $T/run
Mutex file:$T/run default
ErrorLog $T/logs/error.log
LogLevel warn
CustomLog $T/logs/access.log "%U %>s"
DocumentRoot "$T/htdocs"
ThreadsPerChild 4
<Location /v1/sink>
    SetHandler benchok
    WirehookConfig $T/etc/mod.conf
</Location>
<Location /floor/sink>
    SetHandler benchfloor
</Location>
BenchFloorSecret $SECRET
EOF
# run PATH COUNT OUT: one httpd under callgrind serving COUNT fresh signed
# requests to PATH (after the same 3 warm-up requests), annotated to OUT
run() {
    local path=$1 count=$2 out=$3 vg d
    : >"$T/cg.out"; [ -n "$user" ] && chown www-data "$T/cg.out"
    : >"$T/logs/access.log"
    [ -n "${CG_KEEP:-}" ] && cp "$T/logs/error.log" "$T/logs/error.log.prev" 2>/dev/null
    valgrind --tool=callgrind --callgrind-out-file="$T/cg.out" \
        /usr/sbin/apache2 -X -f "$T/httpd.conf" >"$T/logs/valgrind.log" 2>&1 &
    vg=$!
    for _ in $(seq 1 300); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.2; done
    # signed TimestampTolerance ahead of a moment after the store began
    [ "$LEAD" -gt 0 ] && sleep 2
    d="$T/gen.$RANDOM"; mkdir -p "$d"
    "$BENCH_DIR/bench_gen" --sample "$SHARED/samples/wire-status-complete.json" \
        --secrets "$T/etc/secrets" --user bank --password "$PASSWORD" \
        --host "127.0.0.1:$PORT" --path "$path" --count "$((count + 3))" --out "$d" \
        --lead "$LEAD" >/dev/null
    # signed.lua creates $d/done when the list is used up; wrk would sleep
    # out its -d. The timeout covers the first requests under valgrind.
    wrk -t1 -c1 -d$((count / 2 + 40))s --timeout 30s -s "$here/signed.lua" \
        "http://127.0.0.1:$PORT$path" -- "$d" stop >/dev/null 2>&1 &
    local w=$!
    while kill -0 "$w" 2>/dev/null && [ ! -f "$d/done" ]; do sleep 0.2; done
    sleep 0.5; kill -INT "$w" 2>/dev/null; wait "$w" 2>/dev/null
    kill -TERM "$(cat "$T/run/httpd.pid")" 2>/dev/null
    wait "$vg" 2>/dev/null
    local ok
    # wrk takes one line of the list for a first request it never sends
    ok=$(grep -c "^$path 200" "$T/logs/access.log")
    [ "$ok" -ge $((count + 2)) ] && ! grep -q "^$path [^2]" "$T/logs/access.log" \
        || echo "warning: $path: $ok of $((count + 2)) answered 200" >&2
    # --threshold=100: every function, or the small ones would read as 0
    callgrind_annotate --inclusive=yes --threshold=100 "$T/cg.out" >"$out" 2>/dev/null
    callgrind_annotate --inclusive=no --auto=no --threshold=100 "$T/cg.out" >"${out%.txt}.self.txt" 2>/dev/null
}
# Instructions per request: the difference between a run of N2 and a run of
# N1 requests, over N2 - N1 (start-up, warm-up and shutdown cancel out).
N1=$((N / 3)); N2=$N
run /v1/sink "$N1" "$T/mod1.txt"; run /v1/sink "$N2" "$T/mod2.txt"
run /floor/sink "$N1" "$T/floor1.txt"; run /floor/sink "$N2" "$T/floor2.txt"
total() { awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$1"; }
# the inclusive count on the line naming the function itself ("Ir (pct)  file:NAME [obj]")
ir() { awk -v f="$2" '{ for (i = 2; i <= NF; i++) if ($i ~ (":" f "$") && $1 ~ /^[0-9,]+$/) { gsub(",", "", $1); print $1; found = 1; exit } }
                      END { if (!found) print 0 }' "$1"; }
per() { echo $(( ( $(ir "$2" "$3") - $(ir "$1" "$3") ) / (N2 - N1) )); }
mt=$(( ( $(total "$T/mod2.txt") - $(total "$T/mod1.txt") ) / (N2 - N1) ))
ft=$(( ( $(total "$T/floor2.txt") - $(total "$T/floor1.txt") ) / (N2 - N1) ))
echo "ReplayCache $replay; per request from runs of $N1 and $N2 requests"
printf '\n%-52s %10s\n' "instructions per request (all of httpd)" "Ir"
printf '%-52s %10s\n' "module path (/v1/sink)" "$mt"
printf '%-52s %10s\n' "floor (/floor/sink)" "$ft"
printf '%-52s %10s\n' "floor / module" "$(awk -v a="$ft" -v b="$mt" 'BEGIN { printf "%.2f", a / b }')"
printf '\n%-52s %10s\n' "module path, by function (inclusive)" "Ir"
for f in "wh_post_read_request" "wh_fixups" "wh_guard" "wh_log_transaction" \
         "wh_verify_envelope" "wh_verify_auth" "wh_verify_payload" "wh_mod_read_body" \
         "wh_mod_replay_check" "wh_mod_publish_facts" "wh_mod_strip_client_headers" \
         "wh_mod_request_init" "wh_mod_keep_body" "kept_body_filter" "wh_mod_log_verdict" \
         "wh_mod_replay_confirm" "wh_signature_match" \
         "wh_schema_check" "benchok_handler" "ap_process_request_internal"; do
    printf '%-52s %10s\n' "$f" "$(per "$T/mod1.txt" "$T/mod2.txt" "$f")"
done
printf '\n%-52s %10s\n' "floor path, by function (inclusive)" "Ir"
for f in "benchok_handler" "floor_mac_matches" "json_tokener_parse_ex" "ap_process_request_internal"; do
    printf '%-52s %10s\n' "$f" "$(per "$T/floor1.txt" "$T/floor2.txt" "$f")"
done
# own Ir per function per request: (long run - short run) / (N2 - N1)
own() {
    awk -v n="$((N2 - N1))" '
        FNR == 1 { f++ }
        $1 ~ /^[0-9,]+$/ && NF >= 3 { v = $1; gsub(",", "", v); k = $0
                                      sub(/^ *[0-9,]+ +\([^)]*\) +/, "", k)
                                      sub(/ \[.*\]$/, "", k); sub(/^.*\//, "", k)
                                      if (k == "PROGRAM TOTALS") next
                                      if (f == 1) a[k] += v; else b[k] += v }
        END { for (k in b) { d = int((b[k] - a[k]) / n); if (d >= 50) print k "\t" d } }' "$1" "$2"
}
if [ "${CG_SELF:-0}" -gt 0 ]; then
    printf '\n%-52s %10s %10s\n' "own instructions per request (top $CG_SELF)" "module" "floor"
    own "$T/mod1.self.txt" "$T/mod2.self.txt" | sort -t$'\t' -k1,1 >"$T/own.mod"
    own "$T/floor1.self.txt" "$T/floor2.self.txt" | sort -t$'\t' -k1,1 >"$T/own.floor"
    join -t$'\t' -a1 -a2 -e0 -o 0,1.2,2.2 "$T/own.mod" "$T/own.floor" |
        sort -t$'\t' -k2,2rn | head -n "$CG_SELF" |
        while IFS=$'\t' read -r k m f; do printf '%-52.52s %10s %10s\n' "$k" "$m" "$f"; done
fi
