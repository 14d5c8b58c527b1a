/* floor.cgi: the least a CGI that verifies and stores a webhook must do,
 * for the CGI benchmark's bound. Per process: read CONTENT_LENGTH bytes of
 * body, HMAC-SHA256 over method + URL + body + timestamp compared in
 * constant time with X-Signature, json_tokener_parse() for the
 * notificationId, and one durable SQLite insert (WAL, synchronous=FULL,
 * INSERT OR IGNORE on the id) committed before the 200. No Basic auth, no
 * configuration file, no strictness, schema, quarantine or arrival
 * sequence. A wrong signature gets 403 and a failed insert 503, so a
 * broken floor cannot pass for a fast one. It is linked as wirehook.cgi is
 * (CGI_LINK) and starts OpenSSL the same way.
 *
 * Environment (SetEnv): BENCH_FLOOR_SECRET, BENCH_FLOOR_DB.
 * Bench-only: never installed. */
#include <json-c/json.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "floor_mac.h"
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FLOOR_MAX_BODY (1024L * 1024L)

static int answer(int status, const char *reason)
{
    printf("Status: %d %s\r\nContent-Type: application/json\r\n\r\n"
           "{\"status\":%d}\n", status, reason, status);
    return 0;
}

static int signature_ok(const char *secret, const char *url, const char *body,
                        long len, const char *ts, const char *sig)
{
    char digest[] = "SHA256";
    OSSL_PARAM params[2];
    EVP_MAC *impl;
    EVP_MAC_CTX *ctx;

    if (!secret || !(impl = EVP_MAC_fetch(NULL, "HMAC", NULL)))
        return 0;
    ctx = EVP_MAC_CTX_new(impl);
    EVP_MAC_free(impl);
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0);
    params[1] = OSSL_PARAM_construct_end();
    if (ctx && !EVP_MAC_init(ctx, (const unsigned char *)secret, strlen(secret), params)) {
        EVP_MAC_CTX_free(ctx);
        return 0;
    }
    return floor_mac_matches(ctx, "POST", url, body, (size_t)len, ts, sig);
}

static int store(const char *path, const char *id, const char *body, long len)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int ok = sqlite3_open(path, &db) == SQLITE_OK
             && sqlite3_busy_timeout(db, 5000) == SQLITE_OK
             && sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                             "CREATE TABLE IF NOT EXISTS events(id TEXT PRIMARY KEY, body BLOB)",
                             NULL, NULL, NULL) == SQLITE_OK
             && sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO events VALUES(?, ?)", -1,
                                   &st, NULL) == SQLITE_OK
             && sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC) == SQLITE_OK
             && sqlite3_bind_blob(st, 2, body, (int)len, SQLITE_STATIC) == SQLITE_OK
             && sqlite3_step(st) == SQLITE_DONE;
    sqlite3_finalize(st);
    sqlite3_close(db);
    return ok;
}

int main(void)
{
    const char *cl = getenv("CONTENT_LENGTH"), *host = getenv("HTTP_HOST");
    const char *uri = getenv("REQUEST_URI"), *db = getenv("BENCH_FLOOR_DB");
    long want = cl ? strtol(cl, NULL, 10) : 0, got = 0;
    char *body, url[2048];
    json_object *root, *id = NULL;
    int stored;

    /* As wirehook.cgi starts OpenSSL (cgi/main.c): what a one-request
     * process never uses is not set up, so the floor is not slower for
     * reasons wirehook does not pay. */
    OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG | OPENSSL_INIT_NO_ATEXIT
                        | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS
                        | OPENSSL_INIT_NO_ADD_ALL_CIPHERS
                        | OPENSSL_INIT_NO_ADD_ALL_DIGESTS, NULL);
    if (want <= 0 || want > FLOOR_MAX_BODY || !db || !(body = malloc((size_t)want + 1)))
        return answer(400, "Bad Request");
    while (got < want) {
        ssize_t n = read(0, body + got, (size_t)(want - got));
        if (n <= 0)
            break;
        got += n;
    }
    body[got] = '\0';
    snprintf(url, sizeof url, "http://%s%s", host ? host : "", uri ? uri : "");
    if (!signature_ok(getenv("BENCH_FLOOR_SECRET"), url, body, got,
                      getenv("HTTP_X_TIMESTAMP"), getenv("HTTP_X_SIGNATURE")))
        return answer(403, "Forbidden");
    if (!(root = json_tokener_parse(body))
        || !json_object_object_get_ex(root, "notificationId", &id))
        return answer(400, "Bad Request");
    stored = store(db, json_object_get_string(id), body, got);
    json_object_put(root);
    free(body);
    return stored ? answer(200, "OK") : answer(503, "Service Unavailable");
}
