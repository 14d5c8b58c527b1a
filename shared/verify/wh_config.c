/* The wirehook configuration file, shared by mod_wirehook and wirehook.cgi.
 *
 *   Key value         keys case-insensitive; value = rest of line, trimmed
 *   Key "a \"b\" c"   a quoted value is one complete string, escapes \" \\
 *   # comment         only at the start of a line: '#' inside a value is
 *                     data, since paths and conninfo strings may hold it
 *
 * Everything fails closed: unknown, duplicate, valueless or invalid keys
 * are errors, and every error of a file is collected ("path:line: msg")
 * so an operator fixes them in one round instead of one per restart.
 *
 * No message ever repeats a value: it may be a conninfo with a password.
 * An unknown key is named only when it is shaped like a key name, since a
 * line that is not a key at all may be a secret pasted into the wrong
 * file. Line numbers identify the culprit. */
#include "wh_config.h"
#include "wh_auth.h"
#include "wh_parse_forward.h"
#include "wh_duration.h"
#include "wh_account.h"
#include "wh_parse.h"
#include "wh_signature.h"

#include <apr_file_info.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

#define WH_CONFIG_LINE_MAX 8192
#define WH_CONFIG_FILE_MAX (1024 * 1024)
#define WH_KEY_NAME_MAX 64
#define WH_SUGGEST_DISTANCE 2

/* Line number recorded in cfg->seen for keys set through wh_config_set(),
 * which has no line; "0" keeps the value a number as documented. */
#define WH_SEEN_API "0"

#define WH_DEF_TOLERANCE 300
#define WH_DEF_MAX_BODY 65536
#define WH_DEF_AUTH_TTL 60
#define WH_DEF_LIST_LIMIT 25
#define WH_DEF_BATCH_MAX 64
#define WH_DEF_LIST_MAX 100
/* A copy of a request is refused as a duplicate only while its
 * notificationId is remembered, and a timestamp is accepted tolerance seconds either side
 * of now, so the window must span both directions. */
#define WH_REPLAY_FACTOR 2
#define WH_REPLAY_WINDOW_MAX (7 * 86400)
/* ReplayLease: a claim is renewed every third of it and a store may take
 * WH_REPLAY_NET_TIMEOUT (3 s) to answer, so the shortest lease still
 * outlives one renewal that times out. */
#define WH_DEF_REPLAY_LEASE 120
#define WH_REPLAY_LEASE_MIN 10
#define WH_REPLAY_LEASE_MAX 3600

/* Forwarding defaults and bounds (docs/forwarding.md explains the
 * schedule they make: about 17 hours of retries before an event is dead). */
#define WH_MS_DAY APR_INT64_C(86400000)
#define WH_DEF_FWD_ATTEMPTS 100
#define WH_DEF_FWD_MAX_AGE WH_MS_DAY
#define WH_DEF_FWD_TIMEOUT APR_INT64_C(30000)
#define WH_DEF_FWD_CONCURRENCY 32
#define WH_DEF_FWD_BACKOFF_MIN APR_INT64_C(1000)
#define WH_DEF_FWD_BACKOFF_MAX APR_INT64_C(900000)

typedef const char *(*wh_key_setter)(apr_pool_t *p, wh_config *cfg,
                                     const char *value);

typedef struct {
    const char *name;   /* canonical spelling */
    wh_key_setter set;  /* validates value; leaves cfg unchanged on error */
    const char *doc;
} wh_key_def;

/* ---- path resolution ----------------------------------------------- */

/* Directory of cfg->source as an absolute path, or NULL (current
 * directory) when there is no source. Relative paths in a config file mean
 * "next to this file", as httpd means "under ServerRoot", so the outcome
 * does not depend on the directory the server was started from. */
static const char *config_dir(apr_pool_t *p, const wh_config *cfg)
{
    char *abs;
    char *slash;

    if (!cfg->source || !*cfg->source)
        return NULL;
    if (apr_filepath_merge(&abs, NULL, cfg->source, 0, p) != APR_SUCCESS)
        return NULL;
    slash = strrchr(abs, '/');
    if (!slash)
        return NULL;
    if (slash == abs)
        return "/";
    *slash = '\0';
    return abs;
}

static const char *resolve_path(apr_pool_t *p, const wh_config *cfg,
                                const char *path, const char **out)
{
    char *merged;
    char reason[128];
    apr_status_t rv;

    rv = apr_filepath_merge(&merged, config_dir(p, cfg), path, 0, p);
    if (rv != APR_SUCCESS)
        return apr_psprintf(p, "cannot resolve path: %s",
                            apr_strerror(rv, reason, sizeof reason));
    *out = merged;
    return NULL;
}

static const char *parse_resolved_path(apr_pool_t *p, const wh_config *cfg,
                                       const char *value, const char **out)
{
    const char *path;
    const char *err = wh_parse_path(p, value, &path);

    return err ? err : resolve_path(p, cfg, path, out);
}

/* ---- setters, one per key ------------------------------------------ */

static const char *set_signing_secret_file(apr_pool_t *p, wh_config *cfg,
                                           const char *v)
{
    return parse_resolved_path(p, cfg, v, &cfg->signing_secret_file);
}

