#!/usr/bin/env bash
# `make bench`: every figure is a ratio against a baseline measured in the
# same run on the same machine, absolute numbers beside it. Prints the
# table and rewrites docs/benchmarks.md.
#
# Sections (BENCH_SECTIONS, default all): core inbox module cgi memory.
# Knobs: BENCH_SECONDS (10) per HTTP run, BENCH_ROUNDS (3) interleaved
# baseline/subject rounds, BENCH_MEM_REQUESTS (100000), BENCH_INBOX_RECORDS
# (1000000), BENCH_DOC (docs/benchmarks.md; "-" writes none), BENCH_PERF=FILE
# (perf profile of the httpd child during the measured module runs;
# BENCH_PERF_PATH picks /v1/sink, /floor/sink or /sink).
#
# Load: wrk on 127.0.0.1 with bench/signed.lua; every request is signed by
# bench_gen beforehand (fresh notificationId, eventDateTime and timestamp,
# each sent at most once), so the module's replay protection never
# short-circuits a measurement. wrk and httpd share the machine's cores.
set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cd "$top" || exit 1
abs() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$top/$1" ;; esac; }

BUILD=$(abs "${BUILD:-build}")
SHARED=$(abs "${WH_SHARED_DIR:-../shared}")
BENCH_DIR=$(abs "${BENCH_DIR:-$BUILD/bench}")
SECONDS_RUN=${BENCH_SECONDS:-10}
ROUNDS=${BENCH_ROUNDS:-3}
MEM_REQUESTS=${BENCH_MEM_REQUESTS:-100000}
INBOX_RECORDS=${BENCH_INBOX_RECORDS:-1000000}
SECTIONS=${BENCH_SECTIONS:-core inbox module cgi memory}
DOC=${BENCH_DOC:-docs/benchmarks.md}
HTTPD=${WH_HTTPD:-/usr/sbin/apache2}
MODDIR=${WH_MODDIR:-/usr/lib/apache2/modules}
SAMPLE="$SHARED/samples/wire-status-complete.json"
WRK_CONN=16
PASSWORD="bench-pass-$$"

declare -A R          # results: section.key -> value
declare -a NOTES=()   # free-text lines for the document
HTTPD_CONF=""

T=$(mktemp -d /tmp/wh-bench.XXXXXX) || exit 1
chmod 755 "$T"
cleanup() {
    httpd_stop
    [ -n "${BENCH_KEEP_TMP:-}" ] && { echo "kept $T" >&2; return; }
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { printf '[bench] %s\n' "$*" >&2; }
note() { NOTES+=("$*"); log "note: $*"; }
has() { case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }

# kv FILE PREFIX: "key value" lines into R[PREFIX.key]
kv() {
    local k v
    while read -r k v; do
        [ -n "$k" ] && R["$2.$k"]=$v
    done <"$1"
}
get() { printf '%s' "${R[$1]:-}"; }
# calc EXPR: awk arithmetic, empty when an operand is missing
calc() { awk "BEGIN { x = $1; printf \"%.${2:-2}f\", x }" 2>/dev/null; }
ratio() { # ratio A B -> A/B with 2 decimals, "" when either is empty/zero
    [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) exit 1; printf "%.2f", a / b }'
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit; if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# ------------------------------------------------------------ tools ---
need_tools() {
    local t missing=""
    for t in "$@"; do
        command -v "$t" >/dev/null 2>&1 || [ -x "$t" ] || missing="$missing $t"
    done
    [ -z "$missing" ] && return 0
    note "skipped a section: missing$missing"
    return 1
}

# ------------------------------------------------------------ credentials ---
mkdir -p "$T/etc" "$T/data" "$T/run" "$T/logs" "$T/cgi-bin" "$T/wrk"
chmod 755 "$T/etc" "$T/cgi-bin" "$T/logs"
chmod 1777 "$T/data" "$T/run"
SECRETS="$T/etc/signing.secret"
# one secret, the steady state (during a rotation every request pays one
# HMAC per secret); secret files have no comment syntax
BENCH_SECRET="bench-secret-$(date +%s%N | sha256sum | cut -c1-24)"
printf '%s\n' "$BENCH_SECRET" >"$SECRETS"
HTPASSWD="$T/etc/htpasswd"
htpasswd -cbB -C 10 "$HTPASSWD" bank "$PASSWORD" >/dev/null 2>&1 || { echo "htpasswd failed" >&2; exit 1; }
htpasswd -bs "$HTPASSWD" shabank "$PASSWORD" >/dev/null 2>&1
chmod 600 "$SECRETS" "$HTPASSWD"
if [ "$(id -u)" -eq 0 ] && id www-data >/dev/null 2>&1; then
    # wirehook.cgi runs as the httpd user and reads them itself
    chown www-data "$SECRETS" "$HTPASSWD"
    RUN_AS="User www-data
Group www-data"
else
    RUN_AS=""
fi

write_wh_conf() { # FILE [extra lines]
    local f=$1; shift
    { echo "SigningSecretFile $SECRETS"; echo "BasicAuthFile $HTPASSWD"; printf '%s\n' "$@"; } >"$f"
    chmod 644 "$f"
}

# ------------------------------------------------------------ httpd ---
free_port() {
    local p
    for _ in $(seq 1 200); do
        p=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))   # below the ephemeral range
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
    done
    return 1
}

