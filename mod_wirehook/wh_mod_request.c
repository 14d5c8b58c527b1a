/* request_rec -> wh_request, wh_response -> the wire, accepted facts ->
 * environment and headers, and the core's log sink -> httpd's error log. */
#include "wh_mod_request.h"

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
    /* until the body is read (wh_mod_verify.c sets it then) */
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
    if (resp->retry_after > 0)
        apr_table_setn(r->err_headers_out, "Retry-After",
                       apr_itoa(r->pool, resp->retry_after));
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
    /* the first letter decides nearly every name, without a call */
    return name && (name[0] == 'w' || name[0] == 'W')
           && strncasecmp(name, WH_FACT_WORD, n) == 0
           && (name[n] == '-' || name[n] == '_');
}

/* The index of t's first entry from `from` on whose name has the facts'
 * form, or -1. A plain pass over the entries: the scan runs three times
 * per request (after reading the request, before verifying, after reading
 * the body) and once per table when the facts are published, and
 * apr_table_do would make a callback per entry. */
static int next_fact_name(const apr_table_t *t, int from)
{
    const apr_array_header_t *arr = apr_table_elts(t);
    const apr_table_entry_t *e = (const apr_table_entry_t *)arr->elts;
    for (int i = from; i < arr->nelts; i++)
        if (is_fact_header(e[i].key))
            return i;
    return -1;
}

/* Names are collected first: apr_table_unset changes the array. */
static void strip_table(request_rec *r, apr_table_t *t, const char *what)
{
    apr_array_header_t *names = NULL;
    const apr_table_entry_t *e;

    if (t == NULL)
        return;
    e = (const apr_table_entry_t *)apr_table_elts(t)->elts;
    for (int i = next_fact_name(t, 0); i >= 0; i = next_fact_name(t, i + 1)) {
        if (names == NULL)
            names = apr_array_make(r->pool, 2, sizeof(char *));
        APR_ARRAY_PUSH(names, const char *) = e[i].key;
    }
    for (int i = 0; names && i < names->nelts; i++) {
        const char *name = APR_ARRAY_IDX(names, i, const char *);
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

/* The facts, each under its environment variable and request header. */
enum { F_VERIFIED, F_NOTIFICATION_ID, F_EVENT_TYPE, F_EVENT_TIME,
       F_PAYMENT_ID, F_STATUS, F_STATUS_KNOWN, F_USER, F_COUNT };
static const struct {
    const char *env, *hdr; /* hdr NULL: the environment only */
} fact_names[F_COUNT] = {
    { "WIREHOOK_VERIFIED", "Wirehook-Verified" },
    { "WIREHOOK_NOTIFICATION_ID", "Wirehook-Notification-Id" },
    { "WIREHOOK_EVENT_TYPE", "Wirehook-Event-Type" },
    { "WIREHOOK_EVENT_TIME", "Wirehook-Event-Time" },
    { "WIREHOOK_PAYMENT_ID", "Wirehook-Payment-Id" },
    { "WIREHOOK_STATUS", "Wirehook-Status" },
    { "WIREHOOK_STATUS_KNOWN", "Wirehook-Status-Known" },
    { "WIREHOOK_USER", NULL },
};

/* A fact is only ever wirehook's own value: any earlier one goes (set by
 * the configuration, or by this publication on the request an internal
 * redirect came from, whose headers the new request shares), then each is
 * added. apr_table_setn would do both per name, but the names share their
 * first four letters, the table's whole per-name checksum, so every setn
 * compared the name with every fact already set. */
void wh_mod_publish_facts(request_rec *r, const wh_facts *f)
{
    const char *value[F_COUNT] = {
        "1", f->notification_id, f->event_type, f->event_time, f->payment_id,
        f->status, f->status_known ? "1" : "0", f->user
    };
    int env_old = next_fact_name(r->subprocess_env, 0) >= 0;
    int hdr_old = next_fact_name(r->headers_in, 0) >= 0;

    for (int i = 0; i < F_COUNT; i++) {
        if (env_old)
            apr_table_unset(r->subprocess_env, fact_names[i].env);
        if (hdr_old && fact_names[i].hdr)
            apr_table_unset(r->headers_in, fact_names[i].hdr);
        if (value[i] == NULL)
            continue;
        /* the facts live in r's pool (or are literals): no copies */
        apr_table_addn(r->subprocess_env, fact_names[i].env, value[i]);
        if (fact_names[i].hdr)
            apr_table_addn(r->headers_in, fact_names[i].hdr,
                           header_safe(r->pool, value[i]));
    }
    if (f->user && r->user == NULL) {
        r->user = apr_pstrdup(r->pool, f->user);
        r->ap_auth_type = "Basic";
    }
}
