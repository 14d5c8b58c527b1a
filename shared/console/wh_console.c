/* The console: routing, the page frame, the security headers, the
 * actions (with their token and origin checks) and the JSON API. The
 * pages themselves are wh_console_pages.c and wh_console_overview.c. */
#include "wh_console_int.h"
#include "inbox/wh_inbox_db.h"
#include "inbox/wh_pagination.h"
#include "inbox/wh_payments.h"
#include "inbox/wh_quarantine_ops.h"
#include "forward/wh_delivery.h"
#include "verify/wh_parse.h"
#include "verify/wh_verdict.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

/* Strict: nothing but this origin's stylesheet and images, no script at
 * all, no frame around the console, forms only to itself. */
#define WH_CSP_PAGE                                                           \
    "default-src 'none'; style-src 'self'; img-src 'self'; "                  \
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
#define WH_CSP_DATA "default-src 'none'; frame-ancestors 'none'"
/* A form is small: an id and a token. */
#define WH_FORM_MAX 4096
#define WH_COOKIE_HTTPS "__Host-wirehook-console"
#define WH_COOKIE_HTTP "wirehook-console"

wh_console *wh_console_create(apr_pool_t *p, const wh_config *cfg)
{
    wh_console *c = apr_pcalloc(p, sizeof(*c));

    c->cfg = cfg;
    if (wh_csrf_key_derive(cfg, &c->key) != 0)
        return NULL;
    return c;
}

int wh_console_is_action(const char *sub_path)
{
    apr_size_t n = sizeof(WH_CONSOLE_ACTIONS) - 1;
    return sub_path && strncmp(sub_path, WH_CONSOLE_ACTIONS, n) == 0
           && (sub_path[n] == '/' || sub_path[n] == '\0');
}

/* ---- answers ---------------------------------------------------------- */

static void header(wh_cx *x, const char *name, const char *value)
{
    wh_console_header *h = apr_array_push(x->out->headers);
    h->name = name;
    h->value = value;
}

static int https(const wh_cx *x)
{
    return x->req->scheme && strcasecmp(x->req->scheme, "https") == 0;
}

static const char *cookie_name(const wh_cx *x)
{
    return https(x) ? WH_COOKIE_HTTPS : WH_COOKIE_HTTP;
}

/* The cookie's Path over plain http: the console's own URL when it is a
 * plain path (a __Host- cookie must say Path=/). */
static const char *cookie_path(const wh_cx *x)
{
    const char *b = x->req->base;
    if (!b || !*b)
        return "/";
    for (const char *c = b; *c; c++)
        if (!apr_isalnum(*c) && !strchr("/._~-%", *c))
            return "/";
    return apr_pstrcat(x->p, b, "/", NULL);
}

static void page_headers(wh_cx *x)
{
    header(x, "Content-Security-Policy", WH_CSP_PAGE);
    header(x, "X-Frame-Options", "DENY");
    header(x, "X-Content-Type-Options", "nosniff");
    header(x, "Referrer-Policy", "same-origin");
    header(x, "Cache-Control", "no-store");
    if (x->new_session)
        header(x, "Set-Cookie",
               https(x) ? apr_pstrcat(x->p, WH_COOKIE_HTTPS "=", x->new_session,
                                      "; Path=/; Secure; HttpOnly; SameSite=Strict", NULL)
                        : apr_pstrcat(x->p, WH_COOKIE_HTTP "=", x->new_session,
                                      "; Path=", cookie_path(x),
                                      "; HttpOnly; SameSite=Strict", NULL));
}

static void finish_page(wh_cx *x)
{
    wh_console_response *o = x->out;
    o->status = x->status;
    o->content_type = "text/html; charset=utf-8";
    o->body = wh_html_done(&x->h, &o->body_len);
    page_headers(x);
}

static void json_answer(wh_cx *x, int status, const char *json)
{
    wh_console_response *o = x->out;
    o->status = status;
    o->content_type = "application/json";
    o->body = json;
    o->body_len = strlen(json);
    header(x, "Content-Security-Policy", WH_CSP_DATA);
    header(x, "X-Content-Type-Options", "nosniff");
    header(x, "Cache-Control", "no-store");
}