# httpd_conf NAME MODULES BODY -> $T/NAME.conf; one child process, 32
# threads, keep-alive without a request cap, no access log (for all runs).
httpd_conf() {
    local name=$1 mods=$2 body=$3 m
    HTTPD_CONF="$T/$name.conf"
    {
        echo "ServerRoot \"$T\""
        for m in mpm_event authz_core unixd socache_shmcb $mods; do
            [ -f "$MODDIR/mod_$m.so" ] && echo "LoadModule ${m}_module $MODDIR/mod_$m.so"
        done
        echo "LoadModule benchok_module $BENCH_DIR/mod_benchok.so"
        [ -f "$BUILD/mod_wirehook.so" ] && echo "LoadModule wirehook_module $BUILD/mod_wirehook.so"
        cat <<EOF
$RUN_AS
ServerName 127.0.0.1
Listen 127.0.0.1:$PORT
PidFile $T/run/httpd.pid
DefaultRuntimeDir $T/run
ErrorLog $T/logs/error.log
LogLevel warn
DocumentRoot "$T"
Timeout 30
KeepAlive On
MaxKeepAliveRequests 0
KeepAliveTimeout 5
ServerLimit 1
StartServers 1
ThreadLimit 32
ThreadsPerChild 32
MaxRequestWorkers 32
MinSpareThreads 1
MaxSpareThreads 64
MaxConnectionsPerChild 0
<Location /ping>
    SetHandler benchok
</Location>
$body
EOF
    } >"$HTTPD_CONF"
}

