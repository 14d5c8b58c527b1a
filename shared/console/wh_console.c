/* The console's answers: the page frame, the security headers, JSON
 * answers and errors, and the helpers every page uses. The router is
 * wh_console_route.c; the pages are wh_console_pages.c and
 * wh_console_overview.c. */
#include "wh_console_int.h"
#include "verify/wh_parse.h"
#include "verify/wh_verdict.h"
#include "inbox/wh_endpoint.h"

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

static int https(const wh_cx *x)
{
    return x->req->scheme && strcasecmp(x->req->scheme, "https") == 0;
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

const char *wh_cx_url(wh_cx *x, const char *path, const char *seg)
{
    return apr_pstrcat(x->p, x->req->base ? x->req->base : "", path,
                       seg ? "/" : "", seg ? wh_url_part(x->p, seg) : "", NULL);
}

const char *wh_cx_param(wh_cx *x, const char *name)
{
    return wh_form_value(x->p, x->req->query, WH_CX_FORM_MAX, name);
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
