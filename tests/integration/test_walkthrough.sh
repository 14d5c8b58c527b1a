#!/usr/bin/env bash
# wh-package: builds the Debian packages (make deb) and installs them
# The deployment walkthrough, run as written: the ```sh blocks of README.md's
# "Quick start on Debian" and then those of docs/deploy.md, in order, in one
# shell, on THIS machine, as root: the packages built by `make deb` are
# installed with apt, /etc/wirehook is written, apache2 serves the inbox on
# loopback, notifications are sent, stored and forwarded to the example
# application. Then the suite checks what the commands left: the inbox, the
# application's records, and the forwarder's unit forwarding a further
# notification by itself.
#
# What the suite changes, and why:
#   - the commands run in a directory holding the two packages, so that
#     ./libapache2-mod-wirehook_*.deb and ./wirehook_*.deb are the ones
#     `make deb` just built;
#   - http://localhost/ is http://127.0.0.1:PORT/ and 127.0.0.1:8090 is
#     127.0.0.1:PORT2, both free ports: a suite never uses a fixed port;
#   - sudo, systemctl and journalctl are the suite's own, first in PATH:
#     sudo runs the command (sudo -u USER: as USER, with setpriv);
#     systemctl runs the system's apache2 with the configuration in
#     /etc/apache2 as a private instance: its ports.conf replaced by
#     "Listen 127.0.0.1:PORT", its pid file, logs and runtime directory in
#     the suite's temp dir, so the machine's own apache2 is never touched;
#     for a unit it runs the unit file's own ExecStart as its User and
#     Group, in the background; journalctl prints what that unit wrote;
#   - nothing has a terminal (setsid): htpasswd reads PASSWORD twice from
#     stdin, and apt's question is answered yes (APT_CONFIG: Assume-Yes).
#
# It takes test_deb.sh's lock, puts /etc/apache2 and /var/lib/apache2 back
# as found, purges the packages, and removes /etc/wirehook,
# /var/lib/wirehook and /tmp/received.db, which must not exist before.
# Needs root and dpkg; without them it is skipped.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/system_lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v dpkg >/dev/null 2>&1 || ! command -v apt >/dev/null 2>&1; then
    wh_skip "installing packages needs root, dpkg and apt"
fi

wh_init
MODPKG=libapache2-mod-wirehook
CLIPKG=wirehook
PASSWORD=PASSWORD                # what the suite types at htpasswd's prompt
APP_PORT=$(wh_free_port)
while [ "$APP_PORT" = "$WH_PORT" ]; do APP_PORT=$(wh_free_port); done
WT="$T/walk"                     # the suite's state: shims, private apache2, units
CWD="$T/cwd"
mkdir -p "$WT/bin" "$WT/units" "$CWD"
chmod 755 "$WT" "$WT/units" "$CWD"
OWN=(/etc/wirehook /var/lib/wirehook /tmp/received.db)

sys_lock || wh_done
for p in $MODPKG $CLIPKG; do
    pkg_absent "$p" || { _wh_bad "$p is already on this machine: the walkthrough installs and purges it (dpkg --purge $p)"; wh_done; }
done
for f in "${OWN[@]}"; do
    [ -e "$f" ] && { _wh_bad "$f already exists: the walkthrough creates it and removes it; move it away"; wh_done; }
done

# ------------------------------------------------------ the commands ---
# sh_blocks FILE [HEADING]: the ```sh blocks of FILE (of the section HEADING
# only, when given), each followed by a marker line "#@ FILE:LINE"
sh_blocks() {
    awk -v want="${2:-}" -v file="$1" '
        /^## / { in_sec = (want == "" || $0 == "## " want) }
        /^```/ {
            if (!open) { open = 1; take = (in_sec || want == "") && $0 == "```sh"; start = NR; next }
            open = 0; if (take) print "#@ " file ":" start; take = 0; next
        }
        open && take { print }' "$1"
}
(cd "$WH_TOP" && { sh_blocks README.md "Quick start on Debian"; sh_blocks docs/deploy.md; }) >"$T/walkthrough.raw"
nblocks=$(grep -c '^#@ ' "$T/walkthrough.raw")
assert_true "the quick start and docs/deploy.md hold 8 or more sh blocks" test "$nblocks" -ge 8
raw=$(cat "$T/walkthrough.raw")
assert_contains "$raw" "./libapache2-mod-wirehook_*.deb ./wirehook_*.deb" "the walkthrough installs the two packages from ./"
assert_contains "$raw" "http://localhost/" "the walkthrough sends to http://localhost/"
assert_contains "$raw" "127.0.0.1:8090" "the walkthrough's application listens on 127.0.0.1:8090"
assert_not_contains "$(sed 's|http://localhost/||g' <<<"$raw")" "localhost" "no other localhost than http://localhost/"
# the script: each block's commands, then a line that says it got there
{
    echo "trap 'echo \"walkthrough: FAILED (exit \$?): \$BASH_COMMAND\" >&2' ERR"
    echo "trap 'jobs -p >\"\$WT/jobs\"' EXIT"
    sed -e "s|http://localhost/|http://127.0.0.1:$WH_PORT/|g" -e "s|127\.0\.0\.1:8090|127.0.0.1:$APP_PORT|g" \
        -e 's|^#@ \(.*\)$|echo "@@ok \1"|' "$T/walkthrough.raw"
} >"$T/walkthrough.sh"

