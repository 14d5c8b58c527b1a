#!/usr/bin/env bash
# Runs the integration suites (tests/integration/test_*.sh: each standalone,
# sources lib.sh, exits non-zero on failure), several at once, and prints
# the summed counts as the last line: "N passed, N failed, N skipped",
# after the list of what skipped and why. Exit 1 when anything failed (or,
# with WH_FAIL_ON_SKIP=1, skipped). A suite that says SKIP more often than
# it counted skips (lib.sh's wh_skip and wh_skip_case count them) fails.
#
#   tests/integration/run.sh                    every suite
#   tests/integration/run.sh test_module [...]  the suites named (".sh" optional)
#   WH_ONLY=inbox tests/integration/run.sh      the suites whose name contains it
#
# Environment:
#   BUILD, WH_SHARED_DIR   as for lib.sh (default build, ../shared)
#   WH_JOBS=N              suites at once (default: 2 per CPU and 2 more, at
#                          most 8: a suite spends most of its time waiting
#                          on httpd and its servers; 1 runs them one by one)
#   WH_UNIT=1              also run the CUnit suites ($BUILD/unit_tests) as
#                          the suite "unit" (they print "N passed, N failed,
#                          N skipped"; their tests count in the last line);
#                          a unit suite that needs a server is left to the
#                          integration suite that starts it when that one
#                          runs too (unit_tests --leave-to), and is reported
#                          skipped otherwise
#   WH_FUZZ_REGRESS=1      also run `make fuzz-regress` as the suite
#                          "fuzz-regress" (each input re-run counts as passed)
#   WH_PACKAGES=only|1     the suites marked "# wh-package" (they build the
#                          Debian packages and install them: minutes of
#                          compiling) run only when named, with
#                          WH_PACKAGES=1 (beside the rest) or =only (alone:
#                          make check-package); the counts line is then
#                          preceded by the ones left out
#   WH_FAIL_ON_SKIP=1      a skip fails the run (exit 1): for a machine that
#                          has everything every suite needs (CI, .ci/run)
#   WH_TIMES               where the durations are kept between runs (default
#                          $BUILD/integration-times): the slowest suites of
#                          the last run start first (a fresh clone uses
#                          tests/integration/durations, from a full run)
#
# Suites never share ports (each draws its own), temp dirs or databases, so
# they run side by side. A suite that must run alone -- it changes the
# system (installs packages into the system's Apache) or measures time or
# memory -- says so with a line "# wh-serial" (or "# wh-serial: why") among
# its first 30 lines: it then runs after the others, one at a time, with
# nothing beside it.
#
# Each suite's output is kept and printed whole when it ends, in a stable
# order (unit, fuzz-regress, then the scripts by name), headed by its
# duration; then the slowest suites, then the counts line.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top" || exit 1
export BUILD=${BUILD:-build}
export WH_SHARED_DIR=${WH_SHARED_DIR:-../shared}
cpus=$(nproc 2>/dev/null || echo 1)
default_jobs=$((2 * cpus + 2))
[ "$default_jobs" -gt 8 ] && default_jobs=8
JOBS=${WH_JOBS:-$default_jobs}
case "$JOBS" in ''|*[!0-9]*|0) JOBS=1 ;; esac
# Every suite signs the provided sample and the unit tests read the
# provided vectors: without them each assertion would fail on its own
# (hundreds of failures, one cause), so say the cause once instead.
for f in samples/wire-status-complete.json vectors/signatures.json; do
    if [ ! -f "$WH_SHARED_DIR/$f" ]; then
        echo "run.sh: the provided material is not at WH_SHARED_DIR=$WH_SHARED_DIR" \
             "(no $f; relative paths start at $top): set SHARED_DIR=DIR for make," \
             "WH_SHARED_DIR=DIR otherwise" >&2
        echo "0 passed, 1 failed, 0 skipped"
        exit 1
    fi
done
TIMES=${WH_TIMES:-$BUILD/integration-times}