static const char *set_basic_auth_file(apr_pool_t *p, wh_config *cfg,
                                       const char *v)
{
    return parse_resolved_path(p, cfg, v, &cfg->basic_auth_file);
}

static const char *set_timestamp_header(apr_pool_t *p, wh_config *cfg,
                                        const char *v)
{
    return wh_parse_header_name(p, v, &cfg->timestamp_header);
}

static const char *set_signature_header(apr_pool_t *p, wh_config *cfg,
                                        const char *v)
{
    return wh_parse_header_name(p, v, &cfg->signature_header);
}

static const char *set_timestamp_unit(apr_pool_t *p, wh_config *cfg,
                                      const char *v)
{
    return wh_parse_ts_unit(p, v, &cfg->timestamp_unit);
}

static const char *set_timestamp_tolerance(apr_pool_t *p, wh_config *cfg,
                                           const char *v)
{
    static const wh_duration_rule r = { WH_US_S, WH_US_S, 1, 86400 };
    return wh_parse_duration(p, v, &r, &cfg->timestamp_tolerance);
}

static const char *set_signed_url(apr_pool_t *p, wh_config *cfg,
                                  const char *v)
{
    return wh_parse_url(p, v, &cfg->signed_url);
}

static const char *set_signed_url_form(apr_pool_t *p, wh_config *cfg,
                                       const char *v)
{
    return wh_parse_url_form(p, v, &cfg->signed_url_form);
}

static const char *set_max_body_size(apr_pool_t *p, wh_config *cfg,
                                     const char *v)
{
    return wh_parse_int64(p, v, 1, 67108864, &cfg->max_body_size);
}

static const char *set_unknown_status(apr_pool_t *p, wh_config *cfg,
                                      const char *v)
{
    return wh_parse_unknown_status(p, v, &cfg->unknown_status_reject);
}

static const char *set_auth_realm(apr_pool_t *p, wh_config *cfg,
                                  const char *v)
{
    return wh_parse_realm(p, v, &cfg->auth_realm);
}

static const char *set_auth_cache_ttl(apr_pool_t *p, wh_config *cfg,
                                      const char *v)
{
    static const wh_duration_rule r = { WH_US_S, WH_US_S, 0, 3600 };
    return wh_parse_duration(p, v, &r, &cfg->auth_cache_ttl);
}

static const char *set_inbox_driver(apr_pool_t *p, wh_config *cfg,
                                    const char *v)
{
    wh_inbox_driver driver;
    const char *name;
    const char *err = wh_parse_inbox_driver(p, v, &driver, &name);

    if (err)
        return err;
    cfg->inbox_driver = driver;
    cfg->inbox_driver_name = name;
    return NULL;
}

/* Kept as written: whether it is a path to resolve depends on
 * InboxDriver, which may come later, so wh_config_finalize() resolves. */
static const char *set_inbox_params(apr_pool_t *p, wh_config *cfg,
                                    const char *v)
{
    return wh_parse_path(p, v, &cfg->inbox_params);
}

static const char *set_inbox_group(apr_pool_t *p, wh_config *cfg,
                                   const char *v)
{
    return wh_parse_group(p, v, &cfg->inbox_group);
}

static const char *set_inbox_batch_max(apr_pool_t *p, wh_config *cfg,
                                       const char *v)
{
    return wh_parse_int(p, v, 1, 1000, &cfg->inbox_batch_max);
}

static const char *set_inbox_batch_wait(apr_pool_t *p, wh_config *cfg,
                                        const char *v)
{
    static const wh_duration_rule r = { 1, 1, 0, 100000 };
    return wh_parse_duration(p, v, &r, &cfg->inbox_batch_wait);
}

static const char *set_list_default_limit(apr_pool_t *p, wh_config *cfg,
                                          const char *v)
{
    return wh_parse_int(p, v, 1, 10000, &cfg->list_default_limit);
}

static const char *set_list_max_limit(apr_pool_t *p, wh_config *cfg,
                                      const char *v)
{
    return wh_parse_int(p, v, 1, 10000, &cfg->list_max_limit);
}

static const char *set_replay_cache(apr_pool_t *p, wh_config *cfg,
                                    const char *v)
{
    const char *provider;
    const char *args;
    const char *err = wh_parse_replay_cache(p, v, &provider, &args);

    if (err)
        return err;
    cfg->replay_cache = apr_pstrdup(p, v);
    cfg->replay_cache_provider = provider;
    cfg->replay_cache_args = args;
    return NULL;
}

/* Only the range here: the 2 * TimestampTolerance floor is checked in
 * wh_config_finalize() because the two keys may come in either order. */
static const char *set_replay_window(apr_pool_t *p, wh_config *cfg,
                                     const char *v)
{
    static const wh_duration_rule r = { WH_US_S, WH_US_S, 1,
                                        WH_REPLAY_WINDOW_MAX };
    return wh_parse_duration(p, v, &r, &cfg->replay_window);
}

