#!/usr/bin/env bash
# How wirehook.cgi is linked and initializes OpenSSL (Makefile CGI_LINK,
# cgi/main.c), checked on the binaries and by running the CGI directly.
# CGI_LINK=static (the default): one self-contained file, ldd's "not a
# dynamic executable", no NSS and no dlopen anywhere it can go (glibc's
# functions for them are not even linked, and strace sees no shared
# object, nsswitch.conf or locale file opened by a store, a listing,
# --configtest or --version); --version names what it carries and the
# Debian packages it was built from. CGI_LINK=dynamic: the system's
# libraries. Both: the module and the CLI always dynamic; openssl.cnf
# honoured (sites restrict algorithms to FIPS there) without a provider
# module ever loaded by the static build; under strace, the commit's WAL
# writes in one call, and the WAL synced after SQLite's write lock is
# freed, before the answer.
. "$(dirname "$0")/lib.sh"
wh_init
CGI="$WH_BUILD/wirehook.cgi"
[ -x "$CGI" ] || { echo "no $CGI: build first" >&2; exit 1; }
MODE=${CGI_LINK:-static}

needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '; }
# the functions defined in a binary, one name a line
defined() { nm --defined-only "$1" 2>/dev/null | awk '{print $3}' | sort -u; }

cgi_needs=$(needed "$CGI")
if [ "$MODE" = static ]; then
    ldd_out=$(ldd "$CGI" 2>&1)
    assert_eq "not a dynamic executable" "$(printf '%s' "$ldd_out" | tr -d '\t')" \
        "CGI_LINK=static: ldd: not a dynamic executable"
    assert_eq "" "$cgi_needs" "CGI_LINK=static: no shared library needed"
    assert_eq "" "$(readelf -l "$CGI" | grep -i 'interp')" "CGI_LINK=static: no program interpreter (no loader)"
    assert_contains "$(readelf -h "$CGI" | sed -n 's/^ *Type: *//p')" "EXEC" \
        "CGI_LINK=static: not position-independent (docs: the ASLR trade-off)"
    # NSS and dlopen: glibc's public functions for them are not linked
    # (cgi/static/no_nss_dl.c maps the references), nor NSS's dispatch
    names=$(defined "$CGI")
    for f in getpwnam getpwnam_r getpwuid getpwuid_r getgrnam getgrnam_r getgrgid getgrgid_r \
             getaddrinfo gethostbyname gethostbyname_r getnameinfo getservbyname_r \
             __nss_database_get __nss_next2 __nss_module_get_function; do
        assert_false "CGI_LINK=static: $f is not in the binary" grep -qx "$f" <<<"$names"
    done
    assert_true "CGI_LINK=static: dlopen is the failing stand-in" grep -qx __wrap_dlopen <<<"$names"
    assert_true "CGI_LINK=static: SQLite is linked in" grep -qx sqlite3_open_v2 <<<"$names"
    assert_true "CGI_LINK=static: apr_dbd's SQLite driver is built in" \
        grep -qx apr_dbd_sqlite3_driver <<<"$names"
    assert_false "CGI_LINK=static: no PostgreSQL client" grep -qx PQconnectdb <<<"$names"
else
    assert_contains "$cgi_needs" "libapr-1" "CGI_LINK=dynamic: APR is a shared library"
    assert_contains "$cgi_needs" "libaprutil-1" "CGI_LINK=dynamic: APR-util is a shared library"
    assert_contains "$cgi_needs" "libcrypto" "CGI_LINK=dynamic: libcrypto shared"
    assert_contains "$cgi_needs" "libjson-c" "CGI_LINK=dynamic: json-c shared"
    assert_contains "$(readelf -h "$CGI" | sed -n 's/^ *Type: *//p')" "DYN" \
        "CGI_LINK=dynamic: position-independent"
    if printf 'int main(void){return 0;}' | cc -x c - -o /dev/null -Wl,--fatal-warnings \
           -Wl,-z,pack-relative-relocs 2>/dev/null; then
        assert_contains "$(readelf -d "$CGI")" "(RELR)" "CGI_LINK=dynamic: relative relocations packed (DT_RELR)"
    fi
fi
assert_contains "$(needed "$WH_MOD_SO")" "libcrypto" "the module links libcrypto dynamically"
assert_contains "$(needed "$WIREHOOK")" "libcrypto" "the CLI links libcrypto dynamically"

# ------------------------------------------------------------ --version ---
out=$("$CGI" --version 2>&1)
assert_eq 0 $? "--version: exit 0"
assert_contains "$out" "wirehook.cgi $("$WIREHOOK" --version | cut -d' ' -f2)," \
    "--version: wirehook's version, as wirehook --version says it"
for lib in "OpenSSL 3" "json-c 0" "APR 1" "APR-util 1" "SQLite 3" "glibc 2"; do
    assert_contains "$out" "  $lib" "--version names $lib"
done
assert_contains "$out" "SQLite $(sqlite3 --version | cut -d' ' -f1)" "--version: SQLite's own version"
if [ "$MODE" = static ]; then
    assert_contains "$out" "self-contained (CGI_LINK=static)" "--version says it is self-contained"
    for p in libssl-dev libjson-c-dev libapr1-dev libaprutil1-dev libsqlite3-dev libc6-dev; do
        assert_contains "$out" "  $p=$(dpkg-query -W -f='${Version}' "$p")" \
            "--version: built from Debian's $p, the installed version"
    done
    assert_contains "$out" "only when it is rebuilt" "--version: updates need a rebuild"