work=$(mktemp -d /tmp/wh-run.XXXXXX) || exit 1
# one PostgreSQL cluster made by initdb for the whole run, copied by each
# suite that starts one (pg.sh); the postgres user must reach it
chmod 711 "$work"
export WH_PG_TEMPLATE="$work/pg-template"
declare -A PID=()
cleanup() {
    local p
    for p in "${PID[@]}"; do kill "$p" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------ what to run ---
declare -a NAMES=()          # stable print order
declare -A CMD=() SERIAL=()
want_unit=${WH_UNIT:-}
want_fuzz=${WH_FUZZ_REGRESS:-}
declare -A ASKED=()
declare -a LEFT_OUT=()
named=""
packages=${WH_PACKAGES:-}
for a in "$@"; do
    a=$(basename "$a" .sh)
    case "$a" in
        unit) want_unit=1 ;;
        fuzz-regress) want_fuzz=1 ;;
        *) ASKED[$a.sh]=1 ;;
    esac
done
if [ -n "$want_unit" ]; then
    NAMES+=(unit)
    CMD[unit]="WH_SHARED_DIR=\"\$WH_SHARED_DIR\" \"\$BUILD/unit_tests\""
fi
if [ -n "$want_fuzz" ]; then
    NAMES+=(fuzz-regress)
    CMD[fuzz-regress]="\${MAKE:-make} -j2 --no-print-directory BUILD=\"\$BUILD\" fuzz-regress"
fi
for t in "$here"/test_*.sh; do
    [ -e "$t" ] || continue
    name=$(basename "$t")
    if [ ${#ASKED[@]} -gt 0 ]; then
        [ -n "${ASKED[$name]:-}" ] || continue
        unset "ASKED[$name]"
        named=1
    elif [ -n "${WH_ONLY:-}" ]; then
        case "$name" in *$WH_ONLY*) ;; *) continue ;; esac
    elif [ $# -gt 0 ]; then
        continue                        # only unit/fuzz-regress were named
    fi
    is_package=""
    head -n 30 "$t" | grep -qE '^# wh-package($|[ :])' && is_package=1
    if [ -z "$named" ] && [ "$packages" != 1 ]; then
        if [ -n "$is_package" ] && [ "$packages" != only ]; then
            LEFT_OUT+=("$name"); continue
        fi
        [ -z "$is_package" ] && [ "$packages" = only ] && continue
    fi
    NAMES+=("$name")
    CMD[$name]="bash \"$t\""
    head -n 30 "$t" | grep -qE '^# wh-serial($|[ :])' && SERIAL[$name]=1
done
for a in "${!ASKED[@]}"; do
    echo "run.sh: no suite $a in tests/integration" >&2
    exit 2
done
# the unit suites that need a server are run by the integration suite
# that starts it: left to it when it runs here too, run once
if [ -n "$want_unit" ]; then
    for n in "${NAMES[@]}"; do
        case "$n" in test_*.sh) CMD[unit]+=" --leave-to $n" ;; esac
    done
