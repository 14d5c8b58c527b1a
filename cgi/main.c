/* wirehook.cgi: verifies a webhook POST and stores it in the inbox, or
 * lists the inbox on GET, with the same codes and JSON as the module.
 *
 *   ScriptAlias /v1/wires /usr/lib/cgi-bin/wirehook.cgi
 *   <Location /v1/wires>
 *       CGIPassAuth On
 *       SetEnv WIREHOOK_CONFIG /etc/wirehook/wirehook.conf
 *   </Location>
 */
#include "cgi.h"
#include "inbox/wh_auth_file.h"
#include "inbox/wh_endpoint.h"
#include "inbox/wh_inbox_files.h"
#include "verify/wh_account.h"
#include <apr_general.h>
#include <apr_strings.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* With libcrypto linked into this program (CGI_LINK=static), nothing but
 * wirehook's own code uses this copy of OpenSSL, and that code only fetches
 * algorithms from the providers by name (EVP_MAC_fetch, EVP_MD_fetch).
 * The legacy tables of every cipher and digest, which the first fetch
 * would otherwise build and copy into the name map, are then never
 * consulted: skipping them is about a seventh of a request. Legacy lookups
 * (EVP_get_digestbyname) would find nothing. With a shared libcrypto,
 * libpq's TLS may need them, so they stay. */
#ifdef WH_CGI_SELF_CONTAINED
#define WH_CGI_NO_LEGACY_NAMES \
    (OPENSSL_INIT_NO_ADD_ALL_CIPHERS | OPENSSL_INIT_NO_ADD_ALL_DIGESTS)
#else
#define WH_CGI_NO_LEGACY_NAMES 0
#endif

static int answer_error(apr_pool_t *p, int status, const char *code,
                        const char *message)
{
    wh_response res;
    wh_response_error(p, status, code, message, &res);
    return wh_cgi_write(&res);
}

/* The inbox, opened at most once per process and only for a request
 * that has passed Basic auth: to store it, or to list. No request that
 * has not passed Basic auth creates, writes or opens the database for
 * writing.
 *
 * The auth cache (below) sits beside an SQLite inbox in a file of its
 * own (wh_auth_file.h), so checking a credential never opens the database
 * at all. Other inboxes (PostgreSQL, or an SQLite file: URI) keep it in
 * the database: the lookup opens that read-only (an existing database, no
 * write access for SQLite, no schema created for PostgreSQL), and the
 * endpoint's store or listing then carries on in PostgreSQL's session or
 * opens SQLite again for writing. */
typedef struct {
    apr_pool_t *p;
    const wh_config *cfg;
    wh_inbox *ib;
    int tried;                      /* opened, or tried to (read-only) */
    int writable;
    const char *auth_file;          /* the auth cache's file, or NULL */
    /* an auth-cache write, done once the request has been answered */
    const char *key, *user;
    apr_time_t now, expires;
} cgi_inbox;

/* For the auth cache: NULL when there is no database yet, or it cannot
 * be read, which is a cache miss (the password is checked), never an
 * error worth a log line. */
static wh_inbox *open_reader(cgi_inbox *ci)
{
    if (!ci->tried) {
        ci->tried = 1;
        if (wh_inbox_open_ex(ci->p, ci->cfg, &wh_cgi_logger, WH_INBOX_READ_ONLY, &ci->ib))
            ci->ib = NULL;
    }
    return ci->ib;
}

/* For a request that has passed Basic auth. NULL when the inbox cannot
 * be opened: the endpoint then answers 503, the sender's cue to retry
 * later. */
static wh_inbox *open_inbox(cgi_inbox *ci)
{
    if (ci->writable)
        return ci->ib;
    ci->writable = 1;
    if (ci->ib) {
        wh_inbox_allow_writes(ci->ib, ci->p);
    } else {
        const char *err = wh_inbox_open(ci->p, ci->cfg, &wh_cgi_logger, &ci->ib);
        ci->tried = 1;
        if (err) {
            wh_logf(&wh_cgi_logger, WH_LOG_ERROR, "inbox: %s", err);
            ci->ib = NULL;
        }
    }
    return ci->ib;
}

static wh_inbox *inbox_after_auth(void *ctx)
{
    return open_inbox(ctx);
}

static void defer_write(cgi_inbox *ci, const char *key, const char *user,
                        apr_time_t now, apr_time_t expires)
{
    ci->key = apr_pstrdup(ci->p, key);
    ci->user = apr_pstrdup(ci->p, user);
    ci->now = now;
    ci->expires = expires;
}

/* The auth cache's second level: one CGI process serves one request, so
 * without it every request would pay bcrypt. The lookup only reads;
 * writes wait until the request has been answered. */
