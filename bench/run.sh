#!/usr/bin/env bash
# `make bench`: every figure is a ratio against a baseline measured in the
# same run on the same machine, absolute numbers beside it. Prints the
# table and rewrites docs/benchmarks.md.
#
# Sections (BENCH_SECTIONS, default all, in this order): core inbox module
# inbox-http pg pg-pairs mysql mysql-pairs php node cgi fcgid memory
# forward console.
#   inbox-http  SetHandler wirehook storing to SQLite vs /v1/sink (module in
#               front of mod_benchok), same httpd, concurrency 16
#   pg          the same inbox on a PostgreSQL started here on loopback:
#               concurrency 16 vs concurrency 1
#   pg-pairs    two httpd on one PostgreSQL, every copy sent to both at once,
#               vs one server storing each notification once: events stored/s
#   mysql, mysql-pairs  the same two on a MariaDB started here (InboxDriver
#               mysql); mysql's concurrency 16 also against pg's
#   php         a PHP receiver (bench/receivers/receiver.php) under mod_php,
#               prefork, its own httpd; vs the module (/v1/sink)
#   fcgid       wirehook.cgi under mod_fcgid with suEXEC (as root) vs the PHP
#               receiver storing into SQLite under mod_php
#   node        a Node.js receiver (bench/receivers/receiver.js) behind the
#               module's httpd through mod_proxy_http, and alone; vs the module
#   forward     `wirehook forward` forwarding an inbox to mod_benchok vs the
#               inbox's intake rate (skipped until the subcommand exists)
#   console     every console page and find on the module, over an inbox
#               of BENCH_CONSOLE_EVENTS events (forwarded, dead, retrying,
#               not yet queued), the median of 11 requests each, vs the
#               console's stylesheet (the same handler, no inbox)
# Knobs: BENCH_SECONDS (10) per HTTP run, BENCH_ROUNDS (3) interleaved
# baseline/subject rounds, BENCH_CGI_ROUNDS (5) for the CGI pair,
# BENCH_MEM_REQUESTS (100000), BENCH_INBOX_RECORDS
# (1000000), BENCH_FORWARD_EVENTS (20000), BENCH_DOC (docs/benchmarks.md;
# "-" writes none), BENCH_PERF=FILE (perf profile of the httpd child during
# the measured runs of BENCH_PERF_PATH: /v1/sink by default, /floor/sink,
# /sink, /inbox or /dbinbox), BENCH_KEEP_TMP=1 keeps the temp dir,
# BENCH_LOGLEVEL sets httpd's LogLevel (warn), BENCH_INBOX_CONF adds a line
# to the inbox-http section's WirehookConfig ("InboxBatchWait 500").
#
# Load: wrk on 127.0.0.1 with bench/signed.lua; every request is signed by
# bench_gen beforehand (fresh notificationId, eventDateTime and timestamp,
# each sent at most once), so no receiver's replay protection ever
# short-circuits a measurement. Every receiver is probed before it is timed
# (a bad signature must get 401, a good one 200, its copy a duplicate).
# wrk and the servers share the machine's cores.
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
# The CGI pair spreads most from round to round (a process per request,
# each start at the scheduler's mercy): more rounds for a steadier median.
CGI_ROUNDS=${BENCH_CGI_ROUNDS:-5}
MEM_REQUESTS=${BENCH_MEM_REQUESTS:-100000}
INBOX_RECORDS=${BENCH_INBOX_RECORDS:-1000000}
FORWARD_EVENTS=${BENCH_FORWARD_EVENTS:-20000}
CONSOLE_EVENTS=${BENCH_CONSOLE_EVENTS:-100000}
SECTIONS=${BENCH_SECTIONS:-core inbox module inbox-http pg pg-pairs mysql mysql-pairs php node cgi fcgid memory forward console}
DOC=${BENCH_DOC:-docs/benchmarks.md}
HTTPD=${WH_HTTPD:-/usr/sbin/apache2}
MODDIR=${WH_MODDIR:-/usr/lib/apache2/modules}
SAMPLE="$SHARED/samples/wire-status-complete.json"
WRK_CONN=16
PASSWORD="bench-pass-$$"

declare -A R          # results: section.key -> value
declare -a NOTES=()   # free-text lines for the document
declare -A HPORT=()   # httpd instance name -> its port
declare -a HTTPDS=()  # instances started, for the cleanup
HTTPD_CONF=""
HTTPD_ENV=""          # "VAR=value" for the next httpd_start (mod_php's ini)
NODE_PID=""
FWD_PID=""
DBMROW=""             # section_module measures ReplayCache dbm too

T=$(mktemp -d /tmp/wh-bench.XXXXXX) || exit 1
chmod 755 "$T"
cleanup() {
    local n
    for n in "${HTTPDS[@]}"; do use_httpd "$n"; httpd_stop; done
    fx_account_remove
    node_stop
    [ -n "$FWD_PID" ] && kill "$FWD_PID" 2>/dev/null
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

# httpd_conf NAME MODULES BODY [MPM] -> $T/NAME.conf on $PORT; keep-alive
# without a request cap, no access log (for all runs). event (default):
# one child process, 32 threads. prefork (mod_php): 32 processes, all
# started up front and kept, the same concurrency. Several instances may
# run at once; use_httpd NAME makes one the current (HTTPD_CONF, PORT).
httpd_conf() {
    local name=$1 mods=$2 body=$3 mpm=${4:-event} m
    HTTPD_CONF="$T/$name.conf"
    HPORT[$name]=$PORT
    mkdir -p "$T/run/$name"; chmod 1777 "$T/run/$name"
    {
        echo "ServerRoot \"$T\""
        for m in "mpm_$mpm" authz_core unixd socache_shmcb socache_dbm $mods; do
            [ -f "$MODDIR/mod_$m.so" ] && echo "LoadModule ${m}_module $MODDIR/mod_$m.so"
        done
        if [ "$mpm" = event ]; then
            echo "LoadModule benchok_module $BENCH_DIR/mod_benchok.so"
            [ -f "$BUILD/mod_wirehook.so" ] && echo "LoadModule wirehook_module $BUILD/mod_wirehook.so"
        fi
        cat <<EOF
$RUN_AS
ServerName 127.0.0.1
Listen 127.0.0.1:$PORT
PidFile $T/run/$name.pid
DefaultRuntimeDir $T/run/$name
ErrorLog $T/logs/error.log
LogLevel ${BENCH_LOGLEVEL:-warn}
DocumentRoot "$T"
Timeout 30
KeepAlive On
MaxKeepAliveRequests 0
KeepAliveTimeout 5
MaxConnectionsPerChild 0
EOF
        if [ "$mpm" = event ]; then
            cat <<EOF
ServerLimit 1
StartServers 1
ThreadLimit 32
ThreadsPerChild 32
MaxRequestWorkers 32
MinSpareThreads 1
MaxSpareThreads 64
<Location /ping>
    SetHandler benchok
</Location>
EOF
        else
            cat <<EOF
ServerLimit 32
StartServers 32
MinSpareServers 5
MaxSpareServers 32
MaxRequestWorkers 32
EOF
        fi
        printf '%s\n' "$body"
    } >"$HTTPD_CONF"
}
use_httpd() { HTTPD_CONF="$T/$1.conf"; PORT=${HPORT[$1]}; }
httpd_name() { basename "$HTTPD_CONF" .conf; }

httpd_pid() { [ -n "$HTTPD_CONF" ] && cat "$T/run/$(httpd_name).pid" 2>/dev/null; }
httpd_start() {
    local out
    # HTTPD_ENV: VAR=value words for env
    # shellcheck disable=SC2086
    out=$(env $HTTPD_ENV "$HTTPD" -f "$HTTPD_CONF" -k start 2>&1) || { log "httpd failed: $out"; tail -n 20 "$T/logs/error.log" >&2; return 1; }
    HTTPDS+=("$(httpd_name)")
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
    rm -f "$T/run/$(httpd_name).pid"
    return 0
}
# the worker children of the running httpd (one for the event instances
# without mod_cgid)
httpd_children() { ps -o pid= --ppid "$(httpd_pid)" 2>/dev/null | awk '{ print $1 }'; }
httpd_child() { httpd_children | awk 'NR == 1 { print $1 }'; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
# the private part of it (heap, stacks): what a leak grows. The rest is
# file pages mapped in, such as the lmdb replay store's map, which fills
# as ids are recorded and is bounded by its size.
anon_kib() { awk '/^RssAnon:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
# CPU time (user + system, clock ticks) of the httpd child
# (only with exactly one child: with mod_cgid there is a second)
child_ticks() {
    [ "$(httpd_children | wc -l)" -eq 1 ] || return 0
    awk '{ print $14 + $15 }' "/proc/$(httpd_child)/stat" 2>/dev/null
}
# CPU time of the processes in CPU_PIDS when set (a receiver's whole
# stack: the prefork children, node, httpd child + node), else of the
# httpd child; empty when one of them is gone
cpu_ticks() {
    [ -n "${CPU_PIDS:-}" ] || { child_ticks; return; }
    local p t=0 v
    for p in $CPU_PIDS; do
        v=$(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null)
        [ -n "$v" ] || return 0
        t=$((t + v))
    done
    echo "$t"
}

# ------------------------------------------------------------ load ---
# gen DIR PATH COUNT USER: pre-sign COUNT requests for PATH on this httpd
gen() { gen_at "$1" "127.0.0.1:$PORT" "$2" "$3" "$4"; }
# gen_at DIR HOST:PORT PATH COUNT USER: the same for any signed URL
# ("http://" HOST:PORT PATH, also the Host header sent)
gen_at() {
    rm -rf "$1"; mkdir -p "$1"
    "$BENCH_DIR/bench_gen" --sample "$SAMPLE" --secrets "$SECRETS" --user "$5" \
        --password "$PASSWORD" --host "$2" --path "$3" --count "$4" --out "$1" \
        --lead "${GEN_LEAD:-0}" >/dev/null
}
# wrkrun OUT DIR PATH SECONDS MODE [CONNECTIONS [URL]]: wrk_* lines into
# OUT; URL (default http://127.0.0.1:$PORT PATH) is where wrk connects.
# Also records the CPU per request (cpu_us) of the httpd child, or of
# CPU_PIDS (see cpu_ticks).
wrkrun() {
    local c0 c1
    c0=$(cpu_ticks)
    local perf_pid=""
    # BENCH_PERF=FILE profiles the httpd child during the measured runs of
    # BENCH_PERF_PATH (perf record with call graphs), for finding where
    # time goes
    if [ -n "${BENCH_PERF:-}" ] && [ "$3" = "${BENCH_PERF_PATH:-/v1/sink}" ] && [ -z "${CPU_PIDS:-}" ] && [ -n "$(httpd_child)" ]; then
        perf record -q --call-graph dwarf,16384 -F 499 -o "$BENCH_PERF" -p "$(httpd_child)" -- sleep "$4" >/dev/null 2>&1 &
        perf_pid=$!
    fi
    wrk -t1 -c"${6:-$WRK_CONN}" -d"${4}s" --timeout 10s -s "$here/signed.lua" \
        "${7:-http://127.0.0.1:$PORT$3}" -- "$2" "$5" 1 >"$1.raw" 2>&1
    c1=$(cpu_ticks)
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

# probe LABEL URL HOST:PORT PATH USER: proves a receiver correct before it
# is timed. One freshly signed request is sent with a wrong signature (it
# must get 401 signature_mismatch), then as signed (200, not a
# duplicate), then again (a duplicate: 200 "duplicate", or 409). Any other
# answer fails the section: a broken receiver must never look fast.
probe() {
    local label=$1 url=$2 host=$3 path=$4 user=$5 d="$T/wrk/probe-$1"
    local ts id dt sig bad auth code
    gen_at "$d" "$host" "$path" 1 "$user" || { log "$label: bench_gen failed"; return 1; }
    read -r ts id dt sig <"$d/list"
    { cat "$d/b1"; printf '%s' "$id"; cat "$d/b2"; printf '%s' "$dt"; cat "$d/b3"; } >"$d/body"
    auth=$(tr -d '\r' <"$d/head" | awk -F': ' '$1 == "Authorization" { print $2 }')
    case $sig in 0*) bad="1${sig#?}" ;; *) bad="0${sig#?}" ;; esac
    _probe_send() {
        curl -s -o "$d/resp" -w '%{http_code}' --max-time 10 -X POST -H "Host: $host" \
            -H "Authorization: $auth" -H 'Content-Type: application/json' -H "X-Timestamp: $ts" \
            -H "X-Signature: $1" -H 'Expect:' --data-binary @"$d/body" "$url" 2>/dev/null
    }
    code=$(_probe_send "$bad")
    if [ "$code" != 401 ] || ! grep -q signature_mismatch "$d/resp"; then
        log "$label: a bad signature got $code $(head -c 300 "$d/resp"), not 401 signature_mismatch"
        return 1
    fi
    code=$(_probe_send "$sig")
    if [ "$code" != 200 ] || grep -q duplicate "$d/resp"; then
        log "$label: a valid request got $code $(head -c 300 "$d/resp"), not 200"
        return 1
    fi
    code=$(_probe_send "$sig")
    if ! { [ "$code" = 200 ] && grep -q '"duplicate"' "$d/resp"; } && [ "$code" != 409 ]; then
        log "$label: a replayed request got $code $(head -c 300 "$d/resp"), not a duplicate"
        return 1
    fi
    log "$label: verified (bad signature 401, valid 200, replay duplicate)"
    rm -rf "$d"
    return 0
}

# one_run KEY ROUND URL HOST:PORT PATH USER [CONNECTIONS]: one timed run
# of fresh signed requests into R[KEY<ROUND>.*]; enough of them for the
# pace of the previous run of KEY (or 20,000 req/s for the first). Round
# "warm" is a 2-second warm-up (caches, opcache, JIT, connection pools).
one_run() {
    local key=$1 r=$2 url=$3 host=$4 path=$5 user=$6 conn=${7:-$WRK_CONN} cnt secs=$SECONDS_RUN
    [ "$r" = warm ] && secs=2
    # the fastest pace seen so far for KEY, with room: a shared machine's
    # pace swings, and a run that runs dry understates its receiver
    cnt=$(awk -v r="${R[$key.est]:-20000}" -v s="$secs" 'BEGIN { n = r * s * 3 + 5000; if (s > 2 && n < 30000) n = 30000; printf "%d", n }')
    gen_at "$T/wrk/$key$r" "$host" "$path" "$cnt" "$user" || return 1
    wrkrun "$T/$key$r.kv" "$T/wrk/$key$r" "$path" "$secs" stop "$conn" "$url" || return 1
    kv "$T/$key$r.kv" "$key$r"
    rm -rf "$T/wrk/$key$r"
    R[$key.est]=$(awk -v r="$r" -v a="${R[$key.est]:-0}" -v b="$(get "$key$r.rps")" 'BEGIN { if (r == "warm" || b > a) print b; else print a }')
    [ "$(get "$key$r.non2xx")" = 0 ] || note "$key round $r: $(get "$key$r.non2xx") responses were not 2xx"
    [ "$(get "$key$r.errors")" = 0 ] || note "$key round $r: $(get "$key$r.errors") socket errors"
    [ "$(get "$key$r.exhausted")" = 0 ] || note "$key round $r ran out of pre-signed requests: its rate is understated"
    return 0
}
# summarize KEY: medians over the rounds into R[KEY.rps|p50|p99|cpu|tail]
# (tail: the median of each round's p99 / p50)
summarize() {
    local key=$1 r rps="" p50="" p99="" cpu="" tail="" req=0
    for r in $(seq 1 "$ROUNDS"); do
        rps="$rps $(get "$key$r.rps")"; p50="$p50 $(get "$key$r.p50_ms")"
        p99="$p99 $(get "$key$r.p99_ms")"; cpu="$cpu $(get "$key$r.cpu_us")"
        tail="$tail $(ratio "$(get "$key$r.p99_ms")" "$(get "$key$r.p50_ms")")"
        req=$((req + $(get "$key$r.requests") - $(get "$key$r.non2xx")))
    done
    R[$key.rps]=$(echo "$rps" | median); R[$key.p50]=$(echo "$p50" | median)
    R[$key.p99]=$(echo "$p99" | median); R[$key.cpu]=$(echo "$cpu" | median)
    R[$key.tail]=$(echo "$tail" | median); R[$key.ok]=$req
}

# ref_server NAME MODULES BODY: an event httpd as the module section's
# (one child, 32 threads) with /v1/sink (mod_wirehook in front of
# mod_benchok, the default replay store, lmdb) and /sink, plus BODY;
# started and made current. The reference every receiver is compared with.
ref_server() {
    PORT=$(free_port) || return 1
    write_wh_conf "$T/etc/ref.conf"
    httpd_conf "$1" "$2" "<Location /sink>
    SetHandler benchok
</Location>
<Location /v1/sink>
    SetHandler benchok
    WirehookConfig $T/etc/ref.conf
</Location>
$3"
    httpd_start
}

# node_start PORT SIGNED_URL: the Node receiver on 127.0.0.1:PORT
node_start() {
    NODE_PORT=$1
    WH_PORT=$NODE_PORT WH_SECRET_FILE="$SECRETS" WH_HTPASSWD="$HTPASSWD" WH_SIGNED_URL="$2" \
        NODE_PATH="$BENCH_DIR/node_modules" NODE_ENV=production \
        node "$here/receivers/receiver.js" >"$T/logs/node.log" 2>&1 &
    NODE_PID=$!
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$NODE_PORT") 2>/dev/null && return 0
        kill -0 "$NODE_PID" 2>/dev/null || break
        sleep 0.1
    done
    log "node did not come up:"; cat "$T/logs/node.log" >&2
    node_stop
    return 1
}
node_stop() {
    [ -n "$NODE_PID" ] || return 0
    kill "$NODE_PID" 2>/dev/null
    wait "$NODE_PID" 2>/dev/null
    NODE_PID=""
}

# inbox_count DRIVER WHERE: events stored (sqlite3 file, pg or mysql)
inbox_count() {
    case $1 in
        sqlite3) command -v sqlite3 >/dev/null 2>&1 && sqlite3 "$2" 'SELECT count(*) FROM wh_events' 2>/dev/null ;;
        pgsql) pg_sql 'SELECT count(*) FROM wh_events' 2>/dev/null ;;
        mysql) mariadb_sql 'SELECT count(*) FROM wh_events' 2>/dev/null ;;
    esac
}