fi
[ ${#NAMES[@]} -gt 0 ] || { echo "run.sh: nothing to run" >&2; exit 2; }

# ------------------------------------------------------- scheduling ---
# the last run's durations, "seconds name" per line; unknown suites are
# taken as long, so a new suite never starts last
declare -A LAST=()
times_in=$TIMES
[ -f "$times_in" ] || times_in="$here/durations"
if [ -f "$times_in" ]; then
    while read -r s n; do [ -n "${n:-}" ] && LAST[$n]=${s%.*}; done <"$times_in"
fi
mapfile -t QUEUE < <(for n in "${NAMES[@]}"; do
    [ -n "${SERIAL[$n]:-}" ] && continue
    printf '%s %s\n' "${LAST[$n]:-100000}" "$n"
done | sort -k1,1nr -k2,2 | cut -d' ' -f2)
for n in "${NAMES[@]}"; do [ -n "${SERIAL[$n]:-}" ] && QUEUE+=("$n"); done

now() { printf '%s\n' "${EPOCHREALTIME/,/.}"; }
declare -A START=() DUR=() RC=()
running=0
start_job() {
    local n=$1
    START[$n]=$(now)
    # (bash -c execs the one command: an interrupted run's TERM reaches the
    # suite itself, whose EXIT trap stops its httpd and helpers)
    WH_COUNTS_FILE="$work/$n.counts" WH_SKIPS_FILE="$work/$n.skips" \
        WH_RUN_TAG="$work:$n" bash -c "${CMD[$n]}" >"$work/$n.out" 2>&1 </dev/null &
    PID[$n]=$!
    running=$((running + 1))
}
# collect NAME RC: records a finished job
collect() {
    RC[$1]=$2
    DUR[$1]=$(awk -v a="${START[$1]}" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
    unset "PID[$1]"
    running=$((running - 1))
}
# reap: waits for one job to finish and collects it (bash's wait -n -p:
# no polling, no sleep processes)
reap() {
    local n pid="" rc before=$running
    wait -n -p pid "${PID[@]}"
    rc=$?
    for n in "${!PID[@]}"; do
        [ "${PID[$n]}" = "$pid" ] && { collect "$n" "$rc"; return 0; }
    done
    # nothing of ours ended (no pid): look, and never spin
    for n in "${!PID[@]}"; do
        if ! kill -0 "${PID[$n]}" 2>/dev/null; then
            wait "${PID[$n]}"
            collect "$n" $?
        fi
    done
    [ "$running" -lt "$before" ] || sleep 0.2
    return 0
}
# prints, in NAMES order, every finished suite not printed yet, up to the
# first one still running
printed=0
flush() {
    local n
    while [ $printed -lt ${#NAMES[@]} ]; do
        n=${NAMES[$printed]}
        [ -n "${RC[$n]:-}" ] || return 0
        echo "== $n (${DUR[$n]} s)"
        cat "$work/$n.out"
        [ "${RC[$n]}" -ne 0 ] && echo "   $n exited ${RC[$n]}"
        printed=$((printed + 1))
    done
}

t0=$(now)
for n in "${QUEUE[@]}"; do
    if [ -n "${SERIAL[$n]:-}" ]; then
        while [ $running -gt 0 ]; do reap; flush; done
        start_job "$n"
        reap
        flush
        continue
    fi
    while [ $running -ge "$JOBS" ]; do reap; flush; done
    start_job "$n"
done
while [ $running -gt 0 ]; do reap; flush; done
flush
wall=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')

# ---------------------------------------------------------- leftovers ---
# Every process a suite starts inherits WH_RUN_TAG=$work:SUITE. One still
# running some seconds after every suite ended was never stopped: it holds
# a port, and a pid another suite's cleanup may one day signal. It is a
# failure of its suite, and is stopped here. (A server that rewrites its
# environment for its process title, as redis does, is not seen here:
# lib.sh's wh_pid_tag is what stops those.)
leftovers() {
    local f tag
    for f in $(grep -lsazF "WH_RUN_TAG=$work:" /proc/[0-9]*/environ); do
        tag=$(tr '\0' '\n' <"$f" 2>/dev/null | grep -m1 "^WH_RUN_TAG=$work:") || continue
        f=${f#/proc/}
        echo "${f%/environ} ${tag#*"$work":}"
    done
}
left=""
for _ in 1 2 3 4 5 6 7 8 9 10; do
    left=$(leftovers)
    [ -z "$left" ] && break
    sleep 1
done
if [ -n "$left" ]; then
    while read -r pid n; do
        echo "run.sh: $n left a process running: $pid $(tr '\0' ' ' </proc/"$pid"/cmdline 2>/dev/null | cut -c1-120)"
        echo "0 1 0 $n(left-pid-$pid)" >>"$work/$n.counts"
        kill "$pid" 2>/dev/null
    done <<<"$left"
fi

# ----------------------------------------------------------- counts ---
# each suite's "passed failed skipped name" lines, and "suite: reason"
# for each skip
counts="$work/all.counts"
skips="$work/all.skips"
: >"$counts"
: >"$skips"
scripts_failed=0
for n in "${NAMES[@]}"; do
    f="$work/$n.counts"
    case "$n" in
        unit)
            line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$work/$n.out" | tail -n 1)
            [ -n "$line" ] && echo "$line" | awk -v n="$n" '{ print $1, $3, $5, n }' >"$f"
            sed -n 's/^SKIP /unit: /p' "$work/$n.out" >"$work/$n.skips" ;;
        fuzz-regress)
            awk '/inputs re-run/ { for (i = 1; i <= NF; i++) if ($(i + 1) == "inputs") s += $i }
                 END { print s + 0, 0, 0, "fuzz-regress" }' "$work/$n.out" >"$f" ;;
    esac
    # a skip said but not counted would pass unseen: a failure of its own
    said=$(grep -cE '^ *SKIP(PED)?[ :]|: SKIPPED: ' "$work/$n.out")
    counted=$([ -f "$f" ] && awk '{ k += $3 } END { print k + 0 }' "$f" || echo 0)
    if [ "$said" -gt "$counted" ]; then
        echo "run.sh: $n says SKIP $said times but counted $counted skips" \
             "(a skip is wh_skip or wh_skip_case, lib.sh)"
        echo "0 1 0 $n(uncounted skips)" >>"$f"
    fi
    if [ "${RC[$n]}" -ne 0 ]; then
        scripts_failed=$((scripts_failed + 1))
        # a suite that died without recording a failure still counts one
        if [ ! -s "$f" ] || [ "$(awk '{ f += $2 } END { print f + 0 }' "$f")" = 0 ]; then
            echo "0 1 0 $n(exit ${RC[$n]})" >>"$f"
        fi
    fi
    [ -f "$f" ] && cat "$f" >>"$counts"
    [ -f "$work/$n.skips" ] && cat "$work/$n.skips" >>"$skips"
done

# the durations, for the next run's order (only when every suite ran)
if [ $# -eq 0 ] && [ -z "${WH_ONLY:-}" ] && [ "$packages" != only ] && [ -d "$(dirname "$TIMES")" ]; then
    for n in "${NAMES[@]}"; do echo "${DUR[$n]} $n"; done | sort -k1,1nr >"$TIMES.tmp" &&
        mv "$TIMES.tmp" "$TIMES"
fi

echo "== slowest suites (wall clock ${wall} s, ${JOBS} at once)"
for n in "${NAMES[@]}"; do echo "${DUR[$n]} $n${SERIAL[$n]:+ (serial)}"; done |
    sort -k1,1nr | head -n 10 | awk '{ printf "%6d s  %s\n", $1, substr($0, index($0, " ") + 1) }'
passed=$(awk '{p += $1} END {print p + 0}' "$counts")
failed=$(awk '{f += $2} END {print f + 0}' "$counts")
skipped=$(awk '{k += $3} END {print k + 0}' "$counts")
if [ "$skipped" -gt 0 ]; then
    echo "== skipped ($skipped), and why"
    sed 's/^/   /' "$skips"
    [ -n "${WH_FAIL_ON_SKIP:-}" ] && [ "$WH_FAIL_ON_SKIP" != 0 ] &&
        echo "WH_FAIL_ON_SKIP is set: this machine should run everything, so a skip fails the run"
fi
[ ${#LEFT_OUT[@]} -gt 0 ] &&
    echo "== not run here: ${LEFT_OUT[*]} (the Debian packages: make check-package)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$scripts_failed" -eq 0 ] || exit 1
if [ "$skipped" -gt 0 ] && [ -n "${WH_FAIL_ON_SKIP:-}" ] && [ "$WH_FAIL_ON_SKIP" != 0 ]; then
    exit 1
fi
exit 0
