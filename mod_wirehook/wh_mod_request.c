/* request_rec -> wh_request, wh_response -> the wire, accepted facts ->
 * environment and headers, and the core's log sink -> httpd's error log. */
#include "mod_wirehook.h"

#include "http_core.h"
#include "http_main.h"
#include "http_protocol.h"
#include "http_request.h"
#include <apr_strings.h>
#include <apr_lib.h>

/* ---------------------------------------------------------- logging --- */

/* The core logs through a wh_logger; each request carries one whose baton
 * is its request_rec (wh_request.log), so a message lands against the
 * request it is about, with no per-thread state. */
void wh_mod_log_sink(void *baton, wh_log_level level, const char *msg)
{
    request_rec *r = baton;
    int lvl;
    switch (level) {
    case WH_LOG_ERROR: lvl = APLOG_ERR; break;
    case WH_LOG_WARN:  lvl = APLOG_WARNING; break;
    case WH_LOG_INFO:  lvl = APLOG_INFO; break;
    default:           lvl = APLOG_DEBUG; break;
    }
    if (r)
        ap_log_rerror(APLOG_MARK, lvl, 0, r, WHLOGNO(00910) "%s", msg);
    else
        /* the main server's log and LogLevel (with NULL, httpd drops
         * anything below its default level and writes to stderr) */
        ap_log_error(APLOG_MARK, lvl, 0, ap_server_conf, WHLOGNO(00913) "%s", msg);
}

const wh_logger wh_mod_server_logger = { wh_mod_log_sink, NULL };

static const char *nz(const char *s)
{
    return s ? s : "-";
}

/* One line per verdict: accepted at info, rejected at warn with the reason
 * (the verdict's message never holds secrets). A signature mismatch is
 * explained at debug by the core itself through the sink above: method,
 * URL, timestamp and body length that were signed, never the secret. */
void wh_mod_log_verdict(request_rec *r, const wh_verdict *v)
{
    if (v->ok) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, WHLOGNO(00911)
                      "accepted: notificationId=%s code=%s user=%s "
                      "eventType=%s status=%s",
                      nz(v->facts.notification_id), nz(v->code),
                      nz(v->facts.user), nz(v->facts.event_type),
                      nz(v->facts.status));
        return;
    }
    ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(00912)
                  "rejected: notificationId=%s code=%s status=%d reason=%s",
                  nz(v->facts.notification_id), nz(v->code), v->status,
                  nz(v->message));
}

/* --------------------------------------------------------- requests --- */

/* Case-insensitive; repeated headers joined with ", " (httpd already merges
 * HTTP/1 headers so; apr_table_getm also covers tables that were not
 * merged, without allocating for a header that appears once). */
static const char *header_lookup(void *ctx, const char *name)
{
    request_rec *r = ctx;
    return apr_table_getm(r->pool, r->headers_in, name);
}

/* The URL the sender signed is the one it sent: the first request of an
 * internal-redirect chain (a fast redirect, DirectoryIndex or
 * FallbackResource, keeps it on r). */
void wh_mod_request_init(request_rec *r, const wh_config *cfg,
                         wh_request *req)
{
    const request_rec *first = r;
    while (first->prev)
        first = first->prev;
    memset(req, 0, sizeof(*req));
    req->method = r->method;
    req->url = wh_request_url(r->pool, cfg, ap_http_scheme(r),
                              header_lookup(r, "Host"), first->unparsed_uri);
    req->header = header_lookup;
    req->header_ctx = r;
    req->body = "";
    req->body_len = 0;
    req->body_overflow = 0;
    req->now = r->request_time ? r->request_time : apr_time_now();
}

/* --------------------------------------------------------- responses --- */

int wh_mod_respond(request_rec *r, const wh_response *resp)
{
    r->status = resp->status;
    r->status_line = NULL;
    ap_set_content_type(r, resp->content_type ? resp->content_type
                                              : "application/json");
    if (resp->allow)
        apr_table_setn(r->err_headers_out, "Allow", resp->allow);
    if (resp->www_authenticate)
        apr_table_setn(r->err_headers_out, "WWW-Authenticate",
                       resp->www_authenticate);
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    if (resp->close_connection)
        r->connection->keepalive = AP_CONN_CLOSE;
    if (resp->body) {
        ap_set_content_length(r, (apr_off_t)strlen(resp->body));
        if (!r->header_only)
            ap_rputs(resp->body, r);
    }
    /* DONE: the answer is complete; no handler, no ErrorDocument (which
     * would render HTML) */
    return DONE;
}

