/* The verification both floors do (bench/mod_benchok.c's benchfloor
 * handler and bench/floor_cgi.c), with OpenSSL alone: no wirehook code, so
 * the floors measure the libraries, not the core. */
#ifndef FLOOR_MAC_H
#define FLOOR_MAC_H
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <string.h>

static int floor_hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* 1 when sig (64 hex digits) is HMAC-SHA256 over method + url + body + ts
 * under the key ctx holds, compared in constant time. Frees ctx (which may
 * be NULL). */
static int floor_mac_matches(EVP_MAC_CTX *ctx, const char *method,
                             const char *url, const char *body, size_t len,
                             const char *ts, const char *sig)
{
    unsigned char mac[32], given[32];
    size_t mac_len = 0;
    int ok = ctx && ts && sig && strlen(sig) == 64;

    for (int i = 0; ok && i < 32; i++) {
        int hi = floor_hexval(sig[2 * i]), lo = floor_hexval(sig[2 * i + 1]);
        ok = hi >= 0 && lo >= 0;
        given[i] = (unsigned char)(ok ? hi << 4 | lo : 0);
    }
    ok = ok && EVP_MAC_update(ctx, (const unsigned char *)method, strlen(method))
         && EVP_MAC_update(ctx, (const unsigned char *)url, strlen(url))
         && EVP_MAC_update(ctx, (const unsigned char *)body, len)
         && EVP_MAC_update(ctx, (const unsigned char *)ts, strlen(ts))
         && EVP_MAC_final(ctx, mac, &mac_len, sizeof mac) && mac_len == 32;
    EVP_MAC_CTX_free(ctx);
    return ok && CRYPTO_memcmp(mac, given, 32) == 0;
}

#endif
