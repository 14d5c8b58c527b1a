/* The configuration file format: key table, defaults, quoting, errors,
 * finalize (cross-key rules, loading the secret and htpasswd files),
 * permission warnings and wh_config_set() overrides. */
#include "wh_test.h"
#include "config/wh_config_load.h"
#include "verify/wh_key.h"
#include "verify/wh_signature.h"

#include <apr_file_info.h>
#include <apr_file_io.h>
#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

#define HT_SHA "{SHA}87u9ZqY9S/F0eUBXjsPQEDUw4h0=" /* htpasswd -nbs bob hunter2 */
#define SECRET_MARK "Zq7-UNIQUE-SECRET-MARK"

static apr_pool_t *P(void)
{
    return wh_test_pool();
}


static int count_lines(const char *s)
{
    int n = s && *s ? 1 : 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

static char *repeat(char c, apr_size_t n)
{
    char *s = apr_palloc(P(), n + 1);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* "path:line:" for a config file path. */
static const char *at(const char *path, int line)
{
    return apr_psprintf(P(), "%s:%d:", path, line);
}

/* The two required keys pointing at real, valid files. */
static const char *required_keys(void)
{
    const char *secret = wh_test_tmpfile("s1\n", 0600);
    const char *users = wh_test_tmpfile("bob:" HT_SHA "\n", 0600);
    return apr_psprintf(P(), "SigningSecretFile %s\nBasicAuthFile %s\n",
                        secret, users);
}

static const char *parse(const char *text, wh_config **cfg, const char **path)
{
    const char *file = wh_test_tmpfile(text, 0600);
    if (path)
        *path = file;
    return wh_config_parse_file(P(), file, cfg);
}

static const char *load(const char *text, wh_config **cfg, const char **path)
{
    const char *file = wh_test_tmpfile(text, 0600);
    if (path)
        *path = file;
    return wh_config_load(P(), file, cfg);
}

/* Error from setting one key on a fresh config. */
static const char *set1(const char *key, const char *value)
{
    return wh_config_set(P(), wh_config_create(P()), key, value, 0);
}

static wh_config *set_ok(const char *key, const char *value)
{
    wh_config *cfg = wh_config_create(P());
    CU_ASSERT_PTR_NULL(wh_config_set(P(), cfg, key, value, 0));
    return cfg;
}

/* A private directory for relative-path tests; removed by rm_tree. */
static char *make_dir(void)
{
    char *dir = apr_pstrdup(P(), "/tmp/wh-cfgdir-XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    return dir;
}

static const char *write_in(const char *dir, const char *name,
                            const char *content)
{
    const char *path = apr_pstrcat(P(), dir, "/", name, NULL);
    apr_file_t *f;
    apr_size_t n = strlen(content);
    CU_ASSERT_FATAL(apr_file_open(&f, path, APR_FOPEN_WRITE | APR_FOPEN_CREATE
                                  | APR_FOPEN_TRUNCATE, APR_FPROT_UREAD
                                  | APR_FPROT_UWRITE, P()) == APR_SUCCESS);
    CU_ASSERT(apr_file_write_full(f, content, n, &n) == APR_SUCCESS);
    apr_file_close(f);
    return path;
}

static void rm_tree(const char *dir, const char *const *names)
{
    for (; *names; names++)
        apr_file_remove(apr_pstrcat(P(), dir, "/", *names, NULL), P());
    apr_dir_remove(dir, P());
}

/* ---- defaults and the key table ------------------------------------ */

static void test_defaults(void)
{
    wh_config *c = wh_config_create(P());
    CU_ASSERT_PTR_NULL(c->source);
    CU_ASSERT_PTR_NULL(c->signing_secret_file);
    CU_ASSERT_PTR_NULL(c->basic_auth_file);
    ASSERT_STR(c->timestamp_header, "X-Timestamp");
    ASSERT_STR(c->signature_header, "X-Signature");
    CU_ASSERT_EQUAL(c->timestamp_unit, WH_TS_AUTO);
    CU_ASSERT_EQUAL(c->timestamp_tolerance, 300);
    CU_ASSERT_PTR_NULL(c->signed_url);
    CU_ASSERT_EQUAL(c->max_body_size, 65536);
    CU_ASSERT_EQUAL(c->unknown_status_reject, 0);
    ASSERT_STR(c->auth_realm, "wirehook");
    CU_ASSERT_EQUAL(c->auth_cache_ttl, 60);
    CU_ASSERT_EQUAL(c->inbox_driver, WH_INBOX_SQLITE3);
    ASSERT_STR(c->inbox_driver_name, "sqlite3");
    CU_ASSERT_PTR_NULL(c->inbox_params);
    CU_ASSERT_EQUAL(c->list_default_limit, 25);
    CU_ASSERT_EQUAL(c->list_max_limit, 100);
    ASSERT_STR(c->replay_cache, "lmdb");
    ASSERT_STR(c->replay_cache_provider, "lmdb");
    CU_ASSERT_PTR_NULL(c->replay_cache_args);
    CU_ASSERT_EQUAL(c->replay_window, 600);
    CU_ASSERT_EQUAL(c->replay_lease, 120);
    CU_ASSERT_PTR_NULL(c->secrets);
    CU_ASSERT_PTR_NULL(c->users);
    CU_ASSERT_PTR_NOT_NULL(c->seen);
    CU_ASSERT_EQUAL(apr_hash_count(c->seen), 0);
}

/* The console's keys: ConsoleActions on|off (on), the CGI's readers and
 * operators files loaded like BasicAuthFile, a bad one an error. */
static void test_console_keys(void)
{
    apr_pool_t *p = wh_test_pool();
    wh_config *c = wh_config_create(p);
    const char *users = wh_test_tmpfile("alice:$apr1$x$y\n", 0600);
    const char *bad = wh_test_tmpfile("no colon here\n", 0600);

    CU_ASSERT_EQUAL(c->console_actions, 1);
    CU_ASSERT_PTR_NULL(wh_config_set(p, c, "ConsoleActions", "Off", 0));
    CU_ASSERT_EQUAL(c->console_actions, 0);
    CU_ASSERT_PTR_NULL(wh_config_set(p, c, "ConsoleActions", "on", 1));
    CU_ASSERT_EQUAL(c->console_actions, 1);
    CU_ASSERT(contains(wh_config_set(p, c, "ConsoleActions", "yes", 1), "on or off"));
    /* ConsoleOrigin: unset by default, kept in its canonical form */
    CU_ASSERT_PTR_NULL(c->console_origin);
    CU_ASSERT_PTR_NULL(wh_config_set(p, c, "ConsoleOrigin", "HTTPS://Console.Example.com:443/",
                                     2));
    ASSERT_STR(c->console_origin, "https://console.example.com");
    CU_ASSERT(contains(wh_config_set(p, c, "ConsoleOrigin", "https://x.example/path", 3),
                       "origin only"));
    CU_ASSERT_PTR_NULL(wh_config_set(p, c, "ConsoleReaders", users, 0));
    CU_ASSERT_PTR_NULL(wh_config_set(p, c, "ConsoleOperators", bad, 0));
    CU_ASSERT_PTR_NULL(wh_config_set(p, c, "SigningSecretFile",
                                     wh_test_tmpfile("s\n", 0600), 0));
    CU_ASSERT_PTR_NULL(wh_config_set(p, c, "BasicAuthFile", users, 0));
    CU_ASSERT(contains(wh_config_finalize(p, c), bad));
    CU_ASSERT_PTR_NOT_NULL(c->console_readers);
    CU_ASSERT_PTR_NOT_NULL(apr_hash_get(c->console_readers, "alice", APR_HASH_KEY_STRING));
    CU_ASSERT_PTR_NULL(c->console_operators);
}

/* InboxDriver mysql: its parameters are checked when the file is read,
 * in either order of the two keys, and the message names the line but
 * never the password. */
static void test_inbox_mysql_params(void)
{
    wh_config *c = NULL;
    const char *err;

    CU_ASSERT_PTR_NULL(load(apr_pstrcat(P(), required_keys(),
                                        "InboxParams host=127.0.0.1 user=wh pass=pw"
                                        " dbname=wirehook\n"
                                        "InboxDriver mysql\n", NULL), &c, NULL));
    CU_ASSERT_EQUAL(c->inbox_driver, WH_INBOX_MYSQL);
    ASSERT_STR(c->inbox_params, "host=127.0.0.1 user=wh pass=pw dbname=wirehook");
    err = load(apr_pstrcat(P(), required_keys(), "InboxDriver mysql\n"
                           "InboxParams host=127.0.0.1 password=hunter2 dbname=w\n", NULL),
               &c, NULL);
    CU_ASSERT(contains(err, "InboxParams: unknown mysql parameter 'password'"));
    CU_ASSERT(!contains(err, "hunter2"));
    CU_ASSERT(contains(load(apr_pstrcat(P(), required_keys(), "InboxDriver mysql\n"
                                        "InboxParams host=127.0.0.1 user=wh\n", NULL),
                            &c, NULL), "dbname="));
    /* the same string is a pgsql conninfo, not checked here */
    CU_ASSERT_PTR_NULL(load(apr_pstrcat(P(), required_keys(), "InboxDriver pgsql\n"
                                        "InboxParams host=127.0.0.1 password=x\n", NULL),
                            &c, NULL));
}

static void test_keys_table(void)
{
    const char *want[] = {"SigningSecretFile", "BasicAuthFile",
                          "TimestampHeader", "SignatureHeader",
                          "TimestampUnit", "TimestampTolerance", "SignedUrl",
                          "SignedUrlForm", "MaxBodySize", "UnknownStatus", "AuthRealm",
                          "AuthCacheTTL", "InboxDriver", "InboxParams",
                          "InboxGroup", "InboxBatchMax", "InboxBatchWait",
                          "InboxRetention", "InboxQuarantineRetention",
                          "InboxDeadLetterRetention", "InboxTombstoneRetention",
                          "ListDefaultLimit", "ListMaxLimit", "ReplayCache",
                          "ReplayWindow", "ReplayLease", "CGILogLevel", "ForwardUrl",
                          "ForwardSecretFile",
                          "ForwardMaxAttempts", "ForwardMaxAge", "ForwardTimeout",
                          "ForwardConcurrency", "ForwardCAFile",
                          "ForwardBackoffMin", "ForwardBackoffMax",
                          "ConsoleActions", "ConsoleOrigin", "ConsoleReaders",
                          "ConsoleOperators", NULL};
    const char *keys[64];
    int n = 0;
    for (const wh_key *const *t = wh_config_keys(); *t; t++)
        for (const wh_key *k = *t; k->name && n < 63; k++)
            keys[n++] = k->name;
    keys[n] = NULL;
    for (n = 0; keys[n]; n++) {
        /* Every listed key is accepted by the setter (even if the value
         * is not valid for it: the error must not be "unknown key"). */
        CU_ASSERT(!contains(set1(keys[n], "1"), "unknown key"));
    }
    /* the table holds exactly the keys listed here: none lost, none
     * added without this contract test knowing */
    CU_ASSERT_EQUAL(n, (int)(sizeof(want) / sizeof(want[0])) - 1);
    for (int i = 0; want[i]; i++) {
        int found = 0;
        for (int j = 0; keys[j]; j++)
            found |= !strcmp(keys[j], want[i]);
        CU_ASSERT(found);
    }
}

/* Every row is whole for its kind, no two rows share a name, and every
 * default is one its own setter takes: a default is written once, as a
 * file would write it. */
static void test_rows(void)
{
    int n = 0;
    for (const wh_key *const *t = wh_config_keys(); *t; t++)
        for (const wh_key *k = *t; k->name; k++, n++) {
            wh_config *c = wh_config_create(P());
            CU_ASSERT_PTR_NOT_NULL(k->help);
            CU_ASSERT(k->help && *k->help);
            CU_ASSERT(wh_config_key(k->name) == k);
            if (k->dflt) {
                const char *err = wh_key_set(P(), c, k, k->dflt);
                if (err)
                    CU_FAIL(apr_psprintf(P(), "%s's default: %s", k->name, err));
            }
            switch (k->kind) {
            case WH_KEY_STRING:
                CU_ASSERT_PTR_NOT_NULL(k->text);
                break;
            case WH_KEY_CUSTOM:
                CU_ASSERT_PTR_NOT_NULL(k->custom);
                break;
            case WH_KEY_ENUM:
            case WH_KEY_FLAG:
                CU_ASSERT(k->choices && k->choices[0].name && k->choices[1].name);
                break;
            case WH_KEY_DURATION:
                CU_ASSERT(k->unit_us > 0 && k->bare_us > 0);
                /* fall through */
            case WH_KEY_INT:
            case WH_KEY_BYTES:
                CU_ASSERT(k->min <= k->max);
                break;
            case WH_KEY_PATH:
                CU_ASSERT_PTR_NULL(k->dflt);
                break;
            }
        }
    CU_ASSERT(n >= 34);
}

/* What `wirehook configtest --keys` prints of a row. */
static void test_rows_described(void)
{
    wh_key_text d;
    wh_key_describe(P(), wh_config_key("MaxBodySize"), &d);
    ASSERT_STR(d.kind, "bytes");
    ASSERT_STR(d.arg, "BYTES");
    ASSERT_STR(d.dflt, "65536");
    ASSERT_STR(d.range, "1..67108864");
    wh_key_describe(P(), wh_config_key("inboxbatchwait"), &d);
    ASSERT_STR(d.kind, "duration");
    ASSERT_STR(d.dflt, "0");
    ASSERT_STR(d.range, "0..100ms");
    wh_key_describe(P(), wh_config_key("ForwardMaxAge"), &d);
    ASSERT_STR(d.dflt, "1d");
    ASSERT_STR(d.range, "1s..30d");
    wh_key_describe(P(), wh_config_key("ReplayWindow"), &d);
    ASSERT_STR(d.dflt, "-");
    ASSERT_STR(d.range, "1s..7d");
    wh_key_describe(P(), wh_config_key("TimestampUnit"), &d);
    ASSERT_STR(d.kind, "enum");
    ASSERT_STR(d.arg, "auto|seconds|milliseconds");
    ASSERT_STR(d.range, "auto|seconds|milliseconds");
    wh_key_describe(P(), wh_config_key("ConsoleActions"), &d);
    ASSERT_STR(d.kind, "flag");
    ASSERT_STR(d.dflt, "on");
    ASSERT_STR(d.range, "on|off");
    wh_key_describe(P(), wh_config_key("ReplayCache"), &d);
    ASSERT_STR(d.kind, "custom");
    ASSERT_STR(d.arg, "SPEC");
    ASSERT_STR(d.dflt, "lmdb");
    ASSERT_STR(d.range, "-");
    wh_key_describe(P(), wh_config_key("SigningSecretFile"), &d);
    ASSERT_STR(d.kind, "path");
    ASSERT_STR(d.dflt, "-");
    wh_key_describe(P(), wh_config_key("ListMaxLimit"), &d);
    ASSERT_STR(d.kind, "int");
    ASSERT_STR(d.arg, "N");
    CU_ASSERT_PTR_NULL(wh_config_key("NoSuchKey"));
    CU_ASSERT_PTR_NULL(wh_config_key(NULL));
}

/* The loader knows only the keys it is given: the tables are data. */
static void test_loader_takes_its_keys(void)
{
    static const wh_choice sizes[] = {{"small", 1}, {"large", 2}, {NULL, 0}};
    static const wh_key mine[] = {
        WH_KEY_INT_ROW("ListMaxLimit", list_max_limit, 5, 9, "7", "a limit"),
        WH_KEY_ENUM_ROW("Size", timestamp_unit, sizes, "large", "a size"),
        WH_KEY_END
    };
    static const wh_key *const tables[] = {mine, NULL};
    wh_config *c = wh_config_make(P(), tables);

    CU_ASSERT_EQUAL(c->list_max_limit, 7);
    CU_ASSERT_EQUAL((int)c->timestamp_unit, 2);
    CU_ASSERT_PTR_NULL(c->timestamp_header);
    ASSERT_STR(wh_config_set(P(), c, "ListMaxLimit", "10", 1),
               "ListMaxLimit: must be an integer from 5 to 9");
    CU_ASSERT_EQUAL(c->list_max_limit, 7);
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "size", "SMALL", 1));
    CU_ASSERT_EQUAL((int)c->timestamp_unit, 1);
    CU_ASSERT(contains(wh_config_set(P(), c, "MaxBodySize", "1", 0),
                       "unknown key"));
    CU_ASSERT(contains(wh_config_set(P(), c, "Sise", "small", 0),
                       "did you mean Size?"));
}

/* ---- valid files --------------------------------------------------- */

static void test_minimal_file(void)
{
    wh_config *c = NULL;
    const char *path;
    CU_ASSERT_PTR_NULL(parse("SigningSecretFile /etc/wh/secret\n"
                             "BasicAuthFile /etc/wh/users\n", &c, &path));
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    ASSERT_STR(c->source, path);
    ASSERT_STR(c->signing_secret_file, "/etc/wh/secret");
    ASSERT_STR(c->basic_auth_file, "/etc/wh/users");
    ASSERT_STR(apr_hash_get(c->seen, "basicauthfile",
                                        APR_HASH_KEY_STRING), "2");
    CU_ASSERT_EQUAL(apr_hash_count(c->seen), 2);
}

static void test_all_keys(void)
{
    wh_config *c = NULL;
    const char *text = apr_pstrcat(P(), required_keys(),
        "TimestampHeader X-Bank-Ts\n"
        "SignatureHeader X-Bank-Sig\n"
        "TimestampUnit milliseconds\n"
        "TimestampTolerance 120\n"
        "SignedUrl https://hooks.example.com/v1/wire\n"
        "MaxBodySize 1048576\n"
        "UnknownStatus reject\n"
        "AuthRealm Bank hooks\n"
        "AuthCacheTTL 0\n"
        "InboxDriver pgsql\n"
        "InboxParams host=db dbname=wh\n"
        "ListDefaultLimit 50\n"
        "ListMaxLimit 500\n"
        "ReplayCache redis:127.0.0.1:6379\n"
        "ReplayWindow 900\n", NULL);
    CU_ASSERT_PTR_NULL_FATAL(load(text, &c, NULL));
    ASSERT_STR(c->timestamp_header, "X-Bank-Ts");
    ASSERT_STR(c->signature_header, "X-Bank-Sig");
    CU_ASSERT_EQUAL(c->timestamp_unit, WH_TS_MILLISECONDS);
    CU_ASSERT_EQUAL(c->timestamp_tolerance, 120);
    ASSERT_STR(c->signed_url, "https://hooks.example.com/v1/wire");
    CU_ASSERT_EQUAL(c->max_body_size, 1048576);
    CU_ASSERT_EQUAL(c->unknown_status_reject, 1);
    ASSERT_STR(c->auth_realm, "Bank hooks");
    CU_ASSERT_EQUAL(c->auth_cache_ttl, 0);
    CU_ASSERT_EQUAL(c->inbox_driver, WH_INBOX_PGSQL);
    ASSERT_STR(c->inbox_driver_name, "pgsql");
    ASSERT_STR(c->inbox_params, "host=db dbname=wh");
    CU_ASSERT_EQUAL(c->list_default_limit, 50);
    CU_ASSERT_EQUAL(c->list_max_limit, 500);
    ASSERT_STR(c->replay_cache, "redis:127.0.0.1:6379");
    ASSERT_STR(c->replay_cache_provider, "redis");
    ASSERT_STR(c->replay_cache_args, "127.0.0.1:6379");
    CU_ASSERT_EQUAL(c->replay_window, 900);
    CU_ASSERT_EQUAL(c->secrets->nelts, 1);
    CU_ASSERT_EQUAL(apr_hash_count(c->users), 1);
    CU_ASSERT_EQUAL(apr_hash_count(c->seen), 17);
}

static void test_case_insensitive_keys(void)
{
    wh_config *c = NULL;
    CU_ASSERT_PTR_NULL(parse("signingsecretfile /s\nBASICAUTHFILE /u\n"
                             "tImEsTaMpHeAdEr X-T\nauthcachettl 5\n", &c,
                             NULL));
    ASSERT_STR(c->signing_secret_file, "/s");
    ASSERT_STR(c->basic_auth_file, "/u");
    ASSERT_STR(c->timestamp_header, "X-T");
    CU_ASSERT_EQUAL(c->auth_cache_ttl, 5);
    CU_ASSERT_PTR_NOT_NULL(apr_hash_get(c->seen, "timestampheader",
                                        APR_HASH_KEY_STRING));
}

static void test_comments_and_blank_lines(void)
{
    wh_config *c = NULL;
    CU_ASSERT_PTR_NULL(parse("# wirehook\n\n   \n\t# indented comment\n"
                             "SigningSecretFile /s\n#TimestampTolerance x\n"
                             "  BasicAuthFile\t/u  \n\n", &c, NULL));
    ASSERT_STR(c->basic_auth_file, "/u");
    CU_ASSERT_EQUAL(c->timestamp_tolerance, 300);
    ASSERT_STR(apr_hash_get(c->seen, "basicauthfile",
                                        APR_HASH_KEY_STRING), "7");
}

/* A '\r' left in a value would fail the header-name check. */
static void test_crlf_line_endings(void)
{
    wh_config *c = NULL;
    CU_ASSERT_PTR_NULL(parse("SigningSecretFile /s\r\nBasicAuthFile /u\r\n"
                             "TimestampHeader X-Ts\r\n# c\r\n\r\n"
                             "AuthRealm \"a b\"\r\nListMaxLimit 7\r\n"
                             "ListDefaultLimit 7", &c, NULL));
    ASSERT_STR(c->basic_auth_file, "/u");
    ASSERT_STR(c->timestamp_header, "X-Ts");
    ASSERT_STR(c->auth_realm, "a b");
    CU_ASSERT_EQUAL(c->list_max_limit, 7);
    CU_ASSERT_EQUAL(c->list_default_limit, 7);
}

static void test_hash_inside_value_kept(void)
{
    wh_config *c = NULL;
    CU_ASSERT_PTR_NULL(parse("SigningSecretFile /etc/wh/secret#2\n"
                             "BasicAuthFile /u # not a comment\n"
                             "InboxDriver pgsql\n"
                             "InboxParams host=db password=a#b\n"
                             "AuthRealm hooks #1\n", &c, NULL));
    ASSERT_STR(c->signing_secret_file, "/etc/wh/secret#2");
    ASSERT_STR(c->basic_auth_file, "/u # not a comment");
    ASSERT_STR(c->inbox_params, "host=db password=a#b");
    ASSERT_STR(c->auth_realm, "hooks #1");
}

static void test_value_trimmed_inner_spaces_kept(void)
{
    wh_config *c = NULL;
    CU_ASSERT_PTR_NULL(parse("AuthRealm  \t Bank  hooks  prod \t \n", &c,
                             NULL));
    ASSERT_STR(c->auth_realm, "Bank  hooks  prod");
}

/* ---- quoting ------------------------------------------------------- */

static void test_quoted_values(void)
{
    wh_config *c = NULL;
    CU_ASSERT_PTR_NULL(parse("AuthRealm \"  padded realm  \"\n"
                             "SigningSecretFile \"/tmp/a \\\"b\\\" c\\\\d\"\n"
                             "BasicAuthFile \"/u#1\"   \n"
                             "TimestampTolerance \"42\"\n", &c, NULL));
    ASSERT_STR(c->auth_realm, "  padded realm  ");
    ASSERT_STR(c->signing_secret_file, "/tmp/a \"b\" c\\d");
    ASSERT_STR(c->basic_auth_file, "/u#1");
    CU_ASSERT_EQUAL(c->timestamp_tolerance, 42);
}

static void test_quote_errors(void)
{
    wh_config *c = NULL;
    const char *path;
    const char *err = parse("AuthRealm \"unterminated\n"
                            "SigningSecretFile \"/s\" junk\n"
                            "BasicAuthFile \"/u\\n\"\n"
                            "TimestampHeader \"X\\\"\n"
                            "SignatureHeader \"\"\n", &c, &path);
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 1),
                                        " AuthRealm: unterminated", NULL)));
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 2),
                                        " SigningSecretFile: unexpected text "
                                        "after closing quote", NULL)));
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 3),
                                        " BasicAuthFile: invalid escape",
                                        NULL)));
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 4),
                                        " TimestampHeader: unterminated",
                                        NULL)));
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 5),
                                        " SignatureHeader: missing value",
                                        NULL)));
    CU_ASSERT_EQUAL(count_lines(err), 5);
    ASSERT_STR(c->auth_realm, "wirehook");
    CU_ASSERT_PTR_NULL(c->signing_secret_file);
}