httpd_pid() { cat "$T/run/httpd.pid" 2>/dev/null; }
httpd_start() {
    local out
    out=$("$HTTPD" -f "$HTTPD_CONF" -k start 2>&1) || { log "httpd failed: $out"; tail -n 20 "$T/logs/error.log" >&2; return 1; }
    for _ in $(seq 1 100); do
        [ -n "$(httpd_pid)" ] && (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return 0
        sleep 0.1
    done
    log "httpd did not come up"; tail -n 20 "$T/logs/error.log" >&2
    return 1
}
httpd_stop() {
    local pid
    pid=$(httpd_pid)
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
    "$HTTPD" -f "$HTTPD_CONF" -k stop >/dev/null 2>&1
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    rm -f "$T/run/httpd.pid"
    return 0
}
# the single worker child of the running httpd
httpd_child() { ps -o pid= --ppid "$(httpd_pid)" 2>/dev/null | awk 'NR == 1 { print $1 }'; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
# CPU time (user + system, clock ticks) of the httpd child
# (only with exactly one child: with mod_cgid there is a second)
child_ticks() {
    [ "$(ps -o pid= --ppid "$(httpd_pid)" 2>/dev/null | wc -l)" -eq 1 ] || return 0
    awk '{ print $14 + $15 }' "/proc/$(httpd_child)/stat" 2>/dev/null
}

# ------------------------------------------------------------ load ---
# gen DIR PATH COUNT USER: pre-sign COUNT requests for PATH
gen() {
    rm -rf "$1"; mkdir -p "$1"
    "$BENCH_DIR/bench_gen" --sample "$SAMPLE" --secrets "$SECRETS" --user "$4" \
        --password "$PASSWORD" --host "127.0.0.1:$PORT" --path "$2" --count "$3" --out "$1" >/dev/null
}
# wrkrun OUT DIR PATH SECONDS MODE [CONNECTIONS]: wrk_* lines into OUT
# Also records the httpd child's CPU per request (cpu_us), for one child.
wrkrun() {
    local c0 c1
    c0=$(child_ticks)
    local perf_pid=""
    # BENCH_PERF=FILE profiles the httpd child during the measured module
    # runs (perf record with call graphs), for finding where time goes
    if [ -n "${BENCH_PERF:-}" ] && [ "$3" = "${BENCH_PERF_PATH:-/v1/sink}" ] && [ -n "$(httpd_child)" ]; then
        perf record -q --call-graph dwarf,16384 -F 499 -o "$BENCH_PERF" -p "$(httpd_child)" -- sleep "$4" >/dev/null 2>&1 &
        perf_pid=$!
    fi
    wrk -t1 -c"${6:-$WRK_CONN}" -d"${4}s" --timeout 10s -s "$here/signed.lua" \
        "http://127.0.0.1:$PORT$3" -- "$2" "$5" 1 >"$1.raw" 2>&1
    c1=$(child_ticks)
    [ -n "$perf_pid" ] && wait "$perf_pid"
    grep '^wrk_' "$1.raw" | sed 's/^wrk_//' >"$1"
    [ -s "$1" ] || { log "wrk produced no result:"; cat "$1.raw" >&2; return 1; }
    if [ -n "$c0" ] && [ -n "$c1" ]; then
        awk -v a="$c0" -v b="$c1" -v hz="$(getconf CLK_TCK)" '/^requests / { if ($2 > 0) printf "cpu_us %.1f\n", (b - a) * 1e6 / hz / $2 }' "$1" >>"$1"
    fi
}
# wrk_until_done DIR PATH: sends every request of DIR once (stop mode),
# then stops wrk (SIGINT to the wrk this script started). Bounded: 600 s.
wrk_until_done() {
    local out=$1.out pid
    rm -f "$1/done"
    wrk -t1 -c"$WRK_CONN" -d600s --timeout 10s -s "$here/signed.lua" \
        "http://127.0.0.1:$PORT$2" -- "$1" stop 1 >"$out.raw" 2>&1 &
    pid=$!
    # signed.lua creates DIR/done when the list is used up; wrk itself
    # would sleep out its -d, so it is interrupted (it reports on SIGINT)
    for _ in $(seq 1 6000); do
        kill -0 "$pid" 2>/dev/null || break
        [ -f "$1/done" ] && break
        sleep 0.1
    done
    sleep 0.5
    kill -INT "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    grep '^wrk_' "$out.raw" | sed 's/^wrk_//' >"$out"
}

# ------------------------------------------------------------ 1. core ---
section_core() {
    log "core: verify + validate vs HMAC + json_tokener_parse floor"
    "$BENCH_DIR/bench_core" --sample "$SAMPLE" --htpasswd "$HTPASSWD" --user bank \
        --password "$PASSWORD" --seconds 1 --rounds 5 --uncached 10 >"$T/core.kv" || return 1
    kv "$T/core.kv" core
    if command -v valgrind >/dev/null 2>&1; then
        local what n=2000
        for what in floor cached; do
            valgrind --tool=callgrind --callgrind-out-file="$T/cg.$what" \
                --toggle-collect="run_${what/cached/core}" "$BENCH_DIR/bench_core" \
                --sample "$SAMPLE" --htpasswd "$HTPASSWD" --user bank --password "$PASSWORD" \
                --only "$what" --iterations "$n" >/dev/null 2>"$T/cg.$what.log" || continue
            R["core.ir_$what"]=$(awk -v n="$n" '/^(summary|totals):/ { printf "%.0f", $2 / n; exit }' "$T/cg.$what")
        done
    else
        note "valgrind missing: no instruction counts"
    fi
}

# ------------------------------------------------------------ 2. inbox ---
section_inbox() {
    log "inbox: durable appends, paging over $INBOX_RECORDS records"
    local db="$T/data/w1.db"
    "$BENCH_DIR/bench_inbox" append --db "$db" --sample "$SAMPLE" --count 2000 --writers 1 >"$T/i1.kv" || return 1
    kv "$T/i1.kv" inbox1
    R[inbox.disk_bytes]=$(( $(stat -c %s "$db") + $(stat -c %s "$db-wal" 2>/dev/null || echo 0) ))
    R[inbox.disk_events]=$(get inbox1.appends)
    "$BENCH_DIR/bench_inbox" append --db "$T/data/w8.db" --sample "$SAMPLE" --count 4000 --writers 8 >"$T/i8.kv" || return 1
    kv "$T/i8.kv" inbox8
    rm -f "$T/data/w1.db"* "$T/data/w8.db"*

    need_tools sqlite3 || return 0
    local big="$T/data/big.db" total=$((INBOX_RECORDS + 100)) t0
    "$BENCH_DIR/bench_inbox" create --db "$big" || return 1
    t0=$(date +%s.%N)
    # One transaction in the inbox's own schema; ids are unique and the
    # sequence gap-free, as wh_inbox_store() would have left them.
    sqlite3 "$big" >/dev/null <<EOF || { log "bulk load failed"; return 1; }
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $total),
t(b) AS (SELECT CAST(readfile('$SAMPLE') AS TEXT))
INSERT INTO wh_events (seq, notification_id, event_type, event_time, payment_id, status, received_at, body)
SELECT i, printf('%08x-0000-4000-8000-%012x', i, i), 'wire.status', '2026-11-22T14:05:09Z',
       printf('WP-2026-%06d', i % 5000), 'Complete', 1700000000000000 + i,
       replace(b, '8cefee42-cb39-4479-b7fd-b8a358aeb002', printf('%08x-0000-4000-8000-%012x', i, i))
FROM c, t;
UPDATE wh_counter SET last_value = $total WHERE id = 1;
COMMIT;
EOF
    R[inbox.bulk_seconds]=$(calc "$(date +%s.%N) - $t0" 1)
    R[inbox.big_bytes]=$(stat -c %s "$big")
    "$BENCH_DIR/bench_inbox" page --db "$big" --offset 0 --repeat 101 >"$T/p0.kv" || return 1
    "$BENCH_DIR/bench_inbox" page --db "$big" --offset "$INBOX_RECORDS" --repeat 101 >"$T/p1.kv" || return 1
    kv "$T/p0.kv" page0
    kv "$T/p1.kv" page1
    rm -f "$big"*
}

# ------------------------------------------------------------ 3. module ---
# baseline: /sink (benchok alone); subject: /v1/sink (mod_wirehook + benchok)
section_module() {
    [ -f "$BUILD/mod_wirehook.so" ] || { note "module: $BUILD/mod_wirehook.so not built"; return 0; }
    log "module: $ROUNDS x ${SECONDS_RUN}s at concurrency $WRK_CONN, with and without mod_wirehook"
    PORT=$(free_port)
    write_wh_conf "$T/etc/mod.conf"
    httpd_conf module "" "<Location /sink>
    SetHandler benchok
</Location>
<Location /v1/sink>
    SetHandler benchok
    WirehookConfig $T/etc/mod.conf
</Location>
<Location /floor/sink>
    SetHandler benchfloor
</Location>
BenchFloorSecret $BENCH_SECRET"
    httpd_start || return 1
    local r base_rps="" mod_rps="" base_p99="" mod_p99="" base_cpu="" mod_cpu="" cnt
    local floor_rps="" floor_p99="" floor_cpu=""
    # warm-up and sanity: every signed request must be accepted
    gen "$T/wrk/warm" /v1/sink 3000 bank
    wrkrun "$T/warm.kv" "$T/wrk/warm" /v1/sink 2 stop || return 1
    kv "$T/warm.kv" warm
    if [ "$(get warm.non2xx)" != 0 ] || [ "$(get warm.requests)" = 0 ]; then
        log "module refused signed requests: $(cat "$T/warm.kv" | tr '\n' ' ')"
        tail -n 5 "$T/logs/error.log" >&2
        httpd_stop; return 1
    fi
    gen "$T/wrk/base" /sink 20000 bank
    for r in $(seq 1 "$ROUNDS"); do
        wrkrun "$T/base$r.kv" "$T/wrk/base" /sink "$SECONDS_RUN" wrap || return 1
        kv "$T/base$r.kv" "base$r"
        # enough fresh requests for this round at the baseline's pace
        cnt=$(awk -v r="$(get "base$r.rps")" -v s="$SECONDS_RUN" 'BEGIN { printf "%d", r * s * 1.5 + 5000 }')
        gen "$T/wrk/floor$r" /floor/sink "$cnt" bank
        wrkrun "$T/floor$r.kv" "$T/wrk/floor$r" /floor/sink "$SECONDS_RUN" stop || return 1
        kv "$T/floor$r.kv" "floor$r"
        [ "$(get "floor$r.non2xx")" = 0 ] || note "module floor round $r: $(get "floor$r.non2xx") responses were not 2xx (signature refused?)"
        gen "$T/wrk/mod$r" /v1/sink "$cnt" bank
        wrkrun "$T/mod$r.kv" "$T/wrk/mod$r" /v1/sink "$SECONDS_RUN" stop || return 1
        kv "$T/mod$r.kv" "mod$r"
        [ "$(get "mod$r.exhausted")" = 0 ] || note "module round $r ran out of pre-signed requests: its rate is understated"
        [ "$(get "mod$r.non2xx")" = 0 ] || note "module round $r: $(get "mod$r.non2xx") responses were not 2xx"
        base_rps="$base_rps $(get "base$r.rps")"; mod_rps="$mod_rps $(get "mod$r.rps")"
        base_p99="$base_p99 $(get "base$r.p99_ms")"; mod_p99="$mod_p99 $(get "mod$r.p99_ms")"
        base_cpu="$base_cpu $(get "base$r.cpu_us")"; mod_cpu="$mod_cpu $(get "mod$r.cpu_us")"
        floor_rps="$floor_rps $(get "floor$r.rps")"; floor_p99="$floor_p99 $(get "floor$r.p99_ms")"
        floor_cpu="$floor_cpu $(get "floor$r.cpu_us")"
    done
    R[module.floor_rps]=$(echo "$floor_rps" | median)
    R[module.floor_p99]=$(echo "$floor_p99" | median)
    R[module.floor_cpu]=$(echo "$floor_cpu" | median)
    R[module.base_cpu]=$(echo "$base_cpu" | median)
    R[module.mod_cpu]=$(echo "$mod_cpu" | median)
    R[module.base_rps]=$(echo "$base_rps" | median)
    R[module.mod_rps]=$(echo "$mod_rps" | median)
    R[module.base_p99]=$(echo "$base_p99" | median)
    R[module.mod_p99]=$(echo "$mod_p99" | median)
    httpd_stop
}

# ------------------------------------------------------------ 4. cgi ---
section_cgi() {
    [ -x "$BUILD/wirehook.cgi" ] || { note "cgi: $BUILD/wirehook.cgi not built"; return 0; }
    [ -f "$MODDIR/mod_cgid.so" ] || { note "cgi: mod_cgid not installed"; return 0; }
    log "cgi: wirehook.cgi storing to the inbox vs a minimal C CGI, ${SECONDS_RUN}s each"
    PORT=$(free_port)
    cp "$BUILD/wirehook.cgi" "$BENCH_DIR/min.cgi" "$BENCH_DIR/floor.cgi" "$T/cgi-bin/"
    chmod 755 "$T/cgi-bin/"*
    local conf="$T/etc/cgi.conf" db="$T/data/cgi-inbox.db"
    write_wh_conf "$conf" "InboxParams $db"
    [ -n "$RUN_AS" ] && chown www-data "$conf"
    httpd_conf cgi "cgid alias env" "ScriptSock $T/run/cgid.sock
ScriptAlias /cgi/min \"$T/cgi-bin/min.cgi\"
ScriptAlias /cgi/wirehook \"$T/cgi-bin/wirehook.cgi\"
ScriptAlias /cgi/floor \"$T/cgi-bin/floor.cgi\"
<Directory \"$T/cgi-bin\">
    Options +ExecCGI
</Directory>
<Location /cgi/wirehook>
    CGIPassAuth On
    SetEnv WIREHOOK_CONFIG $conf
</Location>
<Location /cgi/floor>
    SetEnv BENCH_FLOOR_SECRET $BENCH_SECRET
    SetEnv BENCH_FLOOR_DB $T/data/floor.db
</Location>"
    httpd_start || return 1
    gen "$T/wrk/min" /cgi/min 5000 bank
    wrkrun "$T/cgimin.kv" "$T/wrk/min" /cgi/min "$SECONDS_RUN" wrap || return 1
    kv "$T/cgimin.kv" cgimin
    local user cnt stored
    # the bound: the least a verifying, storing CGI does (bench/floor_cgi.c)
    cnt=$(awk -v r="$(get cgimin.rps)" -v s="$SECONDS_RUN" 'BEGIN { printf "%d", r * s * 1.5 + 1000 }')
    gen "$T/wrk/cgi-floor" /cgi/floor "$cnt" bank
    wrkrun "$T/cgi-floor.kv" "$T/wrk/cgi-floor" /cgi/floor "$SECONDS_RUN" stop || return 1
    kv "$T/cgi-floor.kv" cgi_floor
    [ "$(get cgi_floor.non2xx)" = 0 ] || note "cgi floor: $(get cgi_floor.non2xx) responses were not 2xx"
    for user in bank shabank; do
        cnt=$(awk -v r="$(get cgimin.rps)" -v s="$SECONDS_RUN" 'BEGIN { printf "%d", r * s * 1.5 + 1000 }')
        gen "$T/wrk/cgi-$user" /cgi/wirehook "$cnt" "$user"
        wrkrun "$T/cgi-$user.kv" "$T/wrk/cgi-$user" /cgi/wirehook "$SECONDS_RUN" stop || return 1
        kv "$T/cgi-$user.kv" "cgi_$user"
        [ "$(get "cgi_$user.non2xx")" = 0 ] || { note "cgi ($user): $(get "cgi_$user.non2xx") responses were not 2xx"; tail -n 3 "$T/logs/error.log" >&2; }
        [ "$(get "cgi_$user.exhausted")" = 0 ] || note "cgi ($user) ran out of pre-signed requests"
    done
    httpd_stop
    if command -v sqlite3 >/dev/null 2>&1 && [ -f "$db" ]; then
        stored=$(sqlite3 "$db" 'SELECT count(*) FROM wh_events' 2>/dev/null)
        R[cgi.stored]=$stored
    fi
    # process start: one exec answering 405 (config loaded, no body, no
    # bcrypt) vs the minimal CGI; perf stat when present, else a timed loop
    R[cgi.start_min_ms]=$(exec_ms "$T/cgi-bin/min.cgi")
    R[cgi.start_wh_ms]=$(exec_ms "$T/cgi-bin/wirehook.cgi")
}
exec_ms() {
    local n=200 t0
    export REQUEST_METHOD=OPTIONS WIREHOOK_CONFIG="$T/etc/cgi.conf" CONTENT_LENGTH=0 REQUEST_URI=/cgi/wirehook HTTP_HOST=127.0.0.1
    if command -v perf >/dev/null 2>&1 && perf stat -r 3 true >/dev/null 2>&1; then
        perf stat -r "$n" "$1" 2>&1 >/dev/null </dev/null | awk '/seconds time elapsed/ { printf "%.3f", $1 * 1000 }'
    else
        t0=$(date +%s%N)
        for _ in $(seq 1 "$n"); do "$1" >/dev/null 2>&1 </dev/null; done
        awk -v a="$t0" -v b="$(date +%s%N)" -v n="$n" 'BEGIN { printf "%.3f", (b - a) / n / 1e6 }'
    fi
    unset REQUEST_METHOD WIREHOOK_CONFIG CONTENT_LENGTH REQUEST_URI HTTP_HOST
}

# ------------------------------------------------------------ 5. memory ---
section_memory() {
    [ -f "$BUILD/mod_wirehook.so" ] || { note "memory: module not built"; return 0; }
    log "memory: httpd child RSS over $MEM_REQUESTS verified requests"
    PORT=$(free_port)
    write_wh_conf "$T/etc/mem.conf"
    httpd_conf memory "" "<Location /v1/sink>
    SetHandler benchok
    WirehookConfig $T/etc/mem.conf
</Location>"
    httpd_start || return 1
    local child warm=5000
    gen "$T/wrk/memwarm" /v1/sink "$warm" bank
    wrk_until_done "$T/wrk/memwarm" /v1/sink
    kv "$T/wrk/memwarm.out" memwarm
    child=$(httpd_child)
    [ -n "$child" ] || { log "no httpd child"; httpd_stop; return 1; }
    sleep 1
    R[mem.before_kib]=$(rss_kib "$child")
    gen "$T/wrk/mem" /v1/sink "$MEM_REQUESTS" bank
    wrk_until_done "$T/wrk/mem" /v1/sink
    kv "$T/wrk/mem.out" memrun
    sleep 1
    R[mem.after_kib]=$(rss_kib "$child")
    [ "$(httpd_child)" = "$child" ] || note "memory: the httpd child was replaced during the run"
    R[mem.requests]=$(get memrun.signed_sent)
    httpd_stop
}

# ------------------------------------------------------------ machine ---
machine_line() {
    local cpu mem
    cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
    mem=$(awk '/^MemTotal:/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
    printf '%s, %s cores, %s RAM, %s; %s; %s; json-c %s; SQLite %s; %s' \
        "${cpu:-unknown CPU}" "$(nproc)" "$mem" "$(uname -sr)" \
        "$("$HTTPD" -v 2>/dev/null | awk -F': ' '/version/ { print $2 }')" \
        "$(openssl version 2>/dev/null | awk '{ print $1, $2 }')" \
        "$(pkg-config --modversion json-c 2>/dev/null)" \
        "$(sqlite3 --version 2>/dev/null | awk '{ print $1 }')" \
        "$(wrk --version 2>&1 | awk 'NR == 1 { print $1, $2 }')"
}

# ------------------------------------------------------------ run ---
need_tools wrk htpasswd "$HTTPD" || exit 1
STARTED=$(date +%s)
for s in $SECTIONS; do
    case $s in
        core | inbox | module | cgi | memory) "section_$s" || note "section $s failed (see above)" ;;
        *) note "unknown section $s" ;;
    esac
