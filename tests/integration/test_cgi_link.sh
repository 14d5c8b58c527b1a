#!/usr/bin/env bash
# How wirehook.cgi is linked and initializes OpenSSL (Makefile CGI_LINK,
# cgi/main.c), checked on the binaries and by running the CGI directly:
# libcrypto, json-c, APR and APR-util inside the CGI unless
# CGI_LINK=dynamic, the module and the CLI always shared; of what is linked
# in, only the APR functions the dbd drivers call back are exported
# (cgi/dbd-exports.list, checked against the installed drivers), never
# libcrypto (a PostgreSQL driver's libcrypto.so must not bind to it);
# openssl.cnf is still honoured (sites restrict algorithms to FIPS there).
# Under strace: the commit's WAL writes in one call, and the WAL synced
# after SQLite's write lock is freed, before the answer.
. "$(dirname "$0")/lib.sh"
wh_init
CGI="$WH_BUILD/wirehook.cgi"
[ -x "$CGI" ] || { echo "no $CGI: build first" >&2; exit 1; }
MODE=${CGI_LINK:-static}

needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '; }

cgi_needs=$(needed "$CGI")
if [ "$MODE" = static ]; then
    assert_not_contains "$cgi_needs" "libcrypto" "CGI_LINK=static: libcrypto linked in"
    assert_not_contains "$cgi_needs" "libjson-c" "CGI_LINK=static: json-c linked in"
    assert_not_contains "$cgi_needs" "libapr" "CGI_LINK=static: APR and APR-util linked in"
    exported=$(nm -D --defined-only "$CGI" 2>/dev/null | grep -cE ' (EVP|OPENSSL|CRYPTO)_')
    assert_eq 0 "$exported" "CGI_LINK=static: no OpenSSL symbol exported to loaded drivers"
    # every APR function a driver calls is exported, and nothing more
    want=$(for d in /usr/lib/*/apr-util-1/apr_dbd_sqlite3-1.so /usr/lib/*/apr-util-1/apr_dbd_pgsql-1.so; do
               [ -f "$d" ] && nm -D --undefined-only "$d" | awk '{print $2}' | grep -E '^apu?r_'
           done | sort -u | tr '\n' ' ')
    got=$(nm -D --defined-only "$CGI" | awk '$2 == "T" || $2 == "D" || $2 == "B" {print $3}' |
          grep -E '^apu?r_' | sort -u | tr '\n' ' ')
    assert_eq "$want" "$got" "CGI_LINK=static: exports exactly the APR functions the dbd drivers call"
else
    assert_contains "$cgi_needs" "libapr-1" "CGI_LINK=dynamic: APR is a shared library"
    assert_contains "$cgi_needs" "libaprutil-1" "CGI_LINK=dynamic: APR-util is a shared library"
    assert_contains "$cgi_needs" "libcrypto" "CGI_LINK=dynamic: libcrypto shared"
    assert_contains "$cgi_needs" "libjson-c" "CGI_LINK=dynamic: json-c shared"
fi
# Position-independent (ASLR) with compact relative relocations where the
# toolchain has them (Makefile CGI_RELR): a small table for the loader to
# apply at every start, not 17,000 entries.
assert_contains "$(readelf -h "$CGI" | sed -n 's/^ *Type: *//p')" "DYN" "the CGI is position-independent"
if printf 'int main(void){return 0;}' | cc -x c - -o /dev/null -Wl,--fatal-warnings \
       -Wl,-z,pack-relative-relocs 2>/dev/null; then
    assert_contains "$(readelf -d "$CGI")" "(RELR)" "the CGI's relative relocations are packed (DT_RELR)"
fi
assert_contains "$(needed "$WH_MOD_SO")" "libcrypto" "the module links libcrypto dynamically"
assert_contains "$(needed "$WIREHOOK")" "libcrypto" "the CLI links libcrypto dynamically"

# cgi_post [ENV=VALUE...] -- one signed POST straight into the CGI; the
# answer in $T/cgi.out, its log lines in $T/cgi.err ($CGI_WRAP, when set,
# runs the CGI: strace)
cgi_post() {
    local body ts sig url="http://127.0.0.1/cgi/link"
    body=$(wh_body Complete)
    ts=$(date +%s)
    sig=$(wh_sign "$WH_SECRETS" POST "$url" "$body" "$ts")
    env "$@" REQUEST_METHOD=POST REQUEST_SCHEME=http HTTP_HOST=127.0.0.1 \
        REQUEST_URI=/cgi/link CONTENT_TYPE=application/json \
        CONTENT_LENGTH="$(stat -c %s "$body")" HTTP_X_TIMESTAMP="$ts" HTTP_X_SIGNATURE="$sig" \
        HTTP_AUTHORIZATION="Basic $(printf '%s:%s' "$WH_USER" "$WH_PASSWD" | base64 -w0)" \
        WIREHOOK_CONFIG="$WH_CONF" $CGI_WRAP "$CGI" <"$body" >"$T/cgi.out" 2>"$T/cgi.err"
}

