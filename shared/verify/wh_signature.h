#ifndef WH_SIGNATURE_H
#define WH_SIGNATURE_H
#include <apr_pools.h>
#include <apr_tables.h>
#include "wh_config.h"   /* wh_secret */
#include "wh_file_id.h"

#define WH_SIG_HEX_LEN 64
#define WH_SIG_RAW_LEN 32

/* One part of a message, bytes with an explicit length (may hold NULs). */
typedef struct {
    const void *data;
    apr_size_t len;
} wh_bytes;

/* HMAC-SHA256(key, parts[0] + ... + parts[n-1]) into out, streamed so no
 * part is copied. Returns 0 on success. */
int wh_hmac_sha256(const unsigned char *key, apr_size_t key_len,
                   const wh_bytes *parts, int n,
                   unsigned char out[WH_SIG_RAW_LEN]);

/* HMAC-SHA256(key, method + url + body + timestamp) into out (32 bytes).
 * Returns 0 on success. */
int wh_signature_compute(const unsigned char *key, apr_size_t key_len,
                         const char *method, const char *url,
                         const char *body, apr_size_t body_len,
                         const char *timestamp, unsigned char out[WH_SIG_RAW_LEN]);

/* Lowercase hex of a raw signature; out must hold 65 bytes. */
void wh_signature_hex(const unsigned char raw[WH_SIG_RAW_LEN], char out[65]);

/* Decodes exactly 64 hex digits (either case). Returns 0, or -1 when the
 * value is not exactly 64 hex digits. */
int wh_signature_decode(const char *hex, unsigned char out[WH_SIG_RAW_LEN]);

/* Tries every secret (wh_secret array) in constant time per secret.
 * Returns the index of the matching secret or -1. */
int wh_signature_match(const apr_array_header_t *secrets, const char *method,
                       const char *url, const char *body, apr_size_t body_len,
                       const char *timestamp,
                       const unsigned char given[WH_SIG_RAW_LEN]);

/* Keys an HMAC context for s once (s->keyed, freed with p), so matching
 * a message only duplicates it. On failure s->keyed stays NULL and
 * matching keys a context per message instead. */
void wh_secret_prepare(apr_pool_t *p, wh_secret *s);

/* Reads a secret file: one secret per line, used byte for byte; only the
 * trailing CR/LF is stripped and empty lines are skipped. There is no comment
 * syntax: a bank-issued secret may begin with '#'. Every secret is
 * prepared (wh_secret_prepare). Returns NULL or an error that never quotes
 * secret bytes. */
const char *wh_secrets_load(apr_pool_t *p, const char *path,
                            apr_array_header_t **secrets);
/* The same, giving the identity of the file read (id may be NULL). */
const char *wh_secrets_load_ex(apr_pool_t *p, const char *path,
                               apr_array_header_t **secrets, wh_file_id *id);

#endif