done
httpd_stop

# ------------------------------------------------------------ report ---
# row MEASURE RESULT BASELINE RATIO GOAL VERDICT
ROWS=()
row() { ROWS+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); }
verdict() { # verdict VALUE OP LIMIT -> met / NOT met / n/a
    [ -n "$1" ] || { echo "n/a"; return; }
    awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN { ok = (op == ">=") ? v >= l : v <= l; print ok ? "met" : "**not met**" }'
}
fmt() { [ -n "$1" ] && printf "%s %s" "$1" "$2"; }

if has core && [ -n "$(get core.floor_ops_per_sec)" ]; then
    c=$(get core.core_cached_ops_per_sec); f=$(get core.floor_ops_per_sec)
    rc=$(ratio "$c" "$f")
    row "Core: verify+validate, Basic auth cached (1 thread)" "$(fmt "$c" req/s)" \
        "$(fmt "$f" req/s) (HMAC-SHA256 + json_tokener_parse)" "$rc" "≥ 0.60" "$(verdict "$rc" ">=" 0.6)"
    if [ -n "$(get core.ir_floor)" ] && [ -n "$(get core.ir_cached)" ]; then
        ri=$(ratio "$(get core.ir_floor)" "$(get core.ir_cached)")
        row "Core: instructions per request (callgrind)" "$(get core.ir_cached) Ir" \
            "$(get core.ir_floor) Ir" "$ri (floor/core)" "—" "info"
    fi
    u=$(get core.core_uncached_ops_per_sec)
    ru=$(ratio "$u" "$f" | awk '{ printf "%.4f", $1 }')
    [ -n "$u" ] && ru=$(awk -v a="$u" -v b="$f" 'BEGIN { printf "%.5f", a / b }')
    # two separate timings: the share can come out a hair over 100 %
    share=$(awk -v b="$(get core.bcrypt_ms)" -v u="$(get core.uncached_ms)" 'BEGIN { if (u > 0) { x = 100 * b / u; if (x > 100) x = 100; printf "%.0f", x } }')
    slow=$(awk -v c="$c" -v u="$u" 'BEGIN { if (u > 0) printf "%.0f", c / u }')
    row "Core: Basic auth uncached (bcrypt cost 10 every request)" "$(fmt "$u" req/s) ($(get core.uncached_ms) ms/req)" \
        "$(fmt "$f" req/s)" "$ru" "—" "bcrypt alone $(get core.bcrypt_ms) ms ≈ ${share}% of the request; ${slow}× slower than cached"
