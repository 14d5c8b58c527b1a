#ifndef WH_CONFIG_H
#define WH_CONFIG_H
#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_hash.h>
#include "wh_file_id.h"
#include "wh_log.h"

/* One configuration file format, shared by mod_wirehook and wirehook.cgi:
 *   Key value        keys case-insensitive, values optionally "quoted"
 *   # comment
 * Unknown keys, duplicate keys, bad values and missing required keys are
 * errors (fail closed). */

typedef enum {
    WH_TS_AUTO = 0,          /* >= 13 digits: milliseconds, else seconds */
    WH_TS_SECONDS,
    WH_TS_MILLISECONDS
} wh_ts_unit;

/* Which form of the request URL the sender signs when SignedUrl is unset. */
typedef enum {
    WH_URL_ABSOLUTE = 0,     /* scheme://host[:port]/path[?query] */
    WH_URL_PATH              /* /path[?query] only */
} wh_url_form;

typedef enum {
    WH_INBOX_SQLITE3 = 0,
    WH_INBOX_PGSQL
} wh_inbox_driver;

typedef struct {
    const unsigned char *key;
    apr_size_t len;
    /* An HMAC context already keyed with this secret (EVP_MAC_CTX, owned
     * by the pool that loaded the secret), or NULL: wh_signature_match
     * duplicates it per message instead of keying a new one. */
    void *keyed;
} wh_secret;

typedef struct {
    const char *source;                /* config file path, for messages */

    const char *signing_secret_file;   /* required */
    const char *basic_auth_file;       /* required */
    const char *timestamp_header;      /* X-Timestamp */
    const char *signature_header;      /* X-Signature */
    wh_ts_unit timestamp_unit;         /* auto */
    apr_int64_t timestamp_tolerance;   /* seconds, 300, both directions */
    const char *signed_url;            /* NULL: built from the request */
    wh_url_form signed_url_form;       /* SignedUrlForm, absolute */
    apr_int64_t max_body_size;         /* bytes, 65536 */
    int unknown_status_reject;         /* 0: accept and flag */
    const char *auth_realm;            /* AuthRealm, "wirehook" */
    apr_int64_t auth_cache_ttl;        /* AuthCacheTTL seconds, 60; 0 off */

    wh_inbox_driver inbox_driver;      /* sqlite3 */
    const char *inbox_driver_name;     /* "sqlite3" | "pgsql" (apr_dbd) */
    const char *inbox_params;          /* file for sqlite3, conninfo pgsql */
    const char *inbox_group;           /* InboxGroup: files 0640, this group */
    int inbox_batch_max;               /* InboxBatchMax, 64 */
    apr_int64_t inbox_batch_wait;      /* InboxBatchWait microseconds, 0 */
    int list_default_limit;            /* 25 */
    int list_max_limit;                /* 100 */

    const char *replay_cache;          /* ReplayCache as written: "dbm" */
    const char *replay_cache_provider; /* "dbm", "shmcb", "memcache", "redis" */
    const char *replay_cache_args;     /* text after "provider:", or NULL */
    apr_int64_t replay_window;         /* ReplayWindow seconds; default and
                                          minimum 2 * timestamp_tolerance */
    apr_int64_t replay_lease;          /* ReplayLease seconds, 120: a claim
                                          nobody renews holds this long */

    wh_log_level cgi_log_level;        /* CGILogLevel: what wirehook.cgi
                                          writes to httpd's error log, warn */

    /* wirehook forward (docs/forwarding.md); durations in milliseconds. */
    const char *forward_url;           /* ForwardUrl; NULL: no forwarding */
    const char *forward_secret_file;   /* ForwardSecretFile, loaded by the
                                          forwarder only (the module and
                                          the CGI never need it) */
    int forward_max_attempts;          /* ForwardMaxAttempts, 100 */
    apr_int64_t forward_max_age;       /* ForwardMaxAge, 1d */
    apr_int64_t forward_timeout;       /* ForwardTimeout, 30s */
    int forward_concurrency;           /* ForwardConcurrency, 32 */
    const char *forward_ca_file;       /* ForwardCAFile; NULL: system CAs */
    apr_int64_t forward_backoff_min;   /* ForwardBackoffMin, 1s */
    apr_int64_t forward_backoff_max;   /* ForwardBackoffMax, 15m */

    /* The console (docs/console.md). */
    int console_actions;               /* ConsoleActions, 1: operators act */
    const char *console_readers_file;  /* ConsoleReaders: the CGI's readers */
    const char *console_operators_file;/* ConsoleOperators: its operators */
    /* Set by the host, not a key: where this configuration's readers read
     * (its console), or NULL. When set, the bank's credentials read
     * nothing (the inbox's GET answers 403 forbidden). */
    const char *readers_at;

    /* Loaded by wh_config_finalize() when its parts ask for them: */
    apr_array_header_t *secrets;       /* of wh_secret, at least one */
    apr_hash_t *users;                 /* user -> htpasswd hash string */
    apr_hash_t *console_readers;       /* of ConsoleReaders, or NULL */
    apr_hash_t *console_operators;     /* of ConsoleOperators, or NULL */
    wh_file_id secrets_id;             /* the versions read (wh_creds.h */
    wh_file_id users_id;               /* re-reads them when they change) */

    /* Which keys were set (lower-case key -> line number as string). */
    apr_hash_t *seen;
} wh_config;

