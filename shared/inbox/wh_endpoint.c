/* The inbox endpoint: what `SetHandler wirehook` and wirehook.cgi answer.
 * Host-neutral: the request comes in as a wh_request and the answer goes
 * out as a wh_response the host copies onto the wire. */
#include "wh_endpoint.h"
#include "wh_pagination.h"
#include "wh_payments.h"
#include <apr_strings.h>
#include <string.h>

#define WH_ALLOW_INBOX "GET, HEAD, POST"
#define WH_ALLOW_VIEW "GET, HEAD"
#define WH_PAYMENTS_PATH "/payments"

/* 503, back when the inbox is tried again: by the host that could not
 * open it (ib NULL), or by the inbox itself, which reconnects at most
 * every WH_INBOX_RETRY_MS. */
static void unavailable(apr_pool_t *p, const wh_inbox *ib, wh_response *out)
{
    wh_response_unavailable(p, WH_CODE_INBOX_UNAVAILABLE,
                            "the inbox is unavailable; retry later",
                            ib ? apr_time_from_msec(WH_INBOX_RETRY_MS)
                               : WH_ENDPOINT_OPEN_RETRY, out);
}

/* Where readers are configured (cfg->readers_at), the bank's credentials
 * post notifications and read nothing: 403 once they have passed. */
static int bank_reads_nothing(apr_pool_t *p, const wh_config *cfg, wh_response *out)
{
    if (!cfg->readers_at)
        return 0;
    wh_response_error(p, 403, WH_CODE_FORBIDDEN,
                      apr_pstrcat(p, "the bank's credentials post notifications and "
                                  "read nothing here; readers read at ",
                                  cfg->readers_at, NULL), out);
    return 1;
}

static void json_ok(const char *json, wh_response *out)
{
    memset(out, 0, sizeof(*out));
    out->status = 200;
    out->content_type = "application/json";
    out->body = json;
}

void wh_endpoint_store(wh_inbox *ib, const wh_request *req,
                       const wh_verdict *v, apr_pool_t *p, wh_response *out)
{
    if (!v->ok) {
        /* Authentic but malformed: the sender's bug, yet worth keeping for
         * the operator. The answer stays the verdict's 400 even when the
         * quarantine fails: retrying the same bad body would not help. */
        if (v->authentic && v->code &&
            (strcmp(v->code, WH_CODE_INVALID_JSON) == 0 ||
             strcmp(v->code, WH_CODE_SCHEMA_VIOLATION) == 0) && ib)
            (void)wh_inbox_quarantine(ib, p, v, req->body, req->body_len,
                                      req->now);
        wh_response_from_verdict(p, v, out);
        return;
    }
    if (!ib) {
        unavailable(p, NULL, out);
        return;
    }
    switch (wh_inbox_store(ib, p, &v->facts, req->body, req->body_len,
                           req->now, NULL)) {
    case WH_INBOX_STORED:
        wh_response_ack(p, WH_CODE_ACCEPTED, v->facts.notification_id, out);
        break;
    case WH_INBOX_DUPLICATE:
        wh_response_ack(p, WH_CODE_DUPLICATE, v->facts.notification_id, out);
        break;
    default:
        unavailable(p, ib, out);
        break;
    }
}

/* GET on the inbox itself: Basic auth, pagination, the listing; the inbox
 * is asked for only once both have passed. */
static void list_events(wh_verifier *vf, wh_endpoint_inbox_fn get, void *ctx,
                        const wh_request *req, const char *query, apr_pool_t *p,
                        wh_response *out)
{
    const wh_config *cfg = wh_verifier_config(vf);
    const char *err, *json = NULL;
    wh_inbox *ib;
    wh_page_query q;
    wh_verdict auth;

    /* The listing shows every stored payment event: same users as the
     * webhook itself, checked before anything about the query is said. */
    wh_verdict_init(&auth, p);
    if (wh_verify_auth(vf, req, &auth, p) != 0) {
        wh_response_from_verdict(p, &auth, out);
        return;
    }
    if (bank_reads_nothing(p, cfg, out))
        return;
    if ((err = wh_pagination_parse(p, query, cfg, &q)) != NULL) {
        wh_response_error(p, 400, WH_CODE_INVALID_PAGINATION, err, out);
        return;
    }
    ib = get ? get(ctx) : NULL;
    if (!ib || wh_inbox_list(ib, p, &q, &json) != WH_INBOX_STORED || !json) {
        unavailable(p, ib, out);
        return;
    }
    json_ok(json, out);
}

void wh_endpoint_route(apr_pool_t *p, const char *sub_path, wh_route *out)
{
    const apr_size_t n = sizeof(WH_PAYMENTS_PATH) - 1;
    const char *id;

    out->kind = WH_ROUTE_UNKNOWN;
    out->payment_id = NULL;
    if (!sub_path || !*sub_path || strcmp(sub_path, "/") == 0) {
        out->kind = WH_ROUTE_INBOX;
        return;
    }
    if (strncmp(sub_path, WH_PAYMENTS_PATH, n) != 0)
        return;
    if (sub_path[n] == '\0') {
        out->kind = WH_ROUTE_PAYMENTS;
        return;
    }
    /* One more segment, the id: a payment id no store could hold (empty,
     * too long, not UTF-8, a control character, another '/') names no
     * resource. */
    if (sub_path[n] != '/' || strchr(sub_path + n + 1, '/') ||
        wh_page_filter_value(p, "paymentId", sub_path + n + 1, &id) != NULL)
        return;
    out->kind = WH_ROUTE_PAYMENT;
    out->payment_id = id;
}