/* ---- key-level errors ---------------------------------------------- */

static void test_unknown_key(void)
{
    wh_config *c = NULL;
    const char *path;
    const char *err = parse("SigningSecretFile /s\nSigningSecretFlie /x\n"
                            SECRET_MARK " value\n"
                            "q7Zx9Kp2Lm4Nv8Rt value\n"
                            "Frobnicate 1\n"
                            "Timestamp_Tolerance 5\n", &c, &path);
    /* A key-shaped word is named, with the closest real key. */
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 2), " unknown key "
                                        "'SigningSecretFlie' (did you mean "
                                        "SigningSecretFile?)", NULL)));
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 5), " unknown key "
                                        "'Frobnicate'", NULL)));
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 6), " unknown key "
                                        "'Timestamp_Tolerance' (did you mean "
                                        "TimestampTolerance?)", NULL)));
    /* What is not shaped like a key (digits, punctuation, length) may be a
     * pasted secret and is never echoed. */
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 3), " unknown key "
                                        "(not shown", NULL)));
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 4), " unknown key "
                                        "(not shown", NULL)));
    CU_ASSERT(!contains(err, SECRET_MARK));
    CU_ASSERT(!contains(err, "q7Zx9Kp2Lm4Nv8Rt"));
    CU_ASSERT(contains(set1("Nope", "1"), "unknown key 'Nope'"));
}