fi
if has inbox && [ -n "$(get inbox1.appends_per_sec)" ]; then
    a1=$(get inbox1.appends_per_sec); a8=$(get inbox8.appends_per_sec)
    row "Inbox: durable appends (fsync), 1 writer" "$(fmt "$a1" /s)" "—" "—" "—" "info"
    row "Inbox: durable appends (fsync), 8 writer processes" "$(fmt "$a8" /s)" "$(fmt "$a1" "/s (1 writer)")" "$(ratio "$a8" "$a1")" "—" "info"
    if [ -n "$(get page1.page_ms)" ]; then
        rp=$(ratio "$(get page1.page_ms)" "$(get page0.page_ms)")
        row "Inbox: page of 25 at offset $INBOX_RECORDS ($((INBOX_RECORDS + 100)) records)" \
            "$(get page1.page_ms) ms" "$(get page0.page_ms) ms at offset 0" "$rp" "≤ 1.5" "$(verdict "$rp" "<=" 1.5)"
    fi
    ev=$(get inbox1.event_bytes)
    per=$(awk -v b="$(get inbox.disk_bytes)" -v n="$(get inbox.disk_events)" 'BEGIN { if (n > 0) printf "%.0f", b / n }')
    row "Inbox: disk bytes per stored event ($(get inbox.disk_events) events)" "$(fmt "$per" B)" "$(fmt "$ev" "B (the event)")" "$(ratio "$per" "$ev")" "—" "info"
    if [ -n "$(get inbox.big_bytes)" ]; then
        perb=$(awk -v b="$(get inbox.big_bytes)" -v n="$((INBOX_RECORDS + 100))" 'BEGIN { printf "%.0f", b / n }')
        row "Inbox: disk bytes per event at $((INBOX_RECORDS + 100)) records" "$(fmt "$perb" B)" "$(fmt "$ev" B)" "$(ratio "$perb" "$ev")" "—" "info"
    fi
