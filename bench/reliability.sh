#!/usr/bin/env bash
# `make soak`: the long fault run, the unit suites under valgrind and the
# fuzz regression re-run, then docs/reliability.md from their figures.
#
#   RELIABILITY_STEPS  "faults replay valgrind regress" (default all four)
#   RELIABILITY_DOC    docs/reliability.md ("-": print only)
# Fuzzing figures come from the last `make fuzz` in the same BUILD
# ($BUILD/fuzz/*.summary); the document says when there is none.
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cd "$top" || exit 1
abs() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$top/$1" ;; esac; }
BUILD_REL=${BUILD:-build}
BUILD=$(abs "$BUILD_REL")
SHARED_DIR=${WH_SHARED_DIR:-../shared}
STEPS=${RELIABILITY_STEPS:-faults replay valgrind regress}
REPLAY_FLOOD=${RELIABILITY_REPLAY_FLOOD:-120000}
DOC=${RELIABILITY_DOC:-docs/reliability.md}
FIG="$BUILD/reliability"
MAKE=${MAKE:-make}
mkdir -p "$FIG"
rc=0
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
log() { printf '[soak] %s\n' "$*" >&2; }

if has faults; then
    log "fault and abuse tests, soak mode"
    BUILD=$BUILD_REL WH_SHARED_DIR=$SHARED_DIR WH_SOAK=1 bash tests/integration/test_faults.sh \
        >"$FIG/faults-soak.log" 2>&1 || rc=1
    tail -n 3 "$FIG/faults-soak.log" >&2
fi
if has replay; then
    log "replay protection: $REPLAY_FLOOD notifications inside one ReplayWindow"
    BUILD=$BUILD_REL WH_SHARED_DIR=$SHARED_DIR WH_FLOOD=$REPLAY_FLOOD bash tests/integration/test_replay.sh \
        >"$FIG/replay-soak.log" 2>&1 || rc=1
    tail -n 3 "$FIG/replay-soak.log" >&2
fi
if has valgrind; then
    log "unit suites under valgrind"
    $MAKE --no-print-directory BUILD="$BUILD_REL" SHARED_DIR="$SHARED_DIR" valgrind \
        >"$FIG/valgrind.log" 2>&1 || rc=1
    tail -n 3 "$FIG/valgrind.log" >&2
fi
if has regress; then
    log "fuzz regression re-run"
    $MAKE --no-print-directory BUILD="$BUILD_REL" fuzz-regress >"$FIG/fuzz-regress.log" 2>&1 || rc=1
    tail -n 3 "$FIG/fuzz-regress.log" >&2
fi

# ------------------------------------------------------------ render ---
kvget() { [ -f "$1" ] && awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
or_dash() { if [ -n "$1" ]; then printf '%s' "$1"; else printf '—'; fi; }
C="$FIG/faults.kv"        # from the last `make check` (integration) run
S="$FIG/faults-soak.kv"   # from this soak run
frow() { printf '| %s | %s | %s |\n' "$1" "$(or_dash "$(kvget "$C" "$2")")" "$(or_dash "$(kvget "$S" "$2")")"; }

vg_errors=$(grep -o 'ERROR SUMMARY: [0-9,]* errors' "$FIG/valgrind.log" 2>/dev/null | tail -n 1 | grep -o '[0-9,]*' | head -n 1)
vg_def=$(grep -o 'definitely lost: [0-9,]* bytes' "$FIG/valgrind.log" 2>/dev/null | tail -n 1 | grep -o '[0-9,]*' | head -n 1)
vg_invalid=$(grep -c 'Invalid read' "$FIG/valgrind.log" 2>/dev/null)
# unit_tests: "   N asserts, N failed (S s)", then "N passed, N failed, N skipped"
vg_tests=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$FIG/valgrind.log" 2>/dev/null | tail -n 1 |
    awk '{ print $1 + $3 " run, " $1 " passed, " $3 " failed, " $5 " skipped" }')
vg_asserts=$(grep -E '^ +[0-9]+ asserts, [0-9]+ failed' "$FIG/valgrind.log" 2>/dev/null | tail -n 1 |
    awk '{ print $1 " run, " $3 " failed" }')

machine=$(printf '%s, %s cores, %s' "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" \
    "$(nproc)" "$(uname -sr)")