static void json_error(wh_cx *x, int status, const char *code, const char *message)
{
    json_answer(x, status, wh_error_json(x->p, code, message));
}

/* A page that only says what went wrong. */
static void error_page(wh_cx *x, int status, const char *code, const char *message)
{
    wh_html_init(&x->h, x->p, WH_CX_PAGE_MAX);
    x->status = status;
    wh_cx_page_begin(x, "Error", "");
    wh_html_printf(&x->h, "<h1>%d</h1>", status);
    wh_html_raw(&x->h, "<p class=\"notice error\"><code>");
    wh_html_text(&x->h, code);
    wh_html_raw(&x->h, "</code>: ");
    wh_html_text(&x->h, message);
    wh_html_raw(&x->h, "</p>");
    wh_cx_page_end(x);
    finish_page(x);
}

static void not_allowed(wh_cx *x, const char *allow, int json)
{
    if (json)
        json_error(x, 405, WH_CODE_METHOD_NOT_ALLOWED,
                   apr_pstrcat(x->p, "allowed methods: ", allow, NULL));
    else
        error_page(x, 405, WH_CODE_METHOD_NOT_ALLOWED,
                   apr_pstrcat(x->p, "allowed methods: ", allow, NULL));
    header(x, "Allow", allow);
}

/* ---- helpers for the pages ------------------------------------------- */

wh_inbox *wh_cx_inbox(wh_cx *x)
{
    if (!x->ib_asked) {
        x->ib_asked = 1;
        x->ib = x->get ? x->get(x->get_ctx) : NULL;
    }
    return x->ib;
}

const char *wh_cx_url(wh_cx *x, const char *path, const char *seg)
{
    return apr_pstrcat(x->p, x->req->base ? x->req->base : "", path,
                       seg ? "/" : "", seg ? wh_url_part(x->p, seg) : "", NULL);
}

const char *wh_cx_param(wh_cx *x, const char *name)
{
    return wh_form_value(x->p, x->req->query, WH_FORM_MAX, name);
}

void wh_cx_link(wh_cx *x, const char *path, const char *seg, const char *text)
{
    wh_html_raw(&x->h, "<a href=\"");
    wh_html_text(&x->h, wh_cx_url(x, path, seg));
    wh_html_raw(&x->h, "\">");
    wh_html_text(&x->h, text);
    wh_html_raw(&x->h, "</a>");
}

void wh_cx_time(wh_cx *x, apr_time_t t)
{
    apr_time_exp_t tm;

    if (t <= 0 || apr_time_exp_gmt(&tm, t) != APR_SUCCESS) {
        wh_html_raw(&x->h, "-");
        return;
    }
    wh_html_printf(&x->h, "<time>%04d-%02d-%02d %02d:%02d:%02d UTC</time>",
                   tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                   tm.tm_min, tm.tm_sec);
}

void wh_cx_notice(wh_cx *x, const char *kind, const char *text)
{
    wh_html_printf(&x->h, "<p class=\"notice %s\">", kind);
    wh_html_text(&x->h, text);
    wh_html_raw(&x->h, "</p>");
}

void wh_cx_action_form(wh_cx *x, const char *action, const char *scope,
                       const char *name, const char *value, const char *label)
{
    const char *token = wh_csrf_token(x->p, &x->c->key, x->session, x->req->user, scope);

    if (!x->can_act || !token)
        return;
    wh_html_raw(&x->h, "<form class=\"act\" method=\"post\" action=\"");
    wh_html_text(&x->h, wh_cx_url(x, WH_CONSOLE_ACTIONS "/", NULL));
    wh_html_text(&x->h, action);
    wh_html_raw(&x->h, "\"><input type=\"hidden\" name=\"token\" value=\"");
    wh_html_text(&x->h, token);
    wh_html_raw(&x->h, "\"><input type=\"hidden\" name=\"");
    wh_html_text(&x->h, name);
    wh_html_raw(&x->h, "\" value=\"");
    wh_html_text(&x->h, value);
    wh_html_raw(&x->h, "\"><button type=\"submit\">");
    wh_html_text(&x->h, label);
    wh_html_raw(&x->h, "</button></form>");
}