static void not_found(apr_pool_t *p, wh_response *out)
{
    wh_response_error(p, 404, WH_CODE_NOT_FOUND,
                      "no such resource under the inbox (known: the inbox "
                      "itself, /payments, /payments/{paymentId})", out);
}

int wh_endpoint_error_document(apr_pool_t *p, int failed_status, wh_response *out)
{
    if (failed_status < 400 || failed_status > 599)
        return 0;
    wh_response_error(p, failed_status,
                      failed_status == 404 ? WH_CODE_NOT_FOUND
                      : failed_status < 500 ? WH_CODE_BAD_REQUEST
                                            : WH_CODE_INTERNAL,
                      apr_psprintf(p, "the request failed (%d); a webhook "
                                   "endpoint is not an error document",
                                   failed_status),
                      out);
    return 1;
}

static void not_allowed(apr_pool_t *p, const char *allow, wh_response *out)
{
    wh_response_error(p, 405, WH_CODE_METHOD_NOT_ALLOWED,
                      apr_pstrcat(p, "allowed methods: ", allow, NULL), out);
    out->allow = allow;
}

/* GET on a payment view: the listing's users, then the view; the inbox is
 * asked for only once both the credentials and the query have passed. */
static void payments(wh_verifier *vf, wh_endpoint_inbox_fn get, void *ctx,
                     const wh_request *req, const wh_route *r, const char *query,
                     apr_pool_t *p, wh_response *out)
{
    const char *err, *json = NULL;
    wh_inbox *ib;
    wh_verdict auth;
    wh_page_query q;
    wh_pay_result res;

    wh_verdict_init(&auth, p);
    if (wh_verify_auth(vf, req, &auth, p) != 0) {
        wh_response_from_verdict(p, &auth, out);
        return;
    }
    if (bank_reads_nothing(p, wh_verifier_config(vf), out))
        return;
    if (r->kind == WH_ROUTE_PAYMENT) {
        /* one payment has no query: anything there is a mistake */
        if (query && *query) {
            wh_response_error(p, 400, WH_CODE_INVALID_PAGINATION,
                              "a payment takes no query parameters", out);
            return;
        }
        if ((ib = get(ctx)) == NULL) {
            unavailable(p, NULL, out);
            return;
        }
        res = wh_payments_get(ib, p, r->payment_id, &json);
    } else {
        err = wh_pagination_parse_filters(p, query, wh_verifier_config(vf),
                                          WH_PAGE_STATUS, &q);
        if (err) {
            wh_response_error(p, 400, WH_CODE_INVALID_PAGINATION, err, out);
            return;
        }
        if ((ib = get(ctx)) == NULL) {
            unavailable(p, NULL, out);
            return;
        }
        res = wh_payments_list(ib, p, &q, &json);
    }
    if (res == WH_PAY_NOT_FOUND)
        wh_response_error(p, 404, WH_CODE_NOT_FOUND,
                          "the inbox holds no event of this payment", out);
    else if (res != WH_PAY_OK)
        unavailable(p, ib, out);
    else
        json_ok(json, out);
}

static wh_inbox *given(void *ctx)
{
    return ctx;
}

void wh_endpoint_handle_lazy(wh_verifier *vf, wh_endpoint_inbox_fn get, void *ctx,
                             const wh_request *req, const char *sub_path,
                             const char *query, apr_pool_t *p, wh_response *out)
{
    const char *m = req->method ? req->method : "";
    int is_get = strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0;
    wh_route r;

    wh_endpoint_route(p, sub_path, &r);
    switch (r.kind) {
    case WH_ROUTE_INBOX:
        if (strcmp(m, "POST") == 0) {
            wh_verdict v;
            wh_verdict_init(&v, p);
            wh_verify(vf, req, &v, p);
            /* a refused request that is not even authentic needs no inbox */
            wh_endpoint_store(v.ok || v.authentic ? get(ctx) : NULL, req, &v, p, out);
        } else if (is_get) {
            list_events(vf, get, ctx, req, query, p, out);
        } else {
            not_allowed(p, WH_ALLOW_INBOX, out);
        }
        break;
    case WH_ROUTE_PAYMENTS:
    case WH_ROUTE_PAYMENT:
        if (is_get)
            payments(vf, get, ctx, req, &r, query, p, out);
        else
            not_allowed(p, WH_ALLOW_VIEW, out);
        break;
    default:
        not_found(p, out);
        break;
    }
}

void wh_endpoint_handle(wh_verifier *vf, wh_inbox *ib, const wh_request *req,
                        const char *sub_path, const char *query, apr_pool_t *p,
                        wh_response *out)
{
    wh_endpoint_handle_lazy(vf, given, ib, req, sub_path, query, p, out);
}
