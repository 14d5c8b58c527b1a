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
#include "wh_endpoint.h"
#include <apr_general.h>
#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static int answer_error(apr_pool_t *p, int status, const char *code,
                        const char *message)
{
    wh_response res;
    wh_response_error(p, status, code, message, &res);
    return wh_cgi_write(&res);
}

/* NULL when the inbox cannot be opened: the endpoint then answers 503,
 * the sender's cue to retry later. */
static wh_inbox *open_inbox(apr_pool_t *p, const wh_config *cfg)
{
    wh_inbox *ib = NULL;
    const char *err = wh_inbox_open(p, cfg, &wh_cgi_logger, &ib);
    if (err)
        wh_logf(&wh_cgi_logger, WH_LOG_ERROR, "inbox: %s", err);
    return ib;
}

static void handle_post(apr_pool_t *p, const wh_config *cfg, wh_verifier *vf,
                        wh_request *req, wh_response *res)
{
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
    wh_verify_payload(vf, req, &v, p);
    /* Only authentic requests reach the database (to be stored, or kept
     * in quarantine when their body is bad). */
    if (v.ok || v.authentic)
        ib = open_inbox(p, cfg);
    wh_endpoint_store(ib, req, &v, p, res);
}

int main(int argc, const char *const *argv)
{
    apr_pool_t *p;
    wh_config *cfg = NULL;
    wh_verifier *vf;
    wh_request req;
    wh_response res;
    const char *err, *warn, *method;

    if (apr_app_initialize(&argc, &argv, NULL) != APR_SUCCESS)
        return 1;
    apr_pool_create(&p, NULL);

    method = getenv("REQUEST_METHOD");
    if (!method || !*method) {
        wh_logf(&wh_cgi_logger, WH_LOG_ERROR,
                "REQUEST_METHOD is not set: run me as a CGI program under httpd");
        answer_error(p, 500, WH_CODE_INTERNAL, "server misconfigured");
        return 0;   /* no request, so no body to drain */
    }

    if ((err = wh_cgi_load_config(p, environ, &cfg)) != NULL) {
        /* The details are for the operator's log, not for the client. */
        wh_logf(&wh_cgi_logger, WH_LOG_ERROR, "configuration error:\n%s", err);
        answer_error(p, 500, WH_CODE_INTERNAL, "server misconfigured");
        wh_cgi_drain_stdin();
        return 0;
    }
    if ((warn = wh_config_permission_warnings(p, cfg)) != NULL)
        wh_logf(&wh_cgi_logger, WH_LOG_WARN, "%s", warn);

    vf = wh_verifier_create(p, cfg, &wh_cgi_logger);
    wh_cgi_request(p, cfg, &req);
    memset(&res, 0, sizeof(res));

    if (strcmp(method, "POST") == 0) {
        handle_post(p, cfg, vf, &req, &res);
    } else if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0) {
        wh_inbox *ib = open_inbox(p, cfg);
        wh_endpoint_list(vf, ib, &req, getenv("QUERY_STRING"), p, &res);
    } else {
        wh_endpoint_handle(vf, NULL, &req, NULL, p, &res);   /* 405 */
    }
    if (wh_cgi_write(&res) != 0)
        wh_logf(&wh_cgi_logger, WH_LOG_WARN, "writing the response failed");
    wh_cgi_drain_stdin();
    apr_pool_destroy(p);
    apr_terminate();
    return 0;
}
