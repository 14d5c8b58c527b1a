# A throwaway MariaDB server on 127.0.0.1 for the MySQL tests. Source it:
#
#   . "$(dirname "$0")/mariadb.sh"
#   mariadb_start || fail       # a fresh server, started; sets MARIADB_PARAMS,
#                               # MARIADB_PORT, MARIADB_PASSWORD
#   ... InboxDriver mysql / InboxParams "$MARIADB_PARAMS" ...
#   mariadb_stop; mariadb_resume    # outage and recovery, same data
#   mariadb_kill                    # a crash (SIGKILL), data kept
#   mariadb_sql "SELECT count(*) FROM wh_events"
#
# The server has its own data directory in a temp dir owned by the mysql
# user (tests run as root; mariadbd will not), listens on loopback only
# with password authentication for the user "wirehook" (so the tests can
# check that a password never reaches a log), and is always stopped by pid
# and removed on exit, chained in front of any EXIT trap already set
# (lib.sh's). MARIADB_PARAMS is apr_dbd's mysql parameter string.
#
# Honoured: MARIADB_BIN (default: the directory holding mariadbd).

MARIADB_DIR=""
MARIADB_PORT=""
MARIADB_PARAMS=""
MARIADB_PASSWORD=""

_mariadb_bin() {
    if [ -n "${MARIADB_BIN:-}" ]; then printf '%s\n' "$MARIADB_BIN"; return; fi
    local d
    d=$(command -v mariadbd 2>/dev/null || ls /usr/sbin/mariadbd 2>/dev/null)
    [ -n "$d" ] && dirname "$d"
}

# mariadb_available -> 0 when the server and its installer exist
mariadb_available() {
    local b
    b=$(_mariadb_bin)
    [ -n "$b" ] && [ -x "$b/mariadbd" ] && command -v mariadb-install-db >/dev/null 2>&1 &&
        command -v mariadb >/dev/null 2>&1
}

_mariadb_as() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u mysql -- "$@"; else "$@"; fi
}

_mariadb_free_port() {
    if type wh_free_port >/dev/null 2>&1; then wh_free_port; return; fi
    local p i
    for i in $(seq 1 200); do
        p=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
    done
    return 1
}

# mariadb_sql SQL [DB] -> output (tab-separated, no headers) as root over
# the socket
mariadb_sql() {
    mariadb --no-defaults -S "$MARIADB_DIR/sock" -u root -N -B \
        "${2:-wirehook}" -e "$1" 2>&1
}

# mariadb_start -- new server, database "wirehook" (utf8mb4), user
# "wirehook" with a password; sets MARIADB_PARAMS. Returns 1 with the
# server log on stderr on failure.
mariadb_start() {
    mariadb_available || {
        echo "mariadb.sh: no MariaDB server (apt-get install mariadb-server)" >&2; return 1; }
    # WH_DB_SCRATCH: see lib.sh
    MARIADB_DIR=$(mktemp -d "${WH_DB_SCRATCH:-/tmp}/wh-mariadb.XXXXXX") || return 1
    chmod 755 "$MARIADB_DIR"
    [ "$(id -u)" -eq 0 ] && chown mysql "$MARIADB_DIR"
    _mariadb_install_trap
    MARIADB_PORT=$(_mariadb_free_port) || return 1
    # its own tmpdir: servers started at once in /tmp collided on their
    # temporary tables' names and the bootstrap failed now and then
    mkdir -p "$MARIADB_DIR/tmp" && chmod 700 "$MARIADB_DIR/tmp"
    [ "$(id -u)" -eq 0 ] && chown mysql "$MARIADB_DIR/tmp"
    _mariadb_as mariadb-install-db --no-defaults --datadir="$MARIADB_DIR/data" \
        --tmpdir="$MARIADB_DIR/tmp" \
        --auth-root-authentication-method=socket --skip-test-db \
        >"$MARIADB_DIR/install.log" 2>&1 || {
        echo "mariadb.sh: mariadb-install-db failed" >&2
        tail -n 20 "$MARIADB_DIR/install.log" >&2; return 1; }
    mariadb_resume || return 1
    MARIADB_PASSWORD="pw-$(date +%s%N | sha256sum | cut -c1-20)"
    mariadb_sql "CREATE DATABASE wirehook CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
        CREATE USER 'wirehook'@'127.0.0.1' IDENTIFIED BY '$MARIADB_PASSWORD';
        GRANT ALL ON wirehook.* TO 'wirehook'@'127.0.0.1';" mysql >/dev/null || return 1
    MARIADB_PARAMS="host=127.0.0.1 port=$MARIADB_PORT user=wirehook pass=$MARIADB_PASSWORD dbname=wirehook connecttimeout=5"
    export MARIADB_PARAMS MARIADB_PORT MARIADB_PASSWORD
    return 0
}

