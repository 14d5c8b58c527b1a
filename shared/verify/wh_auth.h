#ifndef WH_AUTH_H
#define WH_AUTH_H
#include <apr_pools.h>
#include <apr_hash.h>
#include <apr_time.h>
#include "wh_file_id.h"

/* Basic authentication against an htpasswd user table. */

/* The longest user name a check looks up, and a cache holds. */
#define WH_AUTH_MAX_USER 255

typedef enum {
    WH_AUTH_OK = 0,
    WH_AUTH_MISSING,     /* no header, not Basic, bad base64, no colon */
    WH_AUTH_FAILED       /* unknown user or wrong password */
} wh_auth_result;

/* Cache of successful checks, keyed by SHA-256 of the Authorization value
 * (never the value itself); an entry lives ttl seconds after its last use.
 * Bounded in size. Thread-safe. ttl 0 disables it. */
typedef struct wh_auth_cache wh_auth_cache;

wh_auth_cache *wh_auth_cache_create(apr_pool_t *p, apr_int64_t ttl_seconds,
                                    unsigned max_entries);
/* Counters for tests and benchmarks. */
unsigned long wh_auth_cache_hits(const wh_auth_cache *c);
unsigned long wh_auth_cache_misses(const wh_auth_cache *c);

/* An optional second-level store of successful checks, shared between
 * processes that cannot share memory (wirehook.cgi: one process per
 * request, so the in-process cache alone never hits). Consulted after an
 * in-process miss and written after a successful password check; failures
 * are never stored. Keys are 64 lowercase hex digits of
 * HMAC-SHA256(K, header value, NUL, the user's htpasswd hash) with K
 * derived from a server secret (wh_auth_cache_set_store): a leaked store
 * can only be attacked online, through the server's own bcrypt; a changed
 * password or a removed user no longer matches any stored key.
 * Both callbacks may fail silently: a store that is down only costs the
 * password check. */
typedef struct {
    /* 1 on a live entry (expires > now) for key, with *user (in p); the
     * store then extends the entry's expiry to new_expires (sliding). */
    int (*lookup)(void *ctx, apr_pool_t *p, const char *key, apr_time_t now,
                  apr_time_t new_expires, const char **user);
    /* Records key -> user until expires; may drop entries expired at now. */
    void (*store)(void *ctx, apr_pool_t *p, const char *key, const char *user,
                  apr_time_t now, apr_time_t expires);
    void *ctx;
} wh_auth_store;

/* Attaches store (copied) to the cache, with the store key derived as
 * HMAC-SHA256(secret, "wirehook auth cache v1"). No effect when the cache
 * is disabled (ttl 0). Returns 0, or -1 when the key cannot be derived. */
int wh_auth_cache_set_store(wh_auth_cache *c, const wh_auth_store *store,
                            const unsigned char *secret, apr_size_t secret_len);
/* Hits in the second-level store, and password checks actually run
 * (apr_password_validate calls: bcrypt for bcrypt hashes). */
unsigned long wh_auth_cache_store_hits(const wh_auth_cache *c);
unsigned long wh_auth_cache_password_checks(const wh_auth_cache *c);
/* Of those, the checks an unknown user's password paid against the
 * decoy hash (see wh_auth_check). */
unsigned long wh_auth_cache_decoy_checks(const wh_auth_cache *c);

/* Splits "Basic base64(user:pass)". Returns NULL or why it is malformed. */
const char *wh_auth_parse_basic(apr_pool_t *p, const char *header,
                                const char **user, const char **password);

/* Checks the Authorization header value against users (user -> hash).
 * cache may be NULL. *user_out gets the user name on success. An unknown
 * user costs the same password check as a known one with a wrong password
 * (wh_htpasswd_decoy): timing does not tell which names exist. */
wh_auth_result wh_auth_check(apr_pool_t *p, apr_hash_t *users,
                             wh_auth_cache *cache, const char *header,
                             apr_time_t now, const char **user_out);
/* The same, saying in *password_checked (may be NULL) whether a password
 * check (bcrypt for bcrypt hashes) ran, rather than a cache answering. */
wh_auth_result wh_auth_check_ex(apr_pool_t *p, apr_hash_t *users,
                                wh_auth_cache *cache, const char *header,
                                apr_time_t now, const char **user_out,
                                int *password_checked);

/* The same against one version of a user table that is re-read when its
 * file changes (wh_creds.h): the cache's entries are kept per generation,
 * and only an entry made against this generation is a hit. */
wh_auth_result wh_auth_check_gen(apr_pool_t *p, apr_hash_t *users,
                                 unsigned generation, wh_auth_cache *cache,
                                 const char *header, apr_time_t now,
                                 const char **user_out, int *password_checked);

/* The costliest hash of the table (bcrypt of the highest cost first):
 * an unknown user's password is checked against it, and the result
 * ignored, so that a failed login costs the same whether or not the name
 * exists. NULL for an empty or NULL table. */
const char *wh_htpasswd_decoy(apr_hash_t *users);

/* Loads an htpasswd file (user:hash per line, '#' comments) into a hash.
 * Returns NULL or an error "path:line: message". */
const char *wh_htpasswd_load(apr_pool_t *p, const char *path,
                             apr_hash_t **users);
/* The same, giving the identity of the file read (id may be NULL). */
const char *wh_htpasswd_load_ex(apr_pool_t *p, const char *path,
                                apr_hash_t **users, wh_file_id *id);

#endif