/* A config with every default filled in and nothing loaded. */
wh_config *wh_config_create(apr_pool_t *p);

/* Sets one key. Returns NULL or an error message (without file:line).
 * override=0 rejects a key that was already set (duplicate). */
const char *wh_config_set(apr_pool_t *p, wh_config *cfg, const char *key,
                          const char *value, int override);

/* Parses a config file into a fresh config (defaults first). Every error
 * is collected as "path:line: message"; returns NULL when there were none,
 * else all errors joined with '\n'. *out is set in both cases. Does not
 * finalize. */
const char *wh_config_parse_file(apr_pool_t *p, const char *path,
                                 wh_config **out);

/* What a program needs of a configuration file. Each process reads only
 * the files it uses: the forwarder (run as the web server's user) never
 * needs the bank's signing secret or the htpasswd file, which may be
 * readable by root alone. Finalize requires the keys and loads the files
 * of the parts asked for, and neither requires nor reads the others'. */
enum {
    WH_PART_SECRETS = 1,     /* SigningSecretFile: required, loaded */
    WH_PART_USERS = 2,       /* BasicAuthFile: required, loaded */
    WH_PART_INBOX = 4,       /* InboxParams: required */
    WH_PART_FORWARD = 8      /* ForwardUrl (with ForwardSecretFile): required */
};
/* Verifying notifications: the module, the CGI, wirehook configtest. */
#define WH_PART_VERIFY (WH_PART_SECRETS | WH_PART_USERS)

/* Checks the required keys of parts and the cross-key rules, loads the
 * files of parts. Returns NULL or the errors joined with '\n', each
 * "path:line: Key: ..." for a key of the file. */
const char *wh_config_finalize_parts(apr_pool_t *p, wh_config *cfg,
                                     unsigned parts);
/* finalize_parts with WH_PART_VERIFY. */
const char *wh_config_finalize(apr_pool_t *p, wh_config *cfg);

/* Parse + finalize in one call. */
const char *wh_config_load_parts(apr_pool_t *p, const char *path,
                                 unsigned parts, wh_config **out);
/* load_parts with WH_PART_VERIFY. */
const char *wh_config_load(apr_pool_t *p, const char *path, wh_config **out);

/* Where a key was set, to start a message about it: "path:line: " for a
 * line of the file, "path: " for a key set otherwise (the CGI's
 * environment), "" without a file. key in any case. */
const char *wh_config_where(apr_pool_t *p, const wh_config *cfg,
                            const char *key);

/* Permission hygiene: returns the warnings, one a line (secret or htpasswd
 * file readable or writable by others; inbox files others can read or
 * write), or NULL. */
const char *wh_config_permission_warnings(apr_pool_t *p, const wh_config *cfg);

/* The keys the format knows, NULL-terminated, in canonical spelling. */
const char *const *wh_config_keys(void);

#endif
