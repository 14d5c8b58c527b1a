/* The CGI's inbox connection and its auth cache's store (cgi.h).
 *
 * The inbox is opened on first need and only for a request that has
 * passed Basic auth: to store it, or to list. No request that has not
 * passed Basic auth creates, writes or opens the database for writing.
 * A plain CGI process opens it at most once; a FastCGI process keeps the
 * connection for its next requests, and tries again at the next request
 * when it could not be opened.
 *
 * The auth cache (below) sits beside an SQLite inbox in a file of its
 * own (wh_auth_file.h), so checking a credential never opens the database
 * at all. Other inboxes (PostgreSQL, or an SQLite file: URI) keep it in
 * the database: the lookup opens that read-only (an existing database, no
 * write access for SQLite, no schema created for PostgreSQL), and the
 * endpoint's store or listing then carries on in PostgreSQL's session or
 * opens SQLite again for writing. */
#include "cgi.h"
#include "inbox/wh_auth_file.h"
#include "inbox/wh_inbox_files.h"
#include "verify/wh_account.h"
#include <apr_strings.h>
#include <string.h>

struct wh_cgi_inbox {
    apr_pool_t *p;                  /* the configuration's */
    const wh_config *cfg;
    apr_pool_t *ib_pool;            /* the connection's, under p */
    wh_inbox *ib;
    int tried;                      /* opened, or tried to (read-only) */
    int writable;
    const char *auth_file;          /* the auth cache's file, or NULL */
    /* for the request in hand: */
    apr_pool_t *rp;
    /* an auth-cache write, done once the request has been answered */
    const char *key, *user;
    apr_time_t now, expires;
};

/* The connection in a pool of its own: a failed attempt leaves nothing
 * behind in a process that serves many requests. */
static const char *open_with(wh_cgi_inbox *ci, int flags)
{
    const char *err;

    if (apr_pool_create(&ci->ib_pool, ci->p) != APR_SUCCESS) {
        ci->ib_pool = NULL;
        return "out of memory";
    }
    err = wh_inbox_open_ex(ci->ib_pool, ci->cfg, &wh_cgi_logger, flags, &ci->ib);
    if (err || !ci->ib) {
        apr_pool_destroy(ci->ib_pool);
        ci->ib_pool = NULL;
        ci->ib = NULL;
        return err ? err : "the inbox could not be opened";
    }
    return NULL;
}

/* For the auth cache: NULL when there is no database yet, or it cannot
 * be read, which is a cache miss (the password is checked), never an
 * error worth a log line. */
static wh_inbox *open_reader(wh_cgi_inbox *ci)
{
    if (!ci->tried) {
        ci->tried = 1;
        (void)open_with(ci, WH_INBOX_READ_ONLY);
    }
    return ci->ib;
}

/* For a request that has passed Basic auth. NULL when the inbox cannot
 * be opened: the endpoint then answers 503, the sender's cue to retry
 * later. */
static wh_inbox *open_inbox(wh_cgi_inbox *ci)
{
    if (ci->writable)
        return ci->ib;
    ci->writable = 1;
    if (ci->ib) {
        wh_inbox_allow_writes(ci->ib, ci->ib_pool);
    } else {
        const char *err = open_with(ci, 0);
        ci->tried = 1;
        if (err)
            wh_logf(&wh_cgi_logger, WH_LOG_ERROR, "inbox: %s", err);
    }
    return ci->ib;
}

wh_inbox *wh_cgi_inbox_after_auth(void *ctx)
{
    return open_inbox(ctx);
}

wh_inbox *wh_cgi_inbox_connection(const wh_cgi_inbox *ci)
{
    return ci->ib;
}

static void defer_write(wh_cgi_inbox *ci, const char *key, const char *user,
                        apr_time_t now, apr_time_t expires)
{
    ci->key = apr_pstrdup(ci->rp, key);
    ci->user = apr_pstrdup(ci->rp, user);
    ci->now = now;
    ci->expires = expires;
}

/* The auth cache's second level: a plain CGI process serves one request
 * (and FastCGI processes share no memory), so without it every process
 * would pay bcrypt. The lookup only reads; writes wait until the request
 * has been answered. */