static void test_duplicate_key(void)
{
    wh_config *c = NULL;
    const char *path;
    const char *err = parse("TimestampTolerance 10\n\nTIMESTAMPTOLERANCE 20\n"
                            "timestamptolerance 30\n", &c, &path);
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 3), " duplicate key "
                                        "TimestampTolerance (first set on "
                                        "line 1)", NULL)));
    CU_ASSERT(contains(err, at(path, 4)));
    CU_ASSERT_EQUAL(count_lines(err), 2);
    CU_ASSERT_EQUAL(c->timestamp_tolerance, 10); /* first stays */
}

/* Even a key whose value was bad counts as set: a second line is still
 * a duplicate rather than a silent fix. */
static void test_duplicate_after_bad_value(void)
{
    wh_config *c = NULL;
    const char *path;
    const char *err = parse("MaxBodySize lots\nMaxBodySize 10\n", &c, &path);
    CU_ASSERT(contains(err, at(path, 1)));
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 2), " duplicate key",
                                        NULL)));
    CU_ASSERT_EQUAL(c->max_body_size, 65536);
}

static void test_key_without_value(void)
{
    wh_config *c = NULL;
    const char *path;
    const char *err = parse("AuthRealm\nSignedUrl   \t \nListMaxLimit \"\"\n",
                            &c, &path);
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 1),
                                        " AuthRealm: missing value", NULL)));
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 2),
                                        " SignedUrl: missing value", NULL)));
    CU_ASSERT(contains(err, at(path, 3)));
    CU_ASSERT_EQUAL(count_lines(err), 3);
}

