# wirehook integration-test harness. Source it from a test script:
#
#   . "$(dirname "$0")/lib.sh"
#   wh_init                       # temp dir, port, secrets, htpasswd, config
#   wh_httpd_conf                 # standard httpd.conf (see the layout below)
#   wh_httpd_start
#   wh_post "$WH_URL/v1/wires" "$WH_SAMPLE"; assert_status 200 "good event"
#   wh_done                       # prints the counts, exits 1 on failure
#
# A suite that cannot run on this machine says so with `wh_skip REASON`
# (the whole suite) or `wh_skip_case REASON` (a part of it): it is counted
# skipped, never passed, and run.sh lists it with its reason.
#
# Function names are a contract (other suites source this file): add new
# ones, do not rename. Everything lives in one temp dir ($T) that is removed
# on exit (keep it with WH_KEEP_TMP=1); httpd is always stopped on exit.
#
# Environment honoured:
#   BUILD          build dir holding wirehook, mod_wirehook.so (default build)
#   WH_SHARED_DIR  provided material: samples/, vectors/ (default ../shared)
#   WH_COUNTS_FILE run.sh collects "passed failed skipped" lines here
#   WH_SKIPS_FILE  ... and the reasons of skips here, "suite: reason"
#   WH_MPM         event (default) | worker | prefork
#   WH_VERBOSE=1   print passing assertions too
#   WH_KEEP_TMP=1  keep $T for inspection
#   WH_PYTHON      python3 for the helpers (default /usr/bin/python3)
#   WH_SCALE       multiplies the sizes of sized suites (default 1, see wh_size)
#   WH_DB_SCRATCH  where pg.sh and mariadb.sh put their servers' files
#                  (default /dev/shm when there is room, else /tmp; see below)
#
# Standard layout written by wh_httpd_conf (all under WirehookConfig $WH_CONF
# unless noted):
#   /v1/wires        -> app/record.c     (records body, env, headers)
#   /ignore          -> app/ignore.cgi   (makes nothing of its body)
#   /static/         -> $T/htdocs/static (plain files: secret.txt)
#   /inbox           -> SetHandler wirehook
#   /open/record     -> app/record.c, NOT protected
#   $T/extra.conf    included at the end: tests add their own blocks there
#                    (wh_httpd_extra 'text') before wh_httpd_start.

WH_PASS=0
WH_FAIL=0
WH_SKIPPED=0
WH_HTTPD_PID=""
WH_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WH_TOP=$(cd "$WH_LIB_DIR/../.." && pwd)

# --------------------------------------------------------------- python ---
# The harness's helpers (bodies, JSON, load drivers) run on the system's
# python3 (Debian's /usr/bin/python3) rather than whatever `python3` is
# first in PATH: a version manager's shim (pyenv) is a bash script that
# forks several times per call, which on a loaded 2-core machine made
# every call cost seconds. Only the standard library is used.
# WH_PYTHON=/path/to/python3 chooses another. It is put first in PATH as
# $BUILD/test-bin/python3 (a symlink, not a shell function: `python3 ... &`
# must leave the interpreter's own pid in $!, which tests kill -9).
if [ -z "${WH_PYTHON:-}" ]; then
    if [ -x /usr/bin/python3 ]; then WH_PYTHON=/usr/bin/python3; else WH_PYTHON=$(command -v python3); fi
fi
export WH_PYTHON
_wh_pybin() {
    local dir=$1
    [ -n "$WH_PYTHON" ] && [ "$(command -v python3)" != "$WH_PYTHON" ] || return 0
    [ "$(readlink "$dir/python3" 2>/dev/null)" = "$WH_PYTHON" ] ||
        { mkdir -p "$dir" && ln -sfn "$WH_PYTHON" "$dir/python3.$$" && mv -f "$dir/python3.$$" "$dir/python3"; } ||
        return 0
    PATH="$dir:$PATH"
    export PATH
}

# sleep SECONDS -- the suites poll in steps of a tenth of a second, and
# every /bin/sleep is a fork and an exec (on a virtual machine, most of a
# suite's CPU goes to making processes): a plain number of seconds waits
# in bash's own read on a pipe nobody writes to; anything else is the real
# sleep. Subshells inherit both the function and the pipe.
_wh_sleep_fd=""
# (the braces: a redirection written on exec itself would stay for good,
# and stderr must not)
{ exec {_wh_sleep_fd}<> <(:); } 2>/dev/null || _wh_sleep_fd=""
sleep() {
    if [ $# -eq 1 ] && [ -n "$_wh_sleep_fd" ] && [[ $1 =~ ^[0-9]*\.?[0-9]+$ ]]; then
        read -r -t "$1" -u "$_wh_sleep_fd" _ 2>/dev/null
        return 0
    fi
    command sleep "$@"
}

# ----------------------------------------------------------------- sizes ---
# A suite with a size (events per load writer, rounds...) takes it as
# `${WH_SOME_KNOB:-$(wh_size BASE)}`: BASE is the size that proves the point
# in `make check`; WH_SCALE multiplies it (`make soak` runs the sized
# suites with WH_SCALE=5, build/soak.mk).
case "${WH_SCALE:-1}" in ''|*[!0-9]*|0) WH_SCALE=1 ;; esac
WH_SCALE=${WH_SCALE:-1}
export WH_SCALE
wh_size() { echo $(( $1 * WH_SCALE )); }

# ---------------------------------------------------------------- paths ---
_wh_abs() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$WH_TOP/$1" ;; esac; }

WH_BUILD=$(_wh_abs "${BUILD:-build}")
WH_SHARED=$(_wh_abs "${WH_SHARED_DIR:-../shared}")
_wh_pybin "$WH_BUILD/test-bin"
WIREHOOK="$WH_BUILD/wirehook"
WH_MOD_SO="$WH_BUILD/mod_wirehook.so"
WH_HTTPD=${WH_HTTPD:-/usr/sbin/apache2}
WH_MODDIR=${WH_MODDIR:-/usr/lib/apache2/modules}
WH_APP_SRC="$WH_LIB_DIR/app"
# the recording application (app/record.c), built by make check
WH_RECORD_CGI="$WH_BUILD/test-bin/record.cgi"
WH_SAMPLE_SRC="$WH_SHARED/samples/wire-status-complete.json"

