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

/* HMAC-SHA256 under K of label NUL f[0] NUL f[1] ... (NULL fields are
 * empty), as 64 hex digits in out (65 bytes); 0 or -1. Each field is
 * closed by a NUL, so no two lists of fields give the same input. */
static int mac_hex(const wh_csrf_key *key, const char *label, const char *const *f,
                   int n, char *out)
{
    unsigned char mac[WH_SIG_RAW_LEN];
    wh_bytes parts[2 * 8];
    int k = 0;

    if (!key || !key->ok || n > 7)
        return -1;
    parts[k].data = label;
    parts[k++].len = strlen(label);
    for (int i = 0; i < n; i++) {
        parts[k].data = "";
        parts[k++].len = 1;
        parts[k].data = f[i] ? f[i] : "";
        parts[k++].len = f[i] ? strlen(f[i]) : 0;
    }
    if (wh_hmac_sha256(key->key, sizeof(key->key), parts, k, mac) != 0)
        return -1;
    to_hex(mac, sizeof(mac), out);
    OPENSSL_cleanse(mac, sizeof(mac));
    return 0;
}

static int hex_equal(const char *want, const char *got)
{
    apr_size_t n = strlen(want);
    return got && strlen(got) == n && CRYPTO_memcmp(want, got, n) == 0;
}

static const char *token_at(apr_pool_t *p, const wh_csrf_key *key, const char *session,
                            const char *user, const char *action, const char *target,
                            const char *expires)
{
    const char *f[5] = { session, user, action, target, expires };
    char mac[2 * WH_SIG_RAW_LEN + 1];

    if (!session || !action || mac_hex(key, "token", f, 5, mac) != 0)
        return NULL;
    return apr_pstrcat(p, expires, ".", mac, NULL);
}

const char *wh_csrf_token(apr_pool_t *p, const wh_csrf_key *key, const char *session,
                          const char *user, const char *action, const char *target,
                          apr_time_t now)
{
    return token_at(p, key, session, user, action, target,
                    apr_psprintf(p, "%" APR_TIME_T_FMT,
                                 apr_time_sec(now + WH_CSRF_TOKEN_TTL)));
}

wh_csrf_verdict wh_csrf_check(apr_pool_t *p, const wh_csrf_key *key, const char *session,
                              const char *user, const char *action, const char *target,
                              const char *token, apr_time_t now)
{
    const char *dot = token ? strchr(token, '.') : NULL, *want;
    apr_size_t n = dot ? (apr_size_t)(dot - token) : 0;
    apr_int64_t expires = 0;

    /* EXPIRES: 1 to 12 digits, no sign, no leading zero */
    if (!dot || n < 1 || n > 12 || token[0] == '0')
        return WH_CSRF_BAD;
    for (apr_size_t i = 0; i < n; i++) {
        if (token[i] < '0' || token[i] > '9')
            return WH_CSRF_BAD;
        expires = expires * 10 + (token[i] - '0');
    }
    want = token_at(p, key, session, user, action, target, apr_pstrmemdup(p, token, n));
    if (!want || !hex_equal(want, token))
        return WH_CSRF_BAD;
    return apr_time_sec(now) > expires ? WH_CSRF_EXPIRED : WH_CSRF_OK;
}

static int seal_hex(const wh_csrf_key *key, const char *session, const char *user,
                    const char *page, const char *what, apr_time_t at, char *out)
{
    char when[24];
    const char *f[5] = { session, user, page, what, when };

    if (!session || !page || !what)
        return -1;
    apr_snprintf(when, sizeof(when), "%" APR_TIME_T_FMT, apr_time_sec(at));
    return mac_hex(key, "notice", f, 5, out);
}

const char *wh_csrf_seal(apr_pool_t *p, const wh_csrf_key *key, const char *session,
                         const char *user, const char *page, const char *what,
                         apr_time_t at)
{
    char mac[2 * WH_SIG_RAW_LEN + 1];
    return seal_hex(key, session, user, page, what, at, mac) == 0 ? apr_pstrdup(p, mac)
                                                                    : NULL;
}

int wh_csrf_seal_check(apr_pool_t *p, const wh_csrf_key *key, const char *session,
                       const char *user, const char *page, const char *what,
                       apr_time_t at, const char *seal, apr_time_t now)
{
    char mac[2 * WH_SIG_RAW_LEN + 1];
    (void)p;

    if (apr_time_sec(at) > apr_time_sec(now)
        || apr_time_sec(now) - apr_time_sec(at) > apr_time_sec(WH_CSRF_NOTICE_TTL))
        return 0;
    return seal_hex(key, session, user, page, what, at, mac) == 0 && hex_equal(mac, seal);
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