static void test_long_lines(void)
{
    wh_config *c = NULL;
    const char *path;
    /* 8192 bytes of content is fine, even with CRLF; 8193 is not. */
    const char *text = apr_pstrcat(P(), "#", repeat('x', 8191), "\r\n",
                                   "#", repeat('x', 8192), "\n", NULL);
    const char *err = parse(text, &c, &path);
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 2), " line longer",
                                        NULL)));
    CU_ASSERT_EQUAL(count_lines(err), 1);
}

/* A NUL byte would cut the value short silently if lines were C strings. */
static void test_nul_byte_line(void)
{
    wh_config *c = NULL;
    const char *path = wh_test_tmpfile("", 0600);
    apr_file_t *f;
    apr_size_t n = 0;
    static const char text[] = "AuthRealm ok\nAuthRealm2 a\0b\n"
                               "TimestampHeader X-T\0junk\n";
    const char *err;

    CU_ASSERT_FATAL(apr_file_open(&f, path, APR_FOPEN_WRITE
                                  | APR_FOPEN_TRUNCATE, APR_OS_DEFAULT, P())
                    == APR_SUCCESS);
    CU_ASSERT(apr_file_write_full(f, text, sizeof text - 1, &n)
              == APR_SUCCESS);
    apr_file_close(f);
    err = wh_config_parse_file(P(), path, &c);
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 2), " NUL byte", NULL)));
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 3), " NUL byte", NULL)));
    ASSERT_STR(c->timestamp_header, "X-Timestamp");
    ASSERT_STR(c->auth_realm, "ok");
}

static void test_multiple_errors_all_reported(void)
{
    wh_config *c = NULL;
    const char *path;
    const char *err = parse("TimestampTolerance 0\nAuthRealm ok\n"
                            "Bogus 1\nMaxBodySize 5\nTimestampUnit hours\n"
                            "ReplayCache SHM\n", &c, &path);
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 1),
                                        " TimestampTolerance: must be a "
                                        "duration from 1s to 1d", NULL)));
    CU_ASSERT(contains(err, at(path, 3)));
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 5), " TimestampUnit:",
                                        NULL)));
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 6), " ReplayCache:",
                                        NULL)));
    CU_ASSERT(!contains(err, at(path, 2)));
    CU_ASSERT(!contains(err, at(path, 4)));
    CU_ASSERT_EQUAL(count_lines(err), 4);
    CU_ASSERT_EQUAL(c->max_body_size, 5); /* good lines still applied */
}

static void test_missing_config_file(void)
{
    wh_config *c = NULL;
    const char *err = wh_config_parse_file(P(), "/nonexistent/wh.conf", &c);
    CU_ASSERT(contains(err, "/nonexistent/wh.conf"));
    CU_ASSERT_PTR_NOT_NULL(c);
    c = NULL;
    err = wh_config_load(P(), "/nonexistent/wh.conf", &c);
    CU_ASSERT(contains(err, "cannot open /nonexistent/wh.conf: "));
    CU_ASSERT_PTR_NOT_NULL(c);
    CU_ASSERT_PTR_NULL(c->secrets);
}

/* ---- per-key values and bounds ------------------------------------- */

static void check_int_key(const char *key, const char *min, const char *max,
                          const char *below, const char *above)
{
    CU_ASSERT_PTR_NULL(set1(key, min));
    CU_ASSERT_PTR_NULL(set1(key, max));
    CU_ASSERT_PTR_NOT_NULL(set1(key, below));
    CU_ASSERT_PTR_NOT_NULL(set1(key, above));
    CU_ASSERT_PTR_NOT_NULL(set1(key, "abc"));
    CU_ASSERT_PTR_NOT_NULL(set1(key, "12abc"));
    CU_ASSERT_PTR_NOT_NULL(set1(key, "-1"));
    CU_ASSERT_PTR_NOT_NULL(set1(key, "1.0"));
    CU_ASSERT_PTR_NOT_NULL(set1(key, "99999999999999999999"));
    CU_ASSERT(contains(set1(key, "x"), key));
}

static void test_timestamp_tolerance_bounds(void)
{
    check_int_key("TimestampTolerance", "1", "86400", "0", "86401");
    CU_ASSERT_EQUAL(set_ok("TimestampTolerance", "86400")->timestamp_tolerance,
                    86400);
}

static void test_max_body_size_bounds(void)
{
    check_int_key("MaxBodySize", "1", "67108864", "0", "67108865");
    CU_ASSERT_EQUAL(set_ok("MaxBodySize", "67108864")->max_body_size,
                    67108864);
}

static void test_auth_cache_ttl_bounds(void)
{
    check_int_key("AuthCacheTTL", "0", "3600", "-1", "3601");
    CU_ASSERT_EQUAL(set_ok("AuthCacheTTL", "0")->auth_cache_ttl, 0);
    CU_ASSERT_EQUAL(set_ok("AuthCacheTTL", "3600")->auth_cache_ttl, 3600);
}

static void test_list_limit_bounds(void)
{
    check_int_key("ListDefaultLimit", "1", "10000", "0", "10001");
    check_int_key("ListMaxLimit", "1", "10000", "0", "10001");
    CU_ASSERT_EQUAL(set_ok("ListMaxLimit", "10000")->list_max_limit, 10000);
    CU_ASSERT_EQUAL(set_ok("ListDefaultLimit", "1")->list_default_limit, 1);
}