int wh_mod_respond_error(request_rec *r, int status, const char *code,
                         const char *message)
{
    wh_response resp;
    wh_response_error(r->pool, status, code, message, &resp);
    return wh_mod_respond(r, &resp);
}

/* --------------------------------------------------------- headers --- */

/* "Wirehook" then '-' or '_', in any case: CGI, WSGI and many backends
 * fold '_' and '-' together (HTTP_WIREHOOK_VERIFIED), so a client's
 * Wirehook_Verified is as much a forged fact as Wirehook-Verified. */
#define WH_FACT_WORD "wirehook"

static int is_fact_header(const char *name)
{
    apr_size_t n = sizeof(WH_FACT_WORD) - 1;
    return strncasecmp(name, WH_FACT_WORD, n) == 0
           && (name[n] == '-' || name[n] == '_');
}

typedef struct {
    request_rec *r;
    apr_array_header_t *names;          /* made at the first match */
} strip_ctx;

static int collect_fact_header(void *data, const char *key, const char *val)
{
    (void)val;
    strip_ctx *c = data;
    if (is_fact_header(key)) {
        if (c->names == NULL)
            c->names = apr_array_make(c->r->pool, 2, sizeof(char *));
        APR_ARRAY_PUSH(c->names, const char *) = key;
    }
    return 1;
}

static void strip_table(request_rec *r, apr_table_t *t, const char *what)
{
    strip_ctx c = { r, NULL };
    if (t == NULL || apr_is_empty_table(t))
        return;
    apr_table_do(collect_fact_header, &c, t, NULL);
    for (int i = 0; c.names && i < c.names->nelts; i++) {
        const char *name = APR_ARRAY_IDX(c.names, i, const char *);
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r, WHLOGNO(00914)
                      "removed client-sent %s %s", what, name);
        apr_table_unset(t, name);
    }
}

/* Request headers and trailers (MergeTrailers would fold trailers into the
 * headers once the body has been read, so this runs again after reading). */
void wh_mod_strip_client_headers(request_rec *r)
{
    strip_table(r, r->headers_in, "request header");
    strip_table(r, r->trailers_in, "trailer");
}

/* A header value may not carry control characters (a JSON string could
 * hold "\r\n"): those become '?'. */
static const char *header_safe(apr_pool_t *p, const char *v)
{
    const char *c = v;
    while (*c && !apr_iscntrl((unsigned char)*c))
        c++;
    if (*c == '\0')
        return v;                        /* the common case: no copy */
    char *s = apr_pstrdup(p, v);
    for (char *d = s + (c - v); *d; d++)
        if (apr_iscntrl((unsigned char)*d))
            *d = '?';
    return s;
}

static void publish(request_rec *r, const char *env, const char *hdr,
                    const char *value)
{
    if (value == NULL)
        return;
    /* the facts live in r's pool (or are literals): no copies */
    apr_table_setn(r->subprocess_env, env, value);
    apr_table_setn(r->headers_in, hdr, header_safe(r->pool, value));
}

void wh_mod_publish_facts(request_rec *r, const wh_facts *f)
{
    publish(r, "WIREHOOK_VERIFIED", "Wirehook-Verified", "1");
    publish(r, "WIREHOOK_NOTIFICATION_ID", "Wirehook-Notification-Id",
            f->notification_id);
    publish(r, "WIREHOOK_EVENT_TYPE", "Wirehook-Event-Type", f->event_type);
    publish(r, "WIREHOOK_EVENT_TIME", "Wirehook-Event-Time", f->event_time);
    publish(r, "WIREHOOK_PAYMENT_ID", "Wirehook-Payment-Id", f->payment_id);
    publish(r, "WIREHOOK_STATUS", "Wirehook-Status", f->status);
    publish(r, "WIREHOOK_STATUS_KNOWN", "Wirehook-Status-Known",
            f->status_known ? "1" : "0");
    if (f->user) {
        apr_table_setn(r->subprocess_env, "WIREHOOK_USER", f->user);
        if (r->user == NULL) {
            r->user = apr_pstrdup(r->pool, f->user);
            r->ap_auth_type = "Basic";
        }
    }
}
