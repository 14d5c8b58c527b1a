/* The console's router: the assets, the JSON API, the actions (with
 * their token and origin checks) and which page a path is. */
#include "wh_console_int.h"
#include "inbox/wh_inbox_db.h"
#include "inbox/wh_pagination.h"
#include "inbox/wh_payments.h"
#include "inbox/wh_quarantine_ops.h"
#include "forward/wh_forward_queue.h"
#include "verify/wh_parse.h"
#include "verify/wh_verdict.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

static void refuse(wh_cx *x, const char *action, const char *why)
{
    x->out->audit = apr_psprintf(x->p, "console: refused %s by user %s: %s", action,
                                 x->req->user ? x->req->user : "-", why);
    x->out->audit_level = WH_LOG_WARN;
    wh_cx_error_page(x, 403, WH_CODE_FORBIDDEN, why);
}

static void see_other(wh_cx *x, const char *url)
{
    wh_console_response *o = x->out;
    o->status = 303;
    o->content_type = "text/plain; charset=utf-8";
    o->body = "See Other\n";
    o->body_len = strlen(o->body);
    wh_cx_header(x, "Location", url);
    wh_cx_header(x, "Cache-Control", "no-store");
    wh_cx_header(x, "X-Content-Type-Options", "nosniff");
}

static int is_form(const char *ct)
{
    static const char form[] = "application/x-www-form-urlencoded";
    return ct && strncasecmp(ct, form, sizeof(form) - 1) == 0
           && (ct[sizeof(form) - 1] == '\0' || ct[sizeof(form) - 1] == ';'
               || ct[sizeof(form) - 1] == ' ');
}

/* Everything an action must pass before it changes anything; returns
 * the form, or NULL when the request was refused (answered). */
static const char *admit(wh_cx *x, const char *action, const char *scope)
{
    const wh_console_request *r = x->req;
    const char *form, *token;

    if (!r->method || strcmp(r->method, "POST") != 0) {
        wh_cx_not_allowed(x, "POST", 0);
        return NULL;
    }
    if (!r->may_act) {
        refuse(x, action, "this user may read, not act");
        return NULL;
    }
    if (!x->c->cfg->console_actions) {
        refuse(x, action, "the console is read-only (ConsoleActions off)");
        return NULL;
    }
    if (!wh_csrf_same_origin(x->p, r->origin, r->scheme, r->host_header)) {
        refuse(x, action, r->origin ? "the request came from another origin"
                                    : "the request carries no Origin header");
        return NULL;
    }
    if (r->fetch_site && strcmp(r->fetch_site, "same-origin") != 0) {
        refuse(x, action, "the request came from another site (Sec-Fetch-Site)");
        return NULL;
    }
    if (!is_form(r->content_type) || !r->body || r->body_len > WH_CX_FORM_MAX
        || memchr(r->body, '\0', r->body_len)) {
        refuse(x, action, "not a console form");
        return NULL;
    }
    form = apr_pstrmemdup(x->p, r->body, r->body_len);
    token = wh_form_value(x->p, form, WH_CX_FORM_MAX, "token");
    if (!x->session || !token) {
        refuse(x, action, !x->session ? "no console session (cookie): reload the page"
                                      : "the form carries no token");
        return NULL;
    }
    if (!wh_csrf_check(x->p, &x->c->key, x->session, r->user, scope, token)) {
        refuse(x, action, "the form's token is not this session's: reload the page");
        return NULL;
    }
    return form;
}

static void audit(wh_cx *x, const char *what)
{
    x->out->audit = apr_psprintf(x->p, "console: user %s %s",
                                 x->req->user ? x->req->user : "-", what);
    x->out->audit_level = WH_LOG_INFO;
}