static void test_retention_bounds(void)
{
    static const char *const keys[] = { "InboxRetention", "InboxQuarantineRetention",
                                        "InboxDeadLetterRetention",
                                        "InboxTombstoneRetention" };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        /* a century, in seconds: the largest */
        check_int_key(keys[i], "0", "3153600000", "-1", "3153600001");
        CU_ASSERT_PTR_NULL(set1(keys[i], "90d"));
        CU_ASSERT_PTR_NOT_NULL(set1(keys[i], "36501d"));
    }
    CU_ASSERT_EQUAL(set_ok("InboxRetention", "90d")->inbox_retention, 90 * 86400);
    CU_ASSERT_EQUAL(set_ok("InboxQuarantineRetention", "2h")->inbox_quarantine_retention,
                    7200);
    CU_ASSERT_EQUAL(set_ok("InboxDeadLetterRetention", "30")->inbox_dead_retention, 30);
    CU_ASSERT_EQUAL(set_ok("InboxTombstoneRetention", "1825d")->inbox_tombstone_retention,
                    5 * 365 * 86400);
}

/* Retention against the replay promise, and the dead letters' against the
 * events'; the quarantine's and the dead letters' follow InboxRetention
 * when unset. */
static void test_retention_rules(void)
{
    wh_config *c = NULL;
    const char *path, *err;
    const char *req = required_keys();

    /* unset: everything kept, and said so by the defaults */
    CU_ASSERT_PTR_NULL(load(req, &c, NULL));
    CU_ASSERT_EQUAL(c->inbox_retention, 0);
    CU_ASSERT_EQUAL(c->inbox_quarantine_retention, 0);
    CU_ASSERT_EQUAL(c->inbox_dead_retention, 0);
    /* the floor: ReplayWindow (600) + TimestampTolerance (300), both orders */
    err = load(apr_pstrcat(P(), req, "InboxRetention 899\n", NULL), &c, &path);
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 3), " InboxRetention (899s)"
                                        " must be 0 (keep every event) or at least"
                                        " ReplayWindow + TimestampTolerance (15m)", NULL)));
    CU_ASSERT(contains(load(apr_pstrcat(P(), req, "InboxRetention 1h\n"
                                        "ReplayWindow 1h\n", NULL), &c, NULL),
                       "InboxRetention"));
    CU_ASSERT(contains(load(apr_pstrcat(P(), req, "TimestampTolerance 1h\n"
                                        "InboxRetention 2h\n", NULL), &c, NULL),
                       "ReplayWindow + TimestampTolerance (3h)"));
    CU_ASSERT_PTR_NULL(load(apr_pstrcat(P(), req, "InboxRetention 900\n", NULL), &c, NULL));
    CU_ASSERT_EQUAL(c->inbox_retention, 900);
    CU_ASSERT_EQUAL(c->inbox_quarantine_retention, 900);
    CU_ASSERT_EQUAL(c->inbox_dead_retention, 900);
    CU_ASSERT_PTR_NULL(load(apr_pstrcat(P(), req, "InboxRetention 0\n", NULL), &c, NULL));
    /* the quarantine's may be anything; a dead letter at least as long */
    CU_ASSERT_PTR_NULL(load(apr_pstrcat(P(), req, "InboxQuarantineRetention 1d\n"
                                        "InboxRetention 90d\n"
                                        "InboxDeadLetterRetention 0\n", NULL), &c, NULL));
    CU_ASSERT_EQUAL(c->inbox_quarantine_retention, 86400);
    CU_ASSERT_EQUAL(c->inbox_dead_retention, 0);
    err = load(apr_pstrcat(P(), req, "InboxDeadLetterRetention 30d\n"
                           "InboxRetention 90d\n", NULL), &c, &path);
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 3), " InboxDeadLetterRetention must"
                                        " not be shorter than InboxRetention", NULL)));
    CU_ASSERT(contains(load(apr_pstrcat(P(), req, "InboxDeadLetterRetention 30d\n", NULL),
                            &c, NULL), "InboxDeadLetterRetention"));
    CU_ASSERT_PTR_NULL(load(apr_pstrcat(P(), req, "InboxDeadLetterRetention 365d\n"
                                        "InboxRetention 90d\n", NULL), &c, NULL));
    /* a tombstone: kept for ever unless said, never shorter than the
     * replay promise nor than the events it outlives */
    CU_ASSERT_PTR_NULL(load(apr_pstrcat(P(), req, "InboxRetention 90d\n", NULL), &c, NULL));
    CU_ASSERT_EQUAL(c->inbox_tombstone_retention, 0);
    CU_ASSERT_PTR_NULL(load(apr_pstrcat(P(), req, "InboxRetention 900\n"
                                        "InboxTombstoneRetention 900\n", NULL), &c, NULL));
    CU_ASSERT_EQUAL(c->inbox_tombstone_retention, 900);
    err = load(apr_pstrcat(P(), req, "InboxTombstoneRetention 899\n"
                           "InboxRetention 900\n", NULL), &c, &path);
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 3), " InboxTombstoneRetention (899s)"
                                        " must be 0 (keep every id) or at least"
                                        " ReplayWindow + TimestampTolerance (15m)", NULL)));
    err = load(apr_pstrcat(P(), req, "InboxRetention 90d\n"
                           "InboxTombstoneRetention 30d\n", NULL), &c, &path);
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 4), " InboxTombstoneRetention must"
                                        " not be shorter than InboxRetention", NULL)));
    CU_ASSERT(contains(load(apr_pstrcat(P(), req, "InboxTombstoneRetention 365d\n", NULL),
                            &c, NULL), "InboxTombstoneRetention"));
    CU_ASSERT_PTR_NULL(load(apr_pstrcat(P(), req, "InboxRetention 90d\n"
                                        "InboxTombstoneRetention 0\n", NULL), &c, NULL));
    CU_ASSERT_PTR_NULL(load(apr_pstrcat(P(), req, "InboxRetention 90d\n"
                                        "InboxTombstoneRetention 730d\n", NULL), &c, NULL));
}

static void test_replay_window_bounds(void)
{
    check_int_key("ReplayWindow", "1", "604800", "0", "604801");
    CU_ASSERT_EQUAL(set_ok("ReplayWindow", "604800")->replay_window, 604800);
}

static void test_replay_lease_bounds(void)
{
    check_int_key("ReplayLease", "10", "3600", "9", "3601");
    CU_ASSERT_EQUAL(set_ok("ReplayLease", "10s")->replay_lease, 10);
    CU_ASSERT_EQUAL(set_ok("ReplayLease", "1h")->replay_lease, 3600);
    CU_ASSERT_EQUAL(set_ok("ReplayLease", "2m")->replay_lease, 120);
    CU_ASSERT(contains(set1("ReplayLease", "500ms"), "ReplayLease"));
    CU_ASSERT(contains(set1("ReplayLease", "5s"), "from 10s to 1h"));
}

static void test_cgi_log_level_key(void)
{
    CU_ASSERT_EQUAL(wh_config_create(P())->cgi_log_level, WH_LOG_WARN);
    CU_ASSERT_EQUAL(set_ok("CGILogLevel", "info")->cgi_log_level, WH_LOG_INFO);
    CU_ASSERT_EQUAL(set_ok("CGILogLevel", "DEBUG")->cgi_log_level, WH_LOG_DEBUG);
    CU_ASSERT_EQUAL(set_ok("CGILogLevel", "error")->cgi_log_level, WH_LOG_ERROR);
    CU_ASSERT(contains(set1("CGILogLevel", "notice"),
                       "must be error, warn, info or debug"));
}

static void test_header_keys(void)
{
    ASSERT_STR(set_ok("TimestampHeader", "X-Ts")->timestamp_header,
                           "X-Ts");
    ASSERT_STR(set_ok("SignatureHeader", "x-sig")->signature_header,
                           "x-sig");
    /* a token character other than '-' never reaches a CGI */
    CU_ASSERT(contains(set1("SignatureHeader", "x_sig"), "letters, digits and '-'"));
    CU_ASSERT_PTR_NOT_NULL(set1("TimestampHeader", "Bank.Ts"));
    CU_ASSERT_PTR_NULL(set1("SignatureHeader", repeat('S', 64)));
    CU_ASSERT_PTR_NOT_NULL(set1("SignatureHeader", repeat('S', 65)));
    CU_ASSERT_PTR_NOT_NULL(set1("TimestampHeader", "X Ts"));
    CU_ASSERT_PTR_NOT_NULL(set1("TimestampHeader", "X-Ts:"));
    CU_ASSERT_PTR_NOT_NULL(set1("SignatureHeader", "X(Sig)"));
    CU_ASSERT(contains(set1("SignatureHeader", "a/b"), "SignatureHeader:"));
}

