#ifndef WH_AUTH_H
#define WH_AUTH_H
#include <apr_pools.h>
#include <apr_hash.h>
#include <apr_time.h>

/* Basic authentication against an htpasswd user table. */

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

/* Splits "Basic base64(user:pass)". Returns NULL or why it is malformed. */
const char *wh_auth_parse_basic(apr_pool_t *p, const char *header,
                                const char **user, const char **password);

/* Checks the Authorization header value against users (user -> hash).
 * cache may be NULL. *user_out gets the user name on success. */
wh_auth_result wh_auth_check(apr_pool_t *p, apr_hash_t *users,
                             wh_auth_cache *cache, const char *header,
                             apr_time_t now, const char **user_out);

/* Loads an htpasswd file (user:hash per line, '#' comments) into a hash.
 * Returns NULL or an error "path:line: message". */
const char *wh_htpasswd_load(apr_pool_t *p, const char *path,
                             apr_hash_t **users);

#endif