# ------------------------------------------------------------ 1. core ---
section_core() {
    log "core: verify + validate vs HMAC + json-c floor"
    "$BENCH_DIR/bench_core" --sample "$SAMPLE" --htpasswd "$HTPASSWD" --user bank \
        --password "$PASSWORD" --seconds 0.5 --rounds 11 --uncached 10 >"$T/core.kv" || return 1
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
    # the module's way: 16 threads of one process through one group commit
    "$BENCH_DIR/bench_inbox" append --db "$T/data/t16.db" --sample "$SAMPLE" --count 20000 --threads 16 >"$T/t16.kv" || return 1
    kv "$T/t16.kv" inboxt16
    rm -f "$T/data/w1.db"* "$T/data/w8.db"* "$T/data/t16.db"*

    need_tools sqlite3 || return 0
    local big="$T/data/big.db" total=$((INBOX_RECORDS + 100)) t0
    "$BENCH_DIR/bench_inbox" create --db "$big" || return 1
    t0=$(date +%s.%N)
    # One transaction in the inbox's own schema (v5): arrival keys unique,
    # listing positions (wh_order) gap-free, as wh_inbox_store() leaves them.
    sqlite3 "$big" >/dev/null <<EOF || { log "bulk load failed"; return 1; }
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $total),
t(b) AS (SELECT CAST(readfile('$SAMPLE') AS TEXT))
INSERT INTO wh_events (id, notification_id, event_type, event_time, payment_id, status, event_instant, received_at, body)
SELECT i, printf('%08x-0000-4000-8000-%012x', i, i), 'wire.status', '2026-11-22T14:05:09Z',
       printf('WP-2026-%06d', i % 5000), 'Complete', 1795356309000000, 1700000000000000 + i,
       replace(b, '8cefee42-cb39-4479-b7fd-b8a358aeb002', printf('%08x-0000-4000-8000-%012x', i, i))
FROM c, t;
INSERT INTO wh_order (seq, event_id, payment_id, status, received_at)
SELECT id, id, payment_id, status, received_at FROM wh_events;
COMMIT;
EOF
    R[inbox.bulk_seconds]=$(calc "$(date +%s.%N) - $t0" 1)
    R[inbox.big_bytes]=$(stat -c %s "$big")
    "$BENCH_DIR/bench_inbox" page --db "$big" --offset 0 --repeat 101 >"$T/p0.kv" || return 1
    "$BENCH_DIR/bench_inbox" page --db "$big" --offset "$INBOX_RECORDS" --repeat 101 >"$T/p1.kv" || return 1
    kv "$T/p0.kv" page0
    kv "$T/p1.kv" page1
    # retention: intake beside a purge of every one of those events
    log "inbox: intake during a purge of $INBOX_RECORDS events"
    "$BENCH_DIR/bench_inbox" purge --db "$big" --sample "$SAMPLE" --count 2000 >"$T/purge.kv" || return 1
    kv "$T/purge.kv" purge
    rm -f "$big"*
}

# ------------------------------------------------------------ 3. module ---
# baseline: /sink (benchok alone); subject: /v1/sink (mod_wirehook + benchok,
# the default ReplayCache lmdb: its file in the DefaultRuntimeDir $T/run/module)
# lead_round NAME ROUND PATH COUNT LABEL: one round at PATH with COUNT
# requests signed 300 s ahead; kv NAME<ROUND>.*
lead_round() {
    local name=$1 r=$2
    GEN_LEAD=300 gen "$T/wrk/$name$r" "$3" "$4" bank
    wrkrun "$T/$name$r.kv" "$T/wrk/$name$r" "$3" "$SECONDS_RUN" stop || return 1
    kv "$T/$name$r.kv" "$name$r"
    [ "$(get "$name$r.exhausted")" = 0 ] || note "module ($5) round $r ran out of pre-signed requests: its rate is understated"
    [ "$(get "$name$r.non2xx")" = 0 ] || note "module ($5) round $r: $(get "$name$r.non2xx") responses were not 2xx"
}