static void test_enum_keys(void)
{
    CU_ASSERT_EQUAL(set_ok("TimestampUnit", "seconds")->timestamp_unit,
                    WH_TS_SECONDS);
    CU_ASSERT_EQUAL(set_ok("TimestampUnit", "auto")->timestamp_unit,
                    WH_TS_AUTO);
    CU_ASSERT_PTR_NOT_NULL(set1("TimestampUnit", "minutes"));
    CU_ASSERT_EQUAL(set_ok("UnknownStatus", "reject")->unknown_status_reject,
                    1);
    CU_ASSERT_EQUAL(set_ok("UnknownStatus", "accept")->unknown_status_reject,
                    0);
    CU_ASSERT_PTR_NOT_NULL(set1("UnknownStatus", "ignore"));
    CU_ASSERT_PTR_NOT_NULL(set1("InboxDriver", "oracle"));
    CU_ASSERT_EQUAL(set_ok("InboxDriver", "MySQL")->inbox_driver, WH_INBOX_MYSQL);
    ASSERT_STR(set_ok("InboxDriver", "SQLITE3")->inbox_driver_name,
                           "sqlite3");
}

static void test_realm_key(void)
{
    ASSERT_STR(set_ok("AuthRealm", "Bank (prod)")->auth_realm,
                           "Bank (prod)");
    CU_ASSERT_PTR_NULL(set1("AuthRealm", repeat('r', 128)));
    CU_ASSERT_PTR_NOT_NULL(set1("AuthRealm", repeat('r', 129)));
    CU_ASSERT_PTR_NOT_NULL(set1("AuthRealm", "say \"hi\""));
    CU_ASSERT_PTR_NOT_NULL(set1("AuthRealm", "back\\slash"));
    CU_ASSERT_PTR_NOT_NULL(set1("AuthRealm", "tab\there"));
}

static void test_signed_url_key(void)
{
    wh_config *c = set_ok("SignedUrl", "https://hooks.example.com:8443/v1/w");
    ASSERT_STR(c->signed_url, "https://hooks.example.com:8443/v1/w");
    CU_ASSERT_PTR_NULL(set1("SignedUrl", "http://127.0.0.1/hook?a=b"));
    CU_ASSERT_PTR_NULL(set1("SignedUrl", "/v1/wire"));
    CU_ASSERT_PTR_NOT_NULL(set1("SignedUrl", "v1/wire"));
    CU_ASSERT_PTR_NOT_NULL(set1("SignedUrl", "ftp://example.com/v1"));
    CU_ASSERT_PTR_NOT_NULL(set1("SignedUrl", "https://example.com/a b"));
    CU_ASSERT_PTR_NOT_NULL(set1("SignedUrl", "https:///nohost"));
    CU_ASSERT(contains(set1("SignedUrl", "example.com"), "SignedUrl:"));
}

static void test_signed_url_form_key(void)
{
    CU_ASSERT_EQUAL(wh_config_create(P())->signed_url_form, WH_URL_ABSOLUTE);
    CU_ASSERT_EQUAL(set_ok("SignedUrlForm", "path")->signed_url_form, WH_URL_PATH);
    CU_ASSERT_EQUAL(set_ok("signedurlform", "ABSOLUTE")->signed_url_form, WH_URL_ABSOLUTE);
    CU_ASSERT(contains(set1("SignedUrlForm", "full"), "SignedUrlForm:"));
}

static void test_replay_cache_key(void)
{
    wh_config *c = set_ok("ReplayCache", "shmcb:/var/run/wh(512000)");
    ASSERT_STR(c->replay_cache, "shmcb:/var/run/wh(512000)");
    ASSERT_STR(c->replay_cache_provider, "shmcb");
    ASSERT_STR(c->replay_cache_args, "/var/run/wh(512000)");
    c = set_ok("ReplayCache", "redis:127.0.0.1:6379");
    ASSERT_STR(c->replay_cache_provider, "redis");
    ASSERT_STR(c->replay_cache_args, "127.0.0.1:6379");
    c = set_ok("ReplayCache", "memcache:127.0.0.1:11211");
    ASSERT_STR(c->replay_cache_provider, "memcache");
    c = set_ok("ReplayCache", "shmcb");
    CU_ASSERT_PTR_NULL(c->replay_cache_args);
    CU_ASSERT(contains(set1("ReplayCache", ""), "missing value"));
    CU_ASSERT_PTR_NOT_NULL(set1("ReplayCache", "SHM"));
    CU_ASSERT_PTR_NOT_NULL(set1("ReplayCache", "shmcb:"));
    CU_ASSERT_PTR_NOT_NULL(set1("ReplayCache", ":args"));
}

/* ---- finalize: cross-key rules ------------------------------------- */

/* ReplayCache pgsql alone uses the inbox's own PostgreSQL database. */
static void test_replay_pgsql_needs_the_inbox_database(void)
{
    wh_config *c = NULL;
    const char *req = required_keys(), *err;

    err = load(apr_pstrcat(P(), req, "ReplayCache pgsql\n", NULL), &c, NULL);
    CU_ASSERT(contains(err, "ReplayCache pgsql without a conninfo uses the "
                            "inbox's database"));
    err = load(apr_pstrcat(P(), req, "ReplayCache pgsql\nInboxParams /tmp/x.db\n",
                           NULL), &c, NULL);
    CU_ASSERT(contains(err, "InboxDriver pgsql"));
    err = load(apr_pstrcat(P(), req, "ReplayCache pgsql\nInboxDriver pgsql\n"
                           "InboxParams host=db dbname=x\n", NULL), &c, NULL);
    CU_ASSERT_PTR_NULL(err);
    err = load(apr_pstrcat(P(), req, "ReplayCache pgsql:host=db password=pw\n",
                           NULL), &c, NULL);
    CU_ASSERT_PTR_NULL(err);
}

/* ReplayCache mysql alone uses the inbox's own MySQL database likewise;
 * another engine's inbox is not one. */
static void test_replay_mysql_needs_the_inbox_database(void)
{
    wh_config *c = NULL;
    const char *req = required_keys(), *err;

    err = load(apr_pstrcat(P(), req, "ReplayCache mysql\n", NULL), &c, NULL);
    CU_ASSERT(contains(err, "ReplayCache mysql without parameters uses the "
                            "inbox's database: it needs InboxDriver mysql"));
    CU_ASSERT(contains(err, "mysql:PARAMS"));
    err = load(apr_pstrcat(P(), req, "ReplayCache mysql\nInboxDriver pgsql\n"
                           "InboxParams host=db dbname=x\n", NULL), &c, NULL);
    CU_ASSERT(contains(err, "InboxDriver mysql"));
    err = load(apr_pstrcat(P(), req, "ReplayCache mysql:host=db user=u pass=pw "
                           "dbname=x\n", NULL), &c, NULL);
    CU_ASSERT_PTR_NULL(err);
}

static void test_missing_required_keys(void)
{
    wh_config *c = NULL;
    const char *path;
    const char *err = load("TimestampTolerance 10\n", &c, &path);
    CU_ASSERT(contains(err, apr_pstrcat(P(), path, ": missing required key "
                                        "SigningSecretFile", NULL)));
    CU_ASSERT(contains(err, apr_pstrcat(P(), path, ": missing required key "
                                        "BasicAuthFile", NULL)));
    CU_ASSERT_EQUAL(count_lines(err), 2);
    CU_ASSERT_PTR_NULL(c->secrets);
    CU_ASSERT_PTR_NULL(c->users);

    err = load("SigningSecretFile /nonexistent/s\n", &c, &path);
    CU_ASSERT(contains(err, "missing required key BasicAuthFile"));
    CU_ASSERT(!contains(err, "missing required key SigningSecretFile"));
}

