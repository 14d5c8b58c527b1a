/* The console's session values and action tokens (wh_console_csrf.h). */
#include "wh_console_csrf.h"
#include "verify/wh_signature.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <string.h>

#define WH_CSRF_LABEL "wirehook console csrf v1"
#define WH_SESSION_BYTES 32
#define WH_SESSION_HEX (2 * WH_SESSION_BYTES)

int wh_csrf_key_derive(const wh_config *cfg, wh_csrf_key *key)
{
    const wh_bytes label = { WH_CSRF_LABEL, sizeof(WH_CSRF_LABEL) - 1 };
    const wh_secret *first;

    memset(key, 0, sizeof(*key));
    if (!cfg || !cfg->secrets || cfg->secrets->nelts < 1)
        return -1;
    first = &APR_ARRAY_IDX(cfg->secrets, 0, wh_secret);
    if (wh_hmac_sha256(first->key, first->len, &label, 1, key->key) != 0)
        return -1;
    key->ok = 1;
    return 0;
}

static void to_hex(const unsigned char *raw, apr_size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (apr_size_t i = 0; i < n; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[2 * n] = '\0';
}

const char *wh_csrf_session_new(apr_pool_t *p)
{
    unsigned char raw[WH_SESSION_BYTES];
    char *out = apr_palloc(p, WH_SESSION_HEX + 1);

    if (RAND_bytes(raw, sizeof(raw)) != 1)
        return NULL;
    to_hex(raw, sizeof(raw), out);
    OPENSSL_cleanse(raw, sizeof(raw));
    return out;
}

static int is_session(const char *s, apr_size_t n)
{
    if (n != WH_SESSION_HEX)
        return 0;
    for (apr_size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

const char *wh_csrf_session_from_cookie(apr_pool_t *p, const char *cookie_header,
                                        const char *name)
{
    apr_size_t nlen = name ? strlen(name) : 0;
    const char *s = cookie_header;

    if (!s || !nlen || strnlen(s, 8193) > 8192)
        return NULL;
    while (*s) {
        const char *end = strchr(s, ';'), *eq;
        apr_size_t n;
        while (*s == ' ' || *s == '\t')
            s++;
        n = end ? (apr_size_t)(end - s) : strlen(s);
        eq = memchr(s, '=', n);
        if (eq && (apr_size_t)(eq - s) == nlen && memcmp(s, name, nlen) == 0) {
            const char *v = eq + 1;
            apr_size_t vlen = n - nlen - 1;
            while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
                vlen--;
            /* the first cookie of that name decides: a second one (set
             * for another path) is not looked at */
            return is_session(v, vlen) ? apr_pstrmemdup(p, v, vlen) : NULL;
        }
        if (!end)
            break;
        s = end + 1;
    }
    return NULL;
}

const char *wh_csrf_token(apr_pool_t *p, const wh_csrf_key *key, const char *session,
                          const char *user, const char *scope)
{
    unsigned char mac[WH_SIG_RAW_LEN];
    char *out;
    const wh_bytes parts[5] = {
        { session ? session : "", session ? strlen(session) : 0 }, { "", 1 },
        { user ? user : "", user ? strlen(user) : 0 }, { "", 1 },
        { scope ? scope : "", scope ? strlen(scope) : 0 },
    };

    if (!key || !key->ok || !session || !scope)
        return NULL;
    if (wh_hmac_sha256(key->key, sizeof(key->key), parts, 5, mac) != 0)
        return NULL;
    out = apr_palloc(p, 2 * WH_SIG_RAW_LEN + 1);
    to_hex(mac, sizeof(mac), out);
    return out;
}

int wh_csrf_check(apr_pool_t *p, const wh_csrf_key *key, const char *session,
                  const char *user, const char *scope, const char *token)
{
    const char *want = wh_csrf_token(p, key, session, user, scope);

    if (!want || !token || strlen(token) != strlen(want))
        return 0;
    return CRYPTO_memcmp(want, token, strlen(want)) == 0;
}

/* host without a default port for scheme, lowercased. */
static const char *norm_host(apr_pool_t *p, const char *scheme, const char *host,
                             apr_size_t n)
{
    char *h = apr_pstrmemdup(p, host, n);
    apr_size_t len = n;

    for (char *c = h; *c; c++)
        *c = (char)apr_tolower(*c);
    if (strcmp(scheme, "http") == 0 && len > 3 && strcmp(h + len - 3, ":80") == 0)
        h[len - 3] = '\0';
    else if (strcmp(scheme, "https") == 0 && len > 4 && strcmp(h + len - 4, ":443") == 0)
        h[len - 4] = '\0';
    return h;
}

int wh_csrf_same_origin(apr_pool_t *p, const char *origin, const char *scheme,
                        const char *host)
{
    const char *sep;
    char sch[8];
    apr_size_t slen;

    if (!origin || !scheme || !host || !*host)
        return 0;
    if (strcasecmp(scheme, "http") != 0 && strcasecmp(scheme, "https") != 0)
        return 0;
    sep = strstr(origin, "://");
    if (!sep || (slen = (apr_size_t)(sep - origin)) >= sizeof(sch))
        return 0;
    for (apr_size_t i = 0; i < slen; i++)
        sch[i] = (char)apr_tolower(origin[i]);
    sch[slen] = '\0';
    if (strcasecmp(sch, scheme) != 0 || strlen(origin) > 1024 || strlen(host) > 1024)
        return 0;
    /* an origin is scheme://host[:port] and nothing else */
    if (strpbrk(sep + 3, "/?#@ \t") || strpbrk(host, "/?#@ \t"))
        return 0;
    return strcmp(norm_host(p, sch, sep + 3, strlen(sep + 3)),
                  norm_host(p, sch, host, strlen(host))) == 0;
}