section_module() {
    [ -f "$BUILD/mod_wirehook.so" ] || { note "module: $BUILD/mod_wirehook.so not built"; return 0; }
    log "module: $ROUNDS x ${SECONDS_RUN}s at concurrency $WRK_CONN, with and without mod_wirehook"
    PORT=$(free_port)
    write_wh_conf "$T/etc/mod.conf"
    # the same in memory: ReplayCache shmcb, large enough for every round
    # (no refusal for a full store), not kept across a full restart
    write_wh_conf "$T/etc/mod-shm.conf" "ReplayCache shmcb:$T/run/module/replay-shm(268435456)"
    # dbm (mod_socache_dbm, the default before lmdb) on disk, as its own
    # file: a Berkeley DB open, write, sync and close per new id
    DBMROW=1
    write_wh_conf "$T/etc/mod-ram.conf" "ReplayCache dbm:$T/run/module/replay-dbm"
    local ram_conf=$T/etc/mod-ram.conf
    httpd_conf module "" "<Location /sink>
    SetHandler benchok
</Location>
<Location /v1/sink>
    SetHandler benchok
    WirehookConfig $T/etc/mod.conf
</Location>
<Location /v2/sink>
    SetHandler benchok
    WirehookConfig $T/etc/mod-shm.conf
</Location>
<Location /v3/sink>
    SetHandler benchok
    WirehookConfig $ram_conf
</Location>
<Location /floor/sink>
    SetHandler benchfloor
</Location>
BenchFloorSecret $BENCH_SECRET"
    httpd_start || return 1
    local r base_rps="" mod_rps="" base_p99="" mod_p99="" base_cpu="" mod_cpu="" cnt
    local floor_rps="" floor_p99="" floor_cpu="" shm_rps="" shm_cpu="" ram_rps="" ram_cpu=""
    # warm-up and sanity: every signed request must be accepted
    gen "$T/wrk/warm" /v1/sink 3000 bank
    wrkrun "$T/warm.kv" "$T/wrk/warm" /v1/sink 2 stop || return 1
    kv "$T/warm.kv" warm
    # (a machine busy with other work may complete none in 2 s: that is
    # no refusal, the rounds below still check every answer)
    [ "$(get warm.requests)" = 0 ] && note "module warm-up: no request completed in 2 s (machine busy?)"
    if [ "$(get warm.non2xx)" != 0 ]; then
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
        # shmcb remembers only since httpd started (and a new dbm file is not
        # trusted to be new where $T is in a RAM file system, which a reboot
        # empties): for TimestampTolerance (300 s) they refuse what could
        # have been signed before the start; requests signed 300 s ahead are
        # inside the tolerance and after that
        lead_round shm "$r" /v2/sink "$cnt" "shmcb" || return 1
        shm_rps="$shm_rps $(get "shm$r.rps")"; shm_cpu="$shm_cpu $(get "shm$r.cpu_us")"
        if [ -n "$DBMROW" ]; then
            lead_round ram "$r" /v3/sink "$cnt" "dbm" || return 1
            ram_rps="$ram_rps $(get "ram$r.rps")"; ram_cpu="$ram_cpu $(get "ram$r.cpu_us")"
        fi
        base_rps="$base_rps $(get "base$r.rps")"; mod_rps="$mod_rps $(get "mod$r.rps")"
        base_p99="$base_p99 $(get "base$r.p99_ms")"; mod_p99="$mod_p99 $(get "mod$r.p99_ms")"
        base_cpu="$base_cpu $(get "base$r.cpu_us")"; mod_cpu="$mod_cpu $(get "mod$r.cpu_us")"
        floor_rps="$floor_rps $(get "floor$r.rps")"; floor_p99="$floor_p99 $(get "floor$r.p99_ms")"
        floor_cpu="$floor_cpu $(get "floor$r.cpu_us")"
    done
    R[module.floor_rps]=$(echo "$floor_rps" | median)
    R[module.shm_rps]=$(echo "$shm_rps" | median)
    R[module.shm_cpu]=$(echo "$shm_cpu" | median)
    if [ -n "$DBMROW" ]; then
        R[module.ram_rps]=$(echo "$ram_rps" | median)
        R[module.ram_cpu]=$(echo "$ram_cpu" | median)
    fi
    R[module.floor_p99]=$(echo "$floor_p99" | median)
    R[module.floor_cpu]=$(echo "$floor_cpu" | median)
    R[module.base_cpu]=$(echo "$base_cpu" | median)
    R[module.mod_cpu]=$(echo "$mod_cpu" | median)
    R[module.base_rps]=$(echo "$base_rps" | median)
    R[module.mod_rps]=$(echo "$mod_rps" | median)
    R[module.base_p99]=$(echo "$base_p99" | median)
    R[module.mod_p99]=$(echo "$mod_p99" | median)
    httpd_stop
    return 0
}

# ------------------------------------------------------------ 3b. inbox over HTTP ---
# SetHandler wirehook storing every event durably in SQLite (WAL,
# synced before the 200) vs /v1/sink (the module in front of mod_benchok), the
# same httpd, interleaved rounds at concurrency 16
section_inbox_http() {
    [ -f "$BUILD/mod_wirehook.so" ] || { note "inbox-http: $BUILD/mod_wirehook.so not built"; return 0; }
    log "inbox-http: SetHandler wirehook on SQLite vs /v1/sink, $ROUNDS x ${SECONDS_RUN}s at concurrency $WRK_CONN"
    local db="$T/data/http-inbox.db" r stored
    write_wh_conf "$T/etc/inbox-http.conf" "InboxParams $db" ${BENCH_INBOX_CONF:+"$BENCH_INBOX_CONF"}
    ref_server inboxhttp "" "<Location /inbox>
    SetHandler wirehook
    WirehookConfig $T/etc/inbox-http.conf
</Location>" || return 1
    local host="127.0.0.1:$PORT" u="http://127.0.0.1:$PORT"
    probe "module /v1/sink" "$u/v1/sink" "$host" /v1/sink bank || { httpd_stop; return 1; }
    probe "module inbox (SQLite)" "$u/inbox" "$host" /inbox bank || { httpd_stop; return 1; }
    one_run ih_sink warm "$u/v1/sink" "$host" /v1/sink bank && one_run ih_inbox warm "$u/inbox" "$host" /inbox bank || { httpd_stop; return 1; }
    for r in $(seq 1 "$ROUNDS"); do
        one_run ih_sink "$r" "$u/v1/sink" "$host" /v1/sink bank || { httpd_stop; return 1; }
        one_run ih_inbox "$r" "$u/inbox" "$host" /inbox bank || { httpd_stop; return 1; }
    done
    summarize ih_sink; summarize ih_inbox
    httpd_stop
    stored=$(inbox_count sqlite3 "$db")
    R[ih.stored]=$stored
    # every 200 of the warm-up, the probe and the rounds is an event
    R[ih.acked]=$(( $(get ih_inbox.ok) + $(get ih_inboxwarm.requests) - $(get ih_inboxwarm.non2xx) + 1 ))
    rm -f "$db"*
}

# ------------------------------------------------------------ 3c. inbox on a database server ---
# The engines a database section runs on: the server is started here on
# loopback in a temp dir, as the integration tests do (their files are
# sourced: tests/integration/pg.sh, tests/integration/mariadb.sh).
#   db_use ENGINE: DB_* for pgsql or mysql; 1 when it cannot run here
db_use() {
    DB_ENGINE=$1
    # the server's own sign-in, not the tests' cheaper one (pg.sh), and
    # its files on disk, not in memory (WH_DB_SCRATCH)
    export WH_PG_AUTH=scram-sha-256
    unset WH_DB_SCRATCH
    case $1 in
        pgsql)
            DB_NAME=PostgreSQL DB_LIB="$top/tests/integration/pg.sh"
            DB_PKG=postgresql DB_DEADLOCK="deadlock detected" ;;
        mysql)
            DB_NAME=MariaDB DB_LIB="$top/tests/integration/mariadb.sh"
            DB_PKG=mariadb-server DB_DEADLOCK="Deadlock found" ;;
    esac
    [ -f "$DB_LIB" ] || { note "$DB_NAME: $DB_LIB missing"; return 1; }
    # shellcheck disable=SC1090
    . "$DB_LIB"
    if ! { [ "$1" = pgsql ] && pg_available; } && ! { [ "$1" = mysql ] && mariadb_available; }; then
        note "$DB_NAME: skipped, no server binaries (apt-get install $DB_PKG)"
        return 1
    fi
    return 0
}
db_start() { if [ "$DB_ENGINE" = pgsql ]; then pg_start; else mariadb_start; fi; }
db_destroy() { if [ "$DB_ENGINE" = pgsql ]; then pg_destroy; else mariadb_destroy; fi; }
db_params() { if [ "$DB_ENGINE" = pgsql ]; then printf '%s' "$PG_CONNINFO"; else printf '%s' "$MARIADB_PARAMS"; fi; }
db_version() {
    if [ "$DB_ENGINE" = pgsql ]; then "$(pg_bin)/postgres" --version | awk '{ print $3 }'
    else mariadb_sql "SELECT VERSION()" | cut -d- -f1; fi
}

# db_inbox ENGINE PREFIX: the same SetHandler wirehook on a database
# server started here, req/s at concurrency 16 vs concurrency 1, into
# R[PREFIX1.*], R[PREFIX16.*], R[PREFIX.version|stored|acked]
db_inbox() {
    local pre=$2 conf="$T/etc/$2.conf" r
    [ -f "$BUILD/mod_wirehook.so" ] || { note "$pre: $BUILD/mod_wirehook.so not built"; return 0; }
    db_use "$1" || return 0
    log "$pre: SetHandler wirehook on $DB_NAME, $ROUNDS x ${SECONDS_RUN}s at concurrency 1 and $WRK_CONN"
    db_start || { note "$pre: $DB_NAME did not start"; return 1; }
    R[$pre.version]=$(db_version)
    write_wh_conf "$conf" "InboxDriver $1" "InboxParams \"$(db_params)\""
    # it holds the database password: readable by the httpd user only
    chmod 640 "$conf"; [ -n "$RUN_AS" ] && chgrp www-data "$conf"
    ref_server "$pre" "" "<Location /dbinbox>
    SetHandler wirehook
    WirehookConfig $conf
</Location>" || { db_destroy; return 1; }
    local host="127.0.0.1:$PORT" u="http://127.0.0.1:$PORT/dbinbox"
    probe "module inbox ($DB_NAME)" "$u" "$host" /dbinbox bank || { httpd_stop; db_destroy; return 1; }
    one_run "${pre}16" warm "$u" "$host" /dbinbox bank "$WRK_CONN" && one_run "${pre}1" warm "$u" "$host" /dbinbox bank 1 \
        || { httpd_stop; db_destroy; return 1; }
    for r in $(seq 1 "$ROUNDS"); do
        one_run "${pre}1" "$r" "$u" "$host" /dbinbox bank 1 || { httpd_stop; db_destroy; return 1; }
        one_run "${pre}16" "$r" "$u" "$host" /dbinbox bank "$WRK_CONN" || { httpd_stop; db_destroy; return 1; }
    done
    summarize "${pre}1"; summarize "${pre}16"
    httpd_stop
    R[$pre.stored]=$(inbox_count "$1")
    R[$pre.acked]=$(( $(get "${pre}1.ok") + $(get "${pre}16.ok") + 1 \
        + $(get "${pre}16warm.requests") - $(get "${pre}16warm.non2xx") + $(get "${pre}1warm.requests") - $(get "${pre}1warm.non2xx") ))
    db_destroy
}
section_pg() { db_inbox pgsql pg; }
section_mysql() { db_inbox mysql my; }

