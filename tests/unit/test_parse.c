/* Value parsers (wh_parse.h), the line reader, the secret file loader and
 * the htpasswd loader. */
#include "wh_test.h"
#include "verify/wh_auth.h"
#include "verify/wh_parse.h"
#include "verify/wh_mysql_params.h"
#include "config/wh_config_load.h"
#include "verify/wh_signature.h"

#include <apr_file_io.h>
#include <apr_md5.h>
#include <apr_strings.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Pasted from `htpasswd -nbB alice 's3cret!'`, `htpasswd -nbs bob hunter2`,
 * `htpasswd -nbm carol 'pass word'`. */
#define HT_BCRYPT "$2y$05$zrcaHbyLtE7/iEOkEuU7b.VVyy8MYYzptWOMbLT1D7Q/0OaSwNcnO"
#define HT_SHA "{SHA}87u9ZqY9S/F0eUBXjsPQEDUw4h0="
#define HT_APR1 "$apr1$astxTaEv$X/eiClLBSW7cIoFIP0xA80"

#define SECRET_MARK "Zq7-UNIQUE-SECRET-MARK"

static apr_pool_t *P(void)
{
    return wh_test_pool();
}


static char *repeat(char c, apr_size_t n)
{
    char *s = apr_palloc(P(), n + 1);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* A temp file with exact bytes (embedded NULs allowed). */
static const char *tmpfile_bytes(const char *bytes, apr_size_t len)
{
    const char *path = wh_test_tmpfile("", 0600);
    apr_file_t *f;
    apr_size_t n = len;

    CU_ASSERT_FATAL(path != NULL);
    CU_ASSERT_FATAL(apr_file_open(&f, path, APR_FOPEN_WRITE | APR_FOPEN_TRUNCATE
                                  | APR_FOPEN_BINARY, APR_OS_DEFAULT, P())
                    == APR_SUCCESS);
    CU_ASSERT(apr_file_write_full(f, bytes, len, &n) == APR_SUCCESS);
    apr_file_close(f);
    return path;
}

/* ---- integers ------------------------------------------------------ */

static void test_int64_bounds(void)
{
    apr_int64_t v = -7;
    CU_ASSERT_PTR_NULL(wh_parse_int64(P(), "1", 1, 86400, &v));
    CU_ASSERT_EQUAL(v, 1);
    CU_ASSERT_PTR_NULL(wh_parse_int64(P(), "86400", 1, 86400, &v));
    CU_ASSERT_EQUAL(v, 86400);
    CU_ASSERT_PTR_NOT_NULL(wh_parse_int64(P(), "86401", 1, 86400, &v));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_int64(P(), "0", 1, 86400, &v));
    CU_ASSERT_EQUAL(v, 86400); /* untouched on error */
    CU_ASSERT_PTR_NULL(wh_parse_int64(P(), "0", 0, 3600, &v));
    CU_ASSERT_EQUAL(v, 0);
    CU_ASSERT_PTR_NULL(wh_parse_int64(P(), "007", 0, 10, &v));
    CU_ASSERT_EQUAL(v, 7);
}

static void test_int64_non_digits(void)
{
    const char *bad[] = {"", "abc", "10s", " 5", "5 ", "+5", "0x10", "1.5",
                         "1e3", "--1", "-", "５", NULL};
    apr_int64_t v = 42;
    for (int i = 0; bad[i]; i++)
        CU_ASSERT_PTR_NOT_NULL(wh_parse_int64(P(), bad[i], 0, 1000, &v));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_int64(P(), NULL, 0, 1000, &v));
    CU_ASSERT_EQUAL(v, 42);
    CU_ASSERT(contains(wh_parse_int64(P(), "x", 1, 86400, &v), "1 to 86400"));
}

static void test_int64_negative(void)
{
    apr_int64_t v = 0;
    CU_ASSERT_PTR_NOT_NULL(wh_parse_int64(P(), "-1", 0, 3600, &v));
    CU_ASSERT_PTR_NULL(wh_parse_int64(P(), "-5", -10, 10, &v));
    CU_ASSERT_EQUAL(v, -5);
}

static void test_int64_overflow(void)
{
    apr_int64_t v = 3;
    CU_ASSERT_PTR_NOT_NULL(wh_parse_int64(P(), "99999999999999999999", 0,
                                          APR_INT64_MAX, &v));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_int64(P(), "9223372036854775808", 0,
                                          APR_INT64_MAX, &v));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_int64(P(), "-99999999999999999999",
                                          -APR_INT64_MAX, 0, &v));
    CU_ASSERT_EQUAL(v, 3);
    CU_ASSERT_PTR_NULL(wh_parse_int64(P(), "9223372036854775807", 0,
                                      APR_INT64_MAX, &v));
    CU_ASSERT_EQUAL(v, APR_INT64_MAX);
}