static const char *set_replay_lease(apr_pool_t *p, wh_config *cfg,
                                    const char *v)
{
    static const wh_duration_rule r = { WH_US_S, WH_US_S, WH_REPLAY_LEASE_MIN,
                                        WH_REPLAY_LEASE_MAX };
    return wh_parse_duration(p, v, &r, &cfg->replay_lease);
}

static const char *set_cgi_log_level(apr_pool_t *p, wh_config *cfg,
                                     const char *v)
{
    return wh_parse_log_level(p, v, &cfg->cgi_log_level);
}

static const char *set_forward_url(apr_pool_t *p, wh_config *cfg,
                                   const char *v)
{
    return wh_parse_forward_url(p, v, &cfg->forward_url);
}

static const char *set_forward_secret_file(apr_pool_t *p, wh_config *cfg,
                                           const char *v)
{
    return parse_resolved_path(p, cfg, v, &cfg->forward_secret_file);
}

static const char *set_forward_max_attempts(apr_pool_t *p, wh_config *cfg,
                                            const char *v)
{
    return wh_parse_int(p, v, 1, 10000, &cfg->forward_max_attempts);
}

static const char *set_forward_max_age(apr_pool_t *p, wh_config *cfg,
                                       const char *v)
{
    return wh_parse_duration_ms(p, v, 1000, 30 * WH_MS_DAY,
                                &cfg->forward_max_age);
}

static const char *set_forward_timeout(apr_pool_t *p, wh_config *cfg,
                                       const char *v)
{
    return wh_parse_duration_ms(p, v, 100, 600000, &cfg->forward_timeout);
}

static const char *set_forward_concurrency(apr_pool_t *p, wh_config *cfg,
                                           const char *v)
{
    return wh_parse_int(p, v, 1, 1000, &cfg->forward_concurrency);
}

static const char *set_forward_ca_file(apr_pool_t *p, wh_config *cfg,
                                       const char *v)
{
    return parse_resolved_path(p, cfg, v, &cfg->forward_ca_file);
}

/* Min <= max is checked in wh_config_finalize(): either may come first. */
static const char *set_forward_backoff_min(apr_pool_t *p, wh_config *cfg,
                                           const char *v)
{
    return wh_parse_duration_ms(p, v, 10, 3600000, &cfg->forward_backoff_min);
}

static const char *set_forward_backoff_max(apr_pool_t *p, wh_config *cfg,
                                           const char *v)
{
    return wh_parse_duration_ms(p, v, 10, WH_MS_DAY, &cfg->forward_backoff_max);
}

static const char *set_console_actions(apr_pool_t *p, wh_config *cfg,
                                       const char *v)
{
    return wh_parse_on_off(p, v, &cfg->console_actions);
}

static const char *set_console_readers(apr_pool_t *p, wh_config *cfg,
                                       const char *v)
{
    return parse_resolved_path(p, cfg, v, &cfg->console_readers_file);
}

static const char *set_console_operators(apr_pool_t *p, wh_config *cfg,
                                         const char *v)
{
    return parse_resolved_path(p, cfg, v, &cfg->console_operators_file);
}

/* ---- the key table ------------------------------------------------- */

/* One list feeds both the table and wh_config_keys(), so they cannot
 * drift apart. */