# ------------------------------------------------------------ 3c'. two servers, one database ---
# db_pairs ENGINE PREFIX: the module's inbox on two httpd sharing one
# database server, every copy sent to both at once (a retry storm behind a
# load balancer): a wrk at concurrency 16 on each server over the same
# pre-signed list, in the same order (SignedUrl is the same on both, so one
# signature serves both), against one server storing each notification
# once (concurrency 16). Events stored per second, from the database's
# count over the run, into R[PREFIX1.rps] (one server), R[PREFIX2.rps]
# (two), R[PREFIX.deadlocks] (the deadlocks the servers logged).
db_pairs() {
    local pre=$2 conf="$T/etc/$2.conf" host=pairs.bench r ua ub engine=$1
    [ -f "$BUILD/mod_wirehook.so" ] || { note "$pre: $BUILD/mod_wirehook.so not built"; return 0; }
    db_use "$1" || return 0
    log "$pre: two servers on one $DB_NAME, every copy to both, vs one server, $ROUNDS x ${SECONDS_RUN}s at concurrency $WRK_CONN each"
    db_start || { note "$pre: $DB_NAME did not start"; return 1; }
    write_wh_conf "$conf" "InboxDriver $1" "InboxParams \"$(db_params)\"" \
        "SignedUrl http://$host/dbinbox"
    chmod 640 "$conf"; [ -n "$RUN_AS" ] && chgrp www-data "$conf"
    local body="<Location /dbinbox>
    SetHandler wirehook
    WirehookConfig $conf
</Location>"
    PORT=$(free_port) && httpd_conf "${pre}a" "" "$body" && httpd_start || { db_destroy; return 1; }
    ua="http://127.0.0.1:$PORT/dbinbox"
    PORT=$(free_port) && httpd_conf "${pre}b" "" "$body" && httpd_start || { use_httpd "${pre}a"; httpd_stop; db_destroy; return 1; }
    ub="http://127.0.0.1:$PORT/dbinbox"
    _pairs_stop() { use_httpd "${pre}b"; httpd_stop; use_httpd "${pre}a"; httpd_stop; db_destroy; }
    probe "module inbox ($DB_NAME, server A)" "$ua" "$host" /dbinbox bank || { _pairs_stop; return 1; }
    local dl0
    dl0=$(grep -c "$DB_DEADLOCK" "$T/logs/error.log" 2>/dev/null)
    # _pairs_run KEY ROUND URL...: the list sent once to each URL at once;
    # R[KEY ROUND .stored_rps] from the events the database gained
    _pairs_run() {
        local key=$1 r=$2 secs=$SECONDS_RUN cnt c0 c1 u pids="" k=0
        shift 2
        [ "$r" = warm ] && secs=2
        cnt=$(awk -v r="${R[$key.est]:-2000}" -v s="$secs" 'BEGIN { printf "%d", r * s * 3 + 5000 }')
        gen_at "$T/wrk/$key$r" "$host" /dbinbox "$cnt" bank || return 1
        c0=$(inbox_count "$engine")
        for u in "$@"; do
            k=$((k + 1))
            wrk -t1 -c"$WRK_CONN" -d"${secs}s" --timeout 10s -s "$here/signed.lua" "$u" \
                -- "$T/wrk/$key$r" stop 1 >"$T/$key$r.$k.raw" 2>&1 &
            pids="$pids $!"
        done
        # shellcheck disable=SC2086
        wait $pids
        c1=$(inbox_count "$engine")
        for k in $(seq 1 $#); do
            grep '^wrk_' "$T/$key$r.$k.raw" | sed 's/^wrk_//' >"$T/$key$r.$k.kv"
            kv "$T/$key$r.$k.kv" "$key$r.$k"
            [ "$(get "$key$r.$k.non2xx")" = 0 ] || note "$key round $r: server $k answered $(get "$key$r.$k.non2xx") non-2xx"
            [ "$(get "$key$r.$k.exhausted")" = 0 ] || note "$key round $r ran out of pre-signed requests: its rate is understated"
        done
        R[$key$r.stored_rps]=$(awk -v n="$((c1 - c0))" -v s="$(get "$key$r.1.seconds")" 'BEGIN { if (s > 0) printf "%.1f", n / s }')
        R[$key.est]=$(awk -v a="${R[$key.est]:-0}" -v b="$(get "$key$r.stored_rps")" 'BEGIN { print (b > a ? b : a) }')
        rm -rf "$T/wrk/$key$r"
    }
    _pairs_run "${pre}1" warm "$ua" && _pairs_run "${pre}2" warm "$ua" "$ub" || { _pairs_stop; return 1; }
    local one="" two=""
    for r in $(seq 1 "$ROUNDS"); do
        _pairs_run "${pre}1" "$r" "$ua" && _pairs_run "${pre}2" "$r" "$ua" "$ub" || { _pairs_stop; return 1; }
        one="$one $(get "${pre}1$r.stored_rps")"; two="$two $(get "${pre}2$r.stored_rps")"
    done
    R[${pre}1.rps]=$(echo "$one" | median); R[${pre}2.rps]=$(echo "$two" | median)
    # both servers log to the one error log
    R[$pre.deadlocks]=$(( $(grep -c "$DB_DEADLOCK" "$T/logs/error.log" 2>/dev/null) - ${dl0:-0} ))
    _pairs_stop
}
section_pg_pairs() { db_pairs pgsql pp; }
section_mysql_pairs() { db_pairs mysql mp; }

# ------------------------------------------------------------ 3d. PHP ---
# bench/receivers/receiver.php under mod_php in its own prefork httpd (32
# processes) vs the module (/v1/sink) in the reference httpd; both
# instances run for the whole section, rounds interleaved
section_php() {
    [ -f "$BUILD/mod_wirehook.so" ] || { note "php: $BUILD/mod_wirehook.so not built"; return 0; }
    local phpmod
    phpmod=$(ls "$MODDIR"/libphp*.so 2>/dev/null | sort -V | tail -n 1)
    [ -n "$phpmod" ] && [ -f "$MODDIR/mod_mpm_prefork.so" ] || {
        note "php: skipped, mod_php missing (apt-get install libapache2-mod-php php-apcu)"; return 0; }
    local extdir
    extdir=$(php -r 'echo ini_get("extension_dir");' 2>/dev/null)
    [ -f "$extdir/apcu.so" ] || { note "php: skipped, APCu missing (apt-get install php-apcu)"; return 0; }
    log "php: mod_php receiver (prefork) vs the module, $ROUNDS x ${SECONDS_RUN}s at concurrency $WRK_CONN"
    local d="$T/php" r
    mkdir -p "$d"; chmod 755 "$d"
    cp "$here/receivers/receiver.php" "$d/"
    sed "s#@PHPDIR@#$d#g" "$here/receivers/php.ini" >"$d/php.ini"
    printf "<?php\nreturn ['secrets' => ['%s'], 'htpasswd' => '%s'];\n" "$BENCH_SECRET" "$HTPASSWD" >"$d/config.php"
    chmod 644 "$d/receiver.php" "$d/php.ini"; chmod 600 "$d/config.php"
    [ -n "$RUN_AS" ] && chown www-data "$d/config.php" && chmod 1777 "$d"
    R[php.version]=$("$(command -v php)" -r 'echo PHP_VERSION;' 2>/dev/null)
    ref_server phpref "" "" || return 1
    local mhost="127.0.0.1:$PORT" mu="http://127.0.0.1:$PORT/v1/sink"
    PORT=$(free_port) || return 1
    httpd_conf php "alias" "$(sed -e "s#@PHPDIR@#$d#g" -e "s#@PHPMOD@#$phpmod#g" "$here/receivers/php-receiver.conf")" prefork
    HTTPD_ENV="PHP_INI_SCAN_DIR="
    httpd_start || { HTTPD_ENV=""; use_httpd phpref; httpd_stop; return 1; }
    HTTPD_ENV=""
    local phost="127.0.0.1:$PORT" pu="http://127.0.0.1:$PORT/php/wires"
    # all 32 children up before anything is measured
    for _ in $(seq 1 100); do [ "$(httpd_children | wc -l)" -ge 32 ] && break; sleep 0.1; done
    local ok=1
    use_httpd phpref; probe "module /v1/sink" "$mu" "$mhost" /v1/sink bank || ok=0
    use_httpd php; [ "$ok" = 1 ] && { probe "PHP receiver" "$pu" "$phost" /php/wires bank || ok=0; }
    if [ "$ok" = 1 ]; then
        use_httpd phpref; one_run php_mod warm "$mu" "$mhost" /v1/sink bank || ok=0
        use_httpd php; CPU_PIDS=$(httpd_children | tr '\n' ' ') one_run php_php warm "$pu" "$phost" /php/wires bank || ok=0
        for r in $(seq 1 "$ROUNDS"); do
            [ "$ok" = 1 ] || break
            use_httpd phpref; one_run php_mod "$r" "$mu" "$mhost" /v1/sink bank || ok=0
            use_httpd php; CPU_PIDS=$(httpd_children | tr '\n' ' ') one_run php_php "$r" "$pu" "$phost" /php/wires bank || ok=0
        done
    fi
    [ -s "$d/php-error.log" ] && note "php: the receiver logged errors: $(head -c 300 "$d/php-error.log" | tr '\n' ' ')"
    use_httpd php; httpd_stop
    use_httpd phpref; httpd_stop
    [ "$ok" = 1 ] || return 1
    summarize php_mod; summarize php_php
}

# ------------------------------------------------------------ 3e. Node ---
# bench/receivers/receiver.js (node:http + crypto + ajv) behind the
# reference httpd through mod_proxy_http (pooled keep-alive connections
# to the backend), vs the module (/v1/sink) in the same httpd; and Node
# alone (wrk straight at it), for context
section_node() {
    [ -f "$BUILD/mod_wirehook.so" ] || { note "node: $BUILD/mod_wirehook.so not built"; return 0; }
    command -v node >/dev/null 2>&1 || { note "node: skipped, node missing"; return 0; }
    [ -f "$MODDIR/mod_proxy_http.so" ] || { note "node: skipped, mod_proxy_http missing"; return 0; }
    [ -d "$BENCH_DIR/node_modules/ajv" ] || { note "node: skipped, ajv not installed in $BENCH_DIR/node_modules (make bench-node: npm ci)"; return 0; }
    log "node: Node receiver behind httpd (mod_proxy) and alone vs the module, $ROUNDS x ${SECONDS_RUN}s at concurrency $WRK_CONN"
    R[node.version]=$(node --version 2>/dev/null)
    local nport r rport
    nport=$(free_port) || return 1
    ref_server noderef "proxy proxy_http" "ProxyPass /node/ http://127.0.0.1:$nport/ keepalive=On ttl=60
ProxyPassReverse /node/ http://127.0.0.1:$nport/" || return 1
    rport=$PORT
    # the receiver is told its public URL (as wirehook's SignedUrl), so it
    # verifies the same signed URL behind the proxy and alone
    node_start "$nport" "http://127.0.0.1:$rport/node/" || { httpd_stop; return 1; }
    local host="127.0.0.1:$rport" mu="http://127.0.0.1:$rport/v1/sink" pu="http://127.0.0.1:$rport/node/"
    local au="http://127.0.0.1:$NODE_PORT/node/" hchild ok=1
    hchild=$(httpd_child)
    probe "module /v1/sink" "$mu" "$host" /v1/sink bank || ok=0
    [ "$ok" = 1 ] && { probe "Node receiver behind httpd" "$pu" "$host" /node/ bank || ok=0; }
    [ "$ok" = 1 ] && { probe "Node receiver alone" "$au" "$host" /node/ bank || ok=0; }
    if [ "$ok" = 1 ]; then
        one_run node_mod warm "$mu" "$host" /v1/sink bank || ok=0
        CPU_PIDS="$hchild $NODE_PID" one_run node_proxy warm "$pu" "$host" /node/ bank || ok=0
        CPU_PIDS=$NODE_PID one_run node_alone warm "$au" "$host" /node/ bank || ok=0
        for r in $(seq 1 "$ROUNDS"); do
            [ "$ok" = 1 ] || break
            one_run node_mod "$r" "$mu" "$host" /v1/sink bank || ok=0
            CPU_PIDS="$hchild $NODE_PID" one_run node_proxy "$r" "$pu" "$host" /node/ bank || ok=0
            CPU_PIDS=$NODE_PID one_run node_alone "$r" "$au" "$host" /node/ bank || ok=0
        done
    fi
    httpd_stop
    node_stop
    [ "$ok" = 1 ] || return 1
    summarize node_mod; summarize node_proxy; summarize node_alone
}

# ------------------------------------------------------------ 6. forward (hook) ---
# forwarding throughput vs the inbox's intake rate. Fills an SQLite inbox
# with BENCH_FORWARD_EVENTS events through SetHandler wirehook, points
# ForwardUrl at the bare mod_benchok sink (/fwd/sink, the only location
# with an access log, to count arrivals) and times `wirehook forward
# --config FILE` until the sink has seen every event. Skipped while the
# subcommand does not exist.
# Assumptions about the subcommand (not written yet when this was): it
# reads InboxDriver/InboxParams, ForwardUrl and ForwardSecretFile from the
# configuration file; with `--drain` or `--once` (whichever its --help
# names) it exits once the queue is empty, without either it keeps
# running and is stopped here (SIGTERM) once every event has arrived.
# fwd_drain NAME DB HOST SECRET FLAG: `wirehook forward` over DB into the
# sink until the sink has seen every event; R[fwd.NAME.*]
fwd_drain() {
    local name=$1 db=$2 host=$3 fsecret=$4 flag=$5 conf="$T/etc/fwd-$1.conf" t0 t1 n=0
    write_wh_conf "$conf" "InboxParams $db" "ForwardUrl http://$host/fwd/sink" "ForwardSecretFile $fsecret"
    : >"$T/logs/fwd-sink.log"
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$BUILD/wirehook" forward --config "$conf" $flag >"$T/logs/forward-$name.out" 2>&1 &
    FWD_PID=$!
    # done when the sink has seen every stored event (bounded: 600 s)
    for _ in $(seq 1 12000); do
        n=$(grep -c '^200 ' "$T/logs/fwd-sink.log" 2>/dev/null)
        [ "${n:-0}" -ge "$(get fwd.events)" ] && break
        kill -0 "$FWD_PID" 2>/dev/null || { n=$(grep -c '^200 ' "$T/logs/fwd-sink.log"); break; }
        sleep 0.05
    done
    t1=$(date +%s.%N)
    if kill -0 "$FWD_PID" 2>/dev/null; then
        [ -n "$flag" ] && sleep 2
        kill "$FWD_PID" 2>/dev/null
    fi
    wait "$FWD_PID" 2>/dev/null
    R[fwd.$name.rc]=$?
    FWD_PID=""
    R[fwd.$name.delivered]=${n:-0}
    R[fwd.$name.seconds]=$(calc "$t1 - $t0" 2)
    R[fwd.$name.rps]=$(awk -v n="${n:-0}" -v s="$(get "fwd.$name.seconds")" 'BEGIN { if (s > 0) printf "%.1f", n / s }')
    [ "${n:-0}" -ge "$(get fwd.events)" ] || note "forward ($name): only ${n:-0} of $(get fwd.events) events reached the sink (forward exit $(get "fwd.$name.rc")): $(tail -n 3 "$T/logs/forward-$name.out" | tr '\n' ' ')"
}

section_forward() {
    if ! [ -x "$BUILD/wirehook" ] || ! "$BUILD/wirehook" --help 2>/dev/null | awk '$1 == "forward" { f = 1 } END { exit !f }'; then
        note "forward: skipped, \`wirehook forward\` does not exist yet (the forwarding ÷ intake row waits for it)"
        return 0
    fi
    [ -f "$BUILD/mod_wirehook.so" ] || { note "forward: $BUILD/mod_wirehook.so not built"; return 0; }
    log "forward: wirehook forward forwarding $FORWARD_EVENTS events to mod_benchok"
    local db="$T/data/fwd-inbox.db" conf="$T/etc/fwd.conf" fsecret="$T/etc/forward.secret" flag="" help t0 t1 n=0
    printf 'fwd-secret-%s\n' "$(date +%s%N | sha256sum | cut -c1-24)" >"$fsecret"
    chmod 644 "$fsecret"
    write_wh_conf "$T/etc/fwd-intake.conf" "InboxParams $db"
    ref_server fwd "log_config setenvif" "<Location /inbox>
    SetHandler wirehook
    WirehookConfig $T/etc/fwd-intake.conf
</Location>
<Location /fwd/sink>
    SetHandler benchok
</Location>
SetEnvIf Request_URI ^/fwd/sink fwdlog
CustomLog $T/logs/fwd-sink.log \"%>s %r\" env=fwdlog" || return 1
    local host="127.0.0.1:$PORT"
    probe "module inbox (SQLite)" "http://$host/inbox" "$host" /inbox bank || { httpd_stop; return 1; }
    gen "$T/wrk/fwdfill" /inbox "$FORWARD_EVENTS" bank
    t0=$(date +%s.%N)
    wrk_until_done "$T/wrk/fwdfill" /inbox
    t1=$(date +%s.%N)
    kv "$T/wrk/fwdfill.out" fwdfill
    R[fwd.fill_rps]=$(get fwdfill.rps)
    R[fwd.events]=$(inbox_count sqlite3 "$db")
    help=$("$BUILD/wirehook" forward --help 2>&1)
    case $help in
        *--drain*) flag=--drain ;;
        *--once*) flag=--once ;;
    esac
    [ -n "$flag" ] || note "forward: no --drain/--once in its --help: run until every event arrived, then stopped"
    httpd_stop
    # Two inboxes from the one filled: the events as sent, all of one
    # payment (bench_gen's sample), which the order per payment forwards
    # one at a time; and the same events spread over 5,000 payments (the
    # paymentId columns the forwarder orders by), as a bank's traffic is.
    sqlite3 "$db" ".backup $T/data/fwd-one.db" || { note "forward: cannot copy the inbox"; return 1; }
    sqlite3 "$db" ".backup $T/data/fwd-many.db" || { note "forward: cannot copy the inbox"; return 1; }
    sqlite3 "$T/data/fwd-many.db" "UPDATE wh_events SET payment_id = printf('WP-B-%05d', id % 5000);
        UPDATE wh_order SET payment_id = printf('WP-B-%05d', event_id % 5000);" \
        || { note "forward: cannot spread the events over payments"; return 1; }
    httpd_start || return 1
    fwd_drain many "$T/data/fwd-many.db" "$host" "$fsecret" "$flag"
    fwd_drain one "$T/data/fwd-one.db" "$host" "$fsecret" "$flag"
    httpd_stop
    rm -f "$db"*
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
    local user stored
    # the bound: the least a verifying, storing CGI does (bench/floor_cgi.c),
    # interleaved with wirehook.cgi (bcrypt hash, cached in the inbox) in
    # $CGI_ROUNDS rounds; medians, and p99 / p50 of each wirehook.cgi round
    local u="http://127.0.0.1:$PORT" h="127.0.0.1:$PORT" r
    probe "wirehook.cgi" "$u/cgi/wirehook" "$h" /cgi/wirehook bank || { httpd_stop; return 1; }
    R[cgi_floor.est]=$(get cgimin.rps); R[cgi_bank.est]=$(get cgimin.rps); R[cgi_shabank.est]=$(get cgimin.rps)
    for r in $(seq 1 "$CGI_ROUNDS"); do
        one_run cgi_floor "$r" "$u/cgi/floor" "$h" /cgi/floor bank || { httpd_stop; return 1; }
        one_run cgi_bank "$r" "$u/cgi/wirehook" "$h" /cgi/wirehook bank || { httpd_stop; return 1; }
    done
    summarize cgi_floor; summarize cgi_bank
    one_run cgi_shabank 1 "$u/cgi/wirehook" "$h" /cgi/wirehook shabank || { httpd_stop; return 1; }
    kv "$T/cgi_shabank1.kv" cgi_shabank
    R[cgi_shabank.ok]=$(( $(get cgi_shabank.requests) - $(get cgi_shabank.non2xx) ))
    for user in floor bank; do
        R[cgi_$user.p99_ms]=$(get "cgi_$user.p99"); R[cgi_$user.p50_ms]=$(get "cgi_$user.p50")
    done
    [ "$(get cgi_bank.ok)" -gt 0 ] 2>/dev/null || tail -n 3 "$T/logs/error.log" >&2
    httpd_stop
    if command -v sqlite3 >/dev/null 2>&1 && [ -f "$db" ]; then
        stored=$(sqlite3 "$db" 'SELECT count(*) FROM wh_events' 2>/dev/null)
        R[cgi.stored]=$stored
        R[cgi.acked]=$(( $(get cgi_bank.ok) + $(get cgi_shabank.ok) + 1 ))
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

