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
 * file. Line numbers identify the culprit.
 *
 * Which keys exist is not this file's: a configuration carries the tables
 * of rows it was made with (wh_key.h), and a key's row says how its value
 * is parsed and where it goes. */
#include "wh_config.h"
#include "wh_config_lint.h"
#include "wh_auth.h"
#include "wh_key.h"
#include "wh_parse.h"
#include "wh_mysql_params.h"
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

/* A copy of a request is refused as a duplicate only while its
 * notificationId is remembered, and a timestamp is accepted tolerance
 * seconds either side of now, so the window must span both directions:
 * ReplayWindow's default and least value. */
#define WH_REPLAY_FACTOR 2

/* ---- the keys ------------------------------------------------------ */

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
static const char *unknown_key_error(apr_pool_t *p, const wh_config *cfg,
                                     const char *name)
{
    apr_size_t best = WH_SUGGEST_DISTANCE + 1;
    const char *match = NULL;
    const char *what;

    for (const wh_key *const *t = cfg->keys;
         t && *t && strlen(name) <= WH_KEY_NAME_MAX; t++)
        for (const wh_key *k = *t; k->name; k++) {
            apr_size_t d = edit_distance(name, k->name);
            if (d < best) {
                best = d;
                match = k->name;
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

static const char *duplicate_error(apr_pool_t *p, const wh_key *def,
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
                            const wh_key *def, int override,
                            const char *where)
{
    const char *lc = lower_name(p, def->name);
    const char *first = apr_hash_get(cfg->seen, lc, APR_HASH_KEY_STRING);

    if (first && !override)
        return duplicate_error(p, def, first);
    apr_hash_set(cfg->seen, lc, APR_HASH_KEY_STRING, apr_pstrdup(p, where));
    return NULL;
}

static const char *assign(apr_pool_t *p, wh_config *cfg, const wh_key *def,
                          const char *value)
{
    const char *err;

    if (!value || !*value)
        return apr_psprintf(p, "%s: missing value", def->name);
    if (strlen(value) > WH_CONFIG_LINE_MAX)
        return apr_psprintf(p, "%s: value longer than %d bytes", def->name,
                            WH_CONFIG_LINE_MAX);
    err = wh_key_set(p, cfg, def, value);
    return err ? apr_psprintf(p, "%s: %s", def->name, err) : NULL;
}

/* A default the row's own setter refuses is a defect that the unit tests
 * catch (every default is applied there); here the field keeps zero. */
wh_config *wh_config_make(apr_pool_t *p, const wh_key *const *tables)
{
    wh_config *cfg = apr_pcalloc(p, sizeof *cfg);

    cfg->keys = tables;
    cfg->seen = apr_hash_make(p);
    for (const wh_key *const *t = tables; t && *t; t++)
        for (const wh_key *k = *t; k->name; k++)
            if (k->dflt)
                (void)wh_key_set(p, cfg, k, k->dflt);
    cfg->replay_window = WH_REPLAY_FACTOR * cfg->timestamp_tolerance;
    return cfg;
}

/* The value is taken literally (no quotes, no trimming): it comes from an
 * environment variable, not from a config line. */
const char *wh_config_set(apr_pool_t *p, wh_config *cfg, const char *key,
                          const char *value, int override)
{
    const wh_key *def;
    const char *err;

    if (!cfg || !key || !*key)
        return "no key given";
    def = wh_key_find(cfg->keys, key);
    if (!def)
        return unknown_key_error(p, cfg, key);
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
    const wh_key *def = wh_key_find(ctx->cfg->keys, key);
    const char *value = raw;
    const char *err;

    if (!def)
        return unknown_key_error(ctx->p, ctx->cfg, key);
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

const char *wh_config_read(apr_pool_t *p, wh_config *cfg, const char *path)
{
    parse_ctx ctx;
    const char *err;

    ctx.p = p;
    ctx.cfg = cfg;
    ctx.errors = apr_array_make(p, 4, sizeof(const char *));
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

/* 0 keeps for ever, so it is longer than any other value. */
static int shorter(apr_int64_t a, apr_int64_t b)
{
    return a != 0 && (b == 0 || a < b);
}

/* A retention that decides whether the inbox still knows a
 * notificationId, against the promise replay protection makes
 * (ReplayWindow), with TimestampTolerance more for the clocks of the
 * servers that stored it and of the one that purges. */
static void check_floor(apr_pool_t *p, const wh_config *cfg, const char *key,
                        const char *zero, apr_int64_t value, apr_array_header_t *errs)
{
    apr_int64_t floor = cfg->replay_window + cfg->timestamp_tolerance;

    if (value && value < floor)
        push(errs, apr_psprintf(p, "%s%s (%s) must be 0 (%s) or at least "
                                "ReplayWindow + TimestampTolerance (%s): a "
                                "notificationId forgotten sooner could be "
                                "stored and forwarded twice",
                                where(p, cfg, lower_name(p, key)), key,
                                wh_format_duration_us(p, value * WH_US_S), zero,
                                wh_format_duration_us(p, floor * WH_US_S)));
}

/* Retention (docs/inbox.md, "Retention"; docs/spec-decisions.md): the
 * inbox tells a duplicate by the notificationIds it holds, an event's or
 * the tombstone a purged event leaves, so neither may go before the
 * replay promise ends. A dead letter is an event: it stays at least as
 * long; a tombstone shorter-lived than the events would never be kept. */
static void check_retention(apr_pool_t *p, wh_config *cfg,
                            apr_array_header_t *errs)
{

    if (!was_set(cfg, "inboxquarantineretention"))
        cfg->inbox_quarantine_retention = cfg->inbox_retention;
    if (!was_set(cfg, "inboxdeadletterretention"))
        cfg->inbox_dead_retention = cfg->inbox_retention;
    check_floor(p, cfg, "InboxRetention", "keep every event", cfg->inbox_retention, errs);
    check_floor(p, cfg, "InboxTombstoneRetention", "keep every id",
                cfg->inbox_tombstone_retention, errs);
    if (shorter(cfg->inbox_dead_retention, cfg->inbox_retention))
        push(errs, apr_psprintf(p, "%sInboxDeadLetterRetention must not be "
                                "shorter than InboxRetention (0: for ever): a "
                                "dead letter is an event, kept at least as long",
                                where(p, cfg, "inboxdeadletterretention")));
    if (shorter(cfg->inbox_tombstone_retention, cfg->inbox_retention))
        push(errs, apr_psprintf(p, "%sInboxTombstoneRetention must not be "
                                "shorter than InboxRetention (0: for ever): "
                                "a tombstone is left when its event is purged",
                                where(p, cfg, "inboxtombstoneretention")));
}

/* ReplayCache pgsql or mysql without arguments keeps its ids in the
 * inbox's own database: there must be one, of that engine (the provider
 * is apr_dbd's driver name, as InboxDriver is). */
static void check_replay_db(apr_pool_t *p, const wh_config *cfg,
                            apr_array_header_t *errs)
{
    const char *prov = cfg->replay_cache_provider;
    int pg = prov && strcmp(prov, "pgsql") == 0;

    if (!prov || (!pg && strcmp(prov, "mysql") != 0) || cfg->replay_cache_args
        || (cfg->inbox_driver_name && strcmp(cfg->inbox_driver_name, prov) == 0
            && cfg->inbox_params))
        return;
    push(errs, apr_psprintf(p, "%sReplayCache %s without %s uses the inbox's "
                            "database: it needs InboxDriver %s and InboxParams "
                            "(or name one: %s)", where(p, cfg, "replaycache"),
                            prov, pg ? "a conninfo" : "parameters", prov,
                            pg ? "pgsql:CONNINFO" : "mysql:PARAMS"));
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

/* InboxDriver mysql: apr_dbd's parameters, checked now (the driver
 * would ignore a misspelt key and fail at the first connection). */
static void check_inbox_mysql(apr_pool_t *p, const wh_config *cfg,
                              apr_array_header_t *errs)
{
    wh_mysql_params mp;
    const char *err;

    if (cfg->inbox_driver != WH_INBOX_MYSQL || !cfg->inbox_params)
        return;
    if ((err = wh_parse_mysql_params(p, cfg->inbox_params, &mp)) != NULL)
        push(errs, apr_psprintf(p, "%sInboxParams: %s", where(p, cfg, "inboxparams"), err));
}

/* sqlite3's ":memory:" is a name, not a file, and stays as written. */
static void resolve_inbox(apr_pool_t *p, wh_config *cfg,
                          apr_array_header_t *errs)
{
    const char *err;

    if (!cfg->inbox_params || cfg->inbox_driver != WH_INBOX_SQLITE3
        || !strcmp(cfg->inbox_params, ":memory:"))
        return;
    err = wh_key_resolve_path(p, cfg, cfg->inbox_params, &cfg->inbox_params);
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

static void check_files_apart(apr_pool_t *p, const wh_config *cfg,
                              unsigned parts, apr_array_header_t *errs)
{
    const char *err;

    if ((parts & WH_PART_VERIFY) == WH_PART_VERIFY
        && (err = wh_lint_secret_is_htpasswd(p, cfg->signing_secret_file,
                                             cfg->basic_auth_file)) != NULL)
        push(errs, apr_psprintf(p, "%sSigningSecretFile: %s",
                                where(p, cfg, "signingsecretfile"), err));
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
    check_retention(p, cfg, errs);
    check_forward(p, cfg, errs);
    check_replay_db(p, cfg, errs);
    resolve_inbox(p, cfg, errs);
    check_inbox_mysql(p, cfg, errs);
    load_files(p, cfg, parts, errs);
    check_files_apart(p, cfg, parts, errs);
    return join_errors(p, errs);
}

const char *wh_config_finalize(apr_pool_t *p, wh_config *cfg)
{
    return wh_config_finalize_parts(p, cfg, WH_PART_VERIFY);
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
    const char *w[5], *all = NULL;

    if (!cfg)
        return NULL;
    w[0] = permission_warning(p, "SigningSecretFile", cfg->signing_secret_file);
    w[1] = permission_warning(p, "BasicAuthFile", cfg->basic_auth_file);
    w[2] = permission_warning(p, "ConsoleReaders", cfg->console_readers_file);
    w[3] = permission_warning(p, "ConsoleOperators", cfg->console_operators_file);
    w[4] = permission_warning(p, "ForwardSecretFile", cfg->forward_secret_file);
    for (int i = 0; i < 5; i++)
        if (w[i])
            all = all ? apr_pstrcat(p, all, "\n", w[i], NULL) : w[i];
    return all;
}