cgi_post
assert_eq "Status: 200 OK" "$(head -n 1 "$T/cgi.out" | tr -d '\r')" "CGI run directly: stores ($MODE)"
assert_contains "$(cat "$T/cgi.out")" '"accepted"' "CGI run directly: accepted"

# The commit's WAL writes leave the CGI in one system call (shared/
# wh_sqlite_wal.c), where SQLite alone makes two per page (frame header,
# page): the layer is in use in the statically linked CGI too, whose SQLite
# comes from the dlopened apr_dbd driver.
if strace -f -o /dev/null true 2>/dev/null; then
    CGI_WRAP="strace -f -y -e trace=pwrite64,write -o $T/cgi.strace" cgi_post
    assert_eq "Status: 200 OK" "$(head -n 1 "$T/cgi.out" | tr -d '\r')" "CGI under strace: stores"
    wal_writes=$(grep -c -- '-wal>' "$T/cgi.strace")
    assert_true "CGI: the commit's WAL writes in one or two calls (made: $wal_writes)" \
        test "$wal_writes" -ge 1 -a "$wal_writes" -le 2
    # Durability after the lock (shared/inbox/wh_inbox_walsync.c): the commit
    # goes out with synchronous = NORMAL, SQLite lets go of its write lock
    # (the unlock of the -shm byte at offset 120), and only then is the
    # WAL synced, once, before the answer is written.
    CGI_WRAP="strace -f -y -e trace=fcntl,fdatasync,fsync,write -o $T/cgi.sync" cgi_post
    assert_eq "Status: 200 OK" "$(head -n 1 "$T/cgi.out" | tr -d '\r')" "CGI under strace (syncs): stores"
    # line numbers: the store's write lock taken (W) and freed (U), the
    # first sync after W (S), the answer (R)
    order=$(awk '/write\(1</ && !r { r = NR }
                 !r && /l_type=F_WRLCK/ && /l_start=120,/ { w = NR; u = 0; s = 0; under = 0 }
                 w && !u && /fdatasync|fsync/ { under++ }
                 w && !u && /l_type=F_UNLCK/ && /l_start=120,/ { u = NR }
                 u && !s && /fdatasync\(.*-wal>/ { s = NR }
                 END { printf "%d %d %d %d %d", w, u, s, r, under }' "$T/cgi.sync")
    read -r w u s r under <<<"$order"
    assert_eq 0 "$under" "CGI: no sync while SQLite's write lock is held (lines W U S R: $order)"
    assert_true "CGI: the WAL is synced after the write lock is freed and before the 200 ($order)" \
        test "$w" -gt 0 -a "$u" -gt "$w" -a "$s" -gt "$u" -a "$r" -gt "$s"
    assert_eq 1 "$(awk -v r="$r" 'NR < r && /fdatasync|fsync/' "$T/cgi.sync" | wc -l)" \
        "CGI: one sync before the answer"
else
    echo "   (strace cannot trace here: the CGI's WAL write count is not checked)"
fi

# An openssl.cnf that allows only FIPS algorithms, with no FIPS provider
# installed: HMAC cannot be fetched, so nothing verifies. Proof that the
# CGI reads the site's openssl.cnf, and fails closed under it.
cat >"$T/etc/fips-only.cnf" <<'EOF'
openssl_conf = openssl_init
[openssl_init]
alg_section = evp_properties
[evp_properties]
default_properties = fips=yes
EOF
stored=$(sqlite3 "$WH_INBOX_DB" 'SELECT count(*) FROM wh_events')
cgi_post OPENSSL_CONF="$T/etc/fips-only.cnf"
assert_not_contains "$(head -n 1 "$T/cgi.out")" "200" "openssl.cnf honoured: FIPS-only without a FIPS provider refuses"
assert_eq "$stored" "$(sqlite3 "$WH_INBOX_DB" 'SELECT count(*) FROM wh_events')" \
    "openssl.cnf honoured: nothing stored under it"

wh_done