# ------------------------------------------------------------ the shims ---
cat >"$WT/bin/sudo" <<'EOF'
#!/usr/bin/env bash
# test_walkthrough.sh's sudo: the suite is root already. -u USER runs the
# command as USER and USER's group, environment kept.
user=""
while [ $# -gt 0 ]; do
    case $1 in
        -u) user=$2; shift 2 ;;
        --) shift; break ;;
        -*) echo "sudo (test_walkthrough): option $1 is not supported" >&2; exit 1 ;;
        *) break ;;
    esac
done
[ -z "$user" ] && exec "$@"
exec setpriv --reuid="$user" --regid="$(id -gn "$user")" --init-groups -- "$@"
EOF
cat >"$WT/bin/systemctl" <<'EOF'
#!/usr/bin/env bash
# test_walkthrough.sh's systemctl: apache2 as a private instance of the
# system's configuration on 127.0.0.1:$WT_PORT; a unit's ExecStart as its
# User, in the background.
A="$WT/apache2"
apache() {
    . /etc/apache2/envvars
    export APACHE_PID_FILE="$A/apache2.pid" APACHE_RUN_DIR="$A/run" \
           APACHE_LOCK_DIR="$A/lock" APACHE_LOG_DIR="$A/log"
    mkdir -p "$A/run" "$A/lock" "$A/log"
    chmod 755 "$A" "$A/run"
    sed "s|^Include ports.conf\$|Listen 127.0.0.1:$WT_PORT|" /etc/apache2/apache2.conf >"$A/apache2.conf"
    grep -qx "Listen 127.0.0.1:$WT_PORT" "$A/apache2.conf" ||
        { echo "systemctl (test_walkthrough): /etc/apache2/apache2.conf has no 'Include ports.conf'" >&2; return 1; }
    /usr/sbin/apache2 -d /etc/apache2 -f "$A/apache2.conf" -k "$1" || return 1
    [ "$1" = stop ] && return 0
    # (a script of its own: lib.sh's wh_wait_port is not defined here)
    local i
    for i in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$WT_PORT") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "systemctl (test_walkthrough): apache2 did not come up" >&2
    tail -n 5 "$A/log/error.log" >&2
    return 1
}
alive() { local p; p=$(cat "$1" 2>/dev/null) && [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }
unit_file() {
    local f
    for f in "/lib/systemd/system/${1%%@*}@.service" "/usr/lib/systemd/system/${1%%@*}@.service" \
             "/lib/systemd/system/$1.service" "/usr/lib/systemd/system/$1.service"; do
        [ -f "$f" ] && { echo "$f"; return 0; }
    done
    return 1
}
unit_start() {
    local u=$1 f inst user group exec
    alive "$WT/units/$u.pid" && return 0
    f=$(unit_file "$u") || { echo "Unit $u.service not found." >&2; return 5; }
    inst=${u#*@}
    user=$(sed -n 's/^User=//p' "$f"); group=$(sed -n 's/^Group=//p' "$f")
    exec=$(sed -n 's/^ExecStart=//p' "$f"); exec=${exec//%i/$inst}
    # shellcheck disable=SC2086
    setsid setpriv --reuid="${user:-root}" --regid="${group:-root}" --init-groups -- $exec \
        >>"$WT/units/$u.log" 2>&1 </dev/null &
    echo $! >"$WT/units/$u.pid"
}
unit_stop() { local p; p=$(cat "$WT/units/$1.pid" 2>/dev/null) && kill "$p" 2>/dev/null; rm -f "$WT/units/$1.pid"; }
now=""
args=()
for a in "$@"; do case $a in --now) now=1 ;; --*) ;; *) args+=("$a") ;; esac; done
cmd=${args[0]:-}; u=${args[1]:-}; u=${u%.service}
case "$cmd:$u" in
    daemon-reload:) exit 0 ;;
    start:apache2) alive "$A/apache2.pid" || apache start ;;
    restart:apache2) if alive "$A/apache2.pid"; then apache restart; else apache start; fi ;;
    reload:apache2) alive "$A/apache2.pid" && apache graceful ;;
    stop:apache2) ! alive "$A/apache2.pid" || apache stop ;;
    status:apache2) if alive "$A/apache2.pid"; then echo "  Active: active (running)"; else echo "  Active: inactive (dead)"; exit 3; fi ;;
    enable:*@*) [ -z "$now" ] || unit_start "$u" ;;
    start:*@*|restart:*@*) [ "$cmd" = restart ] && unit_stop "$u"; unit_start "$u" ;;
    stop:*@*|disable:*@*) unit_stop "$u" ;;
    status:*@*) if alive "$WT/units/$u.pid"; then echo "● $u.service"; echo "  Active: active (running)"
                else echo "● $u.service"; echo "  Active: inactive (dead)"; exit 3; fi ;;
    *) echo "systemctl (test_walkthrough): '$*' is not supported" >&2; exit 1 ;;