static int auth_lookup(void *ctx, apr_pool_t *p, const char *key, apr_time_t now,
                       apr_time_t new_expires, const char **user)
{
    cgi_inbox *ci = ctx;
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

/* After the answer. The file: whatever the answer, since the credential
 * was good (a sender whose later checks fail must not pay bcrypt for
 * each retry). The database: only when it just served the request, so a
 * locked or failing database is not waited for twice. */
static void flush_auth_write(cgi_inbox *ci, const wh_response *res)
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
    if (wh_inbox_auth_store(ci->ib, ci->p, ci->key, ci->user, ci->now, ci->expires) != 0)
        wh_logf(&wh_cgi_logger, WH_LOG_WARN, "auth: could not record the check in the "
                "inbox's auth cache");
}

static void attach_auth_store(wh_verifier *vf, const wh_config *cfg, cgi_inbox *ci)
{
    wh_auth_store st = { auth_lookup, auth_store, ci };
    const wh_secret *first;
    const char *db_file = wh_inbox_sqlite_file(cfg);

    if (!cfg->secrets || cfg->secrets->nelts < 1)
        return;
    if (db_file)
        ci->auth_file = apr_pstrcat(ci->p, db_file, WH_AUTH_FILE_SUFFIX, NULL);
    /* The store's key is derived from the first signing secret: the
     * secret file is what an attacker holding only the database lacks. */
    first = &APR_ARRAY_IDX(cfg->secrets, 0, wh_secret);
    (void)wh_auth_cache_set_store(wh_verifier_auth_cache(vf), &st, first->key,
                                  first->len);
}

static void handle_post(cgi_inbox *ci, const wh_config *cfg, wh_verifier *vf,
                        wh_request *req, wh_response *res)
{
    apr_pool_t *p = ci->p;
    wh_verdict v;
    const char *err;
    wh_inbox *ib = NULL;

    /* Method, auth, type and declared length first: a request refused
     * there is decided before its body is read or buffered (what is left
     * is only drained, unbuffered, before exit). */
    wh_verdict_init(&v, p);
    if (wh_verify_envelope(vf, req, &v, p) != 200 || !v.ok) {
        wh_response_from_verdict(p, &v, res);
        return;
    }
    if ((err = wh_cgi_read_body(p, cfg, req)) != NULL) {
        wh_response_error(p, 400, WH_CODE_BAD_REQUEST, err, res);
        return;
    }
    req->now = apr_time_now();      /* freshness: when the body was complete */
    wh_verify_payload(vf, req, &v, p);
    /* Only authentic requests reach the database (to be stored, or kept
     * in quarantine when their body is bad). */
    if (v.ok || v.authentic)
        ib = open_inbox(ci);
    wh_endpoint_store(ib, req, &v, p, res);
}