fi
# beyond VERDICT: when even the floor misses the goal, say so in the row
bounded() { # bounded VERDICT FLOOR_RATIO GOAL
    case "$1" in
        *"not met"*) [ -n "$2" ] && awk -v f="$2" -v g="$3" 'BEGIN { exit !(f < g) }' \
            && { printf '%s — unattainable here: the floor itself reaches %s' "$1" "$2"; return; } ;;
    esac
    printf '%s' "$1"
}
if has module && [ -n "$(get module.mod_rps)" ]; then
    rm_=$(ratio "$(get module.mod_rps)" "$(get module.base_rps)")
    rf_=$(ratio "$(get module.floor_rps)" "$(get module.base_rps)")
    row "Module: req/s at concurrency $WRK_CONN (median of $ROUNDS × ${SECONDS_RUN}s)" "$(fmt "$(get module.mod_rps)" req/s)" \
        "$(fmt "$(get module.base_rps)" req/s) (same handler, no module)" "$rm_" "≥ 0.85" \
        "$(bounded "$(verdict "$rm_" ">=" 0.85)" "$rf_" 0.85)"
    row "Module: p99 latency" "$(get module.mod_p99) ms" "$(get module.base_p99) ms" \
        "$(ratio "$(get module.mod_p99)" "$(get module.base_p99)")" "—" "info"
    [ -n "$(get module.mod_cpu)" ] && row "Module: httpd CPU per request" "$(get module.mod_cpu) µs" \
        "$(get module.base_cpu) µs" "$(ratio "$(get module.mod_cpu)" "$(get module.base_cpu)")" "—" "info"
    if [ -n "$(get module.floor_rps)" ]; then
        row "Module floor: handler doing only HMAC-SHA256 + json_tokener_parse (no module)" \
            "$(fmt "$(get module.floor_rps)" req/s), p99 $(get module.floor_p99) ms" \
            "$(fmt "$(get module.base_rps)" req/s) (handler alone)" "$rf_" "—" \
            "the most any verifier on OpenSSL + json-c reaches on this machine"
        row "Module vs the floor" "$(fmt "$(get module.mod_rps)" req/s)" \
            "$(fmt "$(get module.floor_rps)" req/s) (floor)" \
            "$(ratio "$(get module.mod_rps)" "$(get module.floor_rps)")" "—" "info"
        [ -n "$(get module.floor_cpu)" ] && row "Module floor: httpd CPU per request" \
            "$(get module.floor_cpu) µs" "$(get module.base_cpu) µs" \
            "$(ratio "$(get module.floor_cpu)" "$(get module.base_cpu)")" "—" "info"
    fi