esac
EOF
cat >"$WT/bin/journalctl" <<'EOF'
#!/usr/bin/env bash
# test_walkthrough.sh's journalctl: -u UNIT prints what the unit wrote
u=""
while [ $# -gt 0 ]; do case $1 in -u) u=${2%.service}; shift 2 ;; *) shift ;; esac; done
cat "$WT/units/$u.log" 2>/dev/null
exit 0
EOF
chmod 755 "$WT/bin/sudo" "$WT/bin/systemctl" "$WT/bin/journalctl"
printf '%s\n%s\n' "$PASSWORD" "$PASSWORD" >"$T/typed"
printf 'APT::Get::Assume-Yes "true";\nDPkg::Lock::Timeout "120";\n' >"$WT/apt.conf"

# ------------------------------------------------------- the packages ---
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s -C "$WH_TOP" BUILD="$WH_BUILD" SHARED_DIR="$WH_SHARED" "$@"; }
out=$(DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-nocheck noautodbgsym}" mk deb 2>&1)
assert_eq 0 $? "make deb succeeds"
MODDEB=$(ls "$WH_BUILD"/deb/${MODPKG}_*.deb 2>/dev/null | head -n 1)
CLIDEB=$(ls "$WH_BUILD"/deb/${CLIPKG}_*_*.deb 2>/dev/null | grep -v dbgsym | head -n 1)
if [ -z "$MODDEB" ] || [ -z "$CLIDEB" ]; then
    _wh_bad "make deb built both packages" "$(tail -n 20 <<<"$out")"
    wh_done
fi
ln -s "$MODDEB" "$CLIDEB" "$CWD/"