static int auth_lookup(void *ctx, apr_pool_t *p, const char *key, apr_time_t now,
                       apr_time_t new_expires, const char **user)
{
    wh_cgi_inbox *ci = ctx;
    apr_time_t expires = 0;

    if (ci->auth_file) {
        if (!wh_auth_file_lookup(p, ci->auth_file, key, now, user, &expires))
            return 0;
    } else {
        wh_inbox *ib = open_reader(ci);
        if (!ib || !wh_inbox_auth_lookup(ib, p, key, now, user, &expires))
            return 0;
    }
    /* Sliding expiry, as the in-process cache; written at most once a
     * second (TTLs are whole seconds): in the database each write is a
     * durable commit. */
    if (expires < new_expires - apr_time_from_sec(1))
        defer_write(ci, key, *user, now, new_expires);
    return 1;
}

static void auth_store(void *ctx, apr_pool_t *p, const char *key, const char *user,
                       apr_time_t now, apr_time_t expires)
{
    (void)p;
    /* Once per credential per AuthCacheTTL in steady use: says when the
     * password check (bcrypt) really ran. */
    wh_logf(&wh_cgi_logger, WH_LOG_INFO,
            "auth: password of user %s checked against BasicAuthFile", user);
    defer_write(ctx, key, user, now, expires);
}

wh_cgi_inbox *wh_cgi_inbox_create(apr_pool_t *p, const wh_config *cfg,
                                  wh_verifier *vf)
{
    wh_cgi_inbox *ci = apr_pcalloc(p, sizeof(*ci));
    wh_auth_store st = { auth_lookup, auth_store, ci };
    const wh_secret *first;
    const char *db_file = wh_inbox_sqlite_file(cfg);

    ci->p = p;
    ci->rp = p;
    ci->cfg = cfg;
    if (!cfg->secrets || cfg->secrets->nelts < 1)
        return ci;
    if (db_file)
        ci->auth_file = apr_pstrcat(p, db_file, WH_AUTH_FILE_SUFFIX, NULL);
    /* The store's key is derived from the first signing secret: the
     * secret file is what an attacker holding only the database lacks. */
    first = &APR_ARRAY_IDX(cfg->secrets, 0, wh_secret);
    (void)wh_auth_cache_set_store(wh_verifier_auth_cache(vf), &st, first->key,
                                  first->len);
    return ci;
}

void wh_cgi_inbox_begin(wh_cgi_inbox *ci, apr_pool_t *rp)
{
    ci->rp = rp;
    ci->key = ci->user = NULL;
    /* an inbox that could not be opened is tried again */
    if (!ci->ib)
        ci->tried = ci->writable = 0;
}

/* After the answer. The file: whatever the answer, since the credential
 * was good (a sender whose later checks fail must not pay bcrypt for
 * each retry). The database: only when it just served the request, so a
 * locked or failing database is not waited for twice. */
void wh_cgi_inbox_end(wh_cgi_inbox *ci, const wh_response *res)
{
    if (!ci->key)
        return;
    if (ci->auth_file) {
        gid_t gid = (gid_t)-1;
        int err;
        if (ci->cfg->inbox_group && wh_group_gid(ci->cfg->inbox_group, &gid) != 0)
            return;   /* the inbox refuses to open too, and says why */
        err = wh_auth_file_store(ci->auth_file, wh_inbox_file_mode(ci->cfg->inbox_group),
                                 gid, ci->key, ci->user, ci->expires);
        if (err) {
            char buf[120];
            wh_logf(&wh_cgi_logger, WH_LOG_WARN, "auth: could not record the check in "
                    "%s: %s", ci->auth_file,
                    apr_strerror(APR_FROM_OS_ERROR(err), buf, sizeof(buf)));
        }
        return;
    }
    if (!ci->ib || !ci->writable || res->status != 200)
        return;
    if (wh_inbox_auth_store(ci->ib, ci->rp, ci->key, ci->user, ci->now, ci->expires) != 0)
        wh_logf(&wh_cgi_logger, WH_LOG_WARN, "auth: could not record the check in the "
                "inbox's auth cache");
}