# ------------------------------------------------------------- counting ---
_wh_ok() {
    WH_PASS=$((WH_PASS + 1))
    [ -n "${WH_VERBOSE:-}" ] && printf '  ok   %s\n' "$1"
    return 0
}
_wh_bad() {
    WH_FAIL=$((WH_FAIL + 1))
    printf '  FAIL %s\n' "$1" >&2
    [ -n "${2:-}" ] && printf '       %s\n' "$2" >&2
    return 1
}

# assert_eq EXPECTED ACTUAL MESSAGE
assert_eq() {
    if [ "$1" = "$2" ]; then _wh_ok "$3"; else _wh_bad "$3" "expected [$1] got [$2]"; fi
}
# assert_ne UNEXPECTED ACTUAL MESSAGE
assert_ne() {
    if [ "$1" != "$2" ]; then _wh_ok "$3"; else _wh_bad "$3" "did not expect [$1]"; fi
}
# assert_true MESSAGE COMMAND...   (passes when the command succeeds)
assert_true() {
    local m=$1; shift
    if "$@"; then _wh_ok "$m"; else _wh_bad "$m" "command failed: $*"; fi
}
# assert_false MESSAGE COMMAND...
assert_false() {
    local m=$1; shift
    if "$@"; then _wh_bad "$m" "command succeeded: $*"; else _wh_ok "$m"; fi
}
# assert_contains HAYSTACK NEEDLE MESSAGE
assert_contains() {
    case "$1" in *"$2"*) _wh_ok "$3" ;; *) _wh_bad "$3" "[$2] not in [$1]" ;; esac
}
# assert_not_contains HAYSTACK NEEDLE MESSAGE
assert_not_contains() {
    case "$1" in *"$2"*) _wh_bad "$3" "[$2] found in [$1]" ;; *) _wh_ok "$3" ;; esac
}
# assert_status CODE [MESSAGE]  -- checks the last response (wh_post/wh_curl)
assert_status() {
    local m=${2:-"status $1"}
    if [ "$WH_STATUS" = "$1" ]; then _wh_ok "$m"
    elif [ "$WH_STATUS" = 000 ] && [ -s "$T/resp.err" ]; then
        _wh_bad "$m" "expected HTTP $1, got no answer: $(<"$T/resp.err")"
    else _wh_bad "$m" "expected HTTP $1 got $WH_STATUS: $WH_BODY"; fi
}
# assert_json_code CODE [MESSAGE] -- error.code (or status for acks) of the
# last response body
assert_json_code() {
    local m=${2:-"code $1"} got
    got=$(wh_json_code "$WH_BODY")
    if [ "$got" = "$1" ]; then _wh_ok "$m"
    else _wh_bad "$m" "expected code $1 got [$got]: $WH_BODY"; fi
}
# assert_header NAME EXPECTED-SUBSTRING [MESSAGE] -- last response's header
assert_header() {
    local m=${3:-"header $1"} got
    got=$(wh_header "$1")
    case "$got" in
        *"$2"*) [ -n "$got" ] && _wh_ok "$m" || _wh_bad "$m" "header $1 absent" ;;
        *) _wh_bad "$m" "header $1: expected [$2] got [$got]" ;;
    esac
}
# assert_no_header NAME [MESSAGE]
assert_no_header() {
    local m=${2:-"no header $1"} got
    got=$(wh_header "$1")
    if [ -z "$got" ]; then _wh_ok "$m"; else _wh_bad "$m" "header $1: [$got]"; fi
}
# wh_glob_exists PATTERN -> true when some file matches
wh_glob_exists() { compgen -G "$1" >/dev/null; }
assert_file_exists() { if [ -e "$1" ]; then _wh_ok "$2"; else _wh_bad "$2" "missing $1"; fi; }
assert_file_absent() { if [ -e "$1" ]; then _wh_bad "$2" "present $1"; else _wh_ok "$2"; fi; }

# wh_json_code JSON -> error.code, else status ("accepted"/"duplicate")
wh_json_code() {
    # wirehook's own compact answers without details are read here; any
    # other body goes through python's json (the result is the same)
    local re_err='^\{"error":\{"code":"([a-z_]+)","message":"[^"\\]*","details":\[\]\}\}$'
    local re_ack='^\{"status":"([a-z_]+)","notificationId":"[^"\\]*"\}$'
    if [[ $1 =~ $re_err ]] || [[ $1 =~ $re_ack ]]; then
        printf '%s\n' "${BASH_REMATCH[1]}"
        return 0
    fi
    printf '%s' "$1" | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except Exception:
    print(""); sys.exit(0)
if isinstance(d, dict) and isinstance(d.get("error"), dict):
    print(d["error"].get("code", ""))
elif isinstance(d, dict):
    print(d.get("status", ""))
' 2>/dev/null
}
# wh_json_get JSON PYTHON-EXPR-ON-d   e.g. wh_json_get "$WH_BODY" 'd["error"]["details"][0]["field"]'
wh_json_get() {
    printf '%s' "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
v = eval(sys.argv[1])
print(v if not isinstance(v, (dict, list, bool)) else json.dumps(v))
' "$2" 2>/dev/null
}