static void test_int_bounds(void)
{
    int v = 5;
    CU_ASSERT_PTR_NULL(wh_parse_int(P(), "10000", 1, 10000, &v));
    CU_ASSERT_EQUAL(v, 10000);
    CU_ASSERT_PTR_NOT_NULL(wh_parse_int(P(), "10001", 1, 10000, &v));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_int(P(), "0", 1, 10000, &v));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_int(P(), "4294967297", 1, 10000, &v));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_int(P(), "99999999999999999999", 1, 10000,
                                        &v));
    CU_ASSERT_EQUAL(v, 10000);
}

/* ---- strings ------------------------------------------------------- */

static void test_header_name_valid(void)
{
    const char *good[] = {"X-Timestamp", "x-sig-v1", "-09aZ-", "A", NULL};
    const char *out = NULL;
    for (int i = 0; good[i]; i++) {
        CU_ASSERT_PTR_NULL(wh_parse_header_name(P(), good[i], &out));
        ASSERT_STR(out, good[i]);
    }
    CU_ASSERT_PTR_NULL(wh_parse_header_name(P(), repeat('h', 64), &out));
}

static void test_header_name_invalid(void)
{
    /* the last five are HTTP token characters a CGI never sees */
    const char *bad[] = {"", "X Sig", "X:Sig", "X(Sig)", "X\"", "X/Y",
                         "X\tY", "Sig\r", "X-\xc3\x9c", "X@Y", "[X]",
                         "X_Sig", "x_sig.v1", "X.Sig", "X~Sig", "!#$%&'*+^`|", NULL};
    const char *out = "unchanged";
    for (int i = 0; bad[i]; i++)
        CU_ASSERT_PTR_NOT_NULL(wh_parse_header_name(P(), bad[i], &out));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_header_name(P(), repeat('h', 65), &out));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_header_name(P(), NULL, &out));
    ASSERT_STR(out, "unchanged");
}

static void test_path(void)
{
    const char *out = NULL;
    CU_ASSERT_PTR_NULL(wh_parse_path(P(), "/etc/wh/secret#1", &out));
    ASSERT_STR(out, "/etc/wh/secret#1");
    CU_ASSERT_PTR_NULL(wh_parse_path(P(), "rel/p\xc3\xa4th with space", &out));
    ASSERT_STR(out, "rel/p\xc3\xa4th with space");
    CU_ASSERT_PTR_NULL(wh_parse_path(P(), repeat('a', 4096), &out));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_path(P(), repeat('a', 4097), &out));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_path(P(), "", &out));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_path(P(), "/a\tb", &out));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_path(P(), "/a\x7f", &out));
}

static void test_realm(void)
{
    const char *out = NULL;
    CU_ASSERT_PTR_NULL(wh_parse_realm(P(), "wirehook", &out));
    ASSERT_STR(out, "wirehook");
    CU_ASSERT_PTR_NULL(wh_parse_realm(P(), "Bank hooks (prod) #1", &out));
    ASSERT_STR(out, "Bank hooks (prod) #1");
    CU_ASSERT_PTR_NULL(wh_parse_realm(P(), repeat('r', 128), &out));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_realm(P(), repeat('r', 129), &out));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_realm(P(), "", &out));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_realm(P(), "a\"b", &out));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_realm(P(), "a\\b", &out));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_realm(P(), "a\tb", &out));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_realm(P(), "r\xc3\xa9", &out));
}

/* ---- enumerations -------------------------------------------------- */

/* An enumerated key's value through wh_parse_choice() and the key's own
 * row: *out (and *name, the canonical spelling) are set only on success. */
static const char *choice(const char *key, const char *arg, int *out,
                          const char **name)
{
    const wh_choice *c = NULL;
    const char *err = wh_parse_choice(P(), arg, wh_config_key(key)->choices,
                                      &c);
    if (!err) {
        *out = c->value;
        if (name)
            *name = c->name;
    }
    return err;
}

static void test_ts_unit(void)
{
    int u = WH_TS_AUTO;
    CU_ASSERT_PTR_NULL(choice("TimestampUnit", "seconds", &u, NULL));
    CU_ASSERT_EQUAL(u, WH_TS_SECONDS);
    CU_ASSERT_PTR_NULL(choice("TimestampUnit", "MilliSeconds", &u, NULL));
    CU_ASSERT_EQUAL(u, WH_TS_MILLISECONDS);
    CU_ASSERT_PTR_NULL(choice("TimestampUnit", "auto", &u, NULL));
    CU_ASSERT_EQUAL(u, WH_TS_AUTO);
    CU_ASSERT_PTR_NOT_NULL(choice("TimestampUnit", "ms", &u, NULL));
    CU_ASSERT_PTR_NOT_NULL(choice("TimestampUnit", "", &u, NULL));
    CU_ASSERT_PTR_NOT_NULL(choice("TimestampUnit", "second", &u, NULL));
    CU_ASSERT_EQUAL(u, WH_TS_AUTO);
    ASSERT_STR(choice("TimestampUnit", "second", &u, NULL),
               "must be auto, seconds or milliseconds");
}