# ------------------------------------------------- snapshot, cleanup ---
sys_snapshot "$T/snap"
sys_before=$(cat "$SYS_PIDFILE" 2>/dev/null)
# apt marks the packages it is asked for as installed by hand: put back
# the ones that were installed automatically
auto_before=$(apt-mark showauto apache2 libaprutil1-dbd-sqlite3 2>/dev/null)
sys_mandb_off
walk_cleanup() {
    local p f
    for f in "$WT"/units/*.pid; do [ -f "$f" ] && sys_kill_tree "$(cat "$f")"; done
    for p in $(cat "$WT/jobs" 2>/dev/null); do sys_kill_tree "$p"; done
    # whatever still listens on the application's port (started by the walkthrough)
    for p in $(ss -Hltnp "sport = :$APP_PORT" 2>/dev/null | grep -oE 'pid=[0-9]+' | cut -d= -f2 | sort -u); do
        sys_kill_tree "$p"
    done
    PATH="$WT/bin:$PATH" WT="$WT" WT_PORT="$WH_PORT" systemctl stop apache2 >/dev/null 2>&1
    for p in $MODPKG $CLIPKG; do pkg_absent "$p" || dpkg_w --purge "$p"; done
    [ -n "$auto_before" ] && apt-mark auto $auto_before >/dev/null 2>&1
    rm -rf "${OWN[@]}"
    sys_restore
    sys_mandb_restore
}
trap 'rc=$?; walk_cleanup; (exit $rc); _wh_cleanup' EXIT

# ------------------------------------------------------------- the run ---
t0=$(date +%s)
(cd "$CWD" && PATH="$WT/bin:$PATH" WT="$WT" WT_PORT="$WH_PORT" APT_CONFIG="$WT/apt.conf" \
    setsid bash -eE -o pipefail "$T/walkthrough.sh" <"$T/typed" >"$T/walkthrough.log" 2>&1)
rc=$?
echo "  the walkthrough: $(( $(date +%s) - t0 )) s"
log=$(cat "$T/walkthrough.log")
assert_eq 0 "$rc" "the walkthrough runs to its end"
while read -r where; do
    if grep -qxF "@@ok $where" <<<"$log"; then
        _wh_ok "$where: the block ran"
    else
        _wh_bad "$where: the block ran" "$(grep -E '^walkthrough: FAILED' <<<"$log" | head -n 1)"
    fi
done < <(sed -n 's/^#@ //p' "$T/walkthrough.raw")
[ "$rc" -ne 0 ] && printf '  the walkthrough said:\n%s\n' "$(tail -n 15 <<<"$log" | sed 's/^/    /')"

# ------------------------------------------------ what it left behind ---
CONF=/etc/wirehook/wirehook.conf
U="http://127.0.0.1:$WH_PORT/v1/wires"
if [ "$rc" -eq 0 ]; then
    listen=$(ss -Hltn "sport = :$WH_PORT" 2>/dev/null | awk '{print $4}' | sort -u | tr '\n' ' ')
    assert_eq "127.0.0.1:$WH_PORT " "$listen" "apache2 listens on 127.0.0.1:$WH_PORT only"
    assert_eq "640 root www-data" "$(stat -c '%a %U %G' /etc/wirehook/secrets)" "the signing secret is root's, readable by the server's group alone"
    assert_eq "Syntax OK" "$(/usr/bin/wirehook configtest "$CONF" 2>&1 | tail -n 1)" "the configuration passes configtest"
    pulled=$(/usr/bin/wirehook pull "$U" --user "bank:$PASSWORD" 2>&1)
    assert_eq 2 "$(grep -c '"notificationId"' <<<"$pulled")" "the inbox holds the walkthrough's two notifications"
    assert_eq 2 "$(sqlite3 /tmp/received.db 'SELECT count(*) FROM seen' 2>&1)" "the application received both, signature checked"
    # the unit forwards what arrives from now on, by itself
    out=$(/usr/bin/wirehook send --config "$CONF" --user "bank:$PASSWORD" --url "$U" --sample Exception 2>&1)
    assert_contains "$out" '200 {"status":"accepted"' "a third notification is stored"
    got=""
    for _ in $(seq 1 300); do
        got=$(sqlite3 /tmp/received.db "SELECT count(*) FROM seen WHERE status = 'Exception'" 2>/dev/null)
        [ "$got" = 1 ] && break
        sleep 0.1
    done
    assert_eq 1 "$got" "the forwarder's unit forwarded it to the application"
fi
assert_eq "$sys_before" "$(cat "$SYS_PIDFILE" 2>/dev/null)" "the machine's own apache2 was neither started nor stopped"

# ------------------------------------------------------ as it was found ---
walk_cleanup
trap '_wh_cleanup' EXIT
for p in $MODPKG $CLIPKG; do assert_true "$p is purged" pkg_absent "$p"; done
for f in "${OWN[@]}"; do assert_file_absent "$f" "$f is removed"; done
if sys_as_found; then
    _wh_ok "/etc/apache2 and /var/lib/apache2 are exactly as found"
else
    _wh_bad "/etc/apache2 and /var/lib/apache2 are exactly as found" \
        "$(diff <(cat "$SYS_SNAP/sum") <(sys_sum) | head -n 20)"
fi
assert_eq "$auto_before" "$(apt-mark showauto apache2 libaprutil1-dbd-sqlite3 2>/dev/null)" \
    "apache2 and libaprutil1-dbd-sqlite3 are marked as before"
wh_done
