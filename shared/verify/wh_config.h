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
    WH_INBOX_PGSQL,
    WH_INBOX_MYSQL             /* MariaDB or MySQL */
} wh_inbox_driver;

/* One key of the format: its row (wh_key.h). */
typedef struct wh_key wh_key;

typedef struct {
    const unsigned char *key;
    apr_size_t len;
    /* An HMAC context already keyed with this secret (EVP_MAC_CTX, owned
     * by the pool that loaded the secret), or NULL: wh_signature_match
     * duplicates it per message instead of keying a new one. */
    void *keyed;
} wh_secret;

/* The fields of the keys (each row names its field; the defaults are the
 * rows'), then what finalize loads and what the loader keeps. */
typedef struct {
    const char *source;                /* config file path, for messages */

    const char *signing_secret_file;   /* required */
    const char *basic_auth_file;       /* required */
    const char *timestamp_header;
    const char *signature_header;
    wh_ts_unit timestamp_unit;
    apr_int64_t timestamp_tolerance;   /* seconds, both directions */
    const char *signed_url;            /* NULL: built from the request */
    wh_url_form signed_url_form;
    apr_int64_t max_body_size;         /* bytes */
    int unknown_status_reject;         /* 0: accept and flag */
    const char *auth_realm;
    apr_int64_t auth_cache_ttl;        /* seconds; 0 off */

    wh_inbox_driver inbox_driver;
    const char *inbox_driver_name;     /* "sqlite3" | "pgsql" | "mysql" (apr_dbd) */
    const char *inbox_params;          /* file for sqlite3, conninfo pgsql,
                                          apr_dbd's parameters mysql */
    const char *inbox_group;           /* InboxGroup: files 0640, this group */
    int inbox_batch_max;
    apr_int64_t inbox_batch_wait;      /* microseconds */
    int list_default_limit;
    int list_max_limit;
    /* Retention, in seconds, 0: kept for ever (docs/inbox.md). Unset, the
     * quarantine's and the dead letters' are InboxRetention's; the
     * tombstones' (a purged event's notificationId) are kept for ever. */
    apr_int64_t inbox_retention;
    apr_int64_t inbox_quarantine_retention;
    apr_int64_t inbox_dead_retention;
    apr_int64_t inbox_tombstone_retention;

    const char *replay_cache;          /* ReplayCache as written */
    const char *replay_cache_provider; /* "dbm", "shmcb", "memcache", "redis" */
    const char *replay_cache_args;     /* text after "provider:", or NULL */
    apr_int64_t replay_window;         /* seconds; default and minimum
                                          2 * timestamp_tolerance */
    apr_int64_t replay_lease;          /* seconds a claim nobody renews
                                          holds */

    wh_log_level cgi_log_level;        /* what wirehook.cgi writes to
                                          httpd's error log */

    /* wirehook forward (docs/forwarding.md); durations in milliseconds. */
    const char *forward_url;           /* ForwardUrl; NULL: no forwarding */
    const char *forward_secret_file;   /* ForwardSecretFile, loaded by the
                                          forwarder only (the module and
                                          the CGI never need it) */
    int forward_max_attempts;
    apr_int64_t forward_max_age;
    apr_int64_t forward_timeout;
    int forward_concurrency;
    const char *forward_ca_file;       /* NULL: system CAs */
    apr_int64_t forward_backoff_min;
    apr_int64_t forward_backoff_max;

    /* The console (docs/console.md). */
    int console_actions;               /* 1: operators act */
    const char *console_origin;        /* ConsoleOrigin, canonical, or NULL */
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
    /* The keys this configuration knows: tables of rows, NULL-terminated
     * (config/wh_config_load.h gives every subsystem's). */
    const wh_key *const *keys;
} wh_config;

/* The generic loader: it knows the keys it is given, not which keys exist
 * (each subsystem declares its own; config/wh_config_load.h makes a
 * configuration of them all, and is what programs call). */

/* A config knowing the keys of tables (NULL-terminated), with every
 * default filled in and nothing loaded. */
wh_config *wh_config_make(apr_pool_t *p, const wh_key *const *tables);

/* Sets one key. Returns NULL or an error message (without file:line).
 * override=0 rejects a key that was already set (duplicate). */
const char *wh_config_set(apr_pool_t *p, wh_config *cfg, const char *key,
                          const char *value, int override);

/* Reads the config file path into cfg (made by wh_config_make, nothing set
 * yet). Every error is collected as "path:line: message"; returns NULL
 * when there were none, else all errors joined with '\n'. Does not
 * finalize. */
const char *wh_config_read(apr_pool_t *p, wh_config *cfg, const char *path);

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

/* Where a key was set, to start a message about it: "path:line: " for a
 * line of the file, "path: " for a key set otherwise (the CGI's
 * environment), "" without a file. key in any case. */
const char *wh_config_where(apr_pool_t *p, const wh_config *cfg,
                            const char *key);

/* Permission hygiene: returns the warnings, one a line (secret or htpasswd
 * file readable or writable by others; inbox files others can read or
 * write), or NULL. */
const char *wh_config_permission_warnings(apr_pool_t *p, const wh_config *cfg);

#endif