static void test_unknown_status(void)
{
    int reject = -1;
    CU_ASSERT_PTR_NULL(choice("UnknownStatus", "reject", &reject, NULL));
    CU_ASSERT_EQUAL(reject, 1);
    CU_ASSERT_PTR_NULL(choice("UnknownStatus", "Accept", &reject, NULL));
    CU_ASSERT_EQUAL(reject, 0);
    CU_ASSERT_PTR_NOT_NULL(choice("UnknownStatus", "deny", &reject, NULL));
    CU_ASSERT_PTR_NOT_NULL(choice("UnknownStatus", "1", &reject, NULL));
    CU_ASSERT_EQUAL(reject, 0);
    ASSERT_STR(choice("UnknownStatus", "1", &reject, NULL),
               "must be accept or reject");
}

static void test_inbox_driver(void)
{
    int d = WH_INBOX_SQLITE3;
    const char *name = NULL;
    CU_ASSERT_PTR_NULL(choice("InboxDriver", "PgSQL", &d, &name));
    CU_ASSERT_EQUAL(d, WH_INBOX_PGSQL);
    ASSERT_STR(name, "pgsql");
    CU_ASSERT_PTR_NULL(choice("InboxDriver", "sqlite3", &d, &name));
    CU_ASSERT_EQUAL(d, WH_INBOX_SQLITE3);
    ASSERT_STR(name, "sqlite3");
    CU_ASSERT_PTR_NULL(choice("InboxDriver", "MySQL", &d, &name));
    CU_ASSERT_EQUAL(d, WH_INBOX_MYSQL);
    ASSERT_STR(name, "mysql");
    CU_ASSERT_PTR_NULL(choice("InboxDriver", "sqlite3", &d, &name));
    CU_ASSERT_PTR_NOT_NULL(choice("InboxDriver", "oracle", &d, &name));
    CU_ASSERT_PTR_NOT_NULL(choice("InboxDriver", "sqlite", &d, &name));
    ASSERT_STR(name, "sqlite3");
    ASSERT_STR(choice("InboxDriver", "sqlite", &d, &name),
               "must be sqlite3, pgsql or mysql");
}

/* apr_dbd's mysql parameters: what the driver reads, known keys only,
 * the keys wirehook sets refused, and no message repeating a value. */
static void test_mysql_params(void)
{
    apr_pool_t *p = wh_test_pool();
    wh_mysql_params m;

    CU_ASSERT_PTR_NULL(wh_parse_mysql_params(p, "host=db.example port=3307 user=wh "
                                             "pass=s3cr=t dbname=wirehook connecttimeout=7", &m));
    ASSERT_STR(m.host, "db.example");
    CU_ASSERT_EQUAL(m.port, 3307);
    ASSERT_STR(m.user, "wh");
    ASSERT_STR(m.pass, "s3cr=t");
    ASSERT_STR(m.dbname, "wirehook");
    CU_ASSERT_EQUAL(m.connect_timeout, 7);
    /* the driver's other separators, and a socket */
    CU_ASSERT_PTR_NULL(wh_parse_mysql_params(p, "sock=/run/mysqld/mysqld.sock;dbname=w,"
                                             "group=wirehook|user=u", &m));
    ASSERT_STR(m.sock, "/run/mysqld/mysqld.sock");
    ASSERT_STR(m.group, "wirehook");
    CU_ASSERT_EQUAL(m.port, 0);
    CU_ASSERT_EQUAL(m.connect_timeout, 0);
    /* dbname is required */
    CU_ASSERT(contains(wh_parse_mysql_params(p, "host=db user=u", &m), "dbname="));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_mysql_params(p, "", &m));
    /* a misspelt key is refused, naming the known ones (the driver would
     * take "password" for nothing, and "db" for dbname) */
    CU_ASSERT(contains(wh_parse_mysql_params(p, "dbname=w password=hunter2", &m),
                       "unknown mysql parameter 'password'"));
    CU_ASSERT(contains(wh_parse_mysql_params(p, "db=w", &m), "known: host, port"));
    /* what wirehook sets itself */
    CU_ASSERT(contains(wh_parse_mysql_params(p, "dbname=w reconnect=1", &m),
                       "set by wirehook"));
    CU_ASSERT(contains(wh_parse_mysql_params(p, "dbname=w flags=CLIENT_FOUND_ROWS", &m),
                       "set by wirehook"));
    CU_ASSERT(contains(wh_parse_mysql_params(p, "dbname=w fldsz=10", &m), "set by wirehook"));
    /* bounds, repeats, empty values, no pairs */
    CU_ASSERT(contains(wh_parse_mysql_params(p, "dbname=w port=0", &m), "1 to 65535"));
    CU_ASSERT(contains(wh_parse_mysql_params(p, "dbname=w port=x", &m), "1 to 65535"));
    CU_ASSERT(contains(wh_parse_mysql_params(p, "dbname=w connecttimeout=301", &m),
                       "1 to 300"));
    CU_ASSERT(contains(wh_parse_mysql_params(p, "dbname=w dbname=v", &m), "twice"));
    CU_ASSERT(contains(wh_parse_mysql_params(p, "dbname=w pass=", &m), "no value"));
    CU_ASSERT(contains(wh_parse_mysql_params(p, "dbname=w pass=a b", &m), "key=value"));
    /* never the value, whatever is wrong */
    CU_ASSERT(!contains(wh_parse_mysql_params(p, "dbname=w pass=hunter2 bad", &m), "hunter2"));
    CU_ASSERT(!contains(wh_parse_mysql_params(p, "dbname=w port=hunter2", &m), "hunter2"));
    CU_ASSERT(!contains(wh_parse_mysql_params(p, "pass=hunter2", &m), "hunter2"));
}

