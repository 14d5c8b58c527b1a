/* The inbox endpoint: what `SetHandler wirehook` and wirehook.cgi answer.
 * Host-neutral: the request comes in as a wh_request and the answer goes
 * out as a wh_response the host copies onto the wire. */
#include "wh_endpoint.h"
#include <apr_strings.h>
#include <string.h>

#define WH_ALLOW_INBOX "GET, HEAD, POST"

static void unavailable(apr_pool_t *p, wh_response *out)
{
    wh_response_error(p, 503, WH_CODE_INBOX_UNAVAILABLE,
                      "the inbox is unavailable; retry later", out);
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
        unavailable(p, out);
        return;
    }
    switch (wh_inbox_store(ib, p, &v->facts, req->body, req->body_len,
                           req->now, NULL)) {
    case WH_INBOX_STORED:
        wh_response_ack(p, "accepted", v->facts.notification_id, out);
        break;
    case WH_INBOX_DUPLICATE:
        wh_response_ack(p, "duplicate", v->facts.notification_id, out);
        break;
    default:
        unavailable(p, out);
        break;
    }
}

void wh_endpoint_list_lazy(wh_verifier *vf, wh_endpoint_inbox_fn get, void *ctx,
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
    if ((err = wh_pagination_parse(p, query, cfg, &q)) != NULL) {
        wh_response_error(p, 400, WH_CODE_INVALID_PAGINATION, err, out);
        return;
    }
    ib = get ? get(ctx) : NULL;
    if (!ib || wh_inbox_list(ib, p, &q, &json) != WH_INBOX_STORED || !json) {
        unavailable(p, out);
        return;
    }
    memset(out, 0, sizeof(*out));
    out->status = 200;
    out->content_type = "application/json";
    out->body = json;
}

static wh_inbox *given(void *ctx)
{
    return ctx;
}

void wh_endpoint_list(wh_verifier *vf, wh_inbox *ib, const wh_request *req,
                      const char *query, apr_pool_t *p, wh_response *out)
{
    wh_endpoint_list_lazy(vf, given, ib, req, query, p, out);
}

void wh_endpoint_handle(wh_verifier *vf, wh_inbox *ib, const wh_request *req,
                        const char *query, apr_pool_t *p, wh_response *out)
{
    const char *m = req->method ? req->method : "";

    if (strcmp(m, "POST") == 0) {
        wh_verdict v;
        wh_verdict_init(&v, p);
        wh_verify(vf, req, &v, p);
        wh_endpoint_store(ib, req, &v, p, out);
    } else if (strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0) {
        wh_endpoint_list(vf, ib, req, query, p, out);
    } else {
        wh_response_error(p, 405, WH_CODE_METHOD_NOT_ALLOWED,
                          "allowed methods: GET, HEAD, POST", out);
        out->allow = WH_ALLOW_INBOX;
    }
}
