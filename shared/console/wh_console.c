/* The console's answers: the page frame, the security headers, JSON
 * answers and errors, the notices after an action, and the helpers every
 * page uses. The router is wh_console_route.c, the actions
 * wh_console_actions.c, the pages wh_console_{overview,events,payments,
 * dead,quarantine}.c. */
#include "wh_console_int.h"
#include "verify/wh_parse.h"
#include "verify/wh_verdict.h"
#include "inbox/wh_endpoint.h"
#include "inbox/wh_pagination.h"
#include "verify/wh_datetime.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

/* Strict: nothing but this origin's stylesheet and images, no script at
 * all, no frame around the console, forms only to itself. */
#define WH_CSP_PAGE                                                           \
    "default-src 'none'; style-src 'self'; img-src 'self'; "                  \
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
#define WH_CSP_DATA "default-src 'none'; frame-ancestors 'none'"
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

void wh_cx_header(wh_cx *x, const char *name, const char *value)
{
    wh_console_header *h = apr_array_push(x->out->headers);
    h->name = name;
    h->value = value;
}

/* Reached over https: the request's own scheme, or ConsoleOrigin's (a
 * TLS-terminating proxy in front: the request itself is plain http). */
static int https(const wh_cx *x)
{
    const char *o = x->c->cfg->console_origin;
    if (o)
        return strncmp(o, "https:", 6) == 0;
    return x->req->scheme && strcasecmp(x->req->scheme, "https") == 0;
}

int wh_cx_same_origin(wh_cx *x)
{
    const char *o = x->c->cfg->console_origin;
    if (o) {
        const char *sep = strstr(o, "://");
        return sep && wh_csrf_same_origin(x->p, x->req->origin,
                                          apr_pstrmemdup(x->p, o, (apr_size_t)(sep - o)),
                                          sep + 3);
    }
    return wh_csrf_same_origin(x->p, x->req->origin, x->req->scheme, x->req->host_header);
}

const char *wh_cx_cookie_name(const wh_cx *x)
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
    wh_cx_header(x, "Content-Security-Policy", WH_CSP_PAGE);
    wh_cx_header(x, "X-Frame-Options", "DENY");
    wh_cx_header(x, "X-Content-Type-Options", "nosniff");
    wh_cx_header(x, "Referrer-Policy", "same-origin");
    wh_cx_header(x, "Cache-Control", "no-store");
    if (x->new_session)
        wh_cx_header(x, "Set-Cookie",
               https(x) ? apr_pstrcat(x->p, WH_COOKIE_HTTPS "=", x->new_session,
                                      "; Path=/; Secure; HttpOnly; SameSite=Strict", NULL)
                        : apr_pstrcat(x->p, WH_COOKIE_HTTP "=", x->new_session,
                                      "; Path=", cookie_path(x),
                                      "; HttpOnly; SameSite=Strict", NULL));
}

/* The console's 503s are an inbox that cannot be used: whoever tries it
 * again, the host (WH_ENDPOINT_OPEN_RETRY) or the inbox itself (sooner),
 * does so within this. */
static void retry_after(wh_cx *x, int status)
{
    if (status == 503)
        wh_cx_header(x, "Retry-After",
                     apr_itoa(x->p, wh_retry_after(WH_ENDPOINT_OPEN_RETRY)));
}

void wh_cx_finish_page(wh_cx *x)
{
    wh_console_response *o = x->out;
    o->status = x->status;
    o->content_type = "text/html; charset=utf-8";
    o->body = wh_html_done(&x->h, &o->body_len);
    page_headers(x);
    retry_after(x, o->status);
}

void wh_cx_json_answer(wh_cx *x, int status, const char *json)
{
    wh_console_response *o = x->out;
    o->status = status;
    o->content_type = "application/json";
    o->body = json;
    o->body_len = strlen(json);
    wh_cx_header(x, "Content-Security-Policy", WH_CSP_DATA);
    wh_cx_header(x, "X-Content-Type-Options", "nosniff");
    wh_cx_header(x, "Cache-Control", "no-store");
    retry_after(x, status);
}

void wh_cx_json_error(wh_cx *x, int status, const char *code, const char *message)
{
    wh_cx_json_answer(x, status, wh_error_json(x->p, code, message));
}

/* A page that only says what went wrong. */
void wh_cx_error_page(wh_cx *x, int status, const char *code, const char *message)
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
    wh_cx_finish_page(x);
}