#define WH_KEY_LIST(X)                                                       \
    X("SigningSecretFile", set_signing_secret_file,                          \
      "PATH: HMAC secrets, one per line (required)")                         \
    X("BasicAuthFile", set_basic_auth_file,                                  \
      "PATH: htpasswd file for Basic auth (required)")                       \
    X("TimestampHeader", set_timestamp_header,                               \
      "NAME: header with the timestamp (X-Timestamp)")                       \
    X("SignatureHeader", set_signature_header,                               \
      "NAME: header with the hex signature (X-Signature)")                   \
    X("TimestampUnit", set_timestamp_unit,                                   \
      "auto|seconds|milliseconds (auto)")                                    \
    X("TimestampTolerance", set_timestamp_tolerance,                         \
      "DURATION: accepted clock skew each way, 1s..1d (5m)")                 \
    X("SignedUrl", set_signed_url,                                           \
      "URL: exact URL (absolute, or a /path) the sender signs")              \
    X("SignedUrlForm", set_signed_url_form,                                  \
      "absolute|path: URL form signed when SignedUrl is unset (absolute)")   \
    X("MaxBodySize", set_max_body_size,                                      \
      "BYTES: largest accepted body, 1..67108864 (65536)")                   \
    X("UnknownStatus", set_unknown_status,                                   \
      "accept|reject: statuses outside the spec's list (accept)")            \
    X("AuthRealm", set_auth_realm,                                           \
      "TEXT: Basic auth realm, printable ASCII (wirehook)")                  \
    X("AuthCacheTTL", set_auth_cache_ttl,                                    \
      "DURATION: cache of good bcrypt checks, 0s..1h, 0 off (60s)")          \
    X("InboxDriver", set_inbox_driver,                                       \
      "sqlite3|pgsql: apr_dbd driver of the inbox (sqlite3)")                \
    X("InboxParams", set_inbox_params,                                       \
      "TEXT: sqlite3 file or pgsql conninfo (unset: no inbox)")              \
    X("InboxGroup", set_inbox_group,                                         \
      "NAME: sqlite3 inbox files 0640 in this group (unset: 0600)")          \
    X("InboxBatchMax", set_inbox_batch_max,                                  \
      "N: most stores sharing one commit in a module child, 1..1000 (64)")   \
    X("InboxBatchWait", set_inbox_batch_wait,                                \
      "DURATION: wait for more stores before a commit, 0..100ms (0)")        \
    X("ListDefaultLimit", set_list_default_limit,                            \
      "N: list page size when none is asked, 1..10000 (25)")                 \
    X("ListMaxLimit", set_list_max_limit,                                    \
      "N: largest list page size, 1..10000 (100)")                           \
    X("ReplayCache", set_replay_cache,                                       \
      "SPEC: provider[:args] of the replay store (lmdb)")                   \
    X("ReplayWindow", set_replay_window,                                     \
      "DURATION: notificationIds kept this long, >= 2*TimestampTolerance")   \
    X("ReplayLease", set_replay_lease,                                       \
      "DURATION: a claim outlives its server this long, 10s..1h (2m)")       \
    X("CGILogLevel", set_cgi_log_level,                                      \
      "error|warn|info|debug: what wirehook.cgi logs (warn)")                \
    X("ForwardUrl", set_forward_url,                                         \
      "URL: where wirehook forward POSTs stored events (unset)")             \
    X("ForwardSecretFile", set_forward_secret_file,                          \
      "PATH: secret that signs forwarded events (with ForwardUrl)")          \
    X("ForwardMaxAttempts", set_forward_max_attempts,                        \
      "N: attempts before an event is dead, 1..10000 (100)")                 \
    X("ForwardMaxAge", set_forward_max_age,                                  \
      "DURATION: retrying stops this long after the first attempt (1d)")     \
    X("ForwardTimeout", set_forward_timeout,                                 \
      "DURATION: one attempt to forward, 100ms..10m (30s)")                  \
    X("ForwardConcurrency", set_forward_concurrency,                         \
      "N: attempts in flight at once, 1..1000 (32)")                         \
    X("ForwardCAFile", set_forward_ca_file,                                  \
      "PATH: CA bundle for an https ForwardUrl (system CAs)")                \
    X("ForwardBackoffMin", set_forward_backoff_min,                          \
      "DURATION: delay before the first retry, 10ms..1h (1s)")               \
    X("ForwardBackoffMax", set_forward_backoff_max,                          \
      "DURATION: longest delay between retries, 10ms..1d (15m)")             \
    X("ConsoleActions", set_console_actions,                                 \
      "on|off: operators may retry and release in the console (on)")        \
    X("ConsoleReaders", set_console_readers,                                 \
      "PATH: htpasswd file of the CGI console's readers (unset)")            \
    X("ConsoleOperators", set_console_operators,                             \
      "PATH: htpasswd file of the CGI console's operators (unset)")

#define WH_KEY_ROW(name, fn, doc) {name, fn, doc},
#define WH_KEY_NAME(name, fn, doc) name,

static const wh_key_def key_table[] = {WH_KEY_LIST(WH_KEY_ROW)};
static const char *const key_names[] = {WH_KEY_LIST(WH_KEY_NAME) NULL};

#define WH_KEY_COUNT (sizeof key_table / sizeof key_table[0])

const char *const *wh_config_keys(void)
{
    return key_names;
}

static const wh_key_def *find_key(const char *name)
{
    apr_size_t i;

    for (i = 0; i < WH_KEY_COUNT; i++)
        if (!strcasecmp(key_table[i].name, name))
            return &key_table[i];
    return NULL;
}

/* Case-insensitive Levenshtein distance; both strings are at most
 * WH_KEY_NAME_MAX bytes (checked by the caller). */
