/* The console's router: the server's name checked, then the assets, the
 * JSON API, the actions (wh_console_actions.c) and which page a path
 * is. */
#include "wh_console_int.h"
#include "inbox/wh_inbox_db.h"
#include "inbox/wh_pagination.h"
#include "inbox/wh_payments.h"
#include "verify/wh_verdict.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

/* ---- the JSON API ----------------------------------------------------- */

static void api(wh_cx *x, const char *sub)
{
    const char *err, *json = NULL, *id = NULL;
    wh_page_query q;
    wh_inbox *ib;
    int res;

    if (strcmp(x->req->method, "GET") != 0 && strcmp(x->req->method, "HEAD") != 0) {
        wh_cx_not_allowed(x, "GET, HEAD", 1);
        return;
    }
    if (strcmp(sub, "/events") == 0) {
        if ((err = wh_pagination_parse(x->p, x->req->query, x->c->cfg, &q)) != NULL) {
            wh_cx_json_error(x, 400, WH_CODE_INVALID_PAGINATION, err);
            return;
        }
        if (!(ib = wh_cx_inbox(x)) || wh_inbox_list(ib, x->p, &q, &json) != WH_INBOX_STORED
            || !json) {
            wh_cx_json_error(x, 503, WH_CODE_INBOX_UNAVAILABLE, "the inbox is unavailable; retry later");
            return;
        }
        wh_cx_json_answer(x, 200, json);
        return;
    }
    if (strcmp(sub, "/payments") == 0) {
        if ((err = wh_pagination_parse_filters(x->p, x->req->query, x->c->cfg,
                                               WH_PAGE_STATUS, &q)) != NULL) {
            wh_cx_json_error(x, 400, WH_CODE_INVALID_PAGINATION, err);
            return;
        }
        res = (ib = wh_cx_inbox(x)) ? (int)wh_payments_list(ib, x->p, &q, &json)
                                    : (int)WH_PAY_UNAVAILABLE;
    } else if (strncmp(sub, "/payments/", 10) == 0 && !strchr(sub + 10, '/')
               && wh_page_filter_value(x->p, "paymentId", sub + 10, &id) == NULL) {
        if (x->req->query && *x->req->query) {
            wh_cx_json_error(x, 400, WH_CODE_INVALID_PAGINATION, "a payment takes no query parameters");
            return;
        }
        res = (ib = wh_cx_inbox(x)) ? (int)wh_payments_get(ib, x->p, id, &json)
                                    : (int)WH_PAY_UNAVAILABLE;
    } else {
        wh_cx_json_error(x, 404, WH_CODE_NOT_FOUND, "no such resource under the console's API "
                   "(known: /api/events, /api/payments, /api/payments/{paymentId})");
        return;
    }
    if (res == WH_PAY_NOT_FOUND)
        wh_cx_json_error(x, 404, WH_CODE_NOT_FOUND, "the inbox holds no event of this payment");
    else if (res != WH_PAY_OK || !json)
        wh_cx_json_error(x, 503, WH_CODE_INBOX_UNAVAILABLE, "the inbox is unavailable; retry later");
    else
        wh_cx_json_answer(x, 200, json);
}

/* ---- assets ----------------------------------------------------------- */

static void asset(wh_cx *x, const char *name)
{
    const wh_cx_asset *a = wh_cx_asset_get(x->p, name);
    wh_console_response *o = x->out;

    if (!a) {
        wh_cx_error_page(x, 404, WH_CODE_NOT_FOUND, "no such asset");
        return;
    }
    if (strcmp(x->req->method, "GET") != 0 && strcmp(x->req->method, "HEAD") != 0) {
        wh_cx_not_allowed(x, "GET, HEAD", 0);
        return;
    }
    wh_cx_header(x, "ETag", a->etag);
    wh_cx_header(x, "Cache-Control", "public, max-age=31536000, immutable");
    wh_cx_header(x, "X-Content-Type-Options", "nosniff");
    if (x->req->if_none_match && strstr(x->req->if_none_match, a->etag)) {
        o->status = 304;
        o->content_type = a->type;
        o->body = "";
        o->body_len = 0;
        return;
    }
    o->status = 200;
    o->content_type = a->type;
    o->body = a->body;
    o->body_len = a->len;
}

/* ---- routing ---------------------------------------------------------- */

/* ---- the server's name ------------------------------------------------ */

/* Host as a log line may show it: bounded, only a host's characters. */
static const char *loggable_host(apr_pool_t *p, const char *host)
{
    char *h = apr_pstrndup(p, host ? host : "", 100);
    for (char *c = h; *c; c++)
        if (!apr_isalnum(*c) && !strchr(".-:[]_", *c))
            *c = '?';
    return h;
}