fi

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
cgi_list() {
    env REQUEST_METHOD=GET REQUEST_SCHEME=http HTTP_HOST=127.0.0.1 REQUEST_URI=/cgi/link \
        QUERY_STRING="offset=0&limit=5" \
        HTTP_AUTHORIZATION="Basic $(printf '%s:%s' "$WH_USER" "$WH_PASSWD" | base64 -w0)" \
        WIREHOOK_CONFIG="$WH_CONF" $CGI_WRAP "$CGI" </dev/null >"$T/cgi.out" 2>"$T/cgi.err"
}

cgi_post
assert_eq "Status: 200 OK" "$(head -n 1 "$T/cgi.out" | tr -d '\r')" "CGI run directly: stores ($MODE)"
assert_contains "$(cat "$T/cgi.out")" '"accepted"' "CGI run directly: accepted"

if strace -f -o /dev/null true 2>/dev/null; then
    # What the CGI opens: never a shared object, NSS's configuration, a
    # locale or a character-set converter. A store, a listing, and the
    # shell options (--configtest looks the home directory up in
    # /etc/passwd: no configuration beside a script named nowhere.cgi).
    if [ "$MODE" = static ]; then
        opens="-f -e trace=open,openat,execve"
        CGI_WRAP="strace $opens -o $T/open.post" cgi_post
        assert_eq "Status: 200 OK" "$(head -n 1 "$T/cgi.out" | tr -d '\r')" "CGI under strace: stores"
        CGI_WRAP="strace $opens -o $T/open.list" cgi_list
        assert_eq "Status: 200 OK" "$(head -n 1 "$T/cgi.out" | tr -d '\r')" "CGI under strace: lists"
        cp "$CGI" "$T/nowhere.cgi"
        (cd "$T" && strace $opens -o "$T/open.configtest" ./nowhere.cgi --configtest >"$T/ct.out" 2>&1)
        assert_contains "$(cat "$T/ct.out")" ".wirehook/nowhere.conf (no such file)" \
            "--configtest under strace: looked in the home directory"
        strace $opens -o "$T/open.version" "$CGI" --version >/dev/null 2>&1
        assert_contains "$(cat "$T/open.configtest")" '"/etc/passwd"' \
            "--configtest: the home directory from /etc/passwd"
        for f in post list configtest version; do
            bad=$(grep -E '\.so([."]|$)|nsswitch|ld\.so|gconv|/locale' "$T/open.$f" | head -n 3)
            assert_eq "" "$bad" "CGI_LINK=static: no shared object, NSS or locale file opened ($f)"
        done
    fi

    # The commit's WAL writes leave the CGI in one system call (shared/
    # inbox/wh_sqlite_wal.c), where SQLite alone makes two per page (frame
    # header, page): the layer is in use in the self-contained CGI too,
    # whose SQLite is linked in.
    CGI_WRAP="strace -f -y -e trace=pwrite64,write -o $T/cgi.strace" cgi_post
    assert_eq "Status: 200 OK" "$(head -n 1 "$T/cgi.out" | tr -d '\r')" "CGI under strace: stores"
    wal_writes=$(grep -c -- '-wal>' "$T/cgi.strace")
    assert_true "CGI: the commit's WAL writes in one or two calls (made: $wal_writes)" \
        test "$wal_writes" -ge 1 -a "$wal_writes" -le 2
    # Durability after the lock (shared/inbox/wh_inbox_walsync.c): the
    # commit goes out with synchronous = NORMAL, SQLite lets go of its
    # write lock (the unlock of the -shm byte at offset 120), and only
    # then is the WAL synced, once, before the answer is written.
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
    echo "   (strace cannot trace here: the CGI's opens and WAL writes are not checked)"
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

# An openssl.cnf that activates a provider module by path: the static
# build loads no shared object, so the module is never opened; the
# built-in default provider still serves HMAC. (The dynamic build would
# try to load it, and fail: the file is not a provider.)
if [ "$MODE" = static ] && strace -f -o /dev/null true 2>/dev/null; then
    printf 'not a shared object\n' >"$T/etc/provider.so"
    cat >"$T/etc/module.cnf" <<EOF
openssl_conf = openssl_init
[openssl_init]
providers = provider_sect
[provider_sect]
extra = extra_sect
default = default_sect
[extra_sect]
module = $T/etc/provider.so
activate = 1
[default_sect]
activate = 1
EOF
    CGI_WRAP="strace -f -e trace=open,openat -o $T/open.module" cgi_post OPENSSL_CONF="$T/etc/module.cnf"
    assert_contains "$(cat "$T/open.module")" "module.cnf" "openssl.cnf naming a provider module: read"
    assert_not_contains "$(cat "$T/open.module")" "provider.so" \
        "CGI_LINK=static: the provider module is never opened"
    assert_eq "Status: 200 OK" "$(head -n 1 "$T/cgi.out" | tr -d '\r')" \
        "CGI_LINK=static: HMAC from the built-in default provider: stored"
fi

wh_done