fi
if has cgi && [ -n "$(get cgimin.rps)" ]; then
    rcf_=$(ratio "$(get cgi_floor.rps)" "$(get cgimin.rps)")
    for user in bank shabank; do
        [ -n "$(get "cgi_$user.rps")" ] || continue
        label="bcrypt cost 10 (production hash)"; [ "$user" = shabank ] && label="{SHA} hash (auth cost removed)"
        rr=$(ratio "$(get "cgi_$user.rps")" "$(get cgimin.rps)")
        row "CGI: wirehook.cgi storing, $label" "$(fmt "$(get "cgi_$user.rps")" req/s), p99 $(get "cgi_$user.p99_ms") ms" \
            "$(fmt "$(get cgimin.rps)" req/s) (min.cgi), p99 $(get cgimin.p99_ms) ms" "$rr" "≥ 0.70" \
            "$(bounded "$(verdict "$rr" ">=" 0.7)" "$rcf_" 0.7)"
    done
    if [ -n "$(get cgi_floor.rps)" ]; then
        row "CGI floor: floor.cgi doing only HMAC-SHA256 + json_tokener_parse + one durable SQLite insert" \
            "$(fmt "$(get cgi_floor.rps)" req/s), p99 $(get cgi_floor.p99_ms) ms" \
            "$(fmt "$(get cgimin.rps)" req/s) (min.cgi)" "$rcf_" "—" \
            "the most a verifying, storing CGI on OpenSSL + json-c + SQLite reaches on this machine"
        [ -n "$(get cgi_bank.rps)" ] && row "CGI: wirehook.cgi (bcrypt) vs the floor" "$(fmt "$(get cgi_bank.rps)" req/s)" \
            "$(fmt "$(get cgi_floor.rps)" req/s) (floor.cgi)" "$(ratio "$(get cgi_bank.rps)" "$(get cgi_floor.rps)")" "—" "info"
    fi
    row "CGI: process start (exec, 405 answer)" "$(get cgi.start_wh_ms) ms" "$(get cgi.start_min_ms) ms (min.cgi)" \
        "$(ratio "$(get cgi.start_wh_ms)" "$(get cgi.start_min_ms)")" "—" "info"
    if [ -n "$(get cgi.stored)" ]; then
        sent=$(( $(get cgi_bank.requests) + $(get cgi_shabank.requests) ))
        row "CGI: events in the inbox after the runs" "$(get cgi.stored)" "$sent 200s counted by wrk" "—" "≥ the 200s" \
            "$(awk -v a="$(get cgi.stored)" -v b="$sent" 'BEGIN { print (a >= b) ? "met (requests in flight when wrk stops are stored too)" : "**not met**" }')"
    fi