/* The other enumerated keys' rules, word for word as before they were
 * rows. */
static void test_choice_rules(void)
{
    int v = -1;
    ASSERT_STR(choice("CGILogLevel", "loud", &v, NULL),
               "must be error, warn, info or debug");
    ASSERT_STR(choice("ConsoleActions", "yes", &v, NULL), "must be on or off");
    CU_ASSERT_PTR_NOT_NULL(choice("ConsoleActions", NULL, &v, NULL));
    CU_ASSERT_EQUAL(v, -1);
    CU_ASSERT_PTR_NULL(choice("CGILogLevel", "DEBUG", &v, NULL));
    CU_ASSERT_EQUAL(v, WH_LOG_DEBUG);
}

/* ---- URL ----------------------------------------------------------- */

static void test_url_good(void)
{
    const char *good[] = {"https://hooks.example.com/v1/wire",
                          "http://127.0.0.1:8080/v1/hook?x=1&y=%20",
                          "HTTPS://Example.COM", "https://[::1]:8443/h",
                          NULL};
    const char *out = NULL;
    for (int i = 0; good[i]; i++) {
        CU_ASSERT_PTR_NULL(wh_parse_url(P(), good[i], &out));
        ASSERT_STR(out, good[i]);
    }
}

static void test_url_bad(void)
{
    const char *bad[] = {"", "v1/hook", "hooks.example.com/v1",
                         "ftp://example.com/x", "http://example.com/a b",
                         "http:///path", "https:", "https:/x",
                         "//example.com/x", "http://example.com/#frag",
                         "http://example.com/\x01", "http://ex\xc3\xa4mple.com/",
                         "http://example.com/\t", " http://example.com/",
                         "http://example.com:port/", NULL};
    const char *out = "unchanged";
    for (int i = 0; bad[i]; i++)
        CU_ASSERT_PTR_NOT_NULL(wh_parse_url(P(), bad[i], &out));
    ASSERT_STR(out, "unchanged");
}

static void test_origin(void)
{
    const char *good[][2] = {
        {"https://console.example.com", "https://console.example.com"},
        {"https://console.example.com/", "https://console.example.com"},
        {"HTTPS://Console.Example.COM", "https://console.example.com"},
        {"https://console.example.com:443", "https://console.example.com"},
        {"http://console.example.com:80", "http://console.example.com"},
        {"https://console.example.com:8443", "https://console.example.com:8443"},
        {"http://127.0.0.1:8080", "http://127.0.0.1:8080"},
        {"https://[::1]:8443", "https://[::1]:8443"},
    };
    const char *bad[] = {"", "console.example.com", "ftp://console.example.com",
                         "https://", "https://console.example.com/path",
                         "https://console.example.com/?q=1", "https://user@console.example.com",
                         "https://console.example.com#x", "https://console.example.com:x",
                         "https://console.example.com:0", "https://console.example.com:",
                         "https://con sole.example.com", "/path", NULL};
    const char *out = NULL;

    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        out = NULL;
        CU_ASSERT_PTR_NULL(wh_parse_origin(P(), good[i][0], &out));
        ASSERT_STR(out, good[i][1]);
    }
    out = "unchanged";
    for (int i = 0; bad[i]; i++)
        CU_ASSERT_PTR_NOT_NULL(wh_parse_origin(P(), bad[i], &out));
    ASSERT_STR(out, "unchanged");
}

