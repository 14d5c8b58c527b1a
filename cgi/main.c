/* wirehook.cgi: verifies a webhook POST and stores it in the inbox, or
 * lists the inbox on GET, with the same codes and JSON as the module.
 * Under mod_cgi or mod_cgid one process answers one request; started by
 * a FastCGI server (mod_fcgid) it answers request after request
 * (cgi_fastcgi.c).
 *
 *   ScriptAlias /v1/wires /usr/lib/cgi-bin/wirehook.cgi
 *   <Location /v1/wires>
 *       CGIPassAuth On
 *       SetEnv WIREHOOK_CONFIG /etc/wirehook/wirehook.conf
 *   </Location>
 */
#include "cgi.h"
#include "inbox/wh_endpoint.h"
#include <apr_general.h>
#include <apr_strings.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static int answer_error(apr_pool_t *p, const wh_cgi_io *io, int status,
                        const char *code, const char *message)
{
    wh_response res;
    wh_response_error(p, status, code, message, &res);
    return wh_cgi_write(p, io, &res);
}

static void handle_post(const wh_cgi_io *io, apr_pool_t *p, wh_cgi_site *site,
                        wh_request *req, wh_response *res)
{
    wh_verdict v;
    const char *err;
    wh_inbox *ib = NULL;

    /* Method, auth, type and declared length first: a request refused
     * there is decided before its body is read or buffered (what is left
     * is only drained, unbuffered, before exit). */
    wh_verdict_init(&v, p);
    if (wh_verify_envelope(site->vf, req, &v, p) != 200 || !v.ok) {
        wh_response_from_verdict(p, &v, res);
        return;
    }
    if ((err = wh_cgi_read_body(p, io, site->cfg, req)) != NULL) {
        wh_response_error(p, 400, WH_CODE_BAD_REQUEST, err, res);
        return;
    }
    req->now = apr_time_now();      /* freshness: when the body was complete */
    wh_verify_payload(site->vf, req, &v, p);
    /* Only authentic requests reach the database (to be stored, or kept
     * in quarantine when their body is bad). */
    if (v.ok || v.authentic)
        ib = wh_cgi_inbox_after_auth(site->inbox);
    wh_endpoint_store(ib, req, &v, p, res);
}

/* One request of site, answered through io; p is the request's pool. */
static void serve(const wh_cgi_io *io, apr_pool_t *p, wh_cgi_site *site)
{
    wh_request req;
    wh_response res;
    wh_route route;
    const char *method = wh_cgi_env(io, "REQUEST_METHOD"), *sub_path;
    const char *redirect_status = wh_cgi_getenv(io, "REDIRECT_STATUS");

    wh_cgi_inbox_begin(site->inbox, p);
    wh_cgi_request(p, io, site->cfg, &req);
    memset(&res, 0, sizeof(res));

    /* ErrorDocument ... <this CGI>: httpd runs it, as a GET, for a request
     * that failed with REDIRECT_STATUS; that status is the answer, never
     * a listing (wh_endpoint_error_document says why). */
    if (redirect_status
        && wh_endpoint_error_document(p, atoi(redirect_status), &res)) {
        const char *url = wh_cgi_getenv(io, "REDIRECT_URL");
        wh_logf(&wh_cgi_logger, WH_LOG_WARN, "the inbox is not an error "
                "document: %s for %s answered as such", redirect_status,
                url ? url : "-");
        if (wh_cgi_write(p, io, &res) != 0)
            wh_logf(&wh_cgi_logger, WH_LOG_WARN, "writing the response failed");
        wh_cgi_drain(io);
        return;
    }

    /* The resource comes from PATH_INFO (/payments, /payments/ID): a
     * request for anything but the inbox itself is decided before its body
     * is read. */
    sub_path = wh_cgi_getenv(io, "PATH_INFO");
    if (wh_cgi_metrics_path(sub_path)) {
        if (wh_cgi_metrics(p, io, site->cfg, wh_cgi_inbox_after_auth, site->inbox) != 0)
            wh_logf(&wh_cgi_logger, WH_LOG_WARN, "writing the response failed");
        wh_cgi_drain(io);
        return;
    }
    if (wh_cgi_console_path(sub_path)) {
        if (wh_cgi_console(p, io, site->cfg, sub_path, wh_cgi_inbox_after_auth,
                           site->inbox) != 0)
            wh_logf(&wh_cgi_logger, WH_LOG_WARN, "writing the response failed");
        wh_cgi_drain(io);
        return;
    }
    wh_endpoint_route(p, sub_path, &route);
    if (route.kind == WH_ROUTE_INBOX && strcmp(method, "POST") == 0) {
        handle_post(io, p, site, &req, &res);
    } else {
        /* the listing and the payment views (the inbox opened only once
         * Basic auth has passed), 404 and 405 (no inbox at all) */
        wh_endpoint_handle_lazy(site->vf, wh_cgi_inbox_after_auth, site->inbox, &req,
                                sub_path, wh_cgi_getenv(io, "QUERY_STRING"), p, &res);
    }
    if (wh_cgi_write(p, io, &res) != 0)
        wh_logf(&wh_cgi_logger, WH_LOG_WARN, "writing the response failed");
    wh_cgi_auth_hint(io, site->cfg, &req, &res);
    wh_cgi_drain(io);
    wh_cgi_inbox_end(site->inbox, &res);
}

/* What stops a request before its configuration is used: 1 when it has
 * been answered (500). */