void wh_cx_done_message(wh_cx *x)
{
    const char *done = wh_cx_param(x, "done"), *n = wh_cx_param(x, "n");
    apr_int64_t k = 0;

    if (!done)
        return;
    if (!n || wh_parse_int64(x->p, n, 0, APR_INT64_MAX, &k) != NULL)
        k = 0;
    if (strcmp(done, "retry") == 0)
        wh_cx_notice(x, k ? "ok" : "warn",
                     k ? apr_psprintf(x->p, "%" APR_INT64_T_FMT " dead letter%s put back "
                                      "in the queue: wirehook forward delivers %s next.",
                                      k, k == 1 ? "" : "s", k == 1 ? "it" : "them")
                       : "No dead letter was put back (none was dead any more).");
    else if (strcmp(done, "released") == 0)
        wh_cx_notice(x, "ok", apr_psprintf(x->p, "Released: stored as event %"
                                           APR_INT64_T_FMT ".", k));
    else if (strcmp(done, "duplicate") == 0)
        wh_cx_notice(x, "ok", apr_psprintf(x->p, "Released: its notificationId was "
                                           "already stored, as event %" APR_INT64_T_FMT
                                           "; nothing stored twice.", k));
    else if (strcmp(done, "already") == 0)
        wh_cx_notice(x, "warn", "This notification was released before.");
    else if (strcmp(done, "invalid") == 0)
        wh_cx_notice(x, "error", "Not released: it still fails the checks under "
                     "today's configuration.");
}

/* ---- the frame -------------------------------------------------------- */

static const struct {
    const char *key, *path, *label;
} nav[] = {
    { "overview", "/", "Overview" },
    { "events", "/events", "Events" },
    { "payments", "/payments", "Payments" },
    { "dead", "/dead", "Dead letters" },
    { "quarantine", "/quarantine", "Quarantine" },
};

void wh_cx_page_begin(wh_cx *x, const char *title, const char *active)
{
    const wh_cx_asset *css = wh_cx_asset_get(x->p, "console.css");
    const wh_cx_asset *icon = wh_cx_asset_get(x->p, "icon.svg");
    const char *role = !x->req->user ? "public console"
                       : x->can_act ? "operator"
                       : x->req->may_act ? "operator (read-only console)" : "reader";

    wh_html_raw(&x->h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                "<title>");
    wh_html_text(&x->h, title);
    wh_html_raw(&x->h, " \xC2\xB7 wirehook console</title><link rel=\"stylesheet\" href=\"");
    wh_html_text(&x->h, wh_cx_url(x, "/assets/console.css", NULL));
    wh_html_raw(&x->h, "?v=");
    wh_html_text(&x->h, wh_url_part(x->p, css->etag));
    wh_html_raw(&x->h, "\"><link rel=\"icon\" type=\"image/svg+xml\" href=\"");
    wh_html_text(&x->h, wh_cx_url(x, "/assets/icon.svg", NULL));
    wh_html_raw(&x->h, "?v=");
    wh_html_text(&x->h, wh_url_part(x->p, icon->etag));
    wh_html_raw(&x->h, "\"></head><body><header class=\"top\"><a class=\"brand\" href=\"");
    wh_html_text(&x->h, wh_cx_url(x, "/", NULL));
    wh_html_raw(&x->h, "\">wirehook</a><nav>");
    for (size_t i = 0; i < sizeof(nav) / sizeof(nav[0]); i++) {
        wh_html_raw(&x->h, "<a href=\"");
        wh_html_text(&x->h, wh_cx_url(x, nav[i].path, NULL));
        wh_html_raw(&x->h, strcmp(nav[i].key, active) == 0 ? "\" class=\"on\">" : "\">");
        wh_html_raw(&x->h, nav[i].label);
        wh_html_raw(&x->h, "</a>");
    }
    wh_html_raw(&x->h, "</nav><span class=\"who\">");
    wh_html_text(&x->h, x->req->user ? x->req->user : "");
    wh_html_raw(&x->h, x->req->user ? " \xC2\xB7 " : "");
    wh_html_raw(&x->h, role);
    wh_html_raw(&x->h, "</span></header><main>");
}