static void test_url_path_form(void)
{
    const char *out = NULL;
    CU_ASSERT_PTR_NULL(wh_parse_url(P(), "/v1/wires", &out));
    ASSERT_STR(out, "/v1/wires");
    CU_ASSERT_PTR_NULL(wh_parse_url(P(), "/v1/wire?tenant=7", &out));
    ASSERT_STR(out, "/v1/wire?tenant=7");
    CU_ASSERT_PTR_NOT_NULL(wh_parse_url(P(), "//host/x", &out));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_url(P(), "/a b", &out));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_url(P(), "/a#frag", &out));
}

static void test_url_form(void)
{
    int f = WH_URL_PATH;
    CU_ASSERT_PTR_NULL(choice("SignedUrlForm", "absolute", &f, NULL));
    CU_ASSERT_EQUAL(f, WH_URL_ABSOLUTE);
    CU_ASSERT_PTR_NULL(choice("SignedUrlForm", "Path", &f, NULL));
    CU_ASSERT_EQUAL(f, WH_URL_PATH);
    CU_ASSERT_PTR_NOT_NULL(choice("SignedUrlForm", "full", &f, NULL));
    CU_ASSERT_PTR_NOT_NULL(choice("SignedUrlForm", "", &f, NULL));
    CU_ASSERT_EQUAL(f, WH_URL_PATH);
    ASSERT_STR(choice("SignedUrlForm", "full", &f, NULL),
               "must be absolute or path");
}

/* ---- ReplayCache --------------------------------------------------- */

static void test_replay_cache_good(void)
{
    const char *prov = NULL, *args = "x";
    CU_ASSERT_PTR_NULL(wh_parse_replay_cache(P(), "shmcb", &prov, &args));
    ASSERT_STR(prov, "shmcb");
    CU_ASSERT_PTR_NULL(args);
    CU_ASSERT_PTR_NULL(wh_parse_replay_cache(P(), "shmcb:/var/run/wh(512000)",
                                             &prov, &args));
    ASSERT_STR(prov, "shmcb");
    ASSERT_STR(args, "/var/run/wh(512000)");
    CU_ASSERT_PTR_NULL(wh_parse_replay_cache(P(), "memcache:127.0.0.1:11211",
                                             &prov, &args));
    ASSERT_STR(prov, "memcache");
    ASSERT_STR(args, "127.0.0.1:11211");
    CU_ASSERT_PTR_NULL(wh_parse_replay_cache(P(), "redis:127.0.0.1:6379",
                                             &prov, &args));
    ASSERT_STR(prov, "redis");
    ASSERT_STR(args, "127.0.0.1:6379");
    CU_ASSERT_PTR_NULL(wh_parse_replay_cache(P(), "my_cache2", &prov, &args));
    ASSERT_STR(prov, "my_cache2");
}

static void test_replay_cache_bad(void)
{
    const char *bad[] = {"", "SHM", "Shmcb", "shmcb:", ":x", "shm cb",
                         "shm-cb", "redis:\x01", "shmcb;x", NULL};
    const char *prov = "p", *args = "a";
    for (int i = 0; bad[i]; i++)
        CU_ASSERT_PTR_NOT_NULL(wh_parse_replay_cache(P(), bad[i], &prov, &args));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_replay_cache(P(), repeat('a', 33), &prov,
                                                 &args));
    CU_ASSERT_PTR_NULL(wh_parse_replay_cache(P(), repeat('a', 32), &prov,
                                             &args));
    CU_ASSERT_PTR_NULL(args);
}

/* Parser messages describe the rule, never the offending value. */
static void test_errors_do_not_echo_values(void)
{
    const char *s;
    apr_int64_t v;
    int d;
    CU_ASSERT(!contains(wh_parse_int64(P(), SECRET_MARK, 0, 9, &v),
                        SECRET_MARK));
    CU_ASSERT(!contains(wh_parse_header_name(P(), SECRET_MARK " x", &s),
                        SECRET_MARK));
    CU_ASSERT(!contains(wh_parse_url(P(), "http://h/" SECRET_MARK " x", &s),
                        SECRET_MARK));
    CU_ASSERT(!contains(wh_parse_path(P(), SECRET_MARK "\x01", &s),
                        SECRET_MARK));
    CU_ASSERT(!contains(choice("InboxDriver", SECRET_MARK, &d, &s),
                        SECRET_MARK));
    CU_ASSERT(!contains(wh_parse_replay_cache(P(), "x:" SECRET_MARK "\x02",
                                              &s, &s), SECRET_MARK));
}

/* ---- the line reader ----------------------------------------------- */

typedef struct {
    int n;
    unsigned last_lineno;
    const char *lines[8];
    apr_size_t lens[8];
} line_log;

static void log_line(void *ctx, unsigned lineno, char *line, apr_size_t len)
{
    line_log *log = ctx;
    if (log->n < 8) {
        log->lines[log->n] = apr_pstrmemdup(P(), line, len);
        log->lens[log->n] = len;
    }
    log->n++;
    log->last_lineno = lineno;
}

