#include "wh_signature.h"
#include "wh_config.h"
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <pthread.h>
#include <string.h>

/* EVP_MAC_fetch walks the provider tables; do it once per process. */
static EVP_MAC *hmac_impl;
static pthread_once_t hmac_once = PTHREAD_ONCE_INIT;

static void fetch_hmac(void)
{
    hmac_impl = EVP_MAC_fetch(NULL, "HMAC", NULL);
}

/* A new context keyed with key, or NULL. */
static EVP_MAC_CTX *keyed_ctx(const unsigned char *key, apr_size_t key_len)
{
    char digest[] = "SHA256";
    OSSL_PARAM params[2];
    EVP_MAC_CTX *ctx;

    pthread_once(&hmac_once, fetch_hmac);
    if (!hmac_impl || !(ctx = EVP_MAC_CTX_new(hmac_impl)))
        return NULL;
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0);
    params[1] = OSSL_PARAM_construct_end();
    /* An empty key is legal HMAC but OpenSSL wants a non-NULL pointer. */
    if (!EVP_MAC_init(ctx, key_len ? key : (const unsigned char *)"", key_len, params)) {
        EVP_MAC_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* Feeds parts into a keyed ctx, writes the MAC and frees the ctx. */
static int finish(EVP_MAC_CTX *ctx, const wh_bytes *parts, int n,
                  unsigned char out[WH_SIG_RAW_LEN])
{
    size_t out_len = 0;
    int ok = ctx != NULL;

    for (int i = 0; ok && i < n; i++)
        ok = parts[i].len == 0
             || EVP_MAC_update(ctx, parts[i].data, parts[i].len);
    ok = ok && EVP_MAC_final(ctx, out, &out_len, WH_SIG_RAW_LEN)
         && out_len == WH_SIG_RAW_LEN;
    EVP_MAC_CTX_free(ctx);
    return ok ? 0 : -1;
}

int wh_hmac_sha256(const unsigned char *key, apr_size_t key_len,
                   const wh_bytes *parts, int n,
                   unsigned char out[WH_SIG_RAW_LEN])
{
    return finish(keyed_ctx(key, key_len), parts, n, out);
}

static apr_status_t free_keyed(void *ctx)
{
    EVP_MAC_CTX_free(ctx);
    return APR_SUCCESS;
}

/* Keying costs a digest lookup by name and two hash blocks, a large part
 * of the HMAC of a notification; a duplicate of a keyed context skips
 * both. */
void wh_secret_prepare(apr_pool_t *p, wh_secret *s)
{
    s->keyed = keyed_ctx(s->key, s->len);
    if (s->keyed)
        apr_pool_cleanup_register(p, s->keyed, free_keyed, apr_pool_cleanup_null);
}

static void signed_parts(wh_bytes parts[4], const char *method, const char *url,
                         const char *body, apr_size_t body_len,
                         const char *timestamp)
{
    parts[0] = (wh_bytes){ method, strlen(method) };
    parts[1] = (wh_bytes){ url, strlen(url) };
    parts[2] = (wh_bytes){ body, body_len };
    parts[3] = (wh_bytes){ timestamp, strlen(timestamp) };
}

int wh_signature_compute(const unsigned char *key, apr_size_t key_len,
                         const char *method, const char *url,
                         const char *body, apr_size_t body_len,
                         const char *timestamp,
                         unsigned char out[WH_SIG_RAW_LEN])
{
    wh_bytes parts[4];
    signed_parts(parts, method, url, body, body_len, timestamp);
    return wh_hmac_sha256(key, key_len, parts, 4, out);
}

void wh_signature_hex(const unsigned char raw[WH_SIG_RAW_LEN], char out[65])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < WH_SIG_RAW_LEN; i++) {
        out[2 * i] = digits[raw[i] >> 4];
        out[2 * i + 1] = digits[raw[i] & 0x0f];
    }
    out[64] = '\0';
}

/* OpenSSL's digit table, not apr_unescape_hex: that one asks the C
 * library's ctype table twice per digit, a cost every request paid. */
int wh_signature_decode(const char *hex, unsigned char out[WH_SIG_RAW_LEN])
{
    const unsigned char *h = (const unsigned char *)hex;

    if (!hex || strnlen(hex, WH_SIG_HEX_LEN + 1) != WH_SIG_HEX_LEN)
        return -1;
    for (int i = 0; i < WH_SIG_RAW_LEN; i++) {
        int hi = OPENSSL_hexchar2int(h[2 * i]), lo = OPENSSL_hexchar2int(h[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}

/* Every secret is computed and compared, whichever matches, so the time
 * taken does not tell which key of a rotation pair is live. */
int wh_signature_match(const apr_array_header_t *secrets, const char *method,
                       const char *url, const char *body, apr_size_t body_len,
                       const char *timestamp,
                       const unsigned char given[WH_SIG_RAW_LEN])
{
    int found = -1;
    wh_bytes parts[4];

    signed_parts(parts, method, url, body, body_len, timestamp);
    for (int i = 0; secrets && i < secrets->nelts; i++) {
        const wh_secret *s = &APR_ARRAY_IDX(secrets, i, wh_secret);
        unsigned char expected[WH_SIG_RAW_LEN];
        int rc = s->keyed
                     ? finish(EVP_MAC_CTX_dup(s->keyed), parts, 4, expected)
                     : wh_hmac_sha256(s->key, s->len, parts, 4, expected);
        int same = CRYPTO_memcmp(expected, given, WH_SIG_RAW_LEN) == 0;
        OPENSSL_cleanse(expected, sizeof(expected));
        if (rc == 0 && same && found < 0)
            found = i;
    }
    return found;
}
