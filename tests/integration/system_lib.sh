# Helpers for suites that change this machine (install packages into the
# system, write /etc/apache2: test_deb.sh, test_walkthrough.sh): one such
# suite at a time, and /etc/apache2 and /var/lib/apache2 put back exactly
# as they were found. Source after lib.sh.

SYS_ETC=/etc/apache2
SYS_STATE=/var/lib/apache2
SYS_PIDFILE=/var/run/apache2/apache2.pid

# sys_lock: one suite that changes the system at a time. Waits 15 minutes
# at most.
sys_lock() {
    local lock=/run/lock/wirehook-test-deb.lock
    [ -d /run/lock ] || lock=/tmp/wirehook-test-deb.lock
    exec 9>"$lock"
    flock -w 900 9 || { _wh_bad "another suite holds $lock"; return 1; }
}

pkg_status() { dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null; }
# pkg_absent PKG: neither installed nor left configured
pkg_absent() { local s; s=$(pkg_status "$1"); [ -z "$s" ] || [ "$s" = not-installed ]; }

# dpkg_w ARGS...: dpkg, waiting (60 s at most) while another dpkg or apt
# holds its lock; the output goes to $T/dpkg.log
dpkg_w() {
    local i out rc
    for i in $(seq 1 60); do
        out=$(dpkg "$@" 2>&1); rc=$?
        case "$out" in *"dpkg frontend lock"*|*"dpkg status database is locked"*) sleep 1 ;; *) break ;; esac
    done
    printf '%s\n' "$out" >>"$T/dpkg.log"
    return $rc
}

# every entry's type, mode, owner, path and link target, and every file's
# checksum: sorted lines
sys_tree_sum() {
    [ -d "$1" ] || return 0
    (cd "$1" && { find . -printf '%y %m %u:%g %p %l\n'; find . -type f -exec sha256sum {} +; } | LC_ALL=C sort)
}
sys_sum() { sys_tree_sum "$SYS_ETC"; echo "--- $SYS_STATE"; sys_tree_sum "$SYS_STATE"; }

# sys_snapshot DIR: /etc/apache2 and /var/lib/apache2 as they are now
sys_snapshot() {
    SYS_SNAP=$1
    mkdir -p "$SYS_SNAP"
    cp -a "$SYS_ETC" "$SYS_SNAP/etc-apache2"
    [ -d "$SYS_STATE" ] && cp -a "$SYS_STATE" "$SYS_SNAP/var-lib-apache2"
    sys_sum >"$SYS_SNAP/sum"
}
_sys_restore_tree() {
    local s=$1 d=$2 p
    [ -d "$s" ] || return 0
    (cd "$d" && find . -depth -mindepth 1) | while read -r p; do
        [ -e "$s/$p" ] || [ -L "$s/$p" ] || rm -rf "${d:?}/$p"
    done
    cp -a --remove-destination "$s/." "$d/"
}
# sys_restore: both trees exactly as in the snapshot again (a2enmod and
# a2dismod leave empty state directories behind: gone when they were not
# there before)
sys_drop_new_empty_dirs() {
    [ -d "$SYS_STATE" ] || return 0
    (cd "$SYS_STATE" && find . -mindepth 1 -depth -type d -empty) | while read -r d; do
        [ -e "$SYS_SNAP/var-lib-apache2/$d" ] || rmdir "$SYS_STATE/$d"
    done
}
sys_restore() {
    [ -n "${SYS_SNAP:-}" ] && [ -f "$SYS_SNAP/sum" ] || return 0
    sys_drop_new_empty_dirs
    if [ "$(sys_sum)" != "$(cat "$SYS_SNAP/sum")" ]; then
        _sys_restore_tree "$SYS_SNAP/etc-apache2" "$SYS_ETC"
        _sys_restore_tree "$SYS_SNAP/var-lib-apache2" "$SYS_STATE"
    fi
}
sys_as_found() { [ "$(sys_sum)" = "$(cat "$SYS_SNAP/sum")" ]; }

# man-db's trigger rebuilds the whole manual database at each dpkg -i and
# -r (seconds of CPU, nothing a suite checks): off while the suite runs.
SYS_MANDB_FLAG=/var/lib/man-db/auto-update
sys_mandb_off() {
    sys_mandb_was_on=""
    if [ -e "$SYS_MANDB_FLAG" ]; then sys_mandb_was_on=1; rm -f "$SYS_MANDB_FLAG"; fi
}
sys_mandb_restore() { [ -n "${sys_mandb_was_on:-}" ] && touch "$SYS_MANDB_FLAG"; return 0; }

# sys_kill_tree PID: the process and its descendants, by pid
sys_kill_tree() {
    local p=$1 c
    for c in $(pgrep -P "$p" 2>/dev/null); do sys_kill_tree "$c"; done
    kill "$p" 2>/dev/null
    return 0
}