# ------------------------------------------------------------ 4b. fcgid ---
# wirehook.cgi under mod_fcgid, as shared hosts run it: suEXEC (a
# throwaway account owning the program under /var/www and its
# ~/.wirehook, SuexecUserGroup) when run as root with the wrapper, else
# as the httpd user (noted); vs the PHP receiver storing each
# notification into SQLite under mod_php (prefork), interleaved rounds.
FX_ACCT=""
fx_account_remove() {
    [ -n "$FX_ACCT" ] || return 0
    userdel -r "$FX_ACCT" >/dev/null 2>&1
    rm -rf "/var/www/$FX_ACCT" "/home/$FX_ACCT"
    FX_ACCT=""
}
section_fcgid() {
    [ -x "$BUILD/wirehook.cgi" ] || { note "fcgid: $BUILD/wirehook.cgi not built"; return 0; }
    [ -f "$MODDIR/mod_fcgid.so" ] || { note "fcgid: skipped, mod_fcgid missing (apt-get install libapache2-mod-fcgid)"; return 0; }
    local phpmod extdir
    phpmod=$(ls "$MODDIR"/libphp*.so 2>/dev/null | sort -V | tail -n 1)
    extdir=$(php -r 'echo ini_get("extension_dir");' 2>/dev/null)
    [ -n "$phpmod" ] && [ -f "$extdir/pdo_sqlite.so" ] || {
        note "fcgid: skipped, mod_php or pdo_sqlite missing (apt-get install libapache2-mod-php php-sqlite3)"; return 0; }
    log "fcgid: wirehook.cgi under mod_fcgid vs the PHP receiver storing into SQLite, $ROUNDS x ${SECONDS_RUN}s at concurrency $WRK_CONN"
    # the program and its configuration: the account's under suEXEC
    local dir="$T/fcgi" conf db sx="" suexec=/usr/lib/apache2/suexec
    if [ "$(id -u)" -eq 0 ] && [ -u "$(readlink -f "$suexec" 2>/dev/null)" ] && [ -f "$MODDIR/mod_suexec.so" ] \
        && command -v useradd >/dev/null; then
        FX_ACCT="whbx$(printf '%05d' $((RANDOM % 100000)))"
        if useradd -m -d "/home/$FX_ACCT" -s /usr/sbin/nologin -U "$FX_ACCT" 2>/dev/null; then
            dir="/var/www/$FX_ACCT"
            install -d -o "$FX_ACCT" -g "$FX_ACCT" -m 755 "$dir"
            install -d -o "$FX_ACCT" -g "$FX_ACCT" -m 700 "/home/$FX_ACCT/.wirehook"
            cp "$SECRETS" "$HTPASSWD" "/home/$FX_ACCT/.wirehook/"
            conf="/home/$FX_ACCT/.wirehook/wirehook.conf"
            db="/home/$FX_ACCT/.wirehook/inbox.db"
            printf 'SigningSecretFile signing.secret\nBasicAuthFile htpasswd\nInboxParams inbox.db\n' >"$conf"
            chown -R "$FX_ACCT:$FX_ACCT" "/home/$FX_ACCT/.wirehook"
            chmod 600 "/home/$FX_ACCT/.wirehook/"*
            install -o "$FX_ACCT" -g "$FX_ACCT" -m 755 "$BUILD/wirehook.cgi" "$dir/wirehook.cgi"
            sx="SuexecUserGroup $FX_ACCT $FX_ACCT"
        else
            FX_ACCT=""
        fi
    fi
    if [ -z "$sx" ]; then
        note "fcgid: without suEXEC (needs root, apache2-suexec-pristine, useradd): the CGI runs as the httpd user"
        mkdir -p "$dir"; chmod 755 "$dir"
        cp "$BUILD/wirehook.cgi" "$dir/"; chmod 755 "$dir/wirehook.cgi"
        conf="$T/etc/fcgid.conf"; db="$T/data/fcgid-inbox.db"
        write_wh_conf "$conf" "InboxParams $db"
        [ -n "$RUN_AS" ] && chown www-data "$conf"
    fi
    R[fcgid.suexec]=$([ -n "$sx" ] && echo 1 || echo 0)
    # the PHP receiver, storing
    local d="$T/phpstore" pdb="$T/data/php-store.db"
    mkdir -p "$d"; chmod 755 "$d"
    cp "$here/receivers/receiver.php" "$d/"
    sed "s#@PHPDIR@#$d#g" "$here/receivers/php.ini" >"$d/php.ini"
    printf "<?php\nreturn ['secrets' => ['%s'], 'htpasswd' => '%s', 'sqlite' => '%s'];\n" \
        "$BENCH_SECRET" "$HTPASSWD" "$pdb" >"$d/config.php"
    sqlite3 "$pdb" 'PRAGMA journal_mode=WAL; CREATE TABLE events (id TEXT PRIMARY KEY, received INTEGER, body TEXT);' >/dev/null
    chmod 644 "$d/receiver.php" "$d/php.ini"; chmod 600 "$d/config.php"
    [ -n "$RUN_AS" ] && chown www-data "$d/config.php" "$pdb"
    PORT=$(free_port) || return 1
    httpd_conf phpstore "alias" "$(sed -e "s#@PHPDIR@#$d#g" -e "s#@PHPMOD@#$phpmod#g" "$here/receivers/php-receiver.conf")" prefork
    HTTPD_ENV="PHP_INI_SCAN_DIR="
    httpd_start || { HTTPD_ENV=""; fx_account_remove; return 1; }
    HTTPD_ENV=""
    local phost="127.0.0.1:$PORT" pu="http://127.0.0.1:$PORT/php/wires"
    for _ in $(seq 1 100); do [ "$(httpd_children | wc -l)" -ge 32 ] && break; sleep 0.1; done
    # mod_fcgid: up to 16 processes (one per connection), spawned without
    # delay, never recycled during the runs
    PORT=$(free_port) || return 1
    httpd_conf fcgid "fcgid suexec alias" "FcgidIPCDir $T/run/fcgid
FcgidProcessTableFile $T/run/fcgid_shm
FcgidMaxProcessesPerClass $WRK_CONN
FcgidMaxProcesses 64
FcgidSpawnScoreUpLimit 1000
FcgidSpawnScore 1
FcgidMaxRequestsPerProcess 0
FcgidIdleTimeout 600
FcgidProcessLifeTime 3600
<VirtualHost *:$PORT>
    ServerName 127.0.0.1
    DocumentRoot $dir
    $sx
    Alias /fcgi/wires $dir/wirehook.cgi
    <Directory $dir>
        Options +ExecCGI
        SetHandler fcgid-script
        CGIPassAuth On
        $([ -z "$sx" ] && echo "SetEnv WIREHOOK_CONFIG $conf")
        Require all granted
    </Directory>
</VirtualHost>"
    httpd_start || { use_httpd phpstore; httpd_stop; fx_account_remove; return 1; }
    local fhost="127.0.0.1:$PORT" fu="http://127.0.0.1:$PORT/fcgi/wires" ok=1 r
    use_httpd fcgid; probe "wirehook.cgi under mod_fcgid" "$fu" "$fhost" /fcgi/wires bank || ok=0
    use_httpd phpstore; [ "$ok" = 1 ] && { probe "PHP receiver storing" "$pu" "$phost" /php/wires bank || ok=0; }
    if [ "$ok" = 1 ]; then
        # warm: every process spawned, every auth cache filled
        use_httpd fcgid; one_run fcgid_cgi warm "$fu" "$fhost" /fcgi/wires bank || ok=0
        use_httpd phpstore; one_run fcgid_php warm "$pu" "$phost" /php/wires bank || ok=0
        for r in $(seq 1 "$ROUNDS"); do
            [ "$ok" = 1 ] || break
            use_httpd fcgid; one_run fcgid_cgi "$r" "$fu" "$fhost" /fcgi/wires bank || ok=0
            use_httpd phpstore; CPU_PIDS=$(httpd_children | tr '\n' ' ') one_run fcgid_php "$r" "$pu" "$phost" /php/wires bank || ok=0
        done
    fi
    use_httpd fcgid
    R[fcgid.processes]=$(grep -c . <(ps -o pid= -u "${FX_ACCT:-www-data}" 2>/dev/null) || true)
    httpd_stop
    use_httpd phpstore; httpd_stop
    if command -v sqlite3 >/dev/null 2>&1 && [ -f "$db" ]; then
        R[fcgid.stored]=$(sqlite3 "$db" 'SELECT count(*) FROM wh_events' 2>/dev/null)
    fi
    fx_account_remove
    [ "$ok" = 1 ] || return 1
    summarize fcgid_cgi; summarize fcgid_php
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
    R[mem.before_kib]=$(rss_kib "$child"); R[mem.anon_before_kib]=$(anon_kib "$child")
    gen "$T/wrk/mem" /v1/sink "$MEM_REQUESTS" bank
    wrk_until_done "$T/wrk/mem" /v1/sink
    kv "$T/wrk/mem.out" memrun
    sleep 1
    R[mem.after_kib]=$(rss_kib "$child"); R[mem.anon_after_kib]=$(anon_kib "$child")
    [ "$(httpd_child)" = "$child" ] || note "memory: the httpd child was replaced during the run"
    R[mem.requests]=$(get memrun.signed_sent)
    httpd_stop
}