/* Whether the request names this server: the host found its Host among
 * the server's names, or it is ConsoleOrigin's host. A page on a domain
 * of an attacker's that rebinds its name to this server's address sends
 * that domain as Host: refused, whatever else it carries. */
static int host_ok(wh_cx *x)
{
    const char *o = x->c->cfg->console_origin, *sep;

    if (x->req->host_known)
        return 1;
    if (!o || !x->req->host_header || !(sep = strstr(o, "://")))
        return 0;
    return wh_csrf_same_origin(x->p, o, apr_pstrmemdup(x->p, o, (apr_size_t)(sep - o)),
                               x->req->host_header);
}

/* "/name/{id}": the id (decoded as the host gave the path), else NULL. */
static const char *item(const char *sub, const char *prefix)
{
    apr_size_t n = strlen(prefix);
    if (strncmp(sub, prefix, n) != 0 || sub[n] != '/' || !sub[n + 1]
        || strchr(sub + n + 1, '/'))
        return NULL;
    return sub + n + 1;
}

void wh_console_handle(wh_console *c, wh_console_inbox_fn get, void *ctx,
                       const wh_console_request *req, apr_pool_t *p,
                       wh_console_response *out)
{
    wh_cx x;
    const char *sub = req->sub_path ? req->sub_path : "", *id;
    int is_get = req->method && (strcmp(req->method, "GET") == 0
                                 || strcmp(req->method, "HEAD") == 0);

    memset(out, 0, sizeof(*out));
    out->headers = apr_array_make(p, 10, sizeof(wh_console_header));
    memset(&x, 0, sizeof(x));
    x.c = c;
    x.req = req;
    x.p = p;
    x.get = get;
    x.get_ctx = ctx;
    x.out = out;
    x.status = 200;
    wh_html_init(&x.h, p, WH_CX_PAGE_MAX);
    if (!c || !req->method) {
        wh_cx_error_page(&x, 500, WH_CODE_INTERNAL, "the console is not configured");
        return;
    }
    x.can_act = req->may_act && c->cfg->console_actions;
    x.session = wh_csrf_session_from_cookie(p, req->cookie, wh_cx_cookie_name(&x));
    if (!host_ok(&x)) {
        out->audit = apr_psprintf(p, "console: refused a request for host %s by user %s: "
                                  "not one of this server's names (ServerName, "
                                  "ServerAlias) nor ConsoleOrigin's",
                                  loggable_host(p, req->host_header),
                                  req->user ? req->user : "-");
        out->audit_level = WH_LOG_WARN;
        out->foreign_host = 1;
        wh_cx_error_page(&x, 403, WH_CODE_FORBIDDEN, "this console answers only under "
                         "its server's own names");
        return;
    }

    if (strncmp(sub, "/assets/", 8) == 0) {
        asset(&x, sub + 8);
        return;
    }
    if (strncmp(sub, "/api/", 5) == 0) {
        api(&x, sub + 4);
        return;
    }
    if (wh_console_is_action(sub)) {
        wh_cx_action(&x, sub + sizeof(WH_CONSOLE_ACTIONS) - 1);
        return;
    }
    if (!is_get) {
        wh_cx_not_allowed(&x, "GET, HEAD", 0);
        return;
    }
    /* a page: every page carries the session its forms' tokens are for */
    if (!x.session && (x.session = x.new_session = wh_csrf_session_new(p)) == NULL) {
        wh_cx_error_page(&x, 500, WH_CODE_INTERNAL, "no random numbers for a session");
        return;
    }
    if (!*sub || strcmp(sub, "/") == 0)
        wh_cx_overview(&x);
    else if (strcmp(sub, "/find") == 0)
        wh_cx_find(&x);
    else if (strcmp(sub, "/events") == 0)
        wh_cx_events(&x);
    else if ((id = item(sub, "/events")) != NULL)
        wh_cx_event(&x, id);
    else if (strcmp(sub, "/payments") == 0)
        wh_cx_payments(&x);
    else if ((id = item(sub, "/payments")) != NULL)
        wh_cx_payment(&x, id);
    else if (strcmp(sub, "/dead") == 0)
        wh_cx_dead(&x);
    else if (strcmp(sub, "/dead/retry") == 0)
        wh_cx_dead_retry(&x);
    else if (strcmp(sub, "/quarantine") == 0)
        wh_cx_quarantine(&x);
    else if ((id = item(sub, "/quarantine")) != NULL)
        wh_cx_quarantined(&x, id);
    else {
        wh_cx_error_page(&x, 404, WH_CODE_NOT_FOUND, "the console has no such page");
        return;
    }
    if (x.answered)
        return;
    wh_cx_page_end(&x);
    wh_cx_finish_page(&x);
}
