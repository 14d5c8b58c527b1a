/* Fuzz target: the header-value parsers a request reaches before its body:
 * timestamp (every unit, and the tolerance check), signature hex, Basic
 * credentials (parse, and a full check against a {SHA} user with the
 * success cache), the signed-URL builder fed a hostile Host header, and
 * the value parsers the config keys use.
 *
 * The input is one header value (everything up to the first NUL). */
#include "fuzz_common.h"
#include "verify/wh_auth.h"
#include "verify/wh_parse.h"
#include "config/wh_config_load.h"
#include "forward/wh_forward_keys.h"
#include "verify/wh_duration.h"
#include "verify/wh_signature.h"
#include "verify/wh_timestamp.h"
#include "verify/wh_verify.h"

#include <apr_lib.h>
#include <strings.h>

static void fuzz_timestamp(const char *s)
{
    static const wh_ts_unit units[] = { WH_TS_AUTO, WH_TS_SECONDS, WH_TS_MILLISECONDS };
    const apr_time_t now = apr_time_from_sec(1700000000);

    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        apr_time_t t = 0;
        apr_int64_t skew = 0;
        wh_ts_result r = wh_timestamp_parse(s, units[i], &t);
        wh_ts_result c = wh_timestamp_check(s, units[i], 300, now, &skew);

        if (r != WH_TS_OK) {
            WH_FUZZ_ASSERT(r == WH_TS_MALFORMED && c == WH_TS_MALFORMED);
            continue;
        }
        /* digits only, and a value that is never negative */
        for (const char *q = s; *q; q++)
            WH_FUZZ_ASSERT(apr_isdigit(*q));
        WH_FUZZ_ASSERT(t >= 0);
        WH_FUZZ_ASSERT(c != WH_TS_MALFORMED);
        if (c == WH_TS_OK)
            WH_FUZZ_ASSERT(t >= now - apr_time_from_sec(300) &&
                           t <= now + apr_time_from_sec(300));
    }
}

static void fuzz_signature(const char *s)
{
    unsigned char raw[WH_SIG_RAW_LEN];
    char hex[65];

    if (wh_signature_decode(s, raw) != 0)
        return;
    WH_FUZZ_ASSERT(strlen(s) == WH_SIG_HEX_LEN);
    wh_signature_hex(raw, hex);
    for (int i = 0; i < WH_SIG_HEX_LEN; i++)
        WH_FUZZ_ASSERT(hex[i] == apr_tolower(s[i]));
}

static void fuzz_basic(apr_pool_t *p, const char *s)
{
    const char *user = NULL, *password = NULL, *who = NULL;
    static apr_hash_t *users;
    static wh_auth_cache *cache;
    const char *why = wh_auth_parse_basic(p, s, &user, &password);
    wh_auth_result r;

    if (!why)
        WH_FUZZ_ASSERT(user && password && !strchr(user, ':'));
    if (!users) {
        /* bank2:pw2 as {SHA}: cheap enough to run on every input */
        users = apr_hash_make(wh_fuzz_root());
        apr_hash_set(users, "bank2", APR_HASH_KEY_STRING,
                     "{SHA}8Wyi36Noi/CMek4hVErxW9WYy3A=");
        cache = wh_auth_cache_create(wh_fuzz_root(), 60, 16);
    }
    r = wh_auth_check(p, users, cache, s, apr_time_from_sec(1700000000), &who);
    if (why)
        WH_FUZZ_ASSERT(r == WH_AUTH_MISSING);
    if (r == WH_AUTH_OK)
        WH_FUZZ_ASSERT(who && strcmp(who, "bank2") == 0);
}

static void fuzz_values(apr_pool_t *p, const char *s)
{
    const char *out = NULL, *prov = NULL, *args = NULL;
    apr_int64_t i64 = 0;
    int i = 0;

    if (!wh_parse_int64(p, s, -5, 86400, &i64))
        WH_FUZZ_ASSERT(i64 >= -5 && i64 <= 86400);
    if (!wh_parse_int(p, s, 1, 10000, &i))
        WH_FUZZ_ASSERT(i >= 1 && i <= 10000);
    {
        static const wh_duration_rule secs = { 1000000, 1000000, 0, 604800 };
        static const wh_duration_rule any = { 1, 1000, 0, APR_INT64_MAX };
        if (!wh_parse_duration(p, s, &secs, &i64))
            WH_FUZZ_ASSERT(i64 >= 0 && i64 <= 604800);
        if (!wh_parse_duration(p, s, &any, &i64))
            WH_FUZZ_ASSERT(i64 >= 0);
    }
    if (!wh_parse_header_name(p, s, &out))
        WH_FUZZ_ASSERT(out && *out && !strpbrk(out, " :\r\n"));
    /* every enumerated key's words, from its row */
    for (const wh_key *const *t = wh_config_keys(); *t; t++)
        for (const wh_key *k = *t; k->name; k++) {
            const wh_choice *c = NULL;
            if (k->choices && !wh_parse_choice(p, s, k->choices, &c))
                WH_FUZZ_ASSERT(c && strcasecmp(c->name, s) == 0);
        }
    if (!wh_parse_forward_url(p, s, &out))
        WH_FUZZ_ASSERT(out[0] != '/' && !strpbrk(out, " \r\n#"));
    if (!wh_parse_url(p, s, &out))
        WH_FUZZ_ASSERT(!strpbrk(out, " \r\n#"));
    if (!wh_parse_origin(p, s, &out))
        WH_FUZZ_ASSERT(!strpbrk(out, " \r\n#?@") && strstr(out, "://"));
    if (!wh_parse_replay_cache(p, s, &prov, &args))
        WH_FUZZ_ASSERT(prov && *prov);
    if (!wh_parse_path(p, s, &out))
        WH_FUZZ_ASSERT(!strpbrk(out, "\r\n"));
    if (!wh_parse_realm(p, s, &out))
        WH_FUZZ_ASSERT(!strpbrk(out, "\"\\\r\n"));
    out = wh_request_url(p, NULL, "http", s, "/v1/wires?x=1");
    WH_FUZZ_ASSERT(out != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p = wh_fuzz_pool();
    const char *s = wh_fuzz_cstr(p, data, size);

    fuzz_timestamp(s);
    fuzz_signature(s);
    fuzz_basic(p, s);
    fuzz_values(p, s);
    apr_pool_destroy(p);
    return 0;
}
