# A throwaway PostgreSQL on 127.0.0.1 for the inbox tests. Source it:
#
#   . "$(dirname "$0")/pg.sh"
#   pg_start || fail            # a fresh cluster, started; sets PG_CONNINFO, PG_PORT
#   ... InboxDriver pgsql / InboxParams "$PG_CONNINFO" ...
#   pg_stop; pg_resume          # outage and recovery, same data
#   pg_sql "SELECT count(*) FROM wh_events"
#
# The cluster lives in its own temp dir owned by the postgres user (tests
# run as root, and PostgreSQL refuses to run as root), listens on loopback
# only, uses password (SCRAM) authentication so the tests can check that a
# conninfo password never reaches a log, and is always stopped and removed
# on exit, chained in front of any EXIT trap already set (lib.sh's).
#
# Honoured: PG_BIN (default: newest /usr/lib/postgresql/*/bin).

PG_DIR=""
PG_PORT=""
PG_CONNINFO=""
PG_PASSWORD=""
PG_SUPERPW=""

pg_bin() {
    if [ -n "${PG_BIN:-}" ]; then printf '%s\n' "$PG_BIN"; return; fi
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

# pg_available -> 0 when initdb/pg_ctl exist
pg_available() { local b; b=$(pg_bin); [ -n "$b" ] && [ -x "$b/initdb" ] && [ -x "$b/pg_ctl" ]; }

# Runs a command as the cluster owner: postgres when we are root.
_pg_as() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

_pg_free_port() {
    if type wh_free_port >/dev/null 2>&1; then wh_free_port; return; fi
    local p i
    for i in $(seq 1 200); do
        p=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))   # below the ephemeral range
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
    done
    return 1
}

# pg_sql SQL [DB] -> psql output (unaligned, tuples only) as the superuser
pg_sql() {
    PGPASSWORD="$PG_SUPERPW" "$(pg_bin)/psql" -X -q -At -h 127.0.0.1 -p "$PG_PORT" \
        -U postgres -d "${2:-wirehook}" -v ON_ERROR_STOP=1 -c "$1" 2>&1
}

_pg_ctl() { _pg_as "$(pg_bin)/pg_ctl" -D "$PG_DIR/data" "$@"; }

# _pg_template -> a directory holding a fresh cluster (data/) and its
# superuser password (superpw), made by initdb once: run.sh gives every
# suite of a run the same WH_PG_TEMPLATE (a copy costs a tenth of an
# initdb, and five suites start clusters), a suite run alone makes its
# own. Made under a lock, since suites run side by side.
_pg_template() {
    local bin tpl
    bin=$(pg_bin)
    tpl=${WH_PG_TEMPLATE:-$PG_DIR/template}
    mkdir -p "$tpl" || return 1
    (
        exec 9>"$tpl/.lock"
        flock 9
        if [ -f "$tpl/ready" ] && [ "$(cat "$tpl/ready")" = "$bin" ]; then exit 0; fi
        rm -rf "$tpl/data" "$tpl/superpw" "$tpl/ready" "$tpl/work"
        mkdir -p "$tpl/work" && chmod 755 "$tpl" "$tpl/work" || exit 1
        [ "$(id -u)" -eq 0 ] && chown postgres "$tpl/work"
        printf 'su-%s\n' "$(date +%s%N | sha256sum | cut -c1-20)" >"$tpl/work/pwfile"
        chmod 600 "$tpl/work/pwfile"
        [ "$(id -u)" -eq 0 ] && chown postgres "$tpl/work/pwfile"
        # -N: no fsync of the new files; a copy is what runs, and the
        # template is rebuilt when in doubt
        _pg_as "$bin/initdb" -N -D "$tpl/work/data" -U postgres -E UTF8 --locale=C \
            --auth-local=scram-sha-256 --auth-host=scram-sha-256 --pwfile="$tpl/work/pwfile" \
            >"$tpl/initdb.log" 2>&1 || { cat "$tpl/initdb.log" >&2; exit 1; }
        mv "$tpl/work/data" "$tpl/data" && mv "$tpl/work/pwfile" "$tpl/superpw" &&
            rm -rf "$tpl/work" && printf '%s\n' "$bin" >"$tpl/ready"
    ) || return 1
    printf '%s\n' "$tpl"
}