static void test_lines_split(void)
{
    line_log log = {0};
    const char *path = wh_test_tmpfile("a\r\n\nlast", 0600);
    CU_ASSERT_PTR_NULL(wh_parse_lines(P(), path, 1024, log_line, &log));
    CU_ASSERT_EQUAL_FATAL(log.n, 3);
    CU_ASSERT_EQUAL(log.last_lineno, 3);
    ASSERT_STR(log.lines[0], "a\r");
    ASSERT_STR(log.lines[1], "");
    ASSERT_STR(log.lines[2], "last");

    line_log empty = {0};
    CU_ASSERT_PTR_NULL(wh_parse_lines(P(), wh_test_tmpfile("", 0600), 1024,
                                      log_line, &empty));
    CU_ASSERT_EQUAL(empty.n, 0);
}

static void test_lines_embedded_nul(void)
{
    line_log log = {0};
    const char *path = tmpfile_bytes("ab\0cd\nx", 7);
    CU_ASSERT_PTR_NULL(wh_parse_lines(P(), path, 1024, log_line, &log));
    CU_ASSERT_EQUAL_FATAL(log.n, 2);
    CU_ASSERT_EQUAL(log.lens[0], 5);
    CU_ASSERT_EQUAL(memcmp(log.lines[0], "ab\0cd", 5), 0);
}

static void test_lines_errors(void)
{
    line_log log = {0};
    const char *err;
    const char *path = wh_test_tmpfile("0123456789", 0600);

    CU_ASSERT_PTR_NULL(wh_parse_lines(P(), path, 10, log_line, &log));
    err = wh_parse_lines(P(), path, 9, log_line, &log);
    CU_ASSERT(contains(err, path) && contains(err, "too large"));
    err = wh_parse_lines(P(), "/nonexistent/wh-x", 10, log_line, &log);
    CU_ASSERT(contains(err, "cannot open /nonexistent/wh-x: "));
    err = wh_parse_lines(P(), "/tmp", 10, log_line, &log);
    CU_ASSERT(contains(err, "not a regular file"));
    CU_ASSERT_PTR_NOT_NULL(wh_parse_lines(P(), "", 10, log_line, &log));
    CU_ASSERT_EQUAL(log.n, 1); /* only the first, good call saw a line */
}

/* A FIFO with no writer: refused at once (opening it for reading would
 * wait for a writer forever: httpd -t, every CGI request). */
static void test_lines_fifo_refused_without_waiting(void)
{
    line_log log = {0};
    const char *fifo = apr_pstrcat(P(), wh_test_tmpdir("fifo"), "/wh.conf", NULL);
    const char *err;

    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    err = wh_parse_lines(P(), fifo, 1024, log_line, &log);
    CU_ASSERT(contains(err, "not a regular file"));
    CU_ASSERT_EQUAL(log.n, 0);
    unlink(fifo);
}

/* ---- secrets ------------------------------------------------------- */

static const wh_secret *secret_at(const apr_array_header_t *a, int i)
{
    return &APR_ARRAY_IDX(a, i, wh_secret);
}

static int secret_is(const wh_secret *s, const char *want, apr_size_t len)
{
    return s->len == len && memcmp(s->key, want, len) == 0;
}

static void test_secrets_rotation(void)
{
    apr_array_header_t *a = NULL;
    const char *path = wh_test_tmpfile("old-secret\nnew-secret\n", 0600);
    CU_ASSERT_PTR_NULL_FATAL(wh_secrets_load(P(), path, &a));
    CU_ASSERT_EQUAL_FATAL(a->nelts, 2);
    CU_ASSERT(secret_is(secret_at(a, 0), "old-secret", 10));
    CU_ASSERT(secret_is(secret_at(a, 1), "new-secret", 10));
}

static void test_secrets_crlf_and_blank_lines(void)
{
    apr_array_header_t *a = NULL;
    const char *path = wh_test_tmpfile("\n\r\nabc\r\n\n\r\ndef", 0600);
    CU_ASSERT_PTR_NULL_FATAL(wh_secrets_load(P(), path, &a));
    CU_ASSERT_EQUAL_FATAL(a->nelts, 2);
    CU_ASSERT(secret_is(secret_at(a, 0), "abc", 3));
    CU_ASSERT(secret_is(secret_at(a, 1), "def", 3));
}