fi
if has memory && [ -n "$(get mem.after_kib)" ]; then
    g=$(( $(get mem.after_kib) - $(get mem.before_kib) ))
    row "Memory: httpd child RSS growth over $(get mem.requests) verified requests" "$g KiB" \
        "$(get mem.before_kib) KiB before → $(get mem.after_kib) KiB after" "—" "< 1024 KiB" "$(verdict "$g" "<=" 1023)"
fi
if has core && [ -n "$(get core.request_heap_bytes)" ]; then
    row "Memory: heap held by one verified request's pool (peak)" "$(get core.request_heap_bytes) B" "—" "—" "—" "info"
fi

MACHINE=$(machine_line)
note "bench run took $(( $(date +%s) - STARTED )) s"
TABLE=$(printf '| Measure | Result | Baseline (same run) | Ratio | Goal | |\n|---|---|---|---|---|---|\n'; printf '%s\n' "${ROWS[@]}")
printf '\n%s\n\nmachine: %s\n' "$TABLE" "$MACHINE"
for n in "${NOTES[@]}"; do printf 'note: %s\n' "$n"; done

if [ "$DOC" != "-" ]; then
    DOC=$(abs "$DOC")
    mkdir -p "$(dirname "$DOC")"
    {
        cat <<EOF
# Benchmarks

Generated by \`make bench\` (bench/run.sh) on $(date -u +%Y-%m-%d) — do not edit by hand.
Every figure is a ratio against a baseline measured in the same run on the
same machine; absolute numbers are beside it for context only.

**Machine:** $MACHINE

$TABLE

EOF
        if [ ${#NOTES[@]} -gt 0 ]; then
            echo "**Notes from this run:**"; echo
            for n in "${NOTES[@]}"; do echo "- $n"; done
            echo
        fi
        cat "$here/method.md"
    } >"$DOC"
    log "wrote $DOC"
fi
exit 0