# ------------------------------------------------------------ console ---
# An inbox of CONSOLE_EVENTS events in wirehook's own schema (made by
# `wirehook inbox`, filled in one SQLite transaction as the store and the
# forwarder leave it): 5 events a payment, four statuses, arrivals over
# the last day; 1% dead letters, 1% retrying, the last 100 not yet
# queued; every attempt counted by the minute; 20 quarantined bodies.
console_fill() {
    local db=$1 n=$CONSOLE_EVENTS now
    now=$(date +%s%6N)
    sqlite3 "$db" >/dev/null <<EOF || return 1
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $n),
t(b) AS (SELECT CAST(readfile('$SAMPLE') AS TEXT))
INSERT INTO wh_events (id, notification_id, event_type, event_time, payment_id, status, event_instant, received_at, body)
SELECT i, printf('%08x-0000-4000-8000-%012x', i, i), 'wire.status', '2026-11-22T14:05:09Z',
       printf('P-%06d', i % ($n / 5)), CASE i % 4 WHEN 0 THEN 'Review' WHEN 1 THEN 'Send Ready' WHEN 2 THEN 'Complete' ELSE 'Exception' END,
       1795356309000000 + i, $now - ($n - i) * 800000,
       replace(replace(b, '8cefee42-cb39-4479-b7fd-b8a358aeb002', printf('%08x-0000-4000-8000-%012x', i, i)),
               'WP-2026-000481', printf('P-%06d', i % ($n / 5)))
FROM c, t;
INSERT INTO wh_order (seq, event_id, payment_id, status, received_at) SELECT id, id, payment_id, status, received_at FROM wh_events;
INSERT INTO wh_payments (payment_id, status, event_instant, event_time, event_id, notification_id, events, updated_at)
SELECT e.payment_id, e.status, e.event_instant, e.event_time, e.id, e.notification_id, g.n, e.received_at
FROM (SELECT payment_id, max(id) AS last, count(*) AS n FROM wh_events GROUP BY payment_id) g
JOIN wh_events e ON e.id = g.last;
INSERT INTO wh_payment_refs (ref, kind, payment_id) SELECT 'IMAD-' || payment_id, 2, payment_id FROM wh_payments;
INSERT INTO wh_payment_refs (ref, kind, payment_id) SELECT 'E2E-' || payment_id, 1, payment_id FROM wh_payments;
INSERT INTO wh_delivery (event_id, seq, payment_id, state, attempts, next_at, first_at, received_at, done_at, http_status, answer, reason)
SELECT id, id, payment_id,
       CASE WHEN id % 100 = 0 THEN 4 WHEN id % 97 = 0 THEN 1 ELSE 3 END,
       CASE WHEN id % 97 = 0 THEN 2 ELSE 1 END,
       CASE WHEN id % 97 = 0 AND id % 100 != 0 THEN $now + 60000000 ELSE 0 END,
       received_at, received_at,
       CASE WHEN id % 97 = 0 AND id % 100 != 0 THEN NULL ELSE received_at + 50000 END,
       CASE WHEN id % 100 = 0 THEN 400 WHEN id % 97 = 0 THEN 503 ELSE NULL END,
       CASE WHEN id % 100 = 0 THEN 'HTTP 400: no' WHEN id % 97 = 0 THEN 'HTTP 503' ELSE NULL END,
       CASE WHEN id % 100 = 0 THEN 'rejected by the application' ELSE NULL END
FROM wh_events WHERE id <= $n - 100;
UPDATE wh_forward_cursor SET last_seq = $n - 100 WHERE id = 1;
INSERT INTO wh_attempts (event_id, attempt, started_at, duration_ms, http_status, answer, outcome)
SELECT event_id, 1, received_at, 5, coalesce(http_status, 200), answer, CASE state WHEN 1 THEN 1 ELSE state END FROM wh_delivery;
INSERT INTO wh_attempt_minutes (minute, outcome, n)
SELECT started_at / 60000000, outcome, count(*) FROM wh_attempts GROUP BY 1, 2;
INSERT INTO wh_forwarders (owner, started_at, seen_at) VALUES ('bench:1:000000', $now - 86400000000, $now);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20)
INSERT INTO wh_quarantine (id, received_at, code, message, details, notification_id, body)
SELECT i, $now - i * 1000000, 'schema_violation', 'the notification does not match the schema',
       '[{"field":"/data/wireEventInfo/status","problem":"is not one of the statuses"}]', NULL,
       CAST('{"notificationId":"x"}' AS BLOB) FROM c;
UPDATE wh_counter SET last_value = 20 WHERE id = 2;
COMMIT;
EOF
}

# console_ms PATH -> the median of 11 requests, in ms (after one to warm);
# nothing, and a note, when the page does not answer 200 (find: 303)
console_ms() {
    local k v="" code
    code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT$1")
    case "$code" in
        200 | 303) ;;
        *) note "console: $1 answered $code"; return 1 ;;
    esac
    for k in $(seq 1 11); do
        v="$v $(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$PORT$1" | awk '{ printf "%.2f", $1 * 1000 }')"
    done
    printf '%s\n' "$v" | median
}