# wh_header NAME -> value of NAME in the last response (case-insensitive)
wh_header() {
    [ -f "$T/resp.headers" ] || return 0
    local want=${1,,} line name v="" found=""
    while IFS= read -r line || [ -n "$line" ]; do
        line=${line%$'\r'}
        [[ $line == *:* ]] || continue
        name=${line%%:*}
        [ "${name,,}" = "$want" ] || continue
        v=${line#*:}
        v=${v#"${v%%[! ]*}"}
        found=1
    done <"$T/resp.headers"
    [ -n "$found" ] && printf '%s\n' "$v"
    return 0
}

# wh_done -- end of a test script: print counts, exit 0/1 (a skip is not
# a failure: run.sh decides what skips mean, see WH_FAIL_ON_SKIP there)
wh_done() {
    printf '%s: %d passed, %d failed, %d skipped\n' "$(basename "$0")" \
        "$WH_PASS" "$WH_FAIL" "$WH_SKIPPED"
    _wh_write_counts
    [ "$WH_FAIL" -eq 0 ] && exit 0
    exit 1
}

# the counts, for run.sh, once (wh_done, or the exit of a suite that died)
_WH_COUNTED=""
_wh_write_counts() {
    [ -z "$_WH_COUNTED" ] && [ -n "${WH_COUNTS_FILE:-}" ] &&
        printf '%d %d %d %s\n' "$WH_PASS" "$WH_FAIL" "$WH_SKIPPED" "$(basename "$0")" \
            >>"$WH_COUNTS_FILE"
    _WH_COUNTED=1
}

# wh_skip_case REASON: a part of the suite cannot run on this machine (it
# lacks what REASON names): counted as one skip, never as a pass, and
# listed with its reason by run.sh.
wh_skip_case() {
    WH_SKIPPED=$((WH_SKIPPED + 1))
    printf '  SKIP %s\n' "$1"
    [ -n "${WH_SKIPS_FILE:-}" ] && printf '%s: %s\n' "$(basename "$0")" "$1" >>"$WH_SKIPS_FILE"
    return 0
}

# wh_skip REASON: the whole suite cannot run on this machine: said,
# counted as one skip, and the suite ends (exit 0).
wh_skip() {
    echo "$(basename "$0"): SKIPPED: $1"
    WH_SKIPPED=$((WH_SKIPPED + 1))
    [ -n "${WH_SKIPS_FILE:-}" ] && printf '%s: %s\n' "$(basename "$0")" "$1" >>"$WH_SKIPS_FILE"
    wh_done
}

# wh_unit_suite SUITE: runs one CUnit suite ($WH_BUILD/unit_tests SUITE)
# with the caller's environment (VAR=value wh_unit_suite SUITE names its
# server): one pass when it ran and nothing failed, a failure with the
# tail of its output otherwise, and one skip per test it skipped, with
# the test's reason.
wh_unit_suite() {
    local suite=$1 out rc line p f k skip
    out=$("$WH_BUILD/unit_tests" "$suite" 2>&1)
    rc=$?
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' <<<"$out" | tail -n 1)
    echo "   unit suite $suite: ${line:-no counts (exit status $rc$([ $rc -gt 128 ] && echo ", signal $((rc - 128))"))}"
    read -r p _ f _ k _ <<<"${line:-0 passed, 1 failed, 0 skipped}"
    if [ -z "$line" ] || [ "$f" -ne 0 ] || [ $((p + k)) -eq 0 ]; then
        _wh_bad "unit suite $suite ran, nothing failed" "$(tail -n 30 <<<"$out")"
    elif [ "$p" -gt 0 ]; then
        _wh_ok "unit suite $suite passes ($line)"
    fi
    while IFS= read -r skip; do
        wh_skip_case "unit suite ${skip#SKIP }"
    done < <(grep '^SKIP ' <<<"$out")
    return 0
}

# ------------------------------------------------------------- lifecycle ---
# Pids wrap (at 32768 on some machines) and a make check starts tens of
# thousands of processes, so the pid of a helper that ended earlier can
# name another suite's application by the time it is signalled (a forward
# scenario's application killed that way turned every forward into a dead
# letter). A helper is therefore kept as PID@START, its start time from
# /proc (field 22 of stat), and signalled only while that pid still has
# that start time.

# _wh_started PID -- the start time of PID (clock ticks since boot), or
# nothing when there is no such process
_wh_started() {
    local s
    read -r s 2>/dev/null <"/proc/$1/stat" || return 0
    s=${s##*) }          # the name in parentheses may hold spaces
    # shellcheck disable=SC2086
    set -- $s
    printf '%s' "${20}"
}

# wh_pid_tag PID -- PID@START, for wh_kill_ours
wh_pid_tag() {
    printf '%s@%s' "$1" "$(_wh_started "$1")"
}

# wh_bg_add PID... -- keeps each helper to be stopped when the suite ends
wh_bg_add() {
    local p
    for p in "$@"; do
        [ -n "$p" ] && WH_BG_PIDS="$WH_BG_PIDS $(wh_pid_tag "$p")"
    done
    return 0
}

# wh_kill_ours [-SIGNAL] PID@START... -- signals each process (wh_pid_tag)
# only while its pid still has that start time
wh_kill_ours() {
    local sig=-TERM p
    case "${1:-}" in -*) sig=$1; shift ;; esac
    for p in "$@"; do
        case $p in
        *@?*) [ "$(_wh_started "${p%@*}")" = "${p#*@}" ] && kill "$sig" "${p%@*}" 2>/dev/null ;;
        *@) ;;                       # gone before it was tagged
        *) echo "wh_kill_ours: '$p' is not PID@START (wh_pid_tag)" >&2 ;;
        esac
    done
    return 0
}

WH_BG_PIDS=""
_wh_cleanup() {
    local rc=$? p
    wh_httpd_stop >/dev/null 2>&1
    # shellcheck disable=SC2086
    wh_kill_ours $WH_BG_PIDS
    _wh_port_release_all
    _wh_write_counts
    if [ -n "${T:-}" ] && [ -d "$T" ]; then
        if [ -n "${WH_KEEP_TMP:-}" ] || { [ "$WH_FAIL" -ne 0 ] && [ -n "${WH_KEEP_FAILED:-}" ]; }; then
            echo "kept $T" >&2
        else
            rm -rf "$T"
        fi
    fi
    exit $rc
}

# wh_free_port -> a loopback TCP port nobody listens on
# Drawn below the kernel's ephemeral range: a port in that range can be
# taken by any outgoing connection (curl, psql) between this check and
# httpd's bind, which made starts fail now and then with EADDRINUSE.
wh_port_ceiling() {
    local lo
    lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
    [ -n "$lo" ] && [ "$lo" -gt 21024 ] 2>/dev/null || lo=32768
    echo $((lo - 1))
}
# Suites run side by side and each picks its ports well before it binds
# them (a scenario's application starts a minute after its configuration
# names the port), so a port is also reserved: a symlink in a directory
# every suite shares, pointing at the suite's $T. A link whose suite is
# gone, or older than three hours, is taken over.
WH_PORT_DIR=${TMPDIR:-/tmp}/wh-ports-$(id -u)
_wh_port_reserve() {
    local p=$1 link=$WH_PORT_DIR/$1 owner
    mkdir -p "$WH_PORT_DIR" 2>/dev/null || return 0
    [ -n "${T:-}" ] || return 0
    # -T: without it, ln run on an existing link to a directory makes a
    # new link inside that directory and succeeds
    ln -sT "$T" "$link" 2>/dev/null && return 0
    owner=$(readlink "$link" 2>/dev/null) || return 1
    [ "$owner" = "$T" ] && return 1
    if [ ! -d "$owner" ] || [ -n "$(find "$link" -maxdepth 0 -mmin +180 2>/dev/null)" ]; then
        rm -f "$link" && ln -sT "$T" "$link" 2>/dev/null && return 0
    fi
    return 1
}
_wh_port_release_all() {
    [ -n "${T:-}" ] && [ -d "$WH_PORT_DIR" ] || return 0
    find "$WH_PORT_DIR" -maxdepth 1 -type l -lname "$T" -delete 2>/dev/null
}
wh_free_port() {
    local p i top
    top=$(wh_port_ceiling)
    for i in $(seq 1 200); do
        p=$((20000 + (RANDOM * 32768 + RANDOM) % (top - 20000)))
        if ! _wh_listens "$p"; then
            if ! ss -Hltn "sport = :$p" 2>/dev/null | grep -q . && _wh_port_reserve "$p"; then
                echo "$p"; return 0
            fi
        fi
    done
    return 1
}