static int refused(const wh_cgi_io *io, apr_pool_t *p, int crypto_ok)
{
    const char *method = wh_cgi_env(io, "REQUEST_METHOD");

    if (!crypto_ok) {
        wh_logf(&wh_cgi_logger, WH_LOG_ERROR,
                "OpenSSL could not be initialized (check openssl.cnf)");
        answer_error(p, io, 500, WH_CODE_INTERNAL, "server misconfigured");
        wh_cgi_drain(io);
        return 1;
    }
    if (!method) {
        wh_logf(&wh_cgi_logger, WH_LOG_ERROR,
                "REQUEST_METHOD is not set: run me as a CGI program under httpd");
        answer_error(p, io, 500, WH_CODE_INTERNAL, "server misconfigured");
        return 1;   /* no request, so no body to drain */
    }
    return 0;
}

static void config_error(const wh_cgi_io *io, apr_pool_t *p, const char *err)
{
    /* The details are for the operator's log, not for the client. */
    wh_logf(&wh_cgi_logger, WH_LOG_ERROR, "configuration error:\n%s", err);
    answer_error(p, io, 500, WH_CODE_INTERNAL, "server misconfigured");
    wh_cgi_drain(io);
}

/* A FastCGI process: its site, kept while it stays current. */
typedef struct {
    apr_pool_t *p;
    const char *argv0;
    int crypto_ok;
    wh_cgi_site *site;
} fcgi_process;

static void serve_fastcgi(void *ctx, const wh_cgi_io *io, apr_pool_t *rp)
{
    fcgi_process *proc = ctx;
    const char *err;

    if (refused(io, rp, proc->crypto_ok))
        return;
    if (proc->site && !wh_cgi_site_current(proc->site, rp, io, proc->argv0)) {
        wh_logf(&wh_cgi_logger, WH_LOG_INFO, "the configuration or a file it names "
                "changed: read again");
        apr_pool_destroy(proc->site->pool);   /* closes its inbox connection */
        proc->site = NULL;
    }
    if (!proc->site
        && (err = wh_cgi_site_load(rp, proc->p, io, proc->argv0, 1, &proc->site)) != NULL) {
        config_error(io, rp, err);
        return;
    }
    wh_cgi_set_log_level(proc->site->cfg->cgi_log_level);
    wh_logf(&wh_cgi_logger, WH_LOG_DEBUG, "FastCGI: %s %s",
            wh_cgi_env(io, "REQUEST_METHOD"),
            wh_cgi_env(io, "REQUEST_URI") ? wh_cgi_env(io, "REQUEST_URI") : "-");
    serve(io, rp, proc->site);
}

int main(int argc, const char *const *argv)
{
    apr_pool_t *p;
    wh_cgi_io io;
    wh_cgi_site *site = NULL;
    const char *err;

    /* Before anything touches OpenSSL, whose first use would otherwise
     * initialize it with the defaults. One process answers one request,
     * so what the defaults set up for a long life is measurable per
     * request: the error strings (nothing here prints OpenSSL's errors)
     * and the exit-time cleanup (exit frees it all at once). openssl.cnf
     * is still loaded: sites restrict algorithms there (fips=yes). The
     * self-contained build cannot load a provider module (it has no
     * dlopen, cgi/static/no_nss_dl.c): a configuration that needs one
     * loads without it, and one that asks for FIPS then verifies nothing.
     * A FastCGI process lives longer, but these choices cost it nothing. */
    int crypto_ok = OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG
                                        | OPENSSL_INIT_NO_ATEXIT
                                        | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS
                                        | WH_CGI_NO_LEGACY_NAMES, NULL);

    if (apr_app_initialize(&argc, &argv, NULL) != APR_SUCCESS)
        return 1;
    apr_pool_create(&p, NULL);
    if (wh_cgi_fastcgi_listening()) {
        fcgi_process proc = { p, argv[0], crypto_ok, NULL };
        int rc = wh_cgi_fastcgi_run(p, serve_fastcgi, &proc);
        apr_pool_destroy(p);   /* closes the inbox connection normally */
        return rc;
    }
    io = wh_cgi_stdio();
    /* From a shell only: under httpd the environment describes a request
     * (RFC 3875), and arguments are then a query string without '='
     * (?--configtest), never options. */
    if (argc > 1 && !getenv("REQUEST_METHOD") && !getenv("GATEWAY_INTERFACE")) {
        if (!crypto_ok) {
            fprintf(stderr,
                    "OpenSSL could not be initialized (check openssl.cnf)\n");
            return 1;
        }
        return wh_cgi_shell(p, argc, argv);
    }
    if (refused(&io, p, crypto_ok))
        return 0;
    if ((err = wh_cgi_site_load(p, p, &io, argv[0], 0, &site)) != NULL) {
        config_error(&io, p, err);
        return 0;
    }
    serve(&io, p, site);
    /* Every commit is already durable: SQLite's close-time checkpoint is
     * skipped unless the WAL has grown (see wh_inbox_release_for_exit). */
    wh_inbox_release_for_exit(wh_cgi_inbox_connection(site->inbox));
    apr_pool_destroy(p);   /* closes a PostgreSQL session properly */
    /* Straight out: nothing is left to flush but stdio, and exit()'s
     * handlers and library destructors (no apr_terminate() either: it
     * would unload the database driver and its library one by one) cost
     * about a twentieth of a request just before the process is gone. */
    fflush(NULL);
    _exit(0);
}