void wh_cx_see_other(wh_cx *x, const char *url)
{
    wh_console_response *o = x->out;
    x->answered = 1;
    o->status = 303;
    o->content_type = "text/plain; charset=utf-8";
    o->body = "See Other\n";
    o->body_len = strlen(o->body);
    wh_cx_header(x, "Location", url);
    wh_cx_header(x, "Cache-Control", "no-store");
    wh_cx_header(x, "X-Content-Type-Options", "nosniff");
}

void wh_cx_not_allowed(wh_cx *x, const char *allow, int json)
{
    if (json)
        wh_cx_json_error(x, 405, WH_CODE_METHOD_NOT_ALLOWED,
                   apr_pstrcat(x->p, "allowed methods: ", allow, NULL));
    else
        wh_cx_error_page(x, 405, WH_CODE_METHOD_NOT_ALLOWED,
                   apr_pstrcat(x->p, "allowed methods: ", allow, NULL));
    wh_cx_header(x, "Allow", allow);
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

int wh_cx_queue(wh_cx *x, wh_fq **d)
{
    if (!x->fq_asked) {
        x->fq_asked = 1;
        x->fq_rc = wh_cx_inbox(x) ? wh_fq_attach(x->p, x->ib, x->c->cfg, &x->fq) : -1;
    }
    *d = x->fq_rc > 0 ? x->fq : NULL;
    return x->fq_rc;
}

const char *wh_cx_url(wh_cx *x, const char *path, const char *seg)
{
    return apr_pstrcat(x->p, x->req->base ? x->req->base : "", path,
                       seg ? "/" : "", seg ? wh_url_part(x->p, seg) : "", NULL);
}

const char *wh_cx_param(wh_cx *x, const char *name)
{
    return wh_form_value(x->p, x->req->query, WH_CX_FORM_MAX, name);
}

const char *wh_cx_filter(wh_cx *x, const char *name)
{
    const char *v = wh_cx_param(x, name), *out = NULL;
    apr_size_t n;

    if (!v)
        return NULL;
    /* a value pasted from elsewhere often brings spaces along */
    while (*v == ' ' || *v == '\t')
        v++;
    n = strlen(v);
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    v = apr_pstrmemdup(x->p, v, n);
    if (!*v || wh_page_filter_value(x->p, name, v, &out) != NULL)
        return NULL;
    return out;
}

int wh_cx_rows(wh_cx *x)
{
    const char *v = wh_cx_param(x, "limit");
    int n = WH_CX_ROWS;
    if (v && *v && wh_parse_int(x->p, v, 1, WH_CX_ROWS_MAX, &n) != NULL)
        n = WH_CX_ROWS;
    return n;
}

int wh_cx_parse_time(wh_cx *x, const char *v, apr_time_t *t)
{
    char *s;
    apr_size_t n;
    apr_int64_t us;

    if (!v || (n = strlen(v)) < 16 || n > 40)
        return -1;
    s = apr_pstrdup(x->p, v);
    if (s[10] == ' ')
        s[10] = 'T';
    if (n == 16)
        s = apr_pstrcat(x->p, s, ":00Z", NULL);
    else if (n == 19)
        s = apr_pstrcat(x->p, s, "Z", NULL);
    if (wh_datetime_parse(s, strlen(s), &us) != 0)
        return -1;
    *t = (apr_time_t)us;
    return 0;
}

const char *wh_cx_query(wh_cx *x, const char *const *names, const char *const *values)
{
    const char *q = "";
    int k = 0;

    for (int i = 0; names[i]; i++)
        if (values[i] && *values[i])
            q = apr_pstrcat(x->p, q, k++ ? "&" : "?", names[i], "=",
                            wh_url_part(x->p, values[i]), NULL);
    return q;
}

const char *wh_cx_num(wh_cx *x, apr_int64_t n)
{
    return apr_psprintf(x->p, "%" APR_INT64_T_FMT, n);
}

void wh_cx_link(wh_cx *x, const char *path, const char *seg, const char *text)
{
    wh_html_raw(&x->h, "<a href=\"");
    wh_html_text(&x->h, wh_cx_url(x, path, seg));
    wh_html_raw(&x->h, "\">");
    wh_html_text(&x->h, text);
    wh_html_raw(&x->h, "</a>");
}

void wh_cx_pager_link(wh_cx *x, const char *label, const char *url)
{
    if (!url) {
        wh_html_raw(&x->h, "<span class=\"dim\">");
        wh_html_text(&x->h, label);
        wh_html_raw(&x->h, "</span>");
        return;
    }
    wh_html_raw(&x->h, "<a href=\"");
    wh_html_text(&x->h, url);
    wh_html_raw(&x->h, "\">");
    wh_html_text(&x->h, label);
    wh_html_raw(&x->h, "</a>");
}

void wh_cx_unavailable(wh_cx *x)
{
    x->status = 503;
    wh_cx_notice(x, "error", "The inbox is unavailable (see the error log); "
                 "this page shows nothing until it answers again.");
}

void wh_cx_not_found(wh_cx *x, const char *what)
{
    x->status = 404;
    wh_cx_notice(x, "error", what);
}

void wh_cx_dl_row(wh_cx *x, const char *term, const char *value)
{
    wh_html_raw(&x->h, "<dt>");
    wh_html_text(&x->h, term);
    wh_html_raw(&x->h, "</dt><dd>");
    if (value)
        wh_html_text(&x->h, value);
    else
        wh_html_raw(&x->h, "<span class=\"dim\">-</span>");
    wh_html_raw(&x->h, "</dd>");
}

void wh_cx_cell(wh_cx *x, const char *v)
{
    wh_html_raw(&x->h, "<td>");
    if (v)
        wh_html_text(&x->h, v);
    else
        wh_html_raw(&x->h, "<span class=\"dim\">-</span>");
    wh_html_raw(&x->h, "</td>");
}

void wh_cx_cell_link(wh_cx *x, const char *path, const char *seg, const char *text)
{
    wh_html_raw(&x->h, "<td>");
    if (seg)
        wh_cx_link(x, path, seg, text ? text : seg);
    else
        wh_html_raw(&x->h, "<span class=\"dim\">-</span>");
    wh_html_raw(&x->h, "</td>");
}

void wh_cx_field(wh_cx *x, const char *name, const char *label, const char *value,
                 const char *placeholder)
{
    wh_html_raw(&x->h, "<label>");
    wh_html_text(&x->h, label);
    wh_html_raw(&x->h, " <input type=\"text\" name=\"");
    wh_html_text(&x->h, name);
    wh_html_raw(&x->h, "\" value=\"");
    wh_html_text(&x->h, value ? value : "");
    wh_html_raw(&x->h, "\" placeholder=\"");
    wh_html_text(&x->h, placeholder);
    wh_html_raw(&x->h, "\"></label>");
}

void wh_cx_select(wh_cx *x, const char *name, const char *label, const char *current,
                  const char *const *values, const char *const *labels, int n)
{
    wh_html_raw(&x->h, "<label>");
    wh_html_text(&x->h, label);
    wh_html_raw(&x->h, " <select name=\"");
    wh_html_text(&x->h, name);
    wh_html_raw(&x->h, "\">");
    for (int i = 0; i < n; i++) {
        wh_html_raw(&x->h, "<option value=\"");
        wh_html_text(&x->h, values[i]);
        wh_html_raw(&x->h, (current ? strcmp(current, values[i]) == 0 : !*values[i])
                               ? "\" selected>" : "\">");
        wh_html_text(&x->h, labels[i]);
        wh_html_raw(&x->h, "</option>");
    }
    wh_html_raw(&x->h, "</select></label>");
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

void wh_cx_action_form(wh_cx *x, const char *action, const char *name,
                       const char *value, const char *label, const char *back,
                       const char *css)
{
    const char *token = wh_csrf_token(x->p, &x->c->key, x->session, x->req->user, action,
                                      apr_pstrcat(x->p, name, "=", value, NULL), x->req->now);

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
    if (back) {
        wh_html_raw(&x->h, "\"><input type=\"hidden\" name=\"back\" value=\"");
        wh_html_text(&x->h, back);
    }
    wh_html_raw(&x->h, css ? "\"><button type=\"submit\" class=\"" : "\"><button type=\"submit\"");
    if (css) {
        wh_html_text(&x->h, css);
        wh_html_raw(&x->h, "\"");
    }
    wh_html_raw(&x->h, ">");
    wh_html_text(&x->h, label);
    wh_html_raw(&x->h, "</button></form>");
}

void wh_cx_state_badge(wh_cx *x, int state, int leased, int attempts)
{
    const char *css = "none", *name = "not queued yet";

    switch (state) {
    case WH_FQ_WAITING: css = "open"; name = "waiting"; break;
    case WH_FQ_READY:
        css = "open";
        name = leased ? "in flight" : attempts > 0 ? "retrying" : "queued";
        if (leased && attempts > 1)
            name = "in flight (retry)";
        break;
    case WH_FQ_FORWARDED: css = "ok"; name = "forwarded"; break;
    case WH_FQ_DEAD: css = "dead"; name = "dead"; break;
    default: break;
    }
    wh_html_printf(&x->h, "<span class=\"st st-%s\">%s</span>", css, name);
}

apr_hash_t *wh_cx_states(wh_cx *x, const apr_int64_t *ids, int n)
{
    wh_fq *d = NULL;
    apr_array_header_t *st;
    apr_hash_t *h;

    if (n <= 0 || wh_cx_queue(x, &d) <= 0 || wh_fq_states(d, x->p, ids, n, &st) != 0)
        return NULL;
    h = apr_hash_make(x->p);
    for (int i = 0; i < st->nelts; i++) {
        wh_fq_state *s = &APR_ARRAY_IDX(st, i, wh_fq_state);
        apr_hash_set(h, &s->event_id, sizeof(s->event_id), s);
    }
    return h;
}

/* ---- notices after an action ------------------------------------------ */

/* done and n as the sealed "what" */
static const char *notice_what(wh_cx *x, const char *done, apr_int64_t n)
{
    return apr_psprintf(x->p, "%s:%" APR_INT64_T_FMT, done, n);
}

const char *wh_cx_done_url(wh_cx *x, const char *path, const char *seg, const char *done,
                           apr_int64_t n)
{
    apr_time_t at = x->req->now;
    const char *page = apr_pstrcat(x->p, path, seg ? "/" : "", seg ? seg : "", NULL);
    const char *seal = wh_csrf_seal(x->p, &x->c->key, x->session, x->req->user, page,
                                    notice_what(x, done, n), at);

    return apr_psprintf(x->p, "%s?done=%s&n=%" APR_INT64_T_FMT "&at=%" APR_TIME_T_FMT
                        "&seal=%s", wh_cx_url(x, path, seg), done, n, apr_time_sec(at),
                        seal ? seal : "");
}

void wh_cx_done_message(wh_cx *x)
{
    const char *done = wh_cx_param(x, "done"), *n = wh_cx_param(x, "n");
    const char *at_s = wh_cx_param(x, "at"), *seal = wh_cx_param(x, "seal");
    apr_int64_t k = 0, at = 0;

    if (!done || !n || !at_s || !seal
        || wh_parse_int64(x->p, n, 0, APR_INT64_MAX, &k) != NULL
        || wh_parse_int64(x->p, at_s, 1, APR_INT64_C(99999999999), &at) != NULL
        || !wh_csrf_seal_check(x->p, &x->c->key, x->session, x->req->user,
                               x->req->sub_path ? x->req->sub_path : "",
                               notice_what(x, done, k), apr_time_from_sec(at), seal,
                               x->req->now))
        return;
    if (strcmp(done, "retry") == 0)
        wh_cx_notice(x, k ? "ok" : "warn",
                     k ? apr_psprintf(x->p, "%" APR_INT64_T_FMT " dead letter%s put back "
                                      "in the queue: wirehook forward sends %s next.",
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
    else if (strcmp(done, "discarded") == 0)
        wh_cx_notice(x, "ok", "Discarded: its bytes are gone; when it came and why it "
                     "was refused are kept.");
    else if (strcmp(done, "acknowledged") == 0)
        wh_cx_notice(x, "ok", "Acknowledged: kept, no longer counted as held.");
    else if (strcmp(done, "notheld") == 0)
        wh_cx_notice(x, "warn", "Nothing done: it is no longer held (released, "
                     "discarded or acknowledged before).");
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
    /* find, from every page: what the bank's support quotes */
    wh_html_raw(&x->h, "</nav><form class=\"find\" method=\"get\" action=\"");
    wh_html_text(&x->h, wh_cx_url(x, "/find", NULL));
    wh_html_raw(&x->h, "\"><input type=\"search\" name=\"q\" aria-label=\"Find\" "
                "placeholder=\"notificationId, paymentId, endToEndId, IMAD, OMAD\" value=\"");
    wh_html_text(&x->h, strcmp(active, "find") == 0 ? wh_cx_param(x, "q") : "");
    wh_html_raw(&x->h, "\"><button type=\"submit\">Find</button></form>"
                "<span class=\"who\">");
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