# Every route to a handler tried by tests/integration/test_bypass.sh in its
# last run (inside make check), over HTTP/1.1 and h2c, and the replay runs.
routes() {
    local R="$FIG/routes.tsv"
    cat <<EOF
## Routes to a handler

\`tests/integration/test_bypass.sh\` (in \`make check\`) tries every route
httpd can take to a handler whose final configuration names a
\`WirehookConfig\`: for each, forged requests (no credentials and no
signature, then a wrong signature) must never run the application, a valid
notification signed for that URL must reach it once, byte for byte, and a
notification already delivered through another route must be answered
\`duplicate\`. The same suite runs over HTTP/1.1 and over h2c (mod_http2,
\`Protocols h2c http/1.1\`), where it also checks every verdict code and a
body streamed without Content-Length. Rows are its last run.

EOF
    if [ ! -s "$R" ]; then
        echo "No run recorded in this build directory: run \`make check\` first."
        echo
        return
    fi
    echo "| protocol | route | path | sent | answer, and what the application saw |"
    echo "|---|---|---|---|---|"
    awk -F'\t' '{ printf "| %s | %s | `%s` | %s | %s |\n", $1, $2, $3, $4, $5 }' "$R"
    echo
    local rs="$FIG/replay-soak.log"
    cat <<EOF
Replay protection (\`tests/integration/test_replay.sh\`): with the default
store (ReplayCache lmdb) a notification delivered before $REPLAY_FLOOD others
inside one ReplayWindow, and across a full and a graceful restart, a kill -9
of httpd and a (simulated) reboot after a clean stop, is a duplicate; after
a crash and reboot the file is discarded and what it cannot judge is 503;
a fixed-size shmcb answers 503 rather than evict, and after each
start 503 for what it cannot judge; a store emptied while running answers
503. Last soak run: $( [ -f "$rs" ] && tail -n 1 "$rs" || echo "none" ).

EOF
    edges
}

# The edges of "delivered once" that make check exercises: a full disk,
# slow bodies, two servers on one PostgreSQL, a body far too large. Each suite leaves its last
# count line in $FIG/SUITE.last.
edges() {
    local s last
    cat <<EOF
## A full disk, slow bodies, two servers

- A full disk (\`tests/integration/test_full_disk.sh\`): the lmdb replay
  store, the module's inbox and two CGI inboxes (one that exists, one that
  does not yet) on a small loop-mounted ext4 file system filled to the last
  block while notifications arrive: no httpd child or CGI process dies,
  every answer is 200 (and that notification was delivered or stored) or
  the retryable 503, every refused one is accepted once space is freed,
  and the databases pass \`PRAGMA integrity_check\`; then the CGI makes its
  wal-index on a disk with 4 to 40 KiB left, 200 or 503 each time.
- A slow body (\`tests/integration/test_slow_body.sh\`): a copy whose last
  byte is held past the first copy's time in the replay store is refused,
  in front of an application, in the module's inbox and in the CGI; a
  record the store could make only after the tolerance is taken back
  (503) and the retry delivered once.
- Two servers on one PostgreSQL (\`tests/integration/test_inbox_pg_pairs.sh\`):
  every notification sent to both at the same moment is stored once, both
  list the same events in the same order, and neither error log shows
  \`deadlock detected\`.
- A body far over \`MaxBodySize\` (\`tests/integration/test_cgi_big_body.sh\`):
  wirehook.cgi under mod_cgid answers 413 each time, also past the 8 MiB
  it reads and drops after its answer, and no CGI process waits for an
  upload that stalls.

Last runs (make check):

EOF
    for s in test_full_disk test_slow_body test_inbox_pg_pairs test_cgi_big_body; do
        last=$(cat "$FIG/$s.last" 2>/dev/null)
        echo "    ${last:-$s.sh: no run recorded in this build directory}"
    done
    echo
}

render() {
    cat <<EOF
# Reliability

Generated by \`make soak\` (bench/reliability.sh) on $(date -u +%Y-%m-%d) — do not edit by hand.

**Machine:** $machine

## Fault and abuse tests

\`tests/integration/test_faults.sh\`: the \`make check\` column is its last
run inside \`make check\`, the soak column this run with \`WH_SOAK=1\` (the
case list five times, more slow clients, five kill -9 rounds per endpoint).
In each kill -9 round four writers send fresh signed notifications and retry
one that got no answer, as a sender does; the whole httpd is killed with
SIGKILL once some are acknowledged and started again half a second later;
then every notification that was answered 200 is looked up in the inbox
database.

| Figure | make check | make soak |
|---|---|---|
EOF
    frow "Malformed requests sent (module inbox + wirehook.cgi), each followed by a valid one" malformed_requests
    frow "Slow clients (one byte a second, headers or body)" slow_clients
    frow "… cut off by the server's read timeouts" slow_clients_cut
    frow "kill -9 of the whole httpd during signed load" crash_kills
    frow "Signed notifications sent by the load (4 writers per round)" crash_requests
    frow "… answered 200 (before the kill, or on a retry after the restart)" crash_acked
    frow "Tries that got no answer while httpd was down (retried every 50 ms)" crash_refused
    frow "Events answered 200 but missing from the inbox (lost)" crash_lost
    frow "Assertions passed" assertions_passed
    frow "Assertions failed" assertions_failed
    cat <<EOF

Malformed requests cover truncated bodies, Content-Length lies (longer,
shorter, not a number, negative, two values), chunked bodies over the limit,
with a bad size, cut short or with an oversized extension, header injection
(bare CR, bare LF, obs-fold, a folded signature), duplicate security headers,
10,000-character header values and URLs, 8,000-character signature,
timestamp and Authorization values, NUL bytes in headers and body, five kinds
of invalid UTF-8, a byte order mark, nesting of 33, 30,000 and 100,000
levels, huge numbers, NaN, \\u0000, control characters, duplicate members,
trailing bytes, an empty body and a top-level array. Each must get its
documented status and the module's JSON error code, or httpd's own answer
where httpd refuses the request before any module runs; after each, a valid
notification must be answered 200, and no httpd child may die.

EOF
    routes
    if [ -f "$FIG/faults-soak.log" ] && grep -q 'FAIL' "$FIG/faults-soak.log"; then
        echo "Failures of the soak run:"
        echo
        grep -A1 'FAIL' "$FIG/faults-soak.log" | sed 's/^ */    /' | head -n 40
        echo
    fi
    cat <<EOF
## Unit suites under valgrind

\`make valgrind\` (memcheck, \`--leak-check=full\`, definite leaks are errors).

| Figure | Value |
|---|---|
| Tests | $(or_dash "$vg_tests") |
| Assertions | $(or_dash "$vg_asserts") |
| Errors (ERROR SUMMARY) | $(or_dash "$vg_errors") |
| Invalid reads reported | $(or_dash "$vg_invalid") |
| Definitely lost | $(or_dash "${vg_def:+$vg_def bytes}") |

## Fuzzing

libFuzzer targets in tests/fuzz/ (clang, ASan + UBSan, leak detection), from
the last \`make fuzz\` in this build directory.

| Target | Result of the last run |
|---|---|
EOF
    local t any=""
    for t in config json parse verify pagination; do
        if [ -f "$BUILD/fuzz/$t.summary" ]; then
            any=1
            printf '| %s | %s |\n' "$t" "$(sed 's/^fuzz [a-z]*: //' "$BUILD/fuzz/$t.summary")"
        elif [ -d "$BUILD/fuzz/artifacts/$t" ] && ls "$BUILD/fuzz/artifacts/$t"/crash-* >/dev/null 2>&1; then
            any=1
            printf '| %s | **crashed**: %s |\n' "$t" "$(ls "$BUILD/fuzz/artifacts/$t"/crash-* | head -n 1 | xargs basename)"
        fi
    done
    [ -n "$any" ] || echo "| — | no \`make fuzz\` run in this build directory |"
    cat <<EOF

Regression inputs (tests/fuzz/regressions/<target>/, re-run by
\`make fuzz-regress\` under valgrind, and by \`make fuzz\` under ASan + UBSan):

EOF
    local f n=0
    for f in tests/fuzz/regressions/*/*; do
        [ -f "$f" ] || continue
        n=$((n + 1))
        echo "- \`$f\`"
    done
    [ "$n" -eq 0 ] && echo "- none yet"
    echo
    if [ -f "$FIG/fuzz-regress.log" ]; then
        echo "Last re-run:"
        echo
        grep -E 'inputs re-run|invariant failed|ERROR|runtime error' "$FIG/fuzz-regress.log" | sed 's/^/    /' | head -n 20
        echo
    fi
}

if [ "$DOC" = "-" ]; then
    render
else
    DOC=$(abs "$DOC")
    mkdir -p "$(dirname "$DOC")"
    render >"$DOC"
    log "wrote $DOC"
fi
exit $rc