static apr_size_t edit_distance(const char *a, const char *b)
{
    apr_size_t row[WH_KEY_NAME_MAX + 1];
    apr_size_t la = strlen(a), lb = strlen(b), i, j;

    for (j = 0; j <= lb; j++)
        row[j] = j;
    for (i = 1; i <= la; i++) {
        apr_size_t diag = row[0];
        row[0] = i;
        for (j = 1; j <= lb; j++) {
            apr_size_t up = row[j];
            apr_size_t cost = apr_tolower(a[i - 1]) != apr_tolower(b[j - 1]);
            apr_size_t best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* Key names are words of letters, and short. Anything else (digits,
 * punctuation, length) may be a secret or a password pasted into the wrong
 * file and is never echoed (see top of file) — unless it is a near miss of
 * a real key name, which a random secret is not. */
#define WH_KEY_ECHO_MAX 40

static int looks_like_key(const char *name)
{
    apr_size_t n = strlen(name);

    if (n == 0 || n > WH_KEY_ECHO_MAX)
        return 0;
    for (const char *c = name; *c; c++)
        if (!apr_isalpha(*c))
            return 0;
    return 1;
}

/* Names the unknown key when it is shaped like one, and points at the
 * closest canonical key when there is a plausible one. */
static const char *unknown_key_error(apr_pool_t *p, const char *name)
{
    apr_size_t i, best = WH_SUGGEST_DISTANCE + 1;
    const char *match = NULL;
    const char *what;

    if (strlen(name) <= WH_KEY_NAME_MAX) {
        for (i = 0; i < WH_KEY_COUNT; i++) {
            apr_size_t d = edit_distance(name, key_table[i].name);
            if (d < best) {
                best = d;
                match = key_table[i].name;
            }
        }
    }
    what = match || looks_like_key(name)
           ? apr_psprintf(p, "unknown key '%s'", name)
           : "unknown key (not shown: it does not look like a key name)";
    if (match)
        return apr_psprintf(p, "%s (did you mean %s?)", what, match);
    return what;
}

/* ---- setting one key ----------------------------------------------- */

static const char *lower_name(apr_pool_t *p, const char *name)
{
    char *lc = apr_pstrdup(p, name);
    char *s;

    for (s = lc; *s; s++)
        *s = (char)apr_tolower(*s);
    return lc;
}

static const char *duplicate_error(apr_pool_t *p, const wh_key_def *def,
                                   const char *first)
{
    if (!strcmp(first, WH_SEEN_API))
        return apr_psprintf(p, "duplicate key %s (already set)", def->name);
    return apr_psprintf(p, "duplicate key %s (first set on line %s)",
                        def->name, first);
}

/* Any occurrence of a known key marks it seen, even with a bad value: a
 * second line for it is still a duplicate, and finalize does not report
 * it as missing. Returns the duplicate error or NULL. */
static const char *mark_set(apr_pool_t *p, wh_config *cfg,
                            const wh_key_def *def, int override,
                            const char *where)
{
    const char *lc = lower_name(p, def->name);
    const char *first = apr_hash_get(cfg->seen, lc, APR_HASH_KEY_STRING);

    if (first && !override)
        return duplicate_error(p, def, first);
    apr_hash_set(cfg->seen, lc, APR_HASH_KEY_STRING, apr_pstrdup(p, where));
    return NULL;
}

static const char *assign(apr_pool_t *p, wh_config *cfg, const wh_key_def *def,
                          const char *value)
{
    const char *err;

    if (!value || !*value)
        return apr_psprintf(p, "%s: missing value", def->name);
    if (strlen(value) > WH_CONFIG_LINE_MAX)
        return apr_psprintf(p, "%s: value longer than %d bytes", def->name,
                            WH_CONFIG_LINE_MAX);
    err = def->set(p, cfg, value);
    return err ? apr_psprintf(p, "%s: %s", def->name, err) : NULL;
}

wh_config *wh_config_create(apr_pool_t *p)
{
    wh_config *cfg = apr_pcalloc(p, sizeof *cfg);

    cfg->timestamp_header = "X-Timestamp";
    cfg->signature_header = "X-Signature";
    cfg->timestamp_unit = WH_TS_AUTO;
    cfg->signed_url_form = WH_URL_ABSOLUTE;
    cfg->timestamp_tolerance = WH_DEF_TOLERANCE;
    cfg->max_body_size = WH_DEF_MAX_BODY;
    cfg->unknown_status_reject = 0;
    cfg->auth_realm = "wirehook";
    cfg->auth_cache_ttl = WH_DEF_AUTH_TTL;
    cfg->inbox_driver = WH_INBOX_SQLITE3;
    cfg->inbox_driver_name = "sqlite3";
    cfg->inbox_batch_max = WH_DEF_BATCH_MAX;
    cfg->list_default_limit = WH_DEF_LIST_LIMIT;
    cfg->list_max_limit = WH_DEF_LIST_MAX;
    cfg->replay_cache = "lmdb";
    cfg->replay_cache_provider = "lmdb";
    cfg->replay_cache_args = NULL;
    cfg->replay_window = WH_REPLAY_FACTOR * WH_DEF_TOLERANCE;
    cfg->replay_lease = WH_DEF_REPLAY_LEASE;
    cfg->cgi_log_level = WH_LOG_WARN;
    cfg->forward_max_attempts = WH_DEF_FWD_ATTEMPTS;
    cfg->forward_max_age = WH_DEF_FWD_MAX_AGE;
    cfg->forward_timeout = WH_DEF_FWD_TIMEOUT;
    cfg->forward_concurrency = WH_DEF_FWD_CONCURRENCY;
    cfg->forward_backoff_min = WH_DEF_FWD_BACKOFF_MIN;
    cfg->forward_backoff_max = WH_DEF_FWD_BACKOFF_MAX;
    cfg->console_actions = 1;
    cfg->seen = apr_hash_make(p);
    return cfg;
}

/* The value is taken literally (no quotes, no trimming): it comes from an
 * environment variable, not from a config line. */
const char *wh_config_set(apr_pool_t *p, wh_config *cfg, const char *key,
                          const char *value, int override)
{
    const wh_key_def *def;
    const char *err;

    if (!cfg || !key || !*key)
        return "no key given";
    def = find_key(key);
    if (!def)
        return unknown_key_error(p, key);
    err = mark_set(p, cfg, def, override, WH_SEEN_API);
    return err ? err : assign(p, cfg, def, value);
}

/* ---- reading a file ------------------------------------------------ */

typedef struct {
    apr_pool_t *p;
    wh_config *cfg;
    apr_array_header_t *errors; /* of const char *, "path:line: msg" */
} parse_ctx;

static void line_error(parse_ctx *ctx, unsigned lineno, const char *msg)
{
    APR_ARRAY_PUSH(ctx->errors, const char *) =
        apr_psprintf(ctx->p, "%s:%u: %s", ctx->cfg->source, lineno, msg);
}

static const char *join_errors(apr_pool_t *p, const apr_array_header_t *errs)
{
    return errs->nelts ? apr_array_pstrcat(p, errs, '\n') : NULL;
}

/* A quoted value: one complete "..." string, escapes \" and \\ only, so
 * that values with leading/trailing spaces can be written and nothing
 * after the closing quote is silently dropped. */
static const char *unquote(apr_pool_t *p, const char *v, const char **out)
{
    char *buf = apr_palloc(p, strlen(v) + 1);
    char *o = buf;
    const char *s;

    for (s = v + 1; *s && *s != '"'; s++) {
        if (*s == '\\') {
            s++;
            if (!*s)
                break;
            if (*s != '"' && *s != '\\')
                return "invalid escape in quoted value (only \\\" and \\\\)";
        }
        *o++ = *s;
    }
    if (*s != '"')
        return "unterminated quoted value";
    if (s[1])
        return "unexpected text after closing quote";
    *o = '\0';
    *out = buf;
    return NULL;
}

/* Splits a line in place into key and trimmed raw value. *key is NULL for
 * blank and comment lines. */
static void split_line(char *line, char **key, char **value)
{
    char *s = line;
    char *end;

    while (apr_isspace(*s))
        s++;
    if (!*s || *s == '#') {
        *key = NULL;
        return;
    }
    *key = s;
    while (*s && !apr_isspace(*s))
        s++;
    if (*s)
        *s++ = '\0';
    while (apr_isspace(*s))
        s++;
    end = s + strlen(s);
    while (end > s && apr_isspace(end[-1]))
        *--end = '\0';
    *value = s;
}

static const char *set_from_line(parse_ctx *ctx, unsigned lineno,
                                 const char *key, const char *raw)
{
    const wh_key_def *def = find_key(key);
    const char *value = raw;
    const char *err;

    if (!def)
        return unknown_key_error(ctx->p, key);
    err = mark_set(ctx->p, ctx->cfg, def, 0,
                   apr_psprintf(ctx->p, "%u", lineno));
    if (err)
        return err;
    if (*raw == '"' && (err = unquote(ctx->p, raw, &value)) != NULL)
        return apr_psprintf(ctx->p, "%s: %s", def->name, err);
    return assign(ctx->p, ctx->cfg, def, value);
}

static void parse_line(void *vctx, unsigned lineno, char *line,
                       apr_size_t len)
{
    parse_ctx *ctx = vctx;
    char *key;
    char *value;
    const char *err;

    /* The limit is on content: a CRLF file gets the same limit as LF. */
    if (len && line[len - 1] == '\r')
        line[--len] = '\0';
    if (len > WH_CONFIG_LINE_MAX) {
        line_error(ctx, lineno, apr_psprintf(ctx->p, "line longer than %d "
                                             "bytes", WH_CONFIG_LINE_MAX));
        return;
    }
    if (memchr(line, '\0', len)) {
        line_error(ctx, lineno, "NUL byte in line");
        return;
    }
    split_line(line, &key, &value);
    if (key && (err = set_from_line(ctx, lineno, key, value)) != NULL)
        line_error(ctx, lineno, err);
}

const char *wh_config_parse_file(apr_pool_t *p, const char *path,
                                 wh_config **out)
{
    parse_ctx ctx;
    const char *err;

    ctx.p = p;
    ctx.cfg = wh_config_create(p);
    ctx.errors = apr_array_make(p, 4, sizeof(const char *));
    *out = ctx.cfg;
    if (!path || !*path)
        return "no configuration file given";
    ctx.cfg->source = apr_pstrdup(p, path);
    err = wh_parse_lines(p, path, WH_CONFIG_FILE_MAX, parse_line, &ctx);
    if (err)
        APR_ARRAY_PUSH(ctx.errors, const char *) = err;
    return join_errors(p, ctx.errors);
}

/* ---- finalize ------------------------------------------------------ */

/* "path:line: " for a key set on a file line, "path: " otherwise. */
static const char *where(apr_pool_t *p, const wh_config *cfg, const char *lc)
{
    const char *line = apr_hash_get(cfg->seen, lc, APR_HASH_KEY_STRING);

    if (!cfg->source)
        return "";
    if (line && strcmp(line, WH_SEEN_API) != 0)
        return apr_psprintf(p, "%s:%s: ", cfg->source, line);
    return apr_psprintf(p, "%s: ", cfg->source);
}

const char *wh_config_where(apr_pool_t *p, const wh_config *cfg,
                            const char *key)
{
    return cfg && key ? where(p, cfg, lower_name(p, key)) : "";
}

static void push(apr_array_header_t *errs, const char *msg)
{
    APR_ARRAY_PUSH(errs, const char *) = msg;
}

static int was_set(const wh_config *cfg, const char *lc)
{
    return apr_hash_get(cfg->seen, lc, APR_HASH_KEY_STRING) != NULL;
}

/* A key that was present with a bad value already has its parse error;
 * it is still reported here, briefly, because a caller that ignored the
 * parse errors must not get a config without secrets or users. */
static void check_required(apr_pool_t *p, const wh_config *cfg,
                           const char *value, const char *name,
                           apr_array_header_t *errs)
{
    const char *lc = lower_name(p, name);

    if (value)
        return;
    if (was_set(cfg, lc))
        push(errs, apr_psprintf(p, "%s%s has no valid value", where(p, cfg, lc),
                                name));
    else
        push(errs, apr_psprintf(p, "%smissing required key %s",
                                where(p, cfg, lc), name));
}

static void check_list_limits(apr_pool_t *p, const wh_config *cfg,
                              apr_array_header_t *errs)
{
    const char *lc = was_set(cfg, "listdefaultlimit") ? "listdefaultlimit"
                                                      : "listmaxlimit";

    if (cfg->list_default_limit > cfg->list_max_limit)
        push(errs, apr_psprintf(p, "%sListDefaultLimit (%d) must not exceed "
                                "ListMaxLimit (%d)", where(p, cfg, lc),
                                cfg->list_default_limit, cfg->list_max_limit));
}

static void check_replay_window(apr_pool_t *p, wh_config *cfg,
                                apr_array_header_t *errs)
{
    apr_int64_t minimum = WH_REPLAY_FACTOR * cfg->timestamp_tolerance;

    if (!was_set(cfg, "replaywindow")) {
        cfg->replay_window = minimum;
        return;
    }
    if (cfg->replay_window < minimum)
        push(errs, apr_psprintf(p, "%sReplayWindow (%" APR_INT64_T_FMT ") must "
                                "be at least 2 * TimestampTolerance (%"
                                APR_INT64_T_FMT ")",
                                where(p, cfg, "replaywindow"),
                                cfg->replay_window, minimum));
}

/* ReplayCache pgsql without a conninfo keeps its ids in the inbox's own
 * PostgreSQL database: there must be one. */
static void check_replay_pgsql(apr_pool_t *p, const wh_config *cfg,
                               apr_array_header_t *errs)
{
    if (!cfg->replay_cache_provider
        || strcmp(cfg->replay_cache_provider, "pgsql") != 0
        || cfg->replay_cache_args
        || (cfg->inbox_driver == WH_INBOX_PGSQL && cfg->inbox_params))
        return;
    push(errs, apr_psprintf(p, "%sReplayCache pgsql without a conninfo uses "
                            "the inbox's database: it needs InboxDriver pgsql "
                            "and InboxParams (or name one: pgsql:CONNINFO)",
                            where(p, cfg, "replaycache")));
}

/* A URL without a secret could not be signed, and a secret without a URL
 * says forwarding was meant but is not configured: both or neither. */
static void check_forward(apr_pool_t *p, const wh_config *cfg,
                          apr_array_header_t *errs)
{
    int url = was_set(cfg, "forwardurl"), secret = was_set(cfg, "forwardsecretfile");

    if (url && !secret)
        push(errs, apr_psprintf(p, "%sForwardUrl needs ForwardSecretFile (the "
                                "secret that signs forwarded events)",
                                where(p, cfg, "forwardurl")));
    else if (secret && !url)
        push(errs, apr_psprintf(p, "%sForwardSecretFile is set without "
                                "ForwardUrl", where(p, cfg, "forwardsecretfile")));
    if (cfg->forward_backoff_min > cfg->forward_backoff_max)
        push(errs, apr_psprintf(p, "%sForwardBackoffMin must not exceed "
                                "ForwardBackoffMax",
                                where(p, cfg, was_set(cfg, "forwardbackoffmin")
                                              ? "forwardbackoffmin"
                                              : "forwardbackoffmax")));
}

/* sqlite3's ":memory:" is a name, not a file, and stays as written. */
static void resolve_inbox(apr_pool_t *p, wh_config *cfg,
                          apr_array_header_t *errs)
{
    const char *err;

    if (!cfg->inbox_params || cfg->inbox_driver != WH_INBOX_SQLITE3
        || !strcmp(cfg->inbox_params, ":memory:"))
        return;
    err = resolve_path(p, cfg, cfg->inbox_params, &cfg->inbox_params);
    if (err)
        push(errs, apr_psprintf(p, "%sInboxParams: %s",
                                where(p, cfg, "inboxparams"), err));
}

/* The loaders name their file, and the line for a bad one; the key and
 * the configuration line that named the file come first, so that
 * "cannot open" says which setting to fix. On failure the field is
 * cleared so a config that failed to finalize cannot verify anything. */
static void load_files(apr_pool_t *p, wh_config *cfg, unsigned parts,
                       apr_array_header_t *errs)
{
    const char *err;

    if ((parts & WH_PART_SECRETS) && cfg->signing_secret_file) {
        err = wh_secrets_load_ex(p, cfg->signing_secret_file, &cfg->secrets,
                                 &cfg->secrets_id);
        if (err) {
            cfg->secrets = NULL;
            push(errs, apr_psprintf(p, "%sSigningSecretFile: %s",
                                    where(p, cfg, "signingsecretfile"), err));
        }
    }
    if ((parts & WH_PART_USERS) && cfg->basic_auth_file) {
        err = wh_htpasswd_load_ex(p, cfg->basic_auth_file, &cfg->users,
                                  &cfg->users_id);
        if (err) {
            cfg->users = NULL;
            push(errs, apr_psprintf(p, "%sBasicAuthFile: %s",
                                    where(p, cfg, "basicauthfile"), err));
        }
    }
    /* the console's logins are users too: the forwarder never reads them */
    if ((parts & WH_PART_USERS) && cfg->console_readers_file) {
        err = wh_htpasswd_load(p, cfg->console_readers_file, &cfg->console_readers);
        if (err) {
            cfg->console_readers = NULL;
            push(errs, apr_psprintf(p, "%sConsoleReaders: %s",
                                    where(p, cfg, "consolereaders"), err));
        }
    }
    if ((parts & WH_PART_USERS) && cfg->console_operators_file) {
        err = wh_htpasswd_load(p, cfg->console_operators_file, &cfg->console_operators);
        if (err) {
            cfg->console_operators = NULL;
            push(errs, apr_psprintf(p, "%sConsoleOperators: %s",
                                    where(p, cfg, "consoleoperators"), err));
        }
    }
}

const char *wh_config_finalize_parts(apr_pool_t *p, wh_config *cfg,
                                     unsigned parts)
{
    apr_array_header_t *errs;

    if (!cfg)
        return "no configuration";
    errs = apr_array_make(p, 4, sizeof(const char *));
    if (parts & WH_PART_SECRETS)
        check_required(p, cfg, cfg->signing_secret_file, "SigningSecretFile",
                       errs);
    if (parts & WH_PART_USERS)
        check_required(p, cfg, cfg->basic_auth_file, "BasicAuthFile", errs);
    if (parts & WH_PART_INBOX)
        check_required(p, cfg, cfg->inbox_params, "InboxParams", errs);
    if (parts & WH_PART_FORWARD)
        check_required(p, cfg, cfg->forward_url, "ForwardUrl", errs);
    check_list_limits(p, cfg, errs);
    check_replay_window(p, cfg, errs);
    check_forward(p, cfg, errs);
    check_replay_pgsql(p, cfg, errs);
    resolve_inbox(p, cfg, errs);
    load_files(p, cfg, parts, errs);
    return join_errors(p, errs);
}

const char *wh_config_finalize(apr_pool_t *p, wh_config *cfg)
{
    return wh_config_finalize_parts(p, cfg, WH_PART_VERIFY);
}

/* Finalize runs even after parse errors so that one run reports
 * everything, e.g. a misspelt key and the required key it then lacks. */
const char *wh_config_load_parts(apr_pool_t *p, const char *path,
                                 unsigned parts, wh_config **out)
{
    const char *perr = wh_config_parse_file(p, path, out);
    const char *ferr;

    if (!path || !*path)
        return perr;
    ferr = wh_config_finalize_parts(p, *out, parts);
    if (perr && ferr)
        return apr_pstrcat(p, perr, "\n", ferr, NULL);
    return perr ? perr : ferr;
}

const char *wh_config_load(apr_pool_t *p, const char *path, wh_config **out)
{
    return wh_config_load_parts(p, path, WH_PART_VERIFY, out);
}

/* ---- permission hygiene -------------------------------------------- */

static const char *permission_warning(apr_pool_t *p, const char *label,
                                      const char *path)
{
    apr_finfo_t fi;
    apr_status_t rv;
    int r, w;

    if (!path)
        return NULL;
    rv = apr_stat(&fi, path, APR_FINFO_PROT, p);
    /* A missing file is finalize's error to report, not a warning. */
    if ((rv != APR_SUCCESS && rv != APR_INCOMPLETE)
        || !(fi.valid & APR_FINFO_PROT))
        return NULL;
    r = (fi.protection & APR_WREAD) != 0;
    w = (fi.protection & APR_WWRITE) != 0;
    if (!r && !w)
        return NULL;
    return apr_psprintf(p, "%s %s is %s by others (chmod o-rw)", label, path,
                        r && w ? "readable and writable"
                        : r    ? "readable"
                               : "writable");
}

const char *wh_config_permission_warnings(apr_pool_t *p, const wh_config *cfg)
{
    const char *w[4], *all = NULL;

    if (!cfg)
        return NULL;
    w[0] = permission_warning(p, "SigningSecretFile", cfg->signing_secret_file);
    w[1] = permission_warning(p, "BasicAuthFile", cfg->basic_auth_file);
    w[2] = permission_warning(p, "ConsoleReaders", cfg->console_readers_file);
    w[3] = permission_warning(p, "ConsoleOperators", cfg->console_operators_file);
    for (int i = 0; i < 4; i++)
        if (w[i])
            all = all ? apr_pstrcat(p, all, "\n", w[i], NULL) : w[i];
    return all;
}