/* No comment syntax and no whitespace trimming: bytes are the secret. */
static void test_secrets_raw_bytes(void)
{
    apr_array_header_t *a = NULL;
    const char *path = wh_test_tmpfile("#starts-with-hash\n k\xc3\xa9y \n\t\n",
                                       0600);
    CU_ASSERT_PTR_NULL_FATAL(wh_secrets_load(P(), path, &a));
    CU_ASSERT_EQUAL_FATAL(a->nelts, 3);
    CU_ASSERT(secret_is(secret_at(a, 0), "#starts-with-hash", 17));
    CU_ASSERT(secret_is(secret_at(a, 1), " k\xc3\xa9y ", 6));
    CU_ASSERT(secret_is(secret_at(a, 2), "\t", 1));

    path = tmpfile_bytes("a\0b\n", 4);
    CU_ASSERT_PTR_NULL_FATAL(wh_secrets_load(P(), path, &a));
    CU_ASSERT_EQUAL_FATAL(a->nelts, 1);
    CU_ASSERT(secret_is(secret_at(a, 0), "a\0b", 3));
}

static void test_secrets_empty_file(void)
{
    apr_array_header_t *a = NULL;
    const char *path = wh_test_tmpfile("", 0600);
    const char *err = wh_secrets_load(P(), path, &a);
    ASSERT_STR(err, apr_pstrcat(P(), path,
                                            ": no signing secret in file",
                                            NULL));
    CU_ASSERT_PTR_NULL(a);
    path = wh_test_tmpfile("\n\r\n\n", 0600);
    CU_ASSERT(contains(wh_secrets_load(P(), path, &a), "no signing secret"));
}

static void test_secrets_missing_file(void)
{
    apr_array_header_t *a = NULL;
    const char *err = wh_secrets_load(P(), "/nonexistent/wh-secret", &a);
    CU_ASSERT(contains(err, "/nonexistent/wh-secret"));
    CU_ASSERT(contains(err, "No such file"));
    CU_ASSERT_PTR_NULL(a);
}

static void test_secrets_line_limit(void)
{
    apr_array_header_t *a = NULL;
    const char *ok = apr_pstrcat(P(), repeat('s', 4096), "\r\n", NULL);
    const char *long_line = apr_pstrcat(P(), "short\n", SECRET_MARK,
                                        repeat('s', 4096), "\n", NULL);
    const char *path = wh_test_tmpfile(long_line, 0600);
    const char *err;

    CU_ASSERT_PTR_NULL_FATAL(wh_secrets_load(P(), wh_test_tmpfile(ok, 0600),
                                             &a));
    CU_ASSERT_EQUAL(a->nelts, 1);
    a = NULL;
    err = wh_secrets_load(P(), path, &a);
    CU_ASSERT(contains(err, apr_pstrcat(P(), path, ":2:", NULL)));
    CU_ASSERT(!contains(err, SECRET_MARK));
    CU_ASSERT(!contains(err, "short"));
    CU_ASSERT_PTR_NULL(a);
}

/* ---- htpasswd ------------------------------------------------------ */

static const char *user_hash(apr_hash_t *users, const char *user)
{
    return apr_hash_get(users, user, APR_HASH_KEY_STRING);
}

static void test_htpasswd_formats(void)
{
    apr_hash_t *u = NULL;
    const char *path = wh_test_tmpfile("alice:" HT_BCRYPT "\nbob:" HT_SHA
                                       "\ncarol:" HT_APR1 "\n", 0600);
    CU_ASSERT_PTR_NULL_FATAL(wh_htpasswd_load(P(), path, &u));
    CU_ASSERT_EQUAL(apr_hash_count(u), 3);
    ASSERT_STR(user_hash(u, "alice"), HT_BCRYPT);
    ASSERT_STR(user_hash(u, "bob"), HT_SHA);
    ASSERT_STR(user_hash(u, "carol"), HT_APR1);
    /* The hashes survived intact: they still verify their passwords. */
    CU_ASSERT_EQUAL(apr_password_validate("s3cret!", user_hash(u, "alice")),
                    APR_SUCCESS);
    CU_ASSERT_EQUAL(apr_password_validate("hunter2", user_hash(u, "bob")),
                    APR_SUCCESS);
    CU_ASSERT_EQUAL(apr_password_validate("pass word", user_hash(u, "carol")),
                    APR_SUCCESS);
}

static void test_htpasswd_comments_crlf_whitespace(void)
{
    apr_hash_t *u = NULL;
    const char *path = wh_test_tmpfile("# users\n\n   \n  # indented\r\n"
                                       "bob:" HT_SHA "\r\n"
                                       "  carol:" HT_APR1 " \t\r\n"
                                       "dave:a:b:c\n", 0600);
    CU_ASSERT_PTR_NULL_FATAL(wh_htpasswd_load(P(), path, &u));
    CU_ASSERT_EQUAL(apr_hash_count(u), 3);
    ASSERT_STR(user_hash(u, "bob"), HT_SHA);
    ASSERT_STR(user_hash(u, "carol"), HT_APR1);
    ASSERT_STR(user_hash(u, "dave"), "a:b:c");
    CU_ASSERT_PTR_NULL(user_hash(u, "# users"));
}