static void retry_action(wh_cx *x)
{
    const char *form = admit(x, "retry", "retry"), *event, *pay, *back, *pid = NULL;
    apr_int64_t id = 0;
    wh_fq *d = NULL;
    wh_inbox *ib;
    int n = 0, rc;

    if (!form)
        return;
    event = wh_form_value(x->p, form, WH_CX_FORM_MAX, "event");
    pay = wh_form_value(x->p, form, WH_CX_FORM_MAX, "payment");
    back = wh_form_value(x->p, form, WH_CX_FORM_MAX, "back");
    if ((event && wh_parse_int64(x->p, event, 1, APR_INT64_MAX, &id) != NULL)
        || (!event && (!pay || wh_page_filter_value(x->p, "payment", pay, &pid) != NULL))) {
        wh_cx_error_page(x, 400, WH_CODE_BAD_REQUEST, "retry needs event=ID or payment=PAYMENTID");
        return;
    }
    if ((ib = wh_cx_inbox(x)) == NULL || (rc = wh_fq_attach(x->p, ib, x->c->cfg, &d)) < 0) {
        wh_cx_error_page(x, 503, WH_CODE_INBOX_UNAVAILABLE, "the inbox is unavailable; retry later");
        return;
    }
    if (rc > 0) {
        rc = event ? wh_fq_dead_retry(d, x->p, apr_psprintf(x->p, "%" APR_INT64_T_FMT, id),
                                      x->req->now, &n)
                   : wh_fq_dead_retry_payment(d, x->p, pid, x->req->now, &n);
        if (rc < 0) {
            wh_cx_error_page(x, 503, WH_CODE_INBOX_UNAVAILABLE, "the inbox is unavailable; retry later");
            return;
        }
    }
    audit(x, event ? apr_psprintf(x->p, "retried dead letter event %" APR_INT64_T_FMT
                                  ": %d put back", id, n)
                   : apr_psprintf(x->p, "retried the dead letters of payment %s: %d put back",
                                  pid, n));
    if (back && strcmp(back, "dead") == 0)
        see_other(x, apr_psprintf(x->p, "%s?done=retry&n=%d", wh_cx_url(x, "/dead", NULL), n));
    else if (event)
        see_other(x, apr_psprintf(x->p, "%s?done=retry&n=%d",
                                  wh_cx_url(x, "/events", apr_psprintf(x->p, "%" APR_INT64_T_FMT, id)), n));
    else
        see_other(x, apr_psprintf(x->p, "%s?done=retry&n=%d", wh_cx_url(x, "/payments", pid), n));
}

static void release_action(wh_cx *x)
{
    const char *form = admit(x, "release", "release"), *qid, *done;
    apr_int64_t id = 0, event_id = 0;
    wh_inbox *ib;
    wh_verdict v;

    if (!form)
        return;
    qid = wh_form_value(x->p, form, WH_CX_FORM_MAX, "id");
    if (!qid || wh_parse_int64(x->p, qid, 1, APR_INT64_MAX, &id) != NULL) {
        wh_cx_error_page(x, 400, WH_CODE_BAD_REQUEST, "release needs id=QUARANTINE-ID");
        return;
    }
    if ((ib = wh_cx_inbox(x)) == NULL) {
        wh_cx_error_page(x, 503, WH_CODE_INBOX_UNAVAILABLE, "the inbox is unavailable; retry later");
        return;
    }
    switch (wh_quarantine_release(ib, x->p, x->c->cfg, id, x->req->now, &v, &event_id)) {
    case WH_RELEASE_STORED: done = "released"; break;
    case WH_RELEASE_DUPLICATE: done = "duplicate"; break;
    case WH_RELEASE_ALREADY: done = "already"; break;
    case WH_RELEASE_INVALID: done = "invalid"; break;
    case WH_RELEASE_NOT_FOUND:
        wh_cx_error_page(x, 404, WH_CODE_NOT_FOUND, "the quarantine holds no such notification");
        return;
    default:
        wh_cx_error_page(x, 503, WH_CODE_INBOX_UNAVAILABLE, "the inbox is unavailable; retry later");
        return;
    }
    audit(x, apr_psprintf(x->p, "released quarantined notification %" APR_INT64_T_FMT
                          ": %s (event %" APR_INT64_T_FMT ")", id, done, event_id));
    see_other(x, apr_psprintf(x->p, "%s?done=%s&n=%" APR_INT64_T_FMT,
                              wh_cx_url(x, "/quarantine", qid), done, event_id));
}

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

    if (strncmp(sub, "/assets/", 8) == 0) {
        asset(&x, sub + 8);
        return;
    }
    if (strncmp(sub, "/api/", 5) == 0) {
        api(&x, sub + 4);
        return;
    }
    if (wh_console_is_action(sub)) {
        if (strcmp(sub, WH_CONSOLE_ACTIONS "/retry") == 0)
            retry_action(&x);
        else if (strcmp(sub, WH_CONSOLE_ACTIONS "/release") == 0)
            release_action(&x);
        else
            wh_cx_error_page(&x, 404, WH_CODE_NOT_FOUND, "no such action (known: retry, release)");
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
    else if (strcmp(sub, "/quarantine") == 0)
        wh_cx_quarantine(&x);
    else if ((id = item(sub, "/quarantine")) != NULL)
        wh_cx_quarantined(&x, id);
    else {
        wh_cx_error_page(&x, 404, WH_CODE_NOT_FOUND, "the console has no such page");
        return;
    }
    wh_cx_page_end(&x);
    wh_cx_finish_page(&x);
}