section_console() {
    [ -f "$BUILD/mod_wirehook.so" ] || { note "console: module not built"; return 0; }
    need_tools sqlite3 curl || return 0
    log "console: every page and find over $CONSOLE_EVENTS events"
    local db="$T/data/console.db" conf="$T/etc/console.conf" t0 p path name ms all="" worst=0 worst_at=""
    local mid=$((CONSOLE_EVENTS / 2)) pay nid
    pay=$(printf 'P-%06d' 42)
    nid=$(printf '%08x-0000-4000-8000-%012x' "$mid" "$mid")
    write_wh_conf "$conf" "InboxParams $db"
    "$BUILD/wirehook" inbox --config "$conf" dead count >/dev/null || { note "console: no inbox"; return 1; }
    t0=$(date +%s.%N)
    console_fill "$db" || { note "console: the inbox could not be filled"; return 1; }
    R[console.fill_seconds]=$(calc "$(date +%s.%N) - $t0" 1)
    # httpd's User reads and writes it (and makes its -wal beside it)
    [ -n "$RUN_AS" ] && chown www-data "$db"*
    PORT=$(free_port)
    httpd_conf console "" "<Location /console>
    SetHandler wirehook-console
    WirehookConfig $conf
    Require all granted
    WirehookConsole public
</Location>"
    httpd_start || return 1
    local pages=(
        "overview|/console/"
        "events|/console/events"
        "events, an older page|/console/events?before=$mid"
        "events, a status|/console/events?status=complete"
        "events, a payment|/console/events?paymentId=$pay"
        "events, dead|/console/events?state=dead"
        "events, retrying|/console/events?state=retrying"
        "events, not forwarded yet|/console/events?state=notyet"
        "events, forwarded, an older page|/console/events?state=forwarded&before=$mid"
        "events, an hour's window|/console/events?from=$(date -u -d '-6 hours' '+%Y-%m-%d+%H:%M')&to=$(date -u -d '-5 hours' '+%Y-%m-%d+%H:%M')"
        "an event|/console/events/$mid"
        "an event by notificationId|/console/events/$nid"
        "payments|/console/payments"
        "payments, a status|/console/payments?status=exception"
        "a payment|/console/payments/$pay"
        "dead letters|/console/dead"
        "dead letters, a filter|/console/dead?http=400&reason=rejected+by+the+application"
        "retry all matching: the count|/console/dead/retry?http=400"
        "quarantine|/console/quarantine"
        "find a notificationId|/console/find?q=$nid"
        "find an IMAD|/console/find?q=IMAD-$pay"
        "find a paymentId|/console/find?q=$pay"
        "API: a page of events|/console/api/events?limit=50"
    )
    R[console.asset_ms]=$(console_ms /console/assets/console.css)
    for p in "${pages[@]}"; do
        name=${p%%|*}; path=${p#*|}
        ms=$(console_ms "$path") || { httpd_stop; return 1; }
        all="$all; $name $ms ms"
        if awk -v a="$ms" -v b="$worst" 'BEGIN { exit !(a > b) }'; then worst=$ms; worst_at=$name; fi
    done
    R[console.worst_ms]=$worst
    R[console.worst_page]=$worst_at
    R[console.all]=${all#; }
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
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
for s in $SECTIONS; do
    case $s in
        core | inbox | module | pg | php | node | cgi | fcgid | memory | forward | console) "section_$s" || note "section $s failed (see above)" ;;
        inbox-http) section_inbox_http || note "section $s failed (see above)" ;;
        pg-pairs) section_pg_pairs || note "section $s failed (see above)" ;;
        mysql) section_mysql || note "section $s failed (see above)" ;;
        mysql-pairs) section_mysql_pairs || note "section $s failed (see above)" ;;
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
# The module ÷ module floor goal, for every replay store: the module parses
# no tree, so it should not be slower than a handler that does.
FLOOR_GOAL=1.0
# store_row KEY LABEL: the module with another replay store (module.KEY_*)
# against the module floor of the same run; nothing when it did not run
store_row() {
    local rps cpu r_
    rps=$(get "module.$1_rps"); cpu=$(get "module.$1_cpu")
    [ -n "$rps" ] || return 0
    r_=$(ratio "$rps" "$(get module.floor_rps)")
    row "Module with $2 ÷ module floor" "$(fmt "$rps" req/s), $cpu µs httpd CPU" \
        "$(fmt "$(get module.floor_rps)" req/s) (floor)" "$r_" "≥ $FLOOR_GOAL" "$(verdict "$r_" ">=" "$FLOOR_GOAL")"
}

if has core && [ -n "$(get core.floor_ops_per_sec)" ]; then
    c=$(get core.core_cached_ops_per_sec); f=$(get core.floor_ops_per_sec)
    rc=$(awk -v r="$(get core.core_floor_ratio)" 'BEGIN { printf "%.2f", r }')
    row "Core: verify+validate, Basic auth cached (1 thread)" "$(fmt "$c" req/s)" \
        "$(fmt "$f" req/s) (HMAC-SHA256 + one json-c parse)" "$rc" "≥ 2.0" "$(verdict "$rc" ">=" 2.0)"
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
    if [ -n "$(get inboxt16.appends_per_sec)" ]; then
        at=$(get inboxt16.appends_per_sec)
        row "Inbox: durable appends, 16 threads of one process through the group commit" \
            "$(fmt "$at" /s), $(get inboxt16.cpu_us_per_append) µs CPU each, $(get inboxt16.commits) commits" \
            "$(fmt "$a1" "/s (1 writer)")" "$(ratio "$at" "$a1")" "—" "info"
    fi
    if [ -n "$(get page1.page_ms)" ]; then
        rp=$(ratio "$(get page1.page_ms)" "$(get page0.page_ms)")
        row "Inbox: page of 25 at offset $INBOX_RECORDS ($((INBOX_RECORDS + 100)) records)" \
            "$(get page1.page_ms) ms" "$(get page0.page_ms) ms at offset 0" "$rp" "≤ 1.5" "$(verdict "$rp" "<=" 1.5)"
    fi
    if [ -n "$(get purge.during_p99_ms)" ]; then
        rq=$(ratio "$(get purge.during_p99_ms)" "$(get purge.base_p99_ms)")
        row "Inbox: store p99 during a purge of $(get purge.purged_events) events ($(get purge.purge_seconds) s, $(get purge.purge_transactions) transactions, $(get purge.during_stores) stores meanwhile)" \
            "$(get purge.during_p99_ms) ms (p50 $(get purge.during_p50_ms) ms)" "$(get purge.base_p99_ms) ms without a purge (p50 $(get purge.base_p50_ms) ms)" "$rq" "≤ 2" "$(verdict "$rq" "<=" 2)"
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
        row "Module floor: handler doing only HMAC-SHA256 + one json-c parse, per-thread tokener, C locale (no module)" \
            "$(fmt "$(get module.floor_rps)" req/s), p99 $(get module.floor_p99) ms" \
            "$(fmt "$(get module.base_rps)" req/s) (handler alone)" "$rf_" "—" \
            "the most any verifier on OpenSSL + json-c reaches on this machine"
        rmf_=$(ratio "$(get module.mod_rps)" "$(get module.floor_rps)")
        row "Module ÷ module floor" "$(fmt "$(get module.mod_rps)" req/s)" \
            "$(fmt "$(get module.floor_rps)" req/s) (floor)" "$rmf_" "≥ $FLOOR_GOAL" \
            "$(verdict "$rmf_" ">=" "$FLOOR_GOAL") — the default ReplayCache lmdb: one LMDB write transaction per new id (memory writes, no sync: kept across restarts and killed processes); the floor keeps nothing"
        store_row shm "ReplayCache shmcb (memory: not kept across a full restart)"
        store_row ram "ReplayCache dbm on disk (mod_socache_dbm: open, write, two fdatasync calls and close per new id)"
        [ -n "$(get module.floor_cpu)" ] && row "Module floor: httpd CPU per request" \
            "$(get module.floor_cpu) µs" "$(get module.base_cpu) µs" \
            "$(ratio "$(get module.floor_cpu)" "$(get module.base_cpu)")" "—" "info"
    fi
fi
if has inbox-http && [ -n "$(get ih_inbox.rps)" ]; then
    ri_=$(ratio "$(get ih_inbox.rps)" "$(get ih_sink.rps)")
    row "Module inbox: SetHandler wirehook storing to SQLite (fsync per event) at concurrency $WRK_CONN (median of $ROUNDS × ${SECONDS_RUN}s)" \
        "$(fmt "$(get ih_inbox.rps)" req/s), p99 $(get ih_inbox.p99) ms" \
        "$(fmt "$(get ih_sink.rps)" req/s) (/v1/sink: module in front of mod_benchok), p99 $(get ih_sink.p99) ms" \
        "$ri_" "≥ 0.5" "$(verdict "$ri_" ">=" 0.5)"
    [ -n "$(get ih_inbox.cpu)" ] && row "Module inbox: httpd CPU per request" "$(get ih_inbox.cpu) µs" \
        "$(get ih_sink.cpu) µs (/v1/sink)" "$(ratio "$(get ih_inbox.cpu)" "$(get ih_sink.cpu)")" "—" "info"
    if [ -n "$(get ih.stored)" ]; then
        row "Module inbox: events in the database after the runs" "$(get ih.stored)" "$(get ih.acked) 200s counted by wrk" "—" "≥ the 200s" \
            "$(verdict "$(get ih.stored)" ">=" "$(get ih.acked)")"
    fi
fi
if has pg && [ -n "$(get pg16.rps)" ]; then
    rp_=$(ratio "$(get pg16.rps)" "$(get pg1.rps)")
    row "Module inbox on PostgreSQL $(get pg.version): req/s at concurrency $WRK_CONN (median of $ROUNDS × ${SECONDS_RUN}s)" \
        "$(fmt "$(get pg16.rps)" req/s), p99 $(get pg16.p99) ms" \
        "$(fmt "$(get pg1.rps)" req/s) at concurrency 1, p99 $(get pg1.p99) ms" \
        "$rp_" "≥ 4" "$(verdict "$rp_" ">=" 4)"
    [ -n "$(get pg16.cpu)" ] && row "Module inbox on PostgreSQL: httpd CPU per request, c$WRK_CONN vs c1" "$(get pg16.cpu) µs" \
        "$(get pg1.cpu) µs" "$(ratio "$(get pg16.cpu)" "$(get pg1.cpu)")" "—" "info"
    if [ -n "$(get pg.stored)" ]; then
        row "Module inbox on PostgreSQL: events in the database after the runs" "$(get pg.stored)" "$(get pg.acked) 200s counted by wrk" "—" "≥ the 200s" \
            "$(verdict "$(get pg.stored)" ">=" "$(get pg.acked)")"
    fi
fi
if has pg-pairs && [ -n "$(get pp2.rps)" ]; then
    rpp_=$(ratio "$(get pp2.rps)" "$(get pp1.rps)")
    row "Module inbox on PostgreSQL, two servers storing the same copies at once (each copy to both, concurrency $WRK_CONN on each; median of $ROUNDS × ${SECONDS_RUN}s): events stored/s" \
        "$(fmt "$(get pp2.rps)" events/s), $(get pp.deadlocks) deadlocks logged" \
        "$(fmt "$(get pp1.rps)" events/s) (one server storing each once, concurrency $WRK_CONN)" \
        "$rpp_" "≥ 0.5" "$(verdict "$rpp_" ">=" 0.5)"