# wh_no_notes: configtest's output without its "note:" lines (it says
# what the inbox's retention keeps for every inbox, InboxRetention set or
# not), for the asserts that a configuration draws no warning
wh_no_notes() { grep -v '^note: ' || true; }

# Where the suites' throwaway database servers keep their files (pg.sh,
# mariadb.sh): /dev/shm when it is a memory file system with 2 GiB free.
# Creating and dropping a schema's files for every unit case on ext4 was
# a sixth of test_inbox_pg's CPU, and nothing these servers hold outlives
# the suite. $T stays on /tmp: the replay store rightly refuses to take a
# new store on a memory file system (a reboot empties it) as new. make
# bench leaves this unset: its databases are on disk.
if [ -z "${WH_DB_SCRATCH+set}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] &&
    [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] &&
    [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')" -ge 2097152 ] 2>/dev/null; then
    export WH_DB_SCRATCH=/dev/shm
fi

# wh_init -- temp dir ($T), port ($WH_PORT, $WH_URL), secrets, htpasswd,
# wirehook config ($WH_CONF), the sample body ($WH_SAMPLE), app dirs.
# Credentials: $WH_USER:$WH_PASSWD (bcrypt). Secrets: $WH_SECRET (first),
# $WH_SECRET2 (second, rotation). Secrets file $WH_SECRETS.
wh_init() {
    [ -x "$WH_HTTPD" ] || { echo "no httpd at $WH_HTTPD" >&2; exit 1; }
    T=$(mktemp -d /tmp/wh-it.XXXXXX) || exit 1
    chmod 755 "$T"
    trap _wh_cleanup EXIT
    trap 'exit 130' INT TERM
    WH_PORT=$(wh_free_port) || { echo "no free port" >&2; exit 1; }
    WH_HOST="127.0.0.1:$WH_PORT"
    WH_URL="http://$WH_HOST"
    mkdir -p "$T/logs" "$T/run" "$T/htdocs/static" "$T/cgi-bin" "$T/app" "$T/etc" "$T/data"
    chmod 755 "$T/logs" "$T/htdocs" "$T/htdocs/static" "$T/cgi-bin" "$T/etc"
    # the app and the inbox run as the httpd user: writable by it
    chmod 1777 "$T/app" "$T/data" "$T/run"
    echo "top secret static file" >"$T/htdocs/static/secret.txt"
    echo "index" >"$T/htdocs/index.html"
    chmod 644 "$T/htdocs/static/secret.txt" "$T/htdocs/index.html"
    local f
    [ -x "$WH_RECORD_CGI" ] || { echo "no $WH_RECORD_CGI: make test-apps (make check builds it)" >&2; exit 1; }
    for f in "$WH_APP_SRC"/*.cgi "$WH_RECORD_CGI"; do
        [ -e "$f" ] || continue
        cp "$f" "$T/cgi-bin/" && chmod 755 "$T/cgi-bin/$(basename "$f")"
    done

    WH_SECRET="it-signing-secret-$(date +%s%N | sha256sum | cut -c1-16)"
    WH_SECRET2="it-rotated-secret-$(date +%s%N | sha256sum | cut -c1-16)"
    WH_SECRETS="$T/etc/signing.secret"
    wh_make_secrets "$WH_SECRETS" "$WH_SECRET" "$WH_SECRET2"
    WH_SECRET2_FILE="$T/etc/second.secret"
    wh_make_secrets "$WH_SECRET2_FILE" "$WH_SECRET2"

    WH_USER=bank
    WH_PASSWD="bank-pass-$RANDOM"
    WH_HTPASSWD="$T/etc/htpasswd"
    wh_make_htpasswd "$WH_HTPASSWD" "$WH_USER" "$WH_PASSWD" -B
    wh_make_htpasswd "$WH_HTPASSWD" md5user md5pass -m
    wh_make_htpasswd "$WH_HTPASSWD" shauser shapass -s

    WH_CONF="$T/etc/wirehook.conf"
    WH_INBOX_DB="$T/data/inbox.db"
    wh_write_config "$WH_CONF" "InboxParams $WH_INBOX_DB"

    WH_SAMPLE="$T/sample.json"
    cp "$WH_SAMPLE_SRC" "$WH_SAMPLE"
    : >"$T/extra.conf"
    WH_TS_HEADER=X-Timestamp
    WH_SIG_HEADER=X-Signature
}

# wh_make_secrets FILE SECRET...  (one per line, mode 600)
wh_make_secrets() {
    local f=$1; shift
    : >"$f"; chmod 600 "$f"
    printf '%s\n' "$@" >>"$f"
}

# wh_make_htpasswd FILE USER PASS [-B|-m|-s|-p]  (adds/updates; bcrypt default)
wh_make_htpasswd() {
    local f=$1 u=$2 pw=$3 alg=${4:--B} c=""
    [ -f "$f" ] || c=c
    htpasswd -b${c} "$alg" "$f" "$u" "$pw" >/dev/null 2>&1 || { echo "htpasswd failed" >&2; return 1; }
    chmod 600 "$f"
}

# wh_write_config FILE [EXTRA-LINE...]  -- a wirehook config using $WH_SECRETS
# and $WH_HTPASSWD; extra lines ("Key value") are appended verbatim. (The
# standard $WH_CONF also has InboxParams $WH_INBOX_DB, a sqlite3 file.)
wh_write_config() {
    local f=$1; shift
    {
        echo "# generated by tests/integration/lib.sh"
        echo "SigningSecretFile $WH_SECRETS"
        echo "BasicAuthFile $WH_HTPASSWD"
        local l
        for l in "$@"; do printf '%s\n' "$l"; done
    } >"$f"
    chmod 644 "$f"
}

# wh_httpd_extra TEXT -- append TEXT to $T/extra.conf (included last)
wh_httpd_extra() { printf '%s\n' "$1" >>"$T/extra.conf"; }

# wh_httpd_conf [FILE] -- writes the standard httpd.conf ($WH_HTTPD_CONF)
wh_httpd_conf() {
    WH_HTTPD_CONF=${1:-$T/httpd.conf}
    local mpm=${WH_MPM:-event} userconf="" cgimod=cgid
    [ "$mpm" = prefork ] && cgimod=cgi
    if [ "$(id -u)" -eq 0 ]; then
        userconf="User www-data
Group www-data"
    fi
    local m mods="mpm_$mpm authz_core authz_host mime $cgimod env headers log_config unixd alias dir setenvif socache_dbm socache_shmcb ${WH_EXTRA_MODULES:-}"
    {
        echo "# generated by tests/integration/lib.sh"
        echo "ServerRoot \"$T\""
        for m in $mods; do
            [ -f "$WH_MODDIR/mod_$m.so" ] && echo "LoadModule ${m}_module $WH_MODDIR/mod_$m.so"
        done
        echo "LoadModule wirehook_module $WH_MOD_SO"
        cat <<EOF
$userconf
ServerName 127.0.0.1
Listen 127.0.0.1:$WH_PORT
PidFile $T/run/httpd.pid
DefaultRuntimeDir $T/run
Mutex file:$T/run default
ErrorLog $T/logs/error.log
LogLevel ${WH_LOGLEVEL:-warn wirehook:debug}
LogFormat "%h \"%r\" %>s %B %D" short
CustomLog $T/logs/access.log short
TypesConfig /etc/mime.types
DocumentRoot "$T/htdocs"
Timeout 20
KeepAlive On
MaxKeepAliveRequests 100
StartServers 2
EOF
        if [ "$mpm" != prefork ]; then
            echo "ThreadsPerChild 16"
            echo "MaxRequestWorkers 64"
            echo "MinSpareThreads 16"
            echo "MaxSpareThreads 48"
            echo "ScriptSock $T/run/cgid.sock"
        else
            echo "MaxRequestWorkers 32"
        fi
        cat <<EOF
<Directory />
    AllowOverride None
    Require all denied
</Directory>
<Directory "$T/htdocs">
    Require all granted
</Directory>
<Directory "$T/cgi-bin">
    Options +ExecCGI
    Require all granted
</Directory>
SetEnv WH_APP_OUT $T/app
PassEnv PATH

ScriptAlias /v1/wires "$T/cgi-bin/record.cgi"
ScriptAlias /ignore "$T/cgi-bin/ignore.cgi"
ScriptAlias /open/record "$T/cgi-bin/record.cgi"
<Location /v1/wires>
    WirehookConfig $WH_CONF
</Location>
<Location /ignore>
    WirehookConfig $WH_CONF
</Location>
<Location /static/>
    WirehookConfig $WH_CONF
</Location>
<Location /inbox>
    SetHandler wirehook
    WirehookConfig $WH_CONF
</Location>
Include $T/extra.conf
EOF
    } >"$WH_HTTPD_CONF"
}

# wh_conf_variant NAME SED-EXPR -> path of $T/httpd-NAME.conf: the standard
# httpd.conf and extra.conf with SED-EXPR applied to both (the variant
# includes its own extra-NAME.conf). For apache2 -t / refused-start tests.
wh_conf_variant() {
    local name=$1 expr=$2 main=${WH_HTTPD_CONF:-$T/httpd.conf}
    sed -e "$expr" "$T/extra.conf" >"$T/extra-$name.conf"
    sed -e "$expr" -e "s|^Include $T/extra.conf\$|Include $T/extra-$name.conf|" "$main" >"$T/httpd-$name.conf"
    echo "$T/httpd-$name.conf"
}

_wh_pid() { cat "$T/run/httpd.pid" 2>/dev/null; }
# _wh_httpd_ours PID: PID is still an httpd of this suite (its command
# line names the suite's $T). Pids wrap (32768 on some machines) and a
# make check starts tens of thousands of processes, so a stale httpd.pid
# can name another suite's process, which "-k stop" or a KILL would
# otherwise signal.
_wh_httpd_ours() { grep -qsF -- "$T/" "/proc/$1/cmdline"; }
# _wh_listens PORT -- something accepts connections on 127.0.0.1:PORT
_wh_listens() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
_wh_port_open() { _wh_listens "$WH_PORT"; }

# wh_wait_port PORT [SECONDS] -- until something listens on 127.0.0.1:PORT
# (0), or SECONDS (10) have passed (1): a tenth of a second between tries
wh_wait_port() {
    local i
    for ((i = 0; i < ${2:-10} * 10; i++)); do
        _wh_listens "$1" && return 0
        sleep 0.1
    done
    return 1
}

# wh_httpd_configtest -> runs apache2 -t; output in $WH_OUT, returns its rc
wh_httpd_configtest() {
    WH_OUT=$("$WH_HTTPD" -f "${WH_HTTPD_CONF:-$T/httpd.conf}" -t 2>&1)
}

# wh_httpd_start -- start and wait for the port (10 s). Returns 1 (and
# prints the error log) when httpd did not come up.
wh_httpd_start() {
    local conf=${WH_HTTPD_CONF:-$T/httpd.conf} i try np rc
    for try in 1 2 3; do
        WH_OUT=$("$WH_HTTPD" -f "$conf" -k start 2>&1)
        rc=$?
        # someone else took our port between wh_free_port and now: move on
        case "$WH_OUT" in
            *"could not bind to address 127.0.0.1:$WH_PORT"*) rc=1 ;;
            *) break ;;
        esac
        np=$(wh_free_port) || break
        sed -i "s|^Listen 127.0.0.1:$WH_PORT\$|Listen 127.0.0.1:$np|" "$conf"
        if [ "$conf" != "$T/httpd.conf" ] && [ -f "$T/httpd.conf" ]; then
            sed -i "s|^Listen 127.0.0.1:$WH_PORT\$|Listen 127.0.0.1:$np|" "$T/httpd.conf"
        fi
        WH_PORT=$np; WH_HOST="127.0.0.1:$WH_PORT"; WH_URL="http://$WH_HOST"
    done
    if [ $rc -ne 0 ]; then
        WH_HTTPD_PID=""
        [ -z "${WH_QUIET_START:-}" ] && { echo "httpd start failed: $WH_OUT" >&2; tail -n 20 "$T/logs/error.log" >&2 2>/dev/null; }
        return 1
    fi
    for i in $(seq 1 100); do
        WH_HTTPD_PID=$(_wh_pid)
        if [ -n "$WH_HTTPD_PID" ] && _wh_port_open; then return 0; fi
        sleep 0.1
    done
    [ -z "${WH_QUIET_START:-}" ] && { echo "httpd did not come up" >&2; tail -n 20 "$T/logs/error.log" >&2 2>/dev/null; }
    return 1
}

# wh_httpd_stop -- stop and wait for the parent to exit (10 s, then KILL)
wh_httpd_stop() {
    local conf=${WH_HTTPD_CONF:-$T/httpd.conf} pid i
    pid=$(_wh_pid)
    [ -z "$pid" ] && pid=$WH_HTTPD_PID
    [ -z "$pid" ] && return 0
    _wh_httpd_ours "$pid" || { WH_HTTPD_PID=""; rm -f "$T/run/httpd.pid"; return 0; }
    # the children, by pid: if the parent has to be killed they would be
    # orphaned and keep running
    local kids
    kids=$(pgrep -P "$pid" 2>/dev/null | tr '\n' ' ')
    "$WH_HTTPD" -f "$conf" -k stop >/dev/null 2>&1
    for i in $(seq 1 100); do
        _wh_httpd_ours "$pid" || break
        sleep 0.1
    done
    if _wh_httpd_ours "$pid"; then
        kill -KILL "$pid" 2>/dev/null
        sleep 0.2
        for i in $kids; do
            # still ours? (same pid, same command line)
            grep -qsF "$conf" "/proc/$i/cmdline" && kill -KILL "$i" 2>/dev/null
        done
    fi
    WH_HTTPD_PID=""
    rm -f "$T/run/httpd.pid"
    return 0
}

# wh_httpd_kill9 -- SIGKILL to the parent and every child at once (a crash,
# not a stop: nothing gets to clean up); returns once the parent is gone
wh_httpd_kill9() {
    local pp kids
    pp=$(_wh_pid)
    [ -n "$pp" ] || return 1
    _wh_httpd_ours "$pp" || return 1
    kids=$(ps -o pid= --ppid "$pp" 2>/dev/null)
    kill -9 "$pp" $kids 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$pp" 2>/dev/null || break; sleep 0.1; done
    rm -f "$T/run/httpd.pid"
    WH_HTTPD_PID=""
}

# wh_httpd_restart -- full stop + start
wh_httpd_restart() { wh_httpd_stop; wh_httpd_start; }

# _wh_httpd_cycle MODE -- apache2 -k MODE, then waits for the new generation
# ("resuming normal operations" once more) and the listener
_wh_httpd_cycle() {
    local conf=${WH_HTTPD_CONF:-$T/httpd.conf} before i
    before=$(grep -c 'resuming normal operations' "$T/logs/error.log" 2>/dev/null)
    "$WH_HTTPD" -f "$conf" -k "$1" >/dev/null 2>&1 || return 1
    for i in $(seq 1 100); do
        [ "$(grep -c 'resuming normal operations' "$T/logs/error.log" 2>/dev/null)" -gt "${before:-0}" ] && break
        sleep 0.1
    done
    wh_wait_port "$WH_PORT" 5
}

# wh_httpd_graceful -- apache2 -k graceful; waits for the new generation
wh_httpd_graceful() { _wh_httpd_cycle graceful; }

# wh_httpd_hup -- apache2 -k restart (SIGHUP: children stopped at once, the
# parent stays and re-reads the configuration); waits for the new generation
wh_httpd_hup() { _wh_httpd_cycle restart; }

# ---------------------------------------------------------------- bodies ---
# the umask the suite started with: under 022 new files are already 0644
_WH_UMASK=$(umask)
# wh_now_utc VAR -> VAR = now as 2026-01-02T03:04:05Z, by bash's own
# strftime when a temporary TZ reaches it (checked once), else date -u
_wh_tz_builtin=""
wh_now_utc() {
    if [ -z "$_wh_tz_builtin" ]; then
        local z=""
        TZ=UTC0 printf -v z '%(%z)T' -1 2>/dev/null
        if [ "$z" = "+0000" ]; then _wh_tz_builtin=1; else _wh_tz_builtin=0; fi
    fi
    if [ "$_wh_tz_builtin" = 1 ]; then TZ=UTC0 printf -v "$1" '%(%Y-%m-%dT%H:%M:%SZ)T' -1
    else printf -v "$1" '%s' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"; fi
}

# wh_uuid -> a random UUID v4 (the kernel's, without a process; python's
# elsewhere)
# wh_uuid VAR -> the same into VAR, without a subshell
wh_uuid() {
    local u=""
    read -r u </proc/sys/kernel/random/uuid 2>/dev/null
    [ ${#u} -eq 36 ] || u=$(python3 -c 'import uuid; print(uuid.uuid4())')
    if [ $# -gt 0 ]; then printf -v "$1" '%s' "$u"; else printf '%s\n' "$u"; fi
}

# The shared sample as json.dumps(indent=2) writes it, with placeholders
# for the fields wh_body changes; made once per suite ($T).
_wh_body_template() {
    local tpl="$T/.wh_body.tpl"
    if [ ! -s "$tpl" ]; then
        python3 - "$WH_SAMPLE_SRC" "$tpl.$BASHPID" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["notificationId"] = "@@WH_ID@@"
d["eventDateTime"] = "@@WH_TIME@@"
d["data"]["wireEventInfo"]["status"] = "@@WH_STATUS@@"
open(sys.argv[2], "w").write(json.dumps(d, indent=2))
EOF
        mv -f "$tpl.$BASHPID" "$tpl" || return 1
    fi
    printf '%s\n' "$tpl"
}

# wh_body [STATUS] [ID] [OUTFILE] -> writes a fresh valid notification (new
# notificationId, eventDateTime now) based on the shared sample; prints path.
# The bytes are python's json.dumps(indent=2) of the sample with the three
# fields set: filled into a template when the values need no JSON escaping,
# else written by python.
wh_body() {
    local st=${1:-Complete} id=${2:-} out=${3:-}
    local safe='^[A-Za-z0-9 ._:-]*$' tpl=$T/.wh_body.tpl body="" now
    [ -n "$id" ] || wh_uuid id
    if [ -z "$out" ]; then
        # mktemp's name without its process (the suites post thousands of
        # bodies; forks and execs are most of their CPU)
        out=$T/body.$BASHPID.$SRANDOM
        while [ -e "$out" ]; do out=$T/body.$BASHPID.$SRANDOM; done
    fi
    if [[ $st =~ $safe ]] && [[ $id =~ $safe ]] && { [ -s "$tpl" ] || _wh_body_template >/dev/null; } &&
        [ -s "$tpl" ]; then
        wh_now_utc now
        IFS= read -r -d '' body <"$tpl"
        body=${body//@@WH_ID@@/"$id"}
        body=${body//@@WH_TIME@@/"$now"}
        body=${body//@@WH_STATUS@@/"$st"}
        printf '%s' "$body" >"$out"
    else
        python3 - "$WH_SAMPLE_SRC" "$st" "$id" "$out" <<'EOF'
import json, sys, datetime
src, st, nid, out = sys.argv[1:5]
d = json.load(open(src))
d["notificationId"] = nid
d["eventDateTime"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
d["data"]["wireEventInfo"]["status"] = st
open(out, "w").write(json.dumps(d, indent=2))
EOF
    fi
    [ "$_WH_UMASK" = 0022 ] || chmod 644 "$out"
    echo "$out"
}

# wh_body_id FILE -> the notificationId of a body file (read from wh_body's
# layout when it is that, else parsed by python)
wh_body_id() {
    local ids
    ids=$(sed -n 's/^  "notificationId": "\([^"\\]*\)",\{0,1\}$/\1/p' "$1" 2>/dev/null)
    if [ -n "$ids" ] && [ "${ids//$'\n'/}" = "$ids" ]; then
        printf '%s\n' "$ids"
        return 0
    fi
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["notificationId"])' "$1"
}

# ---------------------------------------------------------------- signing ---
# wh_sign_openssl SECRET METHOD URL BODYFILE TS -> hex (independent oracle)
wh_sign_openssl() {
    { printf '%s%s' "$2" "$3"; cat "$4"; printf '%s' "$5"; } |
        openssl dgst -sha256 -hmac "$1" -r | cut -d' ' -f1
}

# wh_sign SECRETFILE METHOD URL BODYFILE TS -> hex signature, with
# `wirehook sign` when it is built, else openssl with the file's first secret
wh_sign() {
    local sig=""
    if [ -x "$WIREHOOK" ] && [ -z "${WH_SIGN_OPENSSL:-}" ]; then
        sig=$("$WIREHOOK" sign --secret-file "$1" --method "$2" --url "$3" --timestamp "$5" "$4" 2>/dev/null)
        sig=${sig//[$'\r\n ']/}
    fi
    if [ ${#sig} -ne 64 ]; then
        local sec
        sec=$(grep -v '^#' "$1" | grep -v '^[[:space:]]*$' | head -n 1 | tr -d '\r')
        sig=$(wh_sign_openssl "$sec" "$2" "$3" "$4" "$5")
    fi
    printf '%s\n' "$sig"
}

# _wh_sign_fast VAR SECRETFILE METHOD URL BODYFILE TS -- VAR = the signature
# from app/signer.py, started once beside the suite's own shell and spoken
# to through two FIFOs (no process per request). It is not a job of the
# shell (a suite's bare `wait` must not wait for it) and is stopped with
# the other helpers. Returns 1 (VAR empty) where it cannot serve: in a
# subshell, which does not own the pipes, or when a field holds a tab or
# a newline; the caller then signs with wh_sign.
_wh_signer_owner="" _wh_signer_w="" _wh_signer_r=""
_wh_signer_start() {
    local d=$T/.signer pid=""
    mkdir -p "$d" && rm -f "$d/in" "$d/out" && mkfifo -m 600 "$d/in" "$d/out" || return 1
    ( python3 -u "$WH_APP_SRC/signer.py" <"$d/in" >"$d/out" 2>/dev/null &
      echo $! >"$d/pid" )
    exec {_wh_signer_w}>"$d/in" {_wh_signer_r}<"$d/out" || return 1
    read -r pid <"$d/pid"
    [ -n "$pid" ] && wh_bg_add $pid
    _wh_signer_owner=$BASHPID
}
_wh_sign_fast() {
    local -n _out=$1; shift
    _out=""
    [ -z "${WH_SIGN_OPENSSL:-}" ] && [ -n "${T:-}" ] || return 1
    case "$*" in *$'\t'*|*$'\n'*) return 1 ;; esac
    if [ "$_wh_signer_owner" != "$BASHPID" ]; then
        [ -z "$_wh_signer_owner" ] && [ "$BASHPID" = "$$" ] || return 1
        _wh_signer_start || { _wh_signer_owner=none; return 1; }
    fi
    # any trouble retires the helper for the rest of the suite: a late
    # answer must never be read as the next request's signature
    if ! printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >&"$_wh_signer_w" 2>/dev/null ||
        ! IFS= read -r -t 10 _out <&"$_wh_signer_r"; then
        _out=""; _wh_signer_owner=none
        return 1
    fi
    [ ${#_out} -eq 64 ] || { _out=""; return 1; }
    return 0
}

# ---------------------------------------------------------------- requests ---
# wh_curl CURL-ARGS... -- any request; sets WH_STATUS, WH_BODY and
# $T/resp.headers (see wh_header)
wh_curl() {
    # emptied rather than removed (no rm process): a request that gets no
    # answer leaves them empty
    : >"$T/resp.body"; : >"$T/resp.headers"
    WH_STATUS=$(curl -sS -o "$T/resp.body" -D "$T/resp.headers" -w '%{http_code}' \
        --max-time "${WH_CURL_TIMEOUT:-20}" "$@" 2>"$T/resp.err")
    WH_BODY=""
    IFS= read -r -d '' WH_BODY <"$T/resp.body"
    while [[ $WH_BODY == *$'\n' ]]; do WH_BODY=${WH_BODY%$'\n'}; done
    [ -n "${WH_VERBOSE:-}" ] && printf '       -> %s %s\n' "$WH_STATUS" "$WH_BODY"
    return 0
}

# wh_post URL BODYFILE [CURL-ARGS...] -- a request as the bank sends it.
# Knobs (set as VAR=value wh_post ...):
#   WH_METHOD    POST          WH_CT       application/json ("-" omits it)
#   WH_AUTH      user:pass ("-" sends no Authorization)
#   WH_TS        timestamp ("-" omits the header; default now in seconds)
#   WH_SIG       signature value ("-" omits it; default computed)
#   WH_SIGN_URL  URL that is signed (default URL)
#   WH_SIGN_FILE secrets file whose first secret signs (default $WH_SECRETS)
#   WH_SIGN_BODY body file that is signed (default BODYFILE)
#   WH_TS_HEADER / WH_SIG_HEADER  header names
wh_post() {
    local url=$1 body=$2; shift 2
    local method=${WH_METHOD:-POST} ct=${WH_CT:-application/json}
    local auth=${WH_AUTH:-$WH_USER:$WH_PASSWD} ts=${WH_TS:-}
    [ -n "$ts" ] || printf -v ts '%(%s)T' -1
    local sig=${WH_SIG:-}
    if [ -z "$sig" ]; then
        _wh_sign_fast sig "${WH_SIGN_FILE:-$WH_SECRETS}" "$method" "${WH_SIGN_URL:-$url}" \
            "${WH_SIGN_BODY:-$body}" "$ts" ||
        sig=$(wh_sign "${WH_SIGN_FILE:-$WH_SECRETS}" "$method" "${WH_SIGN_URL:-$url}" \
            "${WH_SIGN_BODY:-$body}" "$ts")
    fi
    local -a a=(-X "$method" --data-binary "@$body" -H "Expect:")
    if [ "$ct" = "-" ]; then a+=(-H "Content-Type:"); else a+=(-H "Content-Type: $ct"); fi
    [ "$auth" != "-" ] && a+=(-u "$auth")
    [ "$ts" != "-" ] && a+=(-H "$WH_TS_HEADER: $ts")
    [ "$sig" != "-" ] && a+=(-H "$WH_SIG_HEADER: $sig")
    wh_curl "${a[@]}" "$@" "$url"
}

# ------------------------------------------------------------- app output ---
# The record.cgi app writes one directory per invocation under $T/app/calls/
# (body, env, marker); wh_app_calls counts them, wh_app_last prints the
# newest one's directory; wh_app_reset clears them.
# (bash globs and test -nt: no find, ls or wc processes)
wh_app_calls() {
    local d n=0
    for d in "$T/app/calls"/* "$T/app/calls"/.[!.]*; do [ -d "$d" ] && n=$((n + 1)); done
    printf '%s\n' "$n"
}
wh_app_last() {
    local d best=""
    for d in "$T/app/calls"/*; do
        [ -d "$d" ] || continue
        if [ -z "$best" ] || [ "$d" -nt "$best" ]; then best=$d; fi
    done
    [ -n "$best" ] && printf '%s\n' "$best"
    return 0
}
wh_app_reset() { rm -rf "$T/app/calls" "$T/app"/ignored.*; }
# wh_app_env DIR NAME -> value of NAME in the recorded environment
wh_app_env() { grep -m1 "^$2=" "$1/env" 2>/dev/null | cut -d= -f2-; }

# wh_sender_creds DIR USER PASSWORD SECRET -- what app/bank_sender.py
# sends with from its next request on: DIR/creds replaced whole (a copy
# renamed over it), so the sender never reads a half-written file or one
# credential of the new set with another of the old.
wh_sender_creds() {
    printf '%s\n%s\n%s\n' "$2" "$3" "$4" >"$1/creds.new" && mv -f "$1/creds.new" "$1/creds"
}

# wh_backend_start PORT [OUTDIR] -- app/backend.py (a plain HTTP backend
# outside httpd, for mod_proxy tests) on 127.0.0.1:PORT; records calls like
# record.cgi under OUTDIR/calls (default $T/app). Stopped on exit.
wh_backend_start() {
    local port=$1 out=${2:-$T/app}
    python3 "$WH_APP_SRC/backend.py" "$port" "$out" >>"$T/logs/backend.log" 2>&1 &
    wh_bg_add $!
    wh_wait_port "$port" 5 && return 0
    echo "backend did not come up on $port" >&2
    return 1
}

# wh_site_account PREFIX -- a throwaway account for a shared-hosting site
# (suEXEC runs its scripts as it): WH_ACCT, PREFIX and five digits, with
# a home and no shell; its site directory is WH_SITE (/var/www/WH_ACCT,
# not made). 1 after saying why when it cannot be made. Root only; the
# suite removes it with wh_site_account_remove in its EXIT trap.
WH_ACCT=""; WH_SITE=""; _wh_acct_made=""
wh_site_account() {
    WH_ACCT="$1$(printf '%05d' $((RANDOM % 100000)))"
    WH_SITE="/var/www/$WH_ACCT"
    getent passwd "$WH_ACCT" >/dev/null && { _wh_bad "account $WH_ACCT exists already"; return 1; }
    _wh_acct_made=1
    # (useradd gives up while another program holds /etc/passwd's lock)
    for _ in 1 2 3 4 5; do
        useradd -m -d "/home/$WH_ACCT" -s /usr/sbin/nologin -U "$WH_ACCT" 2>"$T/useradd.err" && break
        sleep 1
    done
    getent passwd "$WH_ACCT" >/dev/null || { _wh_bad "useradd $WH_ACCT" "$(cat "$T/useradd.err")"; return 1; }
}
# wh_site_account_remove -- the account, its home and its site, if made
wh_site_account_remove() {
    [ -n "$_wh_acct_made" ] || return 0
    for _ in 1 2 3 4 5; do
        userdel -r "$WH_ACCT" >/dev/null 2>&1
        getent passwd "$WH_ACCT" >/dev/null || break
        sleep 1
    done
    getent passwd "$WH_ACCT" >/dev/null && echo "$(basename "$0"): could not remove account $WH_ACCT" >&2
    rm -rf "/home/$WH_ACCT" "$WH_SITE"
}

# wh_errlog -> the error log
wh_errlog() { cat "$T/logs/error.log" 2>/dev/null; }