/* The finalize rule also holds for a caller that ignored parse errors. */
static void test_finalize_fails_closed_after_bad_value(void)
{
    wh_config *c = NULL;
    CU_ASSERT_PTR_NOT_NULL(parse("SigningSecretFile \"\"\nBasicAuthFile /u\n",
                                 &c, NULL));
    const char *err = wh_config_finalize(P(), c);
    CU_ASSERT(contains(err, "SigningSecretFile has no valid value"));
    CU_ASSERT_PTR_NULL(c->secrets);
}

static void test_replay_window_rule(void)
{
    wh_config *c = NULL;
    const char *path;
    const char *req = required_keys();
    /* Both orders: the rule is checked once all keys are known. */
    const char *err = load(apr_pstrcat(P(), req, "ReplayWindow 599\n"
                                       "TimestampTolerance 300\n", NULL),
                           &c, &path);
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 3), " ReplayWindow (599)"
                                        " must be at least 2 * "
                                        "TimestampTolerance (600)", NULL)));
    err = load(apr_pstrcat(P(), req, "TimestampTolerance 100\n"
                           "ReplayWindow 199\n", NULL), &c, &path);
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 4), " ReplayWindow",
                                        NULL)));
    /* ReplayWindow alone is checked against the default tolerance. */
    CU_ASSERT(contains(load(apr_pstrcat(P(), req, "ReplayWindow 300\n", NULL),
                            &c, NULL), "ReplayWindow"));
    /* Exactly 2 * tolerance is fine. */
    CU_ASSERT_PTR_NULL(load(apr_pstrcat(P(), req, "ReplayWindow 200\n"
                                        "TimestampTolerance 100\n", NULL),
                            &c, NULL));
    CU_ASSERT_EQUAL(c->replay_window, 200);
}

static void test_replay_window_default_follows_tolerance(void)
{
    wh_config *c = NULL;
    CU_ASSERT_PTR_NULL(load(apr_pstrcat(P(), required_keys(),
                                        "TimestampTolerance 450\n", NULL),
                            &c, NULL));
    CU_ASSERT_EQUAL(c->replay_window, 900);
    CU_ASSERT_PTR_NULL(apr_hash_get(c->seen, "replaywindow",
                                    APR_HASH_KEY_STRING));
}

static void test_list_limits_rule(void)
{
    wh_config *c = NULL;
    const char *path;
    const char *req = required_keys();
    const char *err = load(apr_pstrcat(P(), req, "ListDefaultLimit 200\n",
                                       NULL), &c, &path);
    CU_ASSERT(contains(err, apr_pstrcat(P(), at(path, 3), " ListDefaultLimit "
                                        "(200) must not exceed ListMaxLimit "
                                        "(100)", NULL)));
    CU_ASSERT(contains(load(apr_pstrcat(P(), req, "ListMaxLimit 10\n", NULL),
                            &c, NULL), "must not exceed"));
    CU_ASSERT_PTR_NULL(load(apr_pstrcat(P(), req, "ListMaxLimit 40\n"
                                        "ListDefaultLimit 40\n", NULL),
                            &c, NULL));
}

/* ---- finalize: loading the files ----------------------------------- */

static void test_load_success(void)
{
    wh_config *c = NULL;
    const char *secret = wh_test_tmpfile("old\nnew\n", 0600);
    const char *users = wh_test_tmpfile("bob:" HT_SHA "\nann:" HT_SHA "\n",
                                        0600);
    const char *text = apr_psprintf(P(), "SigningSecretFile %s\n"
                                    "BasicAuthFile %s\n", secret, users);
    CU_ASSERT_PTR_NULL_FATAL(load(text, &c, NULL));
    CU_ASSERT_EQUAL(c->secrets->nelts, 2);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(c->secrets, 1, wh_secret).len, 3);
    CU_ASSERT_EQUAL(memcmp(APR_ARRAY_IDX(c->secrets, 1, wh_secret).key,
                           "new", 3), 0);
    CU_ASSERT_EQUAL(apr_hash_count(c->users), 2);
    ASSERT_STR(apr_hash_get(c->users, "ann", APR_HASH_KEY_STRING),
                           HT_SHA);
}

static void test_load_file_errors(void)
{
    wh_config *c = NULL;
    const char *empty = wh_test_tmpfile("", 0600);
    const char *err = load(apr_psprintf(P(), "SigningSecretFile %s\n"
                                        "BasicAuthFile /nonexistent/users\n",
                                        empty), &c, NULL);
    CU_ASSERT(contains(err, apr_pstrcat(P(), empty,
                                        ": no signing secret in file", NULL)));
    CU_ASSERT(contains(err, "/nonexistent/users"));
    CU_ASSERT_EQUAL(count_lines(err), 2);
    CU_ASSERT_PTR_NULL(c->secrets);
    CU_ASSERT_PTR_NULL(c->users);
}

/* One run reports parse and finalize errors together. */
static void test_load_reports_everything(void)
{
    wh_config *c = NULL;
    const char *path;
    const char *err = load("SigningSecretFlie /s\nBasicAuthFile /nonexistent/u\n"
                           "ListDefaultLimit x\n", &c, &path);
    CU_ASSERT(contains(err, at(path, 1)));
    CU_ASSERT(contains(err, at(path, 3)));
    CU_ASSERT(contains(err, "missing required key SigningSecretFile"));
    CU_ASSERT(contains(err, "/nonexistent/u"));
    CU_ASSERT_EQUAL(count_lines(err), 4);
}

/* Secrets must not leak through any error path: a bad secret file, the
 * secret file used as htpasswd file, or even as the config file. */
static void test_secret_never_in_errors(void)
{
    wh_config *c = NULL;
    const char *secret = wh_test_tmpfile(apr_pstrcat(P(), SECRET_MARK " v\n",
                                                     SECRET_MARK,
                                                     repeat('x', 5000), "\n",
                                                     NULL), 0600);
    const char *text = apr_psprintf(P(), "SigningSecretFile %s\n"
                                    "BasicAuthFile %s\n", secret, secret);
    const char *err = load(text, &c, NULL);
    CU_ASSERT(contains(err, apr_pstrcat(P(), secret, ":2:", NULL)));
    CU_ASSERT(contains(err, apr_pstrcat(P(), secret, ":1: malformed", NULL)));
    CU_ASSERT(!contains(err, SECRET_MARK));
    err = wh_config_load(P(), secret, &c);
    CU_ASSERT_PTR_NOT_NULL(err);
    CU_ASSERT(!contains(err, SECRET_MARK));
    CU_ASSERT(!contains(err, "xxxx"));
}

/* ---- relative paths ------------------------------------------------ */

static void test_relative_paths_against_config_dir(void)
{
    static const char *const names[] = {"wh.conf", "secret", "users", NULL};
    char *dir = make_dir();
    const char *conf;
    wh_config *c = NULL;

    write_in(dir, "secret", "s\n");
    write_in(dir, "users", "bob:" HT_SHA "\n");
    conf = write_in(dir, "wh.conf", "SigningSecretFile secret\n"
                    "BasicAuthFile ./sub/../users\nInboxParams inbox.db\n");
    /* The current directory is not the config's: resolution must not
     * depend on it. */
    CU_ASSERT_PTR_NULL(wh_config_load(P(), conf, &c));
    ASSERT_STR(c->signing_secret_file,
                           apr_pstrcat(P(), dir, "/secret", NULL));
    CU_ASSERT(contains(c->basic_auth_file, dir));
    ASSERT_STR(c->inbox_params,
                           apr_pstrcat(P(), dir, "/inbox.db", NULL));
    CU_ASSERT_EQUAL(c->secrets ? c->secrets->nelts : 0, 1);
    CU_ASSERT_EQUAL(c->users ? apr_hash_count(c->users) : 0, 1);
    rm_tree(dir, names);
}

/* Only a sqlite3 InboxParams is a path; conninfo and :memory: are not. */
static void test_inbox_params_resolution(void)
{
    wh_config *c = NULL;
    const char *path;
    const char *req = required_keys();
    CU_ASSERT_PTR_NULL(load(apr_pstrcat(P(), req, "InboxParams db/inbox.db\n"
                                        "InboxDriver sqlite3\n", NULL),
                            &c, &path));
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->inbox_params);
    CU_ASSERT(c->inbox_params[0] == '/');
    CU_ASSERT(contains(c->inbox_params, "/db/inbox.db"));
    CU_ASSERT_PTR_NULL(load(apr_pstrcat(P(), req, "InboxParams host=db "
                                        "dbname=wh\nInboxDriver pgsql\n",
                                        NULL), &c, NULL));
    ASSERT_STR(c->inbox_params, "host=db dbname=wh");
    CU_ASSERT_PTR_NULL(load(apr_pstrcat(P(), req, "InboxParams :memory:\n",
                                        NULL), &c, NULL));
    ASSERT_STR(c->inbox_params, ":memory:");
    CU_ASSERT_PTR_NULL(load(req, &c, NULL));
    CU_ASSERT_PTR_NULL(c->inbox_params);
}