fi
if has mysql && [ -n "$(get my16.rps)" ]; then
    rm16_=$(ratio "$(get my16.rps)" "$(get my1.rps)")
    row "Module inbox on MariaDB $(get my.version): req/s at concurrency $WRK_CONN (median of $ROUNDS × ${SECONDS_RUN}s)" \
        "$(fmt "$(get my16.rps)" req/s), p99 $(get my16.p99) ms" \
        "$(fmt "$(get my1.rps)" req/s) at concurrency 1, p99 $(get my1.p99) ms" \
        "$rm16_" "≥ 4" "$(verdict "$rm16_" ">=" 4)"
    if [ -n "$(get pg16.rps)" ]; then
        rmp_=$(ratio "$(get my16.rps)" "$(get pg16.rps)")
        row "Module inbox on MariaDB ÷ on PostgreSQL, both at concurrency $WRK_CONN" \
            "$(fmt "$(get my16.rps)" req/s) (MariaDB $(get my.version))" \
            "$(fmt "$(get pg16.rps)" req/s) (PostgreSQL $(get pg.version))" \
            "$rmp_" "≥ 0.8" "$(verdict "$rmp_" ">=" 0.8)"
    fi
    [ -n "$(get my16.cpu)" ] && row "Module inbox on MariaDB: httpd CPU per request, c$WRK_CONN vs c1" "$(get my16.cpu) µs" \
        "$(get my1.cpu) µs" "$(ratio "$(get my16.cpu)" "$(get my1.cpu)")" "—" "info"
    if [ -n "$(get my.stored)" ]; then
        row "Module inbox on MariaDB: events in the database after the runs" "$(get my.stored)" "$(get my.acked) 200s counted by wrk" "—" "≥ the 200s" \
            "$(verdict "$(get my.stored)" ">=" "$(get my.acked)")"
    fi
fi
if has mysql-pairs && [ -n "$(get mp2.rps)" ]; then
    rmpp_=$(ratio "$(get mp2.rps)" "$(get mp1.rps)")
    v_=$(verdict "$rmpp_" ">=" 0.5)
    [ "$(get mp.deadlocks)" = 0 ] || v_="**not met**: deadlocks logged"
    row "Module inbox on MariaDB, two servers storing the same copies at once (each copy to both, concurrency $WRK_CONN on each; median of $ROUNDS × ${SECONDS_RUN}s): events stored/s" \
        "$(fmt "$(get mp2.rps)" events/s), $(get mp.deadlocks) deadlocks logged" \
        "$(fmt "$(get mp1.rps)" events/s) (one server storing each once, concurrency $WRK_CONN)" \
        "$rmpp_" "≥ 0.5, no deadlock" "$v_"
fi
if has php && [ -n "$(get php_php.rps)" ]; then
    rphp_=$(ratio "$(get php_mod.rps)" "$(get php_php.rps)")
    row "PHP $(get php.version) receiver (mod_php, prefork × 32, opcache, APCu) at concurrency $WRK_CONN" \
        "$(fmt "$(get php_php.rps)" req/s), p99 $(get php_php.p99) ms" "—" "—" "—" "info"
    row "Module ÷ PHP receiver (median of $ROUNDS × ${SECONDS_RUN}s, interleaved)" \
        "$(fmt "$(get php_mod.rps)" req/s) (/v1/sink), p99 $(get php_mod.p99) ms" \
        "$(fmt "$(get php_php.rps)" req/s) (PHP), p99 $(get php_php.p99) ms" "$rphp_" "≥ 1.4" "$(verdict "$rphp_" ">=" 1.4)"
    [ -n "$(get php_php.cpu)" ] && [ -n "$(get php_mod.cpu)" ] && row "PHP receiver: server CPU per request (all prefork children)" \
        "$(get php_php.cpu) µs" "$(get php_mod.cpu) µs (module, httpd child)" "$(ratio "$(get php_php.cpu)" "$(get php_mod.cpu)")" "—" "info"
fi
if has node && [ -n "$(get node_proxy.rps)" ]; then
    rnode_=$(ratio "$(get node_mod.rps)" "$(get node_proxy.rps)")
    row "Node $(get node.version) receiver (node:http + crypto + ajv) behind httpd (mod_proxy_http, keep-alive) at concurrency $WRK_CONN" \
        "$(fmt "$(get node_proxy.rps)" req/s), p99 $(get node_proxy.p99) ms" "—" "—" "—" "info"
    row "Module ÷ Node receiver behind httpd (median of $ROUNDS × ${SECONDS_RUN}s, interleaved)" \
        "$(fmt "$(get node_mod.rps)" req/s) (/v1/sink), p99 $(get node_mod.p99) ms" \
        "$(fmt "$(get node_proxy.rps)" req/s) (Node via httpd), p99 $(get node_proxy.p99) ms" "$rnode_" "≥ 2.5" "$(verdict "$rnode_" ">=" 2.5)"
    row "Node receiver alone (wrk straight at node, one process), for context" \
        "$(fmt "$(get node_alone.rps)" req/s), p99 $(get node_alone.p99) ms" \
        "$(fmt "$(get node_proxy.rps)" req/s) (behind httpd)" "$(ratio "$(get node_alone.rps)" "$(get node_proxy.rps)")" "—" "info"
    ralone_=$(ratio "$(get node_mod.rps)" "$(get node_alone.rps)")
    row "Module ÷ Node receiver alone (median of $ROUNDS × ${SECONDS_RUN}s, interleaved)" \
        "$(fmt "$(get node_mod.rps)" req/s) (/v1/sink), p99 $(get node_mod.p99) ms" \
        "$(fmt "$(get node_alone.rps)" req/s) (Node alone), p99 $(get node_alone.p99) ms" "$ralone_" "≥ 1.2" "$(verdict "$ralone_" ">=" 1.2)"
    [ -n "$(get node_proxy.cpu)" ] && [ -n "$(get node_mod.cpu)" ] && row "Node receiver: CPU per request, httpd child + node (alone: node)" \
        "$(get node_proxy.cpu) µs (alone $(get node_alone.cpu) µs)" "$(get node_mod.cpu) µs (module, httpd child)" \
        "$(ratio "$(get node_proxy.cpu)" "$(get node_mod.cpu)")" "—" "info"
fi
if has forward; then
    if [ -n "$(get fwd.many.rps)" ]; then
        intake=$(get ih_inbox.rps); src="module inbox intake, inbox-http row"
        [ -n "$intake" ] || { intake=$(get fwd.fill_rps); src="module inbox intake while filling"; }
        rfw_=$(ratio "$(get fwd.many.rps)" "$intake")
        row "Forwarding: wirehook forward, $(get fwd.events) events of 5,000 payments to mod_benchok" \
            "$(fmt "$(get fwd.many.rps)" events/s) ($(get fwd.many.delivered) in $(get fwd.many.seconds) s)" \
            "$(fmt "$intake" req/s) ($src)" "$rfw_" "≥ 0.8" "$(verdict "$rfw_" ">=" 0.8)"
        [ -n "$(get fwd.one.rps)" ] && row "Forwarding: the same $(get fwd.events) events all of one payment (forwarded one at a time, in order)" \
            "$(fmt "$(get fwd.one.rps)" events/s) ($(get fwd.one.delivered) in $(get fwd.one.seconds) s)" \
            "$(fmt "$intake" req/s) ($src)" "$(ratio "$(get fwd.one.rps)" "$intake")" "—" \
            "info: each event waits for the previous one's answer (order per payment)"
    else
        row "Forwarding: wirehook forward throughput ÷ module inbox intake" "—" "—" "—" "≥ 0.8" \
            "skipped (section forward; see the notes)"
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
        if [ -n "$(get cgi_bank.rps)" ]; then
            rcb_=$(ratio "$(get cgi_bank.rps)" "$(get cgi_floor.rps)")
            row "CGI: wirehook.cgi storing (bcrypt) ÷ CGI floor at concurrency $WRK_CONN (median of $CGI_ROUNDS × ${SECONDS_RUN}s, interleaved)" \
                "$(fmt "$(get cgi_bank.rps)" req/s)" "$(fmt "$(get cgi_floor.rps)" req/s) (floor.cgi)" "$rcb_" "≥ 1.0" "$(verdict "$rcb_" ">=" 1.0)"
        fi
    fi
    if [ -n "$(get cgi_bank.tail)" ]; then
        row "CGI: wirehook.cgi storing at concurrency $WRK_CONN, p99 ÷ p50 (median of the rounds' ratios)" \
            "p99 $(get cgi_bank.p99) ms" "p50 $(get cgi_bank.p50) ms" "$(get cgi_bank.tail)" "≤ 2.5" \
            "$(verdict "$(get cgi_bank.tail)" "<=" 2.5); floor.cgi: $(get cgi_floor.tail)"
    fi
    row "CGI: process start (exec, 405 answer)" "$(get cgi.start_wh_ms) ms" "$(get cgi.start_min_ms) ms (min.cgi)" \
        "$(ratio "$(get cgi.start_wh_ms)" "$(get cgi.start_min_ms)")" "—" "info"
    if [ -n "$(get cgi.stored)" ]; then
        sent=$(get cgi.acked)
        v_=$(verdict "$(get cgi.stored)" ">=" "$sent")
        [ "$v_" = met ] && v_="met (requests in flight when wrk stops are stored too)"
        row "CGI: events in the inbox after the runs" "$(get cgi.stored)" "$sent 200s counted by wrk" "—" "≥ the 200s" "$v_"
    fi
fi
if has fcgid && [ -n "$(get fcgid_cgi.rps)" ]; then
    rfx_=$(ratio "$(get fcgid_cgi.rps)" "$(get fcgid_php.rps)")
    sxl_="with suEXEC"; [ "$(get fcgid.suexec)" = 1 ] || sxl_="without suEXEC (see the notes)"
    row "CGI under mod_fcgid $sxl_, storing (bcrypt) ÷ the PHP receiver storing into SQLite (mod_php) at concurrency $WRK_CONN (median of $ROUNDS × ${SECONDS_RUN}s, interleaved)" \
        "$(fmt "$(get fcgid_cgi.rps)" req/s), p50 $(get fcgid_cgi.p50) ms, p99 $(get fcgid_cgi.p99) ms" \
        "$(fmt "$(get fcgid_php.rps)" req/s), p50 $(get fcgid_php.p50) ms, p99 $(get fcgid_php.p99) ms" \
        "$rfx_" "≥ 2.0" "$(verdict "$rfx_" ">=" 2.0); $(get fcgid.stored) events stored, $(get fcgid.processes) FastCGI processes"
fi
if has memory && [ -n "$(get mem.after_kib)" ]; then
    g=$(( $(get mem.anon_after_kib) - $(get mem.anon_before_kib) ))
    row "Memory: httpd child private RSS (RssAnon) growth over $(get mem.requests) verified requests" "$g KiB" \
        "$(get mem.anon_before_kib) KiB before → $(get mem.anon_after_kib) KiB after" "—" "< 1024 KiB" "$(verdict "$g" "<=" 1023)"
    g=$(( $(get mem.after_kib) - $(get mem.before_kib) ))
    row "Memory: httpd child whole RSS growth (with file pages mapped in: the lmdb replay store's map)" "$g KiB" \
        "$(get mem.before_kib) KiB before → $(get mem.after_kib) KiB after" "—" "—" "info: the map fills as ids are recorded, bounded by its size"
fi
if has console && [ -n "$(get console.worst_ms)" ]; then
    row "Console: its slowest page or find over $CONSOLE_EVENTS events ($(get console.worst_page)), median of 11" \
        "$(get console.worst_ms) ms" "$(get console.asset_ms) ms (its stylesheet: the same handler, no inbox)" \
        "$(ratio "$(get console.worst_ms)" "$(get console.asset_ms)")" "< 20 ms" "$(verdict "$(get console.worst_ms)" "<=" 20)"
    NOTES+=("console, every page over $CONSOLE_EVENTS events (median ms): $(get console.all)")
fi
if has core && [ -n "$(get core.request_heap_bytes)" ]; then
    row "Memory: heap held by one verified request's pool (peak)" "$(get core.request_heap_bytes) B" "—" "—" "—" "info"
fi

MACHINE=$(machine_line)
note "bench run took $(( $(date +%s) - STARTED )) s; load average (1, 5, 15 min) $LOAD0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end on $(nproc) cores (the bench itself keeps about 2 busy: more means other work shared the machine, and the absolute rates suffer more than the ratios)"
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