# mariadb_resume -- start the (stopped) server again; waits until it
# accepts connections
mariadb_resume() {
    local i
    # a root shell's umask would make files the mysql user cannot reopen
    ( cd "$MARIADB_DIR" && umask 077 &&
      _mariadb_as "$(_mariadb_bin)/mariadbd" --no-defaults \
        --datadir="$MARIADB_DIR/data" --socket="$MARIADB_DIR/sock" \
        --tmpdir="$MARIADB_DIR/tmp" \
        --pid-file="$MARIADB_DIR/pid" --log-error="$MARIADB_DIR/server.log" \
        --port="$MARIADB_PORT" --bind-address=127.0.0.1 --skip-name-resolve \
        --character-set-server=utf8mb4 --collation-server=utf8mb4_bin \
        --innodb-buffer-pool-size=32M --max-connections=200 \
        </dev/null >/dev/null 2>&1 & )
    for i in $(seq 1 300); do
        if mariadb-admin --no-defaults -S "$MARIADB_DIR/sock" -u root ping >/dev/null 2>&1; then
            return 0
        fi
        sleep 0.1
    done
    echo "mariadb.sh: MariaDB did not start" >&2
    tail -n 20 "$MARIADB_DIR/server.log" >&2
    return 1
}

# The server's pid, only while that process is still mariadbd: pids wrap
# at 32768 on some machines, and a make check starts tens of thousands of
# processes, so a pid from a file can name another suite's process by the
# time it is signalled.
_mariadb_is_server() {
    local comm=""
    { read -r comm <"/proc/$1/comm"; } 2>/dev/null
    [ "$comm" = mariadbd ]
}
_mariadb_pid() {
    local pid=""
    [ -f "$MARIADB_DIR/pid" ] && read -r pid <"$MARIADB_DIR/pid"
    [ -n "$pid" ] && _mariadb_is_server "$pid" && printf '%s\n' "$pid"
}

_mariadb_wait_gone() {
    local pid=$1 i
    for i in $(seq 1 300); do
        _mariadb_is_server "$pid" || return 0
        sleep 0.1
    done
    return 1
}

# mariadb_stop -- clean shutdown, data kept for mariadb_resume
mariadb_stop() {
    local pid
    [ -n "$MARIADB_DIR" ] && pid=$(_mariadb_pid) && [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null
    _mariadb_wait_gone "$pid" ||
        { _mariadb_is_server "$pid" && kill -KILL "$pid" 2>/dev/null; _mariadb_wait_gone "$pid"; }
    rm -f "$MARIADB_DIR/pid"
    return 0
}

# mariadb_pause / mariadb_unpause -- a server that stops answering
# (SIGSTOP: a frozen machine), and its return. runuser, its parent,
# stops itself when its child stops (job control) and would then never
# reap it: it is let go on as well.
mariadb_pause() {
    local pid
    pid=$(_mariadb_pid) && [ -n "$pid" ] && kill -STOP "$pid"
}
mariadb_unpause() {
    local pid ppid
    pid=$(_mariadb_pid) && [ -n "$pid" ] || return 0
    kill -CONT "$pid" 2>/dev/null
    ppid=$(ps -o ppid= -p "$pid" 2>/dev/null | tr -d ' ')
    [ -n "$ppid" ] && [ "$ppid" != 1 ] && kill -CONT "$ppid" 2>/dev/null
    return 0
}

# mariadb_kill -- a crash: SIGKILL, data kept (InnoDB recovers it on resume)
mariadb_kill() {
    local pid
    [ -n "$MARIADB_DIR" ] && pid=$(_mariadb_pid) && [ -n "$pid" ] || return 0
    kill -KILL "$pid" 2>/dev/null
    _mariadb_wait_gone "$pid"
    rm -f "$MARIADB_DIR/pid"
    return 0
}

# mariadb_destroy -- stop and remove everything
mariadb_destroy() {
    [ -n "$MARIADB_DIR" ] || return 0
    mariadb_unpause             # a suite that failed mid-stall
    mariadb_stop
    rm -rf "$MARIADB_DIR"
    MARIADB_DIR=""
}

_mariadb_on_exit() {
    local rc=$?
    mariadb_destroy
    if [ -n "${_MARIADB_PREV_TRAP:-}" ]; then
        ( exit $rc )
        eval "$_MARIADB_PREV_TRAP"
    fi
    exit $rc
}

_mariadb_install_trap() {
    # keep whatever EXIT trap is set (lib.sh's, pg.sh's)
    _MARIADB_PREV_TRAP=$(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//")
    [ "$_MARIADB_PREV_TRAP" = "_mariadb_on_exit" ] && _MARIADB_PREV_TRAP=""
    trap _mariadb_on_exit EXIT
}