void wh_cx_page_end(wh_cx *x)
{
    if (x->h.overflow) {
        /* cut: close what may be open, and say so */
        x->h.overflow = 0;
        x->h.max += 4096;
        wh_html_raw(&x->h, "</pre></table><p class=\"notice warn\">This page was cut "
                    "at its size limit.</p>");
    }
    wh_html_raw(&x->h, "</main><footer>wirehook console \xC2\xB7 times in UTC"
                "</footer></body></html>\n");
}

/* ---- actions ---------------------------------------------------------- */

static void refuse(wh_cx *x, const char *action, const char *why)
{
    x->out->audit = apr_psprintf(x->p, "console: refused %s by user %s: %s", action,
                                 x->req->user ? x->req->user : "-", why);
    x->out->audit_level = WH_LOG_WARN;
    error_page(x, 403, WH_CODE_FORBIDDEN, why);
}

static void see_other(wh_cx *x, const char *url)
{
    wh_console_response *o = x->out;
    o->status = 303;
    o->content_type = "text/plain; charset=utf-8";
    o->body = "See Other\n";
    o->body_len = strlen(o->body);
    header(x, "Location", url);
    header(x, "Cache-Control", "no-store");
    header(x, "X-Content-Type-Options", "nosniff");
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
        not_allowed(x, "POST", 0);
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
    if (!is_form(r->content_type) || !r->body || r->body_len > WH_FORM_MAX
        || memchr(r->body, '\0', r->body_len)) {
        refuse(x, action, "not a console form");
        return NULL;
    }
    form = apr_pstrmemdup(x->p, r->body, r->body_len);
    token = wh_form_value(x->p, form, WH_FORM_MAX, "token");
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
    wh_delivery *d = NULL;
    wh_inbox *ib;
    int n = 0, rc;

    if (!form)
        return;
    event = wh_form_value(x->p, form, WH_FORM_MAX, "event");
    pay = wh_form_value(x->p, form, WH_FORM_MAX, "payment");
    back = wh_form_value(x->p, form, WH_FORM_MAX, "back");
    if ((event && wh_parse_int64(x->p, event, 1, APR_INT64_MAX, &id) != NULL)
        || (!event && (!pay || wh_page_filter_value(x->p, "payment", pay, &pid) != NULL))) {
        error_page(x, 400, WH_CODE_BAD_REQUEST, "retry needs event=ID or payment=PAYMENTID");
        return;
    }
    if ((ib = wh_cx_inbox(x)) == NULL || (rc = wh_delivery_attach(x->p, ib, x->c->cfg, &d)) < 0) {
        error_page(x, 503, WH_CODE_INBOX_UNAVAILABLE, "the inbox is unavailable; retry later");
        return;
    }
    if (rc > 0) {
        rc = event ? wh_delivery_dead_retry(d, x->p, apr_psprintf(x->p, "%" APR_INT64_T_FMT, id),
                                            x->req->now, &n)
                   : wh_delivery_dead_retry_payment(d, x->p, pid, x->req->now, &n);
        if (rc < 0) {
            error_page(x, 503, WH_CODE_INBOX_UNAVAILABLE, "the inbox is unavailable; retry later");
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
    qid = wh_form_value(x->p, form, WH_FORM_MAX, "id");
    if (!qid || wh_parse_int64(x->p, qid, 1, APR_INT64_MAX, &id) != NULL) {
        error_page(x, 400, WH_CODE_BAD_REQUEST, "release needs id=QUARANTINE-ID");
        return;
    }
    if ((ib = wh_cx_inbox(x)) == NULL) {
        error_page(x, 503, WH_CODE_INBOX_UNAVAILABLE, "the inbox is unavailable; retry later");
        return;
    }
    switch (wh_quarantine_release(ib, x->p, x->c->cfg, id, x->req->now, &v, &event_id)) {
    case WH_RELEASE_STORED: done = "released"; break;
    case WH_RELEASE_DUPLICATE: done = "duplicate"; break;
    case WH_RELEASE_ALREADY: done = "already"; break;
    case WH_RELEASE_INVALID: done = "invalid"; break;
    case WH_RELEASE_NOT_FOUND:
        error_page(x, 404, WH_CODE_NOT_FOUND, "the quarantine holds no such notification");
        return;
    default:
        error_page(x, 503, WH_CODE_INBOX_UNAVAILABLE, "the inbox is unavailable; retry later");
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
        not_allowed(x, "GET, HEAD", 1);
        return;
    }
    if (strcmp(sub, "/events") == 0) {
        if ((err = wh_pagination_parse(x->p, x->req->query, x->c->cfg, &q)) != NULL) {
            json_error(x, 400, WH_CODE_INVALID_PAGINATION, err);
            return;
        }
        if (!(ib = wh_cx_inbox(x)) || wh_inbox_list(ib, x->p, &q, &json) != WH_INBOX_STORED
            || !json) {
            json_error(x, 503, WH_CODE_INBOX_UNAVAILABLE, "the inbox is unavailable; retry later");
            return;
        }
        json_answer(x, 200, json);
        return;
    }
    if (strcmp(sub, "/payments") == 0) {
        if ((err = wh_pagination_parse_filters(x->p, x->req->query, x->c->cfg,
                                               WH_PAGE_STATUS, &q)) != NULL) {
            json_error(x, 400, WH_CODE_INVALID_PAGINATION, err);
            return;
        }
        res = (ib = wh_cx_inbox(x)) ? (int)wh_payments_list(ib, x->p, &q, &json)
                                    : (int)WH_PAY_UNAVAILABLE;
    } else if (strncmp(sub, "/payments/", 10) == 0 && !strchr(sub + 10, '/')
               && wh_page_filter_value(x->p, "paymentId", sub + 10, &id) == NULL) {
        if (x->req->query && *x->req->query) {
            json_error(x, 400, WH_CODE_INVALID_PAGINATION, "a payment takes no query parameters");
            return;
        }
        res = (ib = wh_cx_inbox(x)) ? (int)wh_payments_get(ib, x->p, id, &json)
                                    : (int)WH_PAY_UNAVAILABLE;
    } else {
        json_error(x, 404, WH_CODE_NOT_FOUND, "no such resource under the console's API "
                   "(known: /api/events, /api/payments, /api/payments/{paymentId})");
        return;
    }
    if (res == WH_PAY_NOT_FOUND)
        json_error(x, 404, WH_CODE_NOT_FOUND, "the inbox holds no event of this payment");
    else if (res != WH_PAY_OK || !json)
        json_error(x, 503, WH_CODE_INBOX_UNAVAILABLE, "the inbox is unavailable; retry later");
    else
        json_answer(x, 200, json);
}

/* ---- assets ----------------------------------------------------------- */

static void asset(wh_cx *x, const char *name)
{
    const wh_cx_asset *a = wh_cx_asset_get(x->p, name);
    wh_console_response *o = x->out;

    if (!a) {
        error_page(x, 404, WH_CODE_NOT_FOUND, "no such asset");
        return;
    }
    if (strcmp(x->req->method, "GET") != 0 && strcmp(x->req->method, "HEAD") != 0) {
        not_allowed(x, "GET, HEAD", 0);
        return;
    }
    header(x, "ETag", a->etag);
    header(x, "Cache-Control", "public, max-age=31536000, immutable");
    header(x, "X-Content-Type-Options", "nosniff");
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
        error_page(&x, 500, WH_CODE_INTERNAL, "the console is not configured");
        return;
    }
    x.can_act = req->may_act && c->cfg->console_actions;
    x.session = wh_csrf_session_from_cookie(p, req->cookie, cookie_name(&x));

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
            error_page(&x, 404, WH_CODE_NOT_FOUND, "no such action (known: retry, release)");
        return;
    }
    if (!is_get) {
        not_allowed(&x, "GET, HEAD", 0);
        return;
    }
    /* a page: every page carries the session its forms' tokens are for */
    if (!x.session && (x.session = x.new_session = wh_csrf_session_new(p)) == NULL) {
        error_page(&x, 500, WH_CODE_INTERNAL, "no random numbers for a session");
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
        error_page(&x, 404, WH_CODE_NOT_FOUND, "the console has no such page");
        return;
    }
    wh_cx_page_end(&x);
    finish_page(&x);
}