int main(int argc, const char *const *argv)
{
    apr_pool_t *p;
    wh_config *cfg = NULL;
    wh_verifier *vf;
    wh_request req;
    wh_response res;
    cgi_inbox ci;
    wh_route route;
    wh_config_found found;
    const char *err, *warn, *files, *method, *sub_path;

    /* Before anything touches OpenSSL, whose first use would otherwise
     * initialize it with the defaults. One process answers one request,
     * so what the defaults set up for a long life is measurable per
     * request: the error strings (nothing here prints OpenSSL's errors)
     * and the exit-time cleanup (exit frees it all at once). openssl.cnf
     * is still loaded: sites restrict algorithms there (fips=yes). The
     * self-contained build cannot load a provider module (it has no
     * dlopen, cgi/static/no_nss_dl.c): a configuration that needs one
     * loads without it, and one that asks for FIPS then verifies nothing. */
    int crypto_ok = OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG
                                        | OPENSSL_INIT_NO_ATEXIT
                                        | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS
                                        | WH_CGI_NO_LEGACY_NAMES, NULL);

    if (apr_app_initialize(&argc, &argv, NULL) != APR_SUCCESS)
        return 1;
    apr_pool_create(&p, NULL);
    /* From a shell only: under httpd the environment describes a request
     * (RFC 3875), and arguments are then a query string without '='
     * (?--configtest), never options. */
    method = getenv("REQUEST_METHOD");
    if (argc > 1 && !method && !getenv("GATEWAY_INTERFACE")) {
        if (!crypto_ok) {
            fprintf(stderr,
                    "OpenSSL could not be initialized (check openssl.cnf)\n");
            return 1;
        }
        return wh_cgi_shell(p, argc, argv);
    }
    if (!crypto_ok) {
        wh_logf(&wh_cgi_logger, WH_LOG_ERROR,
                "OpenSSL could not be initialized (check openssl.cnf)");
        answer_error(p, 500, WH_CODE_INTERNAL, "server misconfigured");
        wh_cgi_drain_stdin();
        return 0;
    }

    if (!method || !*method) {
        wh_logf(&wh_cgi_logger, WH_LOG_ERROR,
                "REQUEST_METHOD is not set: run me as a CGI program under httpd");
        answer_error(p, 500, WH_CODE_INTERNAL, "server misconfigured");
        return 0;   /* no request, so no body to drain */
    }

    if ((err = wh_cgi_load_config(p, environ, wh_cgi_script_path(p, argv[0]),
                                  &cfg, &found))
        != NULL) {
        /* The details are for the operator's log, not for the client. */
        wh_logf(&wh_cgi_logger, WH_LOG_ERROR, "configuration error:\n%s", err);
        answer_error(p, 500, WH_CODE_INTERNAL, "server misconfigured");
        wh_cgi_drain_stdin();
        return 0;
    }
    wh_cgi_set_log_level(cfg->cgi_log_level);
    warn = wh_config_permission_warnings(p, cfg);
    if ((files = wh_inbox_file_warnings(p, cfg)) != NULL)
        warn = warn ? apr_pstrcat(p, warn, "\n", files, NULL) : files;
    if ((files = wh_cgi_config_file_warning(p, found.path, 0)) != NULL)
        warn = warn ? apr_pstrcat(p, warn, "\n", files, NULL) : files;
    if (warn)
        wh_logf(&wh_cgi_logger, WH_LOG_WARN, "%s", warn);

    /* One request per process: one auth-cache slot (clearing the
     * module's 256 would only cost page faults), and no watch on the
     * credentials files it has just read. */
    vf = wh_verifier_create_once(p, cfg, &wh_cgi_logger);
    memset(&ci, 0, sizeof(ci));
    ci.p = p;
    ci.cfg = cfg;
    attach_auth_store(vf, cfg, &ci);
    wh_cgi_request(p, cfg, &req);
    memset(&res, 0, sizeof(res));

    /* ErrorDocument ... <this CGI>: httpd runs it, as a GET, for a request
     * that failed with REDIRECT_STATUS; that status is the answer, never
     * a listing (wh_endpoint_error_document says why). */
    const char *redirect_status = getenv("REDIRECT_STATUS");
    if (redirect_status
        && wh_endpoint_error_document(p, atoi(redirect_status), &res)) {
        wh_logf(&wh_cgi_logger, WH_LOG_WARN, "the inbox is not an error "
                "document: %s for %s answered as such", redirect_status,
                getenv("REDIRECT_URL") ? getenv("REDIRECT_URL") : "-");
        if (wh_cgi_write(&res) != 0)
            wh_logf(&wh_cgi_logger, WH_LOG_WARN, "writing the response failed");
        wh_cgi_drain_stdin();
        return 0;
    }

    /* The resource comes from PATH_INFO (/payments, /payments/ID): a
     * request for anything but the inbox itself is decided before its body
     * is read. */
    sub_path = getenv("PATH_INFO");
    /* With a console, its readers read there, and the bank's credentials
     * read nothing (the inbox's GET answers 403). */
    if (cfg->console_readers || cfg->console_operators)
        cfg->readers_at = apr_pstrcat(p, getenv("SCRIPT_NAME") ? getenv("SCRIPT_NAME") : "",
                                      WH_CGI_CONSOLE "/api/events", NULL);
    if (wh_cgi_console_path(sub_path)) {
        if (wh_cgi_console(p, cfg, sub_path, inbox_after_auth, &ci) != 0)
            wh_logf(&wh_cgi_logger, WH_LOG_WARN, "writing the response failed");
        wh_cgi_drain_stdin();
        wh_inbox_release_for_exit(ci.ib);
        apr_pool_destroy(p);
        fflush(NULL);
        _exit(0);
    }
    wh_endpoint_route(p, sub_path, &route);
    if (route.kind == WH_ROUTE_INBOX && strcmp(method, "POST") == 0) {
        handle_post(&ci, cfg, vf, &req, &res);
    } else {
        /* the listing and the payment views (the inbox opened only once
         * Basic auth has passed), 404 and 405 (no inbox at all) */
        wh_endpoint_handle_lazy(vf, inbox_after_auth, &ci, &req, sub_path,
                                getenv("QUERY_STRING"), p, &res);
    }
    if (wh_cgi_write(&res) != 0)
        wh_logf(&wh_cgi_logger, WH_LOG_WARN, "writing the response failed");
    wh_cgi_auth_hint(cfg, &req, &res);
    wh_cgi_drain_stdin();
    flush_auth_write(&ci, &res);
    /* Every commit is already durable: SQLite's close-time checkpoint is
     * skipped unless the WAL has grown (see wh_inbox_release_for_exit). */
    wh_inbox_release_for_exit(ci.ib);
    apr_pool_destroy(p);   /* closes a PostgreSQL session properly */
    /* Straight out: nothing is left to flush but stdio, and exit()'s
     * handlers and library destructors (no apr_terminate() either: it
     * would unload the database driver and its library one by one) cost
     * about a twentieth of a request just before the process is gone. */
    fflush(NULL);
    _exit(0);
}