static void test_htpasswd_malformed(void)
{
    apr_hash_t *u = NULL;
    const char *path = wh_test_tmpfile("bob:" HT_SHA "\nnocolon" SECRET_MARK
                                       "\n:emptyuser\nemptyhash:\n", 0600);
    const char *err = wh_htpasswd_load(P(), path, &u);
    CU_ASSERT(contains(err, apr_pstrcat(P(), path,
                                        ":2: malformed htpasswd line", NULL)));
    CU_ASSERT(contains(err, apr_pstrcat(P(), path, ":3: ", NULL)));
    CU_ASSERT(contains(err, apr_pstrcat(P(), path, ":4: ", NULL)));
    CU_ASSERT(!contains(err, ":1:"));
    CU_ASSERT(!contains(err, SECRET_MARK));
    CU_ASSERT(!contains(err, "emptyuser"));
    CU_ASSERT(!contains(err, HT_SHA));
    CU_ASSERT_PTR_NULL(u);
}

static void test_htpasswd_empty(void)
{
    apr_hash_t *u = NULL;
    const char *path = wh_test_tmpfile("", 0600);
    const char *err = wh_htpasswd_load(P(), path, &u);
    CU_ASSERT(contains(err, path) && contains(err, "no users"));
    path = wh_test_tmpfile("# only a comment\n\n", 0600);
    CU_ASSERT(contains(wh_htpasswd_load(P(), path, &u), "no users"));
    CU_ASSERT_PTR_NULL(u);
    err = wh_htpasswd_load(P(), "/nonexistent/wh-htpasswd", &u);
    CU_ASSERT(contains(err, "/nonexistent/wh-htpasswd"));
}

/* mod_authn_file stops at the first matching line; so do we. */
static void test_htpasswd_duplicate_first_wins(void)
{
    apr_hash_t *u = NULL;
    const char *path = wh_test_tmpfile("bob:" HT_SHA "\nbob:" HT_APR1 "\n",
                                       0600);
    CU_ASSERT_PTR_NULL_FATAL(wh_htpasswd_load(P(), path, &u));
    CU_ASSERT_EQUAL(apr_hash_count(u), 1);
    ASSERT_STR(user_hash(u, "bob"), HT_SHA);
}

static void test_htpasswd_long_line(void)
{
    apr_hash_t *u = NULL;
    const char *text = apr_pstrcat(P(), "bob:" HT_SHA "\nx:", repeat('h', 8200),
                                   "\n", NULL);
    const char *path = wh_test_tmpfile(text, 0600);
    const char *err = wh_htpasswd_load(P(), path, &u);
    CU_ASSERT(contains(err, apr_pstrcat(P(), path, ":2:", NULL)));
    CU_ASSERT(!contains(err, "hhhh"));
}

static const wh_test_case cases[] = {
    {"int64 bounds", test_int64_bounds},
    {"int64 non-digits", test_int64_non_digits},
    {"int64 negative", test_int64_negative},
    {"int64 overflow", test_int64_overflow},
    {"int bounds", test_int_bounds},
    {"header name valid", test_header_name_valid},
    {"header name invalid", test_header_name_invalid},
    {"path", test_path},
    {"realm", test_realm},
    {"timestamp unit", test_ts_unit},
    {"unknown status", test_unknown_status},
    {"inbox driver", test_inbox_driver},
    {"mysql parameters", test_mysql_params},
    {"choice rules", test_choice_rules},
    {"url good", test_url_good},
    {"url bad", test_url_bad},
    {"url path form", test_url_path_form},
    {"origin: canonical, nothing but an origin", test_origin},
    {"url form", test_url_form},
    {"ReplayCache good", test_replay_cache_good},
    {"ReplayCache bad", test_replay_cache_bad},
    {"errors do not echo values", test_errors_do_not_echo_values},
    {"lines split", test_lines_split},
    {"lines embedded NUL", test_lines_embedded_nul},
    {"lines errors", test_lines_errors},
    {"lines: a FIFO is refused without waiting", test_lines_fifo_refused_without_waiting},
    {"secrets rotation", test_secrets_rotation},
    {"secrets CRLF and blank lines", test_secrets_crlf_and_blank_lines},
    {"secrets raw bytes", test_secrets_raw_bytes},
    {"secrets empty file", test_secrets_empty_file},
    {"secrets missing file", test_secrets_missing_file},
    {"secrets line limit", test_secrets_line_limit},
    {"htpasswd formats", test_htpasswd_formats},
    {"htpasswd comments CRLF whitespace",
     test_htpasswd_comments_crlf_whitespace},
    {"htpasswd malformed", test_htpasswd_malformed},
    {"htpasswd empty", test_htpasswd_empty},
    {"htpasswd duplicate first wins", test_htpasswd_duplicate_first_wins},
    {"htpasswd long line", test_htpasswd_long_line},
    {NULL, NULL}};

WH_TEST_SUITE(parse, cases)