# pg_start -- new cluster, database "wirehook", role "wirehook" (password),
# sets PG_CONNINFO. Returns 1 with the server log on stderr on failure.
pg_start() {
    pg_available || { echo "pg.sh: no PostgreSQL binaries (apt-get install postgresql)" >&2; return 1; }
    # WH_DB_SCRATCH (lib.sh: memory when the machine has it to spare)
    PG_DIR=$(mktemp -d "${WH_DB_SCRATCH:-/tmp}/wh-pg.XXXXXX") || return 1
    chmod 755 "$PG_DIR"
    [ "$(id -u)" -eq 0 ] && chown postgres "$PG_DIR"
    _pg_install_trap
    PG_PORT=$(_pg_free_port) || return 1
    local tpl
    tpl=$(_pg_template) || return 1
    PG_SUPERPW=$(<"$tpl/superpw")
    PG_PASSWORD="pw-$(date +%s%N | sha256sum | cut -c1-20)"
    cp -a "$tpl/data" "$PG_DIR/data" || return 1
    # Loopback only, socket in our dir, small and quick to start.
    cat >>"$PG_DIR/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PG_DIR'
max_connections = 100
shared_buffers = 32MB
logging_collector = off
log_min_messages = warning
EOF
    # The suites' roles sign in with md5, not SCRAM: a CGI request is a
    # new session, and SCRAM's 4096 rounds of PBKDF2 on both sides were a
    # third of test_inbox_pg's CPU. The password still crosses the wire
    # only hashed and is still never logged, which is what the suites
    # check; make bench keeps SCRAM (WH_PG_AUTH=scram-sha-256).
    if [ "${WH_PG_AUTH:-md5}" = md5 ]; then
        echo "password_encryption = md5" >>"$PG_DIR/data/postgresql.conf"
        sed -i 's/scram-sha-256$/md5/' "$PG_DIR/data/pg_hba.conf"
    fi
    pg_resume || return 1
    pg_sql "CREATE ROLE wirehook LOGIN PASSWORD '$PG_PASSWORD'" postgres >/dev/null || return 1
    pg_sql "CREATE DATABASE wirehook OWNER wirehook" postgres >/dev/null || return 1
    PG_CONNINFO="host=127.0.0.1 port=$PG_PORT dbname=wirehook user=wirehook password=$PG_PASSWORD connect_timeout=5"
    export PG_CONNINFO PG_PORT PG_PASSWORD
    return 0
}

# pg_resume -- start the (stopped) cluster again; waits until it accepts
pg_resume() {
    _pg_ctl -w -t 30 -l "$PG_DIR/server.log" start >/dev/null 2>&1 || {
        echo "pg.sh: PostgreSQL did not start" >&2; tail -n 20 "$PG_DIR/server.log" >&2; return 1; }
    return 0
}

# pg_stop -- fast shutdown (ends sessions), data kept for pg_resume
pg_stop() {
    [ -n "$PG_DIR" ] && [ -f "$PG_DIR/data/postmaster.pid" ] || return 0
    _pg_ctl -w -t 30 -m fast stop >/dev/null 2>&1 || _pg_ctl -m immediate stop >/dev/null 2>&1
    return 0
}

# pg_destroy -- stop and remove everything
pg_destroy() {
    [ -n "$PG_DIR" ] || return 0
    pg_stop
    rm -rf "$PG_DIR"
    PG_DIR=""
}

_pg_on_exit() {
    local rc=$?
    pg_destroy
    if [ -n "${_PG_PREV_TRAP:-}" ]; then
        ( exit $rc )
        eval "$_PG_PREV_TRAP"
    fi
    exit $rc
}

_pg_install_trap() {
    # keep whatever EXIT trap is set (lib.sh removes httpd and $T)
    _PG_PREV_TRAP=$(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//")
    [ "$_PG_PREV_TRAP" = "_pg_on_exit" ] && _PG_PREV_TRAP=""
    trap _pg_on_exit EXIT
}