static void test_set_relative_path_uses_cwd(void)
{
    char *cwd;
    wh_config *c = set_ok("SigningSecretFile", "conf/secret");
    CU_ASSERT_FATAL(apr_filepath_get(&cwd, 0, P()) == APR_SUCCESS);
    ASSERT_STR(c->signing_secret_file,
                           apr_pstrcat(P(), cwd, "/conf/secret", NULL));
    c = set_ok("BasicAuthFile", "/abs/users");
    ASSERT_STR(c->basic_auth_file, "/abs/users");
}

/* ---- wh_config_set ------------------------------------------------- */

static void test_set_override_vs_duplicate(void)
{
    wh_config *c = wh_config_create(P());
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "TimestampTolerance", "100", 0));
    CU_ASSERT(contains(wh_config_set(P(), c, "timestamptolerance", "200", 0),
                       "duplicate key TimestampTolerance"));
    CU_ASSERT_EQUAL(c->timestamp_tolerance, 100);
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "TIMESTAMPTOLERANCE", "200", 1));
    CU_ASSERT_EQUAL(c->timestamp_tolerance, 200);
    ASSERT_STR(apr_hash_get(c->seen, "timestamptolerance",
                                        APR_HASH_KEY_STRING), "0");
    /* override=1 on a key never set is a plain set. */
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "AuthRealm", "r", 1));
    ASSERT_STR(c->auth_realm, "r");
    /* A bad override keeps the previous value. */
    CU_ASSERT_PTR_NOT_NULL(wh_config_set(P(), c, "TimestampTolerance", "0", 1));
    CU_ASSERT_EQUAL(c->timestamp_tolerance, 200);
}

/* The CGI overrides keys of a parsed file; the file's line is replaced. */
static void test_set_override_after_file(void)
{
    wh_config *c = NULL;
    const char *path;
    CU_ASSERT_PTR_NULL(parse("MaxBodySize 100\n", &c, &path));
    CU_ASSERT(contains(wh_config_set(P(), c, "MaxBodySize", "200", 0),
                       "first set on line 1"));
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "MaxBodySize", "200", 1));
    CU_ASSERT_EQUAL(c->max_body_size, 200);
}

static void test_set_bad_arguments(void)
{
    wh_config *c = wh_config_create(P());
    CU_ASSERT_PTR_NOT_NULL(wh_config_set(P(), c, NULL, "x", 0));
    CU_ASSERT_PTR_NOT_NULL(wh_config_set(P(), c, "", "x", 0));
    CU_ASSERT(contains(wh_config_set(P(), c, "AuthRealm", NULL, 0),
                       "missing value"));
    CU_ASSERT(contains(wh_config_set(P(), c, "ListMaxLimit", "", 0),
                       "missing value"));
    /* Values from the environment are literal: no quote processing. */
    CU_ASSERT_PTR_NOT_NULL(wh_config_set(P(), c, "TimestampHeader",
                                         "\"X-Ts\"", 0));
    CU_ASSERT_PTR_NOT_NULL(wh_config_set(P(), c, "SignatureHeader",
                                         repeat('a', 9000), 0));
}

/* ---- permission warnings ------------------------------------------- */

static void test_permission_warnings(void)
{
    wh_config *c = wh_config_create(P());
    const char *open_secret = wh_test_tmpfile("s\n", 0644);
    const char *closed_users = wh_test_tmpfile("u:h\n", 0600);
    const char *w;

    CU_ASSERT_PTR_NULL(wh_config_permission_warnings(P(), c));
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "BasicAuthFile", closed_users, 0));
    CU_ASSERT_PTR_NULL(wh_config_permission_warnings(P(), c));
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "SigningSecretFile", open_secret,
                                     0));
    w = wh_config_permission_warnings(P(), c);
    CU_ASSERT(contains(w, open_secret));
    CU_ASSERT(contains(w, "readable by others"));
    CU_ASSERT(!contains(w, closed_users));

    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "BasicAuthFile",
                                     wh_test_tmpfile("u:h\n", 0606), 1));
    w = wh_config_permission_warnings(P(), c);
    CU_ASSERT_EQUAL(count_lines(w), 2);
    CU_ASSERT(contains(w, "readable and writable by others"));
    /* A missing file is finalize's business, not a warning. */
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "SigningSecretFile",
                                     "/nonexistent/s", 1));
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "BasicAuthFile", closed_users, 1));
    CU_ASSERT_PTR_NULL(wh_config_permission_warnings(P(), c));
}

static const wh_test_case cases[] = {
    {"defaults", test_defaults},
    {"keys table", test_keys_table},
    {"InboxDriver mysql: its parameters checked", test_inbox_mysql_params},
    {"rows: whole, unique, defaults taken", test_rows},
    {"rows described", test_rows_described},
    {"the loader takes its keys", test_loader_takes_its_keys},
    {"console keys", test_console_keys},
    {"minimal file", test_minimal_file},
    {"all keys", test_all_keys},
    {"case-insensitive keys", test_case_insensitive_keys},
    {"comments and blank lines", test_comments_and_blank_lines},
    {"CRLF line endings", test_crlf_line_endings},
    {"'#' inside value kept", test_hash_inside_value_kept},
    {"value trimmed, inner spaces kept", test_value_trimmed_inner_spaces_kept},
    {"quoted values", test_quoted_values},
    {"quote errors", test_quote_errors},
    {"unknown key", test_unknown_key},
    {"duplicate key", test_duplicate_key},
    {"duplicate after bad value", test_duplicate_after_bad_value},
    {"key without value", test_key_without_value},
    {"long lines", test_long_lines},
    {"NUL byte in line", test_nul_byte_line},
    {"multiple errors all reported", test_multiple_errors_all_reported},
    {"missing config file", test_missing_config_file},
    {"TimestampTolerance bounds", test_timestamp_tolerance_bounds},
    {"MaxBodySize bounds", test_max_body_size_bounds},
    {"AuthCacheTTL bounds", test_auth_cache_ttl_bounds},
    {"list limit bounds", test_list_limit_bounds},
    {"ReplayWindow bounds", test_replay_window_bounds},
    {"ReplayLease: default, bounds, units", test_replay_lease_bounds},
    {"CGILogLevel", test_cgi_log_level_key},
    {"header keys", test_header_keys},
    {"enum keys", test_enum_keys},
    {"AuthRealm", test_realm_key},
    {"SignedUrl", test_signed_url_key},
    {"SignedUrlForm", test_signed_url_form_key},
    {"ReplayCache", test_replay_cache_key},
    {"ReplayCache pgsql needs the inbox's database", test_replay_pgsql_needs_the_inbox_database},
    {"ReplayCache mysql needs the inbox's database", test_replay_mysql_needs_the_inbox_database},
    {"missing required keys", test_missing_required_keys},
    {"finalize fails closed after bad value",
     test_finalize_fails_closed_after_bad_value},
    {"ReplayWindow rule, both orders", test_replay_window_rule},
    {"ReplayWindow default follows tolerance",
     test_replay_window_default_follows_tolerance},
    {"ListDefaultLimit <= ListMaxLimit", test_list_limits_rule},
    {"retention bounds", test_retention_bounds},
    {"retention rules", test_retention_rules},
    {"load success", test_load_success},
    {"load file errors", test_load_file_errors},
    {"load reports everything", test_load_reports_everything},
    {"secret never in errors", test_secret_never_in_errors},
    {"relative paths against config dir",
     test_relative_paths_against_config_dir},
    {"InboxParams resolution", test_inbox_params_resolution},
    {"set: relative path uses cwd", test_set_relative_path_uses_cwd},
    {"set: override vs duplicate", test_set_override_vs_duplicate},
    {"set: override after file", test_set_override_after_file},
    {"set: bad arguments", test_set_bad_arguments},
    {"permission warnings", test_permission_warnings},
    {NULL, NULL}};

WH_TEST_SUITE(config, cases)
